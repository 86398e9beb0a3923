// Tunescope CUDA GEMM, fp32, row-major: C = A * B with A M x K, B K x N, C M x N.
// CUDA ABI (docs/kernel-spec.md): buffers A, B, C as device pointers, then M, N, K as int.
//
// Tunable parameters (macros, see kernel.json "variants.cuda"):
//   BM, BN, BK   block tile: a block computes BM x BN of C, stepping through K by BK
//   TM, TN       thread tile: each thread accumulates TM x TN outputs in registers
//   WR           warp shape: the 32 threads of a warp cover WR rows x (32 / WR) columns of thread tiles
//   PAD          shared-memory padding (floats) per tile row, against bank conflicts of the transposed A tile
//   VEC          global load width in floats (1, 2 or 4); needs K % VEC == 0 and N % VEC == 0
//   DB           double buffering: prefetch the next tiles into registers while computing on shared memory
//   UNROLL       unroll the BK loop (1) or keep it rolled (0)
// Sizes need not be multiples of the tiles: loads and stores are guarded.

#ifndef BM
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
#define WR 4
#define PAD 4
#define VEC 4
#define DB 1
#define UNROLL 1
#endif

namespace {

constexpr int kThreads = (BM / TM) * (BN / TN);
constexpr int kStages = DB ? 2 : 1;
constexpr int kWarpCols = 32 / WR;
constexpr int kThreadCols = BN / TN; // thread tiles per block row
// Vector loads per thread per tile (the last round may be partial).
constexpr int kLoadsA = (BM * BK / VEC + kThreads - 1) / kThreads;
constexpr int kLoadsB = (BK * BN / VEC + kThreads - 1) / kThreads;

static_assert(BM % TM == 0 && BN % TN == 0, "tiles must divide");
static_assert(BK % VEC == 0 && BN % VEC == 0, "vector width must divide the tiles");
static_assert(kThreads % 32 == 0 && kThreads <= 1024, "threads per block");
static_assert((BM / TM) % WR == 0 && kThreadCols % kWarpCols == 0, "warp shape must tile the block");

template <int N> struct Vec;
template <> struct Vec<1> { using Type = float; };
template <> struct Vec<2> { using Type = float2; };
template <> struct Vec<4> { using Type = float4; };
using Load = typename Vec<VEC>::Type;

__device__ __forceinline__ float part(const Load& v, int i) { return reinterpret_cast<const float*>(&v)[i]; }

// Loads for one K step, held in registers between the global read and the shared-memory write.
struct Staged {
    Load a[kLoadsA];
    Load b[kLoadsB];
};

__device__ __forceinline__ Load zeroLoad() {
    Load v;
#pragma unroll
    for (int i = 0; i < VEC; ++i)
        reinterpret_cast<float*>(&v)[i] = 0.0f;
    return v;
}

__device__ __forceinline__ void loadGlobal(Staged& s, const float* __restrict__ A, const float* __restrict__ B,
                                           int M, int N, int K, int row0, int col0, int k0) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
        const int i = threadIdx.x + l * kThreads;
        const int r = i / (BK / VEC), c = (i % (BK / VEC)) * VEC;
        const int gr = row0 + r, gk = k0 + c;
        s.a[l] = (i < BM * BK / VEC && gr < M && gk < K) ? *reinterpret_cast<const Load*>(A + (size_t)gr * K + gk)
                                                          : zeroLoad();
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
        const int i = threadIdx.x + l * kThreads;
        const int r = i / (BN / VEC), c = (i % (BN / VEC)) * VEC;
        const int gk = k0 + r, gc = col0 + c;
        s.b[l] = (i < BK * BN / VEC && gk < K && gc < N) ? *reinterpret_cast<const Load*>(B + (size_t)gk * N + gc)
                                                          : zeroLoad();
    }
}

// A is stored transposed (As[k][m]) so a thread reads its TM values of one k contiguously.
__device__ __forceinline__ void storeShared(const Staged& s, float (*As)[BM + PAD], float (*Bs)[BN + PAD]) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
        const int i = threadIdx.x + l * kThreads;
        if (i < BM * BK / VEC) {
            const int r = i / (BK / VEC), c = (i % (BK / VEC)) * VEC;
#pragma unroll
            for (int v = 0; v < VEC; ++v)
                As[c + v][r] = part(s.a[l], v);
        }
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
        const int i = threadIdx.x + l * kThreads;
        if (i < BK * BN / VEC) {
            const int r = i / (BN / VEC), c = (i % (BN / VEC)) * VEC;
#pragma unroll
            for (int v = 0; v < VEC; ++v)
                Bs[r][c + v] = part(s.b[l], v);
        }
    }
}

template <int COUNT, int STRIDE>
__device__ __forceinline__ void readFragment(float (&out)[COUNT], const float* row) {
    if constexpr (COUNT % 4 == 0 && STRIDE % 4 == 0) {
#pragma unroll
        for (int i = 0; i < COUNT; i += 4) {
            const float4 v = *reinterpret_cast<const float4*>(row + i);
            out[i] = v.x;
            out[i + 1] = v.y;
            out[i + 2] = v.z;
            out[i + 3] = v.w;
        }
    } else {
#pragma unroll
        for (int i = 0; i < COUNT; ++i)
            out[i] = row[i];
    }
}

__device__ __forceinline__ void multiplyTile(float (&acc)[TM][TN], const float (*As)[BM + PAD],
                                             const float (*Bs)[BN + PAD], int tileRow, int tileCol) {
#if UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int k = 0; k < BK; ++k) {
        float a[TM], b[TN];
        readFragment<TM, BM + PAD>(a, &As[k][tileRow * TM]);
        readFragment<TN, BN + PAD>(b, &Bs[k][tileCol * TN]);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j)
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
    gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
    __shared__ __align__(16) float As[kStages][BK][BM + PAD];
    __shared__ __align__(16) float Bs[kStages][BK][BN + PAD];

    // Thread tile position: warps tile the block, lanes tile the warp (WR x 32/WR).
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warpsPerRow = kThreadCols / kWarpCols;
    const int tileRow = (warp / warpsPerRow) * WR + lane / kWarpCols;
    const int tileCol = (warp % warpsPerRow) * kWarpCols + lane % kWarpCols;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    const int tiles = (K + BK - 1) / BK;
    Staged staged;
#if DB
    loadGlobal(staged, A, B, M, N, K, row0, col0, 0);
    storeShared(staged, As[0], Bs[0]);
    __syncthreads();
    for (int t = 0; t < tiles; ++t) {
        const int current = t & 1;
        const bool more = t + 1 < tiles;
        if (more)
            loadGlobal(staged, A, B, M, N, K, row0, col0, (t + 1) * BK);
        multiplyTile(acc, As[current], Bs[current], tileRow, tileCol);
        // The other stage was last read before the previous barrier, so it can be written now.
        if (more)
            storeShared(staged, As[current ^ 1], Bs[current ^ 1]);
        __syncthreads();
    }
#else
    for (int t = 0; t < tiles; ++t) {
        loadGlobal(staged, A, B, M, N, K, row0, col0, t * BK);
        storeShared(staged, As[0], Bs[0]);
        __syncthreads();
        multiplyTile(acc, As[0], Bs[0], tileRow, tileCol);
        __syncthreads();
    }
#endif

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = row0 + tileRow * TM + i;
        if (r >= M)
            continue;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int c = col0 + tileCol * TN + j;
            if (c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
}
