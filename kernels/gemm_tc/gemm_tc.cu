// Tunescope CUDA tensor-core GEMM: C = A * B with A (M x K) and B (K x N) in fp16, C (M x N) in fp32,
// accumulated in fp32 by WMMA 16x16x16 tiles; row-major. CUDA ABI (docs/kernel-spec.md): A, B, C as device
// pointers, then M, N, K as int. Sizes must be multiples of the block tile (a constraint of the spec).
//
// Tunable parameters:
//   BM, BN, BK   block tile
//   WM, WN       warp tile: each warp owns (WM / 16) x (WN / 16) accumulator fragments
//   PAD          halves of padding per shared-memory row (0 or 8: WMMA needs 16-byte aligned rows)
//   STAGES       shared-memory stages: 1 loads, waits and computes in turn; 2 to 4 keep STAGES - 1 tiles in
//                flight with asynchronous copies (cp.async, sm_80 and newer; ordinary copies before)
//   GROUP        block rows that walk the block columns together (1: row by row), for L2 reuse
// Launch: grid (N / BN, M / BM), block ((BM / WM) * (BN / WN) * 32), dynamic shared memory
// 2 * STAGES * (BM * (BK + PAD) + BK * (BN + PAD)) bytes.

#include <cuda_fp16.h>
#include <mma.h>

#ifndef BM
#define BM 128
#define BN 128
#define BK 32
#define WM 64
#define WN 32
#define PAD 8
#define STAGES 3
#define GROUP 8
#endif

namespace {

using namespace nvcuda;

constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
constexpr int kThreads = kWarpsM * kWarpsN * 32;
constexpr int kFragM = WM / 16, kFragN = WN / 16;
constexpr int kRowA = BK + PAD, kRowB = BN + PAD; // halves per shared-memory row
constexpr int kStageA = BM * kRowA, kStageB = BK * kRowB;
// 16-byte chunks (8 halves) per tile.
constexpr int kChunksA = BM * BK / 8, kChunksB = BK * BN / 8;

static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 16 == 0 && BK % 16 == 0, "tile shapes");
static_assert(PAD % 8 == 0, "rows must stay 16-byte aligned");
static_assert(STAGES >= 1, "at least one stage");

// One 16-byte copy from global to shared memory (asynchronous from sm_80 on).
__device__ __forceinline__ void copy16(__half* shared, const __half* global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
#elif defined(TUNESCOPE_EMULATED_COPIES)
    tunescopeEmulatedCopy(shared, global, 16);
#else
    *reinterpret_cast<uint4*>(shared) = *reinterpret_cast<const uint4*>(global);
#endif
}

__device__ __forceinline__ void commitCopies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#elif defined(TUNESCOPE_EMULATED_COPIES)
    tunescopeEmulatedCommit();
#endif
}

// Waits until at most PENDING of this thread's committed copy groups are still in flight.
template <int PENDING> __device__ __forceinline__ void waitCopies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#elif defined(TUNESCOPE_EMULATED_COPIES)
    tunescopeEmulatedWait(PENDING);
#endif
}

// Issues the copies of the K tile starting at k0 into one stage.
__device__ __forceinline__ void loadTile(__half* As, __half* Bs, const __half* __restrict__ A,
                                         const __half* __restrict__ B, int N, int K, int row0, int col0,
                                         int k0) {
#pragma unroll
    for (int l = 0; l < (kChunksA + kThreads - 1) / kThreads; ++l) {
        const int i = threadIdx.x + l * kThreads;
        if (kChunksA % kThreads == 0 || i < kChunksA) {
            const int r = i / (BK / 8), c = (i % (BK / 8)) * 8;
            copy16(As + r * kRowA + c, A + (size_t)(row0 + r) * K + k0 + c);
        }
    }
#pragma unroll
    for (int l = 0; l < (kChunksB + kThreads - 1) / kThreads; ++l) {
        const int i = threadIdx.x + l * kThreads;
        if (kChunksB % kThreads == 0 || i < kChunksB) {
            const int r = i / (BN / 8), c = (i % (BN / 8)) * 8;
            copy16(Bs + r * kRowB + c, B + (size_t)(k0 + r) * N + col0 + c);
        }
    }
}

using FragmentA = wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>;
using FragmentB = wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major>;
using Accumulator = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

__device__ __forceinline__ void multiplyTile(Accumulator (&acc)[kFragM][kFragN], const __half* As,
                                             const __half* Bs, int warpRow, int warpCol) {
#pragma unroll
    for (int k = 0; k < BK; k += 16) {
        FragmentA a[kFragM];
        FragmentB b[kFragN];
#pragma unroll
        for (int i = 0; i < kFragM; ++i)
            wmma::load_matrix_sync(a[i], As + (warpRow * WM + i * 16) * kRowA + k, kRowA);
#pragma unroll
        for (int j = 0; j < kFragN; ++j)
            wmma::load_matrix_sync(b[j], Bs + k * kRowB + warpCol * WN + j * 16, kRowB);
#pragma unroll
        for (int i = 0; i < kFragM; ++i)
#pragma unroll
            for (int j = 0; j < kFragN; ++j)
                wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
}

} // namespace

extern "C" __global__ void __launch_bounds__(kThreads)
    gemm_tc(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M, int N,
            int K) {
    extern __shared__ __align__(128) float shared[];
    __half* const As = reinterpret_cast<__half*>(shared); // STAGES x [BM][BK + PAD]
    __half* const Bs = As + STAGES * kStageA;             // STAGES x [BK][BN + PAD]

    // Block swizzling: GROUP block rows walk the block columns together.
    const int blocksN = gridDim.x, blocksM = gridDim.y;
    const int block = blockIdx.y * blocksN + blockIdx.x;
    const int perGroup = GROUP * blocksN;
    const int firstRow = (block / perGroup) * GROUP;
    const int groupRows = min(blocksM - firstRow, GROUP);
    const int row0 = (firstRow + (block % perGroup) % groupRows) * BM;
    const int col0 = ((block % perGroup) / groupRows) * BN;
    (void)M;

    const int warp = threadIdx.x / 32;
    const int warpRow = warp / kWarpsN, warpCol = warp % kWarpsN;

    Accumulator acc[kFragM][kFragN];
#pragma unroll
    for (int i = 0; i < kFragM; ++i)
#pragma unroll
        for (int j = 0; j < kFragN; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    const int tiles = K / BK;
#if STAGES == 1
    for (int t = 0; t < tiles; ++t) {
        loadTile(As, Bs, A, B, N, K, row0, col0, t * BK);
        commitCopies();
        waitCopies<0>();
        __syncthreads();
        multiplyTile(acc, As, Bs, warpRow, warpCol);
        __syncthreads(); // the stage is refilled next
    }
#else
    // Tiles 0 .. STAGES - 2 in flight, one commit group each (empty past the last tile).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < tiles)
            loadTile(As + s * kStageA, Bs + s * kStageB, A, B, N, K, row0, col0, s * BK);
        commitCopies();
    }
    for (int t = 0; t < tiles; ++t) {
        // Tile t has landed for this thread; the barrier makes every thread's copies visible and means every
        // warp has finished tile t - 1, whose stage is refilled next.
        waitCopies<STAGES - 2>();
        __syncthreads();
        const int next = t + STAGES - 1;
        if (next < tiles)
            loadTile(As + (next % STAGES) * kStageA, Bs + (next % STAGES) * kStageB, A, B, N, K, row0, col0,
                     next * BK);
        commitCopies();
        multiplyTile(acc, As + (t % STAGES) * kStageA, Bs + (t % STAGES) * kStageB, warpRow, warpCol);
    }
    waitCopies<0>();
#endif

#pragma unroll
    for (int i = 0; i < kFragM; ++i)
#pragma unroll
        for (int j = 0; j < kFragN; ++j)
            wmma::store_matrix_sync(C + (size_t)(row0 + warpRow * WM + i * 16) * N + col0 + warpCol * WN +
                                        j * 16,
                                    acc[i][j], N, wmma::mem_row_major);
}
