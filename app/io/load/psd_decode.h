// PSD (Photoshop, RGB colour mode, 8 or 16 bits, raw or PackBits) decoded here instead of by stb_image: Debian
// 12's stb converts out-of-range floats to integers when it removes the white matte of translucent pixels
// (undefined behaviour that UBSan reports on crafted files), decodes 16-bit RLE data as if it were 8-bit, and
// its 16-bit probe never succeeds. This reader follows stb's format support and output (four channels: R, G,
// B, A, missing ones filled with 0 and opaque alpha; the matte removed) with the conversion clamped.
#pragma once

#include <string>
#include <vector>

#include "app/core/image.h"

namespace specview {

// Throws InputError naming `name`. `check` sees the header before anything is decoded.
Image decode_psd(ByteView bytes, const std::string& name, const std::function<void(const ImageHeader&)>& check);

}  // namespace specview
