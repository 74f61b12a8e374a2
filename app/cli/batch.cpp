// The batch pipeline (batch.h). Three stages on their own threads, sharing one mutex and condition variable:
//   decode_worker    (a quarter of the threads): the next input within `ahead` of the transform, decoded by a
//                    sandboxed decoder process; its header first, so that the transform plans for its size meanwhile
//   transform_worker (one; two on a GPU backend): the next input in order, on its own engine
//   encode_worker    (the rest): PNG, .npy, the lab's files, and the input's stdout text
// and the calling thread printing each input's line in input order as soon as it and those before it are done.
#include "app/cli/batch.h"

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "app/cli/cli.h"
#include "app/cli/shared.h"
#include "app/core/bounded_queue.h"
#include "app/core/huge_pages.h"
#include "app/engine/auto_backend.h"
#include "app/engine/devices.h"
#include "app/engine/cpu_backend.h"
#include "app/engine/engine.h"
#include "app/io/decoder_pool.h"
#include "app/io/memory_need.h"
#include "app/io/npy.h"
#include "app/io/png_write.h"
#include "app/lab/analysis.h"
#include "app/lab/mask_io.h"
#include "gpu/common/errors.h"

namespace specview {
namespace fs = std::filesystem;

namespace {

// This process's peak resident memory (VmHWM), MiB; 0 where /proc does not say.
double peak_rss_mib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return 0;
}
// --timings of a long batch also gives the peak after this many images: memory that stays flat stays near it.
constexpr std::size_t kMemoryMark = 1000;

class Batch {
public:
    explicit Batch(const BatchSpec& spec);
    int run();

private:
    struct Result {
        bool done = false;
        int code = kExitOk;  // kExitOk, or what failed
        std::string error;   // stderr line when it failed
        std::string text;    // stdout lines when it worked
    };
    struct Decoded {
        bool ready = false;
        std::shared_ptr<const Image> image;
        double read_ms = 0;
        int code = kExitOk;
        std::string error;
    };
    struct Encode {
        std::size_t index;
        Frame frame;
        double read_ms;
        std::vector<std::string> image_notes;  // the decoded file's: the frame of a stack, replaced NaN/Inf
        double run_ms;
        PixelSize pixel_size;  // --pixel-size, else what the file said
    };
    // What the manifest says of an input besides its result: filled by the stage that finishes it, read by the
    // printer once its result is done (under mu).
    struct Record {
        bool skipped = false;
        int width = 0, height = 0;
        std::string backend;
        std::vector<std::string> outputs;
        double ms = 0;
    };
    // --correlate: the other image's spectrum, made once with the same settings (no filters: they only mask).
    struct Other {
        int image_w = 0, image_h = 0;
        std::vector<std::complex<float>> spectrum;
    };
    enum class Outcome { Queued, Failed, Stop };

    void fail(int code, const std::string& msg);
    // The full complex spectrum: --raw, --profile, --correlate.
    bool wants_spectrum(const Job& j) const {
        return !j.raw.empty() || !j.radial.empty() || !j.angular.empty() || !correlate.empty();
    }
    void check_outputs();
    std::set<std::string> recorded_ok() const;
    void write_manifest_line(std::size_t i, const Result& r);
    int load_correlation();
    void decode_worker();
    void transform_worker(int lane);
    Outcome transform_one(Engine& engine, int lane, std::size_t i, Decoded& d, Result& r);
    void encode_worker();
    Result encode_one(const Encode& e);
    std::string lab_lines(const Job& j, const Frame& f, const PixelSize& px, std::string* wrote);
    void print_ready(std::unique_lock<std::mutex>& lock);
    void finish();

    // What the run was asked for (BatchSpec's fields under their old names).
    const Settings& s;
    const std::string& backend;
    const std::vector<Job>& jobs;
    const std::size_t n;
    const bool batch;
    const std::vector<std::string>& empty_dirs;
    const bool force, timings;
    const int png_level, depth;
    const std::string &save_mask_out, &correlate, &correlation_kind, &correlation_map;
    const double fit_lo, fit_hi;
    const PixelSize pixel_size;
    // --backend auto: why the backend (the batch's, decided before it started; or one image's, decided by its size).
    std::string backend_why;
    const bool auto_one_image;
    bool auto_decided = false;
    Backend auto_backend = Backend::Cpu;
    Backend decide_auto(Engine& engine, int width, int height);
    LoadLimits limits;
    MemoryBudget budget;
    // The threads: a quarter drive decoders, the rest encode (on the H100 machine's 16 cores a batch of 1920x1080
    // JPEGs kept 8 decoders 22% busy and 8 encoders 84%: PNG's deflate is the costlier half).
    int total_jobs = 1, decoders = 1, encoders = 1, transformers = 1;
    // --gpus: the CUDA devices, an engine (two in a batch) on each; transform thread t runs on gpus[t % size]. The
    // threads take the next input as they come free, so each input goes to a GPU with nothing queued.
    std::vector<int> gpus{0};
    std::vector<double> busy_gpu;  // transform busy time and inputs done, per entry of gpus
    std::vector<int> done_gpu;
    std::size_t ahead = 3;  // images decoded ahead of the transform
    std::unique_ptr<Other> other;

    int first_failure = kExitOk, failures = 0;
    std::vector<Result> results;
    std::vector<Record> records;
    std::vector<char> skip;
    const std::string &manifest, &shard;
    const bool resume, skip_existing;
    int manifest_fd = -1;
    std::vector<Decoded> decoded;
    // Headers as the decoders read them (before the pixels): the transform thread plans for the size meanwhile.
    std::vector<std::optional<ImageHeader>> headers;
    // Busy time of each stage, summed over its threads (--timings of a batch: which stage holds it back).
    double busy_decode = 0, busy_plan = 0, busy_transform = 0, busy_encode = 0;
    std::mutex mu;
    std::condition_variable cv;
    std::size_t next_decode = 0, transformed = 0;
    std::size_t next_transform = 0;  // the next input a transform thread takes
    bool stop = false;
    std::optional<BoundedQueue<Encode>> encode_queue;  // transformed frames, at most encoders + 1 waiting
    bool encoding_closed = false;                      // every input transformed: the encoders drain the queue
    std::string gpu_unavailable;                       // set when a GPU backend cannot run at all: everything stops
    // Why each of gpus stopped working (a sticky CUDA error; "" while it works): its threads stop taking inputs and
    // the other GPUs take the rest; once every one has stopped, the rest runs on the CPU backend.
    std::vector<std::string> lost_gpu;
    int lost_gpus = 0;
    bool all_lost() const { return lost_gpus == int(gpus.size()); }  // (under mu)
    std::vector<std::thread> threads;
    // Progress on stderr: a bar when it is a terminal, "[i/n] file" lines otherwise (batches only).
    bool tty = false;
    std::chrono::steady_clock::time_point t_start;
    std::size_t printed = 0;
    double peak_after_first = 0;  // MiB, once kMemoryMark inputs are printed (--timings)
};

Batch::Batch(const BatchSpec& o)
    : s(o.s),
      backend(o.backend),
      jobs(o.jobs),
      n(o.jobs.size()),
      batch(o.batch),
      empty_dirs(o.empty_dirs),
      force(o.common.force),
      timings(o.common.timings),
      png_level(o.common.png_level),
      depth(o.common.depth),
      save_mask_out(o.save_mask_out),
      correlate(o.correlate),
      correlation_kind(o.correlation_kind),
      correlation_map(o.correlation_map),
      fit_lo(o.fit_lo),
      fit_hi(o.fit_hi),
      pixel_size(o.pixel_size),
      backend_why(o.backend_why),
      auto_one_image(o.auto_one_image),
      gpus(o.gpus.empty() ? std::vector<int>{0} : o.gpus),
      busy_gpu(gpus.size(), 0.0),
      done_gpu(gpus.size(), 0),
      results(o.jobs.size()),
      records(o.jobs.size()),
      skip(o.jobs.size(), 0),
      manifest(o.manifest),
      shard(o.shard),
      resume(o.resume),
      skip_existing(o.skip_existing),
      decoded(o.jobs.size()),
      headers(o.jobs.size()) {
    lost_gpu.resize(gpus.size());
    limits.max_side = o.common.max_side;
    limits.max_pixels = std::uint64_t(o.common.max_side) * std::uint64_t(o.common.max_side);
    limits.check_available_memory = false;  // the chosen path's need instead (memory_check)
    limits.frame = o.frame - 1;
    budget.host = o.common.budget_host;
    total_jobs = o.jobs_opt > 0 ? o.jobs_opt : int(std::max(1u, std::thread::hardware_concurrency()));
    decoders = std::clamp(total_jobs / 4, 1, 8);
    encoders = batch ? std::clamp(total_jobs - decoders, 1, 16) : 1;
    ahead = std::size_t(decoders) + 2;
    encode_queue.emplace(std::size_t(encoders) + 1);
    // Transform threads: one for the CPU backend (FFTW uses every thread), two for a GPU batch (each with its own
    // engine and stream: one image's upload and download overlap the other's transform).
    // With --gpus, two such threads a GPU.
    transformers = cuda_backend(s.backend) && batch ? 2 * int(gpus.size()) : 1;
    set_cpu_fft_threads(total_jobs);
    // Measuring pays where a plan is reused many times: a CPU batch of kMeasureBatch images or more measures
    // (at most 3 s a size) unless told to measure fully; the wisdom stays for later runs. Here (2 cores) a
    // 2048^2 plan took 1.9 s to measure and made a batch's images about 10% faster: it pays from about 400.
    constexpr std::size_t kMeasureBatch = 400;
    const bool auto_measure = batch && n >= kMeasureBatch && s.backend == Backend::Cpu;
    set_cpu_fft_measure(o.fftw_measure || auto_measure, o.fftw_measure ? -1.0 : 3.0);
    DecoderPool::configure_shared(decoders);
}

// --backend auto on one image: its size (what is transformed) decides, once; the GPU is probed only when the size
// would go there. Called from the transform thread (there is one for one image).
Backend Batch::decide_auto(Engine& engine, int width, int height) {
    if (auto_decided) return auto_backend;
    auto_decided = true;
    region_size(s, width, height, &width, &height);
    const double pixels = double(width) * double(height);
    const bool probe = auto_wants_gpu(AutoWork::OneImage, pixels);
    const gpu::DeviceInfo* dev = probe ? &engine.device_info() : nullptr;
    const bool gl = dev && !dev->available && s.pad != PadMode::None;  // (radix 2)
    const AutoChoice c = choose_backend(AutoWork::OneImage, pixels, dev && dev->available,
                                        dev ? dev->why_unavailable : std::string(), 0, gl ? &probe_gl() : nullptr);
    auto_backend = c.backend;
    backend_why = c.why;
    return auto_backend;
}

void Batch::fail(int code, const std::string& msg) {
    std::cerr << "specview: " << msg << "\n";
    if (first_failure == kExitOk) first_failure = code;
    ++failures;
}

// Outputs, checked in input order before anything runs: never the input itself, never an existing file without
// --force, never twice in one batch.
void Batch::check_outputs() {
    {
        std::set<std::string> planned;
        const std::set<std::string> ok = resume ? recorded_ok() : std::set<std::string>();
        for (std::size_t i = 0; i < n; ++i) {
            const Job& j = jobs[i];
            bool all_exist = true;
            for (const std::string& o : j.outputs()) {
                std::error_code ec;
                if (!o.empty() && !fs::exists(o, ec)) all_exist = false;
            }
            if (ok.count(j.input) || (skip_existing && all_exist)) {
                const char* why = ok.count(j.input) ? "the manifest records it done" : "its outputs exist";
                results[i] = {true, kExitOk, "", j.input + ": skipped (" + why + ")\n"};
                records[i].skipped = true;
                skip[i] = 1;
                continue;
            }
            for (const std::string& o : j.outputs()) {
                if (o.empty() || skip[i]) continue;
                std::error_code ec;
                const std::string key = fs::absolute(o, ec).lexically_normal().string();
                if (same_file(o, j.input)) {
                    results[i] = {true, kExitOutput, o + ": refusing to overwrite the input image", ""};
                } else if (planned.count(key)) {
                    results[i] = {true, kExitOutput,
                                  o + ": another input of this batch already wrote this file (same name); skipped", ""};
                } else if (!force && !resume && fs::exists(o, ec)) {  // --resume redoes what it did not record
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
}

// The inputs --manifest's file records ok (a line that does not parse, as a killed writer could leave, is ignored).
std::set<std::string> Batch::recorded_ok() const {
    std::set<std::string> ok;
    std::ifstream in(manifest);
    for (std::string line; std::getline(in, line);) {
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_object() && j.value("status", "") == "ok" && j.contains("path") && j["path"].is_string())
            ok.insert(j["path"].get<std::string>());
    }
    return ok;
}

// One JSON line for input i, written by one write(2) of the whole line to a file opened for appending, so that a
// process killed at any moment leaves whole lines (and its outputs were renamed into place before).
void Batch::write_manifest_line(std::size_t i, const Result& r) {
    const Record& rec = records[i];
    nlohmann::ordered_json j;
    j["path"] = jobs[i].input;
    j["status"] = r.code != kExitOk ? "failed" : rec.skipped ? "skipped" : "ok";
    j["error"] = r.code != kExitOk ? nlohmann::ordered_json(r.error) : nlohmann::ordered_json(nullptr);
    j["width"] = rec.width;
    j["height"] = rec.height;
    j["backend"] = rec.backend.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(rec.backend);
    j["outputs"] = rec.outputs;
    j["ms"] = rec.ms;
    j["shard"] = shard.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(shard);
    const std::string line = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    if (::write(manifest_fd, line.data(), line.size()) != ssize_t(line.size()))
        fail(kExitOutput, manifest + ": cannot append to the manifest (" + std::strerror(errno) + ")");
}

// --correlate: the other image's spectrum; kExitOk, or the exit code when it cannot be had.
int Batch::load_correlation() {
    try {
        Engine engine(gpus[0]);
        Settings so = s;
        so.filters.clear();
        so.strokes.clear();
        so.mask_invert = false;
        engine.set_image(DecoderPool::shared().load(correlate, limits, memory_check(so, true, false, budget, false)),
                         correlate);
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
        std::cerr << "specview: GPU backend '" << backend << "' unavailable: " << e.what() << " (use --backend cpu)\n";
        return kExitGpu;
    } catch (const gpu::GpuError& e) {
        std::cerr << "specview: --correlate " << correlate << ": GPU failure: " << e.what() << "\n";
        return kExitGpu;
    } catch (const std::exception& e) {
        std::cerr << "specview: --correlate " << correlate << ": " << e.what() << "\n";
        return kExitInternal;
    }
    return kExitOk;
}

void Batch::decode_worker() {
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
                const HeaderCheck check =
                    memory_check(s, wants_spectrum(jobs[i]), false, budget, /*device=*/false, !jobs[i].inverse.empty());
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
}

void Batch::transform_worker(int lane) {
    const std::size_t g = std::size_t(lane) % gpus.size();
    Engine engine(gpus[g]);
    if (cuda_backend(s.backend)) engine.device_info();  // the CUDA context while the first image decodes
    for (;;) {
        std::size_t i;
        Decoded d;
        {
            std::unique_lock<std::mutex> lock(mu);
            if (stop || next_transform >= n) return;
            if (!lost_gpu[g].empty() && !all_lost()) return;  // its GPU stopped: the other GPUs take the rest
            i = next_transform++;
            cv.notify_all();  // the decoders' window moved
            // While the pixels decode, the plan for the header's size (once per size; errors show in the run).
            bool planned = skip[i] != 0;
            cv.wait(lock, [&] { return decoded[i].ready || stop || (!planned && headers[i]); });
            if (!decoded[i].ready && !stop && !planned && headers[i]) {
                const ImageHeader h = *headers[i];
                planned = true;
                Settings sp = s;
                const bool lost = !lost_gpu[g].empty();
                lock.unlock();
                // (auto's probe, CUDA's start, outside the lock: the decoder goes on meanwhile)
                if (auto_one_image) sp.backend = decide_auto(engine, h.width, h.height);
                if (lost) sp.backend = Backend::Cpu;
                const auto t_plan = std::chrono::steady_clock::now();
                try {
                    const gpu::DeviceInfo* dev = cuda_backend(sp.backend) ? &engine.device_info() : nullptr;
                    if (dev && dev->available)  // never plan what the device cannot hold
                        check_device_memory(h, sp, wants_spectrum(jobs[i]), false, double(dev->free_memory), dev->name,
                                            budget, !jobs[i].inverse.empty());
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
        const Outcome o = transform_one(engine, lane, i, d, r);
        if (o == Outcome::Stop) return;
        if (o == Outcome::Queued) continue;
        if (!r.done && !skip[i] && d.code != kExitOk) r = {true, d.code, d.error, ""};
        std::lock_guard<std::mutex> lock(mu);
        if (!skip[i]) results[i] = r;
        ++transformed;
        cv.notify_all();
    }
}

// Transforms input i (decoded in d) on `engine` and queues its frame for the encoders (Queued); else r says why
// it failed (Failed), or the GPU cannot run at all and everything stops (Stop).
Batch::Outcome Batch::transform_one(Engine& engine, int lane, std::size_t i, Decoded& d, Result& r) {
    // The settings of this image: the batch's, or the CPU backend once the GPU stopped working.
    Settings sw = s;
    if (auto_one_image && d.image) sw.backend = decide_auto(engine, d.image->width, d.image->height);
    const std::size_t g = std::size_t(lane) % gpus.size();
    {
        std::lock_guard<std::mutex> lock(mu);
        if (!lost_gpu[g].empty()) sw.backend = Backend::Cpu;
    }
    for (bool again = !skip[i] && d.code == kExitOk; again;) {
        again = false;
        try {
            if (cuda_backend(sw.backend)) {  // the device's half of the memory check, with the engine's probe
                const gpu::DeviceInfo& dev = engine.device_info();
                if (dev.available) {
                    const Image& im = *d.image;
                    try {
                        check_device_memory(ImageHeader{im.width, im.height, im.channels, im.bit_depth, im.format}, sw,
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
            const PixelSize px = d.image->pixel_size;
            d.image.reset();
            const double run_ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_run).count();
            {
                std::lock_guard<std::mutex> lock(mu);
                busy_transform += run_ms;
                busy_gpu[g] += run_ms;
                ++done_gpu[g];
            }
            encode_queue->push(Encode{i, std::move(f), d.read_ms, std::move(image_notes), run_ms,
                                      pixel_size.calibrated() ? pixel_size : px});  // waits for an encoder
            std::lock_guard<std::mutex> lock(mu);
            ++transformed;
            cv.notify_all();
            return Outcome::Queued;
        } catch (const InputError& e) {
            r = {true, kExitInput, e.what(), ""};
        } catch (const gpu::GpuUnavailable& e) {
            std::lock_guard<std::mutex> lock(mu);
            if (gpu_unavailable.empty()) gpu_unavailable = e.what();
            stop = true;
            cv.notify_all();
            return Outcome::Stop;
        } catch (const gpu::ConfigError& e) {
            r = {true, kExitUsage, jobs[i].input + ": " + e.what(), ""};
        } catch (const gpu::GpuContextLost& e) {
            // A sticky CUDA error: the GPU is gone for this process. The image that met it fails (exit 4);
            // the rest of the batch runs on the other GPUs (--gpus), or on the CPU backend once none is left,
            // said once. An image another thread had in flight on that GPU when it failed is done again on the CPU.
            std::lock_guard<std::mutex> lock(mu);
            if (lost_gpu[g].empty()) {
                lost_gpu[g] = e.what();
                ++lost_gpus;
                r = {true, kExitGpu, jobs[i].input + ": the GPU stopped working: " + e.what(), ""};
                if (batch && gpus.size() == 1)
                    std::cerr << "specview: the GPU stopped working; the rest of the batch runs on the CPU "
                                 "backend\n";
                else if (batch)
                    std::cerr << "specview: GPU " << gpus[g] << " stopped working; the rest of the batch runs on "
                              << (all_lost() ? std::string("the CPU backend") : "the other GPUs") << "\n";
            } else {
                sw.backend = Backend::Cpu;
                again = true;
            }
        } catch (const gpu::GpuError& e) {
            r = {true, kExitGpu,
                 jobs[i].input + ": GPU failure" + std::string(e.out_of_memory() ? " (out of GPU memory)" : "") + ": " +
                     e.what(),
                 ""};
        } catch (const std::bad_alloc&) {
            r = {true, kExitInput, jobs[i].input + ": out of host memory", ""};
        } catch (const std::exception& e) {
            r = {true, kExitInternal, jobs[i].input + ": internal error: " + e.what(), ""};
        }
    }
    return Outcome::Failed;
}

void Batch::encode_worker() {
    while (std::optional<Encode> next = encode_queue->pop()) {
        const Encode& e = *next;
        const auto t_encode = std::chrono::steady_clock::now();
        Result r = encode_one(e);
        std::lock_guard<std::mutex> lock(mu);
        busy_encode += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_encode).count();
        results[e.index] = std::move(r);
        cv.notify_all();
    }
}

// The outputs of one transformed input, and its stdout text.
Batch::Result Batch::encode_one(const Encode& e) {
    const Job& j = jobs[e.index];
    const Frame& f = e.frame;
    Result r;
    r.done = true;
    Record& rec = records[e.index];  // this thread's alone until its result is published
    rec.width = f.image_width;
    rec.height = f.image_height;
    rec.backend = f.backend;
    try {
        const auto t0 = std::chrono::steady_clock::now();
        // One image: its PNG on all threads; a batch: an encoder thread an image (several at once).
        // (no picture where only other outputs were asked for: cli.cpp leaves j.png empty)
        if (!j.png.empty()) write_png(j.png, f, s.view.colormap, png_level, batch ? 1 : total_jobs);
        if (!j.raw.empty()) write_npy_complex64(j.raw, f.spectrum.data(), f.height, f.width);
        std::string wrote = j.png;
        if (!j.raw.empty()) wrote += (wrote.empty() ? "" : ", ") + j.raw;
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
        const std::string lab = lab_lines(j, f, e.pixel_size, &wrote);
        if (wrote.rfind(", ", 0) == 0) wrote.erase(0, 2);  // (the picture not asked for)
        std::ostringstream out;
        out << j.input << ": " << f.image_width << "x" << f.image_height
            << (s.roi.whole() ? std::string()
                              : " (the ROI at " + std::to_string(s.roi.x) + "," + std::to_string(s.roi.y) + ")")
            << " -> " << f.width << "x" << f.height
            << " spectrum (" << f.backend << (backend_why.empty() ? "" : "; " + backend_why) << "), "
            << name_of(s.view.view) << " range [" << fmt(f.range_lo) << ", "
            << fmt(f.range_hi) << "]" << (!has_mask(s) ? "" : " of the masked spectrum")
            << (wrote.empty() ? std::string() : "; wrote " + wrote) << "\n"
            << lab;
        for (const auto& note : e.image_notes) out << "  note: " << note << "\n";
        for (const auto& note : f.notes) out << "  note: " << note << "\n";
        if (timings) {
            print_timings(f, out);
            out << "  " << std::left << std::setw(44) << "read + decode (decoder process)" << std::right
                << std::setw(10) << fmt(e.read_ms) << "\n  " << std::left << std::setw(44)
                << (j.png.empty()   ? "write the outputs"
                    : j.raw.empty() ? "write PNG"
                                    : "write PNG and .npy")
                << std::right << std::setw(10) << fmt(write_ms) << "\n";
        }
        r.text = out.str();
        for (const std::string& o : j.outputs())
            if (!o.empty()) rec.outputs.push_back(o);
        if (!save_mask_out.empty()) rec.outputs.push_back(save_mask_out);
        if (!correlation_map.empty()) rec.outputs.push_back(correlation_map);
        rec.ms = e.read_ms + e.run_ms + write_ms;
    } catch (const std::invalid_argument& ex) {  // --correlate of another size
        r.code = kExitUsage;
        r.error = ex.what();
    } catch (const std::exception& ex) {  // output writing
        r.code = kExitOutput;
        r.error = ex.what();
    }
    return r;
}

// The frequency lab's files and lines of one input: radial and angular profiles, the correlation.
std::string Batch::lab_lines(const Job& j, const Frame& f, const PixelSize& px, std::string* wrote) {
    std::ostringstream lab;
    if (!j.radial.empty()) {
        const Profile p = radial_profile(f.spectrum.data(), f.width, f.height);
        // Calibrated (--pixel-size, or the file): a column of cycles per unit after cycles per pixel.
        if (px.calibrated())
            write_profile_csv(j.radial, "f_cycles_per_pixel,f_per_" + px.unit + ",mean_power,count", p, px.value);
        else
            write_profile_csv(j.radial, "f_cycles_per_pixel,mean_power,count", p);
        *wrote += ", " + j.radial;
        try {
            const PowerLawFit fit = fit_power_law(p, fit_lo, fit_hi);
            lab << "radial PSD slope: " << fmt(fit.slope) << " (f from " << fit_lo << " to " << fit_hi
                << " cycles/pixel";
            if (px.calibrated())
                lab << ", " << fmt(fit_lo / px.value, 4) << " to " << fmt(fit_hi / px.value, 4) << " /" << px.unit
                    << " at " << fmt(px.value, 4) << " " << px.unit << " a pixel";
            lab << ")\n"
                << "  fitted over " << fit.points << " radial bins\n";
        } catch (const std::invalid_argument& ex) {
            lab << "radial PSD slope: none (" << ex.what() << ")\n";
        }
    }
    if (!j.angular.empty()) {
        const Profile p = angular_profile(f.spectrum.data(), f.width, f.height);
        write_profile_csv(j.angular, "angle_deg,mean_power,count", p);
        *wrote += ", " + j.angular;
        std::size_t top = 0;
        for (std::size_t k = 0; k < p.at.size(); ++k)
            if (p.mean_power[k] > p.mean_power[top]) top = k;
        if (!p.at.empty())
            lab << "angular profile: most power at " << p.at[top] << "-" << p.at[top] + 1
                << " deg (structures in the image run across that direction)\n";
    }
    if (other) {
        if (f.image_width != other->image_w || f.image_height != other->image_h)
            throw std::invalid_argument("--correlate: " + j.input + " is " + std::to_string(f.image_width) + "x" +
                                        std::to_string(f.image_height) + ", " + correlate + " is " +
                                        std::to_string(other->image_w) + "x" + std::to_string(other->image_h) +
                                        ": the images must have the same size");
        std::vector<float> surface;
        const ShiftEstimate sh =
            phase_correlation(f.spectrum.data(), other->spectrum.data(), f.width, f.height, 100, batch ? 1 : total_jobs,
                              correlation_map.empty() ? nullptr : &surface, correlation_kind == "phase");
        if (!correlation_map.empty()) {
            const std::vector<unsigned char> levels = correlation_levels(surface);
            const ColormapLut lut = make_colormap_lut(Colormap::Inferno);
            PicturePixels px;
            px.levels = levels.data();
            px.level_bytes = 1;
            px.lut = lut.rgba;
            write_picture_png(correlation_map, px, f.width, f.height, PngColor::Rgb, png_level);
            *wrote += ", " + correlation_map;
        }
        char line[96];
        std::snprintf(line, sizeof line, "shift: %.2f %.2f", sh.dx, sh.dy);
        lab << line << "\n  " << correlation_kind << " correlation peak: " << fmt(sh.peak) << " (1 for a pure shift)\n";
    }
    return lab.str();
}

// With mu held: every input done, in order, printed (stdout) or failed (stderr), with the progress.
void Batch::print_ready(std::unique_lock<std::mutex>& lock) {
    while (printed < n && results[printed].done) {
        Result r = results[printed];
        const std::size_t i = printed++;
        lock.unlock();
        if (tty) std::cerr << "\r\033[K";
        if (batch && !tty) std::cerr << "specview: [" << (i + 1) << "/" << n << "] " << jobs[i].input << "\n";
        if (r.code != kExitOk)
            fail(r.code, r.error);
        else
            std::cout << r.text << std::flush;
        if (manifest_fd >= 0) write_manifest_line(i, r);
        // What was said of input i is not needed again: a long batch's memory stays flat.
        {
            std::lock_guard<std::mutex> relock(mu);
            std::string().swap(results[i].text);  // (assigning an empty string would keep the buffer)
            std::string().swap(results[i].error);
        }
        {
            Record gone;  // records[i]'s buffers go with it
            std::swap(gone, records[i]);
        }
        if (timings && printed == kMemoryMark && n > kMemoryMark) peak_after_first = peak_rss_mib();
        if (tty) {
            const double s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
            const double rate = double(printed) / std::max(s_, 1e-9);
            std::cerr << "specview: [" << printed << "/" << n << "] " << std::fixed << std::setprecision(1) << rate
                      << " images/s, ETA " << std::setprecision(0) << double(n - printed) / std::max(rate, 1e-9) << " s"
                      << std::defaultfloat << std::flush;
        }
        lock.lock();
    }
}

void Batch::finish() {
    {
        std::lock_guard<std::mutex> lock(mu);
        encoding_closed = true;
        stop = true;
        cv.notify_all();
    }
    encode_queue->close();
    for (auto& t : threads) t.join();
    threads.clear();
}

int Batch::run() {
    if (!manifest.empty()) {
        manifest_fd = ::open(manifest.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (manifest_fd < 0) {
            std::cerr << "specview: " << manifest << ": cannot open the manifest (" << std::strerror(errno) << ")\n";
            return kExitOutput;
        }
        // A line torn by a killed writer stays on its own: ours start on a new line.
        char last = '\n';
        const off_t size = ::lseek(manifest_fd, 0, SEEK_END);
        if (size > 0 && ::pread(manifest_fd, &last, 1, size - 1) == 1 && last != '\n' &&
            ::write(manifest_fd, "\n", 1) != 1) {
            std::cerr << "specview: " << manifest << ": cannot append to the manifest\n";
            return kExitOutput;
        }
    }
    struct CloseManifest {
        int& fd;
        ~CloseManifest() {
            if (fd >= 0) ::close(fd);
        }
    } close_manifest{manifest_fd};
    for (const auto& d : empty_dirs) fail(kExitInput, "no images in " + d);
    check_outputs();
    if (!correlate.empty())
        if (const int code = load_correlation(); code != kExitOk) return code;
    tty = batch && isatty(STDERR_FILENO);
    t_start = std::chrono::steady_clock::now();
    for (int t = 0; t < decoders; ++t) threads.emplace_back([this] { decode_worker(); });
    for (int t = 0; t < encoders; ++t) threads.emplace_back([this] { encode_worker(); });
    std::vector<std::thread> transform_threads;
    for (int t = 0; t < transformers; ++t) transform_threads.emplace_back([this, t] { transform_worker(t); });
    {
        // The printer: lines in input order as they complete. Encoders stop once every image is transformed.
        std::unique_lock<std::mutex> lock(mu);
        for (;;) {
            if (transformed == n && !encoding_closed) {
                encoding_closed = true;
                encode_queue->close();
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
        // What the transform stage could do alone: images per second of its threads' busy time (--gpus: per GPU too).
        int done_all = 0;
        for (int d : done_gpu) done_all += d;
        auto capacity = [&](double busy, int threads_, int done = -1) {
            if (done < 0) done = done_all;
            if (busy <= 0 || done == 0) return std::string();
            return ", " + fmt(double(done) * threads_ * 1000.0 / busy) + " images/s of transform capacity";
        };
        auto share = [&](double busy, int threads_) {
            return fmt(busy / 1000.0) +
                   " s busy = " + std::to_string(int(std::lround(100.0 * busy / std::max(1e-9, wall * threads_)))) +
                   "% of " + std::to_string(threads_) + " thread" + (threads_ > 1 ? "s" : "");
        };
        std::cout << "batch: " << n << " images in " << fmt(wall / 1000.0) << " s ("
                  << fmt(double(n) * 1000.0 / std::max(wall, 1e-9))
                  << " images/s)\n  decode (decoder processes): " << share(busy_decode, decoders)
                  << "\n  plan (while decoding):       " << share(busy_plan, transformers) << "\n  transform ("
                  << backend << "): " << share(busy_transform, transformers) << capacity(busy_transform, transformers)
                  << "\n  encode (PNG, .npy):          " << share(busy_encode, encoders) << "\n";
        if (gpus.size() > 1 && cuda_backend(s.backend))  // --gpus: each GPU's part of the transform stage
            for (std::size_t g = 0; g < gpus.size(); ++g)
                std::cout << "    GPU " << gpus[g] << ": " << done_gpu[g] << " images, "
                          << share(busy_gpu[g], transformers / int(gpus.size()))
                          << capacity(busy_gpu[g], transformers / int(gpus.size()), done_gpu[g]) << "\n";
        // The stage that bounds the batch: the busiest share of its threads' time.
        const std::pair<double, const char*> stages[] = {
            {busy_decode / std::max(1, decoders), "decode"},
            {busy_transform / std::max(1, transformers), "transform"},
            {busy_encode / std::max(1, encoders), "encode"}};
        const auto* bound = &stages[0];
        for (const auto& st : stages)
            if (st.first > bound->first) bound = &st;
        std::cout << "  bound by: " << bound->second << " ("
                  << std::lround(100.0 * bound->first / std::max(1e-9, wall)) << "% busy)\n";
    }
    if (timings) {  // this process's peak (the decoder processes have their own)
        if (peak_after_first > 0)
            std::cout << "peak resident memory after the first " << kMemoryMark << " images: " << fmt(peak_after_first)
                      << " MiB\n";
        std::cout << "peak resident memory: " << fmt(peak_rss_mib()) << " MiB\n";
        std::cout << "page faults: " << page_faults() << " (huge pages " << huge_pages_state() << ")\n";
    }
    return first_failure;
}

}  // namespace

int run_batch(const BatchSpec& spec) { return Batch(spec).run(); }

}  // namespace specview
