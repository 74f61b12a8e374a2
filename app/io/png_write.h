// Spectrum pictures as PNG through libpng (Debian's libpng16, fuzzed continuously upstream), written row by
// row into a temporary file that is renamed into place when complete: no in-memory copy of the encoded image,
// no half-written file under the final name. Gray pictures (the gray colormap) are 8-bit gray PNGs, coloured
// ones RGB: no unused alpha channel.
#pragma once

#include <cstdint>
#include <string>

namespace specview {

enum class PngColor { Gray, Rgb, Gray16 };  // Gray16: the low 16 bits of each pixel, a 16-bit gray PNG

// 0: stored. 1..3: zlib's run-length strategy, unfiltered (fast; spectra are mostly noise, where LZ77
// searches find little). 4..9: zlib's full search at that level, unfiltered (smaller, slower: worth it
// for coloured pictures, whose repeated colormap triplets LZ77 finds). The default is the measured trade-off (README, "Using it").
constexpr int kDefaultPngLevel = 1;

// What the picture's width x height pixels are: RGBA8 (Frame::rgba, R in the low byte; Gray writes R, Gray16
// the low 16 bits), or levels (Frame::levels): 1-byte colormap levels (Gray writes them as they are, Rgb through
// `lut`, the colormap's 256 RGBA8 colours) or 2-byte 16-bit levels (Gray16).
struct PicturePixels {
    const std::uint32_t* rgba = nullptr;
    const unsigned char* levels = nullptr;
    int level_bytes = 0;
    const std::uint32_t* lut = nullptr;
};

// Throws std::runtime_error naming the path. Levels 1..3 of a picture over 4 MiB are encoded on `threads`
// threads (0: all cores; see png_write.cpp).
void write_picture_png(const std::string& path, const PicturePixels& pixels, int width, int height, PngColor color,
                       int level = kDefaultPngLevel, int threads = 0);
inline void write_picture_png(const std::string& path, const std::uint32_t* rgba, int width, int height, PngColor color,
                              int level = kDefaultPngLevel, int threads = 0) {
    PicturePixels p;
    p.rgba = rgba;
    write_picture_png(path, p, width, height, color, level, threads);
}

}  // namespace specview
