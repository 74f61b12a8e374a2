// The post kernels: complex spectrum -> view values (shift + log-magnitude/power/phase/real/imag) -> range
// (CUB device reductions or a radix sort for percentiles) -> colormap -> RGBA8 into a device buffer or a CUDA
// surface (the viewer's GL texture). The formulas are gpu/common/spectrum_math.h's, shared with the CPU path.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "gpu/common/spectrum_math.h"
#include "gpu/runtime/resources.h"
#include "gpu/runtime/timing.h"

namespace specview::gpu {

// A complex spectrum on the device, width x height, row-major with `ld` elements per stored row. `half`: only
// columns 0..width/2 are stored (cuFFT R2C output); the rest follow from F[y][x] = conj(F[-y][-x]).
struct SpectrumSource {
    const float2* data = nullptr;
    int width = 0, height = 0, ld = 0;
    bool half = false;
    // The frequency lab's mask (width x height, unshifted bins; null: none): the view shows the masked spectrum.
    const float* mask = nullptr;
};

// Where a picture goes: RGBA8 (packed, R in the low byte) into `rgba` and/or a CUDA surface (the viewer's
// texture), or, for format Level8/Level16, levels of 1 or 2 bytes a pixel into `levels`.
struct PictureTarget {
    std::uint32_t* rgba = nullptr;
    std::uint64_t surface = 0;  // cudaSurfaceObject_t, 0: none
    void* levels = nullptr;
    PictureFormat format = PictureFormat::Rgba8;
};

#ifdef __CUDACC__
// Stores pixel (x, y) (index i = y * width + x) of value t in [0, 1] into the target; lut: the colormap's
// 256 colours in global memory.
__device__ __forceinline__ void store_picture(const PictureTarget& p, const std::uint32_t* __restrict__ lut, float t,
                                              int x, int y, std::size_t i) {
    if (p.format == PictureFormat::Level8) {  // (a level format always comes with its buffer: the engine sees to it)
        static_cast<unsigned char*>(p.levels)[i] = static_cast<unsigned char>(level_of(t));
    } else if (p.format == PictureFormat::Level16) {
        static_cast<std::uint16_t*>(p.levels)[i] = static_cast<std::uint16_t>(level16_of(t));
    } else {
        const std::uint32_t c = __ldg(&lut[level_of(t)]);
        if (p.rgba) p.rgba[i] = c;
        if (p.surface) surf2Dwrite(c, cudaSurfaceObject_t(p.surface), x * 4, y);
    }
}
#endif

// The display range of n view values on the device, as the host's compute_range makes it (auto and top: CUB's
// min/max; percentile: a radix sort and percentile_index's two values; fixed: the settings'), into range[0] =
// (lo, hi), left on the device. The scratch is the caller's, kept between calls (a cudaFree waits for the device).
struct RangeScratch {
    DeviceBuffer<float> sorted;
    DeviceBuffer<unsigned char> temp;
    DeviceBuffer<float2> minmax;
};
void device_range(const float* values, long long n, const ViewParams& vp, RangeScratch& scratch, float2* range,
                  cudaStream_t stream);

class SpectrumViewer {
public:
    // Writes the width x height picture into the target. The range stays on the device until range() copies
    // it back.
    void run(const SpectrumSource& src, const ViewParams& vp, const PictureTarget& target, cudaStream_t stream,
             StageTimer* timer);
    // The range the last run used (synchronises with its stream).
    void range(float* lo, float* hi, cudaStream_t stream);
    // The view values of the last run (width x height floats, after the shift), for tests and readouts.
    const float* values() const { return values_.get(); }

private:
    DeviceBuffer<float> values_;
    RangeScratch range_scratch_;
    DeviceBuffer<float2> range_;  // lo, hi used by the colormap
    PinnedBuffer<float2> range_host_;
    int lut_colormap_ = -1;
};

// A timing line's name for a picture stage: "colormap -> RGBA8", "... -> 8-bit levels", ...
std::string picture_stage_name(const std::string& what, const PictureTarget& t);

// Full complex spectrum from cuFFT's R2C half spectrum (for downloads of the raw spectrum).
void expand_half_spectrum(const float2* half, int width, int height, float2* full, cudaStream_t stream);

}  // namespace specview::gpu
