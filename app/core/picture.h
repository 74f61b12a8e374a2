// The picture: spectrum values -> view values (shift, log-magnitude, power, phase, real, imag) -> a range (auto,
// percentile, fixed, top) -> colormap levels or RGBA8; and the image view's picture of an image (its samples over a
// display range). One home for turning values into pixels on the host: the CPU backend, a stack's mean power, the
// lab's third view, the viewer's image view and the command line's files all come here. The formulas are
// gpu/common/spectrum_math.h's, which the GPU's picture kernels use too.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "app/core/image.h"
#include "gpu/common/spectrum_math.h"

namespace specview {

// The post-processing on the CPU, with the formulas the GPU's post kernels use.
void compute_view_values(const std::complex<float>* spectrum, int width, int height, const ViewParams& vp,
                         std::vector<float>& values);
void compute_range(const std::vector<float>& values, const ViewParams& vp, float* lo, float* hi);
// Values over [lo, hi] through the colormap into RGBA8, over `threads` threads (parallel_bands's count).
void colorize(const std::vector<float>& values, float lo, float hi, Colormap cm, std::vector<std::uint32_t>& rgba,
              int threads = 1);
// A stack's mean power spectrum through the view: |F| = sqrt(sum / frames) for each of the width x height
// (unshifted) bins of `power_sum`, the view's values and their display range.
std::vector<float> mean_power_view_values(const std::vector<double>& power_sum, int frames, int width, int height,
                                          const ViewParams& vp, float* lo, float* hi);

// The k-th smallest of n floats (k from 0), exactly, without a copy: two radix passes over the values' ordered
// bit patterns (what nth_element on a copy gives, in O(1) extra memory).
float kth_smallest(const float* values, std::size_t n, std::size_t k);

// ln y for a finite y > 0, branch-free (vectorisable), within about 2e-7 relative of logf.
float fast_ln(float y);

// The picture straight from a half spectrum (rows of w/2+1 complex values), in `rgba`: the view values are
// computed into it, the range found over them (a percentile range by kth_smallest, no copy), then each is
// turned into its colour in place: 4 bytes a pixel in all, on `threads` threads. Equal to compute_view_values
// + compute_range + colorize on the full spectrum, except that log-magnitude and power use fast_ln (within one
// colormap level of the exact picture; --raw is untouched).
// `format` Level8/Level16: the picture as levels in `levels` instead (1 or 2 bytes a pixel); `rgba` then only
// holds the values while they are needed and is released.
void picture_from_half(const std::complex<float>* half, int width, int height, const ViewParams& vp, int threads,
                       std::vector<std::uint32_t>& rgba, float* lo, float* hi,
                       PictureFormat format = PictureFormat::Rgba8, std::vector<unsigned char>* levels = nullptr);

// Values -> RGBA8 through a colormap over their finite min..max, which *lo and *hi receive.
void colour_values(const std::vector<float>& v, Colormap cm, std::vector<std::uint32_t>& rgba, float* lo, float* hi);

// How the image view maps an image's values to black..white: 8/16-bit samples as they are ([0, 1]); HDR
// tone-mapped (v / (1 + v)); other float data (TIFF, .npy: heights, counts, negative values) over an automatic
// range, the 0.5th to 99.5th percentile of its colour samples.
struct DisplayRange {
    enum class Mode { Unit, ToneMapped, Values } mode = Mode::Unit;
    float lo = 0, hi = 1;
};
DisplayRange display_range(const Image& img);
// The image as the viewer shows it: gray replicated, values mapped by `range`, alpha kept; RGBA8.
std::vector<std::uint32_t> display_rgba(const Image& img, const DisplayRange& range);

}  // namespace specview
