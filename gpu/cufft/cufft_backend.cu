#include "gpu/cufft/cufft_backend.h"

#include <string>

#include "gpu/runtime/cuda_check.h"

namespace specview::gpu {
namespace {

__global__ void widen_kernel(const float* __restrict__ in, float2* __restrict__ out, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        out[i] = make_float2(in[i], 0.0f);
}

constexpr std::size_t kMaxCachedPlans = 8;

}  // namespace

void widen_real_to_complex(const float* plane, float2* out, long long n, cudaStream_t stream) {
    const int threads = 256;
    const int blocks = int(std::min<long long>((n + threads - 1) / threads, 1 << 20));
    widen_kernel<<<blocks, threads, 0, stream>>>(plane, out, n);
    CUDA_CHECK_LAUNCH("widen_kernel");
}

CufftPlan& CufftBackend::plan(int width, int height, cufftType type, cudaStream_t stream) {
    const auto key = std::make_tuple(width, height, int(type));
    auto it = plans_.find(key);
    if (it != plans_.end()) {
        CUFFT_CHECK(cufftSetStream(it->second.get(), stream));
        return it->second;
    }
    if (plans_.size() >= kMaxCachedPlans) plans_.clear();  // a viewer cycling through sizes: start over
    CufftPlan p;
    p.make_2d(height, width, type, stream);
    return plans_.emplace(key, std::move(p)).first->second;
}

SpectrumSource CufftBackend::forward_real(const float* plane, int width, int height, CufftMode mode,
                                          cudaStream_t stream, StageTimer* timer) {
    const long long n = (long long)width * height;
    if (mode == CufftMode::C2C) {
        work_.resize(n);
        widen_real_to_complex(plane, work_.get(), n, stream);
        mark(timer, "widen real -> complex", double(n) * 12.0);
        CUFFT_CHECK(cufftExecC2C(plan(width, height, CUFFT_C2C, stream).get(),
                                 reinterpret_cast<cufftComplex*>(work_.get()),
                                 reinterpret_cast<cufftComplex*>(work_.get()), CUFFT_FORWARD));
        mark(timer, "cuFFT C2C 2D", double(n) * 16.0);
        return {work_.get(), width, height, width, false};
    }
    const int ld = width / 2 + 1;
    work_.resize((long long)ld * height);
    CUFFT_CHECK(cufftExecR2C(plan(width, height, CUFFT_R2C, stream).get(), const_cast<cufftReal*>(plane),
                             reinterpret_cast<cufftComplex*>(work_.get())));
    mark(timer, "cuFFT R2C 2D", double(n) * 4.0 + double(ld) * height * 8.0);
    return {work_.get(), width, height, ld, true};
}

void CufftBackend::c2c(float2* data, int width, int height, bool inverse, cudaStream_t stream) {
    CUFFT_CHECK(cufftExecC2C(plan(width, height, CUFFT_C2C, stream).get(), reinterpret_cast<cufftComplex*>(data),
                             reinterpret_cast<cufftComplex*>(data), inverse ? CUFFT_INVERSE : CUFFT_FORWARD));
}

void CufftBackend::inverse_real(float2* half, float* out, int width, int height, cudaStream_t stream) {
    CUFFT_CHECK(cufftExecC2R(plan(width, height, CUFFT_C2R, stream).get(), reinterpret_cast<cufftComplex*>(half),
                             reinterpret_cast<cufftReal*>(out)));
}

}  // namespace specview::gpu
