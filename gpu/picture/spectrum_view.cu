#include "gpu/picture/spectrum_view.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include <cfloat>

#include "gpu/runtime/cuda_check.h"

namespace specview::gpu {
namespace {

// The colormap table in global memory, read through the read-only cache: threads of a warp read different
// entries, which constant memory serialises (measured at 4096^2 on an H100: 37% of copy bandwidth from
// constant memory; staging it in shared memory from constant memory was slower still, 20% on an H200).
__device__ std::uint32_t g_colormap_lut[256];

template <bool kHalf>
__device__ __forceinline__ float2 spectrum_at(const SpectrumSource& s, int x, int y) {
    if constexpr (kHalf) {
        if (x <= s.width / 2) return s.data[std::size_t(y) * s.ld + x];
        const int yy = y == 0 ? 0 : s.height - y, xx = s.width - x;
        const float2 v = s.data[std::size_t(yy) * s.ld + xx];
        return make_float2(v.x, -v.y);
    } else {
        return s.data[std::size_t(y) * s.ld + x];
    }
}

// One thread per output pixel: which bin lands here after the shift, and its view value.
template <bool kHalf>
__global__ void spectrum_view_kernel(SpectrumSource s, View view, bool shift, float* __restrict__ values) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= s.width || y >= s.height) return;
    const int sx = shift ? shift_source(x, s.width) : x;
    const int sy = shift ? shift_source(y, s.height) : y;
    float2 f = spectrum_at<kHalf>(s, sx, sy);
    if (s.mask) {
        const float m = __ldg(&s.mask[std::size_t(sy) * s.width + sx]);
        f.x *= m;
        f.y *= m;
    }
    values[std::size_t(y) * s.width + x] = view_value(view, f.x, f.y);
}

struct ToMinMax {
    __host__ __device__ float2 operator()(float v) const { return make_float2(v, v); }
};
struct MinMaxOp {
    __host__ __device__ float2 operator()(float2 a, float2 b) const {
        return make_float2(fminf(a.x, b.x), fmaxf(a.y, b.y));
    }
};

// Turns the reduction (or the sorted values) into the [lo, hi] the colormap uses, on the device, so no
// host round trip sits between the post kernels.
__global__ void finish_range_kernel(RangeMode mode, const float2* minmax, const float* sorted, long long i_lo,
                                    long long i_hi, float fixed_lo, float fixed_hi, float span, float2* range) {
    float2 r;
    switch (mode) {
        case RangeMode::Auto:
            r = *minmax;
            break;
        case RangeMode::Percentile:
            r = make_float2(sorted[i_lo], sorted[i_hi]);
            break;
        case RangeMode::Fixed:
            r = make_float2(fixed_lo, fixed_hi);
            break;
        case RangeMode::Top:
            r = make_float2(minmax->y - span, minmax->y);
            break;
    }
    *range = r;
}

__global__ void colormap_kernel(const float* __restrict__ values, int width, int height, const float2* range,
                                PictureTarget target) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const float2 r = *range;
    const std::size_t i = std::size_t(y) * width + x;
    store_picture(target, g_colormap_lut, normalize_to_range(values[i], r.x, r.y), x, y, i);
}

__global__ void expand_half_kernel(const float2* __restrict__ half, int width, int height, float2* __restrict__ full) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    SpectrumSource s{half, width, height, width / 2 + 1, true};
    full[std::size_t(y) * width + x] = spectrum_at<true>(s, x, y);
}

}  // namespace

std::string picture_stage_name(const std::string& what, const PictureTarget& t) {
    switch (t.format) {
        case PictureFormat::Level8:
            return what + " -> 8-bit levels";
        case PictureFormat::Level16:
            return what + " -> 16-bit levels";
        default:
            return what + (t.surface ? " -> RGBA8 texture" : " -> RGBA8");
    }
}

namespace {
dim3 grid_for(int w, int h, dim3 block) { return dim3((w + block.x - 1) / block.x, (h + block.y - 1) / block.y); }

}  // namespace

void device_range(const float* values, long long n, const ViewParams& vp, RangeScratch& scratch, float2* range,
                  cudaStream_t stream) {
    scratch.minmax.resize(1);
    long long i_lo = 0, i_hi = 0;
    if (vp.range == RangeMode::Auto || vp.range == RangeMode::Top) {
        std::size_t bytes = 0;
        const float2 init = make_float2(FLT_MAX, -FLT_MAX);
        CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, bytes, values, scratch.minmax.get(), n, MinMaxOp{},
                                                      ToMinMax{}, init, stream));
        scratch.temp.resize(bytes);
        CUDA_CHECK(cub::DeviceReduce::TransformReduce(scratch.temp.get(), bytes, values, scratch.minmax.get(), n,
                                                      MinMaxOp{}, ToMinMax{}, init, stream));
        CUDA_CHECK_LAUNCH("cub::DeviceReduce::TransformReduce");
    } else if (vp.range == RangeMode::Percentile) {
        scratch.sorted.resize(n);
        std::size_t bytes = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, values, scratch.sorted.get(), n, 0, 32, stream));
        scratch.temp.resize(bytes);
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(scratch.temp.get(), bytes, values, scratch.sorted.get(), n, 0, 32,
                                                  stream));
        CUDA_CHECK_LAUNCH("cub::DeviceRadixSort::SortKeys");
        i_lo = percentile_index(vp.pct_lo, n);
        i_hi = percentile_index(vp.pct_hi, n);
    }
    finish_range_kernel<<<1, 1, 0, stream>>>(vp.range, scratch.minmax.get(), scratch.sorted.get(), i_lo, i_hi,
                                             vp.fixed_lo, vp.fixed_hi, vp.top_span, range);
    CUDA_CHECK_LAUNCH("finish_range_kernel");
}

void SpectrumViewer::run(const SpectrumSource& src, const ViewParams& vp, const PictureTarget& target,
                         cudaStream_t stream, StageTimer* timer) {
    const long long n = (long long)src.width * src.height;
    values_.resize(n);
    range_.resize(1);
    if (lut_colormap_ != int(vp.colormap)) {
        const ColormapLut lut = make_colormap_lut(vp.colormap);
        CUDA_CHECK(
            cudaMemcpyToSymbolAsync(g_colormap_lut, lut.rgba, sizeof(lut.rgba), 0, cudaMemcpyHostToDevice, stream));
        lut_colormap_ = int(vp.colormap);
    }
    const dim3 block(32, 8);
    const dim3 grid = grid_for(src.width, src.height, block);
    if (src.half)
        spectrum_view_kernel<true><<<grid, block, 0, stream>>>(src, vp.view, vp.shift, values_.get());
    else
        spectrum_view_kernel<false><<<grid, block, 0, stream>>>(src, vp.view, vp.shift, values_.get());
    CUDA_CHECK_LAUNCH("spectrum_view_kernel");
    mark(timer, std::string("view (") + (vp.shift ? "shift + " : "") + "value)", double(n) * (8.0 + 4.0));

    device_range(values_.get(), n, vp, range_scratch_, range_.get(), stream);
    const char* range_name = vp.range == RangeMode::Percentile ? "range (CUB radix sort, percentiles)"
                             : vp.range == RangeMode::Fixed    ? "range (fixed)"
                                                               : "range (CUB min/max)";
    mark(timer, range_name,
         vp.range == RangeMode::Fixed        ? 0.0
         : vp.range == RangeMode::Percentile ? double(n) * 16.0
                                             : double(n) * 4.0);

    colormap_kernel<<<grid, block, 0, stream>>>(values_.get(), src.width, src.height, range_.get(), target);
    CUDA_CHECK_LAUNCH("colormap_kernel");
    mark(timer, picture_stage_name("colormap", target),
         double(n) * (4.0 + (level_bytes(target.format) ? level_bytes(target.format) : 4)));
}

void SpectrumViewer::range(float* lo, float* hi, cudaStream_t stream) {
    range_host_.resize(1);
    CUDA_CHECK(cudaMemcpyAsync(range_host_.get(), range_.get(), sizeof(float2), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    *lo = range_host_.get()->x;
    *hi = range_host_.get()->y;
}

void expand_half_spectrum(const float2* half, int width, int height, float2* full, cudaStream_t stream) {
    const dim3 block(32, 8);
    expand_half_kernel<<<grid_for(width, height, block), block, 0, stream>>>(half, width, height, full);
    CUDA_CHECK_LAUNCH("expand_half_kernel");
}

}  // namespace specview::gpu
