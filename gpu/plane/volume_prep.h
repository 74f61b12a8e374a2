// A volume made on the device from its frames' samples (gpu/engine/volume_engine.h's frames path): each frame's channel
// into its slab of the padded real volume with the levelling sums the host's VolumeSpectrum keeps, then the shaping
// (levelling plane, separable or spherical window) and the padding's fill. The arithmetic is the host's
// (gpu/common/volume_math.h, gpu/plane/channel_value.cuh; compiled without fused multiply-adds), in the same order.
#pragma once

#include <cuda_runtime.h>

namespace specview::gpu {

// The frame's samples (device, interleaved, 8/16-bit or float) -> content rows 0..ch-1 of `slab` (rows `stride` floats
// apart): the channel of pixel (x + crop_x, y + crop_y); then its rows' sums (row_scratch: 2 ch doubles) and the
// frame's sum v, sum (x - xc) v, sum (y - yc) v into frame_sums[0..2], as the host adds them.
void launch_volume_frame(const void* samples, int bit_depth, int image_w, int channels, int channel, int crop_x,
                         int crop_y, int cw, int ch, float* slab, int stride, double* row_scratch, double* frame_sums,
                         cudaStream_t s);
// `count` such frames in one set of launches (the frames kept on the device, a knob change's transform): frame k's
// samples at samples + k frame_bytes, its slab at slab + k slab_floats, its row sums at row_scratch + 2 k ch, its sums at
// frame_sums + 3 k. Each frame's arithmetic is launch_volume_frame's (which is this with count 1).
void launch_volume_frames(const void* samples, long long frame_bytes, int count, int bit_depth, int image_w,
                          int channels, int channel, int crop_x, int crop_y, int cw, int ch, float* slab,
                          long long slab_floats, int stride, double* row_scratch, double* frame_sums, cudaStream_t s);

struct VolumeShape {
    int cw = 0, ch = 0, cd = 0;  // the content
    int W = 0, H = 0, D = 0;     // the transform's size
    int stride = 0;              // floats a row: 2 (W / 2 + 1)
    double a = 0, bx = 0, by = 0, bz = 0;  // the levelling plane (content coordinates from the centre)
    bool radial = false;
    const double *wx = nullptr, *wy = nullptr, *wz = nullptr, *table = nullptr;  // device: the window's values
};
// The content shaped in place; each content row's sum of shaped values into row_sums (ch cd of them).
void launch_volume_shape(const VolumeShape& sh, float* real, double* row_sums, cudaStream_t s);
// The padding (x >= cw, or a row outside the content) set to `fill`.
void launch_volume_fill(const VolumeShape& sh, float fill, float* real, cudaStream_t s);

}  // namespace specview::gpu
