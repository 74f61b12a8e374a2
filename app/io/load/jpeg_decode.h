// JPEG through libjpeg-turbo (Debian's libjpeg62-turbo, continuously fuzzed upstream) instead of stb_image: Debian
// 12's stb writes past a Huffman table on a crafted progressive JPEG (nothings/stb #1289/#1291, fixed upstream
// after Debian's snapshot), and libjpeg-turbo decodes faster. Every libjpeg error, and every warning but
// "extraneous bytes before marker" (a premature end would otherwise be filled with gray), is an InputError.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/core/image.h"

namespace specview {

struct JpegInfo {
    int width = 0, height = 0, channels = 0;  // channels as decoded: 1 (gray) or 3 (RGB; CMYK converted)
};

// Reads the header, calls `check` with the size before anything is decoded (it throws to refuse), then decodes
// into an 8-bit-per-sample Image with values v / 255. Throws InputError naming `name`.
Image decode_jpeg(ByteView bytes, const std::string& name, const std::function<void(const JpegInfo&)>& check);

}  // namespace specview
