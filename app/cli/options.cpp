#include "app/cli/options.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/cli/cli.h"
#include "app/core/filter_spec.h"
#include "app/io/memory_need.h"
#include "app/lab/mask_io.h"

namespace specview {

namespace {
// A CLI11 validator from a names list.
CLI::IsMember one_of(const std::vector<std::string>& names) { return CLI::IsMember(names); }
// The inputs and where the picture and the raw spectrum go.
void add_inputs_and_outputs_options(CLI::App& app, CliOptions& o) {
    auto* g_out = "Outputs (--headless)";
    app.add_option("images", o.inputs,
                   "image files or directories: PNG, JPEG, TIFF (8-64 bit, float, multi-page), .npy (2D, 3D), GIF "
                   "(animated), video (MP4, MOV, MKV, WebM, AVI), PSD, BMP, TGA, HDR, PNM");
    app.add_flag("--headless", o.headless, "no window: write the outputs asked for below")->group(g_out);
    app.add_option(
           "-o,--output", o.output,
           "the picture (PNG); a directory with several inputs (default, when nothing else is asked for: <name>_spectrum.png here)")
        ->group(g_out);
    app.add_option(
           "--raw", o.raw,
           "the complex spectrum as transformed (unshifted, unnormalised) as complex64 .npy; a directory with several inputs")
        ->group(g_out);
}

// Spectrum: backend, channel, window, levelling, size policy.
void add_spectrum_options(CLI::App& app, CliOptions& o) {
    auto* g_spec = "Spectrum";
    std::vector<std::string> backends = {"auto"};
    backends.insert(backends.end(), backend_names().begin(), backend_names().end());
    app.add_option("--backend", o.backend,
                   "auto (the GPU where it pays), cpu (FFTW), custom (the seed's CUDA kernels), custom-fast, "
                   "cufft, opencl, gl (the seed's in OpenCL, GL)")
        ->check(one_of(backends))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--opencl-device", o.opencl_device, "opencl: P:D, platform and device as --list-devices numbers them")
        ->group(g_spec);
    app.add_option("--channel", o.channel, "luma (Rec. 709 Y'), r, g, b or a")
        ->check(one_of(channel_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option(
           "--window", o.window,
           "applied before the FFT: none, hann, hamming, tukey, blackman, blackman-harris, kaiser, flattop, welch")
        ->check(one_of(window_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--window-shape", o.window_shape,
                   "separable (w(x) w(y)) or radial (w of the distance from the centre)")
        ->check(one_of(window_shape_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--kaiser-beta", o.s.kaiser_beta, "Kaiser window's beta")
        ->check(CLI::Range(0.0f, 50.0f))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--roi", o.roi,
                   "X:Y:W:H: the spectrum of this rectangle of the image only (image pixels, 0:0 the top-left corner)")
        ->group(g_spec);
    app.add_option("--level", o.level,
                   "subtract before the window: none, mean or plane (a fitted tilt)")
        ->check(one_of(level_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--tukey-alpha", o.s.tukey_alpha, "Tukey taper fraction (0 = none, 1 = Hann)")
        ->check(CLI::Range(0.0f, 1.0f))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--pad", o.pad,
                   "pow2 (each side to a power of two), square (both to the larger's: true aspect), crop "
                   "(centred pow2) or none")
        ->check(one_of(pad_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--pad-fill", o.pad_fill, "what the padding holds: zero, or the image's mean")
        ->check(one_of(pad_fill_names()))
        ->group(g_spec)
        ->capture_default_str();
}

// Picture: view, range, colormap, shift.
void add_picture_options(CLI::App& app, CliOptions& o) {
    auto* g_view = "Picture";
    app.add_option("--view", o.view, "logmag (log(1+|F|)), power (dB), phase, real or imag")
        ->check(one_of(view_names()))
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--range", o.range,
                   "auto (min..max), percentile (--percentiles), fixed (--fixed-range) or top (--top-span)")
        ->check(one_of(range_names()))
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--percentiles", o.pct, "LO HI percentiles for --range percentile")
        ->expected(2)
        ->allow_extra_args(false)  // (an image after the two values is an input)
        ->delimiter(',')
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--fixed-range", o.fixed, "LO HI in the view's units for --range fixed")
        ->expected(2)
        ->allow_extra_args(false)  // (an image after the two values is an input)
        ->delimiter(',')
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--top-span", o.s.view.top_span, "the span below the maximum for --range top (dB for --view power)")
        ->check(CLI::PositiveNumber)
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--colormap", o.colormap,
                   "gray, viridis, inferno, magma or turbo (default: inferno in the viewer, gray with --headless)")
        ->check(one_of(colormap_names()))
        ->group(g_view)
        ->capture_default_str();
    app.add_flag("--no-shift", o.no_shift, "keep DC in the corner (no fftshift)")->group(g_view);
    app.add_option("--pixel-size", o.pixel_size,
                   "VALUE[UNIT]: a pixel's size (pm, A, nm, um, mm, cm, m, in), over what the file says; frequencies "
                   "then also in cycles per unit")
        ->group(g_view);
}

// GPU: the custom pipeline's knobs and cuFFT's plan.
void add_gpu_options(CLI::App& app, CliOptions& o) {
    auto* g_gpu = "GPU";
    app.add_option("--threads-per-block", o.s.custom.rows.threads_per_block, "custom: row-FFT threads per block")
        ->group(g_gpu)
        ->capture_default_str();
    app.add_option("--block-height", o.s.custom.rows.block_height,
                   "custom: rows per thread block, H (power of two; 0 = automatic)")
        ->group(g_gpu)
        ->capture_default_str();
    app.add_option("--local-length", o.s.custom.rows.max_local_length,
                   "custom: longest sub-FFT in shared memory (power of two; 0 = what fits)")
        ->group(g_gpu)
        ->capture_default_str();
    app.add_flag("--merge-transposes", o.s.custom.merge_final_transposes,
                 "custom, --volume: the final two transposes as one (seed 000 5.1.2)")
        ->group(g_gpu);
    app.add_flag("--threads-2x-length", o.s.custom.rows.threads_twice_length,
                 "custom: 2 x the local length in threads a block (seed 000 4.1)")
        ->group(g_gpu);
    app.add_flag("--warp-shuffles", o.s.custom.rows.warp_shuffles,
                 "custom: a row's last 5 stages by warp shuffles (seed 000 5.2.2)")
        ->group(g_gpu);
    app.add_flag("--next-axis-stages", o.s.custom.rows.next_axis_stages,
                 "custom, --volume: each pass runs the next axis's first stages (5.1.1)")
        ->group(g_gpu);
    app.add_option("--tile", o.s.custom.transpose.tile, "custom: transpose tile (8, 16, 32, 64)")
        ->check(CLI::IsMember({8, 16, 32, 64}))
        ->group(g_gpu)
        ->capture_default_str();
    app.add_option("--cufft-mode", o.cufft_mode, "cufft: r2c (real input, half spectrum) or c2c")
        ->check(one_of(cufft_mode_names()))
        ->group(g_gpu)
        ->capture_default_str();
}

// The run: timings, overwriting, stacks and video, limits, output depth and compression, threads, path lists.
void add_run_options(CLI::App& app, CliOptions& o) {
    auto* g_out = "Outputs (--headless)";
    auto* g_stack = "Stacks and video";
    auto* g_batch = "Batches and many machines";
    auto* g_limits = "Limits and speed";
    app.add_flag("--timings", o.timings, "print per-stage times (and GB/s, kernel resources on the GPU)")->group(g_out);
    app.add_flag("-f,--force", o.force, "overwrite existing output files")->group(g_out);
    app.add_option("--frame", o.frame, "which frame of a stack (a TIFF page, a 3D .npy's frame; 1 = the first)")
        ->check(CLI::Range(1, 1000000))
        ->group(g_stack);
    app.add_option("--frame-range", o.frame_range, "A:B, frames A to B of a stack; -o and --raw then name directories")
        ->group(g_stack);
    app.add_option("--stack", o.stack, "a directory or a glob ('frames/*.png') as one stack, natural order")
        ->group(g_stack);
    app.add_option("--video-decode", o.video_decode,
                   "decode on: auto (NVDEC with a GPU backend, else the CPU), gpu or cpu")
        ->check(one_of({"auto", "gpu", "cpu"}))
        ->capture_default_str()
        ->group(g_stack);
    app.add_option("--export-video", o.export_video, "write every frame's spectrum as a video (.mp4, .mkv or .avi)")
        ->group(g_stack);
    app.add_flag("--average", o.average,
                 "the mean power spectrum over a stack's frames (--raw: the mean power, float32)")
        ->group(g_stack);
    app.add_flag("--volume", o.volume, "a stack as one volume: --raw its fftn, -o a slice; viewer: six views")
        ->group(g_stack);
    app.add_option("--slice", o.slice, "with --volume: -o's slice, z|y|x[:INDEX] (a frequency index, 0: DC)")
        ->capture_default_str()
        ->group(g_stack);
    app.add_option("--projection", o.projection, "with --volume: -o shows max or sum along --slice's axis instead")
        ->check(one_of({"max", "sum"}))
        ->group(g_stack);
    app.add_flag("--orthoslices", o.orthoslices, "with --volume: -o shows the three slices (or projections) side by side")
        ->group(g_stack);
    app.add_option("--voxel-size", o.voxel_size, "with --volume: X:Y:Z[UNIT] or one size; --profile shell per unit too")
        ->group(g_stack);
    app.add_option("--values", o.values_out, "with --volume: the view values -o shows, as float32 .npy (NaN between)")
        ->group(g_stack);
    app.add_option("--max-side", o.max_side, "refuse images wider or taller than this")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str()
        ->group(g_limits);
    app.add_option("--depth", o.depth, "bits per sample of the picture: 8, or 16 (gray view values)")
        ->check(CLI::IsMember({8, 16}))
        ->capture_default_str()
        ->group(g_out);
    app.add_flag("--fftw-measure", o.fftw_measure,
                 "cpu: measure FFTW plans once (seconds) and keep the wisdom in ~/.cache/specview")
        ->group(g_limits);
    app.add_option("--jobs", o.jobs_opt, "host threads in all (default: the machine's cores)")
        ->check(CLI::Range(1, 1024))
        ->group(g_batch);
    app.add_option("--list", o.list_file, "also read input paths from this file, one a line ('-': standard input)")
        ->group(g_batch);
    app.add_option("--shard", o.shard,
                   "K/N: the K-th of N disjoint parts of the inputs; auto (a Slurm array) or auto/N (Kubernetes)")
        ->group(g_batch);
    app.add_option("--gpus", o.gpus, "all or 0,1,3: the CUDA devices for a batch (an engine each)")
        ->group(g_batch);
    app.add_flag("--split-volume", o.split_volume, "with --volume: its 3D FFT over the --gpus (cuFFT multi-GPU)")
        ->group(g_batch);
    app.add_flag("--dry-run", o.dry_run, "with --volume: what it needs and where it would run; no transform")
        ->group(g_batch);
    app.add_option("--manifest", o.manifest, "append a JSON line (path, status, outputs, ...) as each input is done")
        ->group(g_batch);
    app.add_flag("--resume", o.resume, "with --manifest: skip the inputs it records ok, redo the rest")->group(g_batch);
    app.add_flag("--skip-existing", o.skip_existing, "skip inputs whose outputs all exist (not with --force)")
        ->group(g_batch);
    app.add_option("--png-level", o.png_level, "PNG compression: 0 stored, 1-3 fast, 4-9 zlib's smallest")
        ->check(CLI::Range(0, 9))
        ->capture_default_str()
        ->group(g_out);
    app.add_option("--max-memory", o.max_memory,
                   "the most host memory to use (e.g. 2G; default: what is free)")
        ->check([](const std::string& v) {
            try {
                parse_size(v);
                return std::string();
            } catch (const std::exception& e) {
                return std::string(e.what());
            }
        })
        ->group(g_limits);
}

// Frequency lab: filters, masks, the filtered image, profiles, correlation.
void add_lab_options(CLI::App& app, CliOptions& o) {
    auto* g_lab = "Frequency lab";
    app.add_option(
           "--filter", o.filter_specs,
           "mask the spectrum (repeatable), in cycles/pixel: lowpass:R, highpass:R, bandpass:R1:R2, bandstop:R1:R2, notch:U:V:R, wedge:ANGLE:HALF[:RMIN], stripe:ANGLE:WIDTH[:RMIN]; edges ,gauss or ,butterworth:N")
        // one SPEC each time (an image after it is an input, not a second SPEC)
        ->allow_extra_args(false)
        ->group(g_lab);
    app.add_option("--mask", o.mask_in,
                   "a mask description (.txt, or the .png saved beside it) as the viewer's Save mask writes it")
        ->group(g_lab);
    app.add_flag("--invert-mask", o.invert_mask, "keep what the mask removes (1 - mask)")->group(g_lab);
    app.add_option("--save-mask", o.save_mask_out,
                   "write the mask as a gray PNG (255 = kept) and its description (.txt); one input")
        ->group(g_lab);
    app.add_option(
           "--inverse", o.inverse_out,
           "write the filtered image: .npy (float32, exact) or .png (stretched); a directory with several inputs")
        ->group(g_lab);
    app.add_option("--inverse-format", o.inverse_format, "png or npy, for --inverse directories")
        ->check(CLI::IsMember({"png", "npy"}))
        ->group(g_lab)
        ->capture_default_str();
    app.add_option(
           "--profile", o.profile_args,
           "radial|angular|shell OUT.csv (repeatable): radial power (and its slope), power by angle, or a "
           "volume's shell")
        ->expected(2)
        ->allow_extra_args(false)  // (an image after the two values is an input)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false)
        ->group(g_lab);
    app.add_option("--psd-fit", o.psd_fit, "A:B, the frequencies (cycles/pixel) the radial slope is fitted over")
        ->group(g_lab)
        ->capture_default_str();
    app.add_option("--correlate", o.correlate,
                   "print 'shift: DX DY': where the input's content moved to in this image")
        ->group(g_lab);
    app.add_option("--correlation", o.correlation_kind,
                   "phase (normalised cross-power) or cross (plain cross-correlation)")
        ->check(CLI::IsMember({"phase", "cross"}))
        ->group(g_lab)
        ->capture_default_str();
    app.add_option("--correlation-map", o.correlation_map,
                   "with --correlate: the correlation over all shifts as a heat map PNG")
        ->group(g_lab);
}

// Viewer: classroom, presentation, scripted and offscreen runs.
void add_viewer_options(CLI::App& app, CliOptions& o) {
    auto* g_ui = "Viewer";
    app.add_flag("--classroom", o.classroom, "open the viewer in classroom mode (step through the FFT)")->group(g_ui);
    app.add_option("--step", o.classroom_step, "classroom mode: start at this step (1 = the input)")
        ->check(CLI::PositiveNumber)
        ->group(g_ui);
    app.add_flag("--walk", o.classroom_walk, "classroom mode: advance one step per frame (with --frames)")->group(g_ui);
    app.add_flag("--presentation", o.presentation, "larger fonts and a high-contrast theme")->group(g_ui);
    app.add_option("--geometry", o.geometry, "WxH: the window's size (default: the size it was last closed at)")
        ->group(g_ui);
    app.add_option("--frames", o.frames, "render this many frames, then exit (testing)")->group(g_ui);
    app.add_option("--screenshot", o.screenshot, "save the window as PNG on exit (with --frames)")->group(g_ui);
    app.add_option("--script", o.script,
                   "drive the viewer from a script file, one action a line (the README lists them)")
        ->group(g_ui);
    app.add_flag("--offscreen", o.offscreen, "draw into an offscreen EGL context on the GPU (no window, no X)")
        ->group(g_ui);
    app.add_option("--report", o.report, "with --script: write frame times and change latencies here (JSON)")
        ->group(g_ui);
}

}  // namespace

void add_options(CLI::App& app, CliOptions& o) {
    add_inputs_and_outputs_options(app, o);
    add_spectrum_options(app, o);
    add_picture_options(app, o);
    add_gpu_options(app, o);
    add_run_options(app, o);
    add_lab_options(app, o);
    add_viewer_options(app, o);
}

int finish_options(CliOptions& o) {
    if (!o.geometry.empty()) {
        char x = 0, extra = 0;
        if (std::sscanf(o.geometry.c_str(), "%d%c%d%c", &o.geometry_w, &x, &o.geometry_h, &extra) != 3 || x != 'x' ||
            o.geometry_w < 320 || o.geometry_h < 240 || o.geometry_w > 16384 || o.geometry_h > 16384) {
            std::cerr << "specview: --geometry " << o.geometry << ": WxH, each from 320x240 to 16384x16384\n";
            return kExitUsage;
        }
    }
    if (!o.pixel_size.empty())
        if (const std::string err = parse_pixel_size(o.pixel_size, &o.pixel); !err.empty()) {
            std::cerr << "specview: " << err << "\n";
            return kExitUsage;
        }
    if (!o.roi.empty())
        if (const std::string err = parse_roi(o.roi, &o.s.roi); !err.empty()) {
            std::cerr << "specview: --" << err << "\n";
            return kExitUsage;
        }
    if (o.resume && o.manifest.empty()) {
        std::cerr << "specview: --resume needs --manifest (the file that says what is done)\n";
        return kExitUsage;
    }
    if (o.skip_existing && o.force) {
        std::cerr << "specview: --skip-existing and --force contradict each other\n";
        return kExitUsage;
    }
    if (!o.gpus.empty() && (o.backend == "cpu" || o.backend == "gl" || o.backend == "opencl")) {
        std::cerr << "specview: --gpus names CUDA devices: it goes with --backend custom, cufft, custom-fast or auto\n";
        return kExitUsage;
    }
    if (!o.gpus.empty() && !o.headless) {
        std::cerr << "specview: --gpus is for --headless (the viewer runs on CUDA device 0)\n";
        return kExitUsage;
    }
    if (o.dry_run && !o.volume) {
        std::cerr << "specview: --dry-run plans a --volume\n";
        return kExitUsage;
    }
    if (o.split_volume && (!o.volume || o.gpus.empty())) {
        std::cerr << "specview: --split-volume splits a --volume over the GPUs --gpus names\n";
        return kExitUsage;
    }
    if (o.split_volume && o.backend != "cufft" && o.backend != "auto") {
        std::cerr << "specview: --split-volume runs cuFFT's multi-GPU plans: --backend cufft (or auto)\n";
        return kExitUsage;
    }
    if (!o.opencl_device.empty()) {
        char tail = 0;
        if (std::sscanf(o.opencl_device.c_str(), "%d:%d%c", &o.s.opencl_platform, &o.s.opencl_device, &tail) != 2 ||
            o.s.opencl_platform < 0 || o.s.opencl_device < 0) {
            std::cerr << "specview: --opencl-device takes P:D (platform and device, from 0: specview --list-devices), "
                         "not "
                      << o.opencl_device << "\n";
            return kExitUsage;
        }
    }
    o.auto_backend = o.backend == "auto";
    o.s.backend = o.auto_backend ? Backend::Cpu : *parse_name<Backend>(o.backend);  // (auto: decided by the work)
    o.s.view.view = *parse_name<View>(o.view);
    o.s.view.range = *parse_name<RangeMode>(o.range);
    o.s.view.colormap =
        o.colormap.empty() ? (o.headless ? Colormap::Gray : Colormap::Inferno) : *parse_name<Colormap>(o.colormap);
    o.s.window = *parse_name<Window>(o.window);
    o.s.window_shape = *parse_name<WindowShape>(o.window_shape);
    o.s.level = *parse_name<Level>(o.level);
    o.s.pad = *parse_name<PadMode>(o.pad);
    o.s.pad_fill = *parse_name<PadFill>(o.pad_fill);
    o.s.channel = *parse_name<Channel>(o.channel);
    o.s.cufft_mode = *parse_name<gpu::CufftMode>(o.cufft_mode);
    o.s.view.shift = !o.no_shift;
    o.s.view.pct_lo = o.pct[0];
    o.s.view.pct_hi = o.pct[1];
    o.s.view.fixed_lo = o.fixed[0];
    o.s.view.fixed_hi = o.fixed[1];
    if (!(o.s.view.pct_lo >= 0 && o.s.view.pct_lo < o.s.view.pct_hi && o.s.view.pct_hi <= 100)) {
        std::cerr << "specview: --percentiles needs 0 <= LO < HI <= 100\n";
        return kExitUsage;
    }
    if (!(o.s.view.fixed_lo < o.s.view.fixed_hi)) {
        std::cerr << "specview: --fixed-range needs LO < HI\n";
        return kExitUsage;
    }
    for (const std::string& spec : o.filter_specs) {
        FilterSpec f;
        const std::string err = parse_filter(spec, &f);
        if (!err.empty()) {
            std::cerr << "specview: " << err << "\n";
            return kExitUsage;
        }
        o.s.filters.push_back(f);
    }
    if (!o.mask_in.empty()) {
        std::vector<FilterSpec> mf;
        std::vector<BrushStroke> ms;
        bool inv = false;
        const std::string err = load_mask(o.mask_in, &mf, &ms, &inv);
        if (!err.empty()) {
            std::cerr << "specview: --mask " << err << "\n";
            return kExitUsage;
        }
        o.s.filters.insert(o.s.filters.end(), mf.begin(), mf.end());
        o.s.strokes = std::move(ms);
        o.s.mask_invert = inv;
    }
    if (o.invert_mask) o.s.mask_invert = !o.s.mask_invert;
    if (o.s.filters.size() > std::size_t(kMaxFilters)) {
        std::cerr << "specview: at most " << kMaxFilters << " filters (--filter and --mask together)\n";
        return kExitUsage;
    }
    for (std::size_t i = 0; i + 1 < o.profile_args.size(); i += 2) {
        if (o.profile_args[i] == "radial")
            o.radial_out = o.profile_args[i + 1];
        else if (o.profile_args[i] == "angular")
            o.angular_out = o.profile_args[i + 1];
        else if (o.profile_args[i] == "shell")
            o.shell_out = o.profile_args[i + 1];
        else {
            std::cerr << "specview: --profile " << o.profile_args[i] << ": radial, angular or shell (--volume)\n";
            return kExitUsage;
        }
    }
    {
        const std::size_t colon = o.psd_fit.find(':');
        bool ok = colon != std::string::npos;
        if (ok) {
            const std::string a = o.psd_fit.substr(0, colon), b = o.psd_fit.substr(colon + 1);
            char* e1 = nullptr;
            char* e2 = nullptr;
            o.fit_lo = std::strtod(a.c_str(), &e1);
            o.fit_hi = std::strtod(b.c_str(), &e2);
            ok = !a.empty() && !b.empty() && !*e1 && !*e2;
        }
        if (!ok || !(o.fit_lo > 0 && o.fit_lo < o.fit_hi && o.fit_hi <= 0.75)) {
            std::cerr << "specview: --psd-fit " << o.psd_fit << ": A:B with 0 < A < B <= 0.75 cycles/pixel\n";
            return kExitUsage;
        }
    }

    return kExitOk;
}

}  // namespace specview
