// A synthetic RGB "photo" for the benchmarks: smooth structure, edges and noise, so its PNG or JPEG is photo-like
// in size and decode time.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace specview::bench {

inline std::vector<unsigned char> synthetic_photo(int w, int h, unsigned seed) {
    std::vector<unsigned char> px(std::size_t(w) * h * 3);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-12, 12);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double u = double(x) / w, v = double(y) / h;
            double g = 110 + 60 * std::sin(9 * u + 4 * v + seed) + 35 * std::cos(40 * u * v) +
                       ((x / 97 + y / 61) % 2 ? 20 : -20);
            g += noise(rng);
            unsigned char* p = &px[(std::size_t(y) * w + x) * 3];
            p[0] = (unsigned char)std::clamp(g, 0.0, 255.0);
            p[1] = (unsigned char)std::clamp(g * 0.8 + 30 * v, 0.0, 255.0);
            p[2] = (unsigned char)std::clamp(255 - g * 0.7, 0.0, 255.0);
        }
    return px;
}

}  // namespace specview::bench
