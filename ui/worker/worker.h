// The worker: everything slow the viewer asks for happens here, never in its frame loop. A decoder thread
// reads and decodes images; a runner thread owns the Engine (and with it the GPU's stream and the FFTW plans)
// and turns settings into pictures. Requests are cheap to post and coalesce, latest wins: a slider dragged over
// fifty values queues one run, not fifty. The viewer polls for results once a frame.
//
// Pictures of the GPU backends stay on the device in one of the engine's picture slots; the viewer copies the
// slot into its texture, records the slot's "consumed" event and hands the slot back (release_slot). The
// picture on screen is never the buffer being written.
#pragma once

#include <chrono>
#include <complex>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/core/picture.h"
#include "app/engine/engine.h"
#include "app/engine/preview.h"
#include "app/io/load/load.h"
#include "app/core/settings.h"
#include "app/io/video_gpu.h"
#include "ui/worker/volume_session.h"

namespace specview {

struct DecodedImage {
    std::uint64_t image_id = 0;  // the open request's id; frames carry the image id they were computed for
    std::string path;
    std::shared_ptr<const Image> image;
    DisplayRange range;              // how the image view shows it (its picture follows: DisplayPicture)
    double decode_ms = 0;            // file read + decode
    std::vector<std::string> notes;  // the frame of a stack; NaN/Inf replaced
    std::string decoded_by;          // a video: which decoder ran ("h264 (NVDEC)", "the CPU (...)")
    // When the open was taken up, its header read, its samples decoded and this made (where a first picture's
    // time goes: the viewer's report). A stack's later frames leave the first two unset.
    std::chrono::steady_clock::time_point started, header_at, decoded_at, prepared_at;
};

// The image view's picture of a decoded image (gray replicated; see DisplayRange), made after the image was handed
// to the viewer and the engine, so that the first run does not wait for it.
struct DisplayPicture {
    std::uint64_t image_id = 0;
    int width = 0, height = 0;
    std::vector<std::uint32_t> rgba;
    // Or (rgba empty) a video frame on the device (Image::device), for the viewer to write into its texture on the
    // device (gpu/interop/gl_interop.h's gray copy); it holds the decoder's frame until dropped.
    std::shared_ptr<const Image> device_image;
};

struct RunResult {
    std::uint64_t change = 0;    // the change id the run was posted with
    std::uint64_t image_id = 0;  // the image it ran on
    Settings settings;
    bool ok = false;
    std::string error;  // when !ok
    // Set when the GPU stopped working during this run (a sticky CUDA error): why. The run was done again on the CPU
    // backend (settings.backend says so); the viewer switches to it and stops using the GPU.
    std::string gpu_lost;
    // Set when the GL backend could not run in the viewer's share group (its pictures come through the host): why.
    std::string gl_share_refused;
    Frame frame;  // when ok
    // The frequency lab's third view (filters on): Settings::lab_view of the filtered image over the image's own
    // region, as RGBA8 (gray, stretched min..max; the difference as a heat map from 0), made here off the UI
    // thread. Empty without filters.
    std::vector<std::uint32_t> lab_rgba;
    int lab_width = 0, lab_height = 0;
    float lab_lo = 0, lab_hi = 0;  // the values shown at the picture's darkest and brightest
    // When the worker took the request, when the engine started and ended (after a free picture slot), and when
    // the run ended (its result then waits for the viewer's next frame): where a change's time goes.
    std::chrono::steady_clock::time_point picked, engine_started, engine_ended, finished;
};

// A live preview of a CPU run (app/engine/preview.h), made before the run itself while settings change quickly.
struct PreviewResult {
    std::uint64_t change = 0;    // the run it previews
    std::uint64_t image_id = 0;  // the image it was made from
    Preview preview;
    std::chrono::steady_clock::time_point finished;
};

// The lab view's picture from a frame with Frame::inverse (and, for Removed/Difference, the plane it came from).
void lab_picture(const Frame& f, const float* plane, LabView view, std::vector<std::uint32_t>& rgba, int* width,
                 int* height, float* lo, float* hi);

struct ValueResult {
    std::uint64_t frame_change = 0;  // the run whose data was read
    int x = 0, y = 0;                // unshifted data coordinates
    bool ok = false;
    std::complex<double> value;
};

struct SweepResult {
    std::vector<int> threads{32, 64, 128, 256, 512, 1024};
    std::vector<int> heights{1, 2, 4, 8, 16, 32};
    std::vector<double> ms;  // row-major [height][threads]; < 0 = cannot run as asked; 0 = not yet
    std::size_t done = 0;
    bool finished = false;
};

// Seed 001's comparison, live (issue 62): the image through every backend there is, each against the CPU's (FFTW's)
// spectrum and picture.
struct CompareRow {
    std::string backend;       // the name (cpu, opencl, custom, custom-fast, cufft)
    std::string ran;           // what ran, in words (the device)
    double ms = 0;             // the run's transform + view, median of three
    double gbps = 0;           // the bytes its stages moved over their time (0: not counted)
    double max_rel_diff = 0;   // the largest |F - F_cpu| over the largest |F_cpu|
    int max_level_diff = 0;    // the largest colormap-level difference from the CPU's picture
    std::string error;         // why it could not run (the rest empty then)
};
struct CompareResult {
    std::vector<CompareRow> rows;  // cpu first
};

// One whole row of the data a row pass of the seed pipeline transforms (classroom's butterfly diagram): pass 1, a
// row of the plane fed to the FFT; pass 2, a row after the first transpose (a column of pass 1's output).
struct PlaneRow {
    std::uint64_t key = 0;
    int pass = 1, row = 0;
    std::vector<std::complex<double>> values;
};

// What the analysis plots ask of the spectrum of one run (Worker::analyse).
struct AnalysisRequest {
    bool profiles = false;   // the radial and angular power profiles (kept while the spectrum is the same)
    bool log_polar = false;  // the log-phi view: n_r radii (rows) by n_phi angles (columns)
    int n_phi = 360, n_r = 256;
    bool line = false;  // the line profile from signed bin (u0, v0) to (u1, v1)
    double u0 = 0, v0 = 0, u1 = 0, v1 = 0;
};

struct AnalysisResult {
    std::uint64_t change = 0;  // the run measured
    bool ok = false;
    std::string error;  // !ok with no error: that run's spectrum was gone (run it again to measure)
    std::optional<PowerProfiles> profiles;
    bool profiles_reused = false;  // the spectrum was the same as for the last profiles
    // The log-phi view: the settings' view values, n_r rows (radius r0..r1 bins, log-spaced, bottom row r0) by
    // n_phi columns (0..360 degrees), as RGBA8 through the colormap over their min..max.
    std::vector<std::uint32_t> log_polar_rgba;
    int n_phi = 0, n_r = 0;
    double r0 = 0, r1 = 0;  // cycles/pixel
    float lp_lo = 0, lp_hi = 0;
    // The line profile: distance from the start (cycles/pixel) and the settings' view value at each point.
    std::vector<double> line_at;
    std::vector<float> line_values;
    double line_ms = 0, log_polar_ms = 0;
};

// The phase (or plain cross-) correlation of the image shown with another one of the same size.
struct CorrelationResult {
    bool ok = false;
    bool phase = true;
    std::string error, other;
    ShiftEstimate shift;
    std::vector<std::uint32_t> rgba;  // |r| as a heat map (inferno, log scale over 4 decades), no shift at the centre
    int width = 0, height = 0;
    double ms = 0;
};

// Over a whole stack (Worker::stack_analysis): the mean power spectrum shown through the settings' view (|F| =
// sqrt(mean power)), and the time series of one bin's view value, frame by frame.
struct StackResult {
    bool ok = false;
    std::string error, path;
    int frames = 0;
    std::vector<std::uint32_t> rgba;  // the mean power spectrum, width x height, shifted as the settings say
    int width = 0, height = 0;
    int u = 0, v = 0;            // the bin of the series (signed, from DC)
    std::vector<double> series;  // its view value in each frame
    double ms = 0;
    std::string how;  // which decoder and backend measured it
};

// Everything that arrived since the last poll. Of each kind only the newest is kept.
struct WorkerUpdates {
    std::optional<DecodedImage> decoded;
    std::optional<DisplayPicture> display;  // comes with or after its decoded image
    std::optional<RunResult> run;
    std::optional<PreviewResult> preview;  // of a run not in `run` yet
    std::optional<ValueResult> value;
    std::optional<SweepResult> sweep;
    std::optional<CompareResult> comparison;
    std::optional<PlaneRow> plane_row;
    std::optional<AnalysisResult> analysis;
    std::optional<CorrelationResult> correlation;
    std::optional<StackResult> stack;
    std::optional<std::vector<gpu::KernelResources>> resources;
    std::optional<VolumeResult> volume;
    std::vector<std::pair<bool, std::string>> messages;  // (is_error, text), in order
    // GL pictures superseded before the viewer took them: their fences (GLsync), for the viewer to delete.
    std::vector<std::uint64_t> stale_gl_fences;
};

// What the worker is doing, for the spinner.
struct WorkerStatus {
    bool decoding = false;
    std::string decoding_path;
    bool running = false;  // a run is in progress or waiting
    Settings running_settings;
    bool jobs = false;  // sweep, comparison, saves
};

class Worker {
public:
    // `cpu_threads`: threads of the CPU backend (FFTW, the plane, the view); the viewer gives it every core.
    explicit Worker(int cpu_threads);
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    // Decode this file off the UI thread (a newer open replaces one not yet started). Returns the image id.
    // `check` sees the header before decoding (the viewer passes its memory check for the current settings).
    // `plan_with`: once the header has passed, the engine plans the transform for its size under these settings
    // while the samples decode (the first run then computes at once; a cuFFT plan at 8192^2 took ~150 ms there).
    // `run_after`: run these settings on the image as soon as it is decoded, as run() would (playback: the frame's
    // spectrum comes with it instead of a round trip through the viewer); a run posted meanwhile wins.
    struct RunAfterOpen {
        Settings settings;
        std::uint64_t change = 0;
        bool picture_on_device = false;
    };
    std::uint64_t open(const std::string& path, const LoadLimits& limits = {}, HeaderCheck check = {},
                       std::optional<Settings> plan_with = {}, std::optional<RunAfterOpen> run_after = {});
    // How videos opened from now on are decoded (app/io/video_gpu.h; auto: on the GPU for the GPU backends), and
    // whether the viewer writes a device frame's picture into its texture itself (else the worker downloads the
    // frame and makes the picture on the host).
    void set_video_decode(VideoDecode how, bool display_on_device);
    // Run these settings (replaces a run not yet started). `picture_on_device`: GPU pictures stay in a slot.
    // A CPU run posted within kPreviewBurst of the one before (a slider dragged, a key held) on a plane of more than
    // ~4 Mpx first publishes a preview (WorkerUpdates::preview, ~kPreviewSide a side), then runs to the end unless
    // a newer request is waiting by then.
    void run(const Settings& s, std::uint64_t change, bool picture_on_device);
    static constexpr int kPreviewSide = 1024;
    static constexpr std::chrono::milliseconds kPreviewBurst{250};
    // The complex value behind data element (x, y) of the run posted as `change` (GPU backends).
    void read_value(const Settings& s, std::uint64_t change, int x, int y);
    // Measures the spectrum of the run posted as `change` (skipped when a later run has replaced it: its frame
    // asks again). A newer request replaces one not yet started.
    void analyse(const Settings& s, std::uint64_t change, const AnalysisRequest& what);
    // Phase correlation (`phase` false: cross-correlation) of the image loaded with `other_path` (same size after
    // the settings' padding), on the CPU with these settings' plane (no mask).
    void correlate(const Settings& s, const std::string& other_path, bool phase = true);
    // The stack's mean power spectrum and the time series at signed bin (u, v), over all its frames (streamed
    // from the decoder, transformed on the CPU), as a job.
    void stack_analysis(const Settings& s, const std::string& path, int u, int v);
    void sweep(const Settings& s);
    // Every backend there is (the CUDA ones where `cuda`), each against the CPU's spectrum and picture.
    void compare(const Settings& s, bool cuda);
    void save_npy(const Settings& s, const std::string& path);
    void save_png(const Settings& s, const std::string& path);
    // The mask of these settings for a width x height transform as PATH (gray PNG) and its description (.txt).
    void save_mask(const Settings& s, int width, int height, const std::string& path);
    void plane_row(const Settings& s, std::uint64_t key, int pass, int row);
    // A stack as one volume (ui/worker/volume_session.h): its frames decoded and kept, its 3D spectrum (s.backend's
    // 3D pipeline) and the six pictures of `v`. Returns the request's id.
    std::uint64_t open_volume(const Settings& s, const std::string& path, const VolumeViewRequest& v);
    // Pictures of the open volume (transformed again first where s shapes it differently); a newer request replaces
    // one not yet started.
    std::uint64_t volume_view(const Settings& s, const VolumeViewRequest& v);
    void resources(const Settings& s);

    WorkerUpdates poll();
    WorkerStatus status() const;
    // True when nothing is queued or in progress (decode, run, value reads and jobs alike).
    bool idle() const;
    // Results wait to be polled.
    bool has_updates() const;
    // The viewer has copied the slot (and recorded its consumed event): the slot may be written again. `gl_read`: a
    // GLsync after the viewer's copy out of a GL slot, which the next GL run into it waits for on the device.
    void release_slot(int slot, std::uint64_t gl_read = 0);
    // The GL backend runs in this context of the viewer's share group from the next request on (its pictures then go
    // into slots); the worker drops its GL objects on its own thread when it stops.
    void set_gl_context(std::shared_ptr<gpu::GlSharedContext> shared);

    // Blocks until idle() (tests and the headless latency benchmark; never the viewer's frame loop).
    void wait_idle() const;

private:
    void decoder_loop();
    void make_display(std::uint64_t id, const std::shared_ptr<const Image>& img, const DisplayRange& range);
    void runner_loop();
    void do_run();
    void run_once(const Settings& settings, int slot, RunResult& r, std::uint64_t gl_wait = 0);
    void sweep_step();
    void publish_error(const std::string& text);
    // A volume job (open or view) as request `id`: its result (or error) published as WorkerUpdates::volume; a view
    // skipped when a newer volume request is waiting.
    std::uint64_t post_volume(std::function<void(VolumeResult&)> work, bool skip_when_superseded);
    int acquire_slot();  // under mu_

    mutable std::mutex mu_;
    mutable std::condition_variable cv_;       // the runner's wake-up
    std::condition_variable decode_cv_;        // the decoder's wake-up
    mutable std::condition_variable idle_cv_;  // wait_idle
    bool stop_ = false;

    // Decoder input.
    struct OpenRequest {
        std::uint64_t id;
        std::string path;
        LoadLimits limits;
        HeaderCheck check;
        std::optional<Settings> plan_with;
        std::optional<RunAfterOpen> run_after;
    };
    std::optional<OpenRequest> open_req_;
    VideoDecode video_decode_ = VideoDecode::Auto;
    bool display_on_device_ = false;
    bool decoding_ = false;
    std::string decoding_path_;
    std::uint64_t next_image_id_ = 0;

    // Runner input.
    struct PendingImage {
        std::uint64_t id;
        std::shared_ptr<const Image> image;
        std::string path;
    };
    std::optional<PendingImage> image_req_;
    struct RunRequest {
        Settings settings;
        std::uint64_t change;
        bool on_device;
        bool preview;  // a preview first (run's comment)
    };
    std::chrono::steady_clock::time_point last_run_posted_;
    int cpu_threads_ = 1;
    std::optional<RunRequest> run_req_;
    struct ValueRequest {
        Settings settings;
        std::uint64_t change;
        int x, y;
    };
    std::optional<ValueRequest> value_req_;
    struct AnalyseRequest {
        Settings settings;
        std::uint64_t change;
        AnalysisRequest what;
    };
    std::optional<AnalyseRequest> analyse_req_;
    void do_analyse(const AnalyseRequest& a);
    std::uint64_t last_run_change_ = 0;  // the run the engine's spectrum is from (0: none)
    std::string profiles_key_;           // what the kept profiles were measured on
    std::optional<PowerProfiles> profiles_;
    std::shared_ptr<const Image> image_;  // the image loaded (correlation)
    std::deque<std::function<void()>> jobs_;
    bool running_ = false;  // the runner is inside a request
    Settings running_settings_;

    // Runner-only state.
    Engine engine_;
    VolumeSession volume_;
    std::uint64_t volume_posted_ = 0;  // the newest volume request (under mu_): older views are skipped
    std::uint64_t engine_image_id_ = 0;
    std::uint64_t device_checked_id_ = 0;  // the image whose device memory need was checked (do_run)
    std::optional<SweepResult> sweep_;
    Settings sweep_settings_;

    // Picture slots: 0 free, 1 being written, 2 published (not polled yet), 3 with the viewer.
    int slot_state_[3] = {0, 0, 0};
    std::uint64_t slot_gl_read_[3] = {0, 0, 0};  // release_slot's GLsyncs, taken by the next GL run into the slot
    std::shared_ptr<gpu::GlSharedContext> gl_context_;
    bool gl_context_dirty_ = false;

    WorkerUpdates out_;

    std::thread decoder_, runner_;
};

}  // namespace specview
