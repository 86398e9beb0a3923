// fp32 2-D convolution (cross-correlation, stride 1, no padding), tunescope CPU ABI (docs/kernel-spec.md).
//
// Buffers are always in one canonical layout, whatever the config: input NCHW (N x C x H x W), filter KCRS
// (K x C x R x S), output NKPQ with P = H - R + 1, Q = W - S + 1. The LAYOUT parameter picks the strategy:
//   nchw: compute in place, vectors along the output row (q); a register tile of TK output channels x TQ
//         output columns, the filter value broadcast.
//   nhwc: transpose the input to NHWC and the filter to RSCK first (timed: it is part of the strategy), then
//         vectors along the output channels (k); a register tile of TQ output columns x TK channels, the
//         input value broadcast; the NPQK result is transposed back to NKPQ.
// Tunables: LAYOUT_<nchw|nhwc>, VEC (floats per vector), TK, TQ, UNROLL (of the innermost reduction loop),
// THREADS. Edges (K % TK, Q % TQ) fall to a scalar path.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#if !defined(VEC) || !defined(TK) || !defined(TQ) || !defined(UNROLL) || !defined(THREADS)
#error "conv2d_cpu.cpp needs the tunable macros VEC, TK, TQ, UNROLL and THREADS."
#endif
#if defined(LAYOUT_nchw) && TQ % VEC != 0
#error "conv2d_cpu.cpp with LAYOUT nchw needs TQ % VEC == 0."
#endif
#if defined(LAYOUT_nhwc) && TK % VEC != 0
#error "conv2d_cpu.cpp with LAYOUT nhwc needs TK % VEC == 0."
#endif
#if !defined(LAYOUT_nchw) && !defined(LAYOUT_nhwc)
#error "conv2d_cpu.cpp needs LAYOUT_nchw or LAYOUT_nhwc."
#endif

#define TS_STR(x) #x
#define TS_PRAGMA(x) _Pragma(TS_STR(x))
#define TS_UNROLL(n) TS_PRAGMA(GCC unroll n)

// A width beyond the target's registers runs as several register-wide vectors.
#if defined(__AVX512F__)
#define TS_NATIVE_WIDTH 16
#elif defined(__AVX__)
#define TS_NATIVE_WIDTH 8
#else
#define TS_NATIVE_WIDTH 4
#endif
#if VEC < TS_NATIVE_WIDTH
#define TS_WIDTH VEC
#else
#define TS_WIDTH TS_NATIVE_WIDTH
#endif

namespace {

using Index = std::int64_t;
constexpr int kWidth = TS_WIDTH;
typedef float Vec __attribute__((vector_size(kWidth * sizeof(float))));

inline Vec loadVec(const float* p) {
    Vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

inline void storeVec(float* p, Vec v) {
    std::memcpy(p, &v, sizeof v);
}

// x - 0 is x for every x, so this folds to a plain broadcast.
inline Vec broadcast(float x) {
    return x - Vec{};
}

struct Shape {
    Index n, c, h, w, k, r, s, p, q;
};

#if defined(LAYOUT_nchw)

constexpr int kVectors = TQ / kWidth;

// out[k0..k0+TK)[p][q0..q0+TQ) of image `img`, full tile.
void tileNchw(const Shape& sh, const float* in, const float* filter, float* out, Index k0, Index p,
              Index q0) {
    Vec acc[TK][kVectors];
    for (int t = 0; t < TK; ++t) {
        for (int v = 0; v < kVectors; ++v) {
            acc[t][v] = Vec{};
        }
    }
    for (Index c = 0; c < sh.c; ++c) {
        for (Index r = 0; r < sh.r; ++r) {
            const float* row = in + (c * sh.h + p + r) * sh.w + q0;
            const float* f = filter + ((k0 * sh.c + c) * sh.r + r) * sh.s;
            TS_UNROLL(UNROLL)
            for (Index s = 0; s < sh.s; ++s) {
                Vec x[kVectors];
                for (int v = 0; v < kVectors; ++v) {
                    x[v] = loadVec(row + s + v * kWidth);
                }
                for (int t = 0; t < TK; ++t) {
                    const Vec fv = broadcast(f[t * sh.c * sh.r * sh.s + s]);
                    for (int v = 0; v < kVectors; ++v) {
                        acc[t][v] += fv * x[v];
                    }
                }
            }
        }
    }
    for (int t = 0; t < TK; ++t) {
        for (int v = 0; v < kVectors; ++v) {
            storeVec(out + ((k0 + t) * sh.p + p) * sh.q + q0 + v * kWidth, acc[t][v]);
        }
    }
}

#else

constexpr int kVectors = TK / kWidth;

// Transposed input (H x W x C) and filter (R x S x C x K) of one image; out is P x Q x K.
void tileNhwc(const Shape& sh, const float* in, const float* filter, float* out, Index k0, Index p,
              Index q0) {
    Vec acc[TQ][kVectors];
    for (int t = 0; t < TQ; ++t) {
        for (int v = 0; v < kVectors; ++v) {
            acc[t][v] = Vec{};
        }
    }
    for (Index r = 0; r < sh.r; ++r) {
        for (Index s = 0; s < sh.s; ++s) {
            const float* x = in + ((p + r) * sh.w + q0 + s) * sh.c;
            const float* f = filter + ((r * sh.s + s) * sh.c) * sh.k + k0;
            TS_UNROLL(UNROLL)
            for (Index c = 0; c < sh.c; ++c) {
                Vec fv[kVectors];
                for (int v = 0; v < kVectors; ++v) {
                    fv[v] = loadVec(f + c * sh.k + v * kWidth);
                }
                for (int t = 0; t < TQ; ++t) {
                    const Vec xv = broadcast(x[t * sh.c + c]);
                    for (int v = 0; v < kVectors; ++v) {
                        acc[t][v] += xv * fv[v];
                    }
                }
            }
        }
    }
    for (int t = 0; t < TQ; ++t) {
        for (int v = 0; v < kVectors; ++v) {
            storeVec(out + (p * sh.q + q0 + t) * sh.k + k0 + v * kWidth, acc[t][v]);
        }
    }
}

#endif

// One output element the plain way, for the edges; `in`/`filter` are those of the strategy's layout.
float edgeValue(const Shape& sh, const float* in, const float* filter, Index k, Index p, Index q) {
    float sum = 0.0f;
    for (Index c = 0; c < sh.c; ++c) {
        for (Index r = 0; r < sh.r; ++r) {
            for (Index s = 0; s < sh.s; ++s) {
#if defined(LAYOUT_nchw)
                sum += in[(c * sh.h + p + r) * sh.w + q + s] * filter[((k * sh.c + c) * sh.r + r) * sh.s + s];
#else
                sum +=
                    in[((p + r) * sh.w + q + s) * sh.c + c] * filter[((r * sh.s + s) * sh.c + c) * sh.k + k];
#endif
            }
        }
    }
    return sum;
}

} // namespace

extern "C" void tunescope_kernel(void* const* buffers, const std::int64_t* sizes) {
    Shape sh{sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], sizes[5], sizes[6], 0, 0};
    sh.p = sh.h - sh.r + 1;
    sh.q = sh.w - sh.s + 1;
    const auto* input = static_cast<const float*>(buffers[0]);
    const auto* filterKcrs = static_cast<const float*>(buffers[1]);
    auto* output = static_cast<float*>(buffers[2]);
    const Index kTiles = sh.k / TK, qTiles = sh.q / TQ;

#if defined(LAYOUT_nhwc)
    std::vector<float> filter(static_cast<std::size_t>(sh.k * sh.c * sh.r * sh.s));
    for (Index k = 0; k < sh.k; ++k)
        for (Index c = 0; c < sh.c; ++c)
            for (Index r = 0; r < sh.r; ++r)
                for (Index s = 0; s < sh.s; ++s)
                    filter[((r * sh.s + s) * sh.c + c) * sh.k + k] =
                        filterKcrs[((k * sh.c + c) * sh.r + r) * sh.s + s];
    std::vector<float> image(static_cast<std::size_t>(sh.h * sh.w * sh.c));
    std::vector<float> result(static_cast<std::size_t>(sh.p * sh.q * sh.k));
#else
    const float* filter = filterKcrs;
#endif

    for (Index n = 0; n < sh.n; ++n) {
        const float* imageNchw = input + n * sh.c * sh.h * sh.w;
        float* out = output + n * sh.k * sh.p * sh.q;
#if defined(LAYOUT_nhwc)
        for (Index c = 0; c < sh.c; ++c)
            for (Index i = 0; i < sh.h * sh.w; ++i)
                image[i * sh.c + c] = imageNchw[c * sh.h * sh.w + i];
        const float* in = image.data();
        const float* f = filter.data();
        float* dst = result.data();
#else
        const float* in = imageNchw;
        const float* f = filter;
        float* dst = out;
#endif
#if THREADS > 1
#pragma omp parallel for num_threads(THREADS) schedule(static)
#endif
        for (Index p = 0; p < sh.p; ++p) {
            for (Index kt = 0; kt < kTiles; ++kt) {
                for (Index qt = 0; qt < qTiles; ++qt) {
#if defined(LAYOUT_nchw)
                    tileNchw(sh, in, f, dst, kt * TK, p, qt * TQ);
#else
                    tileNhwc(sh, in, f, dst, kt * TK, p, qt * TQ);
#endif
                }
            }
            // Edges: the channels past the last full TK tile, and the columns past the last full TQ tile.
            for (Index k = 0; k < sh.k; ++k) {
                const Index qStart = k < kTiles * TK ? qTiles * TQ : 0;
                for (Index q = qStart; q < sh.q; ++q) {
                    const float v = edgeValue(sh, in, f, k, p, q);
#if defined(LAYOUT_nchw)
                    dst[(k * sh.p + p) * sh.q + q] = v;
#else
                    dst[(p * sh.q + q) * sh.k + k] = v;
#endif
                }
            }
        }
#if defined(LAYOUT_nhwc)
        for (Index k = 0; k < sh.k; ++k)
            for (Index i = 0; i < sh.p * sh.q; ++i)
                out[k * sh.p * sh.q + i] = dst[i * sh.k + k];
#endif
    }
}
