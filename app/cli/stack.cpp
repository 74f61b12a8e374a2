#include "app/cli/stack.h"

#include <climits>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "app/cli/cli.h"
#include "app/cli/shared.h"
#include "app/core/bounded_queue.h"
#include "app/core/ordered_parallel.h"
#include "app/engine/cpu_backend.h"
#include "app/engine/engine.h"
#include "app/io/decoder_pool.h"
#include "app/io/memory_need.h"
#include "app/io/npy.h"
#include "app/io/video_encode.h"
#include "gpu/common/errors.h"

namespace specview {
namespace fs = std::filesystem;

namespace {

// -o and --raw as directories (--frame-range), or --average's files not there yet (unless --force).
int prepare_outputs(const StackRun& r, const std::string& out_dir, const std::string& raw_dir,
                    const std::string& avg_png) {
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
    if (r.average && !r.common.force) {
        std::error_code ec;
        for (const std::string& o : {avg_png, r.raw})
            if (!o.empty() && fs::exists(o, ec)) {
                std::cerr << "specview: " << o << ": exists; use --force to overwrite\n";
                return kExitOutput;
            }
    }
    return kExitOk;
}

// A video with a GPU backend: decoded by NVDEC in this process, the frames staying on the device (auto: when it can
// be; else on the CPU in the isolated decoder, saying why in *decoded_by).
int open_video(const StackRun& r, const LoadLimits& limits, std::unique_ptr<GpuVideo>* gpu_video,
               std::string* decoded_by) {
    if (r.files.empty() && r.video_decode != VideoDecode::Cpu && file_is_video(r.input)) {
        std::string why = gpu_decode_excluded(r.video_decode, r.s);
        if (why.empty()) try {
                *gpu_video = open_gpu_video(r.input, limits);
                *decoded_by = (*gpu_video)->decoder();
            } catch (const GpuDecodeUnavailable& e) {
                why = e.what();
            } catch (const InputError& e) {
                std::cerr << "specview: " << e.what() << "\n";
                return kExitInput;
            }
        if (!*gpu_video) {
            if (r.video_decode == VideoDecode::Gpu) {
                std::cerr << "specview: " << r.input << ": cannot decode it on the GPU (--video-decode gpu): " << why
                          << "\n";
                return kExitInput;
            }
            *decoded_by = !cuda_backend(r.s.backend) ? "the CPU" : "the CPU (not on the GPU: " + why + ")";
        }
    }
    return kExitOk;
}

}  // namespace

void decode_stack_frames(const StackRun& r, const LoadLimits& limits, const HeaderCheck& check, GpuVideo* gpu_video,
                         int count, const std::function<bool(Image)>& push) {
    if (!r.files.empty()) {  // a sequence of files: one frame each, all one size, decoded several at once
        const int n = int(r.files.size());
        const int last = r.last >= 0 ? r.last : n - 1;
        auto no_frame = [&](int k) {
            return InputError(r.input,
                              "no frame " + std::to_string(k + 1) + ": the stack has " + std::to_string(n) + " files");
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
                throw InputError(
                    r.input, "no frame " + std::to_string(k + 1) + ": the video has " + std::to_string(n) + " frames");
            if (!push(gpu_video->decode(k, check))) break;
        }
    } else {
        // Several decoder children at once (in order all the same): decoding, not the transform, is
        // what a stack of large frames waits for.
        DecoderPool::shared().load_frames_parallel(r.input, limits, r.first, count, check, push,
                                                   stack_decode_streams());
    }
}

namespace {

// --average: the mean power spectrum as a picture (|F| = sqrt(mean power) through the view, range and colormap)
// and --raw's mean power.
int write_average(const StackRun& r, Engine& engine, int frames_done, int width, int height, const std::string& avg_png,
                  std::string* wrote) {
    std::vector<double> power;  // the engine's sum of |F|^2
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
    picture_of_values(values, r.s.view.colormap, r.common.depth, pic);
    try {
        write_png(avg_png, pic, r.s.view.colormap, r.common.png_level, 0);
        *wrote = avg_png;
        if (!r.raw.empty()) {
            std::vector<float> mean(power.size());
            for (std::size_t i = 0; i < power.size(); ++i) mean[i] = float(power[i] / frames_done);
            write_npy_float32(r.raw, mean.data(), height, width);
            *wrote += ", " + r.raw;
        }
    } catch (const std::exception& e) {
        std::cerr << "specview: " << e.what() << "\n";
        return kExitOutput;
    }
    return kExitOk;
}

}  // namespace

int run_stack(const StackRun& r) {
    const std::string stem = r.files.empty() ? fs::path(r.input).stem().string()
                                             : fs::path(r.files.front()).parent_path().filename().string() + "_stack";
    LoadLimits limits;
    limits.max_side = r.common.max_side;
    limits.max_pixels = std::uint64_t(r.common.max_side) * std::uint64_t(r.common.max_side);
    limits.check_available_memory = false;
    MemoryBudget budget;
    budget.host = r.common.budget_host;
    const HeaderCheck check = memory_check(r.s, !r.raw.empty() || r.average, false, budget, false);
    const bool pngs = !r.average && (r.export_video.empty() || !r.output.empty());
    const std::string out_dir = !pngs ? "" : (r.output.empty() ? "." : r.output);
    const std::string raw_dir = r.average ? "" : r.raw;
    const std::string avg_png = r.output.empty() ? stem + "_average_spectrum.png" : r.output;
    if (const int code = prepare_outputs(r, out_dir, raw_dir, avg_png); code != kExitOk) return code;
    const auto t0 = std::chrono::steady_clock::now();
    // A video with a GPU backend: decoded by NVDEC in this process, the frames staying on the device (auto: when
    // it can be; else on the CPU in the isolated decoder, saying why).
    std::unique_ptr<GpuVideo> gpu_video;
    std::string decoded_by;  // which decoder ran, for the summary line
    if (const int code = open_video(r, limits, &gpu_video, &decoded_by); code != kExitOk) return code;
    // The decoder's stream a few frames ahead of the transforms (three in memory at most).
    BoundedQueue<Image> queue(3);
    int total_frames = 0;  // written by the decoder thread, read after it is joined
    std::exception_ptr error;
    std::thread decoder([&] {
        try {
            const int count = r.last >= 0 ? r.last - r.first + 1 : INT_MAX;  // INT_MAX: to the last frame
            decode_stack_frames(r, limits, check, gpu_video.get(), count, [&](Image img) {
                total_frames = img.frames;
                return queue.push(std::move(img));  // false once the transforms stopped
            });
        } catch (...) {
            error = std::current_exception();
        }
        queue.close();
    });
    Engine engine(r.gpus.empty() ? 0 : r.gpus.front());
    std::unique_ptr<VideoWriter> video;  // --export-video, opened with the first frame (its size and rate)
    std::vector<std::uint32_t> rgba;
    const ColormapLut lut = make_colormap_lut(r.s.view.colormap);
    int width = 0, height = 0, frames_done = 0, first_frame = -1, last_frame = -1;
    std::string backend, wrote;
    double transform_ms = 0;
    int code = kExitOk;
    std::string message;
    while (std::optional<Image> next = queue.pop()) {
        Image img = std::move(*next);
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
            o.picture = r.common.depth == 16 ? PictureFormat::Level16 : PictureFormat::Level8;
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
                    if (!r.common.force && fs::exists(png, ec))
                        throw std::runtime_error(png + ": exists; use --force to overwrite");
                    write_png(png, fr, r.s.view.colormap, r.common.png_level, 0);
                }
                if (!raw_dir.empty())
                    write_npy_complex64((fs::path(raw_dir) / (stem + tag + ".npy")).string(), fr.spectrum.data(),
                                        height, width);
                if (!r.export_video.empty()) {
                    if (!video) {
                        std::error_code ec;
                        if (!r.common.force && fs::exists(r.export_video, ec))
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
            queue.cancel();
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
        if (const int c = write_average(r, engine, frames_done, width, height, avg_png, &wrote); c != kExitOk) return c;
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
              << backend << (r.backend_why.empty() ? "" : "; " + r.backend_why)
              << (decoded_by.empty() ? "" : "; video decoded by " + decoded_by) << "); wrote " << wrote
              << "\n";
    if (r.common.timings) {
        std::cout << "  " << std::left << std::setw(44) << "transforms (all frames)" << std::right << std::setw(10)
                  << fmt(transform_ms) << "\n"
                  << "  " << std::left << std::setw(44) << "wall, decode included" << std::right << std::setw(10)
                  << fmt(wall) << "\n";
    }
    return kExitOk;
}

}  // namespace specview
