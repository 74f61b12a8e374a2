// Everything the viewer shows and edits, as plain data: the panels are free functions over this struct.
#pragma once

#include <imgui.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/engine.h"
#include "app/settings.h"
#include "app/worker.h"
#include "ui/gl_texture.h"

#ifdef SPECVIEW_HAS_GL_INTEROP
#include "gpu/gl_interop.h"
#endif

namespace specview::ui {

// How a view maps its texture to the screen: `zoom` screen pixels per texel around texel (cx, cy), or fit.
struct ViewTransform {
    bool fit = true;
    float zoom = 1.0f;
    float cx = 0.0f, cy = 0.0f;
};

// What the cursor is over, filled while the views are drawn.
struct Hover {
    bool active = false;
    int x = 0, y = 0;  // texel
};

// The scripted viewer's record: one entry per change of settings, the frame times (ui/script.h).
struct ChangeRecord {
    int line = 0;             // script line (0: a change made by hand)
    std::string action;
    double t_posted = 0;      // seconds on the viewer's clock
    double ready_ms = -1;     // < 0: not (yet) in the texture; superseded ones stay so
    bool superseded = false;
};

struct Classroom {
    bool enabled = false;
    int step = 0;
    bool playing = false;
    double last_step_time = 0;
    float seconds_per_step = 1.5f;
    bool bit_reversed = false;  // at a row pass's last stage: leave it as it sits in shared memory
    int diagram_n = 8;
    int diagram_row = 0;
    int diagram_offset = 0;
    bool show_phase = false;    // node labels: magnitude or phase
};

struct ViewerState {
    // The worker owns the engine; the viewer posts requests and polls results, never waits.
    std::unique_ptr<Worker> worker;
    gpu::DeviceInfo device;
    Settings settings;
    bool dirty = true;  // settings or image changed: post a run this frame

    // The image shown (shared with the engine, read-only), and the picture shown: the frame of the newest
    // finished run for this image, with the settings it was computed for.
    std::shared_ptr<const Image> image;
    std::uint64_t image_id = 0;
    Frame frame;
    Settings frame_settings;
    bool have_frame = false;
    std::uint64_t change = 0;        // bumps with every run posted
    std::uint64_t frame_change = 0;  // the change the shown picture was computed for
    std::uint64_t done_change = 0;   // the newest change whose run ended: shown, or failed with a message
    bool copy_pending = false;       // the picture's copy into the texture may still run on the device
    std::uint64_t copy_change = 0;
    // The cursor readout on the GPU backends: the value of one bin, asked of the worker when the cursor moves.
    ValueResult value;
    bool value_asked = false;
    std::uint64_t value_change = 0;
    int value_x = -1, value_y = -1;
    std::vector<ChangeRecord> changes;
    std::vector<int> frame_lines;    // scripted runs: the script line of each frame (report's "frame_line")
    std::map<std::uint64_t, std::size_t> change_index;  // change id -> index into changes
    int script_line = 0;             // the line the next changes belong to (0: by hand)
    std::string script_action;
    // A script's `hover U V`: the spectrum bin the readout shows instead of the mouse's.
    bool script_hover = false;
    int script_hover_x = 0, script_hover_y = 0;  // texel

    // Image.
    std::string image_path;
    StagedTexture image_tex;  // uploaded a band a frame, shown when complete
    std::deque<std::string> recent;
    std::string path_input;
    std::vector<std::string> samples;
    std::string assets_dir;

    // Spectrum picture: a GL texture CUDA writes directly, or uploaded from the host.
    StagedTexture spectrum_tex;  // interop copies go into its front; host pictures are staged
    // A host picture on its way into the texture, with the run it belongs to (shown when complete).
    std::optional<RunResult> staged_frame;
#ifdef SPECVIEW_HAS_GL_INTEROP
    gpu::GlInteropTexture interop;
#endif
    bool interop_ok = false;
    std::string interop_why;
    bool gpu_ok = false;
    std::string gpu_why;

    // Messages: errors stay until dismissed or replaced; info fades.
    std::string message;
    bool message_is_error = false;

    // Views.
    ViewTransform image_view, spectrum_view;
    bool sync_views = true;
    Hover image_hover, spectrum_hover;

    // Device panel: the custom kernels' resources for a configuration the last frame did not run with,
    // asked of the worker once per (image size, configuration) rather than every frame.
    std::vector<gpu::KernelResources> resources_cache;
    std::string resources_key;

    // Timings.
    std::vector<float> history;  // totals of recent runs, ms
    std::optional<CompareResult> comparison;
    std::optional<SweepResult> sweep;
    bool sweep_running = false;

    // Classroom: the butterfly diagram's row window, asked of the worker when it changes.
    PlaneRow plane_row;
    std::uint64_t plane_row_key = 0;

    Classroom classroom;
    bool presentation = false;
    std::string save_png_path = "spectrum.png";
    std::string save_npy_path = "spectrum.npy";

    // For tests: what was drawn where (framebuffer pixels), written next to a screenshot.
    std::vector<std::string> layout;
};

// Seconds on the viewer's clock (steady).
double viewer_clock();

void show_error(ViewerState& st, const std::string& text);
void show_info(ViewerState& st, const std::string& text);
// Asks the worker to decode the file; the previous image stays until it arrives (or on failure, with the error).
void open_image(ViewerState& st, const std::string& path);
// Posts a run of the current settings to the worker (latest wins).
void run_pipeline(ViewerState& st);
// Takes what the worker finished: a decoded image, a picture (copied into the texture), values, messages.
void apply_worker_updates(ViewerState& st);
// Whether the last picture's copy into the texture has completed on the device (marks its change ready).
void poll_copy(ViewerState& st);
bool gpu_backend(const Settings& s);
bool has_image(const ViewerState& st);
// The picture size a run of these settings gives for the current image.
void picture_dims(const ViewerState& st, const Settings& s, int* w, int* h);
// The picture for the latest posted settings is in the texture, and the worker has nothing left to do.
bool picture_current(const ViewerState& st);

// Panels: each reads and edits the state and marks it dirty when a re-run is needed.
void draw_file_panel(ViewerState& st);
void draw_pipeline_panel(ViewerState& st);
void draw_display_panel(ViewerState& st);
void draw_timings_panel(ViewerState& st);
void draw_device_panel(ViewerState& st);
void draw_classroom_panel(ViewerState& st);
// The classroom caption and butterfly diagram, drawn under the views when classroom mode is on.
void draw_classroom_overlay(ViewerState& st, ImVec2 size);
// Arrow keys step, space plays/pauses (classroom mode).
void classroom_keys(ViewerState& st);
// Applies classroom mode's stop point (and play mode) to the settings; call once a frame before running.
void update_classroom(ViewerState& st);

}  // namespace specview::ui
