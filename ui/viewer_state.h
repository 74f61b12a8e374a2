// Everything the viewer shows and edits, as plain data: the panels are free functions over this struct.
#pragma once

#include <imgui.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "app/engine.h"
#include "app/settings.h"
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

struct Comparison {
    bool valid = false;
    double custom_ms = 0, cufft_ms = 0, max_rel_diff = 0;
    int max_level_diff = 0;
};

// threads per block x block height, timed one configuration per frame so the window stays live.
struct Sweep {
    std::vector<int> threads{32, 64, 128, 256, 512, 1024};
    std::vector<int> heights{1, 2, 4, 8, 16, 32};
    std::vector<double> ms;  // row-major [height][threads]; < 0 = cannot run
    std::size_t next = 0;
    bool running = false;
    bool done = false;
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
    Engine engine;
    Settings settings;
    Frame frame;
    bool have_frame = false;
    bool dirty = true;  // settings or image changed: re-run in this frame

    // Image.
    std::string image_path;
    GlTexture image_tex;
    std::deque<std::string> recent;
    std::string path_input;
    std::vector<std::string> samples;
    std::string assets_dir;

    // Spectrum picture: a GL texture CUDA writes directly, or uploaded from the host.
    GlTexture spectrum_tex;
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
    // asked for once per (image size, configuration) rather than every frame.
    std::vector<gpu::KernelResources> resources_cache;
    std::string resources_key;

    // Timings.
    std::vector<float> history;  // totals of recent runs, ms
    Comparison comparison;
    Sweep sweep;

    Classroom classroom;
    bool presentation = false;
    std::string save_png_path = "spectrum.png";
    std::string save_npy_path = "spectrum.npy";

    // For tests: what was drawn where (framebuffer pixels), written next to a screenshot.
    std::vector<std::string> layout;
};

void show_error(ViewerState& st, const std::string& text);
void show_info(ViewerState& st, const std::string& text);
// Loads the file; on failure the previous image stays and the error is shown.
bool open_image(ViewerState& st, const std::string& path);
// Runs the engine for the current settings into the spectrum texture (interop when possible).
void run_pipeline(ViewerState& st);
bool gpu_backend(const Settings& s);

// Panels: each reads and edits the state and marks it dirty when a re-run is needed.
void draw_file_panel(ViewerState& st);
void draw_pipeline_panel(ViewerState& st);
void draw_display_panel(ViewerState& st);
void draw_timings_panel(ViewerState& st);
void draw_device_panel(ViewerState& st);
void draw_classroom_panel(ViewerState& st);
// The classroom caption and butterfly diagram, drawn under the views when classroom mode is on.
void draw_classroom_overlay(ViewerState& st, ImVec2 size);
// One configuration of a running sweep (called once a frame).
void sweep_step(ViewerState& st);
// Arrow keys step, space plays/pauses (classroom mode).
void classroom_keys(ViewerState& st);
// Applies classroom mode's stop point (and play mode) to the settings; call once a frame before running.
void update_classroom(ViewerState& st);

}  // namespace specview::ui
