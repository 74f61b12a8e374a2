// The Analysis panel: whether the plots under the views are on, the power-law fit's range, the log-phi view,
// CSV export, and the phase correlation with another image.
#include <imgui.h>

#include <cstdio>
#include <fstream>
#include <iomanip>

#include "app/lab/analysis.h"
#include "ui/panels/panel.h"

namespace specview::ui {

std::string export_analysis_csv(const AnalysisUi& a, const std::string& prefix, std::string* wrote) {
    if (!a.result || !a.result->ok) return "export: no analysis to export yet";
    if (prefix.empty()) return "export: no file name prefix";
    const AnalysisResult& r = *a.result;
    std::string names;
    try {
        if (r.profiles) {
            write_profile_csv(prefix + "_radial.csv", "f_cycles_per_pixel,mean_power,count", r.profiles->radial);
            write_profile_csv(prefix + "_angular.csv", "angle_deg,mean_power,count", r.profiles->angular);
            names += prefix + "_radial.csv, " + prefix + "_angular.csv";
        }
        if (!r.line_at.empty()) {
            const std::string path = prefix + "_line.csv";
            std::ofstream out(path);
            out << "distance_cycles_per_pixel,value\n" << std::setprecision(9);
            for (std::size_t i = 0; i < r.line_at.size(); ++i) out << r.line_at[i] << "," << r.line_values[i] << "\n";
            if (!out.flush()) return "export: cannot write " + path;
            names += (names.empty() ? "" : ", ") + path;
        }
    } catch (const std::exception& e) {
        return std::string("export: ") + e.what();
    }
    if (names.empty()) return "export: nothing measured yet";
    *wrote = names;
    return "";
}

void draw_analysis_panel(PanelContext& ctx, AnalysisUi& a) {
    ctx.layout.push_back("panel Analysis");
    if (!ImGui::CollapsingHeader("Analysis")) return;
    if (ImGui::Checkbox("Plots under the views", &a.open)) a.ask = true;
    ImGui::TextDisabled("radial PSD (log-log, fitted slope), angular profile,\nline profile, log-phi view");
    if (!a.open) return;
    bool refit = ImGui::DragFloatRange2("Fit range", &a.fit_lo, &a.fit_hi, 0.001f, 0.001f, 0.7071f, "%.3f c/px",
                                        "%.3f c/px", ImGuiSliderFlags_AlwaysClamp);
    (void)refit;
    if (ImGui::Checkbox("Log-phi view", &a.log_polar)) a.ask = true;
    if (!a.have_line)
        ImGui::TextDisabled("Line profile: pick the Lab's line tool and drag on the spectrum.");
    else {
        ImGui::Text("Line (%+.0f, %+.0f) -> (%+.0f, %+.0f) bins", a.u0, a.v0, a.u1, a.v1);
        ImGui::SameLine();
        if (ImGui::SmallButton("Remove")) {
            a.have_line = false;
            a.ask = true;
        }
    }
    char prefix[512];
    std::snprintf(prefix, sizeof prefix, "%s", a.csv_prefix.c_str());
    if (ImGui::InputText("CSV prefix", prefix, sizeof prefix)) a.csv_prefix = prefix;
    if (ImGui::Button("Export CSV")) {
        std::string wrote;
        const std::string err = export_analysis_csv(a, a.csv_prefix, &wrote);
        if (err.empty())
            ctx.messages.info("wrote " + wrote);
        else
            ctx.messages.error(err);
    }
    if (ctx.has_image() && ctx.shown.image->frames > 1) {
        ImGui::Separator();
        ImGui::Text("Stack of %d frames:", ctx.shown.image->frames);
        int uv[2] = {a.stack_u, a.stack_v};
        if (ImGui::InputInt2("bin u, v", uv)) a.stack_u = uv[0], a.stack_v = uv[1];
        ImGui::TextDisabled("(or press T over the spectrum: the bin under the cursor)");
        if (ImGui::Button("Mean spectrum + the bin over time")) {
            a.open = true;
            ctx.worker.stack_analysis(ctx.shown.settings, ctx.shown.image_path, a.stack_u, a.stack_v);
            ctx.messages.info("measuring the stack's " + std::to_string(ctx.shown.image->frames) + " frames ...");
        }
    }
    ImGui::Separator();
    char other[512];
    std::snprintf(other, sizeof other, "%s", a.correlate_path.c_str());
    if (ImGui::InputText("Correlate with", other, sizeof other)) a.correlate_path = other;
    int kind = a.phase_correlation ? 0 : 1;
    ImGui::RadioButton("phase", &kind, 0);
    ImGui::SameLine();
    ImGui::RadioButton("cross-correlation", &kind, 1);
    a.phase_correlation = kind == 0;
    ImGui::SameLine();
    if (ImGui::Button("Correlate")) {
        if (!ctx.has_image())
            ctx.messages.error("correlate: no image");
        else if (a.correlate_path.empty())
            ctx.messages.error("correlate: name the other image (same size)");
        else
            ctx.worker.correlate(ctx.settings, a.correlate_path, a.phase_correlation);
    }
    if (a.correlation && a.correlation->ok)
        ImGui::Text("%s: shift %.2f, %.2f px (peak %.3f)", a.correlation->phase ? "phase" : "cross",
                    a.correlation->shift.dx, a.correlation->shift.dy, a.correlation->shift.peak);
}

}  // namespace specview::ui
