// What an Image is made of, apart from the decoders: linked into everything that makes images, including the
// GPU video module (app/io/video_gpu.h), which must not pull the image decoders in.
#include "app/core/image.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

namespace specview {

namespace {
SampleStorage& sample_storage() {
    static SampleStorage s;
    return s;
}
}  // namespace

void set_sample_storage(SampleStorage storage) { sample_storage() = std::move(storage); }

Image Image::allocate(int width, int height, int channels, int bit_depth, std::string format) {
    Image img;
    img.width = width;
    img.height = height;
    img.channels = channels;
    img.bit_depth = bit_depth;
    img.format = std::move(format);
    if (const SampleStorage& s = sample_storage())
        img.storage = s(img.sample_bytes());
    else
        img.storage = std::shared_ptr<const unsigned char>(new unsigned char[img.sample_bytes()],
                                                           std::default_delete<unsigned char[]>());
    return img;
}

Image Image::from_floats(int width, int height, int channels, const std::vector<float>& values) {
    Image img = allocate(width, height, channels, 32, "float");
    if (values.size() != img.sample_count()) throw std::invalid_argument("Image::from_floats: wrong number of values");
    std::memcpy(img.writable(), values.data(), img.sample_bytes());
    return img;
}

Image crop_image(const Image& img, int x, int y, int w, int h, const std::string& name) {
    if (x < 0 || y < 0 || w < 1 || h < 1 || x > img.width - w || y > img.height - h)
        throw InputError(name, "the ROI " + std::to_string(x) + ":" + std::to_string(y) + ":" + std::to_string(w) + ":" +
                                   std::to_string(h) + " does not lie within the " + std::to_string(img.width) + "x" +
                                   std::to_string(img.height) + " image (X:Y:W:H, the top-left corner at 0:0)");
    require_host_samples(img, name);
    Image out = Image::allocate(w, h, img.channels, img.bit_depth, img.format);
    const std::size_t px = std::size_t(img.channels) * std::size_t(img.bytes_per_sample());
    const auto* src = static_cast<const unsigned char*>(img.data());
    for (int r = 0; r < h; ++r)
        std::memcpy(out.writable() + std::size_t(r) * w * px, src + (std::size_t(y + r) * img.width + x) * px,
                    std::size_t(w) * px);
    out.frames = img.frames;
    out.frame = img.frame;
    out.frame_rate = img.frame_rate;
    out.nonfinite = img.nonfinite;
    out.nonfinite_fill = img.nonfinite_fill;
    out.pixel_size = img.pixel_size;
    out.z_spacing = img.z_spacing;
    return out;
}

void require_host_samples(const Image& img, const std::string& name) {
    if (img.on_device())
        throw InputError(name,
                         "this frame was decoded on the GPU (NVDEC) and this step needs it on the host: open the "
                         "video with --video-decode cpu");
}

void replace_nonfinite(Image& img) {
    if (img.bit_depth != 32 || !img.storage) return;
    // A quick pass first (the exponent bits, which vectorises): almost every frame has none, and then the
    // double-precision sum below is not needed (it cost ~1.4 ms a 1024^2 frame, a stack's decoders' second cost).
    const std::size_t n = img.sample_count();
    {
        const auto* b = static_cast<const unsigned char*>(img.data());
        std::uint32_t any = 0;
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t u;
            std::memcpy(&u, b + 4 * i, 4);
            any |= std::uint32_t((u & 0x7F800000u) == 0x7F800000u);
        }
        if (!any) {
            img.nonfinite = 0;
            return;
        }
    }
    float* v = reinterpret_cast<float*>(img.writable());
    std::uint64_t bad = 0;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (std::isfinite(v[i]))
            sum += v[i];
        else
            ++bad;
    }
    img.nonfinite = bad;
    if (!bad) return;
    const float fill = bad < n ? float(sum / double(n - bad)) : 0.0f;
    img.nonfinite_fill = fill;
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(v[i])) v[i] = fill;
}

std::string nonfinite_note(const Image& img) {
    if (!img.nonfinite) return "";
    char buf[160];
    std::snprintf(buf, sizeof buf, "%llu NaN/Inf sample%s replaced by the mean of the finite ones (%.6g)",
                  static_cast<unsigned long long>(img.nonfinite), img.nonfinite == 1 ? "" : "s",
                  double(img.nonfinite_fill));
    return buf;
}

}  // namespace specview
