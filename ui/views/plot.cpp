#include "ui/views/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace specview::ui {

namespace {
// The axis transform: data -> plot units (log10 on a log axis); NaN for what a log axis cannot show.
double fwd(double v, bool log) { return log ? (v > 0 ? std::log10(v) : std::numeric_limits<double>::quiet_NaN()) : v; }
double inv(double t, bool log) { return log ? std::pow(10.0, t) : t; }

// Tick positions (plot units) for [a, b]: decades on a log axis, 1-2-5 steps on a linear one.
std::vector<double> ticks(double a, double b, bool log) {
    std::vector<double> t;
    if (!(b > a)) return t;
    if (log) {
        const double step = std::max(1.0, std::ceil((b - a) / 6.0));
        for (double k = std::ceil(a / step) * step; k <= b + 1e-9; k += step) t.push_back(k);
        return t;
    }
    const double raw = (b - a) / 5.0, mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    for (double k = std::ceil(a / step) * step; k <= b + 1e-9 * step; k += step)
        t.push_back(std::abs(k) < 1e-12 * step ? 0.0 : k);
    return t;
}

std::string label(double t, bool log) {
    char buf[32];
    if (log)
        std::snprintf(buf, sizeof buf, "1e%d", int(std::lround(t)));
    else
        std::snprintf(buf, sizeof buf, "%.4g", t);
    return buf;
}
}  // namespace

int draw_plot(const char* id, ImVec2 size, PlotAxes& ax, const std::vector<PlotSeries>& series,
              const std::vector<PlotSegment>& segments, const std::vector<PlotMarker>& markers, const char* x_label,
              const char* y_label) {
    ImGui::PushID(id);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    size.x = std::max(size.x, 80.0f);
    size.y = std::max(size.y, 60.0f);
    ImGui::InvisibleButton("##plot", size);
    const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fh = ImGui::GetFontSize();
    // The frame: room for y tick labels on the left and x tick labels and the axis name below.
    const ImVec2 p0(origin.x + 4.2f * fh, origin.y + 0.4f * fh),
        p1(origin.x + size.x - 0.6f * fh, origin.y + size.y - 2.4f * fh);
    dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(24, 24, 28, 255));
    dl->AddRect(p0, p1, IM_COL32(110, 110, 120, 255));

    // Fit to the data (series 0 and the rest) when asked.
    if (ax.fit) {
        double xa = std::numeric_limits<double>::infinity(), xb = -xa, ya = xa, yb = -xa;
        for (const PlotSeries& s : series) {
            if (!s.x || !s.y) continue;
            for (std::size_t i = 0; i < std::min(s.x->size(), s.y->size()); ++i) {
                const double x = fwd((*s.x)[i], ax.log_x), y = fwd((*s.y)[i], ax.log_y);
                if (!std::isfinite(x) || !std::isfinite(y)) continue;
                xa = std::min(xa, x), xb = std::max(xb, x), ya = std::min(ya, y), yb = std::max(yb, y);
            }
        }
        if (xb >= xa && yb >= ya) {
            const double px = xb > xa ? 0.02 * (xb - xa) : 0.5, py = yb > ya ? 0.05 * (yb - ya) : 0.5;
            ax.x0 = inv(xa - px, ax.log_x), ax.x1 = inv(xb + px, ax.log_x), ax.y0 = inv(ya - py, ax.log_y),
            ax.y1 = inv(yb + py, ax.log_y);
            ax.fit = false;
        }
    }
    double tx0 = fwd(ax.x0, ax.log_x), tx1 = fwd(ax.x1, ax.log_x), ty0 = fwd(ax.y0, ax.log_y),
           ty1 = fwd(ax.y1, ax.log_y);
    if (!(tx1 > tx0) || !std::isfinite(tx0) || !std::isfinite(tx1)) tx0 = 0, tx1 = 1;
    if (!(ty1 > ty0) || !std::isfinite(ty0) || !std::isfinite(ty1)) ty0 = 0, ty1 = 1;
    const ImGuiIO& io = ImGui::GetIO();
    auto sx = [&](double t) { return float(p0.x + (t - tx0) / (tx1 - tx0) * (p1.x - p0.x)); };
    auto sy = [&](double t) { return float(p1.y - (t - ty0) / (ty1 - ty0) * (p1.y - p0.y)); };
    // Interaction: wheel zooms around the cursor, drag pans, double-click fits.
    if (hovered && io.MouseWheel != 0.0f) {
        const double k = std::pow(0.85, double(io.MouseWheel));
        if (io.KeyShift) {
            const double c = ty0 + (p1.y - io.MousePos.y) / (p1.y - p0.y) * (ty1 - ty0);
            ty0 = c + (ty0 - c) * k, ty1 = c + (ty1 - c) * k;
        } else {
            const double c = tx0 + (io.MousePos.x - p0.x) / (p1.x - p0.x) * (tx1 - tx0);
            tx0 = c + (tx0 - c) * k, tx1 = c + (tx1 - c) * k;
        }
    }
    if (active && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f)) {
        const double dx = io.MouseDelta.x / (p1.x - p0.x) * (tx1 - tx0),
                     dy = io.MouseDelta.y / (p1.y - p0.y) * (ty1 - ty0);
        tx0 -= dx, tx1 -= dx, ty0 += dy, ty1 += dy;
    }
    if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) ax.fit = true;
    ax.x0 = inv(tx0, ax.log_x), ax.x1 = inv(tx1, ax.log_x), ax.y0 = inv(ty0, ax.log_y), ax.y1 = inv(ty1, ax.log_y);

    // Ticks and grid.
    const ImU32 grid = IM_COL32(60, 60, 68, 255), text = IM_COL32(200, 200, 205, 255);
    for (double t : ticks(tx0, tx1, ax.log_x)) {
        const float x = sx(t);
        dl->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), grid);
        const std::string s = label(t, ax.log_x);
        dl->AddText(ImVec2(x - ImGui::CalcTextSize(s.c_str()).x / 2, p1.y + 0.15f * fh), text, s.c_str());
    }
    for (double t : ticks(ty0, ty1, ax.log_y)) {
        const float y = sy(t);
        dl->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), grid);
        const std::string s = label(t, ax.log_y);
        dl->AddText(ImVec2(p0.x - ImGui::CalcTextSize(s.c_str()).x - 0.3f * fh, y - fh / 2), text, s.c_str());
    }
    dl->AddText(ImVec2((p0.x + p1.x) / 2 - ImGui::CalcTextSize(x_label).x / 2, p1.y + 1.2f * fh), text, x_label);
    dl->AddText(ImVec2(origin.x + 0.2f * fh, origin.y + 0.2f * fh), text, y_label);

    dl->PushClipRect(p0, p1, true);
    for (const PlotSeries& s : series) {
        if (!s.x || !s.y) continue;
        std::vector<ImVec2> pts;
        for (std::size_t i = 0; i < std::min(s.x->size(), s.y->size()); ++i) {
            const double x = fwd((*s.x)[i], ax.log_x), y = fwd((*s.y)[i], ax.log_y);
            if (!std::isfinite(x) || !std::isfinite(y)) continue;
            pts.emplace_back(sx(x), sy(y));
        }
        if (pts.size() > 1)
            dl->AddPolyline(pts.data(), int(pts.size()), s.colour, 0, 1.3f);
        else if (pts.size() == 1)
            dl->AddCircleFilled(pts[0], 2.0f, s.colour);
    }
    for (const PlotSegment& g : segments) {
        const double xa = fwd(g.xa, ax.log_x), ya = fwd(g.ya, ax.log_y), xb = fwd(g.xb, ax.log_x),
                     yb = fwd(g.yb, ax.log_y);
        if (std::isfinite(xa) && std::isfinite(ya) && std::isfinite(xb) && std::isfinite(yb))
            dl->AddLine(ImVec2(sx(xa), sy(ya)), ImVec2(sx(xb), sy(yb)), g.colour, 2.0f);
    }
    for (const PlotMarker& m : markers) {
        const double x = fwd(m.x, ax.log_x);
        if (!std::isfinite(x)) continue;
        dl->AddLine(ImVec2(sx(x), p0.y), ImVec2(sx(x), p1.y), m.colour, 1.5f);
        if (!m.label.empty()) dl->AddText(ImVec2(sx(x) + 0.2f * fh, p0.y + 0.1f * fh), m.colour, m.label.c_str());
    }
    // Hover: the nearest point of series 0 along x.
    int hit = -1;
    if (hovered && !series.empty() && series[0].x && series[0].y && io.MousePos.x >= p0.x && io.MousePos.x <= p1.x) {
        const PlotSeries& s = series[0];
        float best = 1e30f;
        for (std::size_t i = 0; i < std::min(s.x->size(), s.y->size()); ++i) {
            const double x = fwd((*s.x)[i], ax.log_x), y = fwd((*s.y)[i], ax.log_y);
            if (!std::isfinite(x) || !std::isfinite(y)) continue;
            const float d = std::abs(sx(x) - io.MousePos.x);
            if (d < best) best = d, hit = int(i);
        }
        if (hit >= 0) {
            const ImVec2 p(sx(fwd((*s.x)[std::size_t(hit)], ax.log_x)), sy(fwd((*s.y)[std::size_t(hit)], ax.log_y)));
            dl->AddCircle(p, 4.0f, IM_COL32(255, 255, 255, 255));
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.5g, %.5g", (*s.x)[std::size_t(hit)], (*s.y)[std::size_t(hit)]);
            dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize(buf).x - 0.3f * fh, p0.y + 0.1f * fh),
                        IM_COL32(255, 255, 255, 255), buf);
        }
    }
    dl->PopClipRect();
    ImGui::PopID();
    return hit;
}

}  // namespace specview::ui
