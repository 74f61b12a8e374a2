#include "app/cli/cli.h"

#include "app/io/decoder_pool.h"
#include "app/io/memory_need.h"
#include "app/io/png_write.h"

#include <CLI/CLI.hpp>

#include <cfloat>
#include <climits>
#include <cstring>
#include <chrono>
#include <memory>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <fstream>
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "app/lab/analysis.h"
#include "app/engine/cpu_backend.h"
#include "app/lab/filter.h"
#include "app/lab/mask_io.h"
#include "app/engine/engine.h"
#include "app/io/npy.h"
#include "app/core/ordered_parallel.h"
#include "app/io/video_encode.h"
#include "app/io/video_gpu.h"
#include "gpu/common/errors.h"

namespace specview {
namespace fs = std::filesystem;

namespace {

// Decoder children a stack's frames are decoded by at once: a quarter of the cores, 2 to 4. On the H100
// machine's 16 cores the 512-page 1024^2 float stack's --average took 3.9 s with 1, 1.18 s with 4 and 1.36 s with
// 8 (more decoders slow the transform's host side down: its staging copies share the memory bandwidth).
int stack_decode_streams() { return std::clamp(int(std::max(1u, std::thread::hardware_concurrency())) / 4, 2, 4); }

const char* kExitCodesHelp =
    "Exit codes:\n"
    "  0  success\n"
    "  1  internal error (a bug; please report it)\n"
    "  2  usage error: bad options, or a configuration that cannot run\n"
    "  3  input error: an image could not be read (a batch still processes the others)\n"
    "  4  GPU unavailable: a GPU backend was asked for and there is no usable GPU, or it failed\n"
    "  5  output error: an output could not be written, or exists (use --force)\n";

// A CLI11 validator/transform from the names list.
CLI::IsMember one_of(const std::vector<std::string>& names) { return CLI::IsMember(names); }

std::string fmt(double v, int prec = 3) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(prec) << v;
    return s.str();
}

void print_timings(const Frame& f, std::ostream& out) {
    out << "  " << std::left << std::setw(44) << "stage" << std::right << std::setw(10) << "ms" << std::setw(10)
        << "GB/s"
        << "\n";
    for (const auto& t : f.timings) {
        out << "  " << std::left << std::setw(44) << t.name << std::right << std::setw(10) << fmt(t.ms);
        if (t.bytes > 0 && t.ms > 0) out << std::setw(10) << fmt(t.bytes / (t.ms * 1e6), 1);
        out << "\n";
    }
    out << "  " << std::left << std::setw(44) << "total (transform + view)" << std::right << std::setw(10)
        << fmt(f.total_ms) << "\n";
    for (const auto& r : f.resources)
        out << "  kernel " << r.kernel << ": " << r.threads_per_block << " threads/block, " << r.registers_per_thread
            << " regs/thread, " << (r.static_smem_bytes + r.dynamic_smem_bytes) << " B smem/block, "
            << r.active_blocks_per_sm << " blocks/SM, occupancy " << fmt(100.0 * r.occupancy, 0) << "% (limited by "
            << r.limiter << ")\n";
}

// Expands directories (their image files, sorted); keeps files as given.
std::vector<std::string> expand_inputs(const std::vector<std::string>& args, bool* any_dir,
                                       std::vector<std::string>* empty_dirs) {
    std::vector<std::string> out;
    for (const auto& a : args) {
        std::error_code ec;
        if (fs::is_directory(a, ec)) {
            *any_dir = true;
            std::vector<std::string> files;
            for (const auto& e : fs::directory_iterator(a, ec))
                if (e.is_regular_file(ec) && has_image_extension(e.path().string())) files.push_back(e.path().string());
            std::sort(files.begin(), files.end());
            if (files.empty()) empty_dirs->push_back(a);
            out.insert(out.end(), files.begin(), files.end());
        } else {
            out.push_back(a);
        }
    }
    return out;
}

// Natural order: runs of digits compare as numbers (frame2 before frame10), the rest byte by byte.
bool natural_less(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
            std::size_t i2 = i, j2 = j;
            while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
            while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
            std::string x = a.substr(i, i2 - i), y = b.substr(j, j2 - j);
            x.erase(0, std::min(x.find_first_not_of('0'), x.size() - 1));
            y.erase(0, std::min(y.find_first_not_of('0'), y.size() - 1));
            if (x.size() != y.size()) return x.size() < y.size();
            if (x != y) return x < y;
            i = i2, j = j2;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i, ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

// --stack DIR|GLOB: the image files of a directory, or what a glob pattern matches, in natural order.
std::vector<std::string> stack_files(const std::string& where, std::string* error) {
    std::vector<std::string> files;
    std::error_code ec;
    if (fs::is_directory(where, ec)) {
        for (const auto& e : fs::directory_iterator(where, ec))
            if (e.is_regular_file(ec) && has_image_extension(e.path().string())) files.push_back(e.path().string());
    } else {
        glob_t g{};
        const int rc = glob(where.c_str(), GLOB_NOSORT, nullptr, &g);
        if (rc == 0)
            for (std::size_t i = 0; i < g.gl_pathc; ++i)
                if (fs::is_regular_file(g.gl_pathv[i], ec)) files.push_back(g.gl_pathv[i]);
        globfree(&g);
    }
    std::sort(files.begin(), files.end(), natural_less);
    if (files.empty()) *error = where + ": no image files (a directory, or a glob pattern such as 'frames/*.png')";
    return files;
}

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

void write_png(const std::string& path, const Frame& f, Colormap cm, int level, int threads) {
    const PngColor color = f.picture == PictureFormat::Level16 ? PngColor::Gray16
                           : cm == Colormap::Gray              ? PngColor::Gray
                                                               : PngColor::Rgb;
    const ColormapLut lut = make_colormap_lut(cm);
    PicturePixels px;
    if (f.picture == PictureFormat::Rgba8) {
        px.rgba = f.rgba.data();
    } else {
        px.levels = f.levels.data();
        px.level_bytes = level_bytes(f.picture);
        px.lut = lut.rgba;
    }
    write_picture_png(path, px, f.width, f.height, color, level, threads);
}

struct Job {
    std::string input, png, raw;
    std::string inverse, radial, angular;  // the frequency lab's outputs (empty: not asked for)
    std::vector<std::string> outputs() const { return {png, raw, inverse, radial, angular}; }
};

// The filtered image as a PNG: the content's region of the plane (the image's own pixels, padding left out),
// min-max stretched to 8-bit gray.
void write_inverse_png(const std::string& path, const Frame& f, int level) {
    const int x0 = f.content_x, y0 = f.content_y, w = std::max(1, f.content_w), h = std::max(1, f.content_h);
    float lo = FLT_MAX, hi = -FLT_MAX;
    for (int y = y0; y < y0 + h; ++y)
        for (int x = x0; x < x0 + w; ++x) {
            const float v = f.inverse[std::size_t(y) * f.width + x];
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    std::vector<unsigned char> px(std::size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            px[std::size_t(y) * w + x] = static_cast<unsigned char>(
                level_of(normalize_to_range(f.inverse[std::size_t(y0 + y) * f.width + x0 + x], lo, hi)));
    PicturePixels p;
    p.levels = px.data();
    p.level_bytes = 1;
    write_picture_png(path, p, w, h, PngColor::Gray, level, 1);
}

}  // namespace

std::string find_assets_dir() {
    std::error_code ec;
    std::vector<fs::path> candidates;
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        const fs::path dir = fs::path(exe).parent_path();
        candidates.push_back(dir / "assets");
        candidates.push_back(dir / ".." / "share" / "specview" / "assets");
    }
#ifdef SPECVIEW_SOURCE_ASSETS_DIR
    candidates.push_back(SPECVIEW_SOURCE_ASSETS_DIR);
#endif
    for (const auto& c : candidates)
        if (fs::is_directory(c, ec)) return fs::canonical(c, ec).string();
    return {};
}

// --frame-range / --average: the frames of one stack streamed from the decoder (a few in memory at once: the
// decoder works on the next while this thread transforms), each written, or their power averaged.
struct StackRun {
    std::string input;
    std::vector<std::string> files;  // --stack: one file a frame (else the frames of `input`)
    Settings s;
    int first = 0, last = -1;  // 0-based, inclusive; last < 0: to the end
    bool average = false;
    std::string output, raw;
    bool force = false;
    int png_level = kDefaultPngLevel, depth = 8, max_side = 16384;
    double budget_host = 0;
    bool timings = false;
    std::string export_video;  // the frames' spectra as a video (then -o's PNGs only when -o is given)
    VideoDecode video_decode = VideoDecode::Auto;
};

int run_stack(const StackRun& r) {
    namespace fs = std::filesystem;
    const std::string stem = r.files.empty() ? fs::path(r.input).stem().string()
                                             : fs::path(r.files.front()).parent_path().filename().string() + "_stack";
    LoadLimits limits;
    limits.max_side = r.max_side;
    limits.max_pixels = std::uint64_t(r.max_side) * std::uint64_t(r.max_side);
    limits.check_available_memory = false;
    MemoryBudget budget;
    budget.host = r.budget_host;
    const HeaderCheck check = memory_check(r.s, !r.raw.empty() || r.average, false, budget, false);
    const bool pngs = !r.average && (r.export_video.empty() || !r.output.empty());
    const std::string out_dir = !pngs ? "" : (r.output.empty() ? "." : r.output);
    const std::string raw_dir = r.average ? "" : r.raw;
    for (const std::string& d : {out_dir, raw_dir}) {
        if (d.empty()) continue;
        std::error_code ec;
        if (fs::exists(d, ec) && !fs::is_directory(d, ec)) {
            std::cerr << "specview: " << d << ": with --frame-range, -o and --raw name directories\n";
            return kExitUsage;
        }
        fs::create_directories(d, ec);
        if (ec) {
            std::cerr << "specview: cannot create " << d << ": " << ec.message() << "\n";
            return kExitOutput;
        }
    }
    const std::string avg_png = r.output.empty() ? stem + "_average_spectrum.png" : r.output;
    if (r.average && !r.force) {
        std::error_code ec;
        for (const std::string& o : {avg_png, r.raw})
            if (!o.empty() && fs::exists(o, ec)) {
                std::cerr << "specview: " << o << ": exists; use --force to overwrite\n";
                return kExitOutput;
            }
    }
    const auto t0 = std::chrono::steady_clock::now();
    // A video with a GPU backend: decoded by NVDEC in this process, the frames staying on the device (auto: when
    // it can be; else on the CPU in the isolated decoder, saying why).
    std::unique_ptr<GpuVideo> gpu_video;
    std::string decoded_by;  // which decoder ran, for the summary line
    if (r.files.empty() && r.video_decode != VideoDecode::Cpu && file_is_video(r.input)) {
        std::string why = gpu_decode_excluded(r.video_decode, r.s);
        if (why.empty()) try {
                gpu_video = open_gpu_video(r.input, limits);
                decoded_by = gpu_video->decoder();
            } catch (const GpuDecodeUnavailable& e) {
                why = e.what();
            } catch (const InputError& e) {
                std::cerr << "specview: " << e.what() << "\n";
                return kExitInput;
            }
        if (!gpu_video) {
            if (r.video_decode == VideoDecode::Gpu) {
                std::cerr << "specview: " << r.input << ": cannot decode it on the GPU (--video-decode gpu): " << why
                          << "\n";
                return kExitInput;
            }
            decoded_by = r.s.backend == Backend::Cpu ? "the CPU" : "the CPU (not on the GPU: " + why + ")";
        }
    }
    // A bounded queue between the decoder's stream and the transforms.
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Image> queue;
    bool done = false, failed = false;
    int total_frames = 0;
    std::exception_ptr error;
    std::thread decoder([&] {
        try {
            const int count = r.last >= 0 ? r.last - r.first + 1 : INT_MAX;  // INT_MAX: to the last frame
            auto push = [&](Image img) {
                std::unique_lock<std::mutex> lock(mu);
                cv.wait(lock, [&] { return queue.size() < 3 || failed; });
                if (failed) return false;
                total_frames = img.frames;
                queue.push_back(std::move(img));
                cv.notify_all();
                return true;
            };
            if (!r.files.empty()) {  // a sequence of files: one frame each, all one size, decoded several at once
                const int n = int(r.files.size());
                const int last = r.last >= 0 ? r.last : n - 1;
                auto no_frame = [&](int k) {
                    return InputError(r.input, "no frame " + std::to_string(k + 1) + ": the stack has " +
                                                   std::to_string(n) + " files");
                };
                if (r.first >= n) throw no_frame(r.first);
                auto load = [&](int k) {
                    Image img = DecoderPool::shared().load(r.files[std::size_t(k)], limits, check);
                    img.frame = k;
                    img.frames = n;
                    return img;
                };
                int w0 = 0, h0 = 0;
                auto same_size = [&](Image img) {
                    if (img.width != w0 || img.height != h0)
                        throw InputError(r.files[std::size_t(img.frame)],
                                         "is " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                                             ", the stack's first frame " + r.files[std::size_t(r.first)] + " is " +
                                             std::to_string(w0) + "x" + std::to_string(h0) +
                                             ": a stack's frames must have one size");
                    return push(std::move(img));
                };
                Image first = load(r.first);
                w0 = first.width, h0 = first.height;
                const std::size_t bytes = std::max<std::size_t>(1, first.sample_bytes());
                bool go_on = push(std::move(first));
                const int end = std::min(last, n - 1) + 1;
                if (go_on && end > r.first + 1) {
                    const int streams = stack_decode_streams();
                    const int ahead = int(std::clamp<std::size_t>((std::size_t(256) << 20) / bytes, 1, 256));
                    const int handed = ordered_parallel<Image>(
                        r.first + 1, end, std::min(streams, ahead), ahead, 1,
                        [&](int a, int b, const std::function<bool(int, Image)>& emit) {
                            for (int k = a; k < b; ++k)
                                if (!emit(k, load(k))) return;
                        },
                        same_size, [&](int k) { return std::make_exception_ptr(no_frame(k)); });
                    go_on = handed == end - r.first - 1;
                }
                if (go_on && last >= n) throw no_frame(n);
            } else if (gpu_video) {  // frame after frame from NVDEC; the engine copies each on the device
                const int n = gpu_video->frames();
                const int end = r.last >= 0 ? r.last + 1 : n;
                for (int k = r.first; k < end; ++k) {
                    if (k >= n)
                        throw InputError(r.input, "no frame " + std::to_string(k + 1) + ": the video has " +
                                                      std::to_string(n) + " frames");
                    if (!push(gpu_video->decode(k, check))) break;
                }
            } else {
                // Several decoder children at once (in order all the same): decoding, not the transform, is
                // what a stack of large frames waits for.
                DecoderPool::shared().load_frames_parallel(r.input, limits, r.first, count, check, push,
                                                           stack_decode_streams());
            }
        } catch (...) {
            error = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(mu);
        done = true;
        cv.notify_all();
    });
    Engine engine;
    std::unique_ptr<VideoWriter> video;  // --export-video, opened with the first frame (its size and rate)
    std::vector<std::uint32_t> rgba;
    const ColormapLut lut = make_colormap_lut(r.s.view.colormap);
    std::vector<double> power;  // --average: the engine's sum of |F|^2
    int width = 0, height = 0, frames_done = 0, first_frame = -1, last_frame = -1;
    std::string backend, wrote;
    double transform_ms = 0;
    int code = kExitOk;
    std::string message;
    for (;;) {
        Image img;
        {
            std::unique_lock<std::mutex> lock(mu);
            cv.wait(lock, [&] { return !queue.empty() || done; });
            if (queue.empty()) break;
            img = std::move(queue.front());
            queue.pop_front();
            cv.notify_all();
        }
        try {
            const int f = img.frame;
            const double rate = img.frame_rate;
            if (first_frame < 0) first_frame = f;
            last_frame = f;
            engine.set_image(std::move(img), r.input);
            RunOptions o;
            o.one_shot = true;
            o.want_spectrum = !raw_dir.empty();
            o.want_rgba = !r.average;
            o.accumulate_power = r.average;  // summed where the spectrum is (the device for GPU backends)
            o.picture = r.depth == 16 ? PictureFormat::Level16 : PictureFormat::Level8;
            const auto t1 = std::chrono::steady_clock::now();
            const Frame fr = engine.run(r.s, o);
            transform_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
            backend = fr.backend;
            if (frames_done > 0 && (fr.width != width || fr.height != height))
                throw InputError(r.input, "frame " + std::to_string(f + 1) + " is " + std::to_string(fr.width) + "x" +
                                              std::to_string(fr.height) + ", the first " + std::to_string(width) + "x" +
                                              std::to_string(height) + ": a stack's frames must have one size");
            width = fr.width;
            height = fr.height;
            char tag[16];
            std::snprintf(tag, sizeof tag, "_f%04d", f + 1);
            if (!r.average) {
                if (!out_dir.empty()) {
                    const std::string png = (fs::path(out_dir) / (stem + tag + "_spectrum.png")).string();
                    std::error_code ec;
                    if (!r.force && fs::exists(png, ec))
                        throw std::runtime_error(png + ": exists; use --force to overwrite");
                    write_png(png, fr, r.s.view.colormap, r.png_level, 0);
                }
                if (!raw_dir.empty())
                    write_npy_complex64((fs::path(raw_dir) / (stem + tag + ".npy")).string(), fr.spectrum.data(),
                                        height, width);
                if (!r.export_video.empty()) {
                    if (!video) {
                        std::error_code ec;
                        if (!r.force && fs::exists(r.export_video, ec))
                            throw std::runtime_error(r.export_video + ": exists; use --force to overwrite");
                        video = std::make_unique<VideoWriter>(r.export_video, width, height, rate > 0 ? rate : 25.0);
                    }
                    rgba.resize(std::size_t(width) * height);
                    if (fr.picture == PictureFormat::Level8)
                        for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = lut.rgba[fr.levels[i]];
                    else
                        for (std::size_t i = 0; i < rgba.size(); ++i) {
                            std::uint16_t v;
                            std::memcpy(&v, &fr.levels[2 * i], 2);
                            const std::uint32_t g = v >> 8;
                            rgba[i] = g | (g << 8) | (g << 16) | 0xFF000000u;
                        }
                    video->add(rgba.data());
                }
            }
            ++frames_done;
        } catch (const InputError& e) {
            code = kExitInput, message = e.what();
        } catch (const gpu::GpuUnavailable& e) {
            code = kExitGpu, message = e.what();
        } catch (const gpu::ConfigError& e) {
            code = kExitUsage, message = r.input + ": " + e.what();
        } catch (const gpu::GpuError& e) {  // a GPU failure (GpuContextLost: a sticky one) is exit 4, not an output's
            code = kExitGpu, message = r.input + ": GPU failure: " + e.what();
        } catch (const std::exception& e) {
            code = kExitOutput, message = e.what();
        }
        if (code != kExitOk) {
            std::lock_guard<std::mutex> lock(mu);
            failed = true;
            cv.notify_all();
            break;
        }
    }
    decoder.join();
    if (code == kExitOk && error) {
        try {
            std::rethrow_exception(error);
        } catch (const InputError& e) {
            code = kExitInput, message = e.what();
        } catch (const std::exception& e) {
            code = kExitInternal, message = r.input + ": internal error: " + e.what();
        }
    }
    if (code != kExitOk) {
        std::cerr << "specview: " << message << "\n";
        return code;
    }
    if (frames_done == 0) {
        std::cerr << "specview: " << r.input << ": no frames\n";
        return kExitInput;
    }
    if (r.average) {
        int pw = 0, ph = 0;
        const int summed = engine.take_power_sum(power, &pw, &ph);
        if (summed != frames_done || pw != width || ph != height) {
            std::cerr << "specview: internal error: a power sum of " << summed << " frames for " << frames_done << "\n";
            return kExitInternal;
        }
        // |F| = sqrt(mean power) through the chosen view, range and colormap; --raw: the mean power itself.
        Frame pic;
        pic.width = width;
        pic.height = height;
        const std::vector<float> values =
            mean_power_view_values(power, frames_done, width, height, r.s.view, &pic.range_lo, &pic.range_hi);
        if (r.depth == 16) {
            pic.picture = PictureFormat::Level16;
            pic.levels.resize(values.size() * 2);
            for (std::size_t i = 0; i < values.size(); ++i) {
                const std::uint16_t v =
                    std::uint16_t(level16_of(normalize_to_range(values[i], pic.range_lo, pic.range_hi)));
                std::memcpy(&pic.levels[2 * i], &v, 2);
            }
        } else {
            colorize(values, pic.range_lo, pic.range_hi, r.s.view.colormap, pic.rgba);
        }
        try {
            write_png(avg_png, pic, r.s.view.colormap, r.png_level, 0);
            wrote = avg_png;
            if (!r.raw.empty()) {
                std::vector<float> mean(power.size());
                for (std::size_t i = 0; i < power.size(); ++i) mean[i] = float(power[i] / frames_done);
                write_npy_float32(r.raw, mean.data(), height, width);
                wrote += ", " + r.raw;
            }
        } catch (const std::exception& e) {
            std::cerr << "specview: " << e.what() << "\n";
            return kExitOutput;
        }
    } else {
        if (!out_dir.empty()) wrote = out_dir + "/" + stem + "_f*_spectrum.png";
        if (!raw_dir.empty()) wrote += (wrote.empty() ? "" : ", ") + raw_dir + "/" + stem + "_f*.npy";
        if (video) {
            try {
                video->finish();
            } catch (const std::exception& e) {
                std::cerr << "specview: " << e.what() << "\n";
                return kExitOutput;
            }
            wrote += (wrote.empty() ? "" : ", ") + r.export_video + " (" + video->codec() + ")";
        }
    }
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::cout << r.input << ": frames " << first_frame + 1 << "-" << last_frame + 1 << " of " << total_frames << " -> "
              << width << "x" << height
              << (r.average ? " mean power spectrum of " + std::to_string(frames_done) + " frames" : " spectra") << " ("
              << backend << (decoded_by.empty() ? "" : "; video decoded by " + decoded_by) << "); wrote " << wrote
              << "\n";
    if (r.timings) {
        std::cout << "  " << std::left << std::setw(44) << "transforms (all frames)" << std::right << std::setw(10)
                  << fmt(transform_ms) << "\n"
                  << "  " << std::left << std::setw(44) << "wall, decode included" << std::right << std::setw(10)
                  << fmt(wall) << "\n";
    }
    return kExitOk;
}

int cli_main(int argc, char** argv, const ViewerEntry& viewer) {
    CLI::App app{
        "specview: the 2D Fourier spectrum of an image, live in a window (GPU or CPU) or written by --headless.\n"
        "The spectrum is of one channel of the image as values in [0, 1] (8-bit / 255, 16-bit / 65535),\n"
        "windowed, then padded or cropped; the picture is quadrant-shifted (DC in the centre).",
        "specview"};
    app.footer(std::string("\nExamples:\n"
                           "  specview assets/grating_16_8.png                 open the viewer\n"
                           "  specview --headless photo.jpg -o spectrum.png    write the log-magnitude picture\n"
                           "  specview --headless photo.jpg --raw F.npy --view power --colormap inferno --timings\n"
                           "  specview --headless --backend custom dir/ -o out/ (every image in dir/)\n\n") +
               kExitCodesHelp);

    std::vector<std::string> inputs;
    bool headless = false, timings = false, force = false, no_shift = false, classroom = false, presentation = false;
    std::string output, raw;
    std::string backend = "cpu", view = "logmag", range = "auto", colormap = "gray", window = "none", pad = "pow2",
                pad_fill = "zero", channel = "luma", cufft_mode = "r2c", window_shape = "separable", level = "none";
    Settings s;
    std::vector<float> pct{s.view.pct_lo, s.view.pct_hi}, fixed{s.view.fixed_lo, s.view.fixed_hi};
    int max_side = LoadLimits{}.max_side;
    int frame = 1;
    std::string frame_range, stack, export_video, video_decode = "auto";
    std::vector<std::string> stack_sequence;  // --stack's files, in natural order
    bool average = false;
    std::string max_memory;
    int png_level = kDefaultPngLevel;
    int jobs_opt = 0;
    int depth = 8;
    bool fftw_measure = false;
    std::string list_file;
    int frames = 0, classroom_step = 1;
    bool classroom_walk = false;
    std::string screenshot, script, report;
    bool offscreen = false;
    std::vector<std::string> filter_specs, profile_args;
    std::string inverse_out, inverse_format = "png", psd_fit = "0.02:0.25", correlate, mask_in, save_mask_out;
    std::string correlation_kind = "phase", correlation_map;
    bool invert_mask = false;

    app.add_option("images", inputs, "image files or directories (PNG, JPEG, BMP, TGA, GIF, PSD, HDR, PNM)");
    app.add_flag("--headless", headless, "no window: write the spectrum picture (-o) and/or raw spectrum (--raw)");
    app.add_option("-o,--output", output,
                   "output PNG; with several inputs or a directory, a directory for <name>_spectrum.png files "
                   "(default: <name>_spectrum.png in the current directory)");
    app.add_option("--raw", raw,
                   "also write the complex spectrum as transformed (after channel, window, padding; unshifted, "
                   "unnormalised) as complex64 .npy of shape (height, width); a directory with several inputs");
    auto* g_spec = "Spectrum";
    app.add_option(
           "--backend", backend,
           "cpu (FFTW), custom (our four-kernel CUDA pipeline), custom-fast (our fused two-pass CUDA FFT) or cufft")
        ->check(one_of(backend_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--channel", channel, "luma (Rec. 709 Y' of the stored values), r, g, b or a")
        ->check(one_of(channel_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option(
           "--window", window,
           "none, hann, hamming, tukey, blackman, blackman-harris, kaiser, flattop or welch, applied before the FFT")
        ->check(one_of(window_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option(
           "--window-shape", window_shape,
           "separable (w(x) w(y)) or radial (w of the distance from the centre; the content's inscribed ellipse "
           "is the window's edge)")
        ->check(one_of(window_shape_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--kaiser-beta", s.kaiser_beta, "Kaiser window's beta")
        ->check(CLI::Range(0.0f, 50.0f))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--level", level,
                   "subtract before the window: none, mean (the content's mean) or plane (its least-squares plane: "
                   "removes a tilt, as Gwyddion's levelling does)")
        ->check(one_of(level_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--tukey-alpha", s.tukey_alpha, "Tukey taper fraction (0 = none, 1 = Hann)")
        ->check(CLI::Range(0.0f, 1.0f))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--pad", pad,
                   "pow2: pad to the next power of two; crop: centred power-of-two crop; none: exact size")
        ->check(one_of(pad_names()))
        ->group(g_spec)
        ->capture_default_str();
    app.add_option("--pad-fill", pad_fill, "what padding holds: zero, or the mean of the image")
        ->check(one_of(pad_fill_names()))
        ->group(g_spec)
        ->capture_default_str();
    auto* g_view = "Picture";
    app.add_option("--view", view, "logmag = log(1+|F|), power = 10 log10 |F|^2 (dB), phase, real, imag")
        ->check(one_of(view_names()))
        ->group(g_view)
        ->capture_default_str();
    app.add_option(
           "--range", range,
           "auto (min..max), percentile (--percentiles), fixed (--fixed-range), top (--top-span below the peak)")
        ->check(one_of(range_names()))
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--percentiles", pct, "LO HI percentiles for --range percentile")
        ->expected(2)
        ->delimiter(',')
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--fixed-range", fixed, "LO HI in the view's units for --range fixed")
        ->expected(2)
        ->delimiter(',')
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--top-span", s.view.top_span, "span below the maximum for --range top (dB for --view power)")
        ->check(CLI::PositiveNumber)
        ->group(g_view)
        ->capture_default_str();
    app.add_option("--colormap", colormap, "gray, viridis, inferno, magma or turbo")
        ->check(one_of(colormap_names()))
        ->group(g_view)
        ->capture_default_str();
    app.add_flag("--no-shift", no_shift, "keep DC in the corner (no fftshift)")->group(g_view);
    auto* g_gpu = "GPU";
    app.add_option("--threads-per-block", s.custom.rows.threads_per_block, "custom: row-FFT threads per block")
        ->group(g_gpu)
        ->capture_default_str();
    app.add_option("--block-height", s.custom.rows.block_height,
                   "custom: rows per thread block, H (power of two; 0 = automatic)")
        ->group(g_gpu)
        ->capture_default_str();
    app.add_option("--local-length", s.custom.rows.max_local_length,
                   "custom: longest sub-FFT done in shared memory (power of two; 0 = what fits in 48 KiB)")
        ->group(g_gpu)
        ->capture_default_str();
    app.add_option("--tile", s.custom.transpose.tile, "custom: transpose tile (8, 16, 32, 64)")
        ->check(CLI::IsMember({8, 16, 32, 64}))
        ->group(g_gpu)
        ->capture_default_str();
    app.add_option("--cufft-mode", cufft_mode, "cufft: r2c (real input, half spectrum) or c2c")
        ->check(one_of(cufft_mode_names()))
        ->group(g_gpu)
        ->capture_default_str();
    app.add_flag("--timings", timings, "print per-stage times (and GB/s, kernel resources on the GPU)");
    app.add_flag("-f,--force", force, "overwrite existing output files");
    app.add_option(
           "--frame", frame,
           "which frame of a stack: a page of a multi-page TIFF, a frame of a 3D .npy (1 = the first, as ImageJ "
           "counts slices)")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--frame-range", frame_range,
                   "A:B, frames A to B (inclusive, 1-based) of a stack: -o and --raw name directories of "
                   "<name>_f0001_spectrum.png / <name>_f0001.npy (streamed: a few frames in memory at once)");
    app.add_option("--stack", stack,
                   "a sequence of image files as one stack: a directory's images or a glob ('frames/*.png'), in "
                   "natural order (frame2 before frame10); all the same size");
    app.add_option(
           "--video-decode", video_decode,
           "where a video's frames are decoded: auto (on the GPU by NVDEC, in this process, when the backend is a "
           "GPU one and the driver and FFmpeg offer it; else on the CPU in the isolated decoder), gpu or cpu")
        ->check(one_of({"auto", "gpu", "cpu"}))
        ->capture_default_str();
    app.add_option("--export-video", export_video,
                   "write the spectrum of every frame of a stack or video (or --frame-range) as a video: .mp4, .mkv or "
                   ".avi (H.264 through libx264 when FFmpeg has it, else MPEG-4), at the source's frame rate");
    app.add_flag("--average", average,
                 "the mean power spectrum over the stack's frames (or --frame-range): the picture shows it with |F| = "
                 "sqrt(mean power); --raw writes the mean power as float32 (height, width)");
    app.add_option("--max-side", max_side, "refuse images wider or taller than this")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str();
    app.add_option("--depth", depth,
                   "bits per sample of the picture PNG: 8, or 16 (gray: the view values mapped linearly from the "
                   "range's low..high to 0..65535; --colormap gray)")
        ->check(CLI::IsMember({8, 16}))
        ->capture_default_str();
    app.add_flag("--fftw-measure", fftw_measure,
                 "CPU backend: measure FFTW plans for sizes without saved wisdom (seconds once; faster transforms "
                 "after) and keep the wisdom in ~/.cache/specview");
    app.add_option("--jobs", jobs_opt, "host threads in all (decoding, FFTW, encoding; default: the machine's cores)")
        ->check(CLI::Range(1, 1024));
    app.add_option("--list", list_file, "also read input paths from this file, one a line ('-': standard input)");
    app.add_option("--png-level", png_level,
                   "PNG compression: 0 stored, 1-3 fast (run-length), 4-9 zlib's full search (smallest, slowest); "
                   "gray pictures are 8-bit gray, coloured ones RGB")
        ->check(CLI::Range(0, 9))
        ->capture_default_str();
    app.add_option("--max-memory", max_memory,
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
    auto* g_lab = "Frequency lab";
    app.add_option("--filter", filter_specs,
                   "mask the spectrum (repeatable; masks multiply), in cycles/pixel: lowpass:R, highpass:R, "
                   "bandpass:R1:R2, bandstop:R1:R2, notch:U:V:R (and its twin at -U,-V), wedge:ANGLE:HALF[:RMIN] "
                   "(directions within HALF degrees), stripe:ANGLE:WIDTH[:RMIN] (a band through DC; stripe:90:W "
                   "removes horizontal scan lines); edge suffix ,gauss or ,butterworth:N (ideal without). The "
                   "picture shows the masked spectrum; --raw stays unmasked")
        ->group(g_lab);
    app.add_option("--mask", mask_in,
                   "a mask description (lines 'filter SPEC', 'paint U V R', 'erase U V R' in spectrum bins, "
                   "'invert-mask on'), as the viewer's Save mask writes it; a .png names the .txt saved next to it")
        ->group(g_lab);
    app.add_flag("--invert-mask", invert_mask, "keep what the mask removes (1 - mask)")->group(g_lab);
    app.add_option("--save-mask", save_mask_out,
                   "write the mask as a gray PNG (DC at the centre, 255 = kept) and its description (.txt next to it); "
                   "one input")
        ->group(g_lab);
    app.add_option("--inverse", inverse_out,
                   "write the filtered image: .npy (float32, transform size, exact scale) or .png (the image's region, "
                   "min-max stretched); with several inputs a directory of <name>_inverse.png|npy (--inverse-format)")
        ->group(g_lab);
    app.add_option("--inverse-format", inverse_format, "png or npy, for --inverse directories")
        ->check(CLI::IsMember({"png", "npy"}))
        ->group(g_lab)
        ->capture_default_str();
    app.add_option(
           "--profile", profile_args,
           "radial|angular OUT.csv (repeatable): the radially averaged power spectrum (and its power-law slope) "
           "or the power by direction, of the unmasked spectrum; with several inputs OUT is a directory")
        ->expected(2)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->group(g_lab);
    app.add_option("--psd-fit", psd_fit, "A:B, the frequencies (cycles/pixel) the radial PSD slope is fitted over")
        ->group(g_lab)
        ->capture_default_str();
    app.add_option("--correlate", correlate,
                   "print 'shift: DX DY', where the input's content moved to in this image of the same size (phase "
                   "correlation, refined to 0.01 pixel)")
        ->group(g_lab);
    app.add_option("--correlation", correlation_kind,
                   "phase (normalised cross-power: a sharp peak) or cross (plain cross-correlation; its peak is the "
                   "images' normalised correlation)")
        ->check(CLI::IsMember({"phase", "cross"}))
        ->group(g_lab)
        ->capture_default_str();
    app.add_option("--correlation-map", correlation_map,
                   "with --correlate: write the correlation over all integer shifts as a heat map PNG (no shift at the "
                   "centre, log scale over 4 decades, inferno)")
        ->group(g_lab);
    auto* g_ui = "Viewer";
    app.add_flag("--classroom", classroom, "open the viewer in classroom mode (step through the FFT)")->group(g_ui);
    app.add_option("--step", classroom_step, "classroom mode: start at this step (1 = the input)")
        ->check(CLI::PositiveNumber)
        ->group(g_ui);
    app.add_flag("--walk", classroom_walk, "classroom mode: advance one step per frame (with --frames)")->group(g_ui);
    app.add_flag("--presentation", presentation, "larger fonts and a high-contrast theme")->group(g_ui);
    app.add_option("--frames", frames, "render this many frames, then exit (testing)")->group(g_ui);
    app.add_option("--screenshot", screenshot, "save the window as PNG on exit (with --frames)")->group(g_ui);
    app.add_option("--script", script, "drive the viewer from a script file, one action a line (see the README)")
        ->group(g_ui);
    app.add_flag("--offscreen", offscreen,
                 "draw the viewer into an offscreen EGL context on the GPU: no window and no X needed (for --script, "
                 "--frames and --screenshot on a GPU machine without a display)")
        ->group(g_ui);
    app.add_option("--report", report, "with --script: write frame times and change latencies here (JSON)")
        ->group(g_ui);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? kExitOk : kExitUsage;
    }

    s.backend = *parse_name<Backend>(backend);
    s.view.view = *parse_name<View>(view);
    s.view.range = *parse_name<RangeMode>(range);
    s.view.colormap = *parse_name<Colormap>(colormap);
    s.window = *parse_name<Window>(window);
    s.window_shape = *parse_name<WindowShape>(window_shape);
    s.level = *parse_name<Level>(level);
    s.pad = *parse_name<PadMode>(pad);
    s.pad_fill = *parse_name<PadFill>(pad_fill);
    s.channel = *parse_name<Channel>(channel);
    s.cufft_mode = *parse_name<gpu::CufftMode>(cufft_mode);
    s.view.shift = !no_shift;
    s.view.pct_lo = pct[0];
    s.view.pct_hi = pct[1];
    s.view.fixed_lo = fixed[0];
    s.view.fixed_hi = fixed[1];
    if (!(s.view.pct_lo >= 0 && s.view.pct_lo < s.view.pct_hi && s.view.pct_hi <= 100)) {
        std::cerr << "specview: --percentiles needs 0 <= LO < HI <= 100\n";
        return kExitUsage;
    }
    if (!(s.view.fixed_lo < s.view.fixed_hi)) {
        std::cerr << "specview: --fixed-range needs LO < HI\n";
        return kExitUsage;
    }
    for (const std::string& spec : filter_specs) {
        FilterSpec f;
        const std::string err = parse_filter(spec, &f);
        if (!err.empty()) {
            std::cerr << "specview: " << err << "\n";
            return kExitUsage;
        }
        s.filters.push_back(f);
    }
    if (!mask_in.empty()) {
        std::vector<FilterSpec> mf;
        std::vector<BrushStroke> ms;
        bool inv = false;
        const std::string err = load_mask(mask_in, &mf, &ms, &inv);
        if (!err.empty()) {
            std::cerr << "specview: --mask " << err << "\n";
            return kExitUsage;
        }
        s.filters.insert(s.filters.end(), mf.begin(), mf.end());
        s.strokes = std::move(ms);
        s.mask_invert = inv;
    }
    if (invert_mask) s.mask_invert = !s.mask_invert;
    if (s.filters.size() > std::size_t(kMaxFilters)) {
        std::cerr << "specview: at most " << kMaxFilters << " filters (--filter and --mask together)\n";
        return kExitUsage;
    }
    std::string radial_out, angular_out;
    for (std::size_t i = 0; i + 1 < profile_args.size(); i += 2) {
        if (profile_args[i] == "radial")
            radial_out = profile_args[i + 1];
        else if (profile_args[i] == "angular")
            angular_out = profile_args[i + 1];
        else {
            std::cerr << "specview: --profile " << profile_args[i] << ": radial or angular\n";
            return kExitUsage;
        }
    }
    double fit_lo = 0, fit_hi = 0;
    {
        const std::size_t colon = psd_fit.find(':');
        bool ok = colon != std::string::npos;
        if (ok) {
            const std::string a = psd_fit.substr(0, colon), b = psd_fit.substr(colon + 1);
            char* e1 = nullptr;
            char* e2 = nullptr;
            fit_lo = std::strtod(a.c_str(), &e1);
            fit_hi = std::strtod(b.c_str(), &e2);
            ok = !a.empty() && !b.empty() && !*e1 && !*e2;
        }
        if (!ok || !(fit_lo > 0 && fit_lo < fit_hi && fit_hi <= 0.75)) {
            std::cerr << "specview: --psd-fit " << psd_fit << ": A:B with 0 < A < B <= 0.75 cycles/pixel\n";
            return kExitUsage;
        }
    }

    if (!headless) {
        if (!stack.empty() || !frame_range.empty() || average || !export_video.empty()) {
            std::cerr
                << "specview: --stack, --frame-range and --average are for --headless (the viewer steps a stack's "
                   "frames with the File panel's Frame slider)\n";
            return kExitUsage;
        }
        if (!viewer) {
            std::cerr << "specview: this build has no viewer (GLFW, Dear ImGui or glad were not found when it was "
                         "configured); use --headless\n";
            return kExitUsage;
        }
        if (offscreen && script.empty() && frames <= 0) {
            std::cerr << "specview: --offscreen has no window to close: give it --script or --frames\n";
            return kExitUsage;
        }
        if (!report.empty() && script.empty()) {
            std::cerr << "specview: --report needs --script\n";
            return kExitUsage;
        }
        ViewerLaunch launch{inputs,         s,
                            classroom,      presentation,
                            classroom_step, classroom_walk,
                            frames,         screenshot,
                            script,         report,
                            offscreen,      max_memory.empty() ? 0.0 : parse_size(max_memory),
                            frame - 1,      parse_video_decode(video_decode)};
        return viewer(launch);
    }

    if (!list_file.empty()) {
        std::ifstream file;
        if (list_file != "-") {
            file.open(list_file);
            if (!file) {
                std::cerr << "specview: " << list_file << ": cannot read the list\n";
                return kExitInput;
            }
        }
        std::istream& in = list_file == "-" ? std::cin : file;
        for (std::string line; std::getline(in, line);) {
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
            if (!line.empty()) inputs.push_back(line);
        }
    }
    if (depth == 16 && s.view.colormap != Colormap::Gray) {
        std::cerr << "specview: --depth 16 writes gray levels: it goes with --colormap gray only\n";
        return kExitUsage;
    }
    if (!stack.empty()) {
        if (!inputs.empty()) {
            std::cerr << "specview: --stack is the input: no other images with it\n";
            return kExitUsage;
        }
        std::string err;
        const std::vector<std::string> seq = stack_files(stack, &err);
        if (seq.empty()) {
            std::cerr << "specview: --stack " << err << "\n";
            return kExitInput;
        }
        inputs = {stack};
        stack_sequence = seq;
        if (frame_range.empty() && !average)
            frame_range =
                frame > 1 ? std::to_string(frame) + ":" + std::to_string(frame) : "1:" + std::to_string(seq.size());
        if (frame > 1) frame = 1;
    }
    if (inputs.empty()) {
        std::cerr << "specview: --headless needs at least one image (see --help)\n";
        return kExitUsage;
    }
    bool any_dir = false;
    std::vector<std::string> empty_dirs;
    const std::vector<std::string> files = expand_inputs(inputs, &any_dir, &empty_dirs);
    // A directory without images is an input error, as a bad file is; with no image at all nothing runs.
    if (files.empty()) {
        for (const auto& d : empty_dirs) std::cerr << "specview: no images in " << d << "\n";
        return kExitInput;
    }
    const bool batch = stack_sequence.empty() && (files.size() > 1 || any_dir);
    if (!frame_range.empty() || average || !export_video.empty()) {
        if (batch) {
            std::cerr << "specview: --frame-range, --average and --export-video take one input (a stack or a video)\n";
            return kExitUsage;
        }
        if (frame != 1) {
            std::cerr << "specview: --frame picks one frame; --frame-range A:B picks several\n";
            return kExitUsage;
        }
        if (has_mask(s) || !inverse_out.empty() || !correlate.empty() || !radial_out.empty() || !angular_out.empty()) {
            std::cerr << "specview: --frame-range and --average go without the frequency lab's options (for now)\n";
            return kExitUsage;
        }
        int a = 1, b = 0;  // b = 0: to the last frame
        if (!frame_range.empty()) {
            char tail = 0;
            if (std::sscanf(frame_range.c_str(), "%d:%d%c", &a, &b, &tail) != 2 || a < 1 || b < a) {
                std::cerr << "specview: --frame-range " << frame_range << ": A:B with 1 <= A <= B\n";
                return kExitUsage;
            }
        }
        StackRun run;
        run.input = stack_sequence.empty() ? files.front() : stack;
        run.files = stack_sequence;
        run.s = s;
        run.first = a - 1;
        run.last = b - 1;
        run.average = average;
        run.output = output;
        run.raw = raw;
        run.force = force;
        run.png_level = png_level;
        run.depth = depth;
        run.max_side = max_side;
        run.budget_host = max_memory.empty() ? 0.0 : parse_size(max_memory);
        run.timings = timings;
        run.export_video = export_video;
        run.video_decode = parse_video_decode(video_decode);
        if (!export_video.empty() && average) {
            std::cerr << "specview: --export-video writes every frame's spectrum; --average writes one\n";
            return kExitUsage;
        }
        DecoderPool::configure_shared(stack_decode_streams());
        return run_stack(run);
    }

    // Where each output goes.
    std::vector<Job> jobs;
    const std::string png_dir = batch ? (output.empty() ? "." : output) : "";
    const std::string raw_dir = batch ? raw : "";
    const std::string inverse_dir = batch ? inverse_out : "", radial_dir = batch ? radial_out : "",
                      angular_dir = batch ? angular_out : "";
    if (!correlation_map.empty() && (correlate.empty() || batch)) {
        std::cerr << "specview: --correlation-map needs --correlate and one input\n";
        return kExitUsage;
    }
    if (!save_mask_out.empty() && batch) {
        std::cerr << "specview: --save-mask takes one input (the mask is made for its transform size)\n";
        return kExitUsage;
    }
    if (!save_mask_out.empty() && fs::path(save_mask_out).extension() != ".png") {
        std::cerr << "specview: --save-mask " << save_mask_out << ": name a .png file (its .txt goes next to it)\n";
        return kExitUsage;
    }
    if (!batch && !inverse_out.empty()) {
        const std::string ext = fs::path(inverse_out).extension().string();
        if (ext != ".npy" && ext != ".png") {
            std::cerr << "specview: --inverse " << inverse_out << ": name a .npy or .png file\n";
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
    for (const auto& in : files) {
        const std::string stem = fs::path(in).stem().string();
        Job j;
        j.input = in;
        if (batch) {
            j.png = (fs::path(png_dir) / (stem + "_spectrum.png")).string();
            if (!raw_dir.empty()) j.raw = (fs::path(raw_dir) / (stem + "_spectrum.npy")).string();
            if (!inverse_dir.empty())
                j.inverse = (fs::path(inverse_dir) / (stem + "_inverse." + inverse_format)).string();
            if (!radial_dir.empty()) j.radial = (fs::path(radial_dir) / (stem + "_radial.csv")).string();
            if (!angular_dir.empty()) j.angular = (fs::path(angular_dir) / (stem + "_angular.csv")).string();
        } else {
            j.png = output.empty() ? stem + "_spectrum.png" : output;
            j.raw = raw;
            j.inverse = inverse_out;
            j.radial = radial_out;
            j.angular = angular_out;
        }
        jobs.push_back(j);
    }

    LoadLimits limits;
    limits.max_side = max_side;
    limits.max_pixels = std::uint64_t(max_side) * std::uint64_t(max_side);
    limits.check_available_memory = false;  // the chosen path's need instead (memory_check below)
    limits.frame = frame - 1;
    MemoryBudget budget;
    if (!max_memory.empty()) budget.host = parse_size(max_memory);
    int first_failure = kExitOk;
    int failures = 0;
    auto fail = [&](int code, const std::string& msg) {
        std::cerr << "specview: " << msg << "\n";
        if (first_failure == kExitOk) first_failure = code;
        ++failures;
    };
    for (const auto& d : empty_dirs) fail(kExitInput, "no images in " + d);

    // Outputs, checked in input order before anything runs: never the input itself, never an existing file
    // without --force, never twice in one batch.
    const std::size_t n = jobs.size();
    auto wants_spectrum = [&](const Job& j) {  // the full complex spectrum: --raw, --profile, --correlate
        return !j.raw.empty() || !j.radial.empty() || !j.angular.empty() || !correlate.empty();
    };
    struct Result {
        bool done = false;
        int code = kExitOk;  // kExitOk, or what failed
        std::string error;   // stderr line when it failed
        std::string text;    // stdout lines when it worked
    };
    std::vector<Result> results(n);
    std::vector<char> skip(n, 0);
    {
        std::set<std::string> planned;
        for (std::size_t i = 0; i < n; ++i) {
            const Job& j = jobs[i];
            for (const std::string& o : j.outputs()) {
                if (o.empty() || skip[i]) continue;
                std::error_code ec;
                const std::string key = fs::absolute(o, ec).lexically_normal().string();
                if (same_file(o, j.input)) {
                    results[i] = {true, kExitOutput, o + ": refusing to overwrite the input image", ""};
                } else if (planned.count(key)) {
                    results[i] = {true, kExitOutput,
                                  o + ": another input of this batch already wrote this file (same name); skipped", ""};
                } else if (!force && fs::exists(o, ec)) {
                    results[i] = {true, kExitOutput, o + ": exists; use --force to overwrite", ""};
                }
                if (results[i].done) skip[i] = 1;
            }
            if (!skip[i])
                for (const std::string& o : j.outputs()) {
                    std::error_code ec;
                    if (!o.empty()) planned.insert(fs::absolute(o, ec).lexically_normal().string());
                }
        }
    }

    // The pipeline: decoder threads (each drives one sandboxed decoder process) run ahead of the transform by a
    // bounded window; the transform runs here, in input order, on one engine (plans reused per size); encoder
    // threads write the PNG and .npy files. Lines reach stdout in input order. At most `window` decoded images
    // and `encoders` + 1 finished frames are alive at once (`ahead`).
    const int total_jobs = jobs_opt > 0 ? jobs_opt : int(std::max(1u, std::thread::hardware_concurrency()));
    // A quarter of the threads drive decoders, the rest encode: on the H100 machine's 16 cores a batch of
    // 1920x1080 JPEGs kept 8 decoders 22% busy and 8 encoders 84% (PNG's deflate is the costlier half).
    const int decoders = std::clamp(total_jobs / 4, 1, 8);
    const int encoders = batch ? std::clamp(total_jobs - decoders, 1, 16) : 1;
    const std::size_t ahead = std::size_t(decoders) + 2;  // images decoded ahead of the transform
    set_cpu_fft_threads(total_jobs);
    // Measuring pays where a plan is reused many times: a CPU batch of kMeasureBatch images or more measures
    // (at most 3 s a size) unless told to measure fully; the wisdom stays for later runs. Here (2 cores) a
    // 2048^2 plan took 1.9 s to measure and made a batch's images about 10% faster: it pays from about 400.
    constexpr std::size_t kMeasureBatch = 400;
    const bool auto_measure = batch && n >= kMeasureBatch && s.backend == Backend::Cpu;
    set_cpu_fft_measure(fftw_measure || auto_measure, fftw_measure ? -1.0 : 3.0);
    DecoderPool::configure_shared(decoders);

    // --correlate: the other image's spectrum, once, with the same settings (no filters: they only mask).
    struct Other {
        int image_w = 0, image_h = 0;
        std::vector<std::complex<float>> spectrum;
    };
    std::unique_ptr<Other> other;
    if (!correlate.empty()) {
        try {
            Engine engine;
            Settings so = s;
            so.filters.clear();
            so.strokes.clear();
            so.mask_invert = false;
            engine.set_image(
                DecoderPool::shared().load(correlate, limits, memory_check(so, true, false, budget, false)), correlate);
            RunOptions ro;
            ro.want_spectrum = true;
            ro.one_shot = true;
            ro.picture = PictureFormat::Level8;
            Frame f = engine.run(so, ro);
            other = std::make_unique<Other>();
            other->image_w = f.image_width;
            other->image_h = f.image_height;
            other->spectrum = std::move(f.spectrum);
        } catch (const InputError& e) {
            std::cerr << "specview: --correlate: " << e.what() << "\n";
            return kExitInput;
        } catch (const gpu::GpuUnavailable& e) {
            std::cerr << "specview: GPU backend '" << backend << "' unavailable: " << e.what()
                      << " (use --backend cpu)\n";
            return kExitGpu;
        } catch (const std::exception& e) {
            std::cerr << "specview: --correlate " << correlate << ": " << e.what() << "\n";
            return kExitInternal;
        }
    }

    struct Decoded {
        bool ready = false;
        std::shared_ptr<const Image> image;
        double read_ms = 0;
        int code = kExitOk;
        std::string error;
    };
    std::vector<Decoded> decoded(n);
    // Headers as the decoders read them (before the pixels): the transform thread plans for the size meanwhile.
    std::vector<std::optional<ImageHeader>> headers(n);
    // Busy time of each stage, summed over its threads (--timings of a batch: which stage holds it back).
    double busy_decode = 0, busy_plan = 0, busy_transform = 0, busy_encode = 0;
    std::mutex mu;
    std::condition_variable cv;
    std::size_t next_decode = 0, transformed = 0;
    std::size_t next_transform = 0;  // the next input a transform thread takes
    bool stop = false;
    auto decode_worker = [&] {
        for (;;) {
            std::size_t i;
            {
                std::unique_lock<std::mutex> lock(mu);
                cv.wait(lock, [&] { return stop || next_decode >= n || next_decode < next_transform + ahead; });
                if (stop || next_decode >= n) return;
                i = next_decode++;
            }
            Decoded d;
            if (!skip[i]) {
                const auto t0 = std::chrono::steady_clock::now();
                try {
                    const HeaderCheck check = memory_check(s, wants_spectrum(jobs[i]), false, budget, /*device=*/false,
                                                           !jobs[i].inverse.empty());
                    d.image = std::make_shared<const Image>(
                        DecoderPool::shared().load(jobs[i].input, limits, [&, i, check](const ImageHeader& h) {
                            check(h);
                            std::lock_guard<std::mutex> lock(mu);
                            headers[i] = h;
                            cv.notify_all();
                        }));
                } catch (const InputError& e) {
                    d.code = kExitInput;
                    d.error = e.what();
                } catch (const std::bad_alloc&) {
                    d.code = kExitInput;
                    d.error = jobs[i].input + ": out of host memory";
                } catch (const std::exception& e) {
                    d.code = kExitInternal;
                    d.error = jobs[i].input + ": internal error: " + e.what();
                }
                d.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            }
            std::lock_guard<std::mutex> lock(mu);
            busy_decode += d.read_ms;
            d.ready = true;
            decoded[i] = std::move(d);
            cv.notify_all();
        }
    };

    struct Encode {
        std::size_t index;
        Frame frame;
        double read_ms;
        std::vector<std::string> image_notes;  // the decoded file's: the frame of a stack, replaced NaN/Inf
    };
    std::deque<Encode> encode_queue;
    bool encoding_closed = false;
    auto encode_worker = [&] {
        for (;;) {
            Encode e;
            {
                std::unique_lock<std::mutex> lock(mu);
                cv.wait(lock, [&] { return !encode_queue.empty() || encoding_closed; });
                if (encode_queue.empty()) return;
                e = std::move(encode_queue.front());
                encode_queue.pop_front();
                cv.notify_all();
            }
            const auto t_encode = std::chrono::steady_clock::now();
            const Job& j = jobs[e.index];
            const Frame& f = e.frame;
            Result r;
            r.done = true;
            try {
                const auto t0 = std::chrono::steady_clock::now();
                // One image: its PNG on all threads; a batch: an encoder thread an image (several at once).
                write_png(j.png, f, s.view.colormap, png_level, batch ? 1 : total_jobs);
                if (!j.raw.empty()) write_npy_complex64(j.raw, f.spectrum.data(), f.height, f.width);
                std::string wrote = j.png + (j.raw.empty() ? "" : ", " + j.raw);
                if (!j.inverse.empty()) {
                    if (fs::path(j.inverse).extension() == ".npy")
                        write_npy_float32(j.inverse, f.inverse.data(), f.height, f.width);
                    else
                        write_inverse_png(j.inverse, f, png_level);
                    wrote += ", " + j.inverse;
                }
                if (!save_mask_out.empty()) {
                    save_mask(save_mask_out, s.filters, s.strokes, s.mask_invert, f.width, f.height, total_jobs);
                    wrote += ", " + save_mask_out + ", " + mask_description_path(save_mask_out);
                }
                const double write_ms =
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                // The frequency lab's measurements, from the unmasked spectrum.
                std::ostringstream lab;
                if (!j.radial.empty()) {
                    const Profile p = radial_profile(f.spectrum.data(), f.width, f.height);
                    write_profile_csv(j.radial, "f_cycles_per_pixel,mean_power,count", p);
                    wrote += ", " + j.radial;
                    try {
                        const PowerLawFit fit = fit_power_law(p, fit_lo, fit_hi);
                        lab << "radial PSD slope: " << fmt(fit.slope) << " (f from " << fit_lo << " to " << fit_hi
                            << ")\n"
                            << "  fitted over " << fit.points << " radial bins\n";
                    } catch (const std::invalid_argument& ex) {
                        lab << "radial PSD slope: none (" << ex.what() << ")\n";
                    }
                }
                if (!j.angular.empty()) {
                    const Profile p = angular_profile(f.spectrum.data(), f.width, f.height);
                    write_profile_csv(j.angular, "angle_deg,mean_power,count", p);
                    wrote += ", " + j.angular;
                    std::size_t top = 0;
                    for (std::size_t k = 0; k < p.at.size(); ++k)
                        if (p.mean_power[k] > p.mean_power[top]) top = k;
                    if (!p.at.empty())
                        lab << "angular profile: most power at " << p.at[top] << "-" << p.at[top] + 1
                            << " deg (structures in the image run across that direction)\n";
                }
                if (other) {
                    if (f.image_width != other->image_w || f.image_height != other->image_h)
                        throw std::invalid_argument("--correlate: " + j.input + " is " + std::to_string(f.image_width) +
                                                    "x" + std::to_string(f.image_height) + ", " + correlate + " is " +
                                                    std::to_string(other->image_w) + "x" +
                                                    std::to_string(other->image_h) +
                                                    ": the images must have the same size");
                    std::vector<float> surface;
                    const ShiftEstimate sh = phase_correlation(
                        f.spectrum.data(), other->spectrum.data(), f.width, f.height, 100, batch ? 1 : total_jobs,
                        correlation_map.empty() ? nullptr : &surface, correlation_kind == "phase");
                    if (!correlation_map.empty()) {
                        const std::vector<unsigned char> levels = correlation_levels(surface);
                        const ColormapLut lut = make_colormap_lut(Colormap::Inferno);
                        PicturePixels px;
                        px.levels = levels.data();
                        px.level_bytes = 1;
                        px.lut = lut.rgba;
                        write_picture_png(correlation_map, px, f.width, f.height, PngColor::Rgb, png_level);
                        wrote += ", " + correlation_map;
                    }
                    char line[96];
                    std::snprintf(line, sizeof line, "shift: %.2f %.2f", sh.dx, sh.dy);
                    lab << line << "\n  " << correlation_kind << " correlation peak: " << fmt(sh.peak)
                        << " (1 for a pure shift)\n";
                }
                std::ostringstream out;
                out << j.input << ": " << f.image_width << "x" << f.image_height << " -> " << f.width << "x" << f.height
                    << " spectrum (" << f.backend << "), " << name_of(s.view.view) << " range [" << fmt(f.range_lo)
                    << ", " << fmt(f.range_hi) << "]" << (!has_mask(s) ? "" : " of the masked spectrum") << "; wrote "
                    << wrote << "\n"
                    << lab.str();
                for (const auto& note : e.image_notes) out << "  note: " << note << "\n";
                for (const auto& note : f.notes) out << "  note: " << note << "\n";
                if (timings) {
                    print_timings(f, out);
                    out << "  " << std::left << std::setw(44) << "read + decode (decoder process)" << std::right
                        << std::setw(10) << fmt(e.read_ms) << "\n  " << std::left << std::setw(44)
                        << (j.raw.empty() ? "write PNG" : "write PNG and .npy") << std::right << std::setw(10)
                        << fmt(write_ms) << "\n";
                }
                r.text = out.str();
            } catch (const std::invalid_argument& ex) {  // --correlate of another size
                r.code = kExitUsage;
                r.error = ex.what();
            } catch (const std::exception& ex) {  // output writing
                r.code = kExitOutput;
                r.error = ex.what();
            }
            std::lock_guard<std::mutex> lock(mu);
            busy_encode +=
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_encode).count();
            results[e.index] = std::move(r);
            cv.notify_all();
        }
    };

    // Progress on stderr: a bar when it is a terminal, "[i/n] file" lines otherwise (batches only).
    const bool tty = batch && isatty(STDERR_FILENO);
    const auto t_start = std::chrono::steady_clock::now();
    std::size_t printed = 0;
    auto print_ready = [&](std::unique_lock<std::mutex>& lock) {  // with mu held: everything done, in order
        while (printed < n && results[printed].done) {
            Result r = results[printed];
            const std::size_t i = printed++;
            lock.unlock();
            if (tty) std::cerr << "\r\033[K";
            if (batch && !tty) std::cerr << "[" << (i + 1) << "/" << n << "] " << jobs[i].input << "\n";
            if (r.code != kExitOk)
                fail(r.code, r.error);
            else
                std::cout << r.text << std::flush;
            if (tty) {
                const double s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
                const double rate = double(printed) / std::max(s_, 1e-9);
                std::cerr << "[" << printed << "/" << n << "] " << std::fixed << std::setprecision(1) << rate
                          << " images/s, ETA " << std::setprecision(0) << double(n - printed) / std::max(rate, 1e-9)
                          << " s" << std::defaultfloat << std::flush;
            }
            lock.lock();
        }
    };

    std::vector<std::thread> threads;
    for (int t = 0; t < decoders; ++t) threads.emplace_back(decode_worker);
    for (int t = 0; t < encoders; ++t) threads.emplace_back(encode_worker);
    auto finish = [&] {
        {
            std::lock_guard<std::mutex> lock(mu);
            encoding_closed = true;
            stop = true;
            cv.notify_all();
        }
        for (auto& t : threads) t.join();
        threads.clear();
    };

    // Transform threads: one for the CPU backend (FFTW uses every thread), two for a GPU batch (each with its own
    // engine and stream: one image's upload and download overlap the other's transform). Each takes the next
    // input in order; the printer below restores the order of the lines.
    const int transformers = s.backend != Backend::Cpu && batch ? 2 : 1;
    std::string gpu_unavailable;  // set when a GPU backend cannot run at all: everything stops
    std::string gpu_lost;         // set when the GPU stopped working (a sticky CUDA error): the rest runs on the CPU
    auto transform_worker = [&] {
        Engine engine;
        if (s.backend != Backend::Cpu) engine.device_info();  // the CUDA context while the first image decodes
        for (;;) {
            std::size_t i;
            Decoded d;
            {
                std::unique_lock<std::mutex> lock(mu);
                if (stop || next_transform >= n) return;
                i = next_transform++;
                cv.notify_all();  // the decoders' window moved
                // While the pixels decode, the plan for the header's size (once per size; errors show in the run).
                bool planned = skip[i] != 0;
                cv.wait(lock, [&] { return decoded[i].ready || stop || (!planned && headers[i]); });
                if (!decoded[i].ready && !stop && !planned && headers[i]) {
                    const ImageHeader h = *headers[i];
                    planned = true;
                    Settings sp = s;
                    if (!gpu_lost.empty()) sp.backend = Backend::Cpu;
                    lock.unlock();
                    const auto t_plan = std::chrono::steady_clock::now();
                    try {
                        const gpu::DeviceInfo* dev = sp.backend != Backend::Cpu ? &engine.device_info() : nullptr;
                        if (dev && dev->available)  // never plan what the device cannot hold
                            check_device_memory(h, sp, wants_spectrum(jobs[i]), false, double(dev->free_memory),
                                                dev->name, budget, !jobs[i].inverse.empty());
                        if (!dev || dev->available) engine.plan_for(sp, h.width, h.height);
                    } catch (const InputError&) {  // planning is a head start: the run meets these again and says so
                    } catch (const gpu::ConfigError&) {
                    } catch (const gpu::GpuUnavailable&) {
                    } catch (const gpu::GpuError&) {  // GpuContextLost too: the engine remembers it for the run
                    }
                    lock.lock();
                    busy_plan +=
                        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_plan).count();
                    cv.wait(lock, [&] { return decoded[i].ready || stop; });
                }
                if (stop) return;
                d = std::move(decoded[i]);
                decoded[i] = Decoded{true, nullptr, 0, kExitOk, ""};
            }
            Result r;
            // The settings of this image: the batch's, or the CPU backend once the GPU stopped working.
            Settings sw = s;
            {
                std::lock_guard<std::mutex> lock(mu);
                if (!gpu_lost.empty()) sw.backend = Backend::Cpu;
            }
            bool queued = false;  // transformed and handed to the encoders
            for (bool again = !skip[i] && d.code == kExitOk; again;) {
                again = false;
                try {
                    if (sw.backend != Backend::Cpu) {  // the device's half of the memory check, with the engine's probe
                        const gpu::DeviceInfo& dev = engine.device_info();
                        if (dev.available) {
                            const Image& im = *d.image;
                            try {
                                check_device_memory(
                                    ImageHeader{im.width, im.height, im.channels, im.bit_depth, im.format}, sw,
                                    wants_spectrum(jobs[i]), false, double(dev.free_memory), dev.name, budget,
                                    !jobs[i].inverse.empty());
                            } catch (const InputError& e) {
                                throw InputError(jobs[i].input, e.reason());
                            }
                        }
                    }
                    std::vector<std::string> image_notes;
                    if (d.image->frames > 1)
                        image_notes.push_back("frame " + std::to_string(d.image->frame + 1) + " of " +
                                              std::to_string(d.image->frames) + " (--frame)");
                    if (d.image->nonfinite) image_notes.push_back(nonfinite_note(*d.image));
                    engine.set_image(d.image, jobs[i].input);
                    RunOptions ro;
                    ro.want_spectrum = wants_spectrum(jobs[i]);
                    ro.want_inverse = !jobs[i].inverse.empty();
                    ro.one_shot = true;
                    ro.picture = depth == 16 ? PictureFormat::Level16 : PictureFormat::Level8;
                    const auto t_run = std::chrono::steady_clock::now();
                    Frame f = engine.run(sw, ro);
                    d.image.reset();
                    const double run_ms =
                        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_run).count();
                    std::unique_lock<std::mutex> lock(mu);
                    busy_transform += run_ms;
                    cv.wait(lock, [&] { return encode_queue.size() < std::size_t(encoders) + 1 || stop; });
                    encode_queue.push_back(Encode{i, std::move(f), d.read_ms, std::move(image_notes)});
                    ++transformed;
                    cv.notify_all();
                    queued = true;
                } catch (const InputError& e) {
                    r = {true, kExitInput, e.what(), ""};
                } catch (const gpu::GpuUnavailable& e) {
                    std::lock_guard<std::mutex> lock(mu);
                    if (gpu_unavailable.empty()) gpu_unavailable = e.what();
                    stop = true;
                    cv.notify_all();
                    return;
                } catch (const gpu::ConfigError& e) {
                    r = {true, kExitUsage, jobs[i].input + ": " + e.what(), ""};
                } catch (const gpu::GpuContextLost& e) {
                    // A sticky CUDA error: the GPU is gone for this process. The image that met it fails (exit 4);
                    // the rest of the batch runs on the CPU backend, said once. An image another thread had in
                    // flight when the first one met it is done again on the CPU.
                    std::lock_guard<std::mutex> lock(mu);
                    if (gpu_lost.empty()) {
                        gpu_lost = e.what();
                        r = {true, kExitGpu, jobs[i].input + ": the GPU stopped working: " + e.what(), ""};
                        if (batch)
                            std::cerr << "specview: the GPU stopped working; the rest of the batch runs on the CPU "
                                         "backend\n";
                    } else {
                        sw.backend = Backend::Cpu;
                        again = true;
                    }
                } catch (const gpu::GpuError& e) {
                    r = {true, kExitGpu,
                         jobs[i].input + ": GPU failure" +
                             std::string(e.out_of_memory() ? " (out of GPU memory)" : "") + ": " + e.what(),
                         ""};
                } catch (const std::bad_alloc&) {
                    r = {true, kExitInput, jobs[i].input + ": out of host memory", ""};
                } catch (const std::exception& e) {
                    r = {true, kExitInternal, jobs[i].input + ": internal error: " + e.what(), ""};
                }
            }
            if (queued) continue;
            if (!r.done && !skip[i] && d.code != kExitOk) r = {true, d.code, d.error, ""};
            std::lock_guard<std::mutex> lock(mu);
            if (!skip[i]) results[i] = r;
            ++transformed;
            cv.notify_all();
        }
    };
    std::vector<std::thread> transform_threads;
    for (int t = 0; t < transformers; ++t) transform_threads.emplace_back(transform_worker);
    {
        // The printer: lines in input order as they complete. Encoders stop once every image is transformed.
        std::unique_lock<std::mutex> lock(mu);
        for (;;) {
            if (transformed == n && !encoding_closed) {
                encoding_closed = true;
                cv.notify_all();
            }
            print_ready(lock);
            if (printed == n || !gpu_unavailable.empty()) break;
            cv.wait(lock, [&] {
                return (printed < n && results[printed].done) || !gpu_unavailable.empty() ||
                       (transformed == n && !encoding_closed);
            });
        }
    }
    for (auto& t : transform_threads) t.join();
    if (!gpu_unavailable.empty()) {
        finish();
        if (tty) std::cerr << "\n";
        std::cerr << "specview: GPU backend '" << backend << "' unavailable: " << gpu_unavailable
                  << " (use --backend cpu)\n";
        return kExitGpu;
    }
    finish();
    if (tty) std::cerr << "\n";
    if (batch)
        std::cerr << "specview: " << (n - failures + empty_dirs.size()) << " of " << n << " images done"
                  << (failures - int(empty_dirs.size())
                          ? ", " + std::to_string(failures - int(empty_dirs.size())) + " failed"
                          : "")
                  << "\n";
    if (timings && batch) {  // where the batch's time went: each stage's busy share of its threads' time
        const double wall =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_start).count();
        auto share = [&](double busy, int threads_) {
            return fmt(busy / 1000.0) +
                   " s busy = " + std::to_string(int(std::lround(100.0 * busy / std::max(1e-9, wall * threads_)))) +
                   "% of " + std::to_string(threads_) + " thread" + (threads_ > 1 ? "s" : "");
        };
        std::cout << "batch: " << n << " images in " << fmt(wall / 1000.0) << " s ("
                  << fmt(double(n) * 1000.0 / std::max(wall, 1e-9))
                  << " images/s)\n  decode (decoder processes): " << share(busy_decode, decoders)
                  << "\n  plan (while decoding):       " << share(busy_plan, transformers) << "\n  transform ("
                  << backend << "): " << share(busy_transform, transformers)
                  << "\n  encode (PNG, .npy):          " << share(busy_encode, encoders) << "\n";
    }
    if (timings) {  // this process's peak (the decoder processes have their own)
        std::ifstream status("/proc/self/status");
        for (std::string line; std::getline(status, line);)
            if (line.rfind("VmHWM:", 0) == 0) {
                std::cout << "peak resident memory: " << fmt(std::stod(line.substr(6)) / 1024.0) << " MiB\n";
                break;
            }
    }
    return first_failure;
}

}  // namespace specview
