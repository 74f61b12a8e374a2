#include "app/cli/options.h"

#include <CLI/CLI.hpp>

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
    app.add_option("images", o.inputs, "image files or directories (PNG, JPEG, BMP, TGA, GIF, PSD, HDR, PNM)");
    app.add_flag("--headless", o.headless, "no window: write the spectrum picture (-o) and/or raw spectrum (--raw)");
    app.add_option("-o,--output", o.output,
                   "output PNG; with several inputs or a directory, a directory for <name>_spectrum.png files "
                   "(default, where no other output is asked for: <name>_spectrum.png in the current directory)");
    app.add_option("--raw", o.raw,
                   "write the complex spectrum as transformed (after channel, window, padding; unshifted, "
                   "unnormalised) as complex64 .npy of shape (height, width); a directory with several inputs");
}

// Spectrum: backend, channel, window, levelling, size policy.
void add_spectrum_options(CLI::App& app, CliOptions& o) {
    auto* g_spec = "Spectrum";
    app.add_option(
           "--backend", o.backend,
           "cpu (FFTW), custom (our four-kernel CUDA pipeline), custom-fast (our fused two-pass CUDA FFT) or cufft")
        ->check(one_of(backend_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--channel", o.channel, "luma (Rec. 709 Y' of the stored values), r, g, b or a")
        ->check(one_of(channel_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option(
           "--window", o.window,
           "none, hann, hamming, tukey, blackman, blackman-harris, kaiser, flattop or welch, applied before the FFT")
        ->check(one_of(window_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option(
           "--window-shape", o.window_shape,
           "separable (w(x) w(y)) or radial (w of the distance from the centre; the content's inscribed ellipse "
           "is the window's edge)")
        ->check(one_of(window_shape_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--kaiser-beta", o.s.kaiser_beta, "Kaiser window's beta")
        ->check(CLI::Range(0.0f, 50.0f))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--level", o.level,
                   "subtract before the window: none, mean (the content's mean) or plane (its least-squares plane: "
                   "removes a tilt, as Gwyddion's levelling does)")
        ->check(one_of(level_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--tukey-alpha", o.s.tukey_alpha, "Tukey taper fraction (0 = none, 1 = Hann)")
        ->check(CLI::Range(0.0f, 1.0f))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--pad", o.pad,
                   "pow2: pad to the next power of two; crop: centred power-of-two crop; none: exact size")
        ->check(one_of(pad_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--pad-fill", o.pad_fill, "what padding holds: zero, or the mean of the image")
        ->check(one_of(pad_fill_names()))
        ->group(g_spec)
        ->capture_default_str();
}

// Picture: view, range, colormap, shift.
void add_picture_options(CLI::App& app, CliOptions& o) {
    auto* g_view = "Picture";
    app.add_option("--view", o.view, "logmag = log(1+|F|), power = 10 log10 |F|^2 (dB), phase, real, imag")
        ->check(one_of(view_names()))
        ->group(g_view)
        ->capture_default_str();
    app.add_option(
           "--range", o.range,
           "auto (min..max), percentile (--percentiles), fixed (--fixed-range), top (--top-span below the peak)")
        ->check(one_of(range_names()))
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--percentiles", o.pct, "LO HI percentiles for --range percentile")
        ->expected(2)
        ->delimiter(',')
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--fixed-range", o.fixed, "LO HI in the view's units for --range fixed")
        ->expected(2)
        ->delimiter(',')
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--top-span", o.s.view.top_span, "span below the maximum for --range top (dB for --view power)")
        ->check(CLI::PositiveNumber)
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--colormap", o.colormap, "gray, viridis, inferno, magma or turbo")
        ->check(one_of(colormap_names()))
        ->group(g_view)
        ->capture_default_str();
    app.add_flag("--no-shift", o.no_shift, "keep DC in the corner (no fftshift)")->group(g_view);
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
                   "custom: longest sub-FFT done in shared memory (power of two; 0 = what fits in 48 KiB)")
        ->group(g_gpu)
        ->capture_default_str();
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
    app.add_flag("--timings", o.timings, "print per-stage times (and GB/s, kernel resources on the GPU)");
    app.add_flag("-f,--force", o.force, "overwrite existing output files");
    app.add_option(
           "--frame", o.frame,
           "which frame of a stack: a page of a multi-page TIFF, a frame of a 3D .npy (1 = the first, as ImageJ "
           "counts slices)")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--frame-range", o.frame_range,
                   "A:B, frames A to B (inclusive, 1-based) of a stack: -o and --raw name directories of "
                   "<name>_f0001_spectrum.png / <name>_f0001.npy (streamed: a few frames in memory at once)");
    app.add_option("--stack", o.stack,
                   "a sequence of image files as one stack: a directory's images or a glob ('frames/*.png'), in "
                   "natural order (frame2 before frame10); all the same size");
    app.add_option(
           "--video-decode", o.video_decode,
           "where a video's frames are decoded: auto (on the GPU by NVDEC, in this process, when the backend is a "
           "GPU one and the driver and FFmpeg offer it; else on the CPU in the isolated decoder), gpu or cpu")
        ->check(one_of({"auto", "gpu", "cpu"}))
        ->capture_default_str();
    app.add_option("--export-video", o.export_video,
                   "write the spectrum of every frame of a stack or video (or --frame-range) as a video: .mp4, .mkv or "
                   ".avi (H.264 through libx264 when FFmpeg has it, else MPEG-4), at the source's frame rate");
    app.add_flag("--average", o.average,
                 "the mean power spectrum over the stack's frames (or --frame-range): the picture shows it with |F| = "
                 "sqrt(mean power); --raw writes the mean power as float32 (height, width)");
    app.add_option("--max-side", o.max_side, "refuse images wider or taller than this")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str();
    app.add_option("--depth", o.depth,
                   "bits per sample of the picture PNG: 8, or 16 (gray: the view values mapped linearly from the "
                   "range's low..high to 0..65535; --colormap gray)")
        ->check(CLI::IsMember({8, 16}))
        ->capture_default_str();
    app.add_flag("--fftw-measure", o.fftw_measure,
                 "CPU backend: measure FFTW plans for sizes without saved wisdom (seconds once; faster transforms "
                 "after) and keep the wisdom in ~/.cache/specview");
    app.add_option("--jobs", o.jobs_opt, "host threads in all (decoding, FFTW, encoding; default: the machine's cores)")
        ->check(CLI::Range(1, 1024));
    app.add_option("--list", o.list_file, "also read input paths from this file, one a line ('-': standard input)");
    app.add_option("--shard", o.shard,
                   "K/N: take the K-th of N disjoint parts of the inputs (0 <= K < N; by a hash of each input's path "
                   "relative to its directory, so that N processes anywhere cover each input once); auto: K and N "
                   "from Slurm's SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (or _MIN/_MAX); auto/N: K from "
                   "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID");
    app.add_option("--manifest", o.manifest,
                   "append a JSON line to this file as each input is finished: path, status (ok, failed, skipped), "
                   "error, width, height, backend, outputs, ms, shard");
    app.add_flag("--resume", o.resume,
                 "with --manifest: skip the inputs it records ok, redo the rest (overwriting what a killed run left)");
    app.add_flag("--skip-existing", o.skip_existing, "skip inputs whose outputs all exist (not with --force)");
    app.add_option("--png-level", o.png_level,
                   "PNG compression: 0 stored, 1-3 fast (run-length), 4-9 zlib's full search (smallest, slowest); "
                   "gray pictures are 8-bit gray, coloured ones RGB")
        ->check(CLI::Range(0, 9))
        ->capture_default_str();
    app.add_option("--max-memory", o.max_memory,
                   "refuse images whose decode + spectrum would need more host memory than this (e.g. 2G; default: "
                   "what the system has available)")
        ->check([](const std::string& v) {
            try {
                parse_size(v);
                return std::string();
            } catch (const std::exception& e) {
                return std::string(e.what());
            }
        });
}

// Frequency lab: filters, masks, the filtered image, profiles, correlation.
void add_lab_options(CLI::App& app, CliOptions& o) {
    auto* g_lab = "Frequency lab";
    app.add_option("--filter", o.filter_specs,
                   "mask the spectrum (repeatable; masks multiply), in cycles/pixel: lowpass:R, highpass:R, "
                   "bandpass:R1:R2, bandstop:R1:R2, notch:U:V:R (and its twin at -U,-V), wedge:ANGLE:HALF[:RMIN] "
                   "(directions within HALF degrees), stripe:ANGLE:WIDTH[:RMIN] (a band through DC; stripe:90:W "
                   "removes horizontal scan lines); edge suffix ,gauss or ,butterworth:N (ideal without). The "
                   "picture shows the masked spectrum; --raw stays unmasked")
        ->group(g_lab);
    app.add_option("--mask", o.mask_in,
                   "a mask description (lines 'filter SPEC', 'paint U V R', 'erase U V R' in spectrum bins, "
                   "'invert-mask on'), as the viewer's Save mask writes it; a .png names the .txt saved next to it")
        ->group(g_lab);
    app.add_flag("--invert-mask", o.invert_mask, "keep what the mask removes (1 - mask)")->group(g_lab);
    app.add_option("--save-mask", o.save_mask_out,
                   "write the mask as a gray PNG (DC at the centre, 255 = kept) and its description (.txt next to it); "
                   "one input")
        ->group(g_lab);
    app.add_option("--inverse", o.inverse_out,
                   "write the filtered image: .npy (float32, transform size, exact scale) or .png (the image's region, "
                   "min-max stretched); with several inputs a directory of <name>_inverse.png|npy (--inverse-format)")
        ->group(g_lab);
    app.add_option("--inverse-format", o.inverse_format, "png or npy, for --inverse directories")
        ->check(CLI::IsMember({"png", "npy"}))
        ->group(g_lab)
        ->capture_default_str();
    app.add_option(
           "--profile", o.profile_args,
           "radial|angular OUT.csv (repeatable): the radially averaged power spectrum (and its power-law slope) "
           "or the power by direction, of the unmasked spectrum; with several inputs OUT is a directory")
        ->expected(2)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->group(g_lab);
    app.add_option("--psd-fit", o.psd_fit, "A:B, the frequencies (cycles/pixel) the radial PSD slope is fitted over")
        ->group(g_lab)
        ->capture_default_str();
    app.add_option("--correlate", o.correlate,
                   "print 'shift: DX DY', where the input's content moved to in this image of the same size (phase "
                   "correlation, refined to 0.01 pixel)")
        ->group(g_lab);
    app.add_option("--correlation", o.correlation_kind,
                   "phase (normalised cross-power: a sharp peak) or cross (plain cross-correlation; its peak is the "
                   "images' normalised correlation)")
        ->check(CLI::IsMember({"phase", "cross"}))
        ->group(g_lab)
        ->capture_default_str();
    app.add_option("--correlation-map", o.correlation_map,
                   "with --correlate: write the correlation over all integer shifts as a heat map PNG (no shift at the "
                   "centre, log scale over 4 decades, inferno)")
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
    app.add_option("--frames", o.frames, "render this many frames, then exit (testing)")->group(g_ui);
    app.add_option("--screenshot", o.screenshot, "save the window as PNG on exit (with --frames)")->group(g_ui);
    app.add_option("--script", o.script, "drive the viewer from a script file, one action a line (see the README)")
        ->group(g_ui);
    app.add_flag("--offscreen", o.offscreen,
                 "draw the viewer into an offscreen EGL context on the GPU: no window and no X needed (for --script, "
                 "--frames and --screenshot on a GPU machine without a display)")
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
    if (o.resume && o.manifest.empty()) {
        std::cerr << "specview: --resume needs --manifest (the file that says what is done)\n";
        return kExitUsage;
    }
    if (o.skip_existing && o.force) {
        std::cerr << "specview: --skip-existing and --force contradict each other\n";
        return kExitUsage;
    }
    o.s.backend = *parse_name<Backend>(o.backend);
    o.s.view.view = *parse_name<View>(o.view);
    o.s.view.range = *parse_name<RangeMode>(o.range);
    o.s.view.colormap = *parse_name<Colormap>(o.colormap);
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
        else {
            std::cerr << "specview: --profile " << o.profile_args[i] << ": radial or angular\n";
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
