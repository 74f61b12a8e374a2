// The cuFFT path: the same interface and post kernels as our own pipeline, C2C or R2C plans cached per
// size, any size.
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <tuple>

#include "gpu/common/config.h"
#include "gpu/runtime/resources.h"
#include "gpu/picture/spectrum_view.h"
#include "gpu/runtime/timing.h"

namespace specview::gpu {

class CufftBackend {
public:
    // Forward 2D FFT of a real width x height plane on the device. C2C widens the plane to complex first
    // (its own timed kernel), then transforms in place; R2C writes the half spectrum.
    SpectrumSource forward_real(const float* plane, int width, int height, CufftMode mode, cudaStream_t stream,
                                StageTimer* timer);
    // The spectrum the last forward_real at this size and mode left (nothing runs).
    SpectrumSource last(int width, int height, CufftMode mode) const {
        return mode == CufftMode::C2C ? SpectrumSource{work_.get(), width, height, width, false}
                                      : SpectrumSource{work_.get(), width, height, width / 2 + 1, true};
    }
    // In-place complex transform (tests and the benchmark).
    void c2c(float2* data, int width, int height, bool inverse, cudaStream_t stream);
    // Complex-to-real inverse of a half spectrum (height rows of width/2 + 1; overwritten) into a width x height
    // real plane, unnormalised.
    void inverse_real(float2* half, float* out, int width, int height, cudaStream_t stream);
    std::size_t cached_plans() const { return plans_.size(); }

private:
    CufftPlan& plan(int width, int height, cufftType type, cudaStream_t stream);
    std::map<std::tuple<int, int, int>, CufftPlan> plans_;
    DeviceBuffer<float2> work_;
};

// plane (real) -> complex with zero imaginary parts.
void widen_real_to_complex(const float* plane, float2* out, long long n, cudaStream_t stream);

}  // namespace specview::gpu
