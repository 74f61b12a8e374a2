// What a panel works with, and nothing more: plain data, one struct per concern, and a context with the settings
// it edits (marking them changed), the picture on screen, the machine, the messages line, and the worker to post
// requests to. Panels never own the engine, the textures or the interop (ui/viewer_state.h's ViewerState does)
// and never run anything themselves: a click posts a request that the worker serves.
#pragma once

#include <imgui.h>

#include <complex>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "app/engine/devices.h"
#include "app/engine/engine.h"
#include "app/core/settings.h"
#include "ui/worker/worker.h"
#include "ui/views/plot.h"

namespace specview::ui {

// The message line: an error stays until dismissed or replaced (and goes to stderr too); info is replaced.
struct Messages {
    std::string text;
    bool is_error = false;
    // An error the next good picture does not clear (show_frame clears the others: they were about a run that
    // failed, and a later run worked): the GPU lost for this process stays said until another message replaces it.
    bool lasting = false;
    void error(const std::string& t);
    void lasting_error(const std::string& t);
    void info(const std::string& t);
};

// The GPU and the picture path, probed once at start.
struct Machine {
    gpu::DeviceInfo device;
    bool gpu_ok = false;
    std::string gpu_why;
    bool interop_ok = false;
    std::string interop_why;
    std::string auto_why;  // --backend auto: which backend it chose and why ("" when the user named one) ...
    Backend auto_backend = Backend::Cpu;  // ... and which (the why is shown while that one is selected)
    // Every backend's devices as --list-devices prints them (app/engine/devices.h), listed on a thread once the first
    // picture is shown: the Device panel's table, the OpenCL device choice, why a backend cannot be picked.
    // The viewer's GL context is 4.3+ and shares a context with the worker: the GL backend's picture goes into a
    // texture of the share group and is copied on the GPU into the view's (else it comes back to the host; why).
    bool gl_shared = false;
    std::string gl_shared_why;
    bool devices_listed = false;
    std::vector<DeviceLine> devices;
    // Why `b` cannot run here ("": it can, or it is not known yet).
    std::string unusable(Backend b) const;
};

// What is on screen: the image (shared with the engine, read-only) and the picture of the newest finished run
// for it, with the settings that picture was computed for.
struct Shown {
    std::shared_ptr<const Image> image;
    DisplayRange image_range;  // how the image view maps its values
    std::uint64_t image_id = 0;
    std::string image_path;
    Frame frame;
    Settings settings;
    bool have_frame = false;
    std::uint64_t spectrum_image_id = 0;  // the image the last spectrum taken (shown, or failed) was computed for
    std::string decoded_by;               // a video: which decoder ran (DecodedImage::decoded_by)
};

struct FileUi {
    // A stack playing: the next frame is asked for once the last one is in and 1/fps has passed.
    bool playing = false;
    float fps = 10.0f;
    double last_step = 0;
    std::deque<std::string> recent;
    std::string path_input;
    std::vector<std::string> samples;
    std::string assets_dir;
    // The images given at launch (directories expanded, in natural order): Page Down / Page Up step through them;
    // with one image given (or none), through the shown image's folder.
    std::vector<std::string> given;
    std::string save_png_path = "spectrum.png";  // <name>_spectrum.png once an image is shown (default_save_names)
    std::string names_for;                       // the image stem the default names were made for
    std::string confirm_overwrite;               // a path told "exists": saving it again overwrites
    std::string save_npy_path = "spectrum.npy";
    // A file dialog asked for this frame ("image": open one; "picture", "raw": choose where to save); the viewer
    // starts it (ui/platform/file_dialog.h) and acts on its answer.
    std::string dialog_request;
};

struct TimingsUi {
    std::vector<float> history;  // totals of recent runs, ms
    std::optional<CompareResult> comparison;
    std::optional<SweepResult> sweep;
    bool sweep_running = false;
};

// The custom kernels' resources for a configuration the shown frame did not run with, asked of the worker once
// per (image size, configuration) rather than every frame.
struct DeviceUi {
    std::vector<gpu::KernelResources> resources_cache;
    std::string resources_key;
};

struct Classroom {
    bool enabled = false;
    int step = 0;
    bool playing = false;
    double last_step_time = 0;
    float seconds_per_step = 1.5f;
    bool bit_reversed = false;  // at a row pass's last stage: leave it as it sits in shared memory
    int diagram_n = 8;
    int diagram_row = -1;  // (-1: the middle row, where a window leaves the data its full size)
    int diagram_offset = 0;
    bool show_phase = false;  // node labels: magnitude or phase
    // The butterfly diagram's row window, asked of the worker when it changes.
    PlaneRow plane_row;
    std::uint64_t plane_row_key = 0;
    // The diagram's columns (its points after each stage shown), made from plane_row when what they show changes,
    // not every frame.
    std::vector<std::vector<std::complex<double>>> diagram_cols;
    std::uint64_t diagram_cols_key = 0;
};

// The frequency lab's panel: the filter being drafted (added with a button, or edited live when `selected` picks
// one of the settings' filters), and what the third view showed last (its range).
struct LabUi {
    FilterSpec draft{FilterKind::LowPass, FilterEdge::Gauss, 2, 0.1, 0.05, 0.2, 0.125, 0.0, 90.0};
    int selected = -1;  // index into Settings::filters being edited live, -1: none
    float shown_lo = 0, shown_hi = 0;
    // The freehand brush on the spectrum view: 0 off (dragging pans), 1 paint (removes), 2 erase (restores);
    // its radius in spectrum bins. While a drag paints, the last dab's bin (a new dab every half radius).
    int brush = 0;
    float brush_radius = 4.0f;
    bool painting = false;
    float last_u = 0, last_v = 0;
    std::string mask_path = "mask.png";
    std::string confirm_overwrite;  // a mask path told "exists": saving it again overwrites
};

// The analysis plots under the views (ui/views/analysis_view.cpp): the radial PSD with its fitted slope, the angular
// profile, a line profile drawn on the spectrum, the log-phi view, and a phase correlation's heat map.
struct AnalysisUi {
    bool open = false;
    float fit_lo = 0.02f, fit_hi = 0.25f;  // the power-law fit's range, cycles/pixel
    bool log_polar = true;
    bool have_line = false;  // a line drawn on the spectrum (the Lab's line tool), signed bins
    double u0 = 0, v0 = 0, u1 = 0, v1 = 0;
    bool ask = false;  // ask the worker again (line moved, toggles changed)
    std::uint64_t asked_change = 0;
    std::optional<AnalysisResult> result;
    std::optional<CorrelationResult> correlation;
    std::string correlate_path, csv_prefix = "spectrum";
    bool phase_correlation = true;     // else plain cross-correlation
    std::optional<StackResult> stack;  // a stack's mean spectrum and one bin's time series
    int stack_u = 1, stack_v = 0;
    PlotAxes series{false, false};
    PlotAxes radial{true, true}, angular{false, true}, line{false, false};
};

struct PanelContext {
    Settings& settings;
    bool& dirty;  // set when the settings changed: the viewer posts a run
    const Shown& shown;
    const Machine& machine;
    Messages& messages;
    Worker& worker;
    std::vector<std::string>& layout;  // for tests: what was drawn where
    double max_memory = 0;             // --max-memory (0: what the machine has available)
    // Playback's step: the frame decoded and its spectrum run by the worker in one go (ui/viewer.cpp).
    std::function<void(int frame)> play_frame;
    // The volume shown as six views (null outside volume mode): the Timings panel times its stages.
    const VolumeTimes* volume = nullptr;
    // Its last pictures (null outside volume mode): the Display panel's colour bar is the volume spectrum's range.
    const VolumeResult* volume_shown = nullptr;

    bool has_image() const { return shown.image != nullptr; }
    // The picture size a run of these settings gives for the image shown.
    void picture_dims(const Settings& s, int* w, int* h) const;
    // Asks the worker to decode the file; the previous image stays until it arrives (or, on failure, with a message).
    // `frame`: which frame of a stack (0-based).
    void open(const std::string& path, int frame = 0);
};

void draw_file_panel(PanelContext& ctx, FileUi& file);
// The File panel's saves (the script's save-picture / save-raw too): refused once where the file exists, saying so; the
// same path again overwrites it. default_save_names: <name>_spectrum.png / .npy for the image shown.
void save_picture(PanelContext& ctx, FileUi& file);
void save_raw(PanelContext& ctx, FileUi& file);
void default_save_names(FileUi& file, const std::string& image_path);
// Opens the next (delta 1) or previous (-1) image of the launch list or of the shown image's folder (FileUi::given),
// wrapping around; false when there is no other image to go to.
bool step_image(PanelContext& ctx, const FileUi& file, int delta);
void draw_pipeline_panel(PanelContext& ctx);
// The calibration the viewer uses over the files' own (--pixel-size, or typed in the Display panel), and the text
// being typed.
struct Calibration {
    PixelSize pixel_size;  // not calibrated: the shown image's file's, if it says one
    std::string text;
};
// Sets the calibration from "VALUE[UNIT]" ("" or "none": the file's own); "" when done, else what is wrong.
std::string set_calibration(Calibration& c, const std::string& text);
void draw_display_panel(PanelContext& ctx, bool& presentation, const Classroom& classroom, Calibration& calibration);
void draw_timings_panel(PanelContext& ctx, TimingsUi& timings);
void draw_device_panel(PanelContext& ctx, DeviceUi& device);
void draw_classroom_panel(PanelContext& ctx, Classroom& c);
// Saves the mask of the settings shown (PNG + .txt description) through the worker; loads a description into
// the settings (filters, brush dabs, inversion replaced). Return "" or what is wrong.
std::string save_mask_from(PanelContext& ctx, const std::string& path);
std::string load_mask_into(PanelContext& ctx, const std::string& path);
void draw_lab_panel(PanelContext& ctx, LabUi& lab);
void draw_analysis_panel(PanelContext& ctx, AnalysisUi& a);
// CSV files of the shown analysis: PREFIX_radial.csv, PREFIX_angular.csv, PREFIX_line.csv (those there are).
// Returns "" and names them in `wrote`, or what is wrong.
std::string export_analysis_csv(const AnalysisUi& a, const std::string& prefix, std::string* wrote);
// The classroom caption and butterfly diagram, drawn under the views when classroom mode is on.
void draw_classroom_overlay(PanelContext& ctx, Classroom& c, ImVec2 size);
// Arrow keys step, space plays/pauses (classroom mode).
void classroom_keys(PanelContext& ctx, Classroom& c);
// Applies classroom mode's stop point (and play mode) to the settings; call once a frame before running.
void update_classroom(PanelContext& ctx, Classroom& c);

}  // namespace specview::ui
