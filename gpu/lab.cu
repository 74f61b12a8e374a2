#include "gpu/lab.h"

#include <string>

#include "gpu/cuda_check.h"
#include "gpu/errors.h"

namespace specview::gpu {
namespace {

__global__ void build_mask_kernel(const FilterSpec* __restrict__ filters, int count, int width, int height,
                                  float* __restrict__ mask) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    mask[std::size_t(y) * width + x] = mask_value(filters, count, x, y, width, height);
}

// Bin (x, y) of the spectrum, from a half source through the Hermitian symmetry.
__device__ __forceinline__ float2 bin_of(const SpectrumSource& s, int x, int y) {
    if (!s.half || x <= s.width / 2) return s.data[std::size_t(y) * s.ld + x];
    const float2 v = s.data[std::size_t(y == 0 ? 0 : s.height - y) * s.ld + (s.width - x)];
    return make_float2(v.x, -v.y);
}

__global__ void masked_kernel(SpectrumSource s, const float* __restrict__ mask, int out_width, float2* __restrict__ out) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= out_width || y >= s.height) return;
    float2 v = bin_of(s, x, y);
    if (mask) {
        const float m = mask[std::size_t(y) * s.width + x];
        v.x *= m;
        v.y *= m;
    }
    out[std::size_t(y) * out_width + x] = v;
}

__global__ void real_part_kernel(const float2* __restrict__ in, long long n, float scale, float* __restrict__ out) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        out[i] = in[i].x * scale;
}

__global__ void scale_kernel(float* __restrict__ data, long long n, float scale) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        data[i] *= scale;
}

dim3 grid_2d(int w, int h, dim3 b) { return dim3((w + b.x - 1) / b.x, (h + b.y - 1) / b.y); }
int blocks_1d(long long n) { return int(std::min<long long>((n + 255) / 256, 1 << 16)); }

}  // namespace

const float* DeviceMask::get(const std::vector<FilterSpec>& filters, int width, int height, cudaStream_t s,
                             StageTimer* timer) {
    if (filters.empty()) return nullptr;
    if (filters.size() > std::size_t(kMaxFilters)) throw ConfigError("more than " + std::to_string(kMaxFilters) + " filters");
    if (filters == key_ && width == width_ && height == height_ && mask_.get()) return mask_.get();
    mask_.resize(std::size_t(width) * height);
    specs_.resize(filters.size());
    // A few hundred bytes of description (a copy from pageable memory is staged before the call returns); the
    // mask itself is made here, never uploaded.
    CUDA_CHECK(cudaMemcpyAsync(specs_.get(), filters.data(), filters.size() * sizeof(FilterSpec), cudaMemcpyHostToDevice, s));
    const dim3 block(32, 8);
    build_mask_kernel<<<grid_2d(width, height, block), block, 0, s>>>(specs_.get(), int(filters.size()), width, height,
                                                                      mask_.get());
    CUDA_CHECK_LAUNCH("build_mask_kernel");
    mark(timer, "mask (built on the device from " + std::to_string(filters.size()) + " filter" +
                    (filters.size() > 1 ? "s)" : ")"),
         double(width) * height * 4.0);
    key_ = filters;
    width_ = width;
    height_ = height;
    ++version_;
    return mask_.get();
}

void masked_full(const SpectrumSource& src, const float* mask, float2* out, cudaStream_t s) {
    const dim3 block(32, 8);
    masked_kernel<<<grid_2d(src.width, src.height, block), block, 0, s>>>(src, mask, src.width, out);
    CUDA_CHECK_LAUNCH("masked_kernel (full)");
}

void masked_half(const SpectrumSource& src, const float* mask, float2* out, cudaStream_t s) {
    const dim3 block(32, 8);
    const int hw = src.width / 2 + 1;
    masked_kernel<<<grid_2d(hw, src.height, block), block, 0, s>>>(src, mask, hw, out);
    CUDA_CHECK_LAUNCH("masked_kernel (half)");
}

void real_part(const float2* in, long long n, float scale, float* out, cudaStream_t s) {
    real_part_kernel<<<blocks_1d(n), 256, 0, s>>>(in, n, scale, out);
    CUDA_CHECK_LAUNCH("real_part_kernel");
}

void scale_real(float* data, long long n, float scale, cudaStream_t s) {
    scale_kernel<<<blocks_1d(n), 256, 0, s>>>(data, n, scale);
    CUDA_CHECK_LAUNCH("scale_kernel");
}

}  // namespace specview::gpu
