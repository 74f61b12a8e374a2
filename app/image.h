// Image files -> pixels (stb_image), with every failure turned into an InputError that names the file and
// the reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace specview {

class InputError : public std::runtime_error {
public:
    InputError(const std::string& path, const std::string& reason)
        : std::runtime_error(path + ": " + reason), path_(path), reason_(reason) {}
    const std::string& path() const { return path_; }
    const std::string& reason() const { return reason_; }

private:
    std::string path_, reason_;
};

struct LoadLimits {
    int max_side = 16384;                              // pixels, each dimension
    std::uint64_t max_pixels = 16384ull * 16384ull;    // width * height
    std::uint64_t max_file_bytes = 2ull << 30;         // 2 GiB
    // Refuse an image whose decode + spectrum buffers (about 48 bytes a padded pixel) would not fit in the
    // machine's available memory. Tests switch this off to make the check deterministic.
    bool check_available_memory = true;
};

struct Image {
    int width = 0;
    int height = 0;
    int channels = 0;   // as stored: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA (palette images arrive expanded)
    int bit_depth = 8;  // 8, 16, or 32 for float HDR
    std::string format; // "png", "jpeg", ...
    // Interleaved, channels values per pixel, row-major from the top row. 8-bit values are v/255 and 16-bit
    // v/65535, so [0, 1]; HDR keeps its linear float values (non-finite ones become 0).
    std::vector<float> pixels;

    float at(int x, int y, int c) const {
        return pixels[(static_cast<std::size_t>(y) * width + x) * channels + c];
    }
};

// Throws InputError for anything that is not a complete, decodable image within the limits.
Image load_image(const std::string& path, const LoadLimits& limits = {});
Image decode_image(const std::vector<unsigned char>& bytes, const std::string& name,
                   const LoadLimits& limits = {});

// File extensions a directory scan picks up.
bool has_image_extension(const std::string& path);

}  // namespace specview
