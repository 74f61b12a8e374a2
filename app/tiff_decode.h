// TIFF through libtiff (Debian's libtiff6, fuzzed continuously upstream), read from memory in the decoder
// process: 8/16/32-bit unsigned and signed integer and 32/64-bit float samples, gray/RGB with or without alpha,
// strips and tiles, contiguous or separate planes, every compression libtiff has, multi-page files (one page a
// call). Unsigned 8- and 16-bit samples stay as they are (scaled to [0, 1] like PNG's); 32-bit unsigned samples
// are scaled to [0, 1] as floats; signed and float samples keep their values as floats. Palette, bilevel,
// YCbCr, CMYK and Lab images go through libtiff's RGBA reader (8-bit). Min-is-white is inverted.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/image.h"

namespace specview {

bool is_tiff(const std::vector<unsigned char>& bytes);
// Page `page` (0-based) of the file; *pages: how many it has. Throws InputError naming `name`. `check` sees the
// header before anything is decoded.
Image decode_tiff(const std::vector<unsigned char>& bytes, const std::string& name, int page,
                  const std::function<void(const ImageHeader&)>& check, int* pages);

}  // namespace specview
