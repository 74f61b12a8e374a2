#include "tests/bench/vkfft_peer.h"

#include <cuda.h>
#include <nvrtc.h>

#include <chrono>
#include <stdexcept>

#ifndef VKFFT_BACKEND
#define VKFFT_BACKEND 1
#endif
#include "vkFFT.h"

namespace specview::bench {

struct VkfftPlan::Impl {
    // VkFFT keeps pointers to these (device, stream, buffers, sizes): they live as long as the application.
    VkFFTConfiguration config{};
    VkFFTApplication app{};
    CUdevice device = 0;
    cudaStream_t stream = nullptr;
    void* in = nullptr;
    void* out = nullptr;
    pfUINT in_bytes = 0, out_bytes = 0;
    bool initialized = false;
};

namespace {
void check(VkFFTResult r, const char* what) {
    if (r != VKFFT_SUCCESS)
        throw std::runtime_error(std::string("VkFFT ") + what + " failed: VkFFTResult " + std::to_string(int(r)));
}
}  // namespace

VkfftPlan::VkfftPlan(int width, int height, bool r2c, void* in, void* out, cudaStream_t stream, int depth)
    : impl_(new Impl) {
    Impl& m = *impl_;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cuDeviceGet(&m.device, dev) != CUDA_SUCCESS)
        throw std::runtime_error("VkFFT: no CUDA device");
    m.stream = stream;
    m.in = in;
    m.out = out;
    VkFFTConfiguration& c = m.config;
    c.FFTdim = depth > 1 ? 3 : 2;
    c.size[0] = pfUINT(width);  // the contiguous axis
    c.size[1] = pfUINT(height);
    c.size[2] = pfUINT(depth > 1 ? depth : 1);
    c.device = &m.device;
    c.stream = &m.stream;
    c.num_streams = 1;
    if (r2c) {
        c.performR2C = 1;
        c.isInputFormatted = 1;  // an unpadded real plane in, the half spectrum out
        m.in_bytes = pfUINT(sizeof(float)) * width * height * c.size[2];
        m.out_bytes = pfUINT(8) * (width / 2 + 1) * height * c.size[2];
        c.inputBuffer = &m.in;
        c.inputBufferSize = &m.in_bytes;
        c.buffer = &m.out;
        c.bufferSize = &m.out_bytes;
    } else {
        m.out_bytes = pfUINT(8) * width * height * c.size[2];
        c.buffer = &m.out;
        c.bufferSize = &m.out_bytes;
    }
    const auto t0 = std::chrono::steady_clock::now();
    check(initializeVkFFT(&m.app, c), "initializeVkFFT");
    m.initialized = true;
    plan_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

VkfftPlan::~VkfftPlan() {
    if (impl_ && impl_->initialized) deleteVkFFT(&impl_->app);
}

void VkfftPlan::forward() {
    Impl& m = *impl_;
    VkFFTLaunchParams lp{};
    if (m.config.isInputFormatted) lp.inputBuffer = &m.in;
    lp.buffer = &m.out;
    check(VkFFTAppend(&m.app, -1, &lp), "VkFFTAppend");
}

std::string vkfft_status() {
    return "VkFFT " + std::to_string(VkFFTGetVersion() / 10000) + "." + std::to_string(VkFFTGetVersion() / 100 % 100) +
           "." + std::to_string(VkFFTGetVersion() % 100) + " (CUDA backend, NVRTC)";
}
bool vkfft_built() { return true; }

}  // namespace specview::bench
