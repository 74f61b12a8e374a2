// [SECTION] The command line's entry: options parsed (options.h), then the viewer, or a headless run of one stack or
// video (stack.h) or of one image or a batch (batch.h).
#include "app/cli/cli.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/cli/batch.h"
#include "app/cli/help.h"
#include "app/cli/manual.h"
#include "app/cli/options.h"
#include "app/engine/devices.h"
#include "app/cli/shard.h"
#include "app/cli/shared.h"
#include "app/cli/stack.h"
#include "app/cli/volume_run.h"
#include "app/engine/auto_backend.h"
#include "gpu/common/errors.h"
#include "gpu/runtime/device_info.h"
#include "app/io/decoder_pool.h"
#include "app/io/memory_need.h"

namespace specview {
namespace fs = std::filesystem;

namespace {

RunCommon run_common(const CliOptions& o) {
    RunCommon c;
    c.force = o.force;
    c.timings = o.timings;
    c.png_level = o.png_level;
    c.depth = o.depth;
    c.max_side = o.max_side;
    c.budget_host = o.max_memory.empty() ? 0.0 : parse_size(o.max_memory);
    return c;
}

// The CUDA device of a single engine: --gpus's first, or 0.
int first_gpu(const CliOptions& o) { return o.gpu_list.empty() ? 0 : o.gpu_list.front(); }

// --frame-range, --average, --export-video: the frames of one stack or video (`input`), streamed.
int run_frames(const CliOptions& o, const std::string& input) {
    if (o.frame != 1) {
        std::cerr << "specview: --frame picks one frame; --frame-range A:B picks several\n";
        return kExitUsage;
    }
    if (o.volume) {
        std::string clash;
        if (o.average) clash = "--average (one averages the frames' 2D spectra, the other transforms them as a volume)";
        if (!o.export_video.empty()) clash = "--export-video";
        if (!o.radial_out.empty() || !o.angular_out.empty())
            clash = "--profile radial/angular (a volume's profile is --profile shell)";
        if (!clash.empty()) {
            std::cerr << "specview: --volume goes without " << clash << "\n";
            return kExitUsage;
        }
    }
    if (has_mask(o.s) || !o.inverse_out.empty() || !o.correlate.empty() || !o.radial_out.empty() ||
        !o.angular_out.empty()) {
        std::cerr << "specview: --frame-range and --average go without the frequency lab's options (for now)\n";
        return kExitUsage;
    }
    int a = 1, b = 0;  // b = 0: to the last frame
    if (!o.frame_range.empty()) {
        char tail = 0;
        if (std::sscanf(o.frame_range.c_str(), "%d:%d%c", &a, &b, &tail) != 2 || a < 1 || b < a) {
            std::cerr << "specview: --frame-range " << o.frame_range << ": A:B with 1 <= A <= B\n";
            return kExitUsage;
        }
    }
    StackRun run;
    run.input = o.stack_sequence.empty() ? input : o.stack;
    run.files = o.stack_sequence;
    run.s = o.s;
    run.first = a - 1;
    run.last = b - 1;
    run.average = o.average;
    run.output = o.output;
    run.raw = o.raw;
    run.common = run_common(o);
    run.export_video = o.export_video;
    run.video_decode = parse_video_decode(o.video_decode);
    run.volume = o.volume;
    run.slice = o.slice;
    run.projection = o.projection;
    run.shell_out = o.shell_out;
    run.orthoslices = o.orthoslices;
    run.values_out = o.values_out;
    run.voxel_size = o.voxel_size;
    run.gpus = o.gpu_list;
    run.split_volume = o.split_volume;
    run.dry_run = o.dry_run;
    if (o.volume) {  // FFTW 3D on the CPU; cuFFT's 3D plans or the seed's 3D pipeline on the GPU
        if (o.auto_backend) {  // cuFFT where there is a GPU (custom-fast has no 3D pipeline yet)
            const gpu::DeviceInfo dev = gpu::probe_device(first_gpu(o));
            run.s.backend = dev.available || o.split_volume ? Backend::Cufft : Backend::Cpu;
            run.backend_why = o.split_volume   ? "auto: --split-volume runs cuFFT's multi-GPU plans"
                              : dev.available ? "auto: a volume runs on cuFFT where there is a GPU"
                                              : "auto: no usable GPU (" + dev.why_unavailable + ")";
        }
        DecoderPool::configure_shared(stack_decode_streams());
        return run_volume(run);
    }
    if (o.auto_backend) {  // a stack's or a video's frames: the GPU where there is one
        const gpu::DeviceInfo dev = gpu::probe_device(first_gpu(o));
        const AutoChoice c = choose_backend(AutoWork::Frames, 0, dev.available, dev.why_unavailable, 0,
                                            dev.available || run.s.pad == PadMode::None ? nullptr : &probe_gl());
        run.s.backend = c.backend;
        run.backend_why = c.why;
    }
    if (!o.export_video.empty() && o.average) {
        std::cerr << "specview: --export-video writes every frame's spectrum; --average writes one\n";
        return kExitUsage;
    }
    DecoderPool::configure_shared(stack_decode_streams());
    return run_stack(run);
}

// One image or a batch: where each input's outputs go, checked, then the pipeline.
int run_images(const CliOptions& o, const std::vector<std::string>& files, bool batch,
               const std::vector<std::string>& empty_dirs, const std::string& shard_text) {
    // Where each output goes.
    std::vector<Job> jobs;
    const std::string png_dir = batch ? (o.output.empty() ? "." : o.output) : "";
    const std::string raw_dir = batch ? o.raw : "";
    const std::string inverse_dir = batch ? o.inverse_out : "", radial_dir = batch ? o.radial_out : "",
                      angular_dir = batch ? o.angular_out : "";
    if (!o.correlation_map.empty() && (o.correlate.empty() || batch)) {
        std::cerr << "specview: --correlation-map needs --correlate and one input\n";
        return kExitUsage;
    }
    if (!o.save_mask_out.empty() && batch) {
        std::cerr << "specview: --save-mask takes one input (the mask is made for its transform size)\n";
        return kExitUsage;
    }
    if (!o.save_mask_out.empty() && fs::path(o.save_mask_out).extension() != ".png") {
        std::cerr << "specview: --save-mask " << o.save_mask_out << ": name a .png file (its .txt goes next to it)\n";
        return kExitUsage;
    }
    if (!batch && !o.inverse_out.empty()) {
        const std::string ext = fs::path(o.inverse_out).extension().string();
        if (ext != ".npy" && ext != ".png") {
            std::cerr << "specview: --inverse " << o.inverse_out << ": name a .npy or .png file\n";
            return kExitUsage;
        }
    }
    for (const std::string& dir : {png_dir, raw_dir, inverse_dir, radial_dir, angular_dir}) {
        std::error_code ec;
        if (dir.empty()) continue;
        if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
            std::cerr << "specview: " << dir
                      << ": with several inputs, -o, --raw, --inverse and --profile name directories\n";
            return kExitUsage;
        }
        fs::create_directories(dir, ec);
        if (ec) {
            std::cerr << "specview: " << dir << ": cannot create directory (" << ec.message() << ")\n";
            return kExitOutput;
        }
    }
    // The picture only when asked for (-o) or when nothing else is: --raw, --inverse, --profile, --correlate (and its
    // map) and --save-mask alone write only what they name, so that asking again under another name succeeds.
    const bool others = !o.raw.empty() || !o.inverse_out.empty() || !o.radial_out.empty() || !o.angular_out.empty() ||
                        !o.correlate.empty() || !o.correlation_map.empty() || !o.save_mask_out.empty();
    const bool picture = !o.output.empty() || !others;
    for (const auto& in : files) {
        const std::string stem = fs::path(in).stem().string();
        Job j;
        j.input = in;
        if (batch) {
            if (picture) j.png = (fs::path(png_dir) / (stem + "_spectrum.png")).string();
            if (!raw_dir.empty()) j.raw = (fs::path(raw_dir) / (stem + "_spectrum.npy")).string();
            if (!inverse_dir.empty())
                j.inverse = (fs::path(inverse_dir) / (stem + "_inverse." + o.inverse_format)).string();
            if (!radial_dir.empty()) j.radial = (fs::path(radial_dir) / (stem + "_radial.csv")).string();
            if (!angular_dir.empty()) j.angular = (fs::path(angular_dir) / (stem + "_angular.csv")).string();
        } else {
            if (picture) j.png = o.output.empty() ? stem + "_spectrum.png" : o.output;
            j.raw = o.raw;
            j.inverse = o.inverse_out;
            j.radial = o.radial_out;
            j.angular = o.angular_out;
        }
        jobs.push_back(j);
    }

    BatchSpec b;
    b.s = o.s;
    b.backend = o.backend;
    if (o.auto_backend && batch) {  // a batch: the GPU where there is one (probed once, here)
        const gpu::DeviceInfo dev = gpu::probe_device(first_gpu(o));
        const AutoChoice c = choose_backend(AutoWork::Batch, 0, dev.available, dev.why_unavailable, files.size(),
                                            dev.available || o.s.pad == PadMode::None ? nullptr : &probe_gl());
        b.s.backend = c.backend;
        b.backend = name_of(c.backend);
        std::cerr << "specview: backend " << name_of(c.backend) << " (" << c.why << ")\n";  // once, not on every line
    }
    b.auto_one_image = o.auto_backend && !batch;
    b.jobs = std::move(jobs);
    b.batch = batch;
    b.empty_dirs = empty_dirs;
    b.common = run_common(o);
    b.fftw_measure = o.fftw_measure;
    b.jobs_opt = o.jobs_opt;
    b.frame = o.frame;
    b.save_mask_out = o.save_mask_out;
    b.correlate = o.correlate;
    b.correlation_kind = o.correlation_kind;
    b.correlation_map = o.correlation_map;
    b.fit_lo = o.fit_lo;
    b.fit_hi = o.fit_hi;
    b.pixel_size = o.pixel;
    b.manifest = o.manifest;
    b.resume = o.resume;
    b.skip_existing = o.skip_existing;
    b.shard = shard_text;
    b.gpus = o.gpu_list;
    return run_batch(b);
}

// --headless: --list's paths, --stack's files, directories expanded; then a stack's frames or the images.
int run_headless(CliOptions& o) {
    if (!o.list_file.empty()) {
        std::ifstream file;
        if (o.list_file != "-") {
            file.open(o.list_file);
            if (!file) {
                std::cerr << "specview: " << o.list_file << ": cannot read the list\n";
                return kExitInput;
            }
        }
        std::istream& in = o.list_file == "-" ? std::cin : file;
        for (std::string line; std::getline(in, line);) {
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
            if (!line.empty()) o.inputs.push_back(line);
        }
    }
    if (o.depth == 16 && o.s.view.colormap != Colormap::Gray) {
        std::cerr << "specview: --depth 16 writes gray levels: it goes with --colormap gray only\n";
        return kExitUsage;
    }
    if (!o.stack.empty()) {
        if (!o.inputs.empty()) {
            std::cerr << "specview: --stack is the input: no other images with it\n";
            return kExitUsage;
        }
        std::string err;
        const std::vector<std::string> seq = stack_files(o.stack, &err);
        if (seq.empty()) {
            std::cerr << "specview: --stack " << err << "\n";
            return kExitInput;
        }
        o.inputs = {o.stack};
        o.stack_sequence = seq;
        if (o.frame_range.empty() && !o.average)
            o.frame_range = o.frame > 1 ? std::to_string(o.frame) + ":" + std::to_string(o.frame)
                                        : "1:" + std::to_string(seq.size());
        if (o.frame > 1) o.frame = 1;
    }
    if (o.inputs.empty()) {
        std::cerr << "specview: --headless needs at least one image (see --help)\n";
        return kExitUsage;
    }
    if (!o.gpus.empty()) {  // --gpus against the devices this process sees
        std::string why;
        const int count = gpu::cuda_device_count(&why);
        try {
            // (a dry run may name GPUs this machine does not have: a plan for a bigger one)
            o.gpu_list = parse_gpus(o.gpus, o.dry_run ? 16 : count, why);
        } catch (const gpu::GpuUnavailable& e) {
            std::cerr << "specview: --gpus " << o.gpus << ": " << e.what() << "\n";
            return kExitGpu;
        } catch (const gpu::ConfigError& e) {
            std::cerr << "specview: " << e.what() << "\n";
            return kExitUsage;
        }
    }
    Shard shard;
    if (!o.shard.empty()) {
        if (const std::string err = parse_shard(o.shard, &shard); !err.empty()) {
            std::cerr << "specview: " << err << "\n";
            return kExitUsage;
        }
        if (!o.stack_sequence.empty() || !o.frame_range.empty() || o.average || !o.export_video.empty()) {
            std::cerr << "specview: --shard splits a batch's inputs, not a stack's frames\n";
            return kExitUsage;
        }
    }
    bool any_dir = false;
    std::vector<std::string> empty_dirs, keys;
    std::vector<std::string> files = expand_inputs(o.inputs, &any_dir, &empty_dirs, &keys);
    // A directory without images is an input error, as a bad file is; with no image at all nothing runs.
    if (files.empty()) {
        for (const auto& d : empty_dirs) std::cerr << "specview: no images in " << d << "\n";
        return kExitInput;
    }
    const bool batch = o.stack_sequence.empty() && (files.size() > 1 || any_dir || !o.shard.empty());
    if (!o.shard.empty()) {
        std::vector<std::string> mine;
        for (std::size_t i = 0; i < files.size(); ++i)
            if (in_shard(keys[i], shard)) mine.push_back(files[i]);
        std::cerr << "specview: shard " << shard.index << "/" << shard.count << ": " << mine.size() << " of "
                  << files.size() << " inputs\n";
        if (mine.empty()) return kExitOk;  // more shards than inputs: this one has nothing to do
        files = std::move(mine);
    }
    if (!o.volume && (!o.shell_out.empty() || !o.projection.empty() || o.slice != "z" || o.orthoslices ||
                      !o.values_out.empty() || !o.voxel_size.empty())) {
        std::cerr << "specview: --profile shell, --slice, --projection, --orthoslices, --values and --voxel-size are for "
                     "--volume\n";
        return kExitUsage;
    }
    if (!o.frame_range.empty() || o.average || !o.export_video.empty() || o.volume) {
        if (batch) {
            std::cerr << "specview: --frame-range, --average, --export-video and --volume take one input (a stack or a "
                         "video)\n";
            return kExitUsage;
        }
        return run_frames(o, files.front());
    }

    return run_images(o, files, batch, empty_dirs,
                      o.shard.empty() ? "" : std::to_string(shard.index) + "/" + std::to_string(shard.count));
}

int run_viewer_from(CliOptions& o, const ViewerEntry& viewer) {
    if (!o.shell_out.empty() || !o.projection.empty() || o.slice != "z" || o.orthoslices || !o.values_out.empty() ||
        !o.voxel_size.empty()) {
        std::cerr << "specview: --profile shell, --slice, --projection, --orthoslices, --values and --voxel-size are for "
                     "--headless (the viewer's --volume has its own slices)\n";
        return kExitUsage;
    }
    if (!o.stack.empty() || !o.frame_range.empty() || o.average || !o.export_video.empty()) {
        std::cerr << "specview: --stack, --frame-range and --average are for --headless (the viewer steps a stack's "
                     "frames with the File panel's Frame slider)\n";
        return kExitUsage;
    }
    if (!viewer) {
        std::cerr << "specview: this build has no viewer (GLFW, Dear ImGui or glad were not found when it was "
                     "configured); use --headless\n";
        return kExitUsage;
    }
    if (o.offscreen && o.script.empty() && o.frames <= 0) {
        std::cerr << "specview: --offscreen has no window to close: give it --script or --frames\n";
        return kExitUsage;
    }
    if (!o.report.empty() && o.script.empty()) {
        std::cerr << "specview: --report needs --script\n";
        return kExitUsage;
    }
    // A directory opens as the CLI takes it: its images in natural order (the viewer steps through them with Page
    // Down / Page Up). One without images stays as given: the viewer says what it is.
    std::vector<std::string> images;
    for (const std::string& in : o.inputs) {
        std::error_code ec;
        std::string none;
        const std::vector<std::string> files =
            fs::is_directory(in, ec) ? stack_files(in, &none) : std::vector<std::string>{};
        if (files.empty())
            images.push_back(in);
        else
            images.insert(images.end(), files.begin(), files.end());
    }
    ViewerLaunch launch{images,           o.s,
                        o.classroom,      o.presentation,
                        o.classroom_step, o.classroom_walk,
                        o.frames,         o.screenshot,
                        o.script,         o.report,
                        o.offscreen,      o.max_memory.empty() ? 0.0 : parse_size(o.max_memory),
                        o.frame - 1,      parse_video_decode(o.video_decode),
                        o.pixel,          o.geometry_w,
                        o.geometry_h};
    // auto: decided once the GPU is probed (while the window opens); the file opens meanwhile under the CPU path's
    // memory check, the larger need.
    launch.auto_backend = o.auto_backend;
    launch.volume = o.volume;
    return viewer(launch);
}

}  // namespace

int cli_main(int argc, char** argv, const ViewerEntry& viewer) {
    CLI::App app{
        "specview: an image's 2D Fourier spectrum, live in a window or written by --headless (GPU or CPU).\n"
        "One channel as values in [0, 1], windowed, padded; the picture has DC in the centre.",
        "specview"};
    app.footer(std::string("\nExamples:\n"
                           "  specview assets/grating_16_8.png                 open the viewer\n"
                           "  specview --headless photo.jpg -o spectrum.png    write the log-magnitude picture\n"
                           "  specview --headless photo.jpg --raw F.npy --view power --colormap inferno --timings\n"
                           "  specview --headless --backend custom dir/ -o out/ (every image in dir/)\n\n") +
               kExitCodesHelp);

    app.set_version_flag("--version", std::string("specview ") + SPECVIEW_VERSION);
    CliOptions o;
    add_options(app, o);
    // The manual and the completion, from this table (the build installs them); in no group: not in --help.
    bool print_man = false, print_completion = false;
    app.add_flag("--list-devices", o.list_devices, "every backend's devices (CUDA, OpenCL P:D, CPU), usable or why not");
    app.add_flag("--print-man", print_man)->group("");
    app.add_flag("--print-bash-completion", print_completion)->group("");
    app.formatter(std::make_shared<HelpFormatter>());
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return report_parse_error(app, e, argc, argv);
    }
    if (print_man || print_completion) {
        std::cout << (print_man ? man_page(app, SPECVIEW_VERSION) : bash_completion(app));
        return kExitOk;
    }
    if (const int code = finish_options(o); code != kExitOk) return code;
    if (o.list_devices) {
        for (const DeviceLine& d : list_devices()) std::cout << d.text() << "\n";
        return kExitOk;
    }
    return o.headless ? run_headless(o) : run_viewer_from(o, viewer);
}

}  // namespace specview
