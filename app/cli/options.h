// The command line's options: one table (add_options) that CLI11 parses into CliOptions, then finish_options turns
// the named choices into Settings and checks what CLI11 cannot (ranges between options, the lab's specs).
#pragma once

#include <string>
#include <vector>

#include "app/core/calibration.h"
#include "app/core/settings.h"
#include "app/io/png_write.h"

namespace CLI {
class App;
}

namespace specview {

struct CliOptions {
    std::vector<std::string> inputs;
    bool headless = false, timings = false, force = false, no_shift = false, classroom = false, presentation = false;
    std::string output, raw;
    // The first picture a user sees (issue 59, chosen by looking at photos, micrographs and gratings): a Hann window
    // (no edge cross) and a percentile range; the viewer in a perceptual colormap (colormap "" until given: inferno
    // in the viewer, gray on --headless, whose default picture stays an 8-bit gray PNG).
    std::string backend = "auto", view = "logmag", range = "percentile", colormap, window = "hann", pad = "pow2",
                pad_fill = "zero", channel = "luma", cufft_mode = "r2c", window_shape = "separable", level = "none";
    Settings s;  // the numeric options bind straight into it; finish_options sets the named ones
    std::vector<float> pct{s.view.pct_lo, s.view.pct_hi}, fixed{s.view.fixed_lo, s.view.fixed_hi};
    std::string pixel_size;  // --pixel-size VALUE[UNIT]; parsed into pixel
    std::string roi;         // --roi X:Y:W:H; parsed into s.roi
    bool auto_backend = false;  // --backend auto (the default): s.backend is decided by the work (auto_backend.h)
    std::string geometry;    // --geometry WxH; parsed into geometry_w, geometry_h
    int geometry_w = 0, geometry_h = 0;
    PixelSize pixel;
    int max_side = 16384;
    int frame = 1;
    std::string frame_range, stack, export_video, video_decode = "auto";
    std::vector<std::string> stack_sequence;  // --stack's files, in natural order (run_headless)
    bool average = false;
    // --volume: the stack as one volume (app/volume): --slice AXIS[:INDEX], --projection max|sum, --profile shell.
    bool volume = false, orthoslices = false;
    std::string slice = "z", projection, values_out, voxel_size;
    std::string max_memory;
    int png_level = kDefaultPngLevel;
    int jobs_opt = 0;
    int depth = 8;
    bool fftw_measure = false;
    std::string opencl_device;  // --opencl-device P:D; parsed into s.opencl_platform, s.opencl_device
    bool list_devices = false;
    std::string list_file;
    std::string shard;  // --shard K/N | auto | auto/N (shard.h)
    // --gpus all|0,1,3: the CUDA devices (a batch: an engine each; a stack, a volume: the first; --split-volume: a
    // volume's 3D FFT over all of them by cuFFT's multi-GPU plans).
    std::string gpus;
    bool split_volume = false;
    bool dry_run = false;  // --dry-run: with --volume, what would run where, from the first frame
    std::vector<int> gpu_list;  // --gpus as parsed against the devices there are (run_headless)
    std::string manifest;
    bool resume = false, skip_existing = false;
    int frames = 0, classroom_step = 1;
    bool classroom_walk = false;
    std::string screenshot, script, report;
    bool offscreen = false;
    std::vector<std::string> filter_specs, profile_args;
    std::string inverse_out, inverse_format = "png", psd_fit = "0.02:0.25", correlate, mask_in, save_mask_out;
    std::string correlation_kind = "phase", correlation_map;
    bool invert_mask = false;
    // From --profile and --psd-fit (finish_options).
    std::string radial_out, angular_out, shell_out;
    double fit_lo = 0, fit_hi = 0;
};

// Every option, its help, its check and its group, bound to o's fields.
void add_options(CLI::App& app, CliOptions& o);
// After parsing: the named choices into o.s, --filter and --mask into its mask, --profile and --psd-fit checked.
// kExitOk, or kExitUsage with the reason on stderr.
int finish_options(CliOptions& o);

}  // namespace specview
