// The engine: an image and settings in, a Frame out (the spectrum picture, optionally the complex spectrum,
// timings), through the chosen backend. The UI and the CLI only talk to this.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/lab/analysis.h"
#include "app/core/image.h"
#include "app/core/plane.h"
#include "app/core/settings.h"
#include "gpu/common/config.h"
#include "gpu/common/gl_context.h"
#include "gpu/common/run_result.h"

namespace specview {

struct Preview;

struct RunOptions {
    bool want_spectrum = false;  // keep the complex spectrum (unshifted) in the frame
    bool want_rgba = true;       // the picture in host memory
    std::uint64_t surface = 0;   // GPU backends: a cudaSurfaceObject_t to write the picture into
    // GPU backends: >= 0 leaves the picture on the device in this slot (Frame::device_rgba) for the viewer to
    // copy into its texture; see gpu::GpuEngine's picture slots.
    int picture_slot = -1;
    // The GL backend with the viewer's shared context (Engine::set_gl_context) and a picture slot: a GLsync the
    // slot's last reader left (0: none), waited for on the device before the slot is written.
    std::uint64_t gl_slot_wait = 0;
    // This image runs once (the CLI): nothing is kept for a later run. The CPU backend makes the plane straight
    // into FFTW's buffer from the samples and keeps no full spectrum for readouts (Frame::host_data).
    bool one_shot = false;
    // How the picture comes back (no classroom stop): RGBA8 colours in Frame::rgba, or levels in Frame::levels
    // (Level8: the colormap level, 1 byte a pixel; Level16: lo..hi -> 0..65535, 2 bytes) for a file writer, a
    // quarter or half of the bytes to download and convert.
    PictureFormat picture = PictureFormat::Rgba8;
    // The inverse transform of the (masked) spectrum in Frame::inverse: the filtered plane.
    bool want_inverse = false;
    // GPU backends, with want_inverse and a picture slot: the lab's third view (Settings::lab_view over the
    // content) is made on the device into the slot (Frame::device_lab_rgba) instead of downloading the inverse.
    bool lab_on_device = false;
    // Adds |F|^2 of this run's unmasked spectrum to a running sum the backend keeps (on the device for the GPU
    // backends: nothing is downloaded per frame), for a stack's mean power spectrum; Engine::take_power_sum.
    bool accumulate_power = false;
    // Asked between the stages of a CPU run (after the plane, after the FFT): true gives up the run, which throws
    // RunCancelled (the viewer's worker: a newer request is waiting). Runs on the GPU are not cut short.
    std::function<bool()> cancelled;
};

// A run given up because RunOptions::cancelled said so; what the backend kept of earlier runs is gone.
struct RunCancelled : std::runtime_error {
    RunCancelled() : std::runtime_error("run cancelled: a newer one is waiting") {}
};

using SharedSpectrum = std::shared_ptr<const std::vector<std::complex<float>>>;

// A run's outcome as the app sees it: gpu::RunResult (the picture — RGBA8 row-major, shifted when view.shift, or
// levels of level_bytes(picture) each; the spectrum, row-major and unshifted; the filtered image at the transform
// size; the range, timings with total_ms covering the transform and view stages, notes on clamps and fallbacks, the
// custom pipeline's resources and row plans as launched — on the CPU model as they would be on an H100) and:
struct Frame : gpu::RunResult {
    int image_width = 0, image_height = 0;
    int content_x = 0, content_y = 0, content_w = 0, content_h = 0, crop_x = 0, crop_y = 0;
    bool rgba_on_surface = false;
    // GPU, with RunOptions::picture_slot: the slot holding the picture (RunResult::device_rgba) and the cudaEvent_t
    // the consumer records after copying it; with lab_on_device, the same for the third view.
    int picture_slot = -1;
    std::uint64_t slot_consumed_event = 0;
    std::uint64_t slot_lab_consumed_event = 0;
    // The GL backend with a picture slot: the RGBA8 texture (of the viewer's share group) the picture is in, and a
    // GLsync signalled when it is there (the reader waits on it on the device, then deletes it).
    std::uint64_t gl_texture = 0, gl_ready = 0;
    // CPU backend: the data the picture shows (the spectrum, or the classroom stop's data), unshifted,
    // width x height; shared, never copied. GPU backends keep theirs on the device (Engine::read_value).
    SharedSpectrum host_data;
    std::string backend;  // what actually ran, in words
};

// The picture's size for an image of image_w x image_h under these settings (transposed at classroom stops
// between the transposes).
void picture_size(const Settings& s, int image_w, int image_h, int* width, int* height);

// The measurements of a spectrum the analysis plots show (app/lab/analysis.h), and where and how fast they were made.
struct PowerProfiles {
    Profile radial, angular;
    double ms = 0;
    std::string where;  // "GPU (...)" or "CPU (n threads)"
};

class Engine {
public:
    // The CUDA backends run on this device (as --list-devices numbers them; a batch with --gpus has an engine each).
    explicit Engine(int cuda_device = 0);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // The GL backend runs in this context (the viewer's share group) from its next creation on, instead of a headless
    // context of its own: its pictures can go into slots (RunOptions::picture_slot, Frame::gl_texture).
    void set_gl_context(std::shared_ptr<gpu::GlSharedContext> shared);
    bool gl_shares_context() const;
    // Why the GL backend runs in a context of its own although a shared one was given (it could not be made current
    // on this thread): its pictures come through the host. Empty while the share holds or none was given.
    const std::string& gl_share_refused() const;

    void set_image(Image img, std::string name);
    void set_image(std::shared_ptr<const Image> img, std::string name);
    bool has_image() const;

    // Builds the plan for an image of image_w x image_h under these settings before the image is here (the CLI
    // calls it when a decoder has read the header, so that planning overlaps decoding and the run computes
    // once). Returns its milliseconds (0: planned already); the next run() reports them as its plan line.
    // Throws like run().
    double plan_for(const Settings& s, int image_w, int image_h);

    // Throws InputError (e.g. --channel a without alpha), gpu::GpuUnavailable, gpu::ConfigError, gpu::GpuError.
    Frame run(const Settings& s, const RunOptions& o = {});

    // The complex value behind picture element (x, y) of the last run with these settings, in unshifted data
    // coordinates: the spectrum bin (a direct DFT of the plane on the device for the GPU backends, so nothing
    // is downloaded but 16 bytes), or the classroom stop's data element.
    std::complex<double> read_value(const Settings& s, int x, int y);
    // The running sum of |F|^2 (width x height, unshifted) that runs with RunOptions::accumulate_power added to,
    // and how many runs did; the sum starts again at zero. 0 when nothing was added. Throws gpu::ConfigError
    // when runs of different sizes were added.
    int take_power_sum(std::vector<double>& sum, int* width, int* height);
    // The radial and angular power profiles of the last run's unmasked spectrum (the run must have been with
    // these settings, to the end); on the GPU they are reduced on the device and only the bins come back.
    PowerProfiles power_profiles(const Settings& s);
    // Unmasked spectrum values of the last run at unshifted bins (kx[i], ky[i]), for the line profile and the
    // log-phi view; every bin must lie in the transform.
    std::vector<std::complex<float>> spectrum_bins(const Settings& s, const std::vector<int>& kx,
                                                   const std::vector<int>& ky);

    // The plane fed to the FFT for these settings (prepared now if needed).
    const PreparedPlane& prepared(const Settings& s);

    // The live preview of the spectrum run() would show for these settings (app/engine/preview.h), made on the CPU
    // whatever the backend; false when the plane is too small for one. Throws like run().
    bool preview(const Settings& s, int max_side, int threads, Preview& out);

    // The GPU, probed once; never throws.
    const gpu::DeviceInfo& device_info();
    // Why the GPU can no longer be used in this process ("" while it can): set when a GPU backend hit a sticky CUDA
    // error (gpu::GpuContextLost, which the call that hit it rethrows). From then on device_info() says the GPU is
    // unavailable and every GPU backend throws GpuContextLost at once; the CPU backend goes on.
    const std::string& gpu_lost() const;
    // Custom-pipeline kernel resources for the current image size (empty without a GPU or image).
    std::vector<gpu::KernelResources> custom_resources(const Settings& s);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace specview
