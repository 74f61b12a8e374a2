#include "gpu/lab/lab.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "gpu/runtime/cuda_check.h"
#include "gpu/common/device_math.h"
#include "gpu/common/errors.h"

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

__global__ void masked_kernel(SpectrumSource s, const float* __restrict__ mask, int out_width,
                              float2* __restrict__ out) {
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

// One dab (grid.z: the disc and its mirror) over its bounding box in signed bins, wrapped into the transform.
__global__ void stamp_kernel(BrushStroke b, int x0, int y0, int bw, int bh, int width, int height,
                             float* __restrict__ layer) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= bw || j >= bh) return;
    const bool mirror = blockIdx.z == 1;
    const int s_x = mirror ? -(x0 + bw - 1) + i : x0 + i, s_y = mirror ? -(y0 + bh - 1) + j : y0 + j;
    const int kx = ((s_x % width) + width) % width, ky = ((s_y % height) + height) % height;
    int sx, sy;
    signed_bin(kx, ky, width, height, &sx, &sy);
    if (stroke_covers(b, sx, sy)) layer[std::size_t(ky) * width + kx] = b.erase ? 1.0f : 0.0f;
}

__global__ void fill_kernel(float* __restrict__ data, long long n, float v) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        data[i] = v;
}

// out = (filters or 1) * (paint or 1), then 1 - that when inverting.
__global__ void combine_kernel(const float* __restrict__ filters, const float* __restrict__ paint, bool invert,
                               long long n, float* __restrict__ out) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        float m = filters ? filters[i] : 1.0f;
        if (paint) m *= paint[i];
        out[i] = invert ? 1.0f - m : m;
    }
}

// Floats as unsigned ints that sort like them (for atomicMin / atomicMax).
__host__ __device__ __forceinline__ float lab_value(LabPictureKind k, float filtered, float plane) {
    return k == LabPictureKind::Filtered  ? filtered
           : k == LabPictureKind::Removed ? plane - filtered
                                          : fabsf(plane - filtered);
}

__global__ void lab_minmax_kernel(const float* __restrict__ filtered, const float* __restrict__ plane, int width,
                                  int x0, int y0, int w, int h, LabPictureKind kind,
                                  unsigned int* __restrict__ minmax) {
    float lo = INFINITY, hi = -INFINITY;
    const long long n = (long long)w * h;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const long long y = i / w, x = i - y * w;
        const std::size_t k = std::size_t(y0 + y) * width + (x0 + x);
        const float v = lab_value(kind, filtered[k], plane ? plane[k] : 0.0f);
        lo = fminf(lo, v);  // NaN is ignored
        hi = fmaxf(hi, v);
    }
    for (int o = 16; o > 0; o >>= 1) {
        lo = fminf(lo, __shfl_down_sync(0xffffffffu, lo, o));
        hi = fmaxf(hi, __shfl_down_sync(0xffffffffu, hi, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin(&minmax[0], order_encode(lo));
        atomicMax(&minmax[1], order_encode(hi));
    }
}

__global__ void lab_colour_kernel(const float* __restrict__ filtered, const float* __restrict__ plane, int width,
                                  int x0, int y0, int w, int h, LabPictureKind kind,
                                  const unsigned int* __restrict__ minmax, const std::uint32_t* __restrict__ lut,
                                  std::uint32_t* __restrict__ rgba) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const float lo = kind == LabPictureKind::Difference ? 0.0f : order_decode(minmax[0]), hi = order_decode(minmax[1]);
    const std::size_t k = std::size_t(y0 + y) * width + (x0 + x);
    const float v = lab_value(kind, filtered[k], plane ? plane[k] : 0.0f);
    rgba[std::size_t(y) * w + x] = __ldg(&lut[level_of(normalize_to_range(v, lo, hi))]);
}

dim3 grid_2d(int w, int h, dim3 b) { return dim3((w + b.x - 1) / b.x, (h + b.y - 1) / b.y); }
int blocks_1d(long long n) { return int(std::min<long long>((n + 255) / 256, 1 << 16)); }

}  // namespace

const float* DeviceMask::get(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes,
                             bool invert, int width, int height, cudaStream_t s, StageTimer* timer) {
    if (filters.empty() && strokes.empty() && !invert) return nullptr;
    if (filters.size() > std::size_t(kMaxFilters))
        throw ConfigError("more than " + std::to_string(kMaxFilters) + " filters");
    const long long n = (long long)width * height;
    const bool resized = width != width_ || height != height_;
    bool changed = resized || invert != invert_key_;
    // The filters' product.
    if (filters.empty()) {
        if (have_filters_) changed = true;
        have_filters_ = false;
    } else if (resized || !have_filters_ || filters != filters_key_) {
        filters_mask_.resize(std::size_t(n));
        specs_.resize(filters.size());
        // A few hundred bytes of description (a copy from pageable memory is staged before the call returns);
        // the mask itself is made here, never uploaded.
        CUDA_CHECK(cudaMemcpyAsync(specs_.get(), filters.data(), filters.size() * sizeof(FilterSpec),
                                   cudaMemcpyHostToDevice, s));
        const dim3 block(32, 8);
        build_mask_kernel<<<grid_2d(width, height, block), block, 0, s>>>(specs_.get(), int(filters.size()), width,
                                                                          height, filters_mask_.get());
        CUDA_CHECK_LAUNCH("build_mask_kernel");
        mark(timer,
             "mask (built on the device from " + std::to_string(filters.size()) + " filter" +
                 (filters.size() > 1 ? "s)" : ")"),
             double(n) * 4.0);
        have_filters_ = true;
        changed = true;
    }
    filters_key_ = filters;
    // The brush layer: new dabs stamped over their boxes; a layer whose dabs are not a prefix of these is
    // re-made from all of them.
    if (strokes.empty()) {
        if (!strokes_key_.empty()) changed = true;
        strokes_key_.clear();
    } else {
        std::size_t from = strokes_key_.size();
        const bool extends =
            !resized && from <= strokes.size() && std::equal(strokes_key_.begin(), strokes_key_.end(), strokes.begin());
        if (!extends || from == 0) {
            paint_.resize(std::size_t(n));
            fill_kernel<<<blocks_1d(n), 256, 0, s>>>(paint_.get(), n, 1.0f);
            CUDA_CHECK_LAUNCH("fill_kernel");
            from = 0;
        }
        for (std::size_t i = from; i < strokes.size(); ++i) {
            int x0, y0, bw, bh;
            stroke_box(strokes[i], width, height, &x0, &y0, &bw, &bh);
            const dim3 block(16, 16), grid((bw + 15) / 16, (bh + 15) / 16, 2);
            stamp_kernel<<<grid, block, 0, s>>>(strokes[i], x0, y0, bw, bh, width, height, paint_.get());
            CUDA_CHECK_LAUNCH("stamp_kernel");
        }
        if (from < strokes.size()) {
            mark(timer,
                 "brush: " + std::to_string(strokes.size() - from) + " dab" + (strokes.size() - from > 1 ? "s" : "") +
                     " stamped" + (from == 0 ? " (layer re-made)" : ""),
                 double(n) * (from == 0 ? 4.0 : 0.0));
            changed = true;
        }
        strokes_key_ = strokes;
    }
    invert_key_ = invert;
    width_ = width;
    height_ = height;
    // One buffer for the consumers: the filters' own when nothing else is on.
    const bool only_filters = have_filters_ && strokes.empty() && !invert;
    if (changed) ++version_;
    if (only_filters) return filters_mask_.get();
    if (changed || !have_combined_) {
        combined_.resize(std::size_t(n));
        combine_kernel<<<blocks_1d(n), 256, 0, s>>>(have_filters_ ? filters_mask_.get() : nullptr,
                                                    strokes.empty() ? nullptr : paint_.get(), invert, n,
                                                    combined_.get());
        CUDA_CHECK_LAUNCH("combine_kernel");
        mark(timer, "mask = filters x brush" + std::string(invert ? ", inverted" : ""), double(n) * 12.0);
        have_combined_ = true;
    }
    return combined_.get();
}

void LabPicture::run(const float* filtered, const float* plane, int width, int x0, int y0, int w, int h,
                     LabPictureKind kind, std::uint32_t* rgba, cudaStream_t s, StageTimer* timer) {
    if (w < 1 || h < 1) throw ConfigError("empty lab picture");
    if (kind != LabPictureKind::Filtered && !plane) throw ConfigError("the lab's removed part needs the plane");
    const int cm = kind == LabPictureKind::Difference ? int(Colormap::Inferno) : int(Colormap::Gray);
    if (cm != lut_kind_) {
        lut_.resize(256);
        const ColormapLut lut = make_colormap_lut(Colormap(cm));
        CUDA_CHECK(cudaMemcpyAsync(lut_.get(), lut.rgba, sizeof(lut.rgba), cudaMemcpyHostToDevice, s));
        lut_kind_ = cm;
    }
    minmax_.resize(2);
    CUDA_CHECK(cudaMemsetAsync(minmax_.get(), 0xff, sizeof(unsigned int), s));   // the min starts above all
    CUDA_CHECK(cudaMemsetAsync(minmax_.get() + 1, 0, sizeof(unsigned int), s));  // the max below all
    kind_ = kind;
    const long long n = (long long)w * h;
    lab_minmax_kernel<<<int(std::min<long long>((n + 255) / 256, 1024)), 256, 0, s>>>(filtered, plane, width, x0, y0, w,
                                                                                      h, kind, minmax_.get());
    CUDA_CHECK_LAUNCH("lab_minmax_kernel");
    const dim3 block(32, 8);
    lab_colour_kernel<<<grid_2d(w, h, block), block, 0, s>>>(filtered, plane, width, x0, y0, w, h, kind, minmax_.get(),
                                                             lut_.get(), rgba);
    CUDA_CHECK_LAUNCH("lab_colour_kernel");
    mark(timer,
         std::string("third view: ") +
             (kind == LabPictureKind::Filtered  ? "filtered"
              : kind == LabPictureKind::Removed ? "removed part"
                                                : "difference") +
             " -> range -> RGBA8",
         double(n) * (plane ? 20.0 : 12.0));
}

void LabPicture::range(float* lo, float* hi, cudaStream_t s) {
    host_.resize(2);
    CUDA_CHECK(cudaMemcpyAsync(host_.get(), minmax_.get(), 2 * sizeof(unsigned int), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    auto un = [](unsigned int u) {
        const unsigned int b = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    };
    *lo = kind_ == LabPictureKind::Difference ? 0.0f : un(host_.get()[0]);
    *hi = un(host_.get()[1]);
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
