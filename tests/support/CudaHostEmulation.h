// Runs a CUDA kernel source on the CPU, for checking a kernel's indexing, tiling and pipeline logic on a
// machine without a GPU (tests/TestKernelEmulation.cpp builds it with the host compiler). One block at a
// time, one std::thread per CUDA thread; __syncthreads is a std::barrier over the block's threads; shared
// memory (static or `extern __shared__`) is one buffer, reused by each block in turn. With
// TUNESCOPE_EMULATED_COPIES the kernel's asynchronous copies (cp.async) are held back until the thread waits
// for their group, the latest a GPU may complete them, so a read of a stage before its wait sees stale data;
// without it they complete at once. WMMA (nvcuda::wmma, 16x16x16, fp16 inputs, fp32 accumulator) is emulated
// with every lane holding the whole tile; only lane 0 stores it. __half is _Float16. Build with -I
// tests/support/emulation, whose cuda_fp16.h and mma.h stand in for the toolkit's. Not a simulator of warps:
// warp-synchronous code and intrinsics beyond the ones below do not build.
#pragma once

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <deque>
#include <thread>
#include <type_traits>
#include <vector>

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct alignas(16) float4 {
    float x, y, z, w;
};
struct alignas(8) float2 {
    float x, y;
};
struct alignas(16) uint4 {
    unsigned x, y, z, w;
};
using __half = _Float16;
inline float4 make_float4(float x, float y, float z, float w) {
    return {x, y, z, w};
}
inline float2 make_float2(float x, float y) {
    return {x, y};
}
inline int min(int a, int b) {
    return a < b ? a : b;
}
inline int max(int a, int b) {
    return a > b ? a : b;
}

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n)
#define __restrict__ __restrict
#define __shared__

inline thread_local dim3 threadIdx;
inline thread_local dim3 blockIdx;
inline dim3 gridDim;
inline dim3 blockDim;
inline std::barrier<>* tunescopeBlockBarrier = nullptr;

inline void __syncthreads() {
    tunescopeBlockBarrier->arrive_and_wait();
}

// The kernel's dynamic shared memory: the kernel declares `extern __shared__ float shared[]` (and casts it
// for other element types).
alignas(128) inline float shared[256 * 1024 / sizeof(float)];

struct TunescopeCopy {
    void* destination;
    const void* source;
    int bytes;
};
inline thread_local std::vector<TunescopeCopy> tunescopeOpenGroup;
inline thread_local std::deque<std::vector<TunescopeCopy>> tunescopeCommitted;

inline void tunescopeEmulatedCopy(void* destination, const void* source, int bytes) {
    tunescopeOpenGroup.push_back({destination, source, bytes});
}
inline void tunescopeEmulatedCommit() {
    tunescopeCommitted.push_back(std::move(tunescopeOpenGroup));
    tunescopeOpenGroup.clear();
}
// Completes the oldest groups until at most `pending` remain; a 16-byte copy with fewer source bytes fills
// the rest with zeros (cp.async's src-size).
inline void tunescopeEmulatedWait(int pending) {
    while (int(tunescopeCommitted.size()) > pending) {
        for (const TunescopeCopy& c : tunescopeCommitted.front()) {
            std::memset(c.destination, 0, 16);
            if (c.bytes > 0)
                std::memcpy(c.destination, c.source, static_cast<std::size_t>(c.bytes));
        }
        tunescopeCommitted.pop_front();
    }
}

// Runs `body` as a grid x block launch; `body` calls the kernel with its arguments.
template <typename Body> void tunescopeLaunch(dim3 grid, dim3 block, Body body) {
    gridDim = grid;
    blockDim = block;
    const unsigned threads = block.x * block.y * block.z;
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx) {
                std::fill(std::begin(shared), std::end(shared), std::nanf(""));
                std::barrier<> barrier(static_cast<std::ptrdiff_t>(threads));
                tunescopeBlockBarrier = &barrier;
                std::vector<std::thread> team;
                team.reserve(threads);
                for (unsigned t = 0; t < threads; ++t)
                    team.emplace_back([&, t] {
                        threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
                        blockIdx = {bx, by, bz};
                        tunescopeCommitted.clear();
                        tunescopeOpenGroup.clear();
                        body();
                    });
                for (std::thread& member : team)
                    member.join();
            }
}

namespace nvcuda::wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <typename Use, int M, int N, int K, typename T, typename Layout = void> struct fragment {
    static_assert(M == 16 && N == 16 && K == 16, "only 16x16x16 tiles are emulated");
    float x[256]; // row-major, the whole tile in every lane
};

template <typename Use, typename T, typename Layout>
inline void load_matrix_sync(fragment<Use, 16, 16, 16, T, Layout>& f, const __half* p, unsigned ldm) {
    static_assert(std::is_same_v<Layout, row_major>, "only row-major inputs are emulated");
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c)
            f.x[r * 16 + c] = static_cast<float>(p[r * ldm + c]);
}

template <typename T> inline void fill_fragment(fragment<accumulator, 16, 16, 16, T>& f, float value) {
    std::fill(std::begin(f.x), std::end(f.x), value);
}

inline void mma_sync(fragment<accumulator, 16, 16, 16, float>& d,
                     const fragment<matrix_a, 16, 16, 16, __half, row_major>& a,
                     const fragment<matrix_b, 16, 16, 16, __half, row_major>& b,
                     const fragment<accumulator, 16, 16, 16, float>& c) {
    float out[256];
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            float sum = c.x[i * 16 + j];
            for (int k = 0; k < 16; ++k)
                sum += a.x[i * 16 + k] * b.x[k * 16 + j];
            out[i * 16 + j] = sum;
        }
    std::copy(std::begin(out), std::end(out), d.x);
}

inline void store_matrix_sync(float* p, const fragment<accumulator, 16, 16, 16, float>& f, unsigned ldm,
                              layout_t layout) {
    if (threadIdx.x % 32 != 0) // the warp stores once
        return;
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c)
            p[layout == mem_row_major ? r * ldm + c : c * ldm + r] = f.x[r * 16 + c];
}

} // namespace nvcuda::wmma
