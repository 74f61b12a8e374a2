#include "gpu/plane/plane_prep.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "gpu/plane/channel_value.cuh"
#include "gpu/runtime/cuda_check.h"

namespace specview::gpu {

namespace {

constexpr std::size_t kStagingBytes = std::size_t(16) << 20;  // 16 MiB a staging buffer

// The host copy into a staging buffer, on a few threads, so it keeps up with the copy engine emptying the other
// (a new 4096^2 RGB image, 200 MB, on the H100: +42 ms over its decode with one thread, +26 with four; eight
// measured no better).
void parallel_copy(unsigned char* dst, const unsigned char* src, std::size_t n) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t parts = std::min<std::size_t>({4, cores > 1 ? cores - 1 : 1, std::max<std::size_t>(1, n >> 20)});
    if (parts <= 1) {
        std::memcpy(dst, src, n);
        return;
    }
    std::vector<std::thread> threads;
    const std::size_t each = (n + parts - 1) / parts;
    for (std::size_t p = 1; p < parts; ++p) {
        const std::size_t a = p * each, len = a < n ? std::min(each, n - a) : 0;
        if (len) threads.emplace_back([=] { std::memcpy(dst + a, src + a, len); });
    }
    std::memcpy(dst, src, std::min(each, n));
    for (auto& t : threads) t.join();
}

template <class T>
__global__ void plane_kernel(const T* __restrict__ image, int image_w, int channels, int channel, int crop_x,
                             int crop_y, int cw, int ch, PlaneShape shape, const double* __restrict__ wx,
                             const double* __restrict__ wy, const double* __restrict__ table, int pw, int ph,
                             float* __restrict__ plane, double* __restrict__ sum) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    double local = 0;
    if (x < pw && y < ph) {
        float v = 0.0f;
        if (x < cw && y < ch) {
            const T* px = image + ((long long)(y + crop_y) * image_w + (x + crop_x)) * channels;
            // gpu/common/plane_shape.h's arithmetic, as the host does it (this file is compiled without fused multiply-adds).
            v = float(plane_value(shape, double(channel_value(px, channels, channel)), x, y, wx, wy, table));
            local = v;
        }
        plane[(long long)y * pw + x] = v;
    }
    if (!sum) return;
    for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(0xffffffffu, local, o);
    if ((threadIdx.x & 31) == 0 && local != 0) atomicAdd(sum, local);
}

__global__ void fill_kernel(float* __restrict__ plane, int pw, int ph, int cw, int ch, const double* __restrict__ sum) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= pw || y >= ph || (x < cw && y < ch)) return;
    plane[(long long)y * pw + x] = float(*sum / (double(cw) * ch));
}

// A device frame's samples into the image buffer, rows packed (16-bit ones widened as the CPU decoder does).
template <class T>
__global__ void copy_samples_kernel(const unsigned char* __restrict__ src, std::size_t pitch, int w, int h, int bits,
                                    T* __restrict__ dst) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= w || y >= h) return;
    T v = reinterpret_cast<const T*>(src + std::size_t(y) * pitch)[x];
    if (bits) v = T(v | (v >> bits));
    dst[std::size_t(y) * w + x] = v;
}

}  // namespace

void download_samples(const void* device, std::size_t pitch, std::size_t row_bytes, int rows, int significant_bits,
                      void* host) {
    // On the legacy default stream, after the decoder's work there.
    CUDA_CHECK(cudaMemcpy2D(host, row_bytes, device, pitch, row_bytes, std::size_t(rows), cudaMemcpyDeviceToHost));
    if (significant_bits > 0) {
        auto* v = static_cast<std::uint16_t*>(host);
        for (std::size_t i = 0, n = row_bytes / 2 * std::size_t(rows); i < n; ++i)
            v[i] = std::uint16_t(v[i] | (v[i] >> significant_bits));
    }
}

// A frame NVDEC decoded: copied on the device into the image buffer (a few microseconds), after the decoder's
// work on the legacy default stream, then waited for, so the caller may hand the frame back to the decoder as
// soon as prepare() returns (later plane changes use the copy, as an uploaded image's).
void PlanePrep::copy_device(const PlaneRecipe& r, cudaStream_t s, StageTimer* timer) {
    if (r.channels != 1 || (r.bit_depth != 8 && r.bit_depth != 16) || r.significant_bits < 0 ||
        r.significant_bits >= 16 || r.device_pitch < std::size_t(r.image_width) * std::size_t(r.bit_depth / 8))
        throw ConfigError("a device frame must be one channel of 8- or 16-bit samples within its pitch");
    const std::size_t n = std::size_t(r.image_width) * r.image_height * std::size_t(r.bit_depth / 8);
    image_.resize(n);
    CUDA_CHECK(cudaEventRecord(decoded_.get(), cudaStreamLegacy));
    CUDA_CHECK(cudaStreamWaitEvent(s, decoded_.get(), 0));
    const dim3 block(256), grid((r.image_width + 255) / 256, r.image_height);
    const auto* src = static_cast<const unsigned char*>(r.device_samples);
    if (r.bit_depth == 8)
        copy_samples_kernel<std::uint8_t>
            <<<grid, block, 0, s>>>(src, r.device_pitch, r.image_width, r.image_height, 0, image_.get());
    else
        copy_samples_kernel<std::uint16_t><<<grid, block, 0, s>>>(src, r.device_pitch, r.image_width, r.image_height,
                                                                  r.significant_bits,
                                                                  reinterpret_cast<std::uint16_t*>(image_.get()));
    CUDA_CHECK_LAUNCH("copy_samples_kernel");
    copied_.record(s);
    CUDA_CHECK(cudaEventSynchronize(copied_.get()));
    version_ = r.image_version;
    mark(timer, "copy decoded frame (device -> device, once per frame)", double(n) * 2.0);
}

void PlanePrep::upload(const PlaneRecipe& r, cudaStream_t s, StageTimer* timer) {
    const std::size_t n = std::size_t(r.image_width) * r.image_height * r.channels * std::size_t(r.bit_depth / 8);
    image_.resize(n);
    // Two pinned staging buffers in turn: the host copies a chunk into one while the other is on its way.
    for (int i = 0; i < 2; ++i) staging_[i].resize(std::min(n, kStagingBytes));
    const auto* src = static_cast<const unsigned char*>(r.samples);
    int& k = next_staging_;  // carried over: a stack's next frame goes to the buffer its predecessor did not use
    for (std::size_t off = 0; off < n; off += kStagingBytes, k ^= 1) {
        const std::size_t len = std::min(kStagingBytes, n - off);
        CUDA_CHECK(cudaEventSynchronize(staged_[k].get()));  // its previous chunk has left (no-op at first)
        parallel_copy(staging_[k].get(), src + off, len);
        CUDA_CHECK(cudaMemcpyAsync(image_.get() + off, staging_[k].get(), len, cudaMemcpyHostToDevice, s));
        staged_[k].record(s);
    }
    version_ = r.image_version;
    mark(timer, "upload image (host -> device, once per image)", double(n));
}

void PlanePrep::prepare(const PlaneRecipe& r, float* plane, cudaStream_t s, StageTimer* timer) {
    if (r.image_width < 1 || r.image_height < 1 || r.channels < 1 || (!r.samples && !r.device_samples) ||
        (r.bit_depth != 8 && r.bit_depth != 16 && r.bit_depth != 32) || r.content_width < 1 || r.content_height < 1 ||
        r.plane_width < r.content_width || r.plane_height < r.content_height ||
        (!r.shape.radial &&
         (int(r.window_x.size()) != r.content_width || int(r.window_y.size()) != r.content_height)) ||
        (r.shape.radial && int(r.radial_table.size()) != kRadialWindowTable) ||
        r.crop_x + r.content_width > r.image_width || r.crop_y + r.content_height > r.image_height)
        throw ConfigError("inconsistent plane recipe");
    if (r.image_version == 0 || r.image_version != version_) {
        if (r.device_samples)
            copy_device(r, s, timer);
        else
            upload(r, s, timer);
    }

    const std::size_t nw = r.window_x.size() + r.window_y.size() + r.radial_table.size();
    // The same window values as the last plane's (every frame of a stack): nothing to send and nothing to wait for,
    // so the host can go on to the next frame while this one is on the device.
    const double* sent = window_host_.get();
    const bool same =
        window_sent_ && nw == window_count_ && std::equal(r.window_x.begin(), r.window_x.end(), sent) &&
        std::equal(r.window_y.begin(), r.window_y.end(), sent + r.window_x.size()) &&
        std::equal(r.radial_table.begin(), r.radial_table.end(), sent + r.window_x.size() + r.window_y.size());
    if (!same) {
        // The previous plane's window values may still be on their way up: wait for that copy before overwriting.
        CUDA_CHECK(cudaStreamSynchronize(s));
        window_host_.resize(std::max<std::size_t>(nw, 1));
        std::copy(r.window_x.begin(), r.window_x.end(), window_host_.get());
        std::copy(r.window_y.begin(), r.window_y.end(), window_host_.get() + r.window_x.size());
        std::copy(r.radial_table.begin(), r.radial_table.end(),
                  window_host_.get() + r.window_x.size() + r.window_y.size());
        window_.resize(std::max<std::size_t>(nw, 1));
        CUDA_CHECK(cudaMemcpyAsync(window_.get(), window_host_.get(), nw * sizeof(double), cudaMemcpyHostToDevice, s));
        window_count_ = nw;
        window_sent_ = true;
    }
    const bool fill = r.fill_mean && (r.plane_width > r.content_width || r.plane_height > r.content_height);
    if (fill) {
        sum_.resize(1);
        CUDA_CHECK(cudaMemsetAsync(sum_.get(), 0, sizeof(double), s));
    }
    const dim3 block(256), grid((r.plane_width + 255) / 256, r.plane_height);
    auto launch = [&](const auto* image) {
        const double* wx = window_.get();
        plane_kernel<<<grid, block, 0, s>>>(image, r.image_width, r.channels, r.channel, r.crop_x, r.crop_y,
                                            r.content_width, r.content_height, r.shape, wx, wx + r.window_x.size(),
                                            wx + r.window_x.size() + r.window_y.size(), r.plane_width, r.plane_height,
                                            plane, fill ? sum_.get() : nullptr);
    };
    switch (r.bit_depth) {
        case 8:
            launch(reinterpret_cast<const std::uint8_t*>(image_.get()));
            break;
        case 16:
            launch(reinterpret_cast<const std::uint16_t*>(image_.get()));
            break;
        default:
            launch(reinterpret_cast<const float*>(image_.get()));
            break;
    }
    CUDA_CHECK_LAUNCH("plane_kernel");
    if (fill) {
        fill_kernel<<<grid, block, 0, s>>>(plane, r.plane_width, r.plane_height, r.content_width, r.content_height,
                                           sum_.get());
        CUDA_CHECK_LAUNCH("fill_kernel");
    }
    mark(timer, "prepare plane (channel, window, pad) [GPU]",
         double(r.content_width) * r.content_height * (r.bit_depth / 8) * r.channels +
             double(r.plane_width) * r.plane_height * 4.0);
}

}  // namespace specview::gpu
