#include "gpu/custom/transpose.h"

#include <string>

#include "gpu/runtime/cuda_check.h"
#include "gpu/runtime/device_info.h"

namespace specview::gpu {
namespace {

// A block moves one kTile x kTile tile with kTile x kRows threads, each thread kTile / kRows elements.
// The tile row is padded by one element so that reading a tile column touches every bank once. The tiles are
// numbered along blockIdx.x (columns of tiles first), so that neither side is bound by the grid's 65535 in y;
// blockIdx.y is the matrix of a batch.
template <int kTile, int kRows>
__global__ void __launch_bounds__(kTile* kRows) transpose_tiled_kernel(const float2* __restrict__ in,
                                                                       float2* __restrict__ out, TransposeShape t) {
    __shared__ float2 tile[kTile][kTile + 1];
    const unsigned tiles_x = (unsigned(t.cols) + kTile - 1) / kTile;
    const int bx = int(blockIdx.x % tiles_x) * kTile, by = int(blockIdx.x / tiles_x) * kTile;
    in += std::size_t(blockIdx.y) * t.in_batch;
    out += std::size_t(blockIdx.y) * t.out_batch;
    int x = bx + threadIdx.x;
#pragma unroll
    for (int j = 0; j < kTile; j += kRows) {
        const int y = by + threadIdx.y + j;
        if (x < t.cols && y < t.rows) tile[threadIdx.y + j][threadIdx.x] = in[std::size_t(y) * t.in_ld + x];
    }
    __syncthreads();
    x = by + threadIdx.x;  // output column = input row
#pragma unroll
    for (int j = 0; j < kTile; j += kRows) {
        const int y = bx + threadIdx.y + j;  // output row = input column
        if (x < t.rows && y < t.cols) out[std::size_t(y) * t.out_ld + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

using Kernel = void (*)(const float2*, float2*, TransposeShape);

struct Shape {
    Kernel fn;
    int tile, block_rows;
};

Shape shape_for(int tile) {
    switch (tile) {
        case 8:
            return {transpose_tiled_kernel<8, 8>, 8, 8};
        case 16:
            return {transpose_tiled_kernel<16, 8>, 16, 8};
        case 32:
            return {transpose_tiled_kernel<32, 8>, 32, 8};
        case 64:
            return {transpose_tiled_kernel<64, 8>, 64, 8};
    }
    throw ConfigError("transpose tile must be 8, 16, 32 or 64; got " + std::to_string(tile));
}

}  // namespace

void check_transpose_config(const TransposeConfig& cfg) { shape_for(cfg.tile); }

void run_transpose(const float2* in, float2* out, int rows, int cols, const TransposeConfig& cfg, cudaStream_t stream) {
    TransposeShape t;
    t.rows = rows;
    t.cols = cols;
    t.in_ld = cols;
    t.out_ld = rows;
    run_transpose(in, out, t, cfg, stream);
}

void run_transpose(const float2* in, float2* out, const TransposeShape& t, const TransposeConfig& cfg,
                   cudaStream_t stream) {
    const Shape s = shape_for(cfg.tile);
    const long long tiles = ((t.cols + s.tile - 1LL) / s.tile) * ((t.rows + s.tile - 1LL) / s.tile);
    if (tiles > 0x7fffffffLL || t.batch > 65535)
        throw ConfigError("transpose too large: " + std::to_string(t.rows) + " x " + std::to_string(t.cols) + " x " +
                          std::to_string(t.batch));
    if (tiles == 0 || t.batch < 1) return;
    dim3 grid(unsigned(tiles), unsigned(t.batch));
    dim3 block(s.tile, s.block_rows);
    s.fn<<<grid, block, 0, stream>>>(in, out, t);
    CUDA_CHECK_LAUNCH("transpose_tiled_kernel");
}

KernelResources transpose_resources(const TransposeConfig& cfg, const DeviceInfo& dev) {
    const Shape s = shape_for(cfg.tile);
    return kernel_resources(reinterpret_cast<const void*>(s.fn),
                            ("transpose_tiled_kernel<" + std::to_string(s.tile) + ">").c_str(), s.tile * s.block_rows,
                            0, dev);
}

}  // namespace specview::gpu
