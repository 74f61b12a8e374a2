#include "ui/views/colorbar.h"

#include <cstdio>

namespace specview::ui {

const char* view_unit(View v) {
    switch (v) {
        case View::LogMag:
            return "log(1+|F|)";
        case View::PowerDb:
            return "dB";
        case View::Phase:
            return "rad";
        case View::Real:
            return "Re F";
        case View::Imag:
            return "Im F";
    }
    return "";
}

void draw_colorbar(Colormap cm, float lo, float hi, const char* unit, float width, float height) {
    const ColormapLut lut = make_colormap_lut(cm);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float step = width / 256.0f;
    for (int i = 0; i < 256; ++i) {
        const std::uint32_t c = lut.rgba[i];  // RGBA bytes, the layout ImU32 uses too
        dl->AddRectFilled(ImVec2(p.x + i * step, p.y), ImVec2(p.x + (i + 1) * step + 0.5f, p.y + height), c);
    }
    dl->AddRect(p, ImVec2(p.x + width, p.y + height), IM_COL32(128, 128, 128, 255));
    ImGui::Dummy(ImVec2(width, height));
    char a[48], b[48], m[48];
    std::snprintf(a, sizeof a, "%.3g", lo);
    std::snprintf(m, sizeof m, "%.3g", 0.5f * (lo + hi));
    std::snprintf(b, sizeof b, "%.3g %s", hi, unit);
    const float x0 = ImGui::GetCursorPosX();
    ImGui::TextUnformatted(a);
    ImGui::SameLine(x0 + width / 2 - ImGui::CalcTextSize(m).x / 2);
    ImGui::TextUnformatted(m);
    ImGui::SameLine(x0 + width - ImGui::CalcTextSize(b).x);
    ImGui::TextUnformatted(b);
}

}  // namespace specview::ui
