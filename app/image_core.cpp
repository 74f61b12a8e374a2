// What an Image is made of, apart from the decoders: linked into everything that makes images, including the
// GPU video module (app/video_gpu.h), which must not pull the image decoders in.
#include "app/image.h"

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
    if (const SampleStorage& s = sample_storage()) img.storage = s(img.sample_bytes());
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

void require_host_samples(const Image& img, const std::string& name) {
    if (img.on_device())
        throw InputError(name, "this frame was decoded on the GPU (NVDEC) and this step needs it on the host: open the "
                               "video with --video-decode cpu");
}

}  // namespace specview
