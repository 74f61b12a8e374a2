// VkFFT (github.com/DTolm/VkFFT, MIT; headers from ../shared/third_party/vkfft, never committed here) as the
// benchmark's second peer beside cuFFT: forward 2D C2C in place and R2C out of place (real plane -> height rows of
// width/2 + 1 bins, cuFFT's layout), planned once (kernels compiled through NVRTC: timed apart) and launched on a
// stream. Built only where the headers and the CUDA driver library are found (SPECVIEW_HAS_VKFFT).
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

namespace specview::bench {

class VkfftPlan {
public:
    // C2C: `in` == `out` (width x height complex, in place). R2C: `in` a width x height float plane, `out`
    // height x (width/2 + 1) complex. depth > 1: a volume of that many such planes (3D). Throws std::runtime_error
    // naming VkFFT's error code.
    VkfftPlan(int width, int height, bool r2c, void* in, void* out, cudaStream_t stream, int depth = 1);
    ~VkfftPlan();
    VkfftPlan(const VkfftPlan&) = delete;
    VkfftPlan& operator=(const VkfftPlan&) = delete;
    void forward();
    double plan_ms() const { return plan_ms_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    double plan_ms_ = 0;
};

// "VkFFT 1.3.x" when built with it, else why not.
std::string vkfft_status();
bool vkfft_built();

}  // namespace specview::bench
