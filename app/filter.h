// The frequency lab's filters as the command line and the viewer's script spell them:
//   lowpass:R  highpass:R  bandpass:R1:R2  bandstop:R1:R2  notch:U:V:R
//   wedge:ANGLE:HALF[:RMIN]  stripe:ANGLE:WIDTH[:RMIN]
// in cycles/pixel (angles in degrees, counter-clockwise from +u with the image's up positive: horizontal scan
// lines in an image make a vertical stripe in its spectrum, stripe:90:W), with an optional edge suffix ",gauss"
// or ",butterworth:N" (ideal without one). The formulas are gpu/mask_math.h's; several filters multiply. On top:
// freehand brush dabs (paint U V R / erase U V R, in spectrum bins, mirrored) and the whole mask's inversion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpu/mask_math.h"

namespace specview {

// Parses and checks one spec (0 < R <= sqrt(0.5), R1 < R2, |U|, |V| <= 0.5, 0 < HALF <= 90, 0 < WIDTH <= 1,
// 0 <= RMIN <= sqrt(0.5), N a positive integer up to 64).
// Returns "" and sets *out, or says what is wrong (naming the spec).
std::string parse_filter(const std::string& spec, FilterSpec* out);
// The spec back in the same words (round-trips through parse_filter).
std::string filter_text(const FilterSpec& f);

// The mask of these filters for a width x height transform, over the half spectrum's bins (height rows of
// width/2 + 1), on `threads` threads; empty filters give an empty mask (all-pass).
std::vector<float> half_mask(const std::vector<FilterSpec>& filters, int width, int height, int threads);

constexpr std::size_t kMaxStrokes = 100000;

// "paint U V R" / "erase U V R" (the words after the verb): checked (finite, |U|, |V| <= 1e6, 0 < R <= 1e5).
std::string parse_stroke(const std::vector<std::string>& words, bool erase, BrushStroke* out);
std::string stroke_text(const BrushStroke& b);
// Applies dabs in order to a width x height layer (unshifted bins; 1 keeps, 0 removes): each sets the bins it
// or its mirror covers, over its bounding boxes only.
void stamp_strokes(const BrushStroke* strokes, std::size_t count, int width, int height, float* layer);
// The same into a layer over the half spectrum's bins (height rows of width/2 + 1: the layer is symmetric, so
// that is all of it), calling touched(i) for each element written (the CPU backend updates its mask there).
void stamp_strokes_half(const BrushStroke* strokes, std::size_t count, int width, int height, float* half_layer,
                        const std::function<void(std::size_t)>& touched = {});
// The whole mask over the half spectrum's bins: the filters' product times the brush layer, inverted (1 - m) on
// request; empty when there is nothing (all-pass).
std::vector<float> half_mask(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes,
                             bool invert, int width, int height, int threads);
// The same from the filters' half mask (half_mask(filters, ...), empty for none), which the CPU backend keeps.
std::vector<float> combine_half_mask(std::vector<float> filter_half, const std::vector<BrushStroke>& strokes,
                                     bool invert, int width, int height, int threads);
// The mask as an 8-bit picture, shifted like the spectrum (DC at the centre), 255 = kept.
std::vector<std::uint8_t> mask_picture(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes,
                                       bool invert, int width, int height, int threads);
// "2 filters, 40 brush dabs, inverted": what a mask is made of, in words.
std::string mask_summary(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes, bool invert);
// The mask's text description: one 'filter SPEC', 'paint U V R', 'erase U V R' or 'invert-mask on' a line (the
// viewer's script words; '#' starts a comment). parse_mask_text returns "" or what is wrong, naming the line.
std::string mask_text(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes, bool invert);
std::string parse_mask_text(const std::string& text, std::vector<FilterSpec>* filters, std::vector<BrushStroke>* strokes,
                            bool* invert);

}  // namespace specview
