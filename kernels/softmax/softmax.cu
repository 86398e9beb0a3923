// Tunescope CUDA row-wise softmax, fp32: y[i][j] = exp(x[i][j] - max_i) / sum_j exp(x[i][j] - max_i), rows x
// cols row-major. CUDA ABI (docs/kernel-spec.md): x, y, then rows, cols as int.
//
// Tunable parameters:
//   BLOCK         threads per block
//   WARP_PER_ROW  1: each warp handles one row (BLOCK / 32 rows per block; shuffles only);
//                 0: the whole block handles one row (shuffles plus a shared-memory step)
//   VEC           elements per load (cols % VEC == 0)
//   ALGO          "twopass": max, then sum of exponentials, then write;
//                 "online": max and sum in one pass (rescaling the running sum), then write
// Launch: grid (WARP_PER_ROW ? ceil(rows / (BLOCK / 32)) : rows), block (BLOCK).

#ifndef BLOCK
#define BLOCK 256
#define WARP_PER_ROW 0
#define VEC 4
#define ALGO_online 1
#endif

namespace {

// -infinity without <math_constants.h> (NVRTC compiles without the toolkit's include folder).
__device__ __forceinline__ float negInf() { return -__int_as_float(0x7f800000); }

template <int N> struct Vec;
template <> struct Vec<1> { using Type = float; };
template <> struct Vec<2> { using Type = float2; };
template <> struct Vec<4> { using Type = float4; };
using Load = typename Vec<VEC>::Type;

constexpr int kLanes = WARP_PER_ROW ? 32 : BLOCK; // threads working on one row

__device__ __forceinline__ float at(const Load& v, int i) { return reinterpret_cast<const float*>(&v)[i]; }

// Running (max, sum of exp(x - max)) pairs, merged associatively.
struct MaxSum {
    float max;
    float sum;
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
    const float m = fmaxf(a.max, b.max);
    const float sa = a.max == negInf() ? 0.0f : a.sum * __expf(a.max - m);
    const float sb = b.max == negInf() ? 0.0f : b.sum * __expf(b.max - m);
    return {m, sa + sb};
}

__device__ __forceinline__ MaxSum warpReduce(MaxSum v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
        MaxSum other{__shfl_xor_sync(0xffffffffu, v.max, offset), __shfl_xor_sync(0xffffffffu, v.sum, offset)};
        v = merge(v, other);
    }
    return v;
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// Combines one value per warp across the block (block-per-row mode); every thread gets the result.
template <typename T, typename Merge>
__device__ __forceinline__ T blockCombine(T value, T identity, Merge mergeFn) {
    __shared__ T partial[BLOCK / 32];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0)
        partial[warp] = value;
    __syncthreads();
    T total = identity;
    for (int w = 0; w < BLOCK / 32; ++w)
        total = mergeFn(total, partial[w]);
    __syncthreads(); // partial[] is reused by the next combine
    return total;
}

} // namespace

extern "C" __global__ void __launch_bounds__(BLOCK) softmax(const float* __restrict__ x, float* __restrict__ y,
                                                            int rows, int cols) {
    const int lane = WARP_PER_ROW ? threadIdx.x % 32 : threadIdx.x;
    const int row = WARP_PER_ROW ? blockIdx.x * (BLOCK / 32) + threadIdx.x / 32 : blockIdx.x;
    const bool active = row < rows; // inactive warps still take part in block-wide steps
    const Load* in = reinterpret_cast<const Load*>(x + (size_t)(active ? row : 0) * cols);
    Load* out = reinterpret_cast<Load*>(y + (size_t)(active ? row : 0) * cols);
    const int chunks = active ? cols / VEC : 0;

#if defined(ALGO_online)
    MaxSum local{negInf(), 0.0f};
    for (int i = lane; i < chunks; i += kLanes) {
        const Load v = in[i];
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            local = merge(local, MaxSum{at(v, e), 1.0f});
    }
    local = warpReduce(local);
#if !WARP_PER_ROW
    local = blockCombine(local, MaxSum{negInf(), 0.0f}, merge);
#endif
    const float rowMax = local.max, rowSum = local.sum;
#else
    float m = negInf();
    for (int i = lane; i < chunks; i += kLanes) {
        const Load v = in[i];
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            m = fmaxf(m, at(v, e));
    }
    m = warpMax(m);
#if !WARP_PER_ROW
    m = blockCombine(m, negInf(), [](float a, float b) { return fmaxf(a, b); });
#endif
    float s = 0.0f;
    for (int i = lane; i < chunks; i += kLanes) {
        const Load v = in[i];
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            s += __expf(at(v, e) - m);
    }
    s = warpSum(s);
#if !WARP_PER_ROW
    s = blockCombine(s, 0.0f, [](float a, float b) { return a + b; });
#endif
    const float rowMax = m, rowSum = s;
#endif
    const float scale = 1.0f / rowSum;
    for (int i = lane; i < chunks; i += kLanes) {
        const Load v = in[i];
        Load r;
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            reinterpret_cast<float*>(&r)[e] = __expf(at(v, e) - rowMax) * scale;
        out[i] = r;
    }
}
