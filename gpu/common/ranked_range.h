// The exact range of a picture's values from counts of their ordered keys (app/core/picture.cpp's kth_smallest,
// split for the portable engines, gpu/glsl and gpu/opencl): the device counts the keys' high half-words, the host
// finds which holds each rank asked for, the device counts those high half-words' low half-words, the host finds the
// key. Plain C++.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "gpu/common/spectrum_math.h"

namespace specview::gpu {

// The float a key (the same order: negative ones reversed) stands for.
inline float float_of_key(std::uint32_t k) {
    const std::uint32_t b = (k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k;
    float v;
    std::memcpy(&v, &b, 4);
    return v;
}

// Which of `bins` counts holds rank k (from 0), and how many lie below it.
inline std::uint32_t bin_of_rank(const std::uint32_t* counts, std::size_t bins, std::uint64_t k, std::uint64_t* below) {
    std::uint64_t acc = 0;
    for (std::size_t i = 0; i < bins; ++i) {
        if (acc + counts[i] > k) {
            *below = acc;
            return std::uint32_t(i);
        }
        acc += counts[i];
    }
    *below = acc;
    return std::uint32_t(bins - 1);
}

// The two ranks a range asks for among n values and where they are: the smallest and largest (Auto, Top) or the
// percentiles' nearest ranks (Percentile; Fixed asks for none).
struct RankedRange {
    std::uint64_t k[2] = {0, 0}, below[2] = {0, 0};
    std::uint32_t high[2] = {0, 0};
    RankedRange(const ViewParams& vp, std::uint64_t n) {
        k[1] = n - 1;
        if (vp.range == RangeMode::Percentile) {
            k[0] = std::uint64_t(std::min<long long>(percentile_index(vp.pct_lo, (long long)n), (long long)n - 1));
            k[1] = std::uint64_t(std::min<long long>(percentile_index(vp.pct_hi, (long long)n), (long long)n - 1));
        }
    }
    // From the 65536 counts of the keys' high half-words: which hold the ranks (high[]).
    void find_highs(const std::uint32_t* counts) {
        for (int i = 0; i < 2; ++i) high[i] = bin_of_rank(counts, 65536, k[i], &below[i]);
    }
    // From the counts of high[0]'s and high[1]'s low half-words (65536 each, one after the other): the range.
    void finish(const std::uint32_t* low_counts, const ViewParams& vp, float* lo, float* hi) const {
        float v[2];
        for (int i = 0; i < 2; ++i) {
            std::uint64_t unused = 0;
            const std::uint32_t low = bin_of_rank(low_counts + i * 65536, 65536, k[i] - below[i], &unused);
            v[i] = float_of_key((high[i] << 16) | low);
        }
        *lo = vp.range == RangeMode::Top ? v[1] - vp.top_span : v[0];
        *hi = v[1];
    }
};

}  // namespace specview::gpu
