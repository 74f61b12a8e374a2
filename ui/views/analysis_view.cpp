#include "ui/views/analysis_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/lab/analysis.h"

namespace specview::ui {

void request_analysis(ViewerState& st) {
    AnalysisUi& a = st.analysis;
    if (!a.open || !st.shown.have_frame || st.classroom.enabled) return;
    if (!a.ask && a.asked_change == st.frame_change) return;
    AnalysisRequest what;
    what.profiles = true;
    what.log_polar = a.log_polar;
    what.line = a.have_line;
    what.u0 = a.u0, what.v0 = a.v0, what.u1 = a.u1, what.v1 = a.v1;
    st.worker->analyse(st.shown.settings, st.frame_change, what);
    a.asked_change = st.frame_change;
    a.ask = false;
}

void take_analysis(ViewerState& st, AnalysisResult& r) {
    if (!r.ok && r.error.empty()) {  // the worker's engine had moved on (a job ran): run the shown settings again
        if (r.change == st.frame_change) st.dirty = true;
        return;
    }
    if (!r.ok) {
        st.messages.error(r.error);
        return;
    }
    if (!r.log_polar_rgba.empty()) {
        st.logphi_tex.ensure(r.n_phi, r.n_r);
        st.logphi_tex.upload(r.log_polar_rgba.data());
        std::vector<std::uint32_t>().swap(r.log_polar_rgba);
    }
    st.analysis.result = std::move(r);
}

void take_correlation(ViewerState& st, CorrelationResult& r) {
    if (!r.ok) {
        st.messages.error(r.error);
        return;
    }
    st.corr_tex.begin(std::move(r.rgba), r.width, r.height);
    st.messages.info(std::string(r.phase ? "phase" : "cross-") + "correlation with " + r.other + ": shift " +
                     std::to_string(r.shift.dx).substr(0, 6) + ", " + std::to_string(r.shift.dy).substr(0, 6) + " px");
    st.analysis.correlation = std::move(r);
}

void take_stack(ViewerState& st, StackResult& r) {
    if (!r.ok) {
        st.messages.error(r.error);
        return;
    }
    st.stack_tex.begin(std::move(r.rgba), r.width, r.height);
    char t[256];
    std::snprintf(t, sizeof t, "the stack's %d frames measured in %.0f ms (%s)", r.frames, r.ms, r.how.c_str());
    st.messages.info(t);
    st.analysis.series.fit = true;
    st.analysis.stack = std::move(r);
}

namespace {
void record(ViewerState& st, const char* what, ImVec2 a, ImVec2 b) {
    const ImVec2 s = ImGui::GetIO().DisplayFramebufferScale;
    char line[256];
    std::snprintf(line, sizeof line, "%s %.1f %.1f %.1f %.1f", what, a.x * s.x, a.y * s.y, b.x * s.x, b.y * s.y);
    st.layout.push_back(line);
}

// A picture fitted into `size` keeping its aspect; returns where it went.
void fitted_image(const GlTexture& tex, ImVec2 size, ImVec2* p0, ImVec2* p1) {
    const ImVec2 o = ImGui::GetCursorScreenPos();
    ImGui::Dummy(size);
    const float k = std::min(size.x / float(std::max(1, tex.width())), size.y / float(std::max(1, tex.height())));
    const ImVec2 d(tex.width() * k, tex.height() * k);
    *p0 = ImVec2(o.x + (size.x - d.x) / 2, o.y + (size.y - d.y) / 2);
    *p1 = ImVec2(p0->x + d.x, p0->y + d.y);
    ImGui::GetWindowDrawList()->AddImage(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(tex.id())), *p0, *p1);
}
}  // namespace

void draw_analysis_strip(ViewerState& st, ImVec2 size) {
    AnalysisUi& a = st.analysis;
    const bool have = a.result && a.result->ok;
    const AnalysisResult* r = have ? &*a.result : nullptr;
    const bool stale = have && r->change != st.frame_change;
    const bool line = r && !r->line_at.empty(), logphi = r && r->n_phi > 0 && a.log_polar && st.logphi_tex.valid();
    const bool corr = a.correlation && a.correlation->ok && st.corr_tex.front().valid();
    const bool stack = a.stack && a.stack->ok && st.stack_tex.front().valid() && a.stack->path == st.shown.image_path;
    const int columns = 2 + (line ? 1 : 0) + (logphi ? 1 : 0) + (corr ? 1 : 0) + (stack ? 2 : 0);
    const float text_h = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 cell(size.x / columns - 6, std::max(size.y - 2 * text_h, 60.0f));
    if (!r) {
        ImGui::TextDisabled("Analysis: measuring ...");
        return;
    }
    const PowerProfiles* p = r->profiles ? &*r->profiles : nullptr;

    // Radial PSD, log-log, with the fitted power law over the chosen range.
    ImGui::BeginGroup();
    std::vector<double> rx, ry;
    if (p) rx = p->radial.at, ry = p->radial.mean_power;
    std::vector<PlotSegment> fit_line;
    std::vector<PlotMarker> range;
    char title[160] = "Radial PSD";
    if (p) {
        try {
            const PowerLawFit fit = fit_power_law(p->radial, a.fit_lo, a.fit_hi);
            fit_line.push_back({a.fit_lo, std::pow(10.0, fit.intercept + fit.slope * std::log10(a.fit_lo)), a.fit_hi,
                                std::pow(10.0, fit.intercept + fit.slope * std::log10(a.fit_hi))});
            std::snprintf(title, sizeof title, "Radial PSD: slope %.3f (%d bins, f %.3g-%.3g)", fit.slope, fit.points,
                          double(a.fit_lo), double(a.fit_hi));
            char l[96];
            std::snprintf(l, sizeof l, "radial-psd bins %zu slope %.3f", p->radial.at.size(), fit.slope);
            st.layout.push_back(l);
        } catch (const std::exception&) {
            std::snprintf(title, sizeof title, "Radial PSD: no fit in f %.3g-%.3g", double(a.fit_lo), double(a.fit_hi));
            st.layout.push_back("radial-psd bins " + std::to_string(p->radial.at.size()) + " slope none");
        }
        range.push_back({a.fit_lo, IM_COL32(255, 200, 60, 120), ""});
        range.push_back({a.fit_hi, IM_COL32(255, 200, 60, 120), ""});
    }
    ImGui::TextUnformatted(title);
    const ImVec2 r0 = ImGui::GetCursorScreenPos();
    draw_plot("radial", cell, a.radial, {{&rx, &ry}}, fit_line, range, "f (cycles/pixel)", "power");
    record(st, "radial_plot", r0, ImVec2(r0.x + cell.x, r0.y + cell.y));
    ImGui::EndGroup();

    // Angular profile, with the dominant direction.
    ImGui::SameLine();
    ImGui::BeginGroup();
    std::vector<double> ax, ay;
    std::vector<PlotMarker> dominant;
    if (p) {
        for (std::size_t i = 0; i < p->angular.at.size(); ++i)
            ax.push_back(p->angular.at[i] + 0.5), ay.push_back(p->angular.mean_power[i]);
        const double d = dominant_angle(p->angular);
        if (d >= 0) {
            dominant.push_back({d + 0.5, IM_COL32(255, 120, 120, 220), ""});
            ImGui::Text("Angular: most power at %.0f-%.0f deg", d, d + 1);
            st.layout.push_back("angular dominant " + std::to_string(int(d)));
        } else {
            ImGui::TextUnformatted("Angular profile");
        }
    } else {
        ImGui::TextUnformatted("Angular profile");
    }
    const ImVec2 a0 = ImGui::GetCursorScreenPos();
    draw_plot("angular", cell, a.angular, {{&ax, &ay, IM_COL32(140, 230, 140, 255)}}, {}, dominant, "angle (deg)",
              "power");
    record(st, "angular_plot", a0, ImVec2(a0.x + cell.x, a0.y + cell.y));
    ImGui::EndGroup();

    if (line) {
        ImGui::SameLine();
        ImGui::BeginGroup();
        const std::vector<double> lv(r->line_values.begin(), r->line_values.end());
        ImGui::Text("Line profile (%zu points, %s)", r->line_at.size(), name_of(st.shown.settings.view.view).c_str());
        const ImVec2 l0 = ImGui::GetCursorScreenPos();
        draw_plot("line", cell, a.line, {{&r->line_at, &lv, IM_COL32(230, 180, 255, 255)}}, {}, {},
                  "distance (cycles/pixel)", name_of(st.shown.settings.view.view).c_str());
        record(st, "line_plot", l0, ImVec2(l0.x + cell.x, l0.y + cell.y));
        st.layout.push_back("line points " + std::to_string(r->line_at.size()));
        ImGui::EndGroup();
    }
    if (logphi) {
        ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::Text("Log-phi: angle 0-360 across, r %.3g-%.3g up", r->r0, r->r1);
        ImVec2 q0, q1;
        fitted_image(st.logphi_tex, cell, &q0, &q1);
        record(st, "log_phi", q0, q1);
        st.layout.push_back("log-phi " + std::to_string(r->n_phi) + "x" + std::to_string(r->n_r));
        ImGui::EndGroup();
    }
    if (corr) {
        ImGui::SameLine();
        ImGui::BeginGroup();
        const CorrelationResult& c = *a.correlation;
        ImGui::Text("%s correlation: shift %.2f, %.2f px", c.phase ? "Phase" : "Cross", c.shift.dx, c.shift.dy);
        ImVec2 q0, q1;
        const GlTexture& t = st.corr_tex.front();
        fitted_image(t, cell, &q0, &q1);
        // The peak: a shift (dx, dy) sits at (w/2 + dx, h/2 + dy) of the heat map.
        const float kx = (q1.x - q0.x) / float(t.width()), ky = (q1.y - q0.y) / float(t.height());
        const ImVec2 pk(q0.x + float(t.width() / 2 + c.shift.dx + 0.5) * kx,
                        q0.y + float(t.height() / 2 + c.shift.dy + 0.5) * ky);
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->AddCircle(pk, 7.0f, IM_COL32(0, 255, 120, 255), 24, 2.0f);
        dl->AddLine(ImVec2(pk.x - 11, pk.y), ImVec2(pk.x + 11, pk.y), IM_COL32(0, 255, 120, 255), 1.5f);
        dl->AddLine(ImVec2(pk.x, pk.y - 11), ImVec2(pk.x, pk.y + 11), IM_COL32(0, 255, 120, 255), 1.5f);
        record(st, "correlation_map", q0, q1);
        char l[96];
        std::snprintf(l, sizeof l, "correlation shift %.2f %.2f", c.shift.dx, c.shift.dy);
        st.layout.push_back(l);
        ImGui::EndGroup();
    }
    if (stack) {
        const StackResult& sr = *a.stack;
        ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::Text("Stack mean (%d frames)", sr.frames);
        ImVec2 q0, q1;
        fitted_image(st.stack_tex.front(), cell, &q0, &q1);
        record(st, "stack_mean", q0, q1);
        ImGui::EndGroup();
        ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::Text("Bin (%+d, %+d) over the frames", sr.u, sr.v);
        std::vector<double> fx(sr.series.size());
        for (std::size_t i = 0; i < fx.size(); ++i) fx[i] = double(i + 1);
        const ImVec2 s0 = ImGui::GetCursorScreenPos();
        draw_plot("series", cell, a.series, {{&fx, &sr.series, IM_COL32(255, 170, 90, 255)}}, {}, {}, "frame",
                  name_of(st.shown.settings.view.view).c_str());
        record(st, "stack_series", s0, ImVec2(s0.x + cell.x, s0.y + cell.y));
        char l[96];
        const std::size_t top = std::size_t(std::max_element(sr.series.begin(), sr.series.end()) - sr.series.begin());
        std::snprintf(l, sizeof l, "stack frames %d series %zu top %zu", sr.frames, sr.series.size(), top + 1);
        st.layout.push_back(l);
        ImGui::EndGroup();
    }
    if (p)
        ImGui::TextDisabled("profiles: %s, %.3f ms%s%s", p->where.c_str(), p->ms,
                            r->profiles_reused ? " (kept: same spectrum)" : "", stale ? "; updating ..." : "");
}

}  // namespace specview::ui
