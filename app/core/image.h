// The image model: decoded samples in the file's own depth (Image), the bytes a decoder reads (ByteView), the
// header it knows first, and the error every bad input becomes (InputError). Loading lives in app/io/load/load.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/core/calibration.h"

namespace specview {

// A read-only run of bytes: a file's contents, from a vector or (in the decoder process) a mapping of the file.
// What the decoders take; it owns nothing, so the bytes must outlive it.
class ByteView {
public:
    ByteView() = default;
    ByteView(const unsigned char* p, std::size_t n) : p_(p), n_(n) {}
    ByteView(const std::vector<unsigned char>& v) : p_(v.data()), n_(v.size()) {}  // NOLINT: implicit on purpose
    const unsigned char* data() const { return p_; }
    std::size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    const unsigned char& operator[](std::size_t i) const { return p_[i]; }
    const unsigned char* begin() const { return p_; }
    const unsigned char* end() const { return p_ + n_; }

private:
    const unsigned char* p_ = nullptr;
    std::size_t n_ = 0;
};

class InputError : public std::runtime_error {
public:
    InputError(const std::string& path, const std::string& reason)
        : std::runtime_error(path + ": " + reason), path_(path), reason_(reason) {}
    const std::string& path() const { return path_; }
    const std::string& reason() const { return reason_; }

private:
    std::string path_, reason_;
};

// The decoded samples, interleaved, in the file's own depth: uint8 (bit_depth 8), uint16 (16) or float (32: HDR,
// TIFF and .npy data that is not 8/16-bit unsigned, kept as values; non-finite samples replaced by the mean of
// the finite ones, counted in `nonfinite`). Nothing is widened to float until a plane is made from one channel. The
// storage is shared between copies of an Image (copies are cheap) and may be a mapping handed over by the
// decoder process.
//
// A video frame decoded on the GPU (NVDEC) has its samples in device memory instead (`device`; `storage` is then
// empty): one channel, rows `pitch` bytes apart. Only the GPU backends take such an image (app/io/video_gpu.h).
struct DeviceSamples {
    const void* data = nullptr;  // device pointer, valid while the DeviceSamples lives (it holds the decoder's frame)
    std::size_t pitch = 0;       // bytes from one row to the next
    // 16-bit samples holding fewer significant bits at the top (P010: 10): each widens to the full range as a
    // CPU-decoded frame does, v | (v >> bits). 0: none to widen.
    int significant_bits = 0;
};

struct Image {
    int width = 0;
    int height = 0;
    int channels = 0;    // as stored: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA (palette images arrive expanded)
    int bit_depth = 8;   // 8, 16, or 32 for float HDR
    std::string format;  // "png", "jpeg", ...
    std::shared_ptr<const unsigned char> storage;  // sample_bytes() bytes
    int frames = 1, frame = 0;                     // a stack's frame count and which one this is (0-based)
    double frame_rate = 0;                         // a video's frames a second (0: not a video, or unknown)
    std::uint64_t nonfinite = 0;                   // NaN/Inf samples found and replaced ...
    float nonfinite_fill = 0;  // ... by this, the mean of the finite samples (0 when there were none)
    std::shared_ptr<const DeviceSamples> device;  // a frame decoded on the GPU (see DeviceSamples); else null
    PixelSize pixel_size;  // what the file says a pixel is (TIFF resolution, ImageJ's unit=, PNG pHYs); else none
    double z_spacing = 0;  // a z-stack's slice distance in pixel_size's unit (ImageJ's spacing=); 0: not said
    bool on_device() const { return device != nullptr; }

    std::size_t sample_count() const { return std::size_t(width) * std::size_t(height) * std::size_t(channels); }
    int bytes_per_sample() const { return bit_depth / 8; }
    std::size_t sample_bytes() const { return sample_count() * std::size_t(bytes_per_sample()); }
    const void* data() const { return storage.get(); }

    // Sample i as a float in [0, 1]: 8-bit v / 255, 16-bit v / 65535; HDR as stored.
    float sample(std::size_t i) const {
        const unsigned char* p = storage.get();
        switch (bit_depth) {
            case 8:
                return float(p[i]) / 255.0f;
            case 16:
                return float(reinterpret_cast<const std::uint16_t*>(p)[i]) / 65535.0f;
            default:
                return reinterpret_cast<const float*>(p)[i];
        }
    }
    float at(int x, int y, int c) const { return sample((static_cast<std::size_t>(y) * width + x) * channels + c); }

    // A new image with uninitialised samples of the given depth; writable() points at them.
    static Image allocate(int width, int height, int channels, int bit_depth, std::string format);
    // A 32-bit float image holding `values` (tests and generated images).
    static Image from_floats(int width, int height, int channels, const std::vector<float>& values);
    unsigned char* writable() { return const_cast<unsigned char*>(storage.get()); }
};

// Where Image::allocate gets its bytes: the heap unless set. The decoder process sets shared memory here, so
// that formats it decodes itself (JPEG) land directly in what it hands to the parent. Process-wide; set it once,
// before decoding.
using SampleStorage = std::function<std::shared_ptr<unsigned char>(std::size_t bytes)>;
void set_sample_storage(SampleStorage storage);

// What a decoder knows before it decodes: checked against the limits and the chosen path's memory need.
struct ImageHeader {
    int width = 0, height = 0, channels = 0, bit_depth = 8;
    std::string format;
};
// Throws InputError (or anything) to refuse an image before its pixels are decoded.
using HeaderCheck = std::function<void(const ImageHeader&)>;

// The part x, y, w, h of an image (its samples copied; the file's facts kept). Throws InputError naming `name` when
// the rectangle does not lie within the image, or when the samples are on the device.
Image crop_image(const Image& img, int x, int y, int w, int h, const std::string& name);

// Throws InputError naming `name` when img's samples are on the device (a video frame NVDEC decoded), for code
// that reads samples on the host (the CPU backend, the levelling fit, the image view's picture).
void require_host_samples(const Image& img, const std::string& name);

// Replaces NaN/Inf samples of a float image by the mean of its finite samples; records how many in
// img.nonfinite (and the value). A no-op for 8- and 16-bit images.
void replace_nonfinite(Image& img);
// "N NaN/Inf samples replaced by the mean of the finite ones (V)", or "" when there were none.
std::string nonfinite_note(const Image& img);

}  // namespace specview
