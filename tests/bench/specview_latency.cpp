// specview-latency: what the user waits for, through the viewer's own code path (the worker, its engine,
// the picture slots and the device-to-device copy into a texture), without a window: wall clock on the host
// from a change of settings to its picture in a CUDA array the size of the viewer's texture (the copy
// completed), median and 90th percentile of N changes per kind, at several photo sizes. The viewer's
// texture is a GL texture mapped for the same copy; here a cudaArray stands in for it (no GL on the machine).
//
//   specview-latency [--sizes 2048,4096,8192] [--reps 50] [--image-reps 10] [--csv FILE]
//   specview-latency --lab [--sizes ...] [--reps N]   (the frequency lab's mask-change loop on the engine)
//   specview-latency --write-photo PATH W [H [SEED]]   (only writes a synthetic photo, PNG or .jpg, for scripts)
//   specview-latency --write-stack PATH PAGES SIZE     (only writes a float32 TIFF stack of noise, for scripts)
//   specview-latency --write-tiff16 PATH SIZE          (only writes a SIZE^2 16-bit gray TIFF, for scripts)
//   specview-latency --write-video PATH W H FRAMES     (only writes a 60 fps video of a moving, turning grating over
//                                                       a textured field, H.264 when FFmpeg has libx264, for scripts)
#include <cuda_runtime.h>
#include <stb_image_write.h>
#include <tiffio.h>

#include "tests/bench/photo.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "app/engine/engine.h"
#include "app/io/video_encode.h"
#include "ui/worker/worker.h"
#include "gpu/runtime/device_info.h"

using namespace specview;
using Clock = std::chrono::steady_clock;

namespace {

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                    \
        }                                                                    \
    } while (0)

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double pct(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double i = p * double(v.size() - 1);
    const std::size_t a = std::size_t(std::floor(i)), b = std::min(v.size() - 1, a + 1);
    return v[a] + (v[b] - v[a]) * (i - double(a));
}

// The synthetic photo (tests/bench/photo.h) as PNG, or JPEG quality 90 for a .jpg path.
void write_photo(const std::string& path, int w, int h, unsigned seed) {
    const std::vector<unsigned char> px = specview::bench::synthetic_photo(w, h, seed);
    const bool jpeg = path.size() > 4 && path.substr(path.size() - 4) == ".jpg";
    stbi_write_png_compression_level = 2;
    if (!(jpeg ? stbi_write_jpg(path.c_str(), w, h, 3, px.data(), 90)
               : stbi_write_png(path.c_str(), w, h, 3, px.data(), w * 3))) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        std::exit(1);
    }
}

// The viewer's side of the hand-over: poll (no blocking wait on the worker), copy the slot into the texture,
// record the slot's consumed event, hand the slot back.
class Consumer {
public:
    Consumer() { CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    ~Consumer() {
        if (array_) cudaFreeArray(array_);
        cudaStreamDestroy(stream_);
    }
    // Waits (polling, as the frame loop does) for the run posted as `change`; returns false on a failed run.
    bool take(Worker& w, std::uint64_t change, Frame* frame_out = nullptr, DecodedImage* decoded = nullptr) {
        for (;;) {
            WorkerUpdates u = w.poll();
            if (u.decoded && decoded) *decoded = std::move(*u.decoded);
            for (const auto& m : u.messages)
                if (m.first) std::fprintf(stderr, "  worker: %s\n", m.second.c_str());
            if (u.run && u.run->change == change) {
                if (!u.run->ok) {
                    std::fprintf(stderr, "  run failed: %s\n", u.run->error.c_str());
                    return false;
                }
                const Frame& f = u.run->frame;
                ensure(f.width, f.height);
                if (f.device_rgba) {
                    CHECK(cudaMemcpy2DToArrayAsync(array_, 0, 0, f.device_rgba, std::size_t(f.width) * 4,
                                                   std::size_t(f.width) * 4, f.height, cudaMemcpyDeviceToDevice,
                                                   stream_));
                    CHECK(cudaEventRecord(reinterpret_cast<cudaEvent_t>(f.slot_consumed_event), stream_));
                    CHECK(cudaStreamSynchronize(stream_));
                    w.release_slot(f.picture_slot);
                } else {
                    CHECK(cudaMemcpy2DToArrayAsync(array_, 0, 0, f.rgba.data(), std::size_t(f.width) * 4,
                                                   std::size_t(f.width) * 4, f.height, cudaMemcpyHostToDevice,
                                                   stream_));
                    CHECK(cudaStreamSynchronize(stream_));
                }
                if (frame_out) *frame_out = u.run->frame;
                return true;
            }
            if (u.run && u.run->frame.picture_slot >= 0) w.release_slot(u.run->frame.picture_slot);
            std::this_thread::yield();  // poll hard: the frame loop polls once a frame, this measures the pipeline
        }
    }

private:
    void ensure(int w, int h) {
        if (w == w_ && h == h_) return;
        if (array_) cudaFreeArray(array_);
        const cudaChannelFormatDesc d = cudaCreateChannelDesc<uchar4>();
        CHECK(cudaMallocArray(&array_, &d, w, h));
        w_ = w;
        h_ = h;
    }
    cudaStream_t stream_ = nullptr;
    cudaArray_t array_ = nullptr;
    int w_ = 0, h_ = 0;
};

struct Row {
    int size;
    std::string kind, backend;
    std::vector<double> ms;
    double kernels_ms = 0;  // the run's own transform + view time (median), for the knobs' target
    double decode_ms = 0;   // new image: the decode's share (median)
};

// The frequency lab's loop on the engine: a mask change (two low-pass radii in turn) with the inverse, the
// forward spectrum kept. Median over `reps` changes of the device stages (mask build, view, inverse: the
// run's total_ms) and of the engine's wall time, which includes downloading the picture and the filtered plane.
int lab(const std::vector<int>& sizes, int reps) {
    std::printf("frequency lab: mask change -> masked picture + inverse (forward spectrum kept)\n");
    for (int n : sizes) {
        const std::vector<unsigned char> px = specview::bench::synthetic_photo(n, n, 1);
        Image img = Image::allocate(n, n, 3, 8, "photo");
        std::copy(px.begin(), px.end(), img.writable());
        for (Backend b : {Backend::CustomFast, Backend::Cufft, Backend::Custom}) {
            Engine engine;
            engine.set_image(img, "photo");
            Settings s;
            s.backend = b;
            FilterSpec f;
            f.kind = FilterKind::LowPass;
            f.edge = FilterEdge::Gauss;
            RunOptions o;
            o.want_inverse = true;
            o.picture = PictureFormat::Level8;
            // Mask changes (two low-pass radii in turn), three unmeasured first: device stages and engine wall.
            auto mask_changes = [&](const RunOptions& ro, std::vector<double>& device, std::vector<double>& wall) {
                for (int i = -3; i < reps; ++i) {
                    f.r = i % 2 ? 0.1 : 0.11;
                    s.filters = {f};
                    const auto t0 = Clock::now();
                    const Frame fr = engine.run(s, ro);
                    const double ms = ms_since(t0);
                    if (i >= 0) {
                        device.push_back(fr.total_ms);
                        wall.push_back(ms);
                    }
                }
            };
            std::vector<double> device, wall;
            mask_changes(o, device, wall);
            // As the viewer runs it: the picture and the third view stay on the device in a picture slot (no
            // download of either): the engine's wall time is the mask change's cost before the texture copies.
            RunOptions slot = o;
            slot.picture = PictureFormat::Rgba8;
            slot.want_rgba = false;
            slot.picture_slot = 0;
            slot.lab_on_device = true;
            std::vector<double> slot_device, slot_wall;
            mask_changes(slot, slot_device, slot_wall);
            // The analysis strip's radial and angular PSD of the kept spectrum: device time and wall time.
            std::vector<double> psd_device, psd_wall;
            for (int i = -2; i < reps; ++i) {
                const auto t0 = Clock::now();
                const PowerProfiles p = engine.power_profiles(s);
                const double ms = ms_since(t0);
                if (i >= 0) {
                    psd_device.push_back(p.ms);
                    psd_wall.push_back(ms);
                }
            }
            std::printf(
                "  %5d^2 %-12s device stages median %7.3f ms (p90 %7.3f); engine wall with downloads %7.2f ms\n", n,
                name_of(b).c_str(), pct(device, 0.5), pct(device, 0.9), pct(wall, 0.5));
            std::printf(
                "  %5d^2 %-12s viewer path (picture + third view in a slot): device %7.3f ms, engine wall %7.3f ms\n",
                n, name_of(b).c_str(), pct(slot_device, 0.5), pct(slot_wall, 0.5));
            std::printf(
                "  %5d^2 %-12s radial + angular PSD on the device: %7.3f ms (wall with the bins' download %7.3f ms)\n",
                n, name_of(b).c_str(), pct(psd_device, 0.5), pct(psd_wall, 0.5));
            std::fflush(stdout);
        }
    }
    return 0;
}

}  // namespace

// Writes `pages` square gray pages of side n as libtiff streams them (striped, uncompressed, no image in memory):
// 16-bit unsigned or 32-bit float samples; row(page, y, samples) fills one row. BigTIFF past 2 GiB.
bool write_gray_tiff(const char* path, int pages, int n, int bits, const std::function<void(int, int, void*)>& row) {
    if (pages < 1 || n < 1 || (bits != 16 && bits != 32)) return false;
    const std::int64_t bytes = std::int64_t(pages) * n * n * (bits / 8);
    TIFF* t = TIFFOpen(path, bytes > (std::int64_t(1) << 31) ? "w8" : "w");
    if (!t) return false;
    std::vector<unsigned char> buffer(std::size_t(n) * (bits / 8));
    bool ok = true;
    for (int p = 0; p < pages && ok; ++p) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, std::uint32_t(n));
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, std::uint32_t(n));
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, std::uint16_t(1));
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, std::uint16_t(bits));
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, std::uint16_t(bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT));
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, std::uint16_t(PHOTOMETRIC_MINISBLACK));
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, std::uint32_t(64));
        if (pages > 1) TIFFSetField(t, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
        for (int y = 0; y < n && ok; ++y) {
            row(p, y, buffer.data());
            ok = TIFFWriteScanline(t, buffer.data(), std::uint32_t(y), 0) >= 0;
        }
        ok = ok && TIFFWriteDirectory(t);
    }
    TIFFClose(t);
    return ok;
}

int main(int argc, char** argv) {
    std::vector<int> sizes{2048, 4096, 8192};
    int reps = 50, image_reps = 10;
    bool lab_mode = false;
    std::string csv_path;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--write-photo" && i + 2 < argc) {  // PATH WIDTH [HEIGHT [SEED]]; .jpg: JPEG quality 90
            const int w = std::atoi(argv[i + 2]);
            const int h = i + 3 < argc ? std::atoi(argv[i + 3]) : w;
            const unsigned seed = i + 4 < argc ? unsigned(std::atoi(argv[i + 4])) : 1u;
            write_photo(argv[i + 1], w, h, seed);
            return 0;
        }
        if (a == "--write-tiff16" && i + 2 < argc) {  // PATH SIZE: one 16-bit gray page (a smooth field + noise)
            const int n = std::atoi(argv[i + 2]);
            std::mt19937 rng(1);
            std::normal_distribution<float> noise(0.0f, 800.0f);
            return write_gray_tiff(argv[i + 1], 1, n, 16,
                                   [&](int, int y, void* out) {
                                       auto* row = static_cast<std::uint16_t*>(out);
                                       for (int x = 0; x < n; ++x) {
                                           const float v = 32768.0f +
                                                           12000.0f * std::sin(0.013f * x) * std::cos(0.021f * y) +
                                                           noise(rng);
                                           row[x] = std::uint16_t(std::clamp(v, 0.0f, 65535.0f));
                                       }
                                   })
                       ? 0
                       : 2;
        }
        if (a == "--write-video" && i + 4 < argc) {
            const int w = std::atoi(argv[i + 2]), h = std::atoi(argv[i + 3]), frames = std::atoi(argv[i + 4]);
            try {
                VideoWriter out(argv[i + 1], w, h, 60.0);
                std::vector<std::uint32_t> rgba(std::size_t(w) * h);
                // A camera-like scene: a smooth random texture panning 3 px a frame (what motion compensation
                // predicts), a grating over it turning and tightening, a little noise.
                const int tw = w + 3 * frames + 64;
                std::mt19937 rng(5);
                std::vector<float> tex(std::size_t(tw) * h), tmp(tex.size());
                std::uniform_real_distribution<float> u(-1.0f, 1.0f);
                for (float& t : tex) t = u(rng);
                for (int pass = 0; pass < 3; ++pass) {  // box blurs: structure at ~10 px
                    for (int y = 0; y < h; ++y)
                        for (int x = 0; x < tw; ++x) {
                            float s = 0;
                            for (int d = -4; d <= 4; ++d) s += tex[std::size_t(y) * tw + std::clamp(x + d, 0, tw - 1)];
                            tmp[std::size_t(y) * tw + x] = s / 9;
                        }
                    for (int y = 0; y < h; ++y)
                        for (int x = 0; x < tw; ++x) {
                            float s = 0;
                            for (int d = -4; d <= 4; ++d) s += tmp[std::size_t(std::clamp(y + d, 0, h - 1)) * tw + x];
                            tex[std::size_t(y) * tw + x] = s / 9;
                        }
                }
                std::normal_distribution<float> noise(0.0f, 2.0f);
                for (int f = 0; f < frames; ++f) {
                    const double angle = 0.02 * f, k = 2.0 * M_PI * (0.02 + 0.0005 * f);
                    const double kx = k * std::cos(angle), ky = k * std::sin(angle);
                    for (int y = 0; y < h; ++y)
                        for (int x = 0; x < w; ++x) {
                            const double v = 128.0 + 40.0 * std::cos(kx * x + ky * y) +
                                             300.0 * tex[std::size_t(y) * tw + x + 3 * f] + noise(rng);
                            const auto g = std::uint32_t(std::clamp(v, 0.0, 255.0));
                            rgba[std::size_t(y) * w + x] = g | (g << 8) | (g << 16) | 0xff000000u;
                        }
                    out.add(rgba.data());
                }
                out.finish();
                std::printf("wrote %s: %dx%d, %d frames, %s\n", argv[i + 1], w, h, frames, out.codec().c_str());
                return 0;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "specview-latency: %s\n", e.what());
                return 2;
            }
        }
        if (a == "--write-stack" && i + 3 < argc) {  // PATH PAGES SIZE: float32 pages of noise
            const int pages = std::atoi(argv[i + 2]), n = std::atoi(argv[i + 3]);
            std::mt19937 rng(1);
            std::normal_distribution<float> noise(0.0f, 1.0f);
            return write_gray_tiff(argv[i + 1], pages, n, 32,
                                   [&](int, int, void* out) {
                                       auto* row = static_cast<float*>(out);
                                       for (int x = 0; x < n; ++x) row[x] = noise(rng);
                                   })
                       ? 0
                       : 2;
        }
        if (a == "--lab")
            lab_mode = true;
        else if (a == "--reps" && i + 1 < argc)
            reps = std::max(5, std::atoi(argv[++i]));
        else if (a == "--image-reps" && i + 1 < argc)
            image_reps = std::max(3, std::atoi(argv[++i]));
        else if (a == "--csv" && i + 1 < argc)
            csv_path = argv[++i];
        else if (a == "--sizes" && i + 1 < argc) {
            sizes.clear();
            std::string list = argv[++i];
            for (std::size_t p = 0; p < list.size();) {
                const std::size_t q = list.find(',', p);
                sizes.push_back(std::atoi(list.substr(p, q - p).c_str()));
                p = q == std::string::npos ? list.size() : q + 1;
            }
        } else {
            std::fprintf(stderr, "usage: %s [--sizes 2048,4096,8192] [--reps N] [--image-reps N] [--csv FILE]\n",
                         argv[0]);
            return 2;
        }
    }
    const gpu::DeviceInfo dev = gpu::probe_device(0);
    if (!dev.available) {
        std::fprintf(stderr, "specview-latency: no GPU (%s)\n", dev.why_unavailable.c_str());
        return 4;
    }
    std::printf("device: %s\n", dev.name.c_str());
    if (lab_mode) return lab(sizes, reps);
    const auto dir = std::filesystem::temp_directory_path() / "specview-latency";
    std::filesystem::create_directories(dir);

    std::vector<Row> rows;
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    for (int n : sizes) {
        const std::string a = (dir / ("a" + std::to_string(n) + ".png")).string();
        const std::string b = (dir / ("b" + std::to_string(n) + ".png")).string();
        const std::string small = (dir / ("c" + std::to_string(n / 2) + ".png")).string();
        auto t0 = Clock::now();
        write_photo(a, n, n, 1);
        write_photo(b, n, n, 2);
        write_photo(small, n / 2, n / 2, 3);
        std::printf("\n== %dx%d photos (written in %.0f ms)\n", n, n, ms_since(t0));
        std::fflush(stdout);

        Worker w(std::max(1, cores - 1));
        Consumer c;
        std::uint64_t change = 0;
        w.open(a);
        w.wait_idle();
        (void)w.poll();

        // A change: post it, then poll until its picture is in the texture.
        auto measure = [&](const std::string& kind, Backend backend, int count,
                           const std::function<void(Settings&, int)>& mutate) {
            Row r{n, kind, name_of(backend), {}, 0, 0};
            std::vector<double> kernels;
            Settings s;
            s.backend = backend;
            for (int i = -4; i < count; ++i) {  // 4 warm-up changes: plans, first allocations
                mutate(s, i);
                Frame f;
                const auto t = Clock::now();
                w.run(s, ++change, true);
                if (!c.take(w, change, &f)) return;
                const double ms = ms_since(t);
                if (i < 0) continue;
                r.ms.push_back(ms);
                kernels.push_back(f.total_ms);
            }
            r.kernels_ms = pct(kernels, 0.5);
            rows.push_back(r);
            std::printf("  %-34s %-12s median %8.3f ms  p90 %8.3f ms  (kernels %.3f ms)\n", kind.c_str(),
                        r.backend.c_str(), pct(r.ms, 0.5), pct(r.ms, 0.9), r.kernels_ms);
            std::fflush(stdout);
        };
        const Colormap maps[2] = {Colormap::Gray, Colormap::Inferno};
        for (Backend be : {Backend::Cufft, Backend::CustomFast, Backend::Custom}) {
            measure("view: colormap", be, reps, [&](Settings& s, int i) { s.view.colormap = maps[(i + 8) % 2]; });
            measure("view: range auto/top", be, reps,
                    [&](Settings& s, int i) { s.view.range = (i + 8) % 2 ? RangeMode::Top : RangeMode::Auto; });
            measure("plane: window none/hann", be, reps,
                    [&](Settings& s, int i) { s.window = (i + 8) % 2 ? Window::Hann : Window::None; });
            measure("plane: channel luma/r", be, reps,
                    [&](Settings& s, int i) { s.channel = (i + 8) % 2 ? Channel::R : Channel::Luma; });
            measure("plane: tukey-alpha", be, reps, [&](Settings& s, int i) {
                s.window = Window::Tukey;
                s.tukey_alpha = float((i + 8) % 10) / 10.0f;
            });
        }
        measure("backend: cufft <-> custom-fast", Backend::Cufft, reps,
                [&](Settings& s, int i) { s.backend = (i + 8) % 2 ? Backend::CustomFast : Backend::Cufft; });
        measure("knob: threads per block 256/512", Backend::Custom, reps,
                [&](Settings& s, int i) { s.custom.rows.threads_per_block = (i + 8) % 2 ? 512 : 256; });
        measure("knob: H 2/4", Backend::Custom, reps,
                [&](Settings& s, int i) { s.custom.rows.block_height = (i + 8) % 2 ? 4 : 2; });
        measure("knob: local length 1024/auto", Backend::Custom, reps,
                [&](Settings& s, int i) { s.custom.rows.max_local_length = (i + 8) % 2 ? 1024 : 0; });
        measure("knob: tile 16/32", Backend::Custom, reps,
                [&](Settings& s, int i) { s.custom.transpose.tile = (i + 8) % 2 ? 16 : 32; });

        // The cursor readout: one bin's value from the device (a direct DFT of the plane's bin).
        for (Backend be : {Backend::Cufft, Backend::CustomFast}) {
            Settings s;
            s.backend = be;
            w.run(s, ++change, true);
            c.take(w, change);
            Row r{n, "readout: one bin", name_of(be), {}, 0, 0};
            std::mt19937 rng(7);
            for (int i = 0; i < reps; ++i) {
                const auto t = Clock::now();
                w.read_value(s, change, int(rng() % n), int(rng() % n));
                for (;;) {
                    WorkerUpdates u = w.poll();
                    if (u.value) break;
                    std::this_thread::
                        yield();  // poll hard: the frame loop polls once a frame, this measures the pipeline
                }
                r.ms.push_back(ms_since(t));
            }
            rows.push_back(r);
            std::printf("  %-34s %-12s median %8.3f ms  p90 %8.3f ms\n", r.kind.c_str(), r.backend.c_str(),
                        pct(r.ms, 0.5), pct(r.ms, 0.9));
        }

        // New images: open (read + decode off the caller's thread), then the run the viewer posts on arrival.
        for (Backend be : {Backend::Cufft, Backend::CustomFast}) {
            for (const bool same_size : {true, false}) {
                Row r{n, same_size ? "new image, same size" : "new image, new size", name_of(be), {}, 0, 0};
                std::vector<double> decode;
                Settings s;
                s.backend = be;
                // New size: alternately the half-size photo and this one; only the switches to this size count.
                for (int i = -1; i < (same_size ? image_reps : 2 * image_reps); ++i) {
                    const std::string path = same_size ? (i % 2 ? a : b) : (i % 2 ? a : small);
                    const auto t = Clock::now();
                    w.open(path);
                    DecodedImage d;
                    for (;;) {  // the decoded image arrives; the viewer then posts a run
                        WorkerUpdates u = w.poll();
                        if (u.decoded) {
                            d = std::move(*u.decoded);
                            break;
                        }
                        std::this_thread::
                            yield();  // poll hard: the frame loop polls once a frame, this measures the pipeline
                    }
                    w.run(s, ++change, true);
                    if (!c.take(w, change)) break;
                    if (i < 0 || (!same_size && path != a)) continue;
                    r.ms.push_back(ms_since(t));
                    decode.push_back(d.decode_ms);
                }
                r.decode_ms = pct(decode, 0.5);
                rows.push_back(r);
                std::printf("  %-34s %-12s median %8.3f ms  p90 %8.3f ms  (decode %.1f ms: + %.1f ms)\n",
                            r.kind.c_str(), r.backend.c_str(), pct(r.ms, 0.5), pct(r.ms, 0.9), r.decode_ms,
                            pct(r.ms, 0.5) - r.decode_ms);
                std::fflush(stdout);
            }
        }
        for (const std::string& f : {a, b, small}) std::filesystem::remove(f);
    }

    if (!csv_path.empty()) {
        std::ofstream out(csv_path);
        out << "device,size,kind,backend,median_ms,p90_ms,max_ms,kernels_ms,decode_ms,n\n";
        for (const Row& r : rows)
            out << '"' << dev.name << "\"," << r.size << ",\"" << r.kind << "\"," << r.backend << ',' << pct(r.ms, 0.5)
                << ',' << pct(r.ms, 0.9) << ',' << pct(r.ms, 1.0) << ',' << r.kernels_ms << ',' << r.decode_ms << ','
                << r.ms.size() << '\n';
    }
    return 0;
}
