// The frequency lab's filters and brush dabs in words, as the command line, the viewer's script and a saved mask
// spell them:
//   lowpass:R  highpass:R  bandpass:R1:R2  bandstop:R1:R2  notch:U:V:R
//   wedge:ANGLE:HALF[:RMIN]  stripe:ANGLE:WIDTH[:RMIN]
// in cycles/pixel (angles in degrees, counter-clockwise from +u with the image's up positive: horizontal scan
// lines in an image make a vertical stripe in its spectrum, stripe:90:W), with an optional edge suffix ",gauss"
// or ",butterworth:N" (ideal without one); "paint U V R" / "erase U V R" dabs in spectrum bins. Settings parse
// them here; the masks they make are app/lab/filter.h's, their formulas gpu/common/mask_math.h's.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpu/common/mask_math.h"

namespace specview {

// Parses and checks one spec (0 < R <= sqrt(0.5), R1 < R2, |U|, |V| <= 0.5, 0 < HALF <= 90, 0 < WIDTH <= 1,
// 0 <= RMIN <= sqrt(0.5), N a positive integer up to 64).
// Returns "" and sets *out, or says what is wrong (naming the spec).
std::string parse_filter(const std::string& spec, FilterSpec* out);
// The spec back in the same words (round-trips through parse_filter).
std::string filter_text(const FilterSpec& f);

constexpr std::size_t kMaxStrokes = 100000;

// "paint U V R" / "erase U V R" (the words after the verb): checked (finite, |U|, |V| <= 1e6, 0 < R <= 1e5).
std::string parse_stroke(const std::vector<std::string>& words, bool erase, BrushStroke* out);
std::string stroke_text(const BrushStroke& b);

// "2 filters, 40 brush dabs, inverted": what a mask is made of, in words.
std::string mask_summary(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes, bool invert);
// The mask's text description: one 'filter SPEC', 'paint U V R', 'erase U V R' or 'invert-mask on' a line (the
// viewer's script words; '#' starts a comment). parse_mask_text returns "" or what is wrong, naming the line.
std::string mask_text(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes, bool invert);
std::string parse_mask_text(const std::string& text, std::vector<FilterSpec>* filters,
                            std::vector<BrushStroke>* strokes, bool* invert);

}  // namespace specview
