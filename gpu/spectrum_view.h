// The post kernels: complex spectrum -> view values (shift + log-magnitude/power/phase/real/imag) -> range
// (CUB device reductions or a radix sort for percentiles) -> colormap -> RGBA8 into a device buffer or a CUDA
// surface (the viewer's GL texture). The formulas are gpu/spectrum_math.h's, shared with the CPU path.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/spectrum_math.h"
#include "gpu/resources.h"
#include "gpu/timing.h"

namespace specview::gpu {

// A complex spectrum on the device, width x height, row-major with `ld` elements per stored row. `half`: only
// columns 0..width/2 are stored (cuFFT R2C output); the rest follow from F[y][x] = conj(F[-y][-x]).
struct SpectrumSource {
    const float2* data = nullptr;
    int width = 0, height = 0, ld = 0;
    bool half = false;
};

class SpectrumViewer {
public:
    // Writes width x height RGBA8 (packed, R in the low byte) into rgba and/or surface (0 = none). The range
    // stays on the device until range() copies it back.
    void run(const SpectrumSource& src, const ViewParams& vp, std::uint32_t* rgba, std::uint64_t surface,
             cudaStream_t stream, StageTimer* timer);
    // The range the last run used (synchronises with its stream).
    void range(float* lo, float* hi, cudaStream_t stream);
    // The view values of the last run (width x height floats, after the shift), for tests and readouts.
    const float* values() const { return values_.get(); }

private:
    DeviceBuffer<float> values_, sorted_;
    DeviceBuffer<unsigned char> temp_;
    DeviceBuffer<float2> minmax_;  // reduce output
    DeviceBuffer<float2> range_;   // lo, hi used by the colormap
    PinnedBuffer<float2> range_host_;
    int lut_colormap_ = -1;
};

// Full complex spectrum from cuFFT's R2C half spectrum (for downloads of the raw spectrum).
void expand_half_spectrum(const float2* half, int width, int height, float2* full, cudaStream_t stream);

}  // namespace specview::gpu
