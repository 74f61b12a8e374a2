// Device: the GPU, the interop path in use, and the custom kernels' resources at this configuration.
#include <imgui.h>

#include "ui/panels/panel.h"

namespace specview::ui {

std::string Machine::unusable(Backend b) const {
    if (cuda_backend(b)) return gpu_ok ? "" : gpu_why;
    if (!devices_listed) return "";
    const std::string key = b == Backend::OpenCl ? "opencl" : b == Backend::Gl ? "gl" : "cpu";
    std::string why;
    for (const DeviceLine& d : devices) {
        if (d.backend != key) continue;
        if (d.usable) return "";
        if (why.empty()) why = d.why;
    }
    return why.empty() ? "no device found" : why;
}

namespace {
// Every backend's devices, one row each, as `specview --list-devices` prints them.
void draw_device_table(PanelContext& ctx) {
    if (!ctx.machine.devices_listed) {
        ImGui::TextDisabled("listing every backend's devices ...");
        return;
    }
    if (!ImGui::BeginTable("devices", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
    for (const char* h : {"backend", "device", "state"}) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const DeviceLine& d : ctx.machine.devices) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted((d.backend + (d.id.empty() ? "" : " " + d.id)).c_str());
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s", d.name.c_str());
        ImGui::TableNextColumn();
        if (d.usable)
            ImGui::TextUnformatted("usable");
        else
            ImGui::TextWrapped("unusable: %s", d.why.c_str());
        ctx.layout.push_back("device-line " + d.text());
    }
    ImGui::EndTable();
}
}  // namespace

void draw_device_panel(PanelContext& ctx, DeviceUi& device) {
    ctx.layout.push_back("panel Device");
    if (!ImGui::CollapsingHeader("Device")) return;
    draw_device_table(ctx);
    ImGui::Separator();
    const gpu::DeviceInfo& d = ctx.machine.device;
    if (!d.available) {
        ImGui::TextWrapped("No CUDA GPU: %s.", d.why_unavailable.c_str());
        return;
    }
    ImGui::Text("%s", d.name.c_str());
    ImGui::Text("compute capability %d.%d, %d SMs", d.cc_major, d.cc_minor, d.sm_count);
    ImGui::Text("memory %.1f GiB (%.1f GiB free at start)", d.total_memory / 1073741824.0,
                d.free_memory / 1073741824.0);
    ImGui::Text("shared memory %d KiB/block (%d KiB opt-in), %d KiB/SM", d.max_smem_per_block / 1024,
                d.max_smem_per_block_optin / 1024, d.max_smem_per_sm / 1024);
    ImGui::TextWrapped("Picture path: %s", ctx.machine.interop_ok
                                               ? "CUDA writes the GL texture directly (interop)"
                                               : ("host copy (" + ctx.machine.interop_why + ")").c_str());
    if (ctx.shown.frame.resources.empty()) {
        const auto& c = ctx.settings.custom;
        const std::string key = ctx.shown.image_path + "|" + name_of(ctx.settings.pad) + "|" +
                                std::to_string(c.rows.threads_per_block) + "|" + std::to_string(c.rows.block_height) +
                                "|" + std::to_string(c.rows.max_local_length) + "|" + std::to_string(c.transpose.tile);
        if (key != device.resources_key) {
            device.resources_cache.clear();
            ctx.worker.resources(ctx.settings);  // the answer arrives in a later frame
            device.resources_key = key;
        }
    }
    const std::vector<gpu::KernelResources>& res =
        ctx.shown.frame.resources.empty() ? device.resources_cache : ctx.shown.frame.resources;
    if (res.empty()) return;
    ImGui::TextUnformatted("Custom kernels at this configuration:");
    if (ImGui::BeginTable("res", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        for (const char* h : {"kernel", "threads", "regs", "smem B", "blocks/SM", "occupancy"})
            ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        for (const auto& r : res) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(r.kernel.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.threads_per_block);
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.registers_per_thread);
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.static_smem_bytes + r.dynamic_smem_bytes);
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.active_blocks_per_sm);
            ImGui::TableNextColumn();
            ImGui::Text("%.0f%% (%s)", 100 * r.occupancy, r.limiter.c_str());
        }
        ImGui::EndTable();
    }
}

}  // namespace specview::ui
