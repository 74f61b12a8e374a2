// Spectrum pictures as PNG through libpng (Debian's libpng16, fuzzed continuously upstream), written row by
// row into a temporary file that is renamed into place when complete: no in-memory copy of the encoded image,
// no half-written file under the final name. Gray pictures (the gray colormap) are 8-bit gray PNGs, coloured
// ones RGB: no unused alpha channel.
#pragma once

#include <cstdint>
#include <string>

namespace specview {

enum class PngColor { Gray, Rgb };

// zlib level 0..9 with libpng's adaptive row filters. The default is the measured trade-off (README,
// "PNG output"): spectra are noisy, and levels above it cost time for a few percent of size.
constexpr int kDefaultPngLevel = 2;

// `rgba`: width x height pixels, R in the low byte (Frame::rgba). For Gray, R is written. Throws
// std::runtime_error naming the path.
void write_picture_png(const std::string& path, const std::uint32_t* rgba, int width, int height, PngColor color,
                       int level = kDefaultPngLevel);

}  // namespace specview
