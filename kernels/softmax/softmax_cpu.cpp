// fp32 row-wise softmax over a rows x cols row-major matrix: y[i][j] = exp(x[i][j] - m_i) / sum_j exp(x[i][j]
// - m_i) with m_i the row maximum (tunescope CPU ABI, docs/kernel-spec.md).
//
// ALGORITHM_<recompute|store|online>:
//   recompute: pass 1 max, pass 2 sum of exp, pass 3 writes exp / sum (reads x three times, two exps per
//   element) store:     pass 1 max, pass 2 writes exp and sums it, pass 3 scales y (reads x twice, y twice,
//   one exp) online:    pass 1 keeps a running max and a rescaled running sum (Milakov & Gimelshein 2018),
//   pass 2
//              writes exp / sum (reads x twice, two exps)
// Tunables: VEC (floats per vector), UNROLL (independent vectors per step), ROWS_PER_CHUNK (rows per OpenMP
// work item), THREADS. exp is a vectorised Cephes-style polynomial (about 2 ulp on the range that matters).
#include <cmath>
#include <cstdint>
#include <cstring>

#if !defined(VEC) || !defined(UNROLL) || !defined(ROWS_PER_CHUNK) || !defined(THREADS)
#error "softmax_cpu.cpp needs the tunable macros VEC, UNROLL, ROWS_PER_CHUNK and THREADS."
#endif
#if !defined(ALGORITHM_recompute) && !defined(ALGORITHM_store) && !defined(ALGORITHM_online)
#error "softmax_cpu.cpp needs ALGORITHM_recompute, ALGORITHM_store or ALGORITHM_online."
#endif

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
// Each step handles VEC * UNROLL floats as kSteps register-wide vectors.
constexpr int kLanes = VEC * UNROLL;
constexpr int kSteps = kLanes / kWidth;
typedef float Vec __attribute__((vector_size(kWidth * sizeof(float))));
typedef std::int32_t IVec __attribute__((vector_size(kWidth * sizeof(std::int32_t))));

inline Vec loadVec(const float* p) {
    Vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

inline void storeVec(float* p, Vec v) {
    std::memcpy(p, &v, sizeof v);
}

inline Vec splat(float x) {
    return x - Vec{};
}

inline Vec vmax(Vec a, Vec b) {
    return a > b ? a : b;
}

inline float hmax(Vec v) {
    float m = v[0];
    for (int i = 1; i < kWidth; ++i) {
        m = v[i] > m ? v[i] : m;
    }
    return m;
}

inline float hsum(Vec v) {
    float s = 0.0f;
    for (int i = 0; i < kWidth; ++i) {
        s += v[i];
    }
    return s;
}

// exp(x) for x <= 0 (every argument here is x - max): 2^n * p(r) with r = x - n ln 2, |r| <= ln2 / 2.
// Below -87.3 the result would be denormal; it is flushed to 0.
inline Vec vexp(Vec x) {
    const Vec lo = splat(-87.3f);
    const auto under = x < lo;
    x = x < lo ? lo : x;
    // n = floor(x / ln 2 + 1/2); the conversion truncates toward zero, so negative halves are stepped down.
    const Vec t = x * splat(1.44269504088896341f) + splat(0.5f);
    Vec n = __builtin_convertvector(__builtin_convertvector(t, IVec), Vec);
    n = n > t ? n - splat(1.0f) : n;
    Vec r = x - n * splat(0.693359375f);
    r = r - n * splat(-2.12194440e-4f);
    Vec p = splat(1.9875691500E-4f);
    p = p * r + splat(1.3981999507E-3f);
    p = p * r + splat(8.3334519073E-3f);
    p = p * r + splat(4.1665795894E-2f);
    p = p * r + splat(1.6666665459E-1f);
    p = p * r + splat(5.0000001201E-1f);
    p = p * r * r + r + splat(1.0f);
    const IVec bits = (__builtin_convertvector(n, IVec) + 127) << 23;
    Vec scale;
    std::memcpy(&scale, &bits, sizeof scale);
    const Vec result = p * scale;
    return under ? Vec{} : result;
}

[[maybe_unused]] float rowMax(const float* x, Index cols, Index& vecEnd) {
    vecEnd = cols / kLanes * kLanes;
    float m = -INFINITY;
    if (vecEnd > 0) {
        Vec acc[kSteps];
        for (int u = 0; u < kSteps; ++u) {
            acc[u] = loadVec(x + u * kWidth);
        }
        for (Index j = kLanes; j < vecEnd; j += kLanes) {
            for (int u = 0; u < kSteps; ++u) {
                acc[u] = vmax(acc[u], loadVec(x + j + u * kWidth));
            }
        }
        for (int u = 1; u < kSteps; ++u) {
            acc[0] = vmax(acc[0], acc[u]);
        }
        m = hmax(acc[0]);
    }
    for (Index j = vecEnd; j < cols; ++j) {
        m = x[j] > m ? x[j] : m;
    }
    return m;
}

// The helpers below serve one ALGORITHM each, hence [[maybe_unused]].
// Sum of exp(x - m); when `y` is given the exps are stored there too.
[[maybe_unused]] float sumExp(const float* x, float* y, Index cols, Index vecEnd, float m) {
    Vec acc[kSteps];
    for (int u = 0; u < kSteps; ++u) {
        acc[u] = Vec{};
    }
    const Vec mv = splat(m);
    for (Index j = 0; j < vecEnd; j += kLanes) {
        for (int u = 0; u < kSteps; ++u) {
            const Vec e = vexp(loadVec(x + j + u * kWidth) - mv);
            if (y) {
                storeVec(y + j + u * kWidth, e);
            }
            acc[u] += e;
        }
    }
    for (int u = 1; u < kSteps; ++u) {
        acc[0] += acc[u];
    }
    float s = hsum(acc[0]);
    for (Index j = vecEnd; j < cols; ++j) {
        const float e = std::exp(x[j] - m);
        if (y) {
            y[j] = e;
        }
        s += e;
    }
    return s;
}

[[maybe_unused]] void writeExp(const float* x, float* y, Index cols, Index vecEnd, float m, float inv) {
    const Vec mv = splat(m), iv = splat(inv);
    for (Index j = 0; j < vecEnd; j += kLanes) {
        for (int u = 0; u < kSteps; ++u) {
            storeVec(y + j + u * kWidth, vexp(loadVec(x + j + u * kWidth) - mv) * iv);
        }
    }
    for (Index j = vecEnd; j < cols; ++j) {
        y[j] = std::exp(x[j] - m) * inv;
    }
}

[[maybe_unused]] void scale(float* y, Index cols, Index vecEnd, float inv) {
    const Vec iv = splat(inv);
    for (Index j = 0; j < vecEnd; j += kLanes) {
        for (int u = 0; u < kSteps; ++u) {
            storeVec(y + j + u * kWidth, loadVec(y + j + u * kWidth) * iv);
        }
    }
    for (Index j = vecEnd; j < cols; ++j) {
        y[j] *= inv;
    }
}

#if defined(ALGORITHM_online)
// One pass: per lane a running max and a sum rescaled whenever the max grows; lanes are merged at the end.
void onlineMaxSum(const float* x, Index cols, Index& vecEnd, float& m, float& s) {
    vecEnd = cols / kLanes * kLanes;
    m = -INFINITY;
    s = 0.0f;
    if (vecEnd > 0) {
        Vec mx[kSteps], sm[kSteps];
        for (int u = 0; u < kSteps; ++u) {
            mx[u] = splat(-INFINITY);
            sm[u] = Vec{};
        }
        for (Index j = 0; j < vecEnd; j += kLanes) {
            for (int u = 0; u < kSteps; ++u) {
                const Vec v = loadVec(x + j + u * kWidth);
                const Vec nm = vmax(mx[u], v);
                sm[u] = sm[u] * vexp(mx[u] - nm) + vexp(v - nm);
                mx[u] = nm;
            }
        }
        for (int u = 0; u < kSteps; ++u) {
            for (int l = 0; l < kWidth; ++l) {
                const float nm = mx[u][l] > m ? mx[u][l] : m;
                s = s * std::exp(m - nm) + sm[u][l] * std::exp(mx[u][l] - nm);
                m = nm;
            }
        }
    }
    for (Index j = vecEnd; j < cols; ++j) {
        const float nm = x[j] > m ? x[j] : m;
        s = s * std::exp(m - nm) + std::exp(x[j] - nm);
        m = nm;
    }
}
#endif

void softmaxRow(const float* x, float* y, Index cols) {
    Index vecEnd = 0;
#if defined(ALGORITHM_online)
    float m = 0.0f, s = 0.0f;
    onlineMaxSum(x, cols, vecEnd, m, s);
    writeExp(x, y, cols, vecEnd, m, 1.0f / s);
#else
    const float m = rowMax(x, cols, vecEnd);
#if defined(ALGORITHM_recompute)
    const float s = sumExp(x, nullptr, cols, vecEnd, m);
    writeExp(x, y, cols, vecEnd, m, 1.0f / s);
#else
    const float s = sumExp(x, y, cols, vecEnd, m);
    scale(y, cols, vecEnd, 1.0f / s);
#endif
#endif
}

} // namespace

extern "C" void tunescope_kernel(void* const* buffers, const std::int64_t* sizes) {
    const Index rows = sizes[0], cols = sizes[1];
    const auto* x = static_cast<const float*>(buffers[0]);
    auto* y = static_cast<float*>(buffers[1]);
#if THREADS > 1
#pragma omp parallel for num_threads(THREADS) schedule(dynamic, ROWS_PER_CHUNK)
#endif
    for (Index i = 0; i < rows; ++i) {
        softmaxRow(x + i * cols, y + i * cols, cols);
    }
}
