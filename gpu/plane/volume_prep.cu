#include "gpu/plane/volume_prep.h"

#include <algorithm>
#include <cstdint>

#include "gpu/common/volume_math.h"
#include "gpu/plane/channel_value.cuh"
#include "gpu/runtime/cuda_check.h"

namespace specview::gpu {

namespace {

// Frame blockIdx.z of a batch (frame_step samples and slab_step floats apart).
template <class T>
__global__ void frame_channel_kernel(const T* __restrict__ image, long long frame_step, int image_w, int channels,
                                     int channel, int crop_x, int crop_y, int cw, int ch, float* __restrict__ slab,
                                     long long slab_step, int stride) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= cw || y >= ch) return;
    const T* px = image + blockIdx.z * frame_step + ((long long)(y + crop_y) * image_w + (x + crop_x)) * channels;
    slab[blockIdx.z * slab_step + std::size_t(y) * stride + x] = channel_value(px, channels, channel);
}

// One thread a row (of frame blockIdx.y): its sums in x order (volume_row_sums), as the host's.
__global__ void frame_row_sums_kernel(const float* __restrict__ slab, long long slab_step, int stride, int cw, int ch,
                                      double* __restrict__ row_scratch) {
    const int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= ch) return;
    const float* frame = slab + blockIdx.y * slab_step;
    double* scratch = row_scratch + 2 * std::size_t(blockIdx.y) * std::size_t(ch);
    volume_row_sums(frame + std::size_t(y) * stride, cw, (cw - 1) / 2.0, &scratch[2 * y], &scratch[2 * y + 1]);
}

// One thread a frame: its sums over its rows in row order, as the host's add_frame_rows.
__global__ void frame_sums_kernel(const double* __restrict__ all_scratch, int ch, int count, double* __restrict__ all_sums) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const double* row_scratch = all_scratch + 2 * std::size_t(k) * std::size_t(ch);
    double* sums = all_sums + 3 * std::size_t(k);
    const double yc = (ch - 1) / 2.0;
    double a = 0, b = 0, c = 0;
    for (int y = 0; y < ch; ++y) {
        a += row_scratch[2 * y];
        b += row_scratch[2 * y + 1];
        c += (y - yc) * row_scratch[2 * y];
    }
    sums[0] = a;
    sums[1] = b;
    sums[2] = c;
}

// Blocks over the content rows (r = z ch + y), threads over x.
__global__ void shape_kernel(VolumeShape sh, float* __restrict__ real) {
    const double xc = (sh.cw - 1) / 2.0, yc = (sh.ch - 1) / 2.0, zc = (sh.cd - 1) / 2.0;
    const double hx = xc > 0 ? xc : 1.0, hy = yc > 0 ? yc : 1.0, hz = zc > 0 ? zc : 1.0;
    const long long rows = (long long)sh.ch * sh.cd;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const int y = int(r % sh.ch), z = int(r / sh.ch);
        float* row = real + (std::size_t(z) * sh.H + std::size_t(y)) * std::size_t(sh.stride);
        const double base = sh.a + sh.by * (y - yc) + sh.bz * (z - zc);
        if (sh.radial) {
            const double ry = (y - yc) / hy, rz = (z - zc) / hz;
            for (int x = threadIdx.x; x < sh.cw; x += blockDim.x)
                row[x] = volume_shaped_radial(row[x], base, sh.bx, x, xc, hx, ry, rz, sh.table);
        } else {
            const double wyz = sh.wy[y] * sh.wz[z];
            for (int x = threadIdx.x; x < sh.cw; x += blockDim.x)
                row[x] = volume_shaped(row[x], base, sh.bx, x, xc, sh.wx[x], wyz);
        }
    }
}

// One thread a content row: the sum of its shaped values in x order (the mean fill's), as the host's.
__global__ void shaped_row_sums_kernel(VolumeShape sh, const float* __restrict__ real, double* __restrict__ row_sums) {
    const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (r >= (long long)sh.ch * sh.cd) return;
    const int y = int(r % sh.ch), z = int(r / sh.ch);
    const float* row = real + (std::size_t(z) * sh.H + std::size_t(y)) * std::size_t(sh.stride);
    double s = 0;
    for (int x = 0; x < sh.cw; ++x) s += row[x];
    row_sums[r] = s;
}

__global__ void fill_kernel(VolumeShape sh, float fill, float* __restrict__ real) {
    const long long rows = (long long)sh.H * sh.D;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const int y = int(r % sh.H), z = int(r / sh.H);
        const int from = (y < sh.ch && z < sh.cd) ? sh.cw : 0;
        float* row = real + std::size_t(r) * std::size_t(sh.stride);
        for (int x = from + threadIdx.x; x < sh.W; x += blockDim.x) row[x] = fill;
    }
}

int row_blocks(long long rows) { return int(std::min<long long>(rows, 65535)); }

}  // namespace

void launch_volume_frames(const void* samples, long long frame_bytes, int count, int bit_depth, int image_w,
                          int channels, int channel, int crop_x, int crop_y, int cw, int ch, float* slab,
                          long long slab_floats, int stride, double* row_scratch, double* frame_sums, cudaStream_t s) {
    constexpr int kMaxBatch = 65535;  // (a grid's z and y)
    for (int k0 = 0; k0 < count; k0 += kMaxBatch) {
        const int n = std::min(kMaxBatch, count - k0);
        const auto* in = static_cast<const unsigned char*>(samples) + k0 * frame_bytes;
        float* out = slab + k0 * slab_floats;
        const dim3 grid(unsigned((cw + 255) / 256), unsigned(ch), unsigned(n));
        const long long bytes = bit_depth / 8, step = frame_bytes / bytes;
        if (bit_depth == 8)
            frame_channel_kernel<<<grid, 256, 0, s>>>(reinterpret_cast<const std::uint8_t*>(in), step, image_w,
                                                      channels, channel, crop_x, crop_y, cw, ch, out, slab_floats, stride);
        else if (bit_depth == 16)
            frame_channel_kernel<<<grid, 256, 0, s>>>(reinterpret_cast<const std::uint16_t*>(in), step, image_w,
                                                      channels, channel, crop_x, crop_y, cw, ch, out, slab_floats, stride);
        else
            frame_channel_kernel<<<grid, 256, 0, s>>>(reinterpret_cast<const float*>(in), step, image_w, channels,
                                                      channel, crop_x, crop_y, cw, ch, out, slab_floats, stride);
        CUDA_CHECK_LAUNCH("frame_channel_kernel");
        double* scratch = row_scratch + 2 * std::size_t(k0) * std::size_t(ch);
        frame_row_sums_kernel<<<dim3(unsigned((ch + 127) / 128), unsigned(n)), 128, 0, s>>>(out, slab_floats, stride,
                                                                                           cw, ch, scratch);
        CUDA_CHECK_LAUNCH("frame_row_sums_kernel");
        frame_sums_kernel<<<(n + 127) / 128, 128, 0, s>>>(scratch, ch, n, frame_sums + 3 * std::size_t(k0));
        CUDA_CHECK_LAUNCH("frame_sums_kernel");
    }
}

void launch_volume_frame(const void* samples, int bit_depth, int image_w, int channels, int channel, int crop_x,
                         int crop_y, int cw, int ch, float* slab, int stride, double* row_scratch, double* frame_sums,
                         cudaStream_t s) {
    launch_volume_frames(samples, 0, 1, bit_depth, image_w, channels, channel, crop_x, crop_y, cw, ch, slab, 0, stride,
                         row_scratch, frame_sums, s);
}

void launch_volume_shape(const VolumeShape& sh, float* real, double* row_sums, cudaStream_t s) {
    const long long rows = (long long)sh.ch * sh.cd;
    shape_kernel<<<row_blocks(rows), 256, 0, s>>>(sh, real);
    CUDA_CHECK_LAUNCH("shape_kernel");
    shaped_row_sums_kernel<<<unsigned((rows + 127) / 128), 128, 0, s>>>(sh, real, row_sums);
    CUDA_CHECK_LAUNCH("shaped_row_sums_kernel");
}

void launch_volume_fill(const VolumeShape& sh, float fill, float* real, cudaStream_t s) {
    fill_kernel<<<row_blocks((long long)sh.H * sh.D), 256, 0, s>>>(sh, fill, real);
    CUDA_CHECK_LAUNCH("fill_kernel");
}

}  // namespace specview::gpu
