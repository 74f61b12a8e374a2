#include "app/cli/volume_run.h"

#include <stb_easy_font.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <new>
#include <sstream>

#include "app/cli/cli.h"
#include "app/cli/shared.h"
#include "app/core/picture.h"
#include "app/engine/volume_gpu.h"
#include "app/io/load/load.h"
#include "app/io/npy.h"
#include "app/lab/analysis.h"
#include "app/volume/volume.h"
#include "gpu/runtime/device_info.h"

namespace specview {
namespace fs = std::filesystem;

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

constexpr int kLabelRows = 14, kPanelGap = 8;

std::string short_number(double v) {  // 0.1, 0.5, 2: as a user writes a size
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

// Where no panel is (NaN values): a dark gray; each panel's label above it in white (stb_easy_font's quads filled).
void draw_panels(Frame& pic, const std::vector<float>& values, const std::vector<VolumeSpectrum::Panel>& panels) {
    const bool l16 = pic.picture == PictureFormat::Level16;
    auto put = [&](int x, int y, bool text) {
        if (x < 0 || y < 0 || x >= pic.width || y >= pic.height) return;
        const std::size_t i = std::size_t(y) * pic.width + x;
        if (l16) {
            const std::uint16_t v = text ? 0xFFFF : 0x2020;
            std::memcpy(&pic.levels[2 * i], &v, 2);
        } else {
            pic.rgba[i] = text ? 0xFFFFFFFFu : 0xFF202020u;
        }
    };
    for (int y = 0; y < pic.height; ++y)
        for (int x = 0; x < pic.width; ++x)
            if (std::isnan(values[std::size_t(y) * pic.width + x])) put(x, y, false);
    static char quads[64 * 1024];
    for (std::size_t k = 0; k < panels.size(); ++k) {
        const auto& p = panels[k];
        const int end = k + 1 < panels.size() ? panels[k + 1].x - 2 : pic.width;  // into the gap, not the next label
        const int n = stb_easy_font_print(float(p.x + 2), 3.0f, const_cast<char*>(p.label.c_str()), nullptr, quads,
                                          int(sizeof quads));
        for (int q = 0; q < n; ++q) {  // 4 vertices of 16 bytes (x, y, z, colour) each; an axis-aligned rectangle
            float v[4][4];
            std::memcpy(v, quads + q * 64, sizeof v);
            for (int y = int(v[0][1]); y < int(v[2][1]); ++y)
                for (int x = int(v[0][0]); x < int(v[2][0]) && x < end; ++x) put(x, y, true);
        }
    }
}
// Host bytes a volume of geometry g needs on the CPU path (and a split's): FFTW's in-place buffer and a plane of --raw.
double host_bytes(const VolumeGeometry& g) {
    return 8.0 * (double(g.width) / 2 + 1) * g.height * g.depth + 8.0 * double(g.width) * g.height;
}

std::string gpu_list_text(const std::vector<int>& gpus) {
    std::string t;
    for (int g : gpus) t += (t.empty() ? "" : ",") + std::to_string(g);
    return t;
}

// The split's need on each GPU against what it has free: an InputError naming both where one falls short.
void check_split_need(const StackRun& r, const gpu::MultiGpuLayout& l, const std::string& what) {
    for (const gpu::MultiGpuShare& sh : l.shares) {
        const gpu::DeviceInfo d = gpu::probe_device(sh.gpu);
        const double need = sh.data_bytes + sh.work_bytes;
        if (d.available && need > double(d.free_memory))
            throw InputError(r.input, what + " and split over GPUs " + gpu_list_text(r.gpus) + " needs about " +
                                          human_bytes(need) + " on GPU " + std::to_string(sh.gpu) + "; " +
                                          human_bytes(double(d.free_memory)) + " free on the " + d.name +
                                          " (name more GPUs with --gpus, or try --pad crop or --frame-range)");
    }
}

// --dry-run: the volume's size from its first frame, the memory it needs, and where it would run (one GPU, the split
// over --gpus with what each holds, or the CPU); the largest cube the named GPUs could take split. Nothing transformed.
int dry_run_volume(const StackRun& r) {
    LoadLimits limits;
    limits.max_side = r.common.max_side;
    limits.max_pixels = std::uint64_t(r.common.max_side) * std::uint64_t(r.common.max_side);
    limits.check_available_memory = false;
    int w = 0, h = 0, total = 0;
    try {
        decode_stack_frames(r, limits, {}, nullptr, 1, [&](Image img) {
            w = img.width;
            h = img.height;
            total = r.files.empty() ? img.frames : int(r.files.size());
            return false;
        });
    } catch (const InputError& e) {
        std::cerr << "specview: " << e.what() << "\n";
        return kExitInput;
    }
    if (total < 1) {
        std::cerr << "specview: " << r.input << ": no frames\n";
        return kExitInput;
    }
    if (!r.s.roi.whole()) w = r.s.roi.w, h = r.s.roi.h;
    const int end = r.last >= 0 ? std::min(r.last, total - 1) : total - 1;
    const int depth = end - r.first + 1;
    const VolumeGeometry g = volume_geometry(r.s.pad, w, h, depth);
    const double host = host_bytes(g);
    std::cout << r.input << ": " << w << "x" << h << "x" << depth << " -> " << g.width << "x" << g.height << "x"
              << g.depth << " volume; host memory about " << human_bytes(host) << " ("
              << human_bytes(double(available_memory_bytes())) << " available)\n";
    std::string none_why;
    const int count = gpu::cuda_device_count(&none_why);
    if (count == 0) std::cout << "  (no GPU here: " << none_why << "; the GPU lines are the plan alone)\n";
    auto device_line = [count](int gpu) {
        if (gpu >= count) return "GPU " + std::to_string(gpu) + " not on this machine";
        const gpu::DeviceInfo d = gpu::probe_device(gpu);
        return d.available ? human_bytes(double(d.free_memory)) + " free on GPU " + std::to_string(gpu) + " (" +
                                 d.name + ")"
                           : "GPU " + std::to_string(gpu) + " not usable: " + d.why_unavailable;
    };
    const int first = r.gpus.empty() ? 0 : r.gpus.front();
    if (r.s.backend == Backend::Cpu) {
        std::cout << "  CPU (FFTW 3D, in place)\n";
        return kExitOk;
    }
    const double one = GpuVolumeFft::device_bytes(r.s, g.width, g.height, g.depth);
    const gpu::DeviceInfo d0 = gpu::probe_device(first);
    const bool fits_one = d0.available && one <= double(d0.free_memory);
    std::cout << "  one GPU (" << name_of(r.s.backend) << "): about " << human_bytes(one) << "; " << device_line(first)
              << (d0.available ? (fits_one ? ": fits" : ": does not fit") : "") << "\n";
    if (r.gpus.size() < 2 || r.s.backend != Backend::Cufft) return kExitOk;
    const std::string when = r.split_volume ? "split"
                             : !d0.available ? "split where it does not fit one GPU (always with --split-volume)"
                             : fits_one      ? "split only with --split-volume"
                                             : "split (it does not fit one)";
    const std::string why = gpu::multi_gpu_refusal(r.gpus, g.width, g.height, g.depth);
    std::cout << "  " << when << " over GPUs " << gpu_list_text(r.gpus) << " by cuFFT's multi-GPU plan"
              << (why.empty() ? ":" : ": refused: " + why) << "\n";
    if (!why.empty()) return kExitOk;
    const gpu::MultiGpuLayout l = gpu::estimate_multi_gpu_layout(r.gpus, g.width, g.height, g.depth);
    std::istringstream lines(l.text());
    std::size_t k = 0;
    for (std::string line; std::getline(lines, line); ++k)
        std::cout << "  " << line << "; " << device_line(l.shares[k].gpu) << "\n";
    {  // what the split cannot beat: one all-to-all of the slabs over NVLink (H100 SXM: 450 GB/s a direction a GPU)
        const double n = double(l.shares.size()), moved = l.shares.front().data_bytes * (n - 1) / n;
        std::cout << "  all-to-all floor: " << human_bytes(moved) << " out of each GPU once, "
                  << fmt(moved / 450e9 * 1e3) << " ms at NVLink 4's 450 GB/s a direction (H100 SXM's figure)\n";
    }
    // (no GPU here: an H100's 79.2 GiB; 5% left for the context and the plan's own)
    const double each = d0.available ? double(d0.total_memory) : 79.2 * 1024 * 1024 * 1024;
    std::cout << "  largest cube split over " << r.gpus.size() << " GPUs of " << human_bytes(each)
              << (d0.available ? "" : " (an H100's)") << ": "
              << gpu::largest_split_cube(int(r.gpus.size()), each * 0.95) << "^3 (estimated)\n";
    return kExitOk;
}
}  // namespace

int run_volume(const StackRun& r) {
    VoxelSize voxel;
    if (!r.voxel_size.empty()) {
        if (const std::string err = parse_voxel_size(r.voxel_size, &voxel); !err.empty()) {
            std::cerr << "specview: " << err << "\n";
            return kExitUsage;
        }
    }
    bool voxel_from_file = false;
    VolumeAxis axis = VolumeAxis::Z;
    int index = 0;
    if (!parse_volume_slice(r.slice, &axis, &index)) {
        std::cerr << "specview: --slice " << r.slice << ": z, y or x, optionally :INDEX (a signed frequency index)\n";
        return kExitUsage;
    }
    const std::string stem = r.files.empty() ? fs::path(r.input).stem().string()
                                             : fs::path(r.files.front()).parent_path().filename().string() + "_stack";
    const std::string tag = r.projection.empty() ? "_slice_" + std::string(axis_name(axis)) + std::to_string(index)
                                                 : "_" + r.projection + "_" + axis_name(axis);
    const bool asked = !r.raw.empty() || !r.shell_out.empty() || !r.values_out.empty();
    const std::string png =
        !r.output.empty() ? r.output : (asked ? "" : stem + "_volume" + (r.orthoslices ? "_orthoslices" : tag) + ".png");
    for (const std::string& o : {png, r.raw, r.shell_out, r.values_out}) {
        std::error_code ec;
        if (!o.empty() && !r.common.force && fs::exists(o, ec)) {
            std::cerr << "specview: " << o << ": exists; use --force to overwrite\n";
            return kExitOutput;
        }
    }
    if (r.dry_run) return dry_run_volume(r);
    // With two or more --gpus on cuFFT the 3D FFT is split over them: always with --split-volume, else when the
    // volume does not fit the first (check_need decides). The host holds the volume; cuFFT's multi-GPU plan
    // transforms it (gpu/engine/multi_gpu_volume.h) and the views are made on the host, as on the CPU backend.
    const bool may_split = r.gpus.size() >= 2 && r.s.backend == Backend::Cufft;
    bool split = r.split_volume;
    // A GPU backend: its engine first (no usable GPU is exit 4 before any frame is decoded).
    std::unique_ptr<GpuVolumeFft> engine;
    if (r.s.backend != Backend::Cpu && !split) {
        try {
            engine = std::make_unique<GpuVolumeFft>(r.s, r.gpus.empty() ? 0 : r.gpus.front());
        } catch (const std::invalid_argument& e) {
            std::cerr << "specview: " << e.what() << "\n";
            return kExitUsage;
        } catch (const gpu::GpuUnavailable& e) {
            std::cerr << "specview: no usable GPU for the " << name_of(r.s.backend) << " backend: " << e.what() << "\n";
            return kExitGpu;
        } catch (const gpu::GpuError& e) {
            std::cerr << "specview: GPU failure: " << e.what() << "\n";
            return kExitGpu;
        }
    }
    // The volume's need against what there is: host memory (FFTW's in-place buffer holds the whole volume, the frames
    // stream through it; a plane of --raw beside), and the device's for a GPU backend. From the headers where the depth
    // is known before decoding (--stack's files, --frame-range), else from the first frame.
    auto check_need = [&](int w, int h, int depth) {
        if (!r.s.roi.whole()) w = r.s.roi.w, h = r.s.roi.h;
        const VolumeGeometry g = volume_geometry(r.s.pad, w, h, depth);
        const std::string what = "as a volume is " + std::to_string(w) + "x" + std::to_string(h) + "x" +
                                 std::to_string(depth);
        const double need = host_bytes(g);
        const double have = r.common.budget_host > 0 ? r.common.budget_host : double(available_memory_bytes());
        if (need > have)
            throw InputError(r.input, what + " and needs about " + human_bytes(need) + " of memory; " + human_bytes(have) +
                                          (r.common.budget_host > 0 ? " allowed (--max-memory)" : " is available") +
                                          " (try --pad crop or --frame-range)");
        auto check_split = [&] {
            if (const std::string why = gpu::multi_gpu_refusal(r.gpus, g.width, g.height, g.depth); !why.empty())
                throw gpu::ConfigError(why);
            check_split_need(r, gpu::estimate_multi_gpu_layout(r.gpus, g.width, g.height, g.depth), what);
        };
        if (split) return check_split();
        if (!engine) return;
        engine->check(g.width, g.height, g.depth);  // ConfigError: exit 2
        const double dev_need = engine->device_bytes(g.width, g.height, g.depth);
        const double free = double(engine->device().free_memory);
        if (dev_need > free && may_split) {  // beyond the first GPU: split over the named ones
            split = true;
            engine.reset();
            return check_split();
        }
        if (dev_need > free)
            throw InputError(r.input, what + " and needs about " + human_bytes(dev_need) + " of GPU memory on the " +
                                          name_of(r.s.backend) + " backend; " + human_bytes(free) + " free on the " +
                                          engine->device().name +
                                          " (try --pad crop, --frame-range, the cufft backend's R2C, or --backend cpu)");
    };
    int known_depth = r.last >= 0 ? r.last - r.first + 1 : 0;
    if (!r.files.empty()) {
        const int n = int(r.files.size()) - r.first;
        known_depth = known_depth > 0 ? std::min(known_depth, n) : n;
    }
    HeaderCheck header_check;
    if (known_depth > 0)
        header_check = [&, checked = false](const ImageHeader& h) mutable {
            if (checked) return;
            checked = true;
            check_need(h.width, h.height, known_depth);
        };
    LoadLimits limits;
    limits.max_side = r.common.max_side;
    limits.max_pixels = std::uint64_t(r.common.max_side) * std::uint64_t(r.common.max_side);
    limits.check_available_memory = false;  // the volume's need is checked below, from the first frame's size
    const auto t0 = std::chrono::steady_clock::now();
    VolumeSpectrum vol;
    bool begun = false;
    int total = 0, depth = 0, added = 0, last_frame = -1;
    double shape_ms = 0, fft_ms = 0;
    std::string wrote;
    std::unique_ptr<gpu::MultiGpuVolumeFft> multi;  // the split's plan
    try {
        const int count = r.last >= 0 ? r.last - r.first + 1 : INT_MAX;
        decode_stack_frames(r, limits, header_check, nullptr, count, [&](Image img) {
            // --roi: the same rectangle of every frame (exit 3 where it does not lie within them, as in 2D).
            if (!r.s.roi.whole()) img = crop_image(img, r.s.roi.x, r.s.roi.y, r.s.roi.w, r.s.roi.h, r.input);
            if (!begun) {
                // The file's voxel where it says one (ImageJ: the pixel size, and spacing= between slices).
                if (!voxel.calibrated() && img.pixel_size.calibrated() && img.z_spacing > 0) {
                    voxel = {img.pixel_size.value, img.pixel_size.value, img.z_spacing, img.pixel_size.unit};
                    voxel_from_file = true;
                }
                total = img.frames;
                const int end = r.last >= 0 ? std::min(r.last, total - 1) : total - 1;
                depth = end - r.first + 1;
                check_need(img.width, img.height, depth);
                // On a GPU backend each frame's samples go up as it is decoded: shaped and transformed there.
                vol.begin(r.s, img.width, img.height, depth, 0, engine ? frames_on_device(*engine) : nullptr);
                begun = true;
            }
            vol.add_frame(img, img.frame - r.first, r.input);
            ++added;
            last_frame = img.frame;
            return true;
        });
        if (!begun) {
            std::cerr << "specview: " << r.input << ": no frames\n";
            return kExitInput;
        }
        if (added != depth) throw InputError(r.input, "gave " + std::to_string(added) + " of its " +
                                                          std::to_string(depth) + " frames");
        // (on a GPU the spectrum stays there: the slice, projections and shells are made there; --raw brings it down)
        if (split) {
            const VolumeGeometry& vg = vol.geometry();
            multi = std::make_unique<gpu::MultiGpuVolumeFft>(r.gpus, vg.width, vg.height, vg.depth);
            vol.transform(&shape_ms, &fft_ms, [&](float* buffer) { multi->forward(buffer); });
        } else {
            vol.transform(&shape_ms, &fft_ms);
        }
    } catch (const InputError& e) {
        std::cerr << "specview: " << e.what() << "\n";
        return kExitInput;
    } catch (const gpu::ConfigError& e) {
        std::cerr << "specview: " << r.input << ": " << e.what() << "\n";
        return kExitUsage;
    } catch (const gpu::GpuError& e) {
        std::cerr << "specview: " << r.input << ": GPU failure: " << e.what() << "\n";
        return kExitGpu;
    } catch (const gpu::GpuUnavailable& e) {
        std::cerr << "specview: " << r.input << ": " << e.what() << "\n";
        return kExitGpu;
    } catch (const std::bad_alloc&) {
        std::cerr << "specview: " << r.input << ": not enough memory for the volume (try --pad crop or --frame-range)\n";
        return kExitInput;
    } catch (const std::exception& e) {
        std::cerr << "specview: " << r.input << ": " << e.what() << "\n";
        return kExitInternal;
    }
    const VolumeGeometry& g = vol.geometry();
    double out_ms = 0;
    const auto t1 = std::chrono::steady_clock::now();
    try {
        if (!png.empty() || !r.values_out.empty()) {
            Frame pic;
            std::vector<VolumeSpectrum::Panel> panels;
            std::vector<float> values;
            if (r.orthoslices) {  // through (kx, ky, kz): DC, or --slice's index on its axis
                const int at[3] = {axis == VolumeAxis::X ? index : 0, axis == VolumeAxis::Y ? index : 0,
                                   axis == VolumeAxis::Z ? index : 0};
                values = vol.orthoslices(at[0], at[1], at[2], r.projection, r.s.view, kLabelRows, kPanelGap,
                                         &pic.width, &pic.height, &panels);
            } else if (r.projection.empty()) {
                values = vol.slice_values(axis, index, r.s.view, &pic.width, &pic.height);
            } else {
                values = vol.projection_values(axis, r.projection == "max", r.s.view, &pic.width, &pic.height);
            }
            std::vector<float> shown;  // the range over the panels' values only
            shown.reserve(values.size());
            for (float v : values)
                if (!std::isnan(v)) shown.push_back(v);
            compute_range(shown, r.s.view, &pic.range_lo, &pic.range_hi);
            if (!png.empty()) {
                picture_of_values(values, r.s.view.colormap, r.common.depth, pic);
                if (r.orthoslices) draw_panels(pic, values, panels);
                write_png(png, pic, r.s.view.colormap, r.common.png_level, 0);
                wrote = png;
            }
            if (!r.values_out.empty()) {
                write_npy_float32(r.values_out, values.data(), pic.height, pic.width);
                wrote += (wrote.empty() ? "" : ", ") + r.values_out;
            }
        }
        if (!r.raw.empty()) {
            write_npy_complex64_3d(r.raw, g.depth, g.height, g.width,
                                   [&](int z, std::complex<float>* plane) { vol.full_plane(z, plane); });
            wrote += (wrote.empty() ? "" : ", ") + r.raw;
        }
        if (!r.shell_out.empty()) {
            if (voxel.calibrated())  // physical shells; the first column in cycles per voxel along x
                write_profile_csv(r.shell_out, "f_cycles_per_voxel,f_per_" + voxel.unit + ",mean_power,count",
                                  vol.shell_profile(0, voxel.x, voxel.y, voxel.z), voxel.x);
            else
                write_profile_csv(r.shell_out, "f_cycles_per_voxel,mean_power,count", vol.shell_profile());
            wrote += (wrote.empty() ? "" : ", ") + r.shell_out;
        }
    } catch (const std::invalid_argument& e) {  // a slice index outside the spectrum
        std::cerr << "specview: " << e.what() << "\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << "specview: " << e.what() << "\n";
        return kExitOutput;
    }
    out_ms = ms_since(t1);
    std::cout << r.input << ": frames " << r.first + 1 << "-" << last_frame + 1 << " of " << total << " -> "
              << g.width << "x" << g.height << "x" << g.depth << " volume spectrum ("
              << (multi    ? "cuFFT multi-GPU R2C over GPUs " + gpu_list_text(r.gpus)
                  : engine ? engine->last().what
                           : std::string("CPU (FFTW 3D)"))
              << (r.backend_why.empty() ? "" : "; " + r.backend_why) << ")"
              << (voxel_from_file ? "; voxel " + short_number(voxel.x) + "x" + short_number(voxel.y) + "x" +
                                        short_number(voxel.z) + " " + voxel.unit + " (from the file)"
                                  : "")
              << "; wrote " << wrote << "\n";
    if (r.common.timings) {
        auto line = [](const char* what, double ms) {
            std::cout << "  " << std::left << std::setw(44) << what << std::right << std::setw(10) << fmt(ms) << "\n";
        };
        line("shape (level, window, pad) [CPU]", shape_ms);
        if (multi) {
            std::istringstream lines(multi->layout().text());
            for (std::string l; std::getline(lines, l);) std::cout << "  " << l << "\n";
            line("  host -> GPUs (cufftXtMemcpy)", multi->upload_ms);
            line("  3D R2C over the GPUs (wall)", multi->fft_ms);
            line("  GPUs -> host, natural order", multi->download_ms);
            line("cuFFT multi-GPU 3D FFT with copies (wall)", fft_ms);
        } else if (engine) {
            for (const gpu::KernelTiming& k : engine->last().stages) line(("  " + k.name + " [GPU]").c_str(), k.ms);
            line("GPU transform (passes above, device time)", engine->last().transform_ms);
            line("GPU 3D FFT with copies (wall)", fft_ms);
        } else {
            line("FFTW r2c 3D (in place, estimated plan)", fft_ms);
        }
        line("outputs (picture, raw, profile)", out_ms);
        line("wall, decode included", ms_since(t0));
    }
    return kExitOk;
}

}  // namespace specview
