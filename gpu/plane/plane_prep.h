// The plane fed to the FFT, made on the device: the decoded samples (8/16-bit or float) go up once per image (through pinned
// staging buffers, asynchronously), then channel extraction, window, crop/pad and the mean fill run as kernels
// whenever those settings change. The arithmetic is app/core/plane.cpp's, operation for operation (double for the
// window product, no fused multiply-adds in the luma), so the device plane equals the host one.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "gpu/common/plane_shape.h"
#include "gpu/runtime/resources.h"
#include "gpu/runtime/timing.h"

namespace specview::gpu {


// Device samples (rows `pitch` bytes apart, written by work on the legacy default stream) into host memory, rows
// packed; 16-bit ones widened as PlaneRecipe::significant_bits says. Synchronous.
void download_samples(const void* device, std::size_t pitch, std::size_t row_bytes, int rows, int significant_bits,
                      void* host);

class PlanePrep {
public:
    // Makes the plane (plane_width x plane_height floats) in `plane` on `stream`; marks the timer's stages.
    void prepare(const PlaneRecipe& r, float* plane, cudaStream_t stream, StageTimer* timer);
    std::uint64_t uploaded_version() const { return version_; }

private:
    void upload(const PlaneRecipe& r, cudaStream_t stream, StageTimer* timer);
    void copy_device(const PlaneRecipe& r, cudaStream_t stream, StageTimer* timer);
    DeviceBuffer<unsigned char> image_;  // the samples as decoded (a quarter of floats for 8-bit images)
    std::uint64_t version_ = 0;
    PinnedBuffer<unsigned char> staging_[2];
    Event staged_[2];
    Event decoded_, copied_;  // a device frame: the decoder's work before the copy; the copy (the frame is free after)
    DeviceBuffer<double> window_, sum_;
    PinnedBuffer<double> window_host_;
    int next_staging_ = 0;
    std::size_t window_count_ = 0;  // values on the device (window_host_ holds what was sent)
    bool window_sent_ = false;
};

}  // namespace specview::gpu
