// The frequency lab: filters on the spectrum (low/high-pass, band-pass/stop rings, notches with their twins),
// edited live, with the cut-offs in cycles/pixel and in cycles per image; what the third view shows.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/filter.h"
#include "ui/panels/panel.h"

namespace specview::ui {

namespace {
const char* kKinds[] = {"low-pass", "high-pass", "band-pass", "band-stop", "notch"};
const char* kEdges[] = {"ideal", "Gaussian", "Butterworth"};

// A radius slider in cycles/pixel, typed or dragged, with what it is in cycles per image along each axis.
bool radius(const char* label, double* r, int w, int h) {
    float v = float(*r);
    bool changed = ImGui::SliderFloat(label, &v, 0.001f, 0.7071f, "%.4f c/px", ImGuiSliderFlags_Logarithmic);
    if (changed) *r = std::clamp(double(v), 1e-4, std::sqrt(0.5));
    if (w > 0 && h > 0) {
        ImGui::SameLine();
        ImGui::TextDisabled("= %.1f x %.1f c/img", *r * w, *r * h);
    }
    return changed;
}

// Edits a filter in place; true when it changed. The values stay valid (parse_filter's rules).
bool edit(FilterSpec& f, int w, int h) {
    bool changed = false;
    int kind = int(f.kind), edge = int(f.edge);
    changed |= ImGui::Combo("Kind", &kind, kKinds, 5);
    changed |= ImGui::Combo("Edge", &edge, kEdges, 3);
    f.kind = FilterKind(kind);
    f.edge = FilterEdge(edge);
    if (f.edge == FilterEdge::Butterworth) {
        changed |= ImGui::SliderInt("Order N", &f.order, 1, 16);
        f.order = std::clamp(f.order, 1, 64);
    }
    switch (f.kind) {
        case FilterKind::LowPass:
        case FilterKind::HighPass: changed |= radius("R", &f.r, w, h); break;
        case FilterKind::BandPass:
        case FilterKind::BandStop:
            changed |= radius("R1", &f.r1, w, h);
            changed |= radius("R2", &f.r2, w, h);
            if (f.r1 >= f.r2) f.r2 = std::min(std::sqrt(0.5), f.r1 * 1.25 + 1e-4);
            if (f.r1 >= f.r2) f.r1 = f.r2 * 0.8;
            break;
        case FilterKind::Notch: {
            float uv[2] = {float(f.u), float(f.v)};
            if (ImGui::SliderFloat2("Centre U, V", uv, -0.5f, 0.5f, "%.4f c/px")) {
                f.u = std::clamp(double(uv[0]), -0.5, 0.5);
                f.v = std::clamp(double(uv[1]), -0.5, 0.5);
                changed = true;
            }
            if (w > 0 && h > 0) ImGui::TextDisabled("centre = bin (%+.1f, %+.1f); twin at (%+.1f, %+.1f)", f.u * w, f.v * h, -f.u * w, -f.v * h);
            changed |= radius("R", &f.r, w, h);
            break;
        }
    }
    return changed;
}
}  // namespace

void draw_lab_panel(PanelContext& ctx, LabUi& lab) {
    ctx.layout.push_back("panel Lab");
    if (!ImGui::CollapsingHeader("Frequency lab")) return;
    Settings& s = ctx.settings;
    int w = 0, h = 0;
    if (ctx.has_image()) ctx.picture_dims(s, &w, &h);
    if (lab.selected >= int(s.filters.size())) lab.selected = -1;

    // The filters in force (they multiply); one can be picked and edited live.
    if (s.filters.empty()) ImGui::TextDisabled("No filters: the spectrum as it is.");
    for (int i = 0; i < int(s.filters.size()); ++i) {
        ImGui::PushID(i);
        if (ImGui::Selectable(filter_text(s.filters[std::size_t(i)]).c_str(), lab.selected == i, 0,
                              ImVec2(ImGui::GetContentRegionAvail().x - 30, 0)))
            lab.selected = lab.selected == i ? -1 : i;
        ImGui::SameLine();
        if (ImGui::SmallButton("x")) {
            s.filters.erase(s.filters.begin() + i);
            if (lab.selected == i) lab.selected = -1;
            ctx.dirty = true;
            ImGui::PopID();
            break;
        }
        ImGui::PopID();
    }
    if (lab.selected >= 0) {
        ImGui::Separator();
        ImGui::TextUnformatted("Editing (live):");
        if (edit(s.filters[std::size_t(lab.selected)], w, h)) ctx.dirty = true;
    } else {
        ImGui::Separator();
        ImGui::TextUnformatted("New filter:");
        edit(lab.draft, w, h);
        if (ImGui::Button("Add filter")) {
            FilterSpec checked;
            const std::string err = parse_filter(filter_text(lab.draft), &checked);
            if (!err.empty()) ctx.messages.error(err);
            else if (s.filters.size() >= std::size_t(kMaxFilters)) ctx.messages.error("at most 32 filters");
            else {
                s.filters.push_back(checked);
                lab.selected = int(s.filters.size()) - 1;
                ctx.dirty = true;
            }
        }
    }
    if (!s.filters.empty()) {
        ImGui::SameLine();
        if (ImGui::Button("Clear all")) {
            s.filters.clear();
            lab.selected = -1;
            ctx.dirty = true;
        }
        int view = int(s.lab_view);
        if (ImGui::Combo("Third view", &view, "filtered image\0removed part (original - filtered)\0difference heat map\0")) {
            s.lab_view = LabView(view);
            ctx.dirty = true;
        }
        ImGui::TextDisabled("shown: %.4g .. %.4g (%s)", lab.shown_lo, lab.shown_hi,
                            s.lab_view == LabView::Difference ? "inferno from 0" : "gray, min..max");
    }
}

}  // namespace specview::ui
