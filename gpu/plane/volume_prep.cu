#include "gpu/plane/volume_prep.h"

#include <algorithm>
#include <cstdint>

#include "gpu/common/volume_math.h"
#include "gpu/plane/channel_value.cuh"
#include "gpu/runtime/cuda_check.h"

namespace specview::gpu {

namespace {

template <class T>
__global__ void frame_channel_kernel(const T* __restrict__ image, int image_w, int channels, int channel, int crop_x,
                                     int crop_y, int cw, int ch, float* __restrict__ slab, int stride) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= cw || y >= ch) return;
    const T* px = image + ((long long)(y + crop_y) * image_w + (x + crop_x)) * channels;
    slab[std::size_t(y) * stride + x] = channel_value(px, channels, channel);
}

// One thread a row: its sums in x order (volume_row_sums), as the host's.
__global__ void frame_row_sums_kernel(const float* __restrict__ slab, int stride, int cw, int ch,
                                      double* __restrict__ row_scratch) {
    const int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= ch) return;
    volume_row_sums(slab + std::size_t(y) * stride, cw, (cw - 1) / 2.0, &row_scratch[2 * y], &row_scratch[2 * y + 1]);
}

// One thread: the frame's sums over its rows in row order, as the host's add_frame_rows.
__global__ void frame_sums_kernel(const double* __restrict__ row_scratch, int ch, double* __restrict__ sums) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
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

void launch_volume_frame(const void* samples, int bit_depth, int image_w, int channels, int channel, int crop_x,
                         int crop_y, int cw, int ch, float* slab, int stride, double* row_scratch, double* frame_sums,
                         cudaStream_t s) {
    const dim3 grid(unsigned((cw + 255) / 256), unsigned(ch));
    if (bit_depth == 8)
        frame_channel_kernel<<<grid, 256, 0, s>>>(static_cast<const std::uint8_t*>(samples), image_w, channels, channel,
                                                  crop_x, crop_y, cw, ch, slab, stride);
    else if (bit_depth == 16)
        frame_channel_kernel<<<grid, 256, 0, s>>>(static_cast<const std::uint16_t*>(samples), image_w, channels,
                                                  channel, crop_x, crop_y, cw, ch, slab, stride);
    else
        frame_channel_kernel<<<grid, 256, 0, s>>>(static_cast<const float*>(samples), image_w, channels, channel,
                                                  crop_x, crop_y, cw, ch, slab, stride);
    CUDA_CHECK_LAUNCH("frame_channel_kernel");
    frame_row_sums_kernel<<<(ch + 127) / 128, 128, 0, s>>>(slab, stride, cw, ch, row_scratch);
    CUDA_CHECK_LAUNCH("frame_row_sums_kernel");
    frame_sums_kernel<<<1, 1, 0, s>>>(row_scratch, ch, frame_sums);
    CUDA_CHECK_LAUNCH("frame_sums_kernel");
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
