// File: open by path (with recent files), the bundled samples, drag and drop (handled by the viewer), and
// saving the spectrum picture and the raw spectrum.
#include <imgui.h>
#include <imgui_stdlib.h>
#include <stb_image_write.h>

#include <filesystem>

#include "app/npy.h"
#include "ui/viewer_state.h"

namespace specview::ui {

namespace {
void save_png(ViewerState& st) {
    if (!st.have_frame) return show_error(st, "nothing to save yet");
    try {
        // Read back from the texture: the same pixels whether CUDA wrote them or the host uploaded them.
        const std::vector<std::uint32_t> px = st.spectrum_tex.read();
        std::string bytes;
        auto append = [](void* ctx, void* data, int size) {
            static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), std::size_t(size));
        };
        if (!stbi_write_png_to_func(append, &bytes, st.spectrum_tex.width(), st.spectrum_tex.height(), 4, px.data(),
                                    st.spectrum_tex.width() * 4))
            throw std::runtime_error(st.save_png_path + ": PNG encoding failed");
        write_file_atomically(st.save_png_path, bytes);
        show_info(st, "saved the spectrum picture to " + st.save_png_path);
    } catch (const std::exception& e) {
        show_error(st, e.what());
    }
}

void save_npy(ViewerState& st) {
    if (!st.have_frame || st.frame.spectrum.empty()) return show_error(st, "no spectrum to save yet");
    try {
        write_npy_complex64(st.save_npy_path, st.frame.spectrum.data(), st.frame.height, st.frame.width);
        show_info(st, "saved the raw spectrum (" + std::to_string(st.frame.height) + "x" + std::to_string(st.frame.width) +
                          " complex64) to " + st.save_npy_path);
    } catch (const std::exception& e) {
        show_error(st, e.what());
    }
}
}  // namespace

void draw_file_panel(ViewerState& st) {
    st.layout.push_back("panel File");
    if (!ImGui::CollapsingHeader("File", ImGuiTreeNodeFlags_DefaultOpen)) return;
    ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Open").x - ImGui::GetStyle().FramePadding.x * 4);
    const bool enter = ImGui::InputTextWithHint("##path", "image path (or drop a file on the window)", &st.path_input,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if ((ImGui::Button("Open") || enter) && !st.path_input.empty()) open_image(st, st.path_input);
    if (ImGui::BeginCombo("Recent", st.recent.empty() ? "(none yet)" : "choose...")) {
        for (const auto& r : st.recent)
            if (ImGui::Selectable(r.c_str())) {
                const std::string path = r;  // open_image reorders the list
                open_image(st, path);
                break;
            }
        ImGui::EndCombo();
    }
    if (ImGui::BeginCombo("Samples", st.samples.empty() ? "(no assets found)" : "choose...")) {
        for (const auto& s : st.samples)
            if (ImGui::Selectable(std::filesystem::path(s).filename().string().c_str())) open_image(st, s);
        ImGui::EndCombo();
    }
    ImGui::Separator();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    ImGui::InputText("##png", &st.save_png_path);
    ImGui::SameLine();
    if (ImGui::Button("Save picture (PNG)")) save_png(st);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    ImGui::InputText("##npy", &st.save_npy_path);
    ImGui::SameLine();
    if (ImGui::Button("Save raw (.npy)")) save_npy(st);
}

}  // namespace specview::ui
