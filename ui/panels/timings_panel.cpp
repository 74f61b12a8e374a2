// Timings: the latest run per kernel, a rolling plot of totals, custom against cuFFT on this image, and a
// threads-per-block x block-height sweep shown as a heat map.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "gpu/common/errors.h"
#include "ui/panels/panel.h"

namespace specview::ui {

namespace {

// A volume's open in stages (the last transform's; a moved slice keeps them): decode, the frames shaped, the FFT (a
// GPU's passes below it, its copies counted), the shells, the pictures of the latest request.
void draw_volume_timings(const PanelContext& ctx) {
    const VolumeTimes& t = *ctx.volume;
    ImGui::TextWrapped("%dx%dx%d volume: %s", t.width, t.height, t.depth, t.backend.c_str());
    if (!ImGui::BeginTable("volume stages", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
    ImGui::TableSetupColumn("volume stage", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed, 8 * ImGui::CalcTextSize("0").x);
    ImGui::TableHeadersRow();
    auto row = [](const std::string& name, double ms) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s", name.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.1f", ms);
    };
    row("decode (every frame)", t.decode_ms);
    const bool gpu = !t.gpu_stages.empty();
    row(gpu ? "frames to the GPU and shaped there (channel, level, window, pad)"
            : "frames shaped (channel, level, window, pad) [CPU]",
        t.shape_ms);
    if (gpu)
        row(t.frames_resident ? "  of which the frames (kept on the GPU: none sent)" : "  of which the frames sent up",
            t.frames_ms);
    row(t.gpu_stages.empty() ? "3D FFT (FFTW)" : "3D FFT on the GPU, copies " + std::to_string(int(t.copy_ms + 0.5)) + " ms of it", t.fft_ms);
    for (const gpu::KernelTiming& k : t.gpu_stages) row("  " + k.name, k.ms);
    row("shell power spectrum", t.shell_ms);
    row("pictures (latest request)", t.pictures_ms);
    ImGui::EndTable();
    ctx.layout.push_back("volume-timings decode " + std::to_string(t.decode_ms) + " fft " + std::to_string(t.fft_ms) +
                         " shell " + std::to_string(t.shell_ms) + " pictures " + std::to_string(t.pictures_ms));
}

}  // namespace

void draw_timings_panel(PanelContext& ctx, TimingsUi& timings) {
    ctx.layout.push_back("panel Timings");
    if (!ImGui::CollapsingHeader("Timings", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (!ctx.shown.have_frame) {
        ImGui::TextDisabled("no run yet");
        return;
    }
    if (ctx.volume) draw_volume_timings(ctx);
    const Frame& f = ctx.shown.frame;
    if (ctx.volume) ImGui::TextDisabled("frame 1 as an image (2D):");
    ImGui::TextWrapped("%s", f.backend.c_str());
    if (ImGui::BeginTable("kernels", 4,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp)) {
        // The numbers as wide as they need; the stage's name takes the rest and wraps (never cut).
        const float digit = ImGui::CalcTextSize("0").x;
        ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed, 8 * digit);
        ImGui::TableSetupColumn("GB/s", ImGuiTableColumnFlags_WidthFixed, 5 * digit);
        ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthFixed, 5 * digit);
        ImGui::TableHeadersRow();
        for (const auto& t : f.timings) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", t.name.c_str());
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
    if (!timings.history.empty()) {
        const float mx = *std::max_element(timings.history.begin(), timings.history.end());
        char label[64];
        std::snprintf(label, sizeof label, "last %.3f ms", timings.history.back());
        ImGui::PlotLines("##history", timings.history.data(), int(timings.history.size()), 0, label, 0.0f, mx * 1.2f,
                         ImVec2(ImGui::GetContentRegionAvail().x, 50 * ImGui::GetIO().FontGlobalScale));
    }

    // Seed 001's comparison, live: every backend there is on this image, against the CPU's spectrum and picture.
    if (ImGui::Button("Compare every backend")) {
        timings.comparison.reset();
        ctx.worker.compare(ctx.settings, ctx.machine.gpu_ok);
        ctx.messages.info("comparing every backend on this image ...");
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("the same image through FFTW, OpenCL, OpenGL compute%s: ms (transform + view, median of 3), GB/s of the\n"
                          "counted stages, and the largest difference from the CPU's spectrum and picture",
                          ctx.machine.gpu_ok ? ", the custom kernels, custom-fast and cuFFT" : "");
    ImGui::SameLine();
    ImGui::BeginDisabled(!ctx.machine.gpu_ok);
    if (ImGui::Button(timings.sweep_running ? "Sweeping..." : "Sweep threads x H") && !timings.sweep_running) {
        ctx.worker.sweep(ctx.settings);
        timings.sweep_running = true;
    }
    ImGui::EndDisabled();
    if (!ctx.machine.gpu_ok && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("needs a GPU: %s", ctx.machine.gpu_why.c_str());
    if (timings.comparison &&
        ImGui::BeginTable("compare", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("backend");
        ImGui::TableSetupColumn("ms");
        ImGui::TableSetupColumn("GB/s");
        ImGui::TableSetupColumn("vs CPU: |dF|/peak");
        ImGui::TableSetupColumn("levels");
        ImGui::TableHeadersRow();
        for (const CompareRow& c : timings.comparison->rows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(c.backend.c_str());
            if (ImGui::IsItemHovered() && !c.ran.empty()) ImGui::SetTooltip("%s", c.ran.c_str());
            ImGui::TableNextColumn();
            if (!c.error.empty()) {
                ImGui::TextDisabled("cannot run");
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", c.error.c_str());
                continue;
            }
            ImGui::Text("%.3f", c.ms);
            ImGui::TableNextColumn();
            if (c.gbps > 0) ImGui::Text("%.0f", c.gbps);
            ImGui::TableNextColumn();
            if (c.backend == "cpu")
                ImGui::TextDisabled("reference");
            else
                ImGui::Text("%.2g", c.max_rel_diff);
            ImGui::TableNextColumn();
            if (c.backend != "cpu") ImGui::Text("%d", c.max_level_diff);
        }
        ImGui::EndTable();
    }

    if (timings.sweep) {
        const SweepResult& sw = *timings.sweep;
        double lo = 1e30, hi = 0;
        for (std::size_t i = 0; i < sw.done; ++i)
            if (sw.ms[i] > 0) {
                lo = std::min(lo, sw.ms[i]);
                hi = std::max(hi, sw.ms[i]);
            }
        ImGui::Text("total ms, custom pipeline (rows: H, columns: threads per block)%s", sw.finished ? "" : " ...");
        if (ImGui::BeginTable("sweep", int(sw.threads.size()) + 1,
                              ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
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
                    if (i >= sw.done) continue;
                    if (sw.ms[i] < 0) {
                        ImGui::TextDisabled("n/a");
                        continue;
                    }
                    const float t = hi > lo ? float((sw.ms[i] - lo) / (hi - lo)) : 0.0f;  // 0 fastest
                    ImGui::TableSetBgColor(
                        ImGuiTableBgTarget_CellBg,
                        ImGui::GetColorU32(ImVec4(0.15f + 0.7f * t, 0.75f - 0.55f * t, 0.2f, 0.85f)));
                    ImGui::Text("%.3f", sw.ms[i]);
                }
            }
            ImGui::EndTable();
        }
    }
}

}  // namespace specview::ui
