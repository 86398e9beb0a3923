// Tunescope CUDA GEMM for sm_80 and newer, fp32, row-major: C = A * B with A M x K, B K x N, C M x N.
// CUDA ABI (docs/kernel-spec.md): buffers A, B, C as device pointers, then M, N, K as int.
//
// The means of the fast SIMT GEMMs (CUTLASS's SIMT path, Triton's fp32 matmul):
// - a STAGES-deep pipeline of asynchronous copies (cp.async, 16 bytes each) from global into shared memory,
//   so the loads of the next tiles overlap the arithmetic on the current one;
// - warp tiling: each warp owns a WM x WN tile of the block's tile; its 32 lanes form an LR x (32 / LR) grid
//   and each lane accumulates TM x TN outputs as (TM / 4) x (TN / 4) fragments of 4 x 4, spaced so that the
//   lanes of a warp read consecutive 16-byte words of shared memory;
// - a conflict-free layout: A's tile stays row-major (cp.async cannot transpose) with PAD floats after each
//   row, so the float4 reads of four rows' k values fall into different banks (PAD 0 keeps the conflicts);
// - float4 stores of C, and block swizzling (GROUP rows of blocks walk the columns together) for L2 reuse.
// Before sm_80 the copies are ordinary loads and stores (the same pipeline, without the overlap).
//
// Tunable parameters (macros, see kernel.json "variants.cuda"):
//   BM, BN, BK   block tile: a block computes BM x BN of C, stepping through K by BK
//   TM, TN       thread tile (multiples of 4)
//   LR           lane rows of a warp (the warp tile is WM = TM * LR by WN = TN * (32 / LR))
//   STAGES       shared-memory stages of the copy pipeline (2 is classic double buffering)
//   PAD          floats of padding after each row of A's tile (0 or 4)
//   GROUP        block rows that walk the block columns together (1: row by row)
//   MINB         blocks per SM the compiler must make room for (__launch_bounds__; 2 caps the registers)
// Needs K % 4 == 0 and N % 4 == 0 (16-byte rows); M, N and K need not be multiples of the tiles.
// Shared memory is dynamic: 4 * STAGES * (BM * (BK + PAD) + BK * BN) bytes.

#ifndef BM
#define BM 128
#define BN 128
#define BK 16
#define TM 8
#define TN 8
#define LR 4
#define STAGES 3
#define PAD 4
#define GROUP 8
#define MINB 1
#endif

namespace {

constexpr int kLaneCols = 32 / LR;
constexpr int kWarpM = TM * LR, kWarpN = TN * kLaneCols;
constexpr int kWarpsN = BN / kWarpN;
constexpr int kThreads = (BM / kWarpM) * kWarpsN * 32;
constexpr int kRowA = BK + PAD; // floats per row of A's tile
constexpr int kStageA = BM * kRowA, kStageB = BK * BN;
constexpr int kChunksA = BM * BK / 4, kChunksB = BK * BN / 4; // 16-byte copies per tile

static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 fragments");
static_assert(BM % kWarpM == 0 && BN % kWarpN == 0, "warp tiles must tile the block");
static_assert(BK % 4 == 0 && PAD % 4 == 0, "rows of 16-byte words");
static_assert(STAGES >= 2, "a pipeline needs two stages");

// One 16-byte copy from global to shared memory; `valid` false fills zeros (a row or column past the edge).
__device__ __forceinline__ void copy16(float* shared, const float* global, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global),
                 "r"(valid ? 16 : 0));
#elif defined(TUNESCOPE_EMULATED_COPIES)
    tunescopeEmulatedCopy(shared, global, valid ? 16 : 0);
#else
    *reinterpret_cast<float4*>(shared) =
        valid ? *reinterpret_cast<const float4*>(global) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
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

// Issues the copies of the K tile starting at k0 into one stage (each thread a share of the 16-byte chunks).
__device__ __forceinline__ void loadTile(float* As, float* Bs, const float* __restrict__ A,
                                         const float* __restrict__ B, int M, int N, int K, int row0, int col0,
                                         int k0) {
#pragma unroll
    for (int l = 0; l < (kChunksA + kThreads - 1) / kThreads; ++l) {
        const int i = threadIdx.x + l * kThreads;
        if (kChunksA % kThreads == 0 || i < kChunksA) {
            const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            const bool valid = row0 + r < M && k0 + c < K;
            copy16(As + r * kRowA + c, valid ? A + (size_t)(row0 + r) * K + k0 + c : A, valid);
        }
    }
#pragma unroll
    for (int l = 0; l < (kChunksB + kThreads - 1) / kThreads; ++l) {
        const int i = threadIdx.x + l * kThreads;
        if (kChunksB % kThreads == 0 || i < kChunksB) {
            const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
            const bool valid = k0 + r < K && col0 + c < N;
            copy16(Bs + r * BN + c, valid ? B + (size_t)(k0 + r) * N + col0 + c : B, valid);
        }
    }
}

__device__ __forceinline__ float part(const float4& v, int i) {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// acc += the stage's A tile rows of this lane times its B tile columns, four k at a time.
__device__ __forceinline__ void multiplyTile(float (&acc)[TM][TN], const float* As, const float* Bs, int rowA,
                                             int colB) {
#pragma unroll
    for (int k = 0; k < BK; k += 4) {
        float4 a[TM];
#pragma unroll
        for (int i = 0; i < TM; ++i)
            a[i] = *reinterpret_cast<const float4*>(As + (rowA + (i / 4) * LR * 4 + i % 4) * kRowA + k);
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
            float b[TN];
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                const float4 v =
                    *reinterpret_cast<const float4*>(Bs + (k + kk) * BN + colB + (j / 4) * kLaneCols * 4);
                b[j] = v.x;
                b[j + 1] = v.y;
                b[j + 2] = v.z;
                b[j + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] = fmaf(part(a[i], kk), b[j], acc[i][j]);
        }
    }
}

} // namespace

extern "C" __global__ void __launch_bounds__(kThreads, MINB)
    gemm_async(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
               int K) {
    extern __shared__ __align__(16) float shared[];
    float* const As = shared;                    // STAGES x [BM][BK + PAD]
    float* const Bs = shared + STAGES * kStageA; // STAGES x [BK][BN]

    // Block swizzling: GROUP block rows walk the block columns together, so their A rows and B columns are
    // read while still in L2.
    const int blocksN = gridDim.x, blocksM = gridDim.y;
    const int block = blockIdx.y * blocksN + blockIdx.x;
    const int perGroup = GROUP * blocksN;
    const int firstRow = (block / perGroup) * GROUP;
    const int groupRows = min(blocksM - firstRow, GROUP);
    const int blockRow = firstRow + (block % perGroup) % groupRows;
    const int blockCol = (block % perGroup) / groupRows;
    const int row0 = blockRow * BM, col0 = blockCol * BN;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int laneRow = lane / kLaneCols, laneCol = lane % kLaneCols;
    const int rowA = (warp / kWarpsN) * kWarpM + laneRow * 4; // first A row of this lane in the tile
    const int colB = (warp % kWarpsN) * kWarpN + laneCol * 4; // first B column of this lane in the tile

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    // Prologue: tiles 0 .. STAGES - 2 in flight, one commit group each (empty past the last tile, so that
    // the group count stays uniform).
    const int tiles = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < tiles)
            loadTile(As + s * kStageA, Bs + s * kStageB, A, B, M, N, K, row0, col0, s * BK);
        commitCopies();
    }
    for (int t = 0; t < tiles; ++t) {
        // Tile t is the oldest of STAGES - 1 groups in flight: wait for it, then make every thread's copies
        // visible. The barrier also means every thread has finished computing on tile t - 1, whose stage is
        // refilled next.
        waitCopies<STAGES - 2>();
        __syncthreads();
        const int next = t + STAGES - 1;
        if (next < tiles)
            loadTile(As + (next % STAGES) * kStageA, Bs + (next % STAGES) * kStageB, A, B, M, N, K, row0,
                     col0, next * BK);
        commitCopies();
        multiplyTile(acc, As + (t % STAGES) * kStageA, Bs + (t % STAGES) * kStageB, rowA, colB);
    }
    waitCopies<0>();

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = row0 + rowA + (i / 4) * LR * 4 + i % 4;
        if (r >= M)
            continue;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const int c = col0 + colB + (j / 4) * kLaneCols * 4;
            if (c < N) // N % 4 == 0, so the whole float4 is inside
                *reinterpret_cast<float4*>(C + (size_t)r * N + c) =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
        }
    }
}
