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

// What the butterfly diagram shows at a step: which row pass, its stages first .. first + lg(n) - 1, and how many of
// the pass's stages are done (0: none; the current step's stage is highlighted; past the pass: all).
struct DiagramView {
    int pass = 1, first = 1, done = 0, length = 0;
    bool highlight = false;
};

DiagramView diagram_view(const Step& step, int w, int h, int n) {
    DiagramView v;
    const int lg = log2i(n);
    switch (step.stop.kind) {
        case K::RowPass1:
        case K::RowPass2:
            v.pass = step.stop.kind == K::RowPass1 ? 1 : 2;
            v.done = step.stop.stage;
            v.highlight = step.stop.stage > 0;
            break;
        case K::Transpose1:  // the columns are rows now: pass 2 is next, nothing of it done
            v.pass = 2;
            break;
        case K::Transpose2:
        case K::Done:
            v.pass = 2;
            v.done = 1 << 20;
            break;
    }
    v.length = v.pass == 1 ? w : h;
    const int L = log2i(v.length);
    // The current stage first where it can be (its input on the left), else the last lg(n) stages.
    v.first = std::clamp(v.done > 0 && v.highlight ? v.done : (v.done > L ? L - lg + 1 : 1), 1, std::max(1, L - lg + 1));
    return v;
}

// The butterfly diagram: n points of one row of the data a row pass transforms, through lg(n) consecutive stages of
// that pass (the same butterflies as the kernel). Stages first .. first + lg(n) - 1 of an N-point row pair points
// N >> stage apart, so they close over n points d = N >> (first + lg(n) - 1) apart: the diagram's points are
// base + k d (contiguous at the last stages). The node values are the row's after each stage, computed from the whole
// row (the worker's), so any stage of either pass shows its own data. Labels are placed only where they cover no
// node and no other label.
void draw_butterfly_diagram(PanelContext& ctx, Classroom& c, const Step& step, ImVec2 size) {
    Settings s = ctx.settings;
    s.stop = {};
    int pw = 0, ph = 0;
    ctx.picture_dims(s, &pw, &ph);
    const int n = std::min(c.diagram_n, std::min(pw, ph)), lg = log2i(n);
    const DiagramView view = diagram_view(step, pw, ph, n);
    const int N = view.length, L = log2i(N);
    if (n < 2 || N < n) return;
    const int last = std::min(view.first + lg - 1, L);
    const int d = N >> last;  // the points' stride
    const int rows = view.pass == 1 ? ph : pw;
    if (c.diagram_row < 0) c.diagram_row = rows / 2;
    c.diagram_row = std::clamp(c.diagram_row, 0, std::max(0, rows - 1));
    c.diagram_offset = std::clamp(c.diagram_offset, 0, N - 1);
    const int block = d * n, base = (c.diagram_offset / block) * block + c.diagram_offset % d;
    std::vector<int> idx(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) idx[std::size_t(k)] = base + k * d;

    // The whole row from the worker (it owns the plane); asked again only when it changes.
    std::uint64_t key = ctx.shown.image_id;
    for (std::uint64_t v : {std::uint64_t(s.channel), std::uint64_t(s.window), std::uint64_t(s.tukey_alpha * 1e6f),
                            std::uint64_t(s.pad), std::uint64_t(s.pad_fill), std::uint64_t(s.level),
                            std::uint64_t(c.diagram_row), std::uint64_t(view.pass), std::uint64_t(s.roi.x),
                            std::uint64_t(s.roi.y), std::uint64_t(s.roi.w), std::uint64_t(s.roi.h)})
        key = key * 1000003u + v + 1;
    if (key != c.plane_row_key) {
        c.plane_row_key = key;
        ctx.worker.plane_row(s, key, view.pass, c.diagram_row);
    }
    const bool have = c.plane_row.key == key && int(c.plane_row.values.size()) == N;
    // Column t of the diagram: the row after stage first - 1 + t (made again only when the row or the points change).
    std::uint64_t cols_key = key;
    for (int v : {view.first, n, base, d}) cols_key = cols_key * 1000003u + std::uint64_t(v) + 1;
    if (have && c.diagram_cols_key != cols_key) {
        c.diagram_cols.assign(std::size_t(lg + 1), std::vector<std::complex<double>>(std::size_t(n)));
        for (int t = 0; t <= lg; ++t) {
            std::vector<std::complex<double>> row = c.plane_row.values;
            staged_row_fft(row.data(), N, view.first - 1 + t, false);
            for (int k = 0; k < n; ++k)
                c.diagram_cols[std::size_t(t)][std::size_t(k)] = row[std::size_t(idx[std::size_t(k)])];
        }
        c.diagram_cols_key = cols_key;
    }
    const std::vector<std::vector<std::complex<double>>>& cols = c.diagram_cols;
    const float y_before = ImGui::GetCursorScreenPos().y;
    ImGui::TextWrapped("Row pass %d, stages %d..%d of %d: %d of the %d points of row %d (elements %d + %d k)%s",
                       view.pass, view.first, last, L, n, N, c.diagram_row, base, d,
                       view.pass == 2 ? ", a column of pass 1's output" : "");
    {
        char line[160];
        std::snprintf(line, sizeof line, "butterfly pass %d stages %d %d row %d base %d stride %d", view.pass,
                      view.first, last, c.diagram_row, base, d);
        ctx.layout.push_back(line);
        if (have) {
            std::string in = "butterfly-in";
            for (int k = 0; k < n; ++k) {
                char v[48];
                std::snprintf(v, sizeof v, " %.6g", std::abs(cols[0][std::size_t(k)]));
                in += v;
            }
            ctx.layout.push_back(in);
        }
    }

    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    size.y = std::max(size.y - (o.y - y_before), 10.0f);  // (what the heading took)
    const float fs = ImGui::GetFontSize();
    const float label_w = fs * 3.6f, right_w = fs * 8.5f;  // (the last values, then the output's order)
    const float dx = (size.x - label_w - right_w) / std::max(lg, 1);
    const float dy = std::max((size.y - fs * 2.5f) / n, fs * 0.9f);
    auto node = [&](int t, int k) { return ImVec2(o.x + label_w + t * dx, o.y + fs * 1.3f + (k + 0.5f) * dy); };
    const float r = fs * 0.22f;
    // Everything placed so far (nodes, labels): a label goes only where it covers none of it.
    std::vector<ImVec4> taken;
    for (int t = 0; t <= lg; ++t)
        for (int k = 0; k < n; ++k) {
            const ImVec2 p = node(t, k);
            taken.push_back(ImVec4(p.x - r, p.y - r, p.x + r, p.y + r));
        }
    int placed = 0, skipped = 0;
    auto label = [&](ImVec2 at, ImU32 col, const char* text) {
        const ImVec2 sz = ImGui::CalcTextSize(text);
        const ImVec4 box(at.x, at.y, at.x + sz.x, at.y + sz.y);
        for (const ImVec4& b : taken)
            if (box.x < b.z && b.x < box.z && box.y < b.w && b.y < box.w) {
                ++skipped;
                return;
            }
        taken.push_back(box);
        dl->AddText(at, col, text);
        ++placed;
    };
    const ImU32 dim = IM_COL32(110, 110, 120, 255), hot = IM_COL32(255, 200, 40, 255),
                done_col = IM_COL32(90, 170, 255, 255), text = IM_COL32(230, 230, 230, 255);
    auto stage_colour = [&](int stage) {  // (a stage of the pass)
        return view.highlight && stage == view.done ? hot : stage <= view.done ? done_col : dim;
    };
    // Input and output labels first (they matter most): element indices on the left, X[...] at the pass's end.
    for (int k = 0; k < n; ++k) {
        char in[24];
        std::snprintf(in, sizeof in, "[%d]", idx[std::size_t(k)]);
        label(ImVec2(o.x, node(0, k).y - fs * 0.5f), IM_COL32(200, 200, 200, 255), in);
        char out[24];
        if (last == L)
            std::snprintf(out, sizeof out, "X[%u]", bit_reverse(unsigned(idx[std::size_t(k)]), L));
        else
            std::snprintf(out, sizeof out, "[%d]", idx[std::size_t(k)]);
        label(ImVec2(node(lg, k).x + fs * 5.2f, node(lg, k).y - fs * 0.5f), IM_COL32(200, 200, 200, 255), out);
    }
    for (int t = 1; t <= lg; ++t) {
        const int stage = view.first - 1 + t, span = N >> stage;
        const ImU32 col = stage_colour(stage);
        const bool current = view.highlight && stage == view.done;
        const float th = current ? 2.5f : 1.0f;
        char lab[32];
        std::snprintf(lab, sizeof lab, "stage %d", stage);
        dl->AddText(ImVec2(node(t, 0).x - dx / 2 - fs * 1.5f, o.y), col, lab);
        for (int k = 0; k < n; ++k) {
            const int i = idx[std::size_t(k)];
            if ((i / span) % 2) continue;  // the upper point of a pair
            const int k1 = k + span / d;
            if (k1 >= n) continue;
            const ImVec2 a0 = node(t - 1, k), a1 = node(t - 1, k1), b0 = node(t, k), b1 = node(t, k1);
            dl->AddLine(a0, b0, col, th);
            dl->AddLine(a0, b1, col, th);
            dl->AddLine(a1, b0, col, th);
            dl->AddLine(a1, b1, col, th);
        }
    }
    // Values: the input column, the current stage's output and the last column (then the rest where they fit).
    auto value_text = [&](std::complex<double> v, char* t, std::size_t size_t_) {
        if (c.show_phase)
            std::snprintf(t, size_t_, "%.0f°", std::arg(v) * 180 / M_PI);
        else
            std::snprintf(t, size_t_, "%.3g", std::abs(v));
    };
    std::vector<int> order = {0, lg};
    if (view.highlight && view.done - view.first + 1 >= 1 && view.done - view.first + 1 < lg)
        order.insert(order.begin() + 1, view.done - view.first + 1);
    for (int t = 1; t < lg; ++t)
        if (std::find(order.begin(), order.end(), t) == order.end()) order.push_back(t);
    if (have)
        for (int t : order)
            for (int k = 0; k < n; ++k) {
                char v[32];
                value_text(cols[std::size_t(t)][std::size_t(k)], v, sizeof v);
                label(ImVec2(node(t, k).x + fs * 0.35f, node(t, k).y - fs * 0.05f), text, v);
            }
    // The twiddles of the current stage (or of every stage but W^0 when none is current), on the lower leg's middle.
    for (int t = 1; t <= lg; ++t) {
        const int stage = view.first - 1 + t, span = N >> stage;
        const bool current = view.highlight && stage == view.done;
        for (int k = 0; k < n; ++k) {
            const int i = idx[std::size_t(k)];
            if ((i / span) % 2) continue;
            const int k1 = k + span / d;
            if (k1 >= n) continue;
            const unsigned e = twiddle_exponent(unsigned(i / (2 * span)), L);
            if (!current && (e == 0 || view.highlight)) continue;
            char w[24];
            std::snprintf(w, sizeof w, "W%d^%u", N, e);
            const ImVec2 a1 = node(t - 1, k1);
            label(ImVec2(a1.x + dx * 0.5f - ImGui::CalcTextSize(w).x * 0.5f, a1.y - fs * 1.1f), stage_colour(stage), w);
        }
    }
    for (int t = 0; t <= lg; ++t)
        for (int k = 0; k < n; ++k) {
            const int stage = view.first - 1 + t;
            dl->AddCircleFilled(node(t, k), r, t == 0 ? (view.done >= stage ? done_col : dim) : stage_colour(stage));
        }
    if (!have) label(ImVec2(o.x + label_w, o.y + size.y * 0.5f), text, "reading the row ...");
    ctx.layout.push_back("butterfly-labels " + std::to_string(placed) + " skipped " + std::to_string(skipped));
    ImGui::Dummy(size);
}

void draw_thread_mapping(PanelContext& ctx, const Classroom& c, const Step& step) {
    const bool pass1 = step.stop.kind == K::RowPass1, pass2 = step.stop.kind == K::RowPass2;
    // The launch shapes: the run's own where it made them, else the planner's (it needs no GPU: the device's limits,
    // or an H100's without one).
    gpu::RowFftPlan planned;
    const gpu::RowFftPlan* pp = nullptr;
    if (ctx.shown.have_frame && ctx.shown.frame.row_plans.size() >= 2) {
        pp = &ctx.shown.frame.row_plans[pass2 ? 1 : 0];
    } else {
        Settings s = ctx.settings;
        s.stop = {};
        int w = 0, h = 0;
        ctx.picture_dims(s, &w, &h);
        const gpu::DeviceInfo& dev = ctx.machine.device;
        try {
            planned = ctx.machine.gpu_ok
                          ? gpu::plan_row_fft_shape(pass2 ? h : w, pass2 ? w : h, s.custom.rows,
                                                    dev.max_threads_per_block, dev.max_smem_per_block_optin, dev.name)
                          : gpu::plan_row_fft_shape(pass2 ? h : w, pass2 ? w : h, s.custom.rows, 1024, 227 * 1024,
                                                    "an H100");
            pp = &planned;
        } catch (const std::exception& e) {
            ImGui::TextWrapped("no launch shape: %s", e.what());
            return;
        }
    }
    const gpu::RowFftPlan& p = *pp;
    ctx.layout.push_back("thread-mapping " + std::to_string(p.n) + " " + std::to_string(p.threads) + " " +
                         std::to_string(p.block_height));
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
    else if (const Backend b = ctx.shown.settings.backend; b == Backend::OpenCl || b == Backend::Gl) {
        // The portable engines launch their own work-groups (app/engine/cpu_backend.cpp's DeviceFft::knobs).
        const gpu::RowFftConfig& rc = ctx.shown.settings.custom.rows;
        ImGui::TextWrapped("- this run was %s's own work-groups (%d work-items a row, H %d%s); the lines above are the "
                           "CUDA custom kernels' shapes (as on %s), occupancy is CUDA's measure",
                           b == Backend::OpenCl ? "OpenCL" : "OpenGL compute",
                           b == Backend::OpenCl ? (rc.max_local_length > 0 ? rc.max_local_length / 2 : rc.threads_per_block)
                                                : rc.threads_per_block,
                           std::max(rc.block_height, 1),
                           b == Backend::Gl ? ", each looping over its share of a block's butterflies" : ", one butterfly each",
                           ctx.machine.gpu_ok ? ctx.machine.device.name.c_str() : "an H100");
        ctx.layout.push_back("thread-mapping-portable " + name_of(b));
    } else
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
    int one_based = c.step + 1;  // (numbered from 1, as the line above)
    if (ImGui::SliderInt("##step", &one_based, 1, int(steps.size()), "step %d", ImGuiSliderFlags_AlwaysClamp))
        c.step = one_based - 1;
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
    ImGui::InputInt("element", &c.diagram_offset);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("an element of the row the diagram's points are chosen around");
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
    draw_butterfly_diagram(ctx, c, step, ImGui::GetContentRegionAvail());
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("mapping", ImVec2(0, rest.y), false);
    draw_thread_mapping(ctx, c, step);
    ImGui::EndChild();
    ImGui::EndChild();
}

}  // namespace specview::ui
