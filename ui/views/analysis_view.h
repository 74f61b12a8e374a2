// The analysis plots under the views: what the viewer asks the worker to measure for the picture shown, and the
// strip that shows it (radial PSD with its power-law fit, angular profile with the dominant direction, the line
// profile, the log-phi view, the phase correlation's heat map with its peak).
#pragma once

#include <imgui.h>

#include "ui/viewer_state.h"

namespace specview::ui {

// Asks the worker for the shown frame's measurements when the plots are open and something changed.
void request_analysis(ViewerState& st);
// Takes the worker's results (the log-phi picture and the heat map go into textures).
void take_analysis(ViewerState& st, AnalysisResult& r);
void take_correlation(ViewerState& st, CorrelationResult& r);
void take_stack(ViewerState& st, StackResult& r);
// Draws the strip in `size` (records what it drew in st.layout for the GUI tests).
void draw_analysis_strip(ViewerState& st, ImVec2 size);

}  // namespace specview::ui
