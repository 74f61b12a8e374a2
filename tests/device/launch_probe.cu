// How much of a whole C2C's time is the host's: custom-fast's c2c() and cufftExecC2C timed four ways at each size.
//   plain:  reset copy, event, transform, event (the benchmark's whole runs): the host's enqueue shows where the GPU
//           waits for it;
//   gated:  the same behind a 100 us spin kernel, so the GPU reaches the first event only after the host has
//           enqueued everything: the GPU's own time, launch gaps included;
//   host:   the CPU time of the transform's call in the gated runs (nothing waits in it);
//   stream: 50 transforms back to back between two events, over 50 (on zeros).
// First, the cost of the launch itself on the 1024² one-launch grid (launch_cost below).
// Not part of the build; on the device, after building specview_gpu in build-dev:
//   nvcc -O2 -std=c++17 -arch=sm_90 -I. tests/device/launch_probe.cu build-dev/gpu/libspecview_gpu.a -lcufft -o /tmp/lp
//   /tmp/lp [reps [side ...]]
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include <cooperative_groups.h>

#include "gpu/fft_fast.h"

#define CK(x) do { auto e_ = (x); if (e_ != 0) { std::fprintf(stderr, "%s failed: %d (line %d)\n", #x, int(e_), __LINE__); std::exit(1); } } while (0)

__global__ void spin(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

// The launch's own cost, on the 1024² one-launch kernel's grid (256 blocks of 256 threads, 35 KB of shared memory):
// empty kernels launched plain, cooperatively, and cooperatively as a programmatic dependent launch (behind the spin
// kernel), and the same with a grid barrier: cooperative_groups' grid.sync(), or (plain launch) an arrive counter and
// a generation flag of our own. Our own barrier is measured only: a plain launch does not guarantee the blocks are
// resident together (here they fit, two an SM, on an idle GPU).
__global__ void empty_kernel(int) {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__global__ void cg_barrier_kernel(int) {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    cooperative_groups::this_grid().sync();
}
__device__ unsigned int g_arrived = 0, g_generation = 0;
__global__ void own_barrier_kernel(int) {
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int gen;
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(gen) : "l"(&g_generation) : "memory");
        unsigned int prev;
        asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(prev) : "l"(&g_arrived) : "memory");
        if (prev == gridDim.x - 1) {
            g_arrived = 0;
            asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(&g_generation), "r"(gen + 1) : "memory");
        } else {
            unsigned int now = gen;
            while (now == gen) asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(&g_generation) : "memory");
        }
    }
    __syncthreads();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Times { double plain, gated, host, stream; };

Times time_it(cudaStream_t s, float2* data, const float2* pristine, size_t n, const std::function<void()>& body, int reps) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    auto reset = [&] { CK(cudaMemcpyAsync(data, pristine, n * sizeof(float2), cudaMemcpyDeviceToDevice, s)); };
    std::vector<double> plain, gated, host;
    for (int r = 0; r < reps + 5; ++r) {
        reset();
        CK(cudaEventRecord(a, s));
        body();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 5) plain.push_back(ms);
        reset();
        spin<<<1, 1, 0, s>>>(200000);
        CK(cudaEventRecord(a, s));
        const auto t0 = std::chrono::steady_clock::now();
        body();
        const auto t1 = std::chrono::steady_clock::now();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 5) {
            gated.push_back(ms);
            host.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
    }
    CK(cudaMemsetAsync(data, 0, n * sizeof(float2), s));
    std::vector<double> stream;
    for (int r = 0; r < 11; ++r) {
        spin<<<1, 1, 0, s>>>(200000);
        CK(cudaEventRecord(a, s));
        for (int i = 0; i < 50; ++i) body();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        stream.push_back(ms / 50);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return {median(plain), median(gated), median(host), median(stream)};
}

// Time of one launch of `kernel` on 256 x 256 with 35 KB behind the spin kernel, medians of 200: the events go around
// both (an event between them would keep a dependent launch from overlapping the spin), less the spin alone's median
// (kernel == nullptr).
double launch_cost(cudaStream_t s, void (*kernel)(int), bool cooperative, bool dependent) {
    const int smem = 35 * 1024;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> t;
    for (int r = 0; r < 210; ++r) {
        CK(cudaEventRecord(a, s));
        spin<<<1, 1, 0, s>>>(200000);
        cudaLaunchAttribute attr[2] = {};
        int n = 0;
        if (cooperative) {
            attr[n].id = cudaLaunchAttributeCooperative;
            attr[n++].val.cooperative = 1;
        }
        if (dependent) {
            attr[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[n++].val.programmaticStreamSerializationAllowed = 1;
        }
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(256);
        cfg.blockDim = dim3(256);
        cfg.dynamicSmemBytes = smem;
        cfg.stream = s;
        cfg.attrs = attr;
        cfg.numAttrs = n;
        const cudaError_t e = kernel ? cudaLaunchKernelEx(&cfg, kernel, 0) : cudaSuccess;
        if (e != cudaSuccess) {
            std::printf("    (launch refused: %s)\n", cudaGetErrorString(e));
            (void)cudaGetLastError();
            CK(cudaStreamSynchronize(s));
            return -1;
        }
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 10) t.push_back(ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    static double spin_alone = -1;
    if (!kernel) return spin_alone = median(t);
    if (spin_alone < 0) launch_cost(s, nullptr, false, false);
    return median(t) - spin_alone;
}

int main(int argc, char** argv) {
    // launch_probe [reps [side ...]]
    const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 100;
    std::vector<int> sides;
    for (int i = 2; i < argc; ++i) sides.push_back(std::atoi(argv[i]));
    if (sides.empty()) sides = {256, 512, 1024, 2048, 4096};
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    std::printf("launch of 256 x 256 (35 KB) behind a spin kernel, ms, medians of 200, less the spin's (%.4f ms)\n",
                launch_cost(s, nullptr, false, false));
    std::printf("  empty, plain %.4f, cooperative %.4f, cooperative + dependent %.4f, plain + dependent %.4f\n",
                launch_cost(s, empty_kernel, false, false), launch_cost(s, empty_kernel, true, false),
                launch_cost(s, empty_kernel, true, true), launch_cost(s, empty_kernel, false, true));
    std::printf("  grid.sync(), cooperative %.4f, cooperative + dependent %.4f; own barrier, cooperative %.4f, plain %.4f\n",
                launch_cost(s, cg_barrier_kernel, true, false), launch_cost(s, cg_barrier_kernel, true, true),
                launch_cost(s, own_barrier_kernel, true, false), launch_cost(s, own_barrier_kernel, false, false));
    std::printf("ms, medians of %d (stream: of 11 blocks of 50)\n", reps);
    std::printf("%-10s %-8s %8s %8s %8s %8s\n", "size", "who", "plain", "gated", "host", "stream");
    for (int side : sides) {
        const size_t n = size_t(side) * side;
        std::vector<float2> h(n);
        for (auto& v : h) v = make_float2(uni(gen), uni(gen));
        float2 *pristine = nullptr, *data = nullptr, *scratch = nullptr;
        CK(cudaMalloc(&pristine, n * sizeof(float2)));
        CK(cudaMalloc(&data, n * sizeof(float2)));
        CK(cudaMalloc(&scratch, n * sizeof(float2)));
        CK(cudaMemcpy(pristine, h.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
        specview::gpu::FastFft fast;
        cufftHandle plan;
        CK(cufftPlan2d(&plan, side, side, CUFFT_C2C));
        CK(cufftSetStream(plan, s));
        const Times f = time_it(s, data, pristine, n, [&] { fast.c2c(data, scratch, side, side, false, s, nullptr); }, reps);
        const Times c = time_it(s, data, pristine, n, [&] { CK(cufftExecC2C(plan, reinterpret_cast<cufftComplex*>(data),
                                                                        reinterpret_cast<cufftComplex*>(data), CUFFT_FORWARD)); }, reps);
        char label[32];
        std::snprintf(label, sizeof label, "%dx%d", side, side);
        std::printf("%-10s %-8s %8.4f %8.4f %8.4f %8.4f\n", label, "fast", f.plain, f.gated, f.host, f.stream);
        std::printf("%-10s %-8s %8.4f %8.4f %8.4f %8.4f\n", label, "cuFFT", c.plain, c.gated, c.host, c.stream);
        std::printf("%-10s %-8s %8.3f %8.3f %8.3f %8.3f\n", label, "ratio", f.plain / c.plain, f.gated / c.gated,
                    f.host / c.host, f.stream / c.stream);
        CK(cufftDestroy(plan));
        CK(cudaFree(pristine));
        CK(cudaFree(data));
        CK(cudaFree(scratch));
    }
    return 0;
}
