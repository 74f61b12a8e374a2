// A small 2D plot drawn with ImGui's draw list (ImGui 1.86 has no plots with axes): linear or log axes with
// ticks, lines through the data, extra straight lines (a fitted power law) and vertical markers, wheel zoom
// around the cursor (x; with Shift, y), drag to pan, double-click to fit the data again, and a hover readout.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

namespace specview::ui {

struct PlotAxes {
    bool log_x = false, log_y = false;
    bool fit = true;                        // fit the view to the data on the next draw
    double x0 = 0, x1 = 1, y0 = 0, y1 = 1;  // the visible range, in data units
};

struct PlotSeries {
    const std::vector<double>* x = nullptr;
    const std::vector<double>* y = nullptr;
    ImU32 colour = IM_COL32(90, 200, 255, 255);
};

struct PlotSegment {  // a straight line between two data points (straight on the plot's own axes)
    double xa = 0, ya = 0, xb = 0, yb = 0;
    ImU32 colour = IM_COL32(255, 200, 60, 255);
};

struct PlotMarker {  // a vertical line at x, with a label at the top
    double x = 0;
    ImU32 colour = IM_COL32(255, 120, 120, 220);
    std::string label;
};

// Draws the plot in `size`; returns the index of the point of series 0 under the cursor (-1: none), whose
// values the caller may show (the plot also draws them at its top right).
int draw_plot(const char* id, ImVec2 size, PlotAxes& axes, const std::vector<PlotSeries>& series,
              const std::vector<PlotSegment>& segments, const std::vector<PlotMarker>& markers, const char* x_label,
              const char* y_label);

}  // namespace specview::ui
