// Display: view, range, colormap (with its colour bar), shift, presentation mode.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdio>

#include "ui/views/colorbar.h"
#include "ui/panels/panel.h"

namespace specview::ui {

std::string set_calibration(Calibration& c, const std::string& text) {
    if (text.empty() || text == "none") {
        c.pixel_size = PixelSize{};
        c.text.clear();
        return "";
    }
    PixelSize px;
    if (std::string err = parse_pixel_size(text, &px); !err.empty()) return err;
    c.pixel_size = px;
    c.text = text;
    return "";
}

void draw_display_panel(PanelContext& ctx, bool& presentation, const Classroom& classroom, Calibration& calibration) {
    ctx.layout.push_back("panel Display");
    if (!ImGui::CollapsingHeader("Display", ImGuiTreeNodeFlags_DefaultOpen)) return;
    ViewParams& v = ctx.settings.view;
    bool changed = false;
    auto combo = [&](const char* label, int& value, const std::vector<std::string>& names) {
        if (ImGui::BeginCombo(label, names[std::size_t(value)].c_str())) {
            for (std::size_t i = 0; i < names.size(); ++i)
                if (ImGui::Selectable(names[i].c_str(), std::size_t(value) == i)) {
                    changed |= value != int(i);
                    value = int(i);
                }
            ImGui::EndCombo();
        }
    };
    int view = int(v.view), range = int(v.range), cmap = int(v.colormap);
    combo("View", view, view_names());
    combo("Range", range, range_names());
    combo("Colormap", cmap, colormap_names());
    v.view = View(view);
    v.range = RangeMode(range);
    v.colormap = Colormap(cmap);
    switch (v.range) {
        case RangeMode::Percentile: {
            float p[2] = {v.pct_lo, v.pct_hi};
            if (ImGui::DragFloat2("Percentiles", p, 0.1f, 0.0f, 100.0f, "%.1f") && p[0] < p[1]) {
                v.pct_lo = p[0];
                v.pct_hi = p[1];
                changed = true;
            }
            break;
        }
        case RangeMode::Fixed: {
            float r[2] = {v.fixed_lo, v.fixed_hi};
            if (ImGui::DragFloat2("Low, high", r, 0.1f) && r[0] < r[1]) {
                v.fixed_lo = r[0];
                v.fixed_hi = r[1];
                changed = true;
            }
            break;
        }
        case RangeMode::Top:
            changed |= ImGui::DragFloat("Span below peak", &v.top_span, 0.5f, 0.1f, 400.0f);
            break;
        case RangeMode::Auto:
            break;
    }
    if (!classroom.enabled) changed |= ImGui::Checkbox("Shift (DC in the centre)", &v.shift);
    // The range these settings gave: in volume mode the volume spectrum's views' (not frame 1's 2D spectrum, which
    // is not shown then), else the picture's.
    const VolumeResult* vol = ctx.volume_shown;
    const bool volume_range = vol && vol->ok && vol->spectrum[0] && vol->view.step < 0;
    if (volume_range || ctx.shown.have_frame) {
        const float lo = volume_range ? vol->spectrum[0]->lo : ctx.shown.frame.range_lo;
        const float hi = volume_range ? vol->spectrum[0]->hi : ctx.shown.frame.range_hi;
        draw_colorbar(v.colormap, lo, hi, view_unit(v.view), ImGui::GetContentRegionAvail().x,
                      ImGui::GetFrameHeight());
        if (volume_range) ImGui::TextDisabled("(the range of the volume's spectrum views)");
        char l[128];
        std::snprintf(l, sizeof l, "display-colorbar %.6g %.6g %s", lo, hi, volume_range ? "volume" : "picture");
        ctx.layout.push_back(l);
    }
    // The pixel size: typed (Enter applies; empty goes back to what the file says), over the file's own.
    std::string typed = calibration.text;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
    if (ImGui::InputTextWithHint("Pixel size", "e.g. 0.5nm", &typed, ImGuiInputTextFlags_EnterReturnsTrue)) {
        if (const std::string err = set_calibration(calibration, typed); !err.empty()) ctx.messages.error(err);
    } else if (!ImGui::IsItemActive()) {
        typed = calibration.text;
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("VALUE[UNIT], UNIT one of pm, A, nm, um, mm, cm, m, in; Enter applies; empty: the file's own");
    const PixelSize file_px = ctx.has_image() ? ctx.shown.image->pixel_size : PixelSize{};
    ImGui::SameLine();
    if (calibration.pixel_size.calibrated())
        ImGui::TextDisabled("(%.4g %s a pixel)", calibration.pixel_size.value, calibration.pixel_size.unit.c_str());
    else if (file_px.calibrated())
        ImGui::TextDisabled("(the file's: %.4g %s)", file_px.value, file_px.unit.c_str());
    else
        ImGui::TextDisabled("(pixels)");
    ImGui::Checkbox("Presentation (large, high contrast)", &presentation);
    if (changed) ctx.dirty = true;
}

}  // namespace specview::ui
