// fp32 GEMM, row-major, C = A * B with A M x K, B K x N, C M x N (tunescope CPU ABI, docs/kernel-spec.md).
//
// BLIS-style structure: three cache-blocking loops (NC columns of B, KC of the shared dimension, MC rows of
// A) in the order LOOP_ORDER, optional packing of A into MR-row panels and of B into NR-column panels, and a
// register-blocked MR x NR micro-kernel that keeps the C tile in vector registers and does one fused
// multiply-add per A element and B vector. Edges (M, N not multiples of MR, NR) are padded in the packed
// panels and written back through a small buffer; without packing they fall to a scalar path.
//
// Tunables (all -D macros): MC, NC, KC, MR, NR, VEC (floats per vector), UNROLL (k-loop unroll), PACK (0/1),
// LOOP_ORDER_<jpi|pji|jip|ipj> (outer to inner: j = NC blocks, p = KC blocks, i = MC blocks; kernel.json
// offers the first three), THREADS (OpenMP: packing and the column panels of each block are shared out).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__FMA__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#if !defined(MC) || !defined(NC) || !defined(KC) || !defined(MR) || !defined(NR) || !defined(VEC) ||         \
    !defined(UNROLL) || !defined(PACK) || !defined(THREADS)
#error "gemm_cpu.cpp needs the tunable macros MC, NC, KC, MR, NR, VEC, UNROLL, PACK and THREADS."
#endif
#if NR % VEC != 0 || MC % MR != 0
#error "gemm_cpu.cpp needs NR % VEC == 0 and MC % MR == 0."
#endif

#define TS_STR(x) #x
#define TS_PRAGMA(x) _Pragma(TS_STR(x))
#define TS_UNROLL(n) TS_PRAGMA(GCC unroll n)
#if THREADS > 1
#define TS_OMP_FOR TS_PRAGMA(omp for schedule(static))
#else
#define TS_OMP_FOR
#endif

namespace {

using Index = std::int64_t;

// VEC is the vector width asked for; a width beyond the target's registers runs as several register-wide
// vectors (GCC's own splitting of oversized vector types keeps them in memory and is ten times slower).
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
constexpr int kWidth = TS_WIDTH;
typedef float Vec __attribute__((vector_size(kWidth * sizeof(float))));
constexpr int kVectors = NR / kWidth;

inline Vec loadVec(const float* p) {
    Vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

inline void storeVec(float* p, Vec v) {
    std::memcpy(p, &v, sizeof v);
}

// x - 0 is x for every x (-0 included), so this folds to a plain broadcast; x + 0 would not.
inline Vec broadcast(float x) {
    return x - Vec{};
}

// a * b + c in one rounding. Native widths use the FMA intrinsics; other widths (16 floats on AVX2, any width
// without FMA) rely on -ffp-contract=fast from the spec's flags, since ISO C++ modes keep the multiply and
// the add apart by default.
inline Vec fma(Vec a, Vec b, Vec c) {
#if defined(__AVX512F__) && TS_WIDTH == 16
    return (Vec)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__FMA__) && TS_WIDTH == 8
    return (Vec)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif defined(__FMA__) && TS_WIDTH == 4
    return (Vec)_mm_fmadd_ps((__m128)a, (__m128)b, (__m128)c);
#else
    return a * b + c;
#endif
}

// The MR x NR tile of A(rows, kc) * B(kc, cols) in registers. A element (i, k) is at a[i * aRow + k * aCol],
// B row k starts at b + k * bRow. The tile is stored to (or added onto, when `accumulate`) c with row stride
// ldc.
template <Index aRow, Index aCol, Index bRow>
inline void microKernel(Index kc, const float* __restrict a, Index aRowRt, const float* __restrict b,
                        Index bRowRt, float* __restrict c, Index ldc, bool accumulate) {
    const Index ar = aRow ? aRow : aRowRt;
    const Index br = bRow ? bRow : bRowRt;
    Vec acc[MR][kVectors];
    for (int i = 0; i < MR; ++i) {
        for (int j = 0; j < kVectors; ++j) {
            acc[i][j] = Vec{};
        }
    }
    TS_UNROLL(UNROLL)
    for (Index k = 0; k < kc; ++k) {
        Vec bv[kVectors];
        for (int j = 0; j < kVectors; ++j) {
            bv[j] = loadVec(b + k * br + j * kWidth);
        }
        for (int i = 0; i < MR; ++i) {
            const Vec av = broadcast(a[i * ar + k * aCol]);
            for (int j = 0; j < kVectors; ++j) {
                acc[i][j] = fma(av, bv[j], acc[i][j]);
            }
        }
    }
    for (int i = 0; i < MR; ++i) {
        for (int j = 0; j < kVectors; ++j) {
            float* out = c + i * ldc + j * kWidth;
            storeVec(out, accumulate ? loadVec(out) + acc[i][j] : acc[i][j]);
        }
    }
}

#if PACK
// Packs rows [0, mc) x columns [0, kc) of A into MR-row panels, k-major inside a panel, zero-padded.
void packA(Index mc, Index kc, const float* a, Index lda, float* dst) {
    const Index panels = (mc + MR - 1) / MR;
    TS_OMP_FOR
    for (Index p = 0; p < panels; ++p) {
        float* panel = dst + p * MR * kc;
        const Index rows = std::min<Index>(MR, mc - p * MR);
        for (Index i = 0; i < MR; ++i) {
            const float* src = a + (p * MR + i) * lda;
            for (Index k = 0; k < kc; ++k) {
                panel[k * MR + i] = i < rows ? src[k] : 0.0f;
            }
        }
    }
}

// Packs rows [0, kc) x columns [0, nc) of B into NR-column panels, row-major inside a panel, zero-padded.
void packB(Index kc, Index nc, const float* b, Index ldb, float* dst) {
    const Index panels = (nc + NR - 1) / NR;
    TS_OMP_FOR
    for (Index p = 0; p < panels; ++p) {
        float* panel = dst + p * NR * kc;
        const Index cols = std::min<Index>(NR, nc - p * NR);
        for (Index k = 0; k < kc; ++k) {
            const float* src = b + k * ldb + p * NR;
            float* row = panel + k * NR;
            if (cols == NR) {
                std::memcpy(row, src, NR * sizeof(float));
            } else {
                std::memcpy(row, src, static_cast<std::size_t>(cols) * sizeof(float));
                std::memset(row + cols, 0, static_cast<std::size_t>(NR - cols) * sizeof(float));
            }
        }
    }
}

#endif

// One MC x NC x KC block: C(mc, nc) (+)= A(mc, kc) * B(kc, nc).
struct Block {
    const float* a; // packed panels, or the first element of the block in A
    const float* b; // packed panels, or the first element of the block in B
    float* c;
    Index mc, nc, kc;
    Index lda, ldb, ldc;
    bool accumulate;
};

void edgeTile(const Block& blk, const float* a, Index aRow, Index aCol, const float* b, Index bRow, float* c,
              Index rows, Index cols) {
#if PACK
    // Padded panels: compute the full tile into a buffer and copy out the valid part.
    alignas(64) float tile[MR * NR];
    microKernel<1, MR, NR>(blk.kc, a, 0, b, 0, tile, NR, false);
    (void)aRow;
    (void)aCol;
    (void)bRow;
    for (Index i = 0; i < rows; ++i) {
        for (Index j = 0; j < cols; ++j) {
            c[i * blk.ldc + j] = (blk.accumulate ? c[i * blk.ldc + j] : 0.0f) + tile[i * NR + j];
        }
    }
#else
    for (Index i = 0; i < rows; ++i) {
        for (Index j = 0; j < cols; ++j) {
            float sum = 0.0f;
            for (Index k = 0; k < blk.kc; ++k) {
                sum += a[i * aRow + k * aCol] * b[k * bRow + j];
            }
            c[i * blk.ldc + j] = (blk.accumulate ? c[i * blk.ldc + j] : 0.0f) + sum;
        }
    }
#endif
}

void macroKernel(const Block& blk) {
    const Index colPanels = (blk.nc + NR - 1) / NR;
    const Index rowPanels = (blk.mc + MR - 1) / MR;
    TS_OMP_FOR
    for (Index jp = 0; jp < colPanels; ++jp) {
        const Index cols = std::min<Index>(NR, blk.nc - jp * NR);
        for (Index ip = 0; ip < rowPanels; ++ip) {
            const Index rows = std::min<Index>(MR, blk.mc - ip * MR);
            float* c = blk.c + ip * MR * blk.ldc + jp * NR;
#if PACK
            const float* a = blk.a + ip * MR * blk.kc;
            const float* b = blk.b + jp * NR * blk.kc;
            if (rows == MR && cols == NR) {
                microKernel<1, MR, NR>(blk.kc, a, 0, b, 0, c, blk.ldc, blk.accumulate);
            } else {
                edgeTile(blk, a, 1, MR, b, NR, c, rows, cols);
            }
#else
            const float* a = blk.a + ip * MR * blk.lda;
            const float* b = blk.b + jp * NR;
            if (rows == MR && cols == NR) {
                microKernel<0, 1, 0>(blk.kc, a, blk.lda, b, blk.ldb, c, blk.ldc, blk.accumulate);
            } else {
                edgeTile(blk, a, blk.lda, 1, b, blk.ldb, c, rows, cols);
            }
#endif
        }
    }
}

struct Buffers {
    float* a = nullptr;
    float* b = nullptr;
    Buffers(Index aFloats, Index bFloats) {
        a = static_cast<float*>(std::aligned_alloc(64, roundUp(aFloats)));
        b = static_cast<float*>(std::aligned_alloc(64, roundUp(bFloats)));
    }
    ~Buffers() {
        std::free(a);
        std::free(b);
    }
    Buffers(const Buffers&) = delete;
    Buffers& operator=(const Buffers&) = delete;
    static std::size_t roundUp(Index floats) { return (static_cast<std::size_t>(floats) * 4 + 63) / 64 * 64; }
};

// Walks the blocks in LOOP_ORDER. Packed panels are rebuilt only when their block changes, so orders that
// revisit a B block (or an A block) in a row pay for packing once, and the others pay again.
void gemm(Index m, Index n, Index k, const float* A, const float* B, float* C, Buffers& packed) {
    const Index mBlocks = (m + MC - 1) / MC, nBlocks = (n + NC - 1) / NC, kBlocks = (k + KC - 1) / KC;
#if defined(LOOP_ORDER_jpi)
    const Index outer = nBlocks, middle = kBlocks, inner = mBlocks;
#elif defined(LOOP_ORDER_pji)
    const Index outer = kBlocks, middle = nBlocks, inner = mBlocks;
#elif defined(LOOP_ORDER_jip)
    const Index outer = nBlocks, middle = mBlocks, inner = kBlocks;
#elif defined(LOOP_ORDER_ipj)
    const Index outer = mBlocks, middle = kBlocks, inner = nBlocks;
#else
#error "gemm_cpu.cpp needs LOOP_ORDER_jpi, LOOP_ORDER_pji, LOOP_ORDER_jip or LOOP_ORDER_ipj."
#endif
    Index packedA[2] = {-1, -1}, packedB[2] = {-1, -1};
    for (Index o = 0; o < outer; ++o) {
        for (Index mid = 0; mid < middle; ++mid) {
            for (Index in = 0; in < inner; ++in) {
#if defined(LOOP_ORDER_jpi)
                const Index jb = o, pb = mid, ib = in;
#elif defined(LOOP_ORDER_pji)
                const Index pb = o, jb = mid, ib = in;
#elif defined(LOOP_ORDER_jip)
                const Index jb = o, ib = mid, pb = in;
#else
                const Index ib = o, pb = mid, jb = in;
#endif
                const Index i0 = ib * MC, j0 = jb * NC, p0 = pb * KC;
                Block blk{};
                blk.mc = std::min<Index>(MC, m - i0);
                blk.nc = std::min<Index>(NC, n - j0);
                blk.kc = std::min<Index>(KC, k - p0);
                blk.lda = k;
                blk.ldb = n;
                blk.ldc = n;
                blk.c = C + i0 * n + j0;
                blk.accumulate = pb > 0;
#if PACK
                if (packedA[0] != ib || packedA[1] != pb) {
                    packA(blk.mc, blk.kc, A + i0 * k + p0, k, packed.a);
                    packedA[0] = ib;
                    packedA[1] = pb;
                }
                if (packedB[0] != jb || packedB[1] != pb) {
                    packB(blk.kc, blk.nc, B + p0 * n + j0, n, packed.b);
                    packedB[0] = jb;
                    packedB[1] = pb;
                }
                blk.a = packed.a;
                blk.b = packed.b;
#else
                (void)packed;
                (void)packedA;
                (void)packedB;
                blk.a = A + i0 * k + p0;
                blk.b = B + p0 * n + j0;
#endif
                macroKernel(blk);
            }
        }
    }
}

} // namespace

extern "C" void tunescope_kernel(void* const* buffers, const std::int64_t* sizes) {
    const Index m = sizes[0], n = sizes[1], k = sizes[2];
    const auto* A = static_cast<const float*>(buffers[0]);
    const auto* B = static_cast<const float*>(buffers[1]);
    auto* C = static_cast<float*>(buffers[2]);
    // Packed A holds MC rows padded to MR, packed B NC columns padded to NR, both KC deep.
    Buffers packed(PACK ? (MC + MR) * KC : 1, PACK ? (NC + NR) * KC : 1);
#if THREADS > 1
#pragma omp parallel num_threads(THREADS)
#endif
    gemm(m, n, k, A, B, C, packed);
}
