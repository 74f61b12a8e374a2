// What a grid-wide barrier costs on the 1024^2 one-launch C2C's grid (256 blocks of 256 threads, 35 KB of dynamic
// shared memory, two blocks an SM), in cooperative launches back to back: an empty kernel, cooperative groups'
// grid.sync(), and m106's ready flags (each block stamps its own flag with the launch's epoch after a fence; each
// block's threads read every block's flag with acquire loads until all carry it). Standalone (no library), for a
// quick call on the device:
//   nvcc -O3 -std=c++17 -arch=sm_90 tests/device/barrier_probe.cu -o /tmp/bp && /tmp/bp [launches] [blocks]
// Each barrier kernel runs kBarriers barriers a launch. It prints each kernel's time a launch (total over `launches` back-to-back launches between two events, median of
// 7 such blocks) and the barriers' cost over the empty kernel's.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                          \
    do {                                                                                               \
        cudaError_t e_ = (x);                                                                          \
        if (e_ != cudaSuccess) {                                                                       \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
            std::exit(1);                                                                              \
        }                                                                                              \
    } while (0)

// kBarriers barriers a launch, so that the GPU's time, not the host's launch rate, is what is timed.
constexpr int kBarriers = 100;

__global__ void empty_kernel(unsigned int*, unsigned int) {}

__global__ void grid_sync_kernel(unsigned int*, unsigned int) {
    for (int k = 0; k < kBarriers; ++k) cooperative_groups::this_grid().sync();
}

// Barrier k of a launch with epoch e stamps e * kBarriers + k; a block may stamp the next barrier's value before a
// slower one has read this one's, so the wait is for "this value or later" (wrap-around aside: a probe).
// The writer: the block's barrier, thread 0's fence, its flag (relaxed store). The readers, by kMode:
//   0: every thread reads flags i, i + blockDim.x, ... with acquire loads; __syncthreads_and (m106's patch as prepared);
//   1: warp 0 reads all flags with relaxed 16-byte loads (four flags a load), __all_sync; then a fence, __syncthreads;
//   2: every thread reads its flags with relaxed loads; __syncthreads_and; then a fence in every thread;
//   3: as 1, with the flags 32 bytes apart (a sector each; warp 0 reads them with 4-byte relaxed loads).
template <int kMode>
__device__ __forceinline__ bool flags_at_least(const unsigned int* ready, int blocks, unsigned int want) {
    bool mine = true;
    if constexpr (kMode == 0) {
        for (int i = int(threadIdx.x); i < blocks; i += int(blockDim.x)) {
            unsigned int v;
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(ready + i) : "memory");
            mine = mine && int(v - want) >= 0;
        }
    } else if constexpr (kMode == 2) {
        for (int i = int(threadIdx.x); i < blocks; i += int(blockDim.x)) {
            unsigned int v;
            asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(ready + i) : "memory");
            mine = mine && int(v - want) >= 0;
        }
    } else if constexpr (kMode == 1) {
        for (int i = 4 * int(threadIdx.x); i < blocks; i += 4 * 32) {
            unsigned int x, y, z, w;
            asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "l"(ready + i) : "memory");
            mine = mine && int(x - want) >= 0 && (i + 1 >= blocks || int(y - want) >= 0) &&
                   (i + 2 >= blocks || int(z - want) >= 0) && (i + 3 >= blocks || int(w - want) >= 0);
        }
    } else {
        for (int i = int(threadIdx.x); i < blocks; i += 32) {
            unsigned int v;
            asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(ready + 8 * i) : "memory");
            mine = mine && int(v - want) >= 0;
        }
    }
    return mine;
}

template <int kMode>
__global__ void ready_flags_kernel(unsigned int* ready, unsigned int epoch) {
    const int blocks = int(gridDim.x);
    const int stride = kMode == 3 ? 8 : 1;
    for (int k = 0; k < kBarriers; ++k) {
        const unsigned int want = epoch * kBarriers + k;
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(ready + stride * blockIdx.x), "r"(want) : "memory");
        }
        if constexpr (kMode == 0 || kMode == 2) {
            bool done = false;
            while (!done) done = __syncthreads_and(flags_at_least<kMode>(ready, blocks, want));
            if constexpr (kMode == 2) __threadfence();
        } else {
            if (threadIdx.x < 32) {
                while (!__all_sync(0xffffffffu, flags_at_least<kMode>(ready, blocks, want))) {
                }
                __threadfence();
            }
            __syncthreads();
        }
    }
}

using Kernel = void (*)(unsigned int*, unsigned int);

double per_launch_us(Kernel k, int blocks, int threads, int smem, int launches, unsigned int* ready,
                     unsigned int& epoch, cudaStream_t s) {
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> t;
    for (int rep = 0; rep < 8; ++rep) {
        CK(cudaEventRecord(a, s));
        for (int i = 0; i < launches; ++i) {
            unsigned int e = ++epoch;
            void* args[] = {&ready, &e};
            CK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(k), dim3(blocks), dim3(threads), args,
                                           std::size_t(smem), s));
        }
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (rep > 0) t.push_back(1000.0 * ms / launches);  // the first block warms up
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char** argv) {
    const int launches = argc > 1 ? std::max(10, std::atoi(argv[1])) : 100;
    const int blocks = argc > 2 ? std::max(1, std::atoi(argv[2])) : 256;
    const int threads = 256, smem = 35 * 1024;
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    unsigned int* ready = nullptr;
    CK(cudaMalloc(&ready, sizeof(unsigned int) * 8 * std::max(blocks, 1024)));
    CK(cudaMemset(ready, 0, sizeof(unsigned int) * 8 * std::max(blocks, 1024)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    unsigned int epoch = 0;
    std::printf("%s, %d SMs: %d blocks of %d threads, %d KB dynamic shared memory, cooperative launches back to back\n",
                prop.name, prop.multiProcessorCount, blocks, threads, smem / 1024);
    std::printf("us a launch, median of 7 blocks of %d launches\n", launches);
    for (int round = 0; round < 3; ++round) {
        const double e = per_launch_us(empty_kernel, blocks, threads, smem, launches, ready, epoch, s);
        const double g = per_launch_us(grid_sync_kernel, blocks, threads, smem, launches, ready, epoch, s);
        const double f0 = per_launch_us(ready_flags_kernel<0>, blocks, threads, smem, launches, ready, epoch, s);
        const double f1 = per_launch_us(ready_flags_kernel<1>, blocks, threads, smem, launches, ready, epoch, s);
        const double f2 = per_launch_us(ready_flags_kernel<2>, blocks, threads, smem, launches, ready, epoch, s);
        const double f3 = per_launch_us(ready_flags_kernel<3>, blocks, threads, smem, launches, ready, epoch, s);
        std::printf("round %d, us a barrier (a launch of %d less the empty one's %.3f): grid.sync() %.3f; ready flags: "
                    "all threads acquire %.3f, warp 0 relaxed 16-byte %.3f, all threads relaxed + fence %.3f, warp 0 "
                    "relaxed, a sector a flag %.3f\n",
                    round, kBarriers, e, (g - e) / kBarriers, (f0 - e) / kBarriers, (f1 - e) / kBarriers,
                    (f2 - e) / kBarriers, (f3 - e) / kBarriers);
    }
    CK(cudaStreamDestroy(s));
    CK(cudaFree(ready));
    return 0;
}
