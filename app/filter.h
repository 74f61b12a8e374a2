// The frequency lab's filters as the command line and the viewer's script spell them:
//   lowpass:R  highpass:R  bandpass:R1:R2  bandstop:R1:R2  notch:U:V:R
// in cycles/pixel, with an optional edge suffix ",gauss" or ",butterworth:N" (ideal without one). The formulas
// are gpu/mask_math.h's; several filters multiply.
#pragma once

#include <string>
#include <vector>

#include "gpu/mask_math.h"

namespace specview {

// Parses and checks one spec (0 < R <= sqrt(0.5), R1 < R2, |U|, |V| <= 0.5, N a positive integer up to 64).
// Returns "" and sets *out, or says what is wrong (naming the spec).
std::string parse_filter(const std::string& spec, FilterSpec* out);
// The spec back in the same words (round-trips through parse_filter).
std::string filter_text(const FilterSpec& f);

// The mask of these filters for a width x height transform, over the half spectrum's bins (height rows of
// width/2 + 1), on `threads` threads; empty filters give an empty mask (all-pass).
std::vector<float> half_mask(const std::vector<FilterSpec>& filters, int width, int height, int threads);

}  // namespace specview
