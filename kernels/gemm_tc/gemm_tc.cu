// Tunescope CUDA tensor-core GEMM: C = A * B with A (M x K) and B (K x N) in fp16, C (M x N) in fp32,
// accumulated in fp32 by WMMA 16x16x16 tiles; row-major. CUDA ABI (docs/kernel-spec.md): A, B, C as device
// pointers, then M, N, K as int. Sizes must be multiples of the block tile (a constraint of the spec).
//
// Tunable parameters:
//   BM, BN, BK   block tile
//   WM, WN       warp tile: each warp owns (WM / 16) x (WN / 16) accumulator fragments
//   PAD          halves of padding per shared-memory row (0 or 8: WMMA needs 16-byte aligned rows)
//   DB           double buffering: the next tiles are read into registers while the current ones are used
// Launch: grid (N / BN, M / BM), block ((BM / WM) * (BN / WN) * 32).

#include <cuda_fp16.h>
#include <mma.h>

#ifndef BM
#define BM 128
#define BN 128
#define BK 32
#define WM 64
#define WN 32
#define PAD 8
#define DB 1
#endif

namespace {

using namespace nvcuda;

constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
constexpr int kThreads = kWarpsM * kWarpsN * 32;
constexpr int kFragM = WM / 16, kFragN = WN / 16;
constexpr int kStages = DB ? 2 : 1;
// 16-byte chunks (8 halves) per tile and per thread.
constexpr int kChunksA = BM * BK / 8, kChunksB = BK * BN / 8;
constexpr int kLoadsA = (kChunksA + kThreads - 1) / kThreads;
constexpr int kLoadsB = (kChunksB + kThreads - 1) / kThreads;

static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 16 == 0 && BK % 16 == 0, "tile shapes");
static_assert(PAD % 8 == 0, "rows must stay 16-byte aligned");

struct Staged {
    uint4 a[kLoadsA];
    uint4 b[kLoadsB];
};

__device__ __forceinline__ void loadGlobal(Staged& s, const __half* A, const __half* B, int N, int K, int row0,
                                           int col0, int k0) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
        const int i = threadIdx.x + l * kThreads;
        if (i < kChunksA) {
            const int r = i / (BK / 8), c = (i % (BK / 8)) * 8;
            s.a[l] = *reinterpret_cast<const uint4*>(A + (size_t)(row0 + r) * K + k0 + c);
        }
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
        const int i = threadIdx.x + l * kThreads;
        if (i < kChunksB) {
            const int r = i / (BN / 8), c = (i % (BN / 8)) * 8;
            s.b[l] = *reinterpret_cast<const uint4*>(B + (size_t)(k0 + r) * N + col0 + c);
        }
    }
}

__device__ __forceinline__ void storeShared(const Staged& s, __half (*As)[BK + PAD], __half (*Bs)[BN + PAD]) {
#pragma unroll
    for (int l = 0; l < kLoadsA; ++l) {
        const int i = threadIdx.x + l * kThreads;
        if (i < kChunksA)
            *reinterpret_cast<uint4*>(&As[i / (BK / 8)][(i % (BK / 8)) * 8]) = s.a[l];
    }
#pragma unroll
    for (int l = 0; l < kLoadsB; ++l) {
        const int i = threadIdx.x + l * kThreads;
        if (i < kChunksB)
            *reinterpret_cast<uint4*>(&Bs[i / (BN / 8)][(i % (BN / 8)) * 8]) = s.b[l];
    }
}

using FragmentA = wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>;
using FragmentB = wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major>;
using Accumulator = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

__device__ __forceinline__ void multiplyTile(Accumulator (&acc)[kFragM][kFragN], const __half (*As)[BK + PAD],
                                             const __half (*Bs)[BN + PAD], int warpRow, int warpCol) {
#pragma unroll
    for (int k = 0; k < BK; k += 16) {
        FragmentA a[kFragM];
        FragmentB b[kFragN];
#pragma unroll
        for (int i = 0; i < kFragM; ++i)
            wmma::load_matrix_sync(a[i], &As[warpRow * WM + i * 16][k], BK + PAD);
#pragma unroll
        for (int j = 0; j < kFragN; ++j)
            wmma::load_matrix_sync(b[j], &Bs[k][warpCol * WN + j * 16], BN + PAD);
#pragma unroll
        for (int i = 0; i < kFragM; ++i)
#pragma unroll
            for (int j = 0; j < kFragN; ++j)
                wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
}

} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
    gemm_tc(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
    __shared__ __align__(32) __half As[kStages][BM][BK + PAD];
    __shared__ __align__(32) __half Bs[kStages][BK][BN + PAD];
    const int warp = threadIdx.x / 32;
    const int warpRow = warp / kWarpsN, warpCol = warp % kWarpsN;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    (void)M;

    Accumulator acc[kFragM][kFragN];
#pragma unroll
    for (int i = 0; i < kFragM; ++i)
#pragma unroll
        for (int j = 0; j < kFragN; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    const int tiles = K / BK;
    Staged staged;
#if DB
    loadGlobal(staged, A, B, N, K, row0, col0, 0);
    storeShared(staged, As[0], Bs[0]);
    __syncthreads();
    for (int t = 0; t < tiles; ++t) {
        const int current = t & 1;
        const bool more = t + 1 < tiles;
        if (more)
            loadGlobal(staged, A, B, N, K, row0, col0, (t + 1) * BK);
        multiplyTile(acc, As[current], Bs[current], warpRow, warpCol);
        if (more) // the other stage was last read before the previous barrier
            storeShared(staged, As[current ^ 1], Bs[current ^ 1]);
        __syncthreads();
    }
#else
    for (int t = 0; t < tiles; ++t) {
        loadGlobal(staged, A, B, N, K, row0, col0, t * BK);
        storeShared(staged, As[0], Bs[0]);
        __syncthreads();
        multiplyTile(acc, As[0], Bs[0], warpRow, warpCol);
        __syncthreads();
    }
#endif

#pragma unroll
    for (int i = 0; i < kFragM; ++i)
#pragma unroll
        for (int j = 0; j < kFragN; ++j)
            wmma::store_matrix_sync(C + (size_t)(row0 + warpRow * WM + i * 16) * N + col0 + warpCol * WN + j * 16,
                                    acc[i][j], N, wmma::mem_row_major);
}
