#include "ui/views/axes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace specview::ui {

namespace {

constexpr ImU32 kTick = IM_COL32(230, 230, 230, 220);
constexpr ImU32 kShadow = IM_COL32(0, 0, 0, 170);

// The tick step for `per_value` screen pixels a unit: the smallest of 1, 2, 5 times a power of ten that leaves at
// least 70 pixels between ticks.
double tick_step(double per_value) {
    const double want = 70.0 / std::max(1e-12, std::abs(per_value));
    double step = std::pow(10.0, std::floor(std::log10(want)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (step * m >= want) return step * m;
    return step * 10.0;
}

void text_with_shadow(ImDrawList* dl, ImVec2 at, const char* s) {
    dl->AddText(ImVec2(at.x + 1, at.y + 1), kShadow, s);
    dl->AddText(at, kTick, s);
}

// Ticks along one edge of the texture where it is on screen (its visible part: the texture clipped to the view),
// horizontal (along its bottom) or vertical (along its left side).
void axis(ImDrawList* dl, const DrawnImage& d, bool horizontal, AxisMap m, double scale, const char* unit,
          const char* name, std::vector<std::string>& layout) {
    const ImVec2 v0(std::max(d.p0.x, d.clip0.x), std::max(d.p0.y, d.clip0.y));
    const ImVec2 v1(std::min(d.p1.x, d.clip1.x), std::min(d.p1.y, d.clip1.y));
    if (v1.x - v0.x < 20 || v1.y - v0.y < 20) return;
    const float a0 = horizontal ? v0.x : v0.y, a1 = horizontal ? v1.x : v1.y;
    const double lo = (a0 - m.origin) / m.per_value, hi = (a1 - m.origin) / m.per_value;
    const double step = tick_step(m.per_value / scale);  // (in the label's units: per_value / scale pixels each)
    const double vlo = std::min(lo, hi) * scale, vhi = std::max(lo, hi) * scale;
    const float fh = ImGui::GetFontSize();
    int drawn = 0;
    for (double v = std::ceil(vlo / step) * step; v <= vhi && drawn < 64; v += step, ++drawn) {
        const double value = std::abs(v) < step * 1e-6 ? 0.0 : v;
        const float s = float(m.origin + value / scale * m.per_value);
        char label[32];
        std::snprintf(label, sizeof label, "%g", value);
        if (horizontal) {
            // A label kept inside the view (the edge ticks' labels would be cut in half).
            const float lw = ImGui::CalcTextSize(label).x;
            dl->AddLine(ImVec2(s, v1.y - 6), ImVec2(s, v1.y), kTick, 1.5f);
            text_with_shadow(dl, ImVec2(std::clamp(s - lw / 2, v0.x + 2, std::max(v0.x + 2, v1.x - lw - 2)), v1.y - 6 - fh),
                             label);
        } else {
            dl->AddLine(ImVec2(v0.x, s), ImVec2(v0.x + 6, s), kTick, 1.5f);
            // No label where the horizontal axis's labels are (the bottom) or the unit is (the top).
            if (s < v1.y - 2.2f * fh && s > v0.y + 1.6f * fh) text_with_shadow(dl, ImVec2(v0.x + 8, s - fh / 2), label);
        }
        char line[96];
        std::snprintf(line, sizeof line, "axis %s %.9g %.2f", name, value, s);
        layout.push_back(line);
    }
    // The unit, once: above the horizontal axis's right end, or at the top of the vertical one.
    const ImVec2 at =
        horizontal ? ImVec2(v1.x - ImGui::CalcTextSize(unit).x - 40, v1.y - 6 - 2 * fh) : ImVec2(v0.x + 8, v0.y + 2);
    text_with_shadow(dl, at, unit);
}

}  // namespace

void draw_spectrum_axes(const DrawnImage& d, int w, int h, bool shifted, const PixelSize& px,
                        std::vector<std::string>& layout) {
    if (!shifted || w < 2 || h < 2 || d.p1.x <= d.p0.x) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(d.clip0, d.clip1, true);
    const float sx = (d.p1.x - d.p0.x) / float(w), sy = (d.p1.y - d.p0.y) / float(h);
    // Bin k (cycles per w) lies at texel k + w/2; u = k / w cycles/pixel: u = 0 at the DC texel's centre.
    const AxisMap mu{d.p0.x + (float(w / 2) + 0.5f) * sx, sx * float(w)};
    const AxisMap mv{d.p0.y + (float(h / 2) + 0.5f) * sy, sy * float(h)};
    const bool cal = px.calibrated();
    const std::string unit = cal ? "cycles/" + px.unit : "cycles/pixel";
    axis(dl, d, true, mu, cal ? 1.0 / px.value : 1.0, unit.c_str(), "spectrum-u", layout);
    axis(dl, d, false, mv, cal ? 1.0 / px.value : 1.0, "v", "spectrum-v", layout);
    dl->PopClipRect();
}

void draw_image_axes(const DrawnImage& d, int w, int h, const PixelSize& px, std::vector<std::string>& layout) {
    if (w < 1 || h < 1 || d.p1.x <= d.p0.x) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(d.clip0, d.clip1, true);
    const float sx = (d.p1.x - d.p0.x) / float(w), sy = (d.p1.y - d.p0.y) / float(h);
    const bool cal = px.calibrated();
    const std::string unit = cal ? px.unit : "px";
    axis(dl, d, true, AxisMap{d.p0.x, sx}, cal ? px.value : 1.0, unit.c_str(), "image-x", layout);
    axis(dl, d, false, AxisMap{d.p0.y, sy}, cal ? px.value : 1.0, "", "image-y", layout);
    dl->PopClipRect();
}

void draw_view_colorbar(const DrawnImage& d, Colormap cm, float lo, float hi, const char* unit,
                        std::vector<std::string>& layout) {
    const ColormapLut lut = make_colormap_lut(cm);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fh = ImGui::GetFontSize();
    const float x1 = d.clip1.x - 6, x0 = x1 - 12, y0 = d.clip0.y + 2 * fh, y1 = d.clip1.y - 4 * fh;
    if (y1 - y0 < 40) return;
    const float step = (y1 - y0) / 256.0f;
    for (int i = 0; i < 256; ++i)  // low at the bottom
        dl->AddRectFilled(ImVec2(x0, y1 - (i + 1) * step - 0.5f), ImVec2(x1, y1 - i * step), lut.rgba[i]);
    dl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), IM_COL32(160, 160, 160, 255));
    char a[48], b[48];
    std::snprintf(a, sizeof a, "%.3g", lo);
    std::snprintf(b, sizeof b, "%.3g %s", hi, unit);
    text_with_shadow(dl, ImVec2(x1 - ImGui::CalcTextSize(b).x, y0 - fh - 2), b);
    text_with_shadow(dl, ImVec2(x1 - ImGui::CalcTextSize(a).x, y1 + 2), a);
    char line[128];
    std::snprintf(line, sizeof line, "colorbar %.6g %.6g %s", lo, hi, name_of(cm).c_str());
    layout.push_back(line);
}

}  // namespace specview::ui
