// The GPU side of the engine, behind a CUDA-free interface: a real plane in, a spectrum picture (and, on
// request, the complex spectrum) out, through our own pipeline or cuFFT, with per-kernel timings.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/common/mask_math.h"
#include "gpu/common/spectrum_math.h"
#include "gpu/common/config.h"
#include "gpu/common/errors.h"
#include "gpu/common/run_result.h"

namespace specview::gpu {

enum class Path : int { Custom = 0, Cufft, CustomFast };

struct PlaneRecipe;

struct GpuRequest {
    // The plane: made on the device from the image by `recipe` (see gpu/plane/plane_prep.h), or uploaded from
    // `plane` (host, width x height, row-major) when there is no recipe.
    const PlaneRecipe* recipe = nullptr;
    const float* plane = nullptr;
    int width = 0, height = 0;
    // The plane is uploaded when this differs from the last run's (0: always upload).
    std::uint64_t plane_version = 0;
    Path path = Path::Custom;
    CustomConfig custom;
    CufftMode cufft_mode = CufftMode::R2C;
    StopPoint stop;  // custom path only
    ViewParams view;
    bool want_spectrum = false;                    // download the complex data (unshifted)
    bool want_rgba = true;                         // download the picture (in `picture`'s format)
    PictureFormat picture = PictureFormat::Rgba8;  // Level8/Level16: levels instead of colours (not with slots)
    // The frequency lab: the mask's filters (the picture shows the masked spectrum; built on the device, kept
    // while they stay the same), and the inverse of the masked spectrum (GpuResult::inverse).
    std::vector<FilterSpec> filters;
    std::vector<BrushStroke> strokes;  // on top of the filters (mask_math.h), and the whole mask inverted
    bool mask_invert = false;
    bool want_inverse = false;
    // With want_inverse and a picture slot: the third view is made on the device into the slot's lab picture
    // (GpuResult::device_lab_rgba, lab_w x lab_h from (lab_x, lab_y) of the plane) and the filtered plane is not
    // downloaded. lab_kind: LabPictureKind (0 filtered, 1 removed part, 2 difference).
    bool lab_on_device = false;
    // Adds |F|^2 of this run's unmasked spectrum to the engine's power sum on the device (take_power_sum).
    bool accumulate_power = false;
    int lab_kind = 0;
    int lab_x = 0, lab_y = 0, lab_w = 0, lab_h = 0;
    std::uint64_t surface = 0;  // cudaSurfaceObject_t to write the picture into (0: none)
    // >= 0: the picture stays on the device in this picture slot (see GpuEngine::slot_data); the stream first
    // waits until the slot's previous picture has been copied out (slot_consumed_event).
    int picture_slot = -1;
};

// What a run produced: the picture (in a slot, on the host, or in a surface), the spectrum on request, timings.
// app/engine's Frame is one of these with what the app adds.
using GpuResult = RunResult;

class GpuEngine {
public:
    // Throws GpuUnavailable when there is no usable device.
    explicit GpuEngine(int device = 0);
    ~GpuEngine();
    GpuEngine(const GpuEngine&) = delete;
    GpuEngine& operator=(const GpuEngine&) = delete;

    const DeviceInfo& info() const;
    // The plan: the first run of a path at a size and configuration builds what later runs reuse (cuFFT plans,
    // scratch buffers, the CUB scratch, kernel attributes, the lazily loaded kernel modules) by running the
    // pipeline once, untimed, its picture left on the device. Returns its wall milliseconds; 0 when planned
    // already. Makes the request's plane first when it changed (that is not part of the plan's time).
    double plan(const GpuRequest& req);
    // Runs (planning first if needed: then the plan's time is its own timing line, outside total_ms).
    GpuResult run(const GpuRequest& req);
    // Picture slots: device buffers that hold finished pictures until a consumer (the viewer's texture copy)
    // has taken them. The consumer records slot_consumed_event(i) (a cudaEvent_t) on its stream after its copy;
    // the next run into slot i waits for that event on the device, never on the host.
    static constexpr int kPictureSlots = 3;
    std::uint64_t slot_consumed_event(int slot) const;
    // The same for the slot's third-view picture (its own consumer: the viewer's lab texture).
    std::uint64_t slot_lab_consumed_event(int slot) const;

    // The 2D DFT of the plane of the last run at unshifted bin (kx, ky), 0 <= kx < width, 0 <= ky < height,
    // summed directly on the device in double precision (one pass over the plane: no spectrum is kept).
    std::complex<double> plane_dft_bin(int kx, int ky);
    // The radial and angular power profiles of the last full run's unmasked spectrum, reduced on the device.
    PowerSums power_sums();
    // The sum runs with accumulate_power added (width x height doubles, unshifted), downloaded once; how many
    // runs; the sum starts again. Throws ConfigError when runs of different sizes were added.
    int take_power_sum(std::vector<double>& sum, int* width, int* height);
    // The last full run's unmasked spectrum at unshifted bins (kx[i], ky[i]), gathered on the device.
    std::vector<std::complex<float>> spectrum_bins(const std::vector<int>& kx, const std::vector<int>& ky);
    // Element (x, y) of the data the last custom-path run stopped at (classroom stops), x < its width.
    std::complex<float> stopped_element(int x, int y);

    // Resources of the custom pipeline's kernels for a size and configuration, without running it.
    std::vector<KernelResources> resources(int width, int height, const CustomConfig& cfg);

    struct Impl;

private:
    // One run's steps (gpu_engine.cu, "One run, in named steps") and what they share.
    struct RunState;
    void begin_run(RunState& r);
    void choose_target(RunState& r);
    void transform_and_picture(RunState& r);
    void filtered_image(RunState& r);
    void add_power(RunState& r);
    void lab_view(RunState& r);
    void remember_spectrum(RunState& r);
    void download(RunState& r);
    GpuResult finish_run(RunState& r);

    std::vector<KernelTiming> make_plane(const GpuRequest& req, bool wait = true);
    std::unique_ptr<Impl> impl_;
};

}  // namespace specview::gpu
