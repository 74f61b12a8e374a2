// Timings: the latest run per kernel, a rolling plot of totals, custom against cuFFT on this image, and a
// threads-per-block x block-height sweep shown as a heat map.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "gpu/errors.h"
#include "ui/viewer_state.h"

namespace specview::ui {

namespace {

void compare_backends(ViewerState& st) {
    try {
        Settings s = st.settings;
        s.stop = {};
        RunOptions o;
        o.want_spectrum = true;
        s.backend = Backend::Custom;
        const Frame c = st.engine.run(s, o);
        s.backend = Backend::Cufft;
        const Frame f = st.engine.run(s, o);
        double peak = 0, diff = 0;
        for (std::size_t i = 0; i < f.spectrum.size() && i < c.spectrum.size(); ++i) {
            peak = std::max(peak, double(std::abs(f.spectrum[i])));
            diff = std::max(diff, double(std::abs(f.spectrum[i] - c.spectrum[i])));
        }
        const int levels = f.rgba.size() == c.rgba.size()
                               ? max_level_difference(f.rgba.data(), c.rgba.data(), (long long)f.rgba.size(), s.view.colormap)
                               : 256;
        st.comparison = {true, c.total_ms, f.total_ms, peak > 0 ? diff / peak : diff, levels};
    } catch (const std::exception& e) {
        show_error(st, std::string("comparison failed: ") + e.what());
    }
    st.dirty = true;  // put the current configuration's picture back
}

}  // namespace

void sweep_step(ViewerState& st) {
    Sweep& sw = st.sweep;
    const std::size_t n = sw.threads.size() * sw.heights.size();
    if (sw.next >= n) {
        sw.running = false;
        sw.done = true;
        st.dirty = true;
        return;
    }
    Settings s = st.settings;
    s.backend = Backend::Custom;
    s.stop = {};
    s.custom.rows.threads_per_block = sw.threads[sw.next % sw.threads.size()];
    s.custom.rows.block_height = sw.heights[sw.next / sw.threads.size()];
    RunOptions o;
    o.want_rgba = false;
    double ms = -1;
    try {
        std::vector<double> t;
        for (int r = 0; r < 5; ++r) {
            const Frame f = st.engine.run(s, o);
            if (!f.notes.empty()) throw gpu::ConfigError("clamped");  // not the configuration asked for
            t.push_back(f.total_ms);
        }
        std::sort(t.begin(), t.end());
        ms = t[t.size() / 2];
    } catch (const std::exception&) {
        ms = -1;  // cannot run (or would run as another configuration) on this device
    }
    sw.ms[sw.next++] = ms;
}

void draw_timings_panel(ViewerState& st) {
    st.layout.push_back("panel Timings");
    if (!ImGui::CollapsingHeader("Timings", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (!st.have_frame) {
        ImGui::TextDisabled("no run yet");
        return;
    }
    const Frame& f = st.frame;
    ImGui::TextWrapped("%s", f.backend.c_str());
    if (ImGui::BeginTable("kernels", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch, 3.0f);
        ImGui::TableSetupColumn("ms");
        ImGui::TableSetupColumn("GB/s");
        ImGui::TableSetupColumn("share");
        ImGui::TableHeadersRow();
        for (const auto& t : f.timings) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(t.name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", t.ms);
            ImGui::TableNextColumn();
            if (t.bytes > 0 && t.ms > 0) ImGui::Text("%.0f", t.bytes / (t.ms * 1e6));
            ImGui::TableNextColumn();
            const bool counted = t.name.find("host") == std::string::npos && t.name.find("[CPU]") == std::string::npos;
            if (counted && f.total_ms > 0) ImGui::Text("%.0f%%", 100.0 * t.ms / f.total_ms);
        }
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("total (transform + view)");
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", f.total_ms);
        ImGui::EndTable();
    }
    if (!st.history.empty()) {
        const float mx = *std::max_element(st.history.begin(), st.history.end());
        char label[64];
        std::snprintf(label, sizeof label, "last %.3f ms", st.history.back());
        ImGui::PlotLines("##history", st.history.data(), int(st.history.size()), 0, label, 0.0f, mx * 1.2f,
                         ImVec2(ImGui::GetContentRegionAvail().x, 50 * ImGui::GetIO().FontGlobalScale));
    }

    ImGui::BeginDisabled(!st.gpu_ok);
    if (ImGui::Button("Compare custom vs cuFFT")) compare_backends(st);
    ImGui::SameLine();
    if (ImGui::Button(st.sweep.running ? "Sweeping..." : "Sweep threads x H") && !st.sweep.running) {
        st.sweep = Sweep{};
        st.sweep.ms.assign(st.sweep.threads.size() * st.sweep.heights.size(), 0.0);
        st.sweep.running = true;
    }
    ImGui::EndDisabled();
    if (!st.gpu_ok && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("needs a GPU: %s", st.gpu_why.c_str());
    const Comparison& c = st.comparison;
    if (c.valid)
        ImGui::TextWrapped("custom %.3f ms, cuFFT %.3f ms: custom/cuFFT = %.2fx; largest spectrum difference %.2g of the "
                           "peak, %d colormap level(s)",
                           c.custom_ms, c.cufft_ms, c.cufft_ms > 0 ? c.custom_ms / c.cufft_ms : 0.0, c.max_rel_diff,
                           c.max_level_diff);

    const Sweep& sw = st.sweep;
    if (sw.running || sw.done) {
        double lo = 1e30, hi = 0;
        for (std::size_t i = 0; i < sw.next; ++i)
            if (sw.ms[i] > 0) {
                lo = std::min(lo, sw.ms[i]);
                hi = std::max(hi, sw.ms[i]);
            }
        ImGui::Text("total ms, custom pipeline (rows: H, columns: threads per block)%s", sw.running ? " ..." : "");
        if (ImGui::BeginTable("sweep", int(sw.threads.size()) + 1, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
            ImGui::TableSetupColumn("H");
            for (int t : sw.threads) ImGui::TableSetupColumn(std::to_string(t).c_str());
            ImGui::TableHeadersRow();
            for (std::size_t r = 0; r < sw.heights.size(); ++r) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::Text("%d", sw.heights[r]);
                for (std::size_t col = 0; col < sw.threads.size(); ++col) {
                    ImGui::TableNextColumn();
                    const std::size_t i = r * sw.threads.size() + col;
                    if (i >= sw.next) continue;
                    if (sw.ms[i] < 0) {
                        ImGui::TextDisabled("n/a");
                        continue;
                    }
                    const float t = hi > lo ? float((sw.ms[i] - lo) / (hi - lo)) : 0.0f;  // 0 fastest
                    ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg,
                                           ImGui::GetColorU32(ImVec4(0.15f + 0.7f * t, 0.75f - 0.55f * t, 0.2f, 0.85f)));
                    ImGui::Text("%.3f", sw.ms[i]);
                }
            }
            ImGui::EndTable();
        }
    }
}

}  // namespace specview::ui
