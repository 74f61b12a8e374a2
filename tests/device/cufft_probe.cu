// What cuFFT launches for a 2D transform: plans C2C (in place) and R2C at the sizes given and runs each `reps` times,
// so that a profiler (ncu, nsys) run over it lists cuFFT's kernels, their launch shapes and durations. Not part of the
// build; on the device: nvcc -O2 -arch=sm_90 tests/device/cufft_probe.cu -lcufft -o /tmp/cufft_probe
//   /tmp/cufft_probe 1024x1024 2048x2048 [reps]
#include <cufft.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                         \
    do {                                                                              \
        auto e_ = (x);                                                                \
        if (e_ != 0) {                                                                \
            std::fprintf(stderr, "%s failed: %d (line %d)\n", #x, int(e_), __LINE__); \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

int main(int argc, char** argv) {
    std::vector<std::pair<int, int>> sizes;
    int reps = 20;
    for (int i = 1; i < argc; ++i) {
        int w = 0, h = 0;
        if (std::sscanf(argv[i], "%dx%d", &w, &h) == 2 && w > 0 && h > 0)
            sizes.push_back({w, h});
        else
            reps = std::atoi(argv[i]);
    }
    if (sizes.empty() || reps <= 0) {
        std::fprintf(stderr, "usage: %s WxH [WxH ...] [reps]\n", argv[0]);
        return 2;
    }
    for (auto [w, h] : sizes) {
        const size_t n = size_t(w) * h;
        cufftComplex* c = nullptr;
        CK(cudaMalloc(&c, n * sizeof(cufftComplex)));
        CK(cudaMemset(c, 0, n * sizeof(cufftComplex)));
        cufftHandle pc, pr;
        CK(cufftPlan2d(&pc, h, w, CUFFT_C2C));
        CK(cufftPlan2d(&pr, h, w, CUFFT_R2C));
        float* r = nullptr;
        cufftComplex* half = nullptr;
        CK(cudaMalloc(&r, n * sizeof(float)));
        CK(cudaMemset(r, 0, n * sizeof(float)));
        CK(cudaMalloc(&half, size_t(h) * (w / 2 + 1) * sizeof(cufftComplex)));
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        std::vector<float> tc, tr;
        for (int i = 0; i < reps; ++i) {
            CK(cudaEventRecord(a));
            CK(cufftExecC2C(pc, c, c, CUFFT_FORWARD));
            CK(cudaEventRecord(b));
            CK(cudaEventSynchronize(b));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, a, b));
            tc.push_back(ms);
        }
        for (int i = 0; i < reps; ++i) {
            CK(cudaEventRecord(a));
            CK(cufftExecR2C(pr, r, half));
            CK(cudaEventRecord(b));
            CK(cudaEventSynchronize(b));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, a, b));
            tr.push_back(ms);
        }
        auto median = [](std::vector<float> v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        std::printf("%dx%d: cuFFT C2C in place %.4f ms, R2C %.4f ms (medians of %d, events around each)\n", w, h,
                    median(tc), median(tr), reps);
        CK(cufftDestroy(pc));
        CK(cufftDestroy(pr));
        CK(cudaFree(c));
        CK(cudaFree(r));
        CK(cudaFree(half));
    }
    return 0;
}
