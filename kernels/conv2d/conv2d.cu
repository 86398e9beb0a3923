// Tunescope CUDA 2-D convolution, fp32, stride 1, no padding: output[n][k][p][q] = sum over c, r, s of
// input[n][c][p + r][q + s] * filter[k][c][r][s], with P = H - R + 1 and Q = W - S + 1 (NCHW / KCRS / NKPQ).
// CUDA ABI (docs/kernel-spec.md): input, filter, output, then N, C, H, W, K, R, S as int.
//
// Tunable parameters:
//   BQ, BP       threads per block along q (x) and p (y)
//   TQ           outputs per thread along q, BQ apart (so neighbouring threads write neighbouring columns)
//   TK           output channels per thread (the filter value is reused TQ times, the input TK times)
//   SMEM_INPUT   stage the input tile of CB channels in (dynamic) shared memory instead of reading global
//   CB           input channels per shared-memory stage
//   UNROLL       unroll the filter-width loop by 4 (1) or keep it rolled (0)
// Launch: grid (ceil(Q / (BQ * TQ)), ceil(P / BP), N * ceil(K / TK)), block (BQ, BP).

#ifndef BQ
#define BQ 32
#define BP 4
#define TQ 2
#define TK 4
#define SMEM_INPUT 1
#define CB 4
#define UNROLL 1
#endif

extern "C" __global__ void __launch_bounds__(BQ * BP)
    conv2d(const float* __restrict__ input, const float* __restrict__ filter, float* __restrict__ output, int N,
           int C, int H, int W, int K, int R, int S) {
    const int P = H - R + 1, Q = W - S + 1;
    const int kGroups = (K + TK - 1) / TK;
    const int n = blockIdx.z / kGroups;
    const int k0 = (blockIdx.z % kGroups) * TK;
    const int p = blockIdx.y * BP + threadIdx.y;
    const int qBase = blockIdx.x * (BQ * TQ);
    if (n >= N)
        return; // uniform per block

    float acc[TK][TQ];
#pragma unroll
    for (int t = 0; t < TK; ++t)
#pragma unroll
        for (int j = 0; j < TQ; ++j)
            acc[t][j] = 0.0f;

    const float* in = input + (size_t)n * C * H * W;
#if SMEM_INPUT
    extern __shared__ float tile[]; // [CB][BP + R - 1][BQ * TQ + S - 1]
    const int tileH = BP + R - 1, tileW = BQ * TQ + S - 1;
    const int threads = BQ * BP, tid = threadIdx.y * BQ + threadIdx.x;
    for (int c0 = 0; c0 < C; c0 += CB) {
        for (int i = tid; i < CB * tileH * tileW; i += threads) {
            const int cc = i / (tileH * tileW), y = (i / tileW) % tileH, x = i % tileW;
            const int c = c0 + cc, h = blockIdx.y * BP + y, w = qBase + x;
            tile[i] = (c < C && h < H && w < W) ? in[((size_t)c * H + h) * W + w] : 0.0f;
        }
        __syncthreads();
        for (int cc = 0; cc < CB && c0 + cc < C; ++cc) {
            const int c = c0 + cc;
            for (int r = 0; r < R; ++r) {
                const float* row = tile + (cc * tileH + threadIdx.y + r) * tileW + threadIdx.x;
#if UNROLL
#pragma unroll 4
#else
#pragma unroll 1
#endif
                for (int s = 0; s < S; ++s) {
                    float in_[TQ];
#pragma unroll
                    for (int j = 0; j < TQ; ++j)
                        in_[j] = row[j * BQ + s];
#pragma unroll
                    for (int t = 0; t < TK; ++t) {
                        const float f = k0 + t < K ? __ldg(filter + (((size_t)(k0 + t) * C + c) * R + r) * S + s) : 0.0f;
#pragma unroll
                        for (int j = 0; j < TQ; ++j)
                            acc[t][j] = fmaf(f, in_[j], acc[t][j]);
                    }
                }
            }
        }
        __syncthreads();
    }
#else
    if (p < P) {
        for (int c = 0; c < C; ++c)
            for (int r = 0; r < R; ++r) {
                const float* row = in + ((size_t)c * H + p + r) * W + qBase + threadIdx.x;
#if UNROLL
#pragma unroll 4
#else
#pragma unroll 1
#endif
                for (int s = 0; s < S; ++s) {
                    float in_[TQ];
#pragma unroll
                    for (int j = 0; j < TQ; ++j)
                        in_[j] = qBase + threadIdx.x + j * BQ + s < W ? __ldg(row + j * BQ + s) : 0.0f;
#pragma unroll
                    for (int t = 0; t < TK; ++t) {
                        const float f = k0 + t < K ? __ldg(filter + (((size_t)(k0 + t) * C + c) * R + r) * S + s) : 0.0f;
#pragma unroll
                        for (int j = 0; j < TQ; ++j)
                            acc[t][j] = fmaf(f, in_[j], acc[t][j]);
                    }
                }
            }
    }
#endif
    if (p >= P)
        return;
#pragma unroll
    for (int t = 0; t < TK; ++t) {
        if (k0 + t >= K)
            break;
#pragma unroll
        for (int j = 0; j < TQ; ++j) {
            const int q = qBase + threadIdx.x + j * BQ;
            if (q < Q)
                output[(((size_t)n * K + k0 + t) * P + p) * Q + q] = acc[t][j];
        }
    }
}
