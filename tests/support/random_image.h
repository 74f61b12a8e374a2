// Random images at the depths decoders leave them: 8 and 16 bits as integers, 32 as floats in [0, 1).
#pragma once

#include <cstdint>

#include "app/core/image.h"
#include "tests/support/oracle.h"

namespace specview::test {

inline Image random_image(Rng& rng, int w, int h, int channels, int depth = 32) {
    const std::vector<float> v = rng.real(std::size_t(w) * h * channels);
    if (depth == 32) return Image::from_floats(w, h, channels, v);
    Image img = Image::allocate(w, h, channels, depth, "random");
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (depth == 8)
            img.writable()[i] = static_cast<unsigned char>(v[i] * 255.99f);
        else
            reinterpret_cast<std::uint16_t*>(img.writable())[i] = static_cast<std::uint16_t>(v[i] * 65535.99f);
    }
    return img;
}

}  // namespace specview::test
