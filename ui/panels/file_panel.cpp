// File: open by path (with recent files), the bundled samples, drag and drop (handled by the viewer), and
// saving the spectrum picture and the raw spectrum.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <filesystem>

#include "app/cli/shared.h"    // natural_less
#include "app/io/load/load.h"  // has_image_extension
#include "ui/panels/panel.h"

namespace specview::ui {

namespace {
// Whether `path` may be written: it does not exist, or the same path was asked for again right after being told it
// does (the second Save is the confirmation); never a silent overwrite.
bool may_write(PanelContext& ctx, FileUi& file, const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) || file.confirm_overwrite == path) {
        file.confirm_overwrite.clear();
        return true;
    }
    file.confirm_overwrite = path;
    ctx.messages.error(path + " exists: Save again to overwrite it, or change the name");
    return false;
}
}  // namespace

// Both saves are requests: the worker re-runs the shown settings and downloads what it writes.
void save_picture(PanelContext& ctx, FileUi& file) {
    if (!ctx.shown.have_frame) return ctx.messages.error("nothing to save yet");
    if (!may_write(ctx, file, file.save_png_path)) return;
    ctx.worker.save_png(ctx.shown.settings, file.save_png_path);
    ctx.messages.info("saving " + file.save_png_path + " ...");
}

void save_raw(PanelContext& ctx, FileUi& file) {
    if (!ctx.shown.have_frame) return ctx.messages.error("no spectrum to save yet");
    if (!may_write(ctx, file, file.save_npy_path)) return;
    ctx.worker.save_npy(ctx.shown.settings, file.save_npy_path);
    ctx.messages.info("saving " + file.save_npy_path + " ...");
}

void default_save_names(FileUi& file, const std::string& image_path) {
    const std::string stem = std::filesystem::path(image_path).stem().string();
    if (stem.empty() || stem == file.names_for) return;
    // (a name the user typed stays; the defaults follow the image shown)
    const std::string old_png = file.names_for.empty() ? "spectrum.png" : file.names_for + "_spectrum.png";
    const std::string old_npy = file.names_for.empty() ? "spectrum.npy" : file.names_for + "_spectrum.npy";
    if (file.save_png_path == old_png) file.save_png_path = stem + "_spectrum.png";
    if (file.save_npy_path == old_npy) file.save_npy_path = stem + "_spectrum.npy";
    file.names_for = stem;
}

bool step_image(PanelContext& ctx, const FileUi& file, int delta) {
    namespace fs = std::filesystem;
    const std::string current =
        ctx.shown.image_path.empty() && !file.given.empty() ? file.given.front() : ctx.shown.image_path;
    std::vector<std::string> list = file.given;
    if (list.size() < 2 && !current.empty()) {  // the folder of the shown image, in natural order
        list.clear();
        std::error_code ec;
        const fs::path dir = fs::path(current).parent_path().empty() ? fs::path(".") : fs::path(current).parent_path();
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.is_regular_file(ec) && has_image_extension(e.path().string())) list.push_back(e.path().string());
        std::sort(list.begin(), list.end(), natural_less);
    }
    if (list.empty()) return false;
    const int n = int(list.size());
    int at = -1;
    std::error_code ec;
    for (int i = 0; i < n && at < 0; ++i)
        if (list[std::size_t(i)] == current || fs::equivalent(list[std::size_t(i)], current, ec)) at = i;
    const int next = at < 0 ? 0 : ((at + delta) % n + n) % n;
    if (next == at) return false;
    ctx.open(list[std::size_t(next)]);
    return true;
}

void draw_file_panel(PanelContext& ctx, FileUi& file) {
    ctx.layout.push_back("panel File");
    ctx.layout.push_back("save-names " + file.save_png_path + " " + file.save_npy_path);
    if (!ImGui::CollapsingHeader("File", ImGuiTreeNodeFlags_DefaultOpen)) return;
    const ImGuiStyle& style = ImGui::GetStyle();
    ImGui::SetNextItemWidth(-ImGui::CalcTextSize("OpenBrowse...").x - style.FramePadding.x * 4 - style.ItemSpacing.x * 2);
    const bool enter = ImGui::InputTextWithHint("##path", "image path (or drop a file on the window)", &file.path_input,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if ((ImGui::Button("Open") || enter) && !file.path_input.empty()) ctx.open(file.path_input);
    ImGui::SameLine();
    if (ImGui::Button("Browse...")) file.dialog_request = "image";
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("choose an image in a file dialog (o)");
    if (ImGui::BeginCombo("Recent", file.recent.empty() ? "(none yet)" : "choose...")) {
        for (const auto& r : file.recent)
            if (ImGui::Selectable(r.c_str())) {
                const std::string path = r;  // open_image reorders the list
                ctx.open(path);
                break;
            }
        ImGui::EndCombo();
    }
    if (ImGui::BeginCombo("Samples", file.samples.empty() ? "(no assets found)" : "choose...")) {
        for (const auto& s : file.samples)
            if (ImGui::Selectable(std::filesystem::path(s).filename().string().c_str())) ctx.open(s);
        ImGui::EndCombo();
    }
    // A stack (multi-page TIFF, 3D .npy): which frame; the next one decodes off the UI thread.
    if (ctx.has_image() && ctx.shown.image->frames > 1) {
        const int frames = ctx.shown.image->frames;
        int f = ctx.shown.image->frame + 1;
        if (ImGui::SliderInt("Frame", &f, 1, frames, "%d", ImGuiSliderFlags_AlwaysClamp) &&
            f - 1 != ctx.shown.image->frame)
            ctx.open(ctx.shown.image_path, f - 1);
        ImGui::SameLine();
        ImGui::TextDisabled("of %d", frames);
        // Frame steps (pausing playback), wrapping at the ends.
        if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) {
            file.playing = false;
            ctx.open(ctx.shown.image_path, (ctx.shown.image->frame + frames - 1) % frames);
        }
        ImGui::SameLine();
        if (ImGui::ArrowButton("##next", ImGuiDir_Right)) {
            file.playing = false;
            ctx.open(ctx.shown.image_path, (ctx.shown.image->frame + 1) % frames);
        }
        ImGui::SameLine();
        if (ImGui::Button(file.playing ? "Pause" : "Play")) {
            file.playing = !file.playing;
            file.last_step = ImGui::GetTime();
        }
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
        ImGui::SliderFloat("frames/s", &file.fps, 1.0f, 60.0f, "%.0f", ImGuiSliderFlags_AlwaysClamp);
        // Playing: the next frame (wrapping) once this one is decoded and its time has come. Steps keep to the
        // rate's schedule (not "a period after the frame that noticed the last one", which played a 60 frames/s
        // video at ~50 with 5 ms frames); one that falls more than a period behind starts the schedule again.
        const WorkerStatus ws = ctx.worker.status();
        // A step may come a little early (slack): at the display's own rate (60 frames/s on a 60 Hz loop), a
        // frame that came a hair before the schedule otherwise waited a whole loop (24 of 270 frames on the H100
        // machine). The schedule itself stays exact, so the average rate does not exceed the video's.
        const double now = ImGui::GetTime(), period = 1.0 / file.fps, slack = std::min(0.25 * period, 0.004);
        // And only once this frame's spectrum has come back: asking sooner, a fast decoder (NVDEC) replaced every
        // frame before its spectrum arrived (the H100 machine showed 3 spectra a second of a 4K video).
        const bool spectrum_in = ctx.shown.spectrum_image_id == ctx.shown.image_id;
        if (file.playing && !ws.decoding && spectrum_in && now - file.last_step >= period - slack) {
            file.last_step += period;
            if (now - file.last_step > period) file.last_step = now;
            ctx.play_frame((ctx.shown.image->frame + 1) % frames);
        }
        ctx.layout.push_back("frame " + std::to_string(ctx.shown.image->frame + 1) + " of " + std::to_string(frames));
        if (!ctx.shown.decoded_by.empty()) {
            ImGui::TextDisabled("decoded by %s", ctx.shown.decoded_by.c_str());
            ctx.layout.push_back("decoder " + ctx.shown.decoded_by);
        }
    } else {
        file.playing = false;
    }
    ImGui::Separator();
    // The names to save under (the defaults follow the image), a "..." to choose them in a dialog, and the saves.
    const float dots = ImGui::CalcTextSize("...").x + style.FramePadding.x * 2 + style.ItemSpacing.x;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f - dots);
    ImGui::InputText("##png", &file.save_png_path);
    ImGui::SameLine();
    if (ImGui::Button("...##png")) file.dialog_request = "picture";
    ImGui::SameLine();
    if (ImGui::Button("Save picture (PNG)")) save_picture(ctx, file);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f - dots);
    ImGui::InputText("##npy", &file.save_npy_path);
    ImGui::SameLine();
    if (ImGui::Button("...##npy")) file.dialog_request = "raw";
    ImGui::SameLine();
    if (ImGui::Button("Save raw (.npy)")) save_raw(ctx, file);
}

}  // namespace specview::ui
