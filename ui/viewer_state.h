// The viewer's state: the owner of the worker, textures and interop (ViewerState), with the panels' plain data
// (ui/panels/panel.h) inside it.
#pragma once

#include <imgui.h>

#include <chrono>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/engine/engine.h"
#include "app/core/settings.h"
#include "ui/worker/worker.h"
#include "ui/platform/gl_texture.h"
#include "ui/panels/panel.h"
#include "ui/platform/file_dialog.h"

#ifdef SPECVIEW_HAS_GL_INTEROP
#include "gpu/interop/gl_interop.h"
#endif

namespace specview::ui {

// How a view maps its texture to the screen: `zoom` screen pixels per texel around texel (cx, cy), or fit.
struct ViewTransform {
    bool fit = true;
    float zoom = 1.0f;           // screen pixels per texel across
    float cx = 0.0f, cy = 0.0f;  // the texel at the view's centre
    // A texel's height over its width on screen, set each frame by what is shown: 1 for images; for a spectrum of
    // W x H bins W / H, its bins' true aspect (1/W by 1/H cycles/pixel), so a circle of frequencies stays a circle.
    float aspect = 1.0f;
};

// What the cursor is over, filled while the views are drawn.
struct Hover {
    bool active = false;
    int x = 0, y = 0;      // texel
    float fx = 0, fy = 0;  // where in it, in texels
};

// The scripted viewer's record: one entry per change of settings, the frame times (ui/script/script.h).
struct ChangeRecord {
    int line = 0;  // script line (0: a change made by hand)
    std::string action;
    double t_posted = 0;       // seconds on the viewer's clock
    double ready_ms = -1;      // change -> picture in the textures; < 0: not (yet); superseded ones stay so
    double seen_ms = -1;       // change -> the frame that noticed it (quantised by the frame rate)
    double frame_wait_ms = 0;  // of ready_ms, how long the finished run waited for the next frame to take it
    // Of ready_ms too: posted -> the worker took it; took it -> the engine started (a free picture slot); the
    // engine's run; the engine's end -> the run's end (host-side pictures). < 0: not known.
    double pickup_ms = -1, slot_wait_ms = -1, engine_ms = -1, after_engine_ms = -1;
    // GPU pictures: the interop copy into the spectrum texture and the lab's (< 0: none): the host's time issuing
    // it, then on the device the map (it waits for GL's earlier work), the copies and the unmap.
    struct Copy {
        double issue_ms = -1, map_ms = -1, copy_ms = -1, unmap_ms = -1;
    } copy;
    bool superseded = false;
    // change -> its live preview in the texture (CPU runs while a slider moves; Worker::run); < 0: none shown.
    double preview_ms = -1;
};

// A stack shown as one volume (issue 61; ui/views/volume_view.h): what the six views ask of the worker and show.
struct VolumeUi {
    bool enabled = false;      // --volume, the "As a volume" box, the script's `set volume true`
    bool view_dirty = false;   // a slice moved (pictures only)
    std::string path;          // the file the worker holds as a volume ("": none asked yet)
    VolumeViewRequest view;    // the slices asked for
    std::uint64_t posted = 0;  // the newest request's id
    std::uint64_t arrived = 0;
    std::optional<VolumeResult> shown;  // the last result (its pictures shared with the worker's session)
    // A setting changed while the six views were shown: the hidden 2D picture is made when the volume mode is left,
    // not beside every volume transform.
    bool stale_2d = false;
    StagedTexture tex[6];               // image xy, xz, yz; spectrum kx-ky, kx-kz, ky-kz
    // Each view's zoom (1: the whole slice) around (u, v), the shown part's centre in [0, 1] of its texture: the wheel
    // over a view, a right drag, the script's zoom / pan (the spectrum's three) and fit (all six).
    struct Zoom {
        float zoom = 1.0f, u = 0.5f, v = 0.5f;
    } zoom[6];
    float view_w = 1.0f, view_h = 1.0f;  // a spectrum view's size on screen (the script's pan is in pixels)
    std::uint64_t uploading = 0;        // the request whose pictures are on their way into tex (0: none)
    PlotAxes shell_axes;                // the shell power spectrum's plot
    // Each request and when its pictures were in the textures (the report's "volume_changes").
    struct Change {
        std::uint64_t id = 0;
        int line = 0;
        std::string action;
        double t_posted = 0, ready_ms = -1;  // ready < 0: not (yet); superseded ones stay so
        bool transformed = false;
        double decode_ms = 0, transform_ms = 0, pictures_ms = 0, shape_ms = 0, fft_ms = 0, shell_ms = 0;
        double copy_ms = 0, queue_ms = 0, work_ms = 0, taken_ms = -1;  // taken: posted -> the viewer had the result
        double frames_ms = 0;          // of shape_ms: the frames in (up to a GPU)
        bool frames_resident = false;  // a GPU's kept frames served (none went up)
        double range_ms = 0;           // of pictures_ms: the spectrum's range
    };
    std::vector<Change> changes;
    VolumeTimes times;  // the last transform's stages and the latest pictures' time (the Timings panel)
};

// The owner: the worker (and through it the engine), the textures and the interop, the change bookkeeping, and
// the panels' plain data. Only ui/viewer.cpp and the script runner touch it whole; panels get a PanelContext.
struct ViewerState;
void play_frame(ViewerState& st, int frame);  // below
// A key as the keyboard or the script's `key K` presses it: "pagedown", "pageup", "f", "1", "c", "s", "p", "k", "?",
// "o" (Ctrl+O too: open in a file dialog), "ctrl+s" (save the picture as, in a file dialog).
void press_key(ViewerState& st, const std::string& key);

struct ViewerState {
    std::unique_ptr<Worker> worker;  // the viewer posts requests and polls results, never waits
    Machine machine;
    std::future<std::vector<DeviceLine>> device_listing;  // list_devices() on its own thread (Machine::devices)
    std::string gpu_lost_message;  // the GPU stopped working in a run: said once this poll is taken
    Settings settings;
    Calibration calibration;  // --pixel-size or the Display panel's (not calibrated: the image's own, if its file says)
    bool dirty = true;     // settings or image changed: post a run this frame
    Shown shown;
    Messages messages;
    FileUi file;
    TimingsUi timings;
    DeviceUi device_ui;
    Classroom classroom;
    bool presentation = false;

    std::uint64_t change = 0;        // bumps with every run posted
    std::uint64_t frame_change = 0;  // the change the shown picture was computed for
    double first_picture_ms = -1;    // the viewer's start -> the first picture in the textures
    double first_decode_ms = -1;     // of that, the first image's read and decode (the worker's figure)
    // Where the first picture's time went: milliseconds on the viewer's clock at each step (< 0: not reached).
    // The report's "startup" object; the engine's split of the run is the first change's (pickup, engine, ...).
    struct Startup {
        double window = -1, probed = -1, interop = -1, open = -1, decode_started = -1, header = -1, decoded = -1,
               prepared = -1, taken = -1, posted = -1, engine_started = -1, engine_ended = -1, run_taken = -1,
               written = -1, image_shown = -1;
    } startup;
    // Every new image the viewer showed (the first one and each opened later; not a stack's next frame): when the
    // worker took up its open, when it was decoded, how long the read + decode took (the worker's figure), and
    // when its first picture reached the textures (ms on the viewer's clock; < 0: not yet). The report's "opens".
    struct OpenRecord {
        std::string path;
        double started = -1, decoded = -1, decode_ms = -1, picture = -1;
        double rss_mib = -1;             // the viewer's resident memory when its picture arrived
        double gpu_mib = -1;             // and the GPU's memory in use, on a CUDA backend (< 0: not one)
        std::uint64_t after_change = 0;  // its picture is the first of a run posted after this change
    };
    std::vector<OpenRecord> opens;
    std::vector<std::pair<std::string, double>> first_run_timings;  // the first picture's run, as its frame lists them
    // A stack or video: each frame whose spectrum reached the textures (0-based) and when (ms on the viewer's clock),
    // in order, a frame once per run of it: the report's "stack_frames", playback's achieved rate.
    std::vector<std::pair<int, double>> stack_frames;
    std::uint64_t done_change = 0;  // the newest change whose run ended: shown, or failed with a message
    bool copy_pending = false;      // the picture's copy into the texture may still run on the device
    void* gl_copy_done = nullptr;   // a GL slot's copy: its GLsync (signalled once the copy is done), polled
    std::uint64_t copy_change = 0;
    // The cursor readout on the GPU backends: the value of one bin, asked of the worker when the cursor moves.
    ValueResult value;
    bool value_asked = false;
    std::uint64_t value_change = 0;
    int value_x = -1, value_y = -1;
    std::vector<ChangeRecord> changes;
    std::vector<int> frame_lines;  // scripted runs: the script line of each frame (report's "frame_line")
    // Frames over 20 ms, split by phase (report's "slow_frames"): where a frame that froze the window spent it.
    struct SlowFrame {
        int frame = 0;
        double total_ms = 0, begin_ms = 0, updates_ms = 0, build_ms = 0, render_ms = 0, copy_ms = 0;
    };
    std::vector<SlowFrame> slow_frames;
    std::map<std::uint64_t, std::size_t> change_index;  // change id -> index into changes
    int script_line = 0;                                // the line the next changes belong to (0: by hand)
    std::string script_action;
    // A script's `hover U V`: the spectrum bin the readout shows instead of the mouse's.
    bool script_hover = false;
    int script_hover_x = 0, script_hover_y = 0;  // texel

    StagedTexture image_tex;     // uploaded a band a frame, shown when complete
    StagedTexture lab_tex;       // the frequency lab's third view (filters on), made by the worker
    StagedTexture spectrum_tex;  // interop copies go into its front; host pictures are staged
    // A host picture on its way into the texture, with the run it belongs to (shown when complete).
    std::optional<RunResult> staged_frame;
    // The live preview of a change newer than the picture shown (a CPU run on its way): drawn over the spectrum's
    // place, in its geometry, until a picture of that change or a later one is shown.
    GlTexture preview_tex;
    std::uint64_t preview_change = 0;
    Preview preview;  // its description (rgba emptied once uploaded)
#ifdef SPECVIEW_HAS_GL_INTEROP
    // One registration per texture of spectrum_tex and lab_tex (the lab's third view, copied from the same slot).
    gpu::GlInteropTexture interop[2];
    gpu::GlInteropTexture lab_interop[2];
    gpu::GlInteropCopier copier;  // both views' pictures, one map a copy
    // The image view's picture from host memory through CUDA (the driver's staging and DMA) instead of
    // glTexSubImage2D; back to GL uploads for good after an error.
    gpu::GlInteropTexture image_interop[2];
    gpu::GlInteropCopier image_copier;
    // A video frame on the device written into the image texture: held until that copy is done.
    std::shared_ptr<const Image> image_copy_source;
    bool image_upload_gl = false;
#endif

    // Views.
    ViewTransform image_view, spectrum_view, lab_view;
    bool sync_views = true;
    // A view a button or the script moved this frame (0 image, 1 spectrum, 2 lab; -1 none): with sync_views, the
    // others follow it once the views are drawn.
    int view_moved = -1;
    bool panels_hidden = false;  // p: the side panel hidden
    bool keys_shown = false;     // k or ?: the list of keys
    Hover image_hover, spectrum_hover, lab_hover;
    LabUi lab;
    AnalysisUi analysis;
    VolumeUi volume;
    // A rectangle being drawn on the image view (Shift + left drag): its corners in image pixels.
    struct RoiDrag {
        bool active = false;
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    } roi_drag;
    FileDialog dialog;       // open / save as (File panel, the o key)
    float readout_h = 0;     // the readout's height last frame (it wraps)
    float panel_w = 0;       // the side panel's width the user dragged its edge to (0: the default)
    std::string roi_let_go;  // said after the poll's messages: the ROI did not fit the image that came
    GlTexture logphi_tex;     // the analysis strip's log-phi view (small: uploaded at once)
    StagedTexture corr_tex;   // the phase correlation's heat map (image-sized: staged)
    StagedTexture stack_tex;  // a stack's mean power spectrum

    // For tests: what was drawn where (framebuffer pixels), written next to a screenshot.
    std::vector<std::string> layout;

    PanelContext context() {
        return PanelContext{settings, dirty,      shown,
                            machine,  messages,   *worker,
                            layout,   max_memory, [this](int frame) { play_frame(*this, frame); },
                            volume.enabled && volume.times.transform_ms > 0 ? &volume.times : nullptr,
                            volume.enabled && volume.shown ? &*volume.shown : nullptr};
    }
    std::uint64_t prerun_image_id = 0;  // the frame play_frame asked for (its run comes with it)
    double max_memory = 0;              // --max-memory
};

// Seconds on the viewer's clock (steady).
double viewer_clock();
double viewer_clock_of(std::chrono::steady_clock::time_point t);  // the same clock's reading at t

// Posts a run of the current settings to the worker (latest wins).
void run_pipeline(ViewerState& st);
// Playback: frame `frame` of the stack shown, decoded and run with the current settings by the worker in one go.
void play_frame(ViewerState& st, int frame);
// Takes what the worker finished: a decoded image, a picture (copied into the texture), values, messages.
void apply_worker_updates(ViewerState& st);
// Whether the last picture's copy into the texture has completed on the device (marks its change ready).
void poll_copy(ViewerState& st);
bool gpu_backend(const Settings& s);
// The picture of a run of these settings stays on the device (a CUDA slot through interop, or a GL slot).
bool picture_on_device(const ViewerState& st, const Settings& s);
// The picture for the latest posted settings is in the texture, and the worker has nothing left to do.
bool picture_current(const ViewerState& st);

}  // namespace specview::ui
