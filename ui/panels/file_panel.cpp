// File: open by path (with recent files), the bundled samples, drag and drop (handled by the viewer), and
// saving the spectrum picture and the raw spectrum.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <filesystem>

#include "ui/viewer_state.h"

namespace specview::ui {

namespace {
// Both saves are requests: the worker re-runs the shown settings and downloads what it writes.
void save_png(ViewerState& st) {
    if (!st.have_frame) return show_error(st, "nothing to save yet");
    st.worker->save_png(st.frame_settings, st.save_png_path);
    show_info(st, "saving " + st.save_png_path + " ...");
}

void save_npy(ViewerState& st) {
    if (!st.have_frame) return show_error(st, "no spectrum to save yet");
    st.worker->save_npy(st.frame_settings, st.save_npy_path);
    show_info(st, "saving " + st.save_npy_path + " ...");
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
