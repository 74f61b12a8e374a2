// The frequency lab on the GPU: the mask built and kept on the device from its description (never uploaded as
// pixels), the masked spectrum in the layouts the inverse transforms take, and the filtered plane's real part.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "gpu/mask_math.h"
#include "gpu/resources.h"
#include "gpu/spectrum_view.h"
#include "gpu/timing.h"

namespace specview::gpu {

class DeviceMask {
public:
    // The width x height mask of these filters (unshifted bin order), built on the device when the filters or
    // the size changed since the last call (then marked on `timer`). version() changes with every build.
    const float* get(const std::vector<FilterSpec>& filters, int width, int height, cudaStream_t stream,
                     StageTimer* timer);
    std::uint64_t version() const { return version_; }

private:
    DeviceBuffer<float> mask_;
    DeviceBuffer<FilterSpec> specs_;
    std::vector<FilterSpec> key_;
    int width_ = 0, height_ = 0;
    std::uint64_t version_ = 0;
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
