// The colour bar: the colormap from the range's low to high end, with its values.
#pragma once

#include <imgui.h>

#include "gpu/common/spectrum_math.h"

namespace specview::ui {

void draw_colorbar(Colormap cm, float lo, float hi, const char* unit, float width, float height);
// The unit a view's values are in, for labels.
const char* view_unit(View v);

}  // namespace specview::ui
