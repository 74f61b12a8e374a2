// Index of this file (grep "[SECTION]"):
// - The requests the viewer posts (each coalesces: the latest wins)
// - Jobs: analysis, correlation, a stack's analysis, the sweep, custom vs cuFFT, saves, the classroom's rows
// - What the viewer polls, picture slots, errors
// - The decoder thread: opening files, streaming a stack's frames, NVDEC
// - The runner thread: the engine's runs (a GPU that stops working: the CPU), the lab's third view
#include "ui/worker/worker.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <future>
#include <sstream>
#include <thread>
#include <utility>

#include "app/engine/cpu_backend.h"
#include "app/io/decoder_pool.h"
#include "app/lab/filter.h"
#include "app/lab/mask_io.h"
#include "app/io/memory_need.h"
#include "app/io/npy.h"
#include "app/core/parallel_bands.h"
#include "app/io/png_write.h"
#include "gpu/runtime/device_info.h"
#include "gpu/common/errors.h"

namespace specview {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string describe(const std::exception& e) {
    if (auto* g = dynamic_cast<const gpu::GpuError*>(&e); g && g->out_of_memory())
        return std::string(e.what()) + " (out of GPU memory: try a smaller image or the CPU backend)";
    return e.what();
}
}  // namespace

// [SECTION] The requests the viewer posts (each coalesces: the latest wins)
Worker::Worker(int cpu_threads) : cpu_threads_(std::max(1, cpu_threads)) {
    set_cpu_fft_threads(cpu_threads);
    decoder_ = std::thread([this] { decoder_loop(); });
    runner_ = std::thread([this] { runner_loop(); });
}

Worker::~Worker() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
        jobs_.clear();
    }
    cv_.notify_all();
    decode_cv_.notify_all();
    decoder_.join();
    runner_.join();
}

std::uint64_t Worker::open(const std::string& path, const LoadLimits& limits, HeaderCheck check,
                           std::optional<Settings> plan_with, std::optional<RunAfterOpen> run_after) {
    std::lock_guard<std::mutex> lock(mu_);
    open_req_ =
        OpenRequest{++next_image_id_, path, limits, std::move(check), std::move(plan_with), std::move(run_after)};
    decode_cv_.notify_one();
    return next_image_id_;
}

void Worker::set_video_decode(VideoDecode how, bool display_on_device) {
    std::lock_guard<std::mutex> lock(mu_);
    video_decode_ = how;
    display_on_device_ = display_on_device;
}

void Worker::run(const Settings& s, std::uint64_t change, bool picture_on_device) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    const bool burst = now - last_run_posted_ < kPreviewBurst;
    last_run_posted_ = now;
    run_req_ = RunRequest{s, change, picture_on_device,
                          burst && s.backend == Backend::Cpu && s.stop.kind == gpu::StopPoint::Kind::Done && !has_mask(s)};
    cv_.notify_one();
}

void Worker::read_value(const Settings& s, std::uint64_t change, int x, int y) {
    std::lock_guard<std::mutex> lock(mu_);
    value_req_ = ValueRequest{s, change, x, y};
    cv_.notify_one();
}

void Worker::analyse(const Settings& s, std::uint64_t change, const AnalysisRequest& what) {
    std::lock_guard<std::mutex> lock(mu_);
    analyse_req_ = AnalyseRequest{s, change, what};
    cv_.notify_one();
}

namespace {
// What the spectrum depends on (not the view, the mask or the lab view): profiles are kept while it stays.
std::string spectrum_key(const Settings& s, std::uint64_t image_id) {
    std::ostringstream k;
    k << image_id << " " << int(s.backend) << " " << int(s.channel) << " " << int(s.window) << " " << s.tukey_alpha
      << " " << s.kaiser_beta << " " << int(s.window_shape) << " " << int(s.level) << " " << int(s.pad) << " "
      << int(s.pad_fill) << " " << int(s.cufft_mode) << " " << s.custom.rows.threads_per_block << " "
      << s.custom.rows.block_height << " " << s.custom.rows.max_local_length << " " << s.custom.transpose.tile << " "
      << roi_string(s.roi);
    return k.str();
}

}  // namespace

// [SECTION] Jobs: analysis, correlation, a stack's analysis, the sweep, custom vs cuFFT, saves, the classroom's rows
void Worker::do_analyse(const AnalyseRequest& a) {
    AnalysisResult r;
    r.change = a.change;
    const Settings& s = a.settings;
    try {
        if (a.change != last_run_change_) {  // the engine's spectrum is another's now: said with an empty error
            std::lock_guard<std::mutex> lock(mu_);
            out_.analysis = std::move(r);
            return;
        }
        if (a.what.profiles) {
            const std::string key = spectrum_key(s, engine_image_id_);
            if (profiles_ && key == profiles_key_) {
                r.profiles = profiles_;
                r.profiles_reused = true;
            } else {
                profiles_ = engine_.power_profiles(s);
                profiles_key_ = key;
                r.profiles = profiles_;
            }
        }
        int w = 0, h = 0;
        if (engine_.has_image() && (a.what.log_polar || a.what.line)) {
            const PreparedPlane& pp = engine_.prepared(s);
            w = pp.plane.width;
            h = pp.plane.height;
        }
        if (a.what.log_polar && w > 0) {
            const auto t0 = Clock::now();
            const LogPolarGrid g = log_polar_grid(w, h, a.what.n_phi, a.what.n_r);
            const std::vector<std::complex<float>> F = engine_.spectrum_bins(s, g.kx, g.ky);
            // Rows from the top: the largest radius first, so that the picture's bottom is the smallest.
            std::vector<float> v(F.size());
            for (int i = 0; i < g.n_r; ++i)
                for (int j = 0; j < g.n_phi; ++j) {
                    const std::complex<float> c = F[std::size_t(i) * g.n_phi + j];
                    v[std::size_t(g.n_r - 1 - i) * g.n_phi + j] = view_value(s.view.view, c.real(), c.imag());
                }
            colour_values(v, s.view.colormap, r.log_polar_rgba, &r.lp_lo, &r.lp_hi);
            r.n_phi = g.n_phi;
            r.n_r = g.n_r;
            r.r0 = g.r0 / std::max(w, h);
            r.r1 = g.r1 / std::max(w, h);
            r.log_polar_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        }
        if (a.what.line && w > 0) {
            const auto t0 = Clock::now();
            const LineBins l = line_bins(w, h, a.what.u0, a.what.v0, a.what.u1, a.what.v1);
            const std::vector<std::complex<float>> F = engine_.spectrum_bins(s, l.kx, l.ky);
            r.line_at = l.at;
            r.line_values.resize(F.size());
            for (std::size_t i = 0; i < F.size(); ++i)
                r.line_values[i] = view_value(s.view.view, F[i].real(), F[i].imag());
            r.line_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        }
        r.ok = true;
    } catch (const std::exception& e) {
        r.ok = false;
        r.error = "analysis: " + describe(e);
    }
    std::lock_guard<std::mutex> lock(mu_);
    out_.analysis = std::move(r);
}

void Worker::correlate(const Settings& s, const std::string& other_path, bool phase) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back([this, s, other_path, phase] {
        CorrelationResult r;
        r.other = other_path;
        try {
            const auto t0 = Clock::now();
            if (!image_) throw InputError("(none)", "no image loaded to correlate");
            Settings so = s;
            so.backend = Backend::Cpu;  // two spectra and one inverse: FFTW here, whatever the viewer runs
            so.filters.clear();
            so.strokes.clear();
            so.mask_invert = false;
            so.stop = {};
            Engine a, b;
            a.set_image(image_, "shown");
            b.set_image(DecoderPool::shared().load(other_path, LoadLimits{}), other_path);
            RunOptions o;
            o.want_spectrum = true;
            o.want_rgba = false;
            o.picture = PictureFormat::Level8;
            o.one_shot = true;
            const Frame fa = a.run(so, o), fb = b.run(so, o);
            if (fa.width != fb.width || fa.height != fb.height)
                throw InputError(other_path, "its transform is " + std::to_string(fb.width) + "x" +
                                                 std::to_string(fb.height) + ", the image's " +
                                                 std::to_string(fa.width) + "x" + std::to_string(fa.height) +
                                                 ": correlation needs the same size");
            std::vector<float> surface;
            r.shift =
                phase_correlation(fa.spectrum.data(), fb.spectrum.data(), fa.width, fa.height, 100, 0, &surface, phase);
            const std::vector<unsigned char> levels = correlation_levels(surface);
            const ColormapLut lut = make_colormap_lut(Colormap::Inferno);
            r.rgba.resize(levels.size());
            for (std::size_t i = 0; i < levels.size(); ++i) r.rgba[i] = lut.rgba[levels[i]];
            r.phase = phase;
            r.width = fa.width;
            r.height = fa.height;
            r.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            r.ok = true;
        } catch (const std::exception& e) {
            r.ok = false;
            r.error = "correlate: " + describe(e);
        }
        std::lock_guard<std::mutex> lock(mu_);
        out_.correlation = std::move(r);
    });
    cv_.notify_one();
}

void Worker::stack_analysis(const Settings& s, const std::string& path, int u, int v) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back([this, s, path, u, v] {
        StackResult r;
        r.path = path;
        r.u = u;
        r.v = v;
        try {
            const auto t0 = Clock::now();
            Settings so = s;
            so.backend = Backend::Cpu;  // a job beside the viewer's runs: FFTW here, whatever the viewer runs
            so.filters.clear();
            so.strokes.clear();
            so.mask_invert = false;
            so.stop = {};
            // A video with a GPU backend: decoded by NVDEC and transformed by that backend (a second engine on the
            // device, beside the viewer's), when it can be; else the CPU's decoders and FFTW.
            std::unique_ptr<GpuVideo> gpu_video;
            VideoDecode how;
            {
                std::lock_guard<std::mutex> lk(mu_);
                how = video_decode_;
            }
            if (gpu_decode_excluded(how, s).empty() && file_is_video(path)) {
                try {
                    gpu_video = open_gpu_video(path, LoadLimits{});
                    so.backend = s.backend;
                } catch (const GpuDecodeUnavailable&) {
                    // the CPU path below
                }
            }
            Engine engine;
            int frames = 0;
            std::string backend;
            // The engine keeps the sum of |F|^2 (a frame of another size is its error); only the asked bin comes
            // out per frame.
            auto each = [&](Image img) {
                frames = img.frames;
                engine.set_image(std::move(img), path);
                RunOptions o;
                o.want_rgba = false;
                o.accumulate_power = true;
                o.one_shot = true;
                const Frame f = engine.run(so, o);
                backend = f.backend;
                const int kx = ((u % f.width) + f.width) % f.width, ky = ((v % f.height) + f.height) % f.height;
                const std::complex<double> c =
                    engine.read_value(so, kx, ky);  // FFTW's half spectrum, or the device's one-bin DFT
                r.series.push_back(double(view_value(so.view.view, c.real(), c.imag())));
                return int(r.series.size()) < frames;
            };
            if (gpu_video) {
                for (int k = 0; k < gpu_video->frames(); ++k)
                    if (!each(gpu_video->decode(k, {}))) break;
                r.how = "decoded by " + gpu_video->decoder() + ", " + backend;
            } else {
                // Two decoder children at once (the pool keeps others for the viewer's own frames).
                DecoderPool::shared().load_frames_parallel(path, LoadLimits{}, 0, INT_MAX, {}, each, 2);
                r.how = "decoded on the CPU, " + backend;
            }
            std::vector<double> power;
            r.frames = engine.take_power_sum(power, &r.width, &r.height);
            if (r.frames == 0) throw InputError(path, "no frames");
            float lo = 0, hi = 0;
            const std::vector<float> values =
                mean_power_view_values(power, r.frames, r.width, r.height, so.view, &lo, &hi);
            colorize(values, lo, hi, so.view.colormap, r.rgba);
            r.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            r.ok = true;
        } catch (const std::exception& e) {
            r.ok = false;
            r.error = "stack analysis: " + describe(e);
        }
        std::lock_guard<std::mutex> lock(mu_);
        out_.stack = std::move(r);
    });
    cv_.notify_one();
}

std::uint64_t Worker::open_volume(const Settings& s, const std::string& path, const VolumeViewRequest& v) {
    return post_volume([this, s, path, v](VolumeResult& r) {
        r.path = path;
        volume_.open(path, s, v, cpu_threads_, &r);
    }, false);
}

std::uint64_t Worker::volume_view(const Settings& s, const VolumeViewRequest& v) {
    return post_volume([this, s, v](VolumeResult& r) { volume_.update(s, v, cpu_threads_, &r); }, true);
}

std::uint64_t Worker::post_volume(std::function<void(VolumeResult&)> work, bool skip_when_superseded) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::uint64_t id = ++volume_posted_;
    const auto posted = std::chrono::steady_clock::now();
    jobs_.push_back([this, work = std::move(work), skip_when_superseded, id, posted] {
        if (skip_when_superseded) {
            std::lock_guard<std::mutex> lk(mu_);
            if (id != volume_posted_) return;  // a newer one waits
        }
        VolumeResult r;
        r.id = id;
        const auto began = std::chrono::steady_clock::now();
        r.queue_ms = std::chrono::duration<double, std::milli>(began - posted).count();
        try {
            work(r);  // (a view throws when no volume is open)
        } catch (const std::exception& e) {
            r.ok = false;
            r.error = describe(e);
        }
        r.work_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
        std::lock_guard<std::mutex> lk(mu_);
        out_.volume = std::move(r);
    });
    cv_.notify_one();
    return id;
}

void Worker::sweep(const Settings& s) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back([this, s] {
        sweep_settings_ = s;
        sweep_ = SweepResult{};
        sweep_->ms.assign(sweep_->threads.size() * sweep_->heights.size(), 0.0);
        sweep_step();
    });
    cv_.notify_one();
}

// One configuration of the sweep a job: runs and value reads the viewer posts meanwhile go first.
void Worker::sweep_step() {
    if (!sweep_) return;  // a new image cancelled it
    SweepResult& sw = *sweep_;
    const std::size_t n = sw.threads.size() * sw.heights.size();
    Settings c = sweep_settings_;
    c.backend = Backend::Custom;
    c.stop = {};
    c.custom.rows.threads_per_block = sw.threads[sw.done % sw.threads.size()];
    c.custom.rows.block_height = sw.heights[sw.done / sw.threads.size()];
    RunOptions o;
    o.want_rgba = false;
    double ms = -1;
    try {
        std::vector<double> t;
        for (int r = 0; r < 5; ++r) {
            last_run_change_ = 0;  // the engine's spectrum is this job's now, not the viewer's run's
            const Frame f = engine_.run(c, o);
            if (!f.notes.empty()) throw gpu::ConfigError("clamped");  // not the configuration asked for
            t.push_back(f.total_ms);
        }
        std::sort(t.begin(), t.end());
        ms = t[t.size() / 2];
    } catch (const gpu::ConfigError&) {
        ms = -1;  // cannot run (or would run as another configuration) on this device
    } catch (const gpu::GpuContextLost&) {
        throw;  // the GPU is gone: the sweep ends, the job's handler says so
    } catch (const gpu::GpuError&) {
        ms = -1;  // failed at this configuration (out of memory, a launch the device refused)
    }
    sw.ms[sw.done++] = ms;
    sw.finished = sw.done >= n;
    std::lock_guard<std::mutex> lock(mu_);
    out_.sweep = sw;
    if (!sw.finished) jobs_.push_back([this] { sweep_step(); });
}

void Worker::compare(const Settings& s, bool cuda) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back([this, s, cuda] {
        CompareResult result;
        std::vector<Backend> backends = {Backend::Cpu, Backend::OpenCl, Backend::Gl};
        if (cuda) backends.insert(backends.end(), {Backend::Custom, Backend::CustomFast, Backend::Cufft});
        Frame ref;
        double peak = 0;
        for (Backend b : backends) {
            CompareRow row;
            row.backend = name_of(b);
            try {
                Settings c = s;
                c.stop = {};
                c.backend = b;
                RunOptions o;
                o.want_spectrum = true;
                std::vector<double> ms;
                Frame f;
                for (int k = 0; k < 3; ++k) {
                    last_run_change_ = 0;  // the engine's spectrum is this job's now, not the viewer's run's
                    f = engine_.run(c, o);
                    ms.push_back(f.total_ms);
                }
                std::sort(ms.begin(), ms.end());
                row.ms = ms[1];
                row.ran = f.backend;
                double bytes = 0, t = 0;
                for (const gpu::KernelTiming& k : f.timings)
                    if (k.bytes > 0) bytes += k.bytes, t += k.ms;
                row.gbps = t > 0 ? bytes / (t * 1e6) : 0;
                if (b == Backend::Cpu) {
                    ref = std::move(f);
                    for (const auto& z : ref.spectrum) peak = std::max(peak, double(std::abs(z)));
                } else {
                    double diff = 0;
                    for (std::size_t i = 0; i < ref.spectrum.size() && i < f.spectrum.size(); ++i)
                        diff = std::max(diff, double(std::abs(f.spectrum[i] - ref.spectrum[i])));
                    row.max_rel_diff = f.spectrum.size() == ref.spectrum.size() ? (peak > 0 ? diff / peak : diff) : 1.0;
                    row.max_level_diff = f.rgba.size() == ref.rgba.size()
                                             ? max_level_difference(f.rgba.data(), ref.rgba.data(),
                                                                    (long long)f.rgba.size(), c.view.colormap)
                                             : 256;
                }
            } catch (const gpu::GpuContextLost&) {
                throw;  // the GPU is gone: the job's handler says so
            } catch (const std::exception& e) {
                row.error = describe(e);
            }
            result.rows.push_back(std::move(row));
        }
        std::lock_guard<std::mutex> lock(mu_);
        out_.comparison = std::move(result);
    });
    cv_.notify_one();
}

void Worker::save_npy(const Settings& s, const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back([this, s, path] {
        try {
            RunOptions o;
            o.want_spectrum = true;
            o.want_rgba = false;
            last_run_change_ = 0;  // the engine's spectrum is this job's now, not the viewer's run's
            const Frame f = engine_.run(s, o);
            write_npy_complex64(path, f.spectrum.data(), f.height, f.width);
            std::lock_guard<std::mutex> lock(mu_);
            out_.messages.emplace_back(false, "saved the raw spectrum (" + std::to_string(f.height) + "x" +
                                                  std::to_string(f.width) + " complex64) to " + path);
        } catch (const std::exception& e) {
            publish_error("cannot save " + path + ": " + describe(e));
        }
    });
    cv_.notify_one();
}

void Worker::save_png(const Settings& s, const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back([this, s, path] {
        try {
            RunOptions o;
            o.want_rgba = true;
            last_run_change_ = 0;  // the engine's spectrum is this job's now, not the viewer's run's
            const Frame f = engine_.run(s, o);
            write_picture_png(path, f.rgba.data(), f.width, f.height,
                              s.view.colormap == Colormap::Gray ? PngColor::Gray : PngColor::Rgb);
            std::lock_guard<std::mutex> lock(mu_);
            out_.messages.emplace_back(false, "saved the spectrum picture to " + path);
        } catch (const std::exception& e) {
            publish_error("cannot save " + path + ": " + describe(e));
        }
    });
    cv_.notify_one();
}

void Worker::save_mask(const Settings& s, int width, int height, const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back([this, s, width, height, path] {
        try {
            specview::save_mask(path, s.filters, s.strokes, s.mask_invert, width, height);
            std::lock_guard<std::mutex> lock(mu_);
            out_.messages.emplace_back(false, "saved the mask to " + path + " and " + mask_description_path(path));
        } catch (const std::exception& e) {
            publish_error("cannot save the mask: " + describe(e));
        }
    });
    cv_.notify_one();
}

void Worker::plane_row(const Settings& s, std::uint64_t key, int pass, int row) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back([this, s, key, pass, row] {
        try {
            Settings c = s;
            c.stop = {};
            const Plane& p = engine_.prepared(c).plane;
            PlaneRow r{key, pass, 0, {}};
            if (pass == 1) {  // a row of the plane
                r.row = std::clamp(row, 0, p.height - 1);
                for (int x = 0; x < p.width; ++x) r.values.emplace_back(p.at(x, r.row), 0.0);
            } else {  // row k after pass 1 and the transpose: bin k of every row's DFT (one bin each, not the FFTs)
                r.row = std::clamp(row, 0, p.width - 1);
                std::vector<std::complex<double>> w(std::size_t(p.width));
                for (int x = 0; x < p.width; ++x)
                    w[std::size_t(x)] = std::polar(1.0, -2.0 * M_PI * double((std::int64_t(r.row) * x) % p.width) / p.width);
                for (int y = 0; y < p.height; ++y) {
                    std::complex<double> acc = 0;
                    for (int x = 0; x < p.width; ++x) acc += double(p.at(x, y)) * w[std::size_t(x)];
                    r.values.push_back(acc);
                }
            }
            std::lock_guard<std::mutex> lock(mu_);
            out_.plane_row = std::move(r);
        } catch (const std::exception& e) {
            publish_error(describe(e));
        }
    });
    cv_.notify_one();
}

void Worker::resources(const Settings& s) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back([this, s] {
        auto r = engine_.custom_resources(s);
        std::lock_guard<std::mutex> lock(mu_);
        out_.resources = std::move(r);
    });
    cv_.notify_one();
}

// [SECTION] What the viewer polls, picture slots, errors
WorkerUpdates Worker::poll() {
    std::lock_guard<std::mutex> lock(mu_);
    WorkerUpdates u = std::move(out_);
    out_ = WorkerUpdates{};
    if (u.run && u.run->ok && u.run->frame.picture_slot >= 0) slot_state_[u.run->frame.picture_slot] = 3;
    return u;
}

WorkerStatus Worker::status() const {
    std::lock_guard<std::mutex> lock(mu_);
    WorkerStatus st;
    st.decoding = decoding_ || open_req_.has_value();
    st.decoding_path = open_req_ ? open_req_->path : decoding_path_;
    st.running = run_req_.has_value() || running_;
    st.running_settings = run_req_ ? run_req_->settings : running_settings_;
    st.jobs = !jobs_.empty();
    return st;
}

bool Worker::idle() const {
    std::lock_guard<std::mutex> lock(mu_);
    return !decoding_ && !open_req_ && !image_req_ && !run_req_ && !value_req_ && !analyse_req_ && jobs_.empty() &&
           !running_;
}

bool Worker::has_updates() const {
    std::lock_guard<std::mutex> lock(mu_);
    const WorkerUpdates& u = out_;
    return u.decoded || u.run || u.value || u.sweep || u.comparison || u.plane_row || u.resources || u.analysis ||
           u.correlation || u.stack || u.volume || !u.messages.empty();
}

void Worker::wait_idle() const {
    std::unique_lock<std::mutex> lock(mu_);
    idle_cv_.wait(lock, [this] {
        return !decoding_ && !open_req_ && !image_req_ && !run_req_ && !value_req_ && !analyse_req_ && jobs_.empty() &&
               !running_;
    });
}

void Worker::release_slot(int slot, std::uint64_t gl_read) {
    std::lock_guard<std::mutex> lock(mu_);
    if (slot >= 0 && slot < 3 && slot_state_[slot] == 3) slot_state_[slot] = 0;
    if (slot >= 0 && slot < 3 && gl_read) slot_gl_read_[slot] = gl_read;
}

void Worker::set_gl_context(std::shared_ptr<gpu::GlSharedContext> shared) {
    std::lock_guard<std::mutex> lock(mu_);
    gl_context_ = std::move(shared);
    gl_context_dirty_ = true;
    cv_.notify_all();
}

int Worker::acquire_slot() {
    for (int i = 0; i < 3; ++i)
        if (slot_state_[i] == 0) {
            slot_state_[i] = 1;
            return i;
        }
    return -1;  // cannot happen: one written, one published, one with the viewer at most
}

void Worker::publish_error(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    out_.messages.emplace_back(true, text);
}

// [SECTION] The decoder thread: opening files, streaming a stack's frames, NVDEC
// Turns a decoded image into what the viewer takes first: the image and its display range (sampled). Its
// picture for the image view comes after (make_display), so that the first run does not wait for it; both
// are made without the lock (the viewer's every frame asks this worker something under it: made under the
// lock, an 8192^2 image froze the window for one 330-450 ms frame on the H100).
static DecodedImage prepare_decoded(std::uint64_t id, const std::string& path, std::shared_ptr<const Image> img,
                                    double ms) {
    const auto decoded_at = Clock::now();
    DecodedImage d;
    d.image_id = id;
    d.path = path;
    d.image = img;
    d.range = display_range(*img);  // sampled: a few milliseconds
    d.decode_ms = ms;
    d.decoded_at = decoded_at;
    d.prepared_at = Clock::now();
    if (img->frames > 1)
        d.notes.push_back("frame " + std::to_string(img->frame + 1) + " of " + std::to_string(img->frames));
    if (img->nonfinite) d.notes.push_back(nonfinite_note(*img));
    return d;
}

// The image view's picture, after the image went to the viewer and the runner (without the lock); dropped
// when a newer open waits.
// A video frame on the device goes to the viewer as it is when the viewer writes it into its texture on the
// device; else it is downloaded here (the viewer's GL is not CUDA's).
void Worker::make_display(std::uint64_t id, const std::shared_ptr<const Image>& img, const DisplayRange& range) {
    DisplayPicture p{id, img->width, img->height, {}, nullptr};
    bool on_device;
    {
        std::lock_guard<std::mutex> lk(mu_);
        on_device = display_on_device_;
    }
    if (img->on_device() && on_device)
        p.device_image = img;
    else if (img->on_device())
        p.rgba = display_rgba(download_device_image(*img), range);
    else
        p.rgba = display_rgba(*img, range);
    std::lock_guard<std::mutex> lk(mu_);
    if (!open_req_) out_.display = std::move(p);
}

void Worker::decoder_loop() {
    std::unique_lock<std::mutex> lock(mu_);
    // The stack shown last (path, frame, frame count): asking for its next frame streams the rest of it from one
    // decoder request (a video is not decoded again from its start for every frame).
    struct Stack {
        std::string path;
        int frame = 0, frames = 0;
    };
    std::optional<Stack> stack;
    // A video decoded on the GPU (app/io/video_gpu.h), kept open for its next frames; and the one NVDEC refused,
    // so that its every frame does not try again.
    std::unique_ptr<GpuVideo> gpu_video;
    std::string gpu_video_path, gpu_refused_path;
    std::future<std::unique_ptr<GpuVideo>> gpu_opening;  // open_gpu_video on its way (gpu_opening_path)
    std::string gpu_opening_path;
    // The run the open asked for with its image (Worker::open's run_after), for publish.
    std::optional<RunAfterOpen> run_after;
    // Hands it to the viewer and the runner (under the lock: call with it held).
    auto publish = [&](DecodedImage d) {
        char t[64];
        std::snprintf(t, sizeof t, " (read and decoded in %.0f ms)", d.decode_ms);
        std::string notes;
        for (const std::string& n : d.notes) notes += "; " + n;
        out_.messages.emplace_back(false, "opened " + d.path + t + notes);
        image_req_ = PendingImage{d.image_id, d.image, d.path};
        // Its run, unless the viewer posted one meanwhile (newer; it runs on this image too: images go first).
        if (run_after && !run_req_)
            run_req_ = RunRequest{run_after->settings, run_after->change, run_after->picture_on_device, false};
        run_after.reset();
        // A newer open already waiting supersedes this one for the viewer too.
        if (!open_req_) out_.decoded = std::move(d);
        cv_.notify_one();
    };
    for (;;) {
        decode_cv_.wait(lock, [this] { return stop_ || open_req_; });
        if (stop_) return;
        OpenRequest req = std::move(*open_req_);
        open_req_.reset();
        run_after = req.run_after;
        decoding_ = true;
        decoding_path_ = req.path;
        const bool next_of_stack = stack && req.path == stack->path && req.limits.frame == stack->frame + 1 &&
                                   req.limits.frame < stack->frames;
        const VideoDecode video_decode = video_decode_;
        lock.unlock();
        std::string error;
        auto t0 = Clock::now();
        // Once the header has passed: the caller's check, then the engine plans for the image's size while the
        // samples decode.
        Clock::time_point header_at{};
        const HeaderCheck check = [&](const ImageHeader& h) {
            header_at = Clock::now();
            if (req.check) req.check(h);
            if (!req.plan_with) return;
            std::lock_guard<std::mutex> lk(mu_);
            jobs_.push_back([this, s = *req.plan_with, w = h.width, hh = h.height] {
                try {
                    engine_.plan_for(s, w, hh);
                } catch (const InputError&) {  // planning is a head start: the run reports what is wrong
                } catch (const gpu::ConfigError&) {
                } catch (const gpu::GpuUnavailable&) {
                } catch (const gpu::GpuError&) {  // GpuContextLost too: the engine remembers it for the run
                }
            });
            cv_.notify_one();
        };
        try {
            // A video with a GPU backend: decoded by NVDEC in this process (auto: when it can be; else on the CPU
            // below, saying why once).
            std::string gpu_note;
            // (The video open on the GPU is known to be one: a playing video's frames do not read its head again.)
            const bool gpu_wanted = req.plan_with && gpu_decode_excluded(video_decode, *req.plan_with).empty() &&
                                    (req.path == gpu_video_path || file_is_video(req.path));
            if (!gpu_wanted || req.path != gpu_video_path) {
                gpu_video.reset();
                gpu_video_path.clear();
            }
            // A video's first frame comes from the CPU decoder, and NVDEC opens once it is decoded (FFmpeg's module,
            // the stream probe, the decoder), while the viewer shows it; the frames after it wait for that open.
            // Waiting for NVDEC first put the first picture of a 4K video ~0.3 s later on the H100 machine (692 vs
            // 398 ms), opening it beside the CPU's decode ~0.1 s later. Not with --video-decode gpu (NVDEC's alone).
            auto start_gpu_open = [&] {
                gpu_opening = std::async(std::launch::async, [path = req.path, limits = req.limits] {
                    return open_gpu_video(path, limits);
                });
                gpu_opening_path = req.path;
            };
            bool open_after = false;
            if (gpu_wanted && !gpu_video && (req.path != gpu_refused_path || video_decode == VideoDecode::Gpu)) {
                if (gpu_opening.valid() && gpu_opening_path != req.path) {  // another video's open: not wanted now
                    try {
                        gpu_opening.get();
                    } catch (const std::exception&) {  // whatever the unwanted open failed with: it is not used
                    }
                }
                if (!gpu_opening.valid()) {
                    if (video_decode == VideoDecode::Gpu)
                        start_gpu_open();
                    else
                        open_after = true;
                }
            }
            if (gpu_wanted && gpu_opening.valid() && gpu_opening_path == req.path) {
                try {
                    gpu_video = gpu_opening.get();
                    gpu_video_path = req.path;
                    gpu_refused_path.clear();
                    gpu_note = "decoded on the GPU by " + gpu_video->decoder();
                } catch (const GpuDecodeUnavailable& e) {
                    if (video_decode == VideoDecode::Gpu)
                        throw InputError(req.path, std::string("cannot decode it on the GPU: ") + e.what());
                    gpu_refused_path = req.path;
                    gpu_note = std::string("decoded on the CPU (not on the GPU: ") + e.what() + ")";
                } catch (const InputError&) {
                    // Not a video the in-process demuxer reads: the isolated CPU decoder says what is wrong with it.
                    if (video_decode == VideoDecode::Gpu) throw;
                    gpu_refused_path = req.path;
                }
            }
            if (gpu_video) {
                auto img = std::make_shared<const Image>(gpu_video->decode(req.limits.frame, check));
                stack.reset();
                DecodedImage d = prepare_decoded(req.id, req.path, img, ms_since(t0));
                d.started = t0;
                d.header_at = header_at;
                if (!gpu_note.empty()) d.notes.push_back(gpu_note);
                d.decoded_by = gpu_video->decoder();
                const DisplayRange range = d.range;
                lock.lock();
                publish(std::move(d));
                lock.unlock();
                make_display(req.id, img, range);
            } else if (next_of_stack) {
                std::uint64_t id = req.id;
                const int first = req.limits.frame;
                DecoderPool::shared().load_frames(
                    req.path, req.limits, first, stack->frames - first, req.check, [&](Image img) {
                        auto shared = std::make_shared<const Image>(std::move(img));
                        DecodedImage d = prepare_decoded(id, req.path, shared, ms_since(t0));
                        if (shared->format == "video") d.decoded_by = "the CPU (isolated decoder)";
                        const DisplayRange range = d.range;
                        {
                            std::lock_guard<std::mutex> lk(mu_);
                            publish(std::move(d));
                        }
                        make_display(id, shared, range);
                        std::unique_lock<std::mutex> lk(mu_);
                        stack->frame = shared->frame;
                        if (shared->frame + 1 >= stack->frames) return false;  // the last: the stream is done
                        decoding_ = false;
                        idle_cv_.notify_all();
                        // Wait for the viewer's next ask: the following frame keeps the stream, anything else ends it.
                        decode_cv_.wait(lk, [this] { return stop_ || open_req_; });
                        if (stop_ || open_req_->path != req.path || open_req_->limits.frame != shared->frame + 1)
                            return false;
                        id = open_req_->id;
                        run_after = open_req_->run_after;
                        open_req_.reset();
                        decoding_ = true;
                        t0 = Clock::now();
                        return true;
                    });
            } else {
                auto img = std::make_shared<const Image>(DecoderPool::shared().load(req.path, req.limits, check));
                if (img->frames > 1)
                    stack = Stack{req.path, img->frame, img->frames};
                else
                    stack.reset();
                DecodedImage d = prepare_decoded(req.id, req.path, img, ms_since(t0));
                d.started = t0;
                d.header_at = header_at;
                if (!gpu_note.empty()) d.notes.push_back(gpu_note);
                if (img->format == "video") d.decoded_by = "the CPU (isolated decoder)";
                const DisplayRange range = d.range;
                lock.lock();
                publish(std::move(d));
                lock.unlock();
                make_display(req.id, img, range);
            }
            if (open_after) start_gpu_open();
        } catch (const std::exception& e) {
            error = std::string("cannot open ") + e.what();
            stack.reset();
        }
        lock.lock();
        decoding_ = false;
        if (!error.empty()) out_.messages.emplace_back(true, error);
        // A run asked for with a frame that did not come still runs (on the image the viewer keeps), so that its
        // change completes.
        if (run_after && !run_req_) {
            run_req_ = RunRequest{run_after->settings, run_after->change, run_after->picture_on_device, false};
            cv_.notify_one();
        }
        run_after.reset();
        idle_cv_.notify_all();
    }
}

// [SECTION] The runner thread: the engine's runs (a GPU that stops working: the CPU), the lab's third view
void Worker::runner_loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
        cv_.wait(lock, [this] {
            return stop_ || gl_context_dirty_ || image_req_ || run_req_ || value_req_ || analyse_req_ || !jobs_.empty();
        });
        if (gl_context_dirty_ || stop_) {  // the GL engine made (or, stopping, dropped) on this thread
            std::shared_ptr<gpu::GlSharedContext> c = stop_ ? nullptr : gl_context_;
            gl_context_dirty_ = false;
            lock.unlock();
            try {
                engine_.set_gl_context(c);
            } catch (const std::exception&) {  // (a context that cannot be made current: the GL backend says so later)
            }
            lock.lock();
        }
        if (stop_) return;
        if (!image_req_ && !run_req_ && !value_req_ && !analyse_req_ && jobs_.empty()) continue;  // (a GL context only)
        running_ = true;
        if (image_req_) {
            PendingImage p = std::move(*image_req_);
            image_req_.reset();
            lock.unlock();
            engine_.set_image(p.image, p.path);
            engine_image_id_ = p.id;
            image_ = p.image;
            last_run_change_ = 0;
            profiles_.reset();
            sweep_.reset();
            lock.lock();
        } else if (run_req_) {
            lock.unlock();
            do_run();
            lock.lock();
        } else if (value_req_) {
            ValueRequest v = std::move(*value_req_);
            value_req_.reset();
            lock.unlock();
            ValueResult r{v.change, v.x, v.y, false, {}};
            try {
                r.value = engine_.read_value(v.settings, v.x, v.y);
                r.ok = true;
            } catch (const std::exception&) {
                r.ok = false;  // e.g. the data it asked about is gone: the readout says so
            }
            lock.lock();
            out_.value = r;
        } else if (analyse_req_) {
            AnalyseRequest a = std::move(*analyse_req_);
            analyse_req_.reset();
            lock.unlock();
            do_analyse(a);
            lock.lock();
        } else {
            std::function<void()> job = std::move(jobs_.front());
            jobs_.pop_front();
            lock.unlock();
            try {
                job();
            } catch (const std::exception& e) {
                publish_error(describe(e));
            }
            lock.lock();
        }
        running_ = false;
        idle_cv_.notify_all();
    }
}

void Worker::do_run() {
    const auto picked = std::chrono::steady_clock::now();
    RunRequest req;
    int slot = -1;
    std::uint64_t gl_wait = 0;
    {
        std::lock_guard<std::mutex> lock(mu_);
        req = std::move(*run_req_);
        run_req_.reset();
        running_settings_ = req.settings;
        // GPU pictures stay on the device in a slot: CUDA's (interop), or GL's in the viewer's share group.
        const bool gl_slot = req.settings.backend == Backend::Gl && engine_.gl_shares_context();
        if (req.on_device && (cuda_backend(req.settings.backend) || gl_slot)) slot = acquire_slot();
        if (slot >= 0 && gl_slot) gl_wait = std::exchange(slot_gl_read_[slot], 0);
    }
    if (req.preview && engine_.has_image()) {
        PreviewResult p;
        p.change = req.change;
        p.image_id = engine_image_id_;
        bool made = false;
        try {
            made = engine_.preview(req.settings, kPreviewSide, cpu_threads_, p.preview);
        } catch (const std::exception&) {
            made = false;  // the run says what is wrong
        }
        p.finished = std::chrono::steady_clock::now();
        std::lock_guard<std::mutex> lock(mu_);
        if (made) out_.preview = std::move(p);
        if (run_req_ || image_req_ || stop_) return;  // superseded already: the newer request's preview is next
    }
    RunResult r;
    r.change = req.change;
    r.image_id = engine_image_id_;
    r.settings = req.settings;
    r.picked = picked;
    int used_slot = slot;
    try {
        run_once(req.settings, slot, r, gl_wait);
    } catch (const RunCancelled&) {
        std::lock_guard<std::mutex> lock(mu_);  // nothing to show: the newer request is next
        if (slot >= 0) slot_state_[slot] = 0;
        return;
    } catch (const gpu::GpuContextLost& e) {
        // The GPU is gone for this process (a sticky CUDA error): the same request on the CPU backend, and the viewer
        // is told (RunResult::gpu_lost) so that it switches its settings and stops using interop.
        r.gpu_lost = e.what();
        r.settings.backend = Backend::Cpu;
        used_slot = -1;
        try {
            run_once(r.settings, -1, r);
        } catch (const std::exception& e2) {
            r.ok = false;
            r.error = describe(e2);
        }
    } catch (const std::exception& e) {
        r.ok = false;
        r.error = describe(e);
    }
    r.finished = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mu_);
    // (a run that could not fill its slot, e.g. GL with a mask, brought its picture to the host: the slot stays free)
    if (slot >= 0) slot_state_[slot] = r.ok && used_slot == slot && r.frame.picture_slot == slot ? 2 : 0;
    // An unpolled earlier picture is superseded: its slot is free again (a GL one's fence goes to the viewer to delete).
    if (out_.run && out_.run->ok && out_.run->frame.picture_slot >= 0) slot_state_[out_.run->frame.picture_slot] = 0;
    if (out_.run && out_.run->frame.gl_ready) out_.stale_gl_fences.push_back(out_.run->frame.gl_ready);
    out_.run = std::move(r);
}

// One run of the request's settings into `slot` (-1: the picture comes back to the host), filling r's frame, lab
// view and times. Throws what the engine throws.
void Worker::run_once(const Settings& settings, int slot, RunResult& r, std::uint64_t gl_wait) {
    if (!engine_.has_image()) throw InputError("(none)", "no image loaded");
    // The device half of the memory check, once an image, here rather than at its header: there it waited for the
    // CUDA context the viewer creates at start (~250 ms on the H100 machine) before decoding could go on.
    if (cuda_backend(settings.backend) && device_checked_id_ != engine_image_id_ && image_) {
        device_checked_id_ = engine_image_id_;
        const gpu::DeviceInfo dev = gpu::probe_device(0);
        if (dev.available)
            check_device_memory(
                ImageHeader{image_->width, image_->height, image_->channels, image_->bit_depth, image_->format},
                settings, false, true, double(dev.free_memory), dev.name);
    }
    RunOptions o;
    // A CPU run gives up between its stages once a newer request waits (a slider dragged on a big image: the
    // newest value's preview and run start at once instead of after a stale run's remaining ~100s of ms).
    o.cancelled = [this] {
        std::lock_guard<std::mutex> lock(mu_);
        return stop_ || run_req_.has_value() || image_req_.has_value();
    };
    o.want_rgba = slot < 0;
    o.picture_slot = slot;
    o.gl_slot_wait = gl_wait;
    const bool lab = has_mask(settings) && settings.stop.kind == gpu::StopPoint::Kind::Done;
    o.want_inverse = lab;
    o.lab_on_device = slot >= 0;  // the GPU makes the third view next to the picture, in the same slot
    last_run_change_ = 0;
    r.engine_started = std::chrono::steady_clock::now();
    r.frame = engine_.run(settings, o);
    r.engine_ended = std::chrono::steady_clock::now();
    if (settings.backend == Backend::Gl) r.gl_share_refused = engine_.gl_share_refused();
    last_run_change_ = settings.stop.kind == gpu::StopPoint::Kind::Done ? r.change : 0;
    if (lab && !r.frame.device_lab_rgba) {
        const float* plane =
            settings.lab_view == LabView::Filtered ? nullptr : engine_.prepared(settings).plane.v.data();
        lab_picture(r.frame, plane, settings.lab_view, r.lab_rgba, &r.lab_width, &r.lab_height, &r.lab_lo, &r.lab_hi);
        std::vector<float>().swap(r.frame.inverse);
    }
    r.ok = true;
}

void lab_picture(const Frame& f, const float* plane, LabView view, std::vector<std::uint32_t>& rgba, int* width,
                 int* height, float* lo, float* hi) {
    const int x0 = f.content_x, y0 = f.content_y, w = std::max(1, f.content_w), h = std::max(1, f.content_h);
    if (f.inverse.size() != std::size_t(f.width) * f.height || x0 + w > f.width || y0 + h > f.height)
        throw std::runtime_error("internal: no filtered image of the frame's size");
    if (view != LabView::Filtered && !plane) throw std::runtime_error("internal: the lab view needs the plane");
    std::vector<float> v(std::size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = std::size_t(y0 + y) * f.width + (x0 + x);
            const float filtered = f.inverse[i];
            v[std::size_t(y) * w + x] = view == LabView::Filtered  ? filtered
                                        : view == LabView::Removed ? plane[i] - filtered
                                                                   : std::abs(plane[i] - filtered);
        }
    float mn = 0, mx = 0;
    if (!v.empty()) {
        const auto [a, b] = std::minmax_element(v.begin(), v.end());
        mn = view == LabView::Difference ? 0.0f : *a;
        mx = *b;
    }
    colorize(v, mn, mx, view == LabView::Difference ? Colormap::Inferno : Colormap::Gray, rgba);
    *width = w;
    *height = h;
    *lo = mn;
    *hi = mx;
}

}  // namespace specview
