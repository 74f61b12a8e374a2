// The frequency lab: filters on the spectrum (low/high-pass, band-pass/stop rings, notches with their twins,
// wedges and stripes), edited live, with the cut-offs in cycles/pixel and in cycles per image; the freehand
// brush; inverting, saving and loading the mask; what the third view shows.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "app/lab/filter.h"
#include "app/lab/mask_io.h"
#include "ui/panels/panel.h"

namespace specview::ui {

namespace {
const char* kKinds[] = {"low-pass", "high-pass", "band-pass", "band-stop", "notch", "wedge", "stripe"};
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
    changed |= ImGui::Combo("Kind", &kind, kKinds, 7);
    changed |= ImGui::Combo("Edge", &edge, kEdges, 3);
    f.kind = FilterKind(kind);
    f.edge = FilterEdge(edge);
    if (f.edge == FilterEdge::Butterworth) {
        changed |= ImGui::SliderInt("Order N", &f.order, 1, 16);
        f.order = std::clamp(f.order, 1, 64);
    }
    switch (f.kind) {
        case FilterKind::LowPass:
        case FilterKind::HighPass:
            changed |= radius("R", &f.r, w, h);
            break;
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
            if (w > 0 && h > 0)
                ImGui::TextDisabled("centre = bin (%+.1f, %+.1f); twin at (%+.1f, %+.1f)", f.u * w, f.v * h, -f.u * w,
                                    -f.v * h);
            changed |= radius("R", &f.r, w, h);
            break;
        }
        case FilterKind::Wedge:
        case FilterKind::Stripe: {
            float a = float(f.angle);
            if (ImGui::SliderFloat("Direction", &a, 0.0f, 180.0f, "%.1f deg")) {
                f.angle = a;
                changed = true;
            }
            ImGui::SameLine();
            ImGui::TextDisabled("(?)");
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip(
                    "Counter-clockwise from +u, up positive. Horizontal scan lines in the image make a\n"
                    "vertical line in the spectrum: direction 90.");
            if (f.kind == FilterKind::Wedge) {
                float half = float(f.r);
                if (ImGui::SliderFloat("Half-width", &half, 0.1f, 90.0f, "%.1f deg")) {
                    f.r = std::clamp(double(half), 0.01, 90.0);
                    changed = true;
                }
            } else {
                if (!(f.r > 0 && f.r <= 1)) f.r = 0.01;
                float width = float(f.r);
                if (ImGui::SliderFloat("Width", &width, 0.0005f, 0.2f, "%.4f c/px", ImGuiSliderFlags_Logarithmic)) {
                    f.r = std::clamp(double(width), 1e-5, 1.0);
                    changed = true;
                }
                if (w > 0 && h > 0) {
                    ImGui::SameLine();
                    ImGui::TextDisabled("= %.1f bins", f.r * std::max(w, h));
                }
            }
            float rmin = float(f.r1);
            if (ImGui::SliderFloat("Kept radius", &rmin, 0.0f, 0.2f, "%.4f c/px")) {
                f.r1 = std::clamp(double(rmin), 0.0, std::sqrt(0.5));
                changed = true;
            }
            break;
        }
    }
    return changed;
}

void brush_section(PanelContext& ctx, LabUi& lab) {
    Settings& s = ctx.settings;
    ImGui::Separator();
    ImGui::TextUnformatted("Brush on the spectrum (mirrored to -u, -v):");
    ImGui::RadioButton("off (drag pans)", &lab.brush, 0);
    ImGui::SameLine();
    ImGui::RadioButton("paint: remove", &lab.brush, 1);
    ImGui::SameLine();
    ImGui::RadioButton("erase: restore", &lab.brush, 2);
    ImGui::SameLine();
    ImGui::RadioButton("line", &lab.brush, 3);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Drag on the spectrum to draw the line of the Analysis line profile.");
    ImGui::SliderFloat("Brush radius", &lab.brush_radius, 0.5f, 512.0f, "%.1f bins", ImGuiSliderFlags_Logarithmic);
    if (lab.brush)
        ImGui::TextDisabled("Drag on the spectrum to %s; the right button pans.", lab.brush == 1 ? "paint"
                                                                                  : lab.brush == 2
                                                                                      ? "erase"
                                                                                      : "draw the profile's line");
    ImGui::Text("%zu brush dab%s", s.strokes.size(), s.strokes.size() == 1 ? "" : "s");
    if (!s.strokes.empty()) {
        ImGui::SameLine();
        if (ImGui::SmallButton("Undo dab")) {
            s.strokes.pop_back();
            ctx.dirty = true;
        }
        ImGui::SameLine();
        if (ImGui::SmallButton("Clear brush")) {
            s.strokes.clear();
            ctx.dirty = true;
        }
    }
    if (ImGui::Checkbox("Invert the mask (keep what it removes)", &s.mask_invert)) ctx.dirty = true;
    char path[512];
    std::snprintf(path, sizeof path, "%s", lab.mask_path.c_str());
    if (ImGui::InputText("Mask file", path, sizeof path)) lab.mask_path = path;
    if (ImGui::Button("Save mask")) {  // as the File panel's saves: an existing file refused once, then overwritten
        std::error_code ec;
        if (std::filesystem::exists(lab.mask_path, ec) && lab.confirm_overwrite != lab.mask_path) {
            lab.confirm_overwrite = lab.mask_path;
            ctx.messages.error(lab.mask_path + " exists: Save mask again to overwrite it, or change the name");
        } else {
            lab.confirm_overwrite.clear();
            const std::string err = save_mask_from(ctx, lab.mask_path);
            if (!err.empty()) ctx.messages.error(err);
        }
    }
    ImGui::SameLine();
    if (ImGui::Button("Load mask")) {
        const std::string err = load_mask_into(ctx, lab.mask_path);
        if (!err.empty()) ctx.messages.error(err);
        lab.selected = -1;
    }
    ImGui::SameLine();
    ImGui::TextDisabled("(PNG + .txt)");
}
}  // namespace

std::string save_mask_from(PanelContext& ctx, const std::string& path) {
    if (!ctx.has_image()) return "save-mask: no image (the mask is made for its transform size)";
    if (path.empty()) return "save-mask: no file name";
    int w = 0, h = 0;
    Settings s = ctx.settings;
    s.stop = {};
    ctx.picture_dims(s, &w, &h);
    ctx.worker.save_mask(s, w, h, path);
    return "";
}

std::string load_mask_into(PanelContext& ctx, const std::string& path) {
    std::vector<FilterSpec> filters;
    std::vector<BrushStroke> strokes;
    bool invert = false;
    const std::string err = load_mask(path, &filters, &strokes, &invert);
    if (!err.empty()) return "load-mask: " + err;
    ctx.settings.filters = std::move(filters);
    ctx.settings.strokes = std::move(strokes);
    ctx.settings.mask_invert = invert;
    ctx.dirty = true;
    ctx.messages.info("loaded the mask from " + path + " (" +
                      mask_summary(ctx.settings.filters, ctx.settings.strokes, ctx.settings.mask_invert) + ")");
    return "";
}

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
    if (!s.filters.empty()) ImGui::TextDisabled("(click a filter to edit it; x removes it)");
    // Editing is explicit (a click on a filter) and ends with Done; adding stays below, always there.
    if (lab.selected >= 0) {
        ImGui::Separator();
        ImGui::TextUnformatted("Editing the selected filter (live):");
        if (edit(s.filters[std::size_t(lab.selected)], w, h)) ctx.dirty = true;
        if (ImGui::Button("Done")) lab.selected = -1;
        ctx.layout.push_back("lab editing " + filter_text(s.filters[std::size_t(std::max(lab.selected, 0))]));
    }
    ImGui::Separator();
    ImGui::TextUnformatted("New filter:");
    ImGui::PushID("draft");
    edit(lab.draft, w, h);
    ImGui::PopID();
    if (ImGui::Button("Add filter")) {
        FilterSpec checked;
        const std::string err = parse_filter(filter_text(lab.draft), &checked);
        if (!err.empty())
            ctx.messages.error(err);
        else if (s.filters.size() >= std::size_t(kMaxFilters))
            ctx.messages.error("at most 32 filters");
        else {
            s.filters.push_back(checked);  // (not selected: the next Add is one click away)
            ctx.dirty = true;
        }
    }
    if (!s.filters.empty() && ImGui::Button("Clear all filters")) {
        s.filters.clear();
        lab.selected = -1;
        ctx.dirty = true;
    }
    brush_section(ctx, lab);
    if (has_mask(s)) {
        ImGui::Separator();
        int view = int(s.lab_view);
        if (ImGui::Combo("Third view", &view,
                         "filtered image\0removed part (original - filtered)\0difference heat map\0")) {
            s.lab_view = LabView(view);
            ctx.dirty = true;
        }
        ImGui::TextDisabled("shown: %.4g .. %.4g (%s)", lab.shown_lo, lab.shown_hi,
                            s.lab_view == LabView::Difference ? "inferno from 0" : "gray, min..max");
    }
}

}  // namespace specview::ui
