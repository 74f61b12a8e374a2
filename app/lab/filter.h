// The frequency lab's masks: the filters of app/core/filter_spec.h (their formulas gpu/common/mask_math.h's; several
// filters multiply) and freehand brush dabs (mirrored, so the filtered image stays real) made into a mask over the
// half spectrum's bins on the host threads, and the whole mask's inversion. The GPU backends make the same mask on
// the device from the same description (gpu/lab/lab.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "app/core/filter_spec.h"

namespace specview {

// The mask of these filters for a width x height transform, over the half spectrum's bins (height rows of
// width/2 + 1), on `threads` threads; empty filters give an empty mask (all-pass).
std::vector<float> half_mask(const std::vector<FilterSpec>& filters, int width, int height, int threads);

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

}  // namespace specview
