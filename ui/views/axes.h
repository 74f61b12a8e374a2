// Axes drawn over a view's edges: ticks and labels along the bottom and the left, in the view's units — the image in
// pixels (or the calibrated unit), the spectrum in cycles/pixel (or cycles per unit), DC at 0 — and a colour bar on the
// spectrum view's right edge with the range's values. The positions follow the view's zoom and pan.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "app/core/calibration.h"
#include "app/core/settings.h"
#include "gpu/common/spectrum_math.h"
#include "ui/views/image_view.h"

namespace specview::ui {

// One axis: screen x (or y) = origin + value * per_value, where origin is value 0's place; ticks at round values
// between lo and hi (the visible ones), labels `scale` times the value.
struct AxisMap {
    float origin = 0, per_value = 1;  // screen pixels
};

// The spectrum view's axes for a texture of w x h bins (shifted: DC at w/2, h/2; unshifted: nothing drawn), and the
// image view's for an image of w x h pixels. `px`: calibrated, the labels in its unit. Each tick drawn goes to
// `layout` as "axis NAME VALUE SCREEN" (NAME: spectrum-u, spectrum-v, image-x, image-y) for the GUI tests.
void draw_spectrum_axes(const DrawnImage& d, int w, int h, bool shifted, const PixelSize& px,
                        std::vector<std::string>& layout);
void draw_image_axes(const DrawnImage& d, int w, int h, const PixelSize& px, std::vector<std::string>& layout);
// The colour bar on the view's right edge, low at the bottom, with the range's ends and unit.
void draw_view_colorbar(const DrawnImage& d, Colormap cm, float lo, float hi, const char* unit,
                        std::vector<std::string>& layout);

}  // namespace specview::ui
