// Classroom mode: step through the custom pipeline stage by stage (the GPU kernels stopped there, or the CPU
// model of the same algorithm), with a caption for every step, the butterfly diagram of a short row window,
// and how threads and blocks map onto the data.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <sstream>

#include "app/engine/staged_fft.h"
#include "ui/panels/panel.h"

namespace specview::ui {

namespace {

using K = gpu::StopPoint::Kind;

struct Step {
    gpu::StopPoint stop;
    bool shift = false;
    std::string title;
};

int log2i(int n) {
    int l = 0;
    while ((1 << l) < n) ++l;
    return l;
}

std::vector<Step> steps_for(int w, int h, bool bit_reversed) {
    std::vector<Step> v;
    const int lw = log2i(w), lh = log2i(h);
    v.push_back({{K::RowPass1, 0, false}, false, "Input plane"});
    for (int s = 1; s <= lw; ++s)
        v.push_back({{K::RowPass1, s, s == lw && bit_reversed},
                     false,
                     "Row pass 1, stage " + std::to_string(s) + "/" + std::to_string(lw)});
    v.push_back({{K::Transpose1, 0, false}, false, "Transpose 1"});
    for (int s = 1; s <= lh; ++s)
        v.push_back({{K::RowPass2, s, s == lh && bit_reversed},
                     false,
                     "Row pass 2, stage " + std::to_string(s) + "/" + std::to_string(lh)});
    v.push_back({{K::Transpose2, 0, false}, false, "Transpose 2: the 2D FFT"});
    v.push_back({{K::Done, 0, false}, true, "Shift: DC to the centre"});
    return v;
}

std::vector<Step> current_steps(PanelContext& ctx, const Classroom& c) {
    if (!ctx.has_image()) return {};
    Settings s = ctx.settings;
    s.stop = {};
    int w = 0, h = 0;
    ctx.picture_dims(s, &w, &h);
    return steps_for(w, h, c.bit_reversed);
}

bool pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

// Exponents e of W_N^e used by stage s of an n-point row: bitrev(g) for the 2^(s-1) groups.
std::string twiddle_list(int n, int s) {
    const int lg = log2i(n);
    std::ostringstream o;
    const int groups = 1 << (s - 1);
    for (int g = 0; g < std::min(groups, 8); ++g) o << (g ? ", " : "") << twiddle_exponent(unsigned(g), lg);
    if (groups > 8) o << ", ...";
    return o.str();
}

std::string caption(const Step& step, int w, int h, const Settings& s) {
    std::ostringstream o;
    switch (step.stop.kind) {
        case K::RowPass1:
        case K::RowPass2: {
            const bool first = step.stop.kind == K::RowPass1;
            const int n = first ? w : h, rows = first ? h : w, stage = step.stop.stage, lg = log2i(n);
            if (stage == 0) {
                o << "The plane fed to the FFT: " << w << "x" << h << " real values (imaginary parts zero), after the "
                  << "channel, window and padding. The first pass transforms each of its " << h << " rows.";
                break;
            }
            const int span = n >> stage;
            o << (first ? "Row pass 1" : "Row pass 2 (the original columns, now rows)") << ", stage " << stage << " of "
              << lg << ": every row of " << n << " points pairs x[i] with x[i+" << span << "] in " << (1 << (stage - 1))
              << " group(s). Each pair is one butterfly, one thread: t = W^e x[i+" << span << "], x[i] = x[i] + t, x[i+"
              << span << "] = x[i] - t, with W = exp(-2 pi i/" << n << "). The exponent e is the group number "
              << "bit-reversed in " << std::max(lg - 1, 0) << " bits: e = " << twiddle_list(n, stage)
              << ", so this stage's twiddles are multiples of " << 360.0 / (1 << stage) << " degrees.";
            if (stage == lg) {
                if (step.stop.bit_reversed)
                    o << " This is the last stage, shown as it sits in shared memory: element j holds X[bitrev(j)], "
                      << "bit-reversed order (decimation in time with in-order input leaves it so).";
                else
                    o << " This is the last stage. The butterflies leave element j holding X[bitrev(j)]; the kernel "
                      << "reads shared memory at __brev(k) and writes X[k] to position k, so the " << rows
                      << " rows are in natural order and global writes stay coalesced (tick 'bit-reversed' to see the "
                      << "order before the reorder).";
            }
            break;
        }
        case K::Transpose1:
            o << "Transpose 1: a tile of " << s.custom.transpose.tile << "x" << s.custom.transpose.tile
              << " elements goes through shared memory (padded by one column against bank conflicts), so both the "
              << "reads and the writes are coalesced. The " << w << " columns are now rows: the next pass runs the "
              << "same row kernel on them. The data shown is " << h << " wide and " << w << " tall.";
            break;
        case K::Transpose2:
            o << "Transpose 2 puts the axes back: this is the complete 2D DFT F(kx, ky), " << w << "x" << h
              << ", with DC (the sum of all pixels) at the top-left corner and negative frequencies in the far half.";
            break;
        case K::Done:
            o << "fftshift swaps the quadrants so that DC sits at the centre (" << w / 2 << ", " << h / 2
              << ") and frequency grows outwards: the usual picture of a spectrum.";
            break;
    }
    return o.str();
}

// The butterfly diagram of n points from one row of the plane: every node's value after every stage.
void draw_butterfly_diagram(PanelContext& ctx, Classroom& c, const Step& step, ImVec2 size) {
    const int n = c.diagram_n, lg = log2i(n);
    std::vector<std::vector<std::complex<double>>> stages(lg + 1);
    {
        Settings s = ctx.settings;
        s.stop = {};
        int pw = 0, ph = 0;
        ctx.picture_dims(s, &pw, &ph);
        c.diagram_row = std::clamp(c.diagram_row, 0, std::max(0, ph - 1));
        c.diagram_offset = std::clamp(c.diagram_offset, 0, std::max(0, pw - n));
        // The row window comes from the worker (it owns the plane); asked again only when it changes.
        std::uint64_t key = ctx.shown.image_id;
        for (std::uint64_t v : {std::uint64_t(s.channel), std::uint64_t(s.window), std::uint64_t(s.tukey_alpha * 1e6f),
                                std::uint64_t(s.pad), std::uint64_t(s.pad_fill), std::uint64_t(c.diagram_row),
                                std::uint64_t(c.diagram_offset), std::uint64_t(n), std::uint64_t(s.roi.x),
                                std::uint64_t(s.roi.y), std::uint64_t(s.roi.w), std::uint64_t(s.roi.h)})
            key = key * 1000003u + v + 1;
        if (key != c.plane_row_key) {
            c.plane_row_key = key;
            ctx.worker.plane_row(s, key, c.diagram_row, c.diagram_offset, n);
        }
        std::vector<std::complex<double>> x(n);
        if (c.plane_row.key == key)
            for (int i = 0; i < n && i < int(c.plane_row.values.size()); ++i) x[i] = c.plane_row.values[i];
        for (int s2 = 0; s2 <= lg; ++s2) {
            stages[s2] = x;
            staged_row_fft(stages[s2].data(), n, s2, false);
        }
    }
    // Which diagram stage the current step corresponds to (row passes only).
    int hi = -1;
    if ((step.stop.kind == K::RowPass1 || step.stop.kind == K::RowPass2) && step.stop.stage > 0)
        hi = std::min(step.stop.stage, lg);
    else if (step.stop.kind != K::RowPass1)
        hi = lg + 1;  // past the row passes: every stage done

    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float fs = ImGui::GetFontSize();
    const float label_w = fs * 3.2f, right_w = fs * 6.5f;
    const float dx = (size.x - label_w - right_w) / std::max(lg, 1);
    const float dy = std::max((size.y - fs * 1.5f) / n, fs * 0.9f);
    auto node = [&](int s2, int j) { return ImVec2(o.x + label_w + s2 * dx, o.y + fs * 1.2f + (j + 0.5f) * dy); };
    const ImU32 dim = IM_COL32(110, 110, 120, 255), hot = IM_COL32(255, 200, 40, 255),
                done = IM_COL32(90, 170, 255, 255);
    for (int s2 = 1; s2 <= lg; ++s2) {
        const int span = n >> s2;
        const ImU32 col = s2 == hi ? hot : (hi > s2 ? done : dim);
        const float th = s2 == hi ? 2.5f : 1.0f;
        char lab[32];
        std::snprintf(lab, sizeof lab, "stage %d", s2);
        dl->AddText(ImVec2(node(s2, 0).x - dx / 2 - fs, o.y), col, lab);
        for (int j = 0; j < n / 2; ++j) {
            const unsigned g = unsigned(j) / unsigned(span);
            const int i0 = int(g) * 2 * span + j % span, i1 = i0 + span;
            const ImVec2 a0 = node(s2 - 1, i0), a1 = node(s2 - 1, i1), b0 = node(s2, i0), b1 = node(s2, i1);
            dl->AddLine(a0, b0, col, th);
            dl->AddLine(a0, b1, col, th);
            dl->AddLine(a1, b0, col, th);
            dl->AddLine(a1, b1, col, th);
            const unsigned e = twiddle_exponent(g, lg);
            if (e != 0 || s2 == hi) {  // W^0 = 1 is left unlabelled except on the highlighted stage
                char w[24];
                std::snprintf(w, sizeof w, "W%d^%u", n, e);
                dl->AddText(ImVec2(a1.x + fs * 0.3f, a1.y - fs * 1.05f), col, w);
            }
        }
    }
    for (int s2 = 0; s2 <= lg; ++s2)
        for (int j = 0; j < n; ++j) {
            const ImVec2 p = node(s2, j);
            const ImU32 col = s2 == hi ? hot : (s2 < hi ? done : dim);
            dl->AddCircleFilled(p, fs * 0.22f, col);
            const std::complex<double> v = stages[s2][j];
            char t[32];
            if (c.show_phase)
                std::snprintf(t, sizeof t, "%.0f°", std::arg(v) * 180 / M_PI);
            else
                std::snprintf(t, sizeof t, "%.2f", std::abs(v));
            if (n <= 16 || s2 == 0 || s2 == lg)
                dl->AddText(ImVec2(p.x + fs * 0.3f, p.y - fs * 0.1f), IM_COL32(230, 230, 230, 255), t);
            if (s2 == 0) {
                char in[16];
                std::snprintf(in, sizeof in, "x[%d]", j);
                dl->AddText(ImVec2(o.x, p.y - fs * 0.5f), IM_COL32(200, 200, 200, 255), in);
            }
            if (s2 == lg) {
                char out[24];
                std::snprintf(out, sizeof out, "X[%u]", bit_reverse(unsigned(j), lg));
                dl->AddText(ImVec2(p.x + fs * 3.6f, p.y - fs * 0.5f), IM_COL32(200, 200, 200, 255), out);
            }
        }
    ImGui::Dummy(size);
}

void draw_thread_mapping(PanelContext& ctx, const Classroom& c, const Step& step) {
    const bool pass1 = step.stop.kind == K::RowPass1, pass2 = step.stop.kind == K::RowPass2;
    if (!ctx.shown.have_frame || ctx.shown.frame.row_plans.size() < 2) {
        ImGui::TextDisabled("launch shapes appear after a custom-pipeline run");
        return;
    }
    const gpu::RowFftPlan& p = ctx.shown.frame.row_plans[pass2 ? 1 : 0];
    ImGui::Text("%s: rows of %d points", pass2 ? "Row pass 2" : "Row pass 1", p.n);
    ImGui::TextWrapped("- block height H = %d: block b holds rows (segments) %d b .. %d b + %d", p.block_height,
                       p.block_height, p.block_height, p.block_height - 1);
    ImGui::TextWrapped("- %d threads per block, %d butterfly(ies) each per stage", p.threads, p.per_thread);
    ImGui::TextWrapped("- shared memory %d B per block (H x %d points x 8 B)", p.smem_bytes, p.local_len);
    if (p.global_stages > 0)
        ImGui::TextWrapped("- %d global stage(s) first: each row splits into %d segments of %d", p.global_stages,
                           1 << p.global_stages, p.local_len);
    ImGui::TextWrapped("- %d blocks", p.blocks);
    const gpu::KernelResources* r = nullptr;
    for (const auto& k : ctx.shown.frame.resources)
        if (k.kernel.find("fft_rows") != std::string::npos &&
            (pass2 ? k.kernel.find("complex") : k.kernel.find("real")) != std::string::npos)
            r = &k;
    if (r)
        ImGui::TextWrapped("- %d registers/thread, %d blocks/SM, occupancy %.0f%% (limited by %s)",
                           r->registers_per_thread, r->active_blocks_per_sm, 100 * r->occupancy, r->limiter.c_str());
    else
        ImGui::TextWrapped("- occupancy: needs the GPU (this run used the CPU model; shapes as on an H100)");
    const int stage = (pass1 || pass2) ? step.stop.stage : 0;
    if (stage < 1 || stage > p.log2n) return;
    const int span = p.n >> stage;
    const int q = p.global_stages, ll = p.log2l, L = p.local_len;
    const bool global = stage <= q;
    ImGui::TextWrapped(global ? "stage %d runs in global memory (one butterfly per thread, rows in order):"
                              : "stage %d runs in shared memory, constant geometry: thread t reads slots t and t+L/2, "
                                "which hold the pair below, and writes slots 2t and 2t+1:",
                       stage);
    if (ImGui::BeginTable("threads", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
        for (const char* hd : {"thread", global ? "row" : "segment", "pair (i, i+span)", "twiddle e"})
            ImGui::TableSetupColumn(hd);
        ImGui::TableHeadersRow();
        for (int t = 0; t < std::min(p.threads, 6); ++t) {
            int where = 0, i0 = 0;
            if (global) {
                const int j = t % (p.n / 2);
                where = t / (p.n / 2);
                const int g = j >> (p.log2n - stage);
                i0 = (g << (p.log2n - stage + 1)) | (j & (span - 1));
            } else {
                const int sl = stage - q;  // local stage
                const int h = t / std::max(L / 2, 1), tt = t % std::max(L / 2, 1);
                // Physical slot tt holds logical element rotr(tt, sl - 1) of the segment.
                const unsigned r = unsigned(sl - 1) % unsigned(std::max(ll, 1));
                const unsigned mask = (1u << ll) - 1u;
                const unsigned logical = ll == 0 ? 0u : ((unsigned(tt) >> r) | (unsigned(tt) << (ll - r))) & mask;
                where = h;
                const int c = h & ((1 << q) - 1);
                i0 = c * L + int(logical);
            }
            const unsigned g = unsigned(i0) >> (p.log2n - stage + 1);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%d", t);
            ImGui::TableNextColumn();
            ImGui::Text("%d", where);
            ImGui::TableNextColumn();
            ImGui::Text("(%d, %d)", i0, i0 + span);
            ImGui::TableNextColumn();
            ImGui::Text("%u", twiddle_exponent(g, p.log2n));
        }
        ImGui::EndTable();
    }
}

}  // namespace

void update_classroom(PanelContext& ctx, Classroom& c) {
    if (!c.enabled) {
        if (ctx.settings.stop.kind != K::Done) {  // leaving classroom mode: back to the full pipeline
            ctx.settings.stop = {};
            ctx.settings.view.shift = true;
            ctx.dirty = true;
        }
        return;
    }
    if (ctx.settings.backend == Backend::Cufft || ctx.settings.backend == Backend::CustomFast) {
        ctx.settings.backend = ctx.machine.gpu_ok ? Backend::Custom : Backend::Cpu;
        ctx.messages.info("classroom mode steps through our own kernels (cuFFT has no stages to show)");
        ctx.dirty = true;
    }
    const std::vector<Step> steps = current_steps(ctx, c);
    if (steps.empty()) return;
    if (c.playing && ImGui::GetTime() - c.last_step_time >= c.seconds_per_step) {
        c.step = (c.step + 1) % int(steps.size());
        c.last_step_time = ImGui::GetTime();
    }
    c.step = std::clamp(c.step, 0, int(steps.size()) - 1);
    const Step& s = steps[c.step];
    if (pow2(ctx.shown.image->width) || ctx.settings.pad != PadMode::None) {
        const gpu::StopPoint& cur = ctx.settings.stop;
        if (cur.kind != s.stop.kind || cur.stage != s.stop.stage || cur.bit_reversed != s.stop.bit_reversed ||
            ctx.settings.view.shift != s.shift) {
            ctx.settings.stop = s.stop;
            ctx.settings.view.shift = s.shift;
            ctx.dirty = true;
        }
    }
}

void classroom_keys(PanelContext& ctx, Classroom& c) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) c.step++;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) c.step = std::max(0, c.step - 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) c.step = 0;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_End))) c.step = 1 << 20;  // clamped to the last
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space))) {
        c.playing = !c.playing;
        c.last_step_time = ImGui::GetTime();
    }
}

void draw_classroom_panel(PanelContext& ctx, Classroom& c) {
    ctx.layout.push_back("panel Classroom");
    if (!ImGui::CollapsingHeader("Classroom", c.enabled ? ImGuiTreeNodeFlags_DefaultOpen : 0)) return;
    if (ImGui::Checkbox("Step through the FFT", &c.enabled)) ctx.dirty = true;
    if (!c.enabled) {
        ImGui::TextWrapped(
            "Shows the data after every butterfly stage, transpose and the shift, computed by %s.",
            ctx.machine.gpu_ok ? "the custom CUDA kernels stopped there" : "the CPU model of the same algorithm");
        return;
    }
    const std::vector<Step> steps = current_steps(ctx, c);
    if (steps.empty()) return;
    if (ctx.settings.pad == PadMode::None && !(pow2(ctx.shown.image->width) && pow2(ctx.shown.image->height))) {
        ImGui::TextWrapped("The radix-2 pipeline needs power-of-two sizes: choose pad or crop in Pipeline.");
        return;
    }
    ImGui::Text("Step %d of %d: %s", c.step + 1, int(steps.size()), steps[c.step].title.c_str());
    ctx.layout.push_back("classroom-step " + std::to_string(c.step + 1) + " " + std::to_string(steps.size()) + " " +
                         steps[c.step].title);
    if (ImGui::Button("< Prev")) c.step = std::max(0, c.step - 1);
    ImGui::SameLine();
    if (ImGui::Button(c.playing ? "Pause" : "Play")) {
        c.playing = !c.playing;
        c.last_step_time = ImGui::GetTime();
    }
    ImGui::SameLine();
    if (ImGui::Button("Next >")) c.step = std::min(int(steps.size()) - 1, c.step + 1);
    ImGui::SameLine();
    ImGui::TextDisabled("(arrows, space)");
    ImGui::SliderInt("##step", &c.step, 0, int(steps.size()) - 1, "step %d");
    ImGui::SliderFloat("seconds per step", &c.seconds_per_step, 0.2f, 5.0f, "%.1f");
    if (ImGui::Checkbox("last stage: bit-reversed, as in shared memory", &c.bit_reversed)) ctx.dirty = true;
    int view = int(ctx.settings.view.view);
    const char* views[] = {"log-magnitude", "power (dB)", "phase", "real", "imaginary"};
    if (ImGui::Combo("show", &view, views, 5)) {
        ctx.settings.view.view = View(view);
        ctx.dirty = true;
    }
    ImGui::Separator();
    ImGui::TextUnformatted("Butterfly diagram");
    ImGui::RadioButton("8", &c.diagram_n, 8);
    ImGui::SameLine();
    ImGui::RadioButton("16", &c.diagram_n, 16);
    ImGui::SameLine();
    ImGui::RadioButton("32 points", &c.diagram_n, 32);
    ImGui::SameLine();
    ImGui::Checkbox("phase", &c.show_phase);
    ImGui::InputInt("row", &c.diagram_row);
    ImGui::InputInt("first column", &c.diagram_offset);
}

void draw_classroom_overlay(PanelContext& ctx, Classroom& c, ImVec2 size) {
    const std::vector<Step> steps = current_steps(ctx, c);
    if (steps.empty() || size.y < 10) return;
    const Step& step = steps[std::clamp(c.step, 0, int(steps.size()) - 1)];
    Settings s = ctx.settings;
    s.stop = {};
    int w = 0, h = 0;
    ctx.picture_dims(s, &w, &h);
    ImGui::BeginChild("classroom", size, true);
    ImGui::TextWrapped("%s", caption(step, w, h, ctx.settings).c_str());
    const ImVec2 rest = ImGui::GetContentRegionAvail();
    ImGui::BeginChild("diagram", ImVec2(rest.x * 0.62f, rest.y), false);
    ImGui::Text("Butterflies of %d points from row %d, columns %d..%d (the same algorithm as the kernel)", c.diagram_n,
                c.diagram_row, c.diagram_offset, c.diagram_offset + c.diagram_n - 1);
    draw_butterfly_diagram(ctx, c, step, ImGui::GetContentRegionAvail());
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("mapping", ImVec2(0, rest.y), false);
    draw_thread_mapping(ctx, c, step);
    ImGui::EndChild();
    ImGui::EndChild();
}

}  // namespace specview::ui
