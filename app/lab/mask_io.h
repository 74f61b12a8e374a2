// The frequency lab's masks in files: a gray PNG to look at (or use elsewhere) and the text description that
// loads back exactly (app/lab/filter.h's mask_text).
#pragma once

#include <string>
#include <vector>

#include "gpu/common/mask_math.h"

namespace specview {

// Writes the mask as a gray PNG (mask_picture) and its description next to it (the same name with .txt), each
// complete or not at all. Throws std::runtime_error naming the path.
void save_mask(const std::string& png_path, const std::vector<FilterSpec>& filters,
               const std::vector<BrushStroke>& strokes, bool invert, int width, int height, int threads = 0);
std::string mask_description_path(const std::string& png_path);
// Reads a mask description (a .png names the description saved next to it). Returns "" or what is wrong.
std::string load_mask(const std::string& path, std::vector<FilterSpec>* filters, std::vector<BrushStroke>* strokes,
                      bool* invert);

}  // namespace specview
