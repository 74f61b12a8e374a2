// Pipeline: backend and the custom kernels' knobs, size policy, window, channel. Every change re-runs.
#include <imgui.h>

#include "ui/panels/panel.h"

namespace specview::ui {

namespace {
// A combo over an enum's names; returns true when the value changed.
template <class E>
bool enum_combo(const char* label, E& value, const std::vector<std::string>& names) {
    bool changed = false;
    if (ImGui::BeginCombo(label, names[std::size_t(value)].c_str())) {
        for (std::size_t i = 0; i < names.size(); ++i)
            if (ImGui::Selectable(names[i].c_str(), std::size_t(value) == i)) {
                changed = E(i) != value;
                value = E(i);
            }
        ImGui::EndCombo();
    }
    return changed;
}

bool int_combo(const char* label, int& value, const std::vector<int>& options, const char* zero_name = nullptr) {
    bool changed = false;
    const std::string cur = value == 0 && zero_name ? zero_name : std::to_string(value);
    if (ImGui::BeginCombo(label, cur.c_str())) {
        for (int o : options) {
            const std::string name = o == 0 && zero_name ? zero_name : std::to_string(o);
            if (ImGui::Selectable(name.c_str(), o == value)) {
                changed = o != value;
                value = o;
            }
        }
        ImGui::EndCombo();
    }
    return changed;
}

// The GPU kernels' knobs: the seed pipeline's (custom, and opencl's same kernels: a work-group of threads per block,
// H rows, the local length, the tile) and cuFFT's plan, each live only with its backend.
bool draw_gpu_knobs(Settings& s) {
    bool changed = false;
    ImGui::BeginDisabled(s.backend != Backend::Custom && s.backend != Backend::OpenCl && s.backend != Backend::Gl);
    changed |= int_combo("Threads per block", s.custom.rows.threads_per_block, {32, 64, 128, 256, 512, 1024});
    changed |= int_combo("Block height H", s.custom.rows.block_height, {0, 1, 2, 4, 8, 16, 32, 64}, "auto");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("rows of data one thread block holds in shared memory (seed 000)");
    changed |= int_combo("Local FFT length", s.custom.rows.max_local_length,
                         {0, 16, 64, 256, 1024, 2048, 4096, 8192, 16384},
                         cuda_backend(s.backend) ? "auto (48 KiB)" : "auto (the longest that fits)");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("longer rows first run global Cooley-Tukey stages, then the shared-memory kernel (seed 001);\n"
                          "OpenGL's and OpenCL's work-items loop over a block's butterflies (one each at half the length)");
    changed |= int_combo("Transpose tile", s.custom.transpose.tile, {8, 16, 32, 64});
    ImGui::BeginDisabled(s.backend != Backend::Custom);  // (the seed's CUDA pipeline's switches)
    changed |= ImGui::Checkbox("Threads = 2 x local length", &s.custom.rows.threads_twice_length);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("seed 000 section 4.1's hypothesis, never tested there: twice the row length in threads a\n"
                          "block (instead of threads per block) would be faster; measured on an H100:\n"
                          "only for 256-point rows, 12-17%% slower from 512 up");
    changed |= ImGui::Checkbox("Warp shuffles (last 5 stages)", &s.custom.rows.warp_shuffles);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("seed 000 section 5.2.2's hypothesis: the stages within a warp (spans 16 .. 1) exchange\n"
                          "through __shfl_xor_sync instead of shared memory;\n"
                          "measured on an H100: row passes 3-6%% faster");
    changed |= ImGui::Checkbox("Next axis's first stages (3D)", &s.custom.rows.next_axis_stages);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("seed 000 section 5.1.1's hypothesis: a pass's block holds up to 16 rows along the next\n"
                          "axis and runs that axis's first stages across them, so the next pass starts later;\n"
                          "measured on an H100: 8%% faster at 256^3, even at 512^3, 7-10%% slower from 1024^3");
    changed |= ImGui::Checkbox("Merge the final transposes (3D)", &s.custom.merge_final_transposes);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("a volume's seed pipeline: one XYZ transpose instead of two (seed 000 section 5.1.2);\n"
                          "measured 6-7%% faster on an H100");
    ImGui::EndDisabled();
    ImGui::EndDisabled();
    ImGui::BeginDisabled(s.backend != Backend::Cufft);
    changed |= enum_combo("cuFFT plan", s.cufft_mode, cufft_mode_names());
    ImGui::EndDisabled();
    return changed;
}
}  // namespace

void draw_pipeline_panel(PanelContext& ctx) {
    ctx.layout.push_back("panel Pipeline");
    if (!ImGui::CollapsingHeader("Pipeline", ImGuiTreeNodeFlags_DefaultOpen)) return;
    Settings& s = ctx.settings;
    bool changed = false;

    // (in Backend's order; a backend this machine cannot run is shown disabled with why, once the devices are listed)
    const char* names[] = {"CPU (FFTW)",          "custom CUDA kernels",   "cuFFT",
                           "custom-fast (fused)", "OpenCL (seed kernels)", "OpenGL compute (seed kernels)"};
    static_assert(sizeof names / sizeof names[0] == std::size_t(Backend::Gl) + 1, "a backend without a name");
    if (ImGui::BeginCombo("Backend", names[int(s.backend)])) {
        for (int i = 0; i < int(sizeof names / sizeof names[0]); ++i) {
            const std::string why = ctx.machine.unusable(Backend(i));
            ImGui::BeginDisabled(!why.empty());
            if (ImGui::Selectable(names[i], int(s.backend) == i)) {
                changed |= int(s.backend) != i;
                s.backend = Backend(i);
            }
            ImGui::EndDisabled();
            if (!why.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                ImGui::SetTooltip("unavailable: %s", why.c_str());
        }
        ImGui::EndCombo();
    }
    if (ctx.machine.devices_listed) ctx.layout.push_back("devices-listed " + std::to_string(ctx.machine.devices.size()));
    if (ctx.machine.devices_listed)
        for (Backend b : {Backend::OpenCl, Backend::Gl})
            if (const std::string why = ctx.machine.unusable(b); !why.empty())
                ctx.layout.push_back("backend-unavailable " + name_of(b) + ": " + why);
    // GL: where its picture goes (straight into a texture of the viewer's share group, or back through the host).
    if (s.backend == Backend::Gl) {
        ImGui::PushTextWrapPos(0.0f);
        if (ctx.machine.gl_shared)
            ImGui::TextDisabled("picture: written on the GPU into the view's texture (shared GL context)");
        else
            ImGui::TextDisabled("picture: through the host (%s)", ctx.machine.gl_shared_why.c_str());
        ImGui::PopTextWrapPos();
        ctx.layout.push_back(ctx.machine.gl_shared ? "gl-picture texture" : "gl-picture host: " + ctx.machine.gl_shared_why);
    }
    // OpenCL: which platform and device (as --opencl-device P:D and --list-devices name them); its picture comes
    // through the host. (CL images of the view's texture need cl_khr_gl_sharing and a CL context made from the viewer's
    // GLX one: PoCL offers no sharing and the GPU machine's viewer is EGL, so no machine specview is built on could
    // test it; it is not done.)
    if (s.backend == Backend::OpenCl) {
        std::string sharing;
        for (const DeviceLine& d : ctx.machine.devices)
            if (d.backend == "opencl" && d.gl_sharing) sharing = d.id;
        const std::string why = sharing.empty()
                                    ? "no OpenCL device here offers cl_khr_gl_sharing"
                                    : "device " + sharing + " offers cl_khr_gl_sharing; specview does not use it yet";
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("picture: through the host (%s)", why.c_str());
        ImGui::PopTextWrapPos();
        ctx.layout.push_back("cl-picture host: " + why);
        const bool chosen = s.opencl_platform >= 0;
        const std::string current =
            chosen ? std::to_string(s.opencl_platform) + ":" + std::to_string(s.opencl_device) : "auto";
        if (ImGui::BeginCombo("OpenCL device", current.c_str())) {
            if (ImGui::Selectable("auto (the first usable, GPUs first)", !chosen)) {
                changed |= chosen;
                s.opencl_platform = s.opencl_device = -1;
            }
            for (const DeviceLine& d : ctx.machine.devices) {
                if (d.backend != "opencl" || d.id.empty()) continue;
                ImGui::BeginDisabled(!d.usable);
                if (ImGui::Selectable((d.id + "  " + d.name).c_str(), d.id == current)) {
                    const int p = std::stoi(d.id), dv = std::stoi(d.id.substr(d.id.find(':') + 1));
                    changed |= p != s.opencl_platform || dv != s.opencl_device;
                    s.opencl_platform = p;
                    s.opencl_device = dv;
                }
                ImGui::EndDisabled();
                if (!d.usable && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                    ImGui::SetTooltip("unusable: %s", d.why.c_str());
            }
            if (!ctx.machine.devices_listed) ImGui::TextDisabled("listing the devices ...");
            ImGui::EndCombo();
        }
        ctx.layout.push_back("opencl-device " + current);
    }
    // Which backend auto chose and why (until the user picks one).
    if (!ctx.machine.auto_why.empty() && s.backend == ctx.machine.auto_backend) {
        if (ctx.machine.gpu_ok) {  // (without a GPU the line below says why)
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextDisabled("%s", ctx.machine.auto_why.c_str());
            ImGui::PopTextWrapPos();
        }
        ctx.layout.push_back("backend-why " + ctx.machine.auto_why);
    }
    // No GPU: one wrapped line of why, and the GPU kernels' knobs folded away (they could not be turned).
    const bool portable = s.backend == Backend::OpenCl || s.backend == Backend::Gl;  // (no CUDA needed)
    if (!ctx.machine.gpu_ok && !portable) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("CUDA backends unavailable: %s", ctx.machine.gpu_why.c_str());
        ImGui::PopTextWrapPos();
        ctx.layout.push_back("gpu-knobs folded");
    }
    if (ctx.machine.gpu_ok || portable) changed |= draw_gpu_knobs(s);

    ImGui::Separator();
    changed |= enum_combo("Size policy", s.pad, pad_names());
    if (s.pad == PadMode::Pow2 || s.pad == PadMode::Square)
        changed |= enum_combo("Pad with", s.pad_fill, pad_fill_names());
    changed |= enum_combo("Window", s.window, window_names());
    if (s.window == Window::Tukey) changed |= ImGui::SliderFloat("Tukey alpha", &s.tukey_alpha, 0.0f, 1.0f);
    if (s.window == Window::Kaiser) changed |= ImGui::SliderFloat("Kaiser beta", &s.kaiser_beta, 0.0f, 20.0f);
    if (s.window != Window::None) changed |= enum_combo("Window shape", s.window_shape, window_shape_names());
    changed |= enum_combo("Level", s.level, level_names());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("subtract the mean or the least-squares plane before the window");
    changed |= enum_combo("Channel", s.channel, channel_names());
    // The ROI: drawn on the image with Shift + drag; shown here with a way back to the whole image.
    if (s.roi.whole()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("ROI: the whole image (Shift + drag on it for a part)");
        ImGui::PopTextWrapPos();
    } else {
        ImGui::Text("ROI %dx%d at (%d, %d)", s.roi.w, s.roi.h, s.roi.x, s.roi.y);
        ImGui::SameLine();
        if (ImGui::SmallButton("Whole image")) {
            s.roi = Roi{};
            changed = true;
        }
    }
    if (ctx.shown.have_frame)
        for (const auto& note : ctx.shown.frame.notes) ImGui::TextWrapped("note: %s", note.c_str());
    if (changed) ctx.dirty = true;
}

}  // namespace specview::ui
