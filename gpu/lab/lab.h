// The frequency lab on the GPU: the mask built and kept on the device from its description (never uploaded as
// pixels), the masked spectrum in the layouts the inverse transforms take, and the filtered plane's real part.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "gpu/common/mask_math.h"
#include "gpu/runtime/resources.h"
#include "gpu/picture/spectrum_view.h"
#include "gpu/runtime/timing.h"

namespace specview::gpu {

class DeviceMask {
public:
    // The width x height mask (unshifted bin order): the filters' product times the brush layer, inverted
    // (1 - m) on request; null when there is nothing. Made on the device from the description, never uploaded:
    // the filters' part when they or the size change; brush dabs added since the last call are stamped over
    // their bounding boxes only (any other change of the dabs re-stamps them all); the product when any part
    // changed. Each step is marked on `timer`. version() changes with every new mask.
    const float* get(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes, bool invert,
                     int width, int height, cudaStream_t stream, StageTimer* timer);
    std::uint64_t version() const { return version_; }

private:
    DeviceBuffer<float> filters_mask_, paint_, combined_;
    DeviceBuffer<FilterSpec> specs_;
    std::vector<FilterSpec> filters_key_;
    std::vector<BrushStroke> strokes_key_;
    bool invert_key_ = false;
    bool have_filters_ = false, have_combined_ = false;
    int width_ = 0, height_ = 0;
    std::uint64_t version_ = 0;
};

// The frequency lab's third view on the device: the filtered plane (Filtered), what the mask removed (plane -
// filtered: Removed) or its size (|plane - filtered|: Difference) over the content's region, stretched min..max
// (0..max for the difference) through the gray or inferno colormap into an RGBA8 buffer of the region's size,
// with the same levels as the host's lab_picture. Range kept on the device until range() reads it.
enum class LabPictureKind : int { Filtered = 0, Removed, Difference };
class LabPicture {
public:
    void run(const float* filtered, const float* plane, int width, int x0, int y0, int w, int h, LabPictureKind kind,
             std::uint32_t* rgba, cudaStream_t stream, StageTimer* timer);
    void range(float* lo, float* hi, cudaStream_t stream);  // synchronises with the stream

private:
    DeviceBuffer<unsigned int> minmax_;  // order-preserving encodings of the min and max
    DeviceBuffer<std::uint32_t> lut_;
    PinnedBuffer<unsigned int> host_;
    int lut_kind_ = -1;
    LabPictureKind kind_ = LabPictureKind::Filtered;
};

// The spectrum (a half or full source, see SpectrumSource) times the mask (null: none), as the full
// width x height complex spectrum in natural order.
void masked_full(const SpectrumSource& src, const float* mask, float2* out, cudaStream_t stream);
// The same as the half spectrum (height rows of width/2 + 1), what a complex-to-real transform takes.
void masked_half(const SpectrumSource& src, const float* mask, float2* out, cudaStream_t stream);
// out[i] = in[i].x * scale (the real part of an inverse transform, normalised).
void real_part(const float2* in, long long n, float scale, float* out, cudaStream_t stream);
// data[i] *= scale.
void scale_real(float* data, long long n, float scale, cudaStream_t stream);

}  // namespace specview::gpu
