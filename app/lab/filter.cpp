#include "app/lab/filter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "app/core/parallel_bands.h"

namespace specview {

namespace {
// body(y) for every row, the rows in contiguous bands over `threads` threads (0: all cores).
template <class F>
void rows_in_threads(int height, int threads, F&& body) {
    parallel_bands(
        height, threads,
        [&](int y0, int y1, int) {
            for (int y = y0; y < y1; ++y) body(y);
        },
        1);
}
}  // namespace

std::vector<float> half_mask(const std::vector<FilterSpec>& filters, int width, int height, int threads) {
    if (filters.empty()) return {};
    const int hw = width / 2 + 1;
    std::vector<float> m(std::size_t(hw) * height);
    // Rings depend on r alone, the same in rows y and height - y (v and -v): those rows are made once.
    bool radial = true;
    for (const FilterSpec& f : filters)
        radial &= f.kind == FilterKind::LowPass || f.kind == FilterKind::HighPass || f.kind == FilterKind::BandPass ||
                  f.kind == FilterKind::BandStop;
    const int rows = radial ? height / 2 + 1 : height;
    rows_in_threads(rows, threads, [&](int y) {
        float* row = &m[std::size_t(y) * hw];
        for (int x = 0; x < hw; ++x) row[x] = mask_value(filters.data(), int(filters.size()), x, y, width, height);
        if (radial && y > 0 && height - y != y && height - y < height)
            std::copy(row, row + hw, &m[std::size_t(height - y) * hw]);
    });
    return m;
}

namespace {
// Calls at(kx, ky) for every bin dab b or its mirror covers (its two bounding boxes, wrapped into the transform;
// the canonical signed bin decides, so the covered set is exactly symmetric), columns below `columns` only.
template <class At>
void for_each_covered(const BrushStroke& b, int width, int height, int columns, At at) {
    int x0, y0, bw, bh;
    stroke_box(b, width, height, &x0, &y0, &bw, &bh);
    for (int mirror = 0; mirror < 2; ++mirror) {
        // The mirror's box is the negated box: [-(x0 + bw - 1), -x0].
        const int sx0 = mirror ? -(x0 + bw - 1) : x0, sy0 = mirror ? -(y0 + bh - 1) : y0;
        for (int j = 0; j < bh; ++j) {
            const int ky = ((sy0 + j) % height + height) % height;
            for (int i = 0; i < bw; ++i) {
                const int kx = ((sx0 + i) % width + width) % width;
                if (kx >= columns) continue;
                int sx, sy;
                signed_bin(kx, ky, width, height, &sx, &sy);
                if (stroke_covers(b, sx, sy)) at(kx, ky);
            }
        }
    }
}
}  // namespace

void stamp_strokes(const BrushStroke* strokes, std::size_t count, int width, int height, float* layer) {
    for (std::size_t i = 0; i < count; ++i) {
        const float value = strokes[i].erase ? 1.0f : 0.0f;
        for_each_covered(strokes[i], width, height, width,
                         [&](int kx, int ky) { layer[std::size_t(ky) * width + kx] = value; });
    }
}

std::vector<float> half_mask(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes,
                             bool invert, int width, int height, int threads) {
    if (filters.empty() && strokes.empty() && !invert) return {};
    return combine_half_mask(half_mask(filters, width, height, threads), strokes, invert, width, height, threads);
}

void stamp_strokes_half(const BrushStroke* strokes, std::size_t count, int width, int height, float* half_layer,
                        const std::function<void(std::size_t)>& touched) {
    // The half's columns only: a covered bin's mirror is covered too (the layer is symmetric), so the half holds
    // all there is.
    const int hw = width / 2 + 1;
    for (std::size_t i = 0; i < count; ++i) {
        const float value = strokes[i].erase ? 1.0f : 0.0f;
        for_each_covered(strokes[i], width, height, hw, [&](int kx, int ky) {
            const std::size_t k = std::size_t(ky) * hw + kx;
            half_layer[k] = value;
            if (touched) touched(k);
        });
    }
}

std::vector<float> combine_half_mask(std::vector<float> m, const std::vector<BrushStroke>& strokes, bool invert,
                                     int width, int height, int threads) {
    const int hw = width / 2 + 1;
    if (m.empty() && strokes.empty() && !invert) return {};
    if (m.empty()) m.assign(std::size_t(hw) * height, 1.0f);
    if (!strokes.empty()) {
        std::vector<float> layer(std::size_t(hw) * height, 1.0f);
        stamp_strokes_half(strokes.data(), strokes.size(), width, height, layer.data());
        rows_in_threads(height, threads, [&](int y) {
            for (int x = 0; x < hw; ++x) m[std::size_t(y) * hw + x] *= layer[std::size_t(y) * hw + x];
        });
    }
    if (invert)
        for (float& v : m) v = 1.0f - v;
    return m;
}

std::vector<std::uint8_t> mask_picture(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes,
                                       bool invert, int width, int height, int threads) {
    // The full mask from the half one through its symmetry (mask(-k) = mask(k)), shifted like the spectrum.
    const std::vector<float> half = half_mask(filters, strokes, invert, width, height, threads);
    const int hw = width / 2 + 1;
    std::vector<std::uint8_t> out(std::size_t(width) * height, 255);
    if (half.empty()) return out;
    rows_in_threads(height, threads, [&](int py) {
        const int ky = shift_source(py, height);
        for (int px = 0; px < width; ++px) {
            const int kx = shift_source(px, width);
            const float v = kx < hw ? half[std::size_t(ky) * hw + kx]
                                    : half[std::size_t(ky == 0 ? 0 : height - ky) * hw + (width - kx)];
            out[std::size_t(py) * width + px] = std::uint8_t(level_of(v < 0 ? 0.0f : v > 1 ? 1.0f : v));
        }
    });
    return out;
}

}  // namespace specview
