// Index of this file (grep "[SECTION]"):
// - What the engine keeps between runs
// - Reads of the last run: the cursor's bin, power sums, profiles, a classroom stop's element
// - The plane and the plan
// - One run, in named steps: begin (checks, the plane, the plan) -> the picture's target -> the transform and
#include "gpu/engine/gpu_engine.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <set>
#include <tuple>

#include "gpu/lab/analysis.h"
#include "gpu/cufft/cufft_backend.h"
#include "gpu/runtime/cuda_check.h"
#include "gpu/runtime/device_info.h"
#include "gpu/fast/fft_fast.h"
#include "gpu/lab/lab.h"
#include "gpu/custom/pipeline.h"
#include "gpu/plane/plane_prep.h"
#include "gpu/runtime/resources.h"
#include "gpu/picture/spectrum_view.h"
#include "gpu/runtime/timing.h"

namespace specview::gpu {

// [SECTION] What the engine keeps between runs
struct GpuEngine::Impl {
    explicit Impl(DeviceInfo d) : dev(std::move(d)) {}
    DeviceInfo dev;
    Stream stream;
    TwiddleTable twiddles;
    CufftBackend cufft;
    FastFft fast;
    SpectrumViewer viewer;
    StageTimer timer, prep_timer;
    PlanePrep prep;
    DeviceBuffer<float> plane;
    DeviceBuffer<float2> a, b, full;
    DeviceBuffer<std::uint32_t> rgba;
    DeviceBuffer<unsigned char> levels;
    // The frequency lab: the mask, the inverse's buffers, and custom-fast's full spectrum of the plane
    // `fast_full_version` (0: none), which the picture path never materialises.
    DeviceMask mask;
    DeviceBuffer<float2> inv_a, inv_b;
    DeviceBuffer<float> inverse;
    std::uint64_t fast_full_version = 0;
    int fast_full_w = 0, fast_full_h = 0;
    // custom-fast's full spectrum of the plane on the device (computed once per plane version).
    const float2* fast_full(int w, int h, std::uint64_t version, StageTimer* t) {
        if (fast_full_version == 0 || fast_full_version != version || fast_full_w != w || fast_full_h != h) {
            const long long n = (long long)w * h;
            full.resize(std::size_t(n));
            inv_b.resize(std::size_t(n));  // the half spectrum on the way (the picture's first pass stays in place)
            fast.real_spectrum(plane.get(), w, h, full.get(), stream.get(), t, inv_b.get());
            fast_full_version = version;
            fast_full_w = w;
            fast_full_h = h;
        }
        return full.get();
    }
    // custom-fast's half spectrum of the plane (cuFFT's R2C layout) in inv_b: what a power sum needs when no
    // picture or full spectrum was made.
    SpectrumSource fast_half(int w, int h, StageTimer* t) {
        inv_b.resize(std::size_t(w) * h);
        fast.r2c(plane.get(), w, h, inv_b.get(), stream.get(), t);
        return SpectrumSource{inv_b.get(), w, h, w / 2 + 1, true, nullptr};
    }
    // The analysis plots' reductions, and which spectrum the last full run left (path, cuFFT mode, size).
    PowerProfiler profiler;
    DeviceBuffer<double> power;  // accumulate_power's sum
    int power_count = 0, power_w = 0, power_h = 0;
    int last_path = -1;
    CufftMode last_mode = CufftMode::R2C;
    int last_w = 0, last_h = 0;
    std::uint64_t last_version = 0;
    std::uint64_t plane_version = 0;
    int plane_w = 0, plane_h = 0;
    DeviceBuffer<std::uint32_t> slots[kPictureSlots], lab_slots[kPictureSlots];
    Event consumed[kPictureSlots], lab_consumed[kPictureSlots];
    LabPicture lab_picture;
    DeviceBuffer<double> dft;  // plane_dft_bin's accumulator (re, im)
    PinnedBuffer<double> dft_host;
    bool warming = false;  // inside the plan's untimed first run
    // The spectrum the last full run of a path left on the device (cuFFT's output, custom's result, custom-fast's
    // first pass), and what it was computed from: a change of the view alone re-runs only what follows it.
    std::tuple<int, std::uint64_t, int, int, int, int, int, int, int> spectrum_key{};
    bool spectrum_valid = false;
    SpectrumSource custom_spectrum;
    const float2* stopped = nullptr;  // the last custom run's data, and its shape
    int stopped_w = 0, stopped_h = 0;
    // Plans built so far: path, size and the settings that change what the pipeline allocates or launches.
    std::set<std::tuple<int, int, int, int, int, int, int, int, int>> planned;
};

namespace {
__global__ void dft_bin_kernel(const float* __restrict__ plane, int width, int height, int kx, int ky,
                               double* __restrict__ out) {
    // One block a row (grid-stride over rows): the row's DFT at kx in float per thread, the block's sum in
    // double, times the row's twiddle at ky, added to out. Phases are reduced exactly with integer arithmetic.
    __shared__ double sre[32], sim[32];
    double acc_re = 0, acc_im = 0;
    for (int y = blockIdx.x; y < height; y += gridDim.x) {
        float re = 0, im = 0;
        const float* row = plane + (long long)y * width;
        for (int x = threadIdx.x; x < width; x += blockDim.x) {
            const long long e = ((long long)kx * x) % width;
            float sn, cs;
            sincospif(-2.0f * float(e) / float(width), &sn, &cs);
            const float v = row[x];
            re += v * cs;
            im += v * sn;
        }
        const long long ey = ((long long)ky * y) % height;
        double sn, cs;
        sincospi(-2.0 * double(ey) / double(height), &sn, &cs);
        acc_re += double(re) * cs - double(im) * sn;
        acc_im += double(re) * sn + double(im) * cs;
    }
    for (int o = 16; o > 0; o >>= 1) {
        acc_re += __shfl_down_sync(0xffffffffu, acc_re, o);
        acc_im += __shfl_down_sync(0xffffffffu, acc_im, o);
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        sre[warp] = acc_re;
        sim[warp] = acc_im;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double r = 0, i = 0;
        for (int w = 0; w < int(blockDim.x / 32); ++w) {
            r += sre[w];
            i += sim[w];
        }
        atomicAdd(&out[0], r);
        atomicAdd(&out[1], i);
    }
}
}  // namespace

namespace {
DeviceInfo usable_device(int device) {
    DeviceInfo d = probe_device(device);
    if (!d.available) throw GpuUnavailable(d.why_unavailable);
    return d;
}

// The engine's device made current on the calling thread: each public call may come from a thread whose current
// device is another (a batch runs one engine a GPU on threads of their own; cudaSetDevice is cheap when unchanged).
GpuEngine::Impl& bound(GpuEngine::Impl& m) {
    CUDA_CHECK(cudaSetDevice(m.dev.device));
    return m;
}
}  // namespace

// [SECTION] Reads of the last run: the cursor's bin, power sums, profiles, a classroom stop's element
GpuEngine::GpuEngine(int device) : impl_(nullptr) {
    DeviceInfo d = usable_device(device);
    impl_.reset(new Impl(d));
}

std::uint64_t GpuEngine::slot_consumed_event(int slot) const {
    if (slot < 0 || slot >= kPictureSlots) throw ConfigError("no picture slot " + std::to_string(slot));
    return reinterpret_cast<std::uint64_t>(impl_->consumed[slot].get());
}

std::uint64_t GpuEngine::slot_lab_consumed_event(int slot) const {
    if (slot < 0 || slot >= kPictureSlots) throw ConfigError("no picture slot " + std::to_string(slot));
    return reinterpret_cast<std::uint64_t>(impl_->lab_consumed[slot].get());
}

std::complex<double> GpuEngine::plane_dft_bin(int kx, int ky) {
    Impl& m = bound(*impl_);
    if (m.plane_w < 1 || kx < 0 || ky < 0 || kx >= m.plane_w || ky >= m.plane_h)
        throw ConfigError("no such bin (" + std::to_string(kx) + ", " + std::to_string(ky) + ")");
    cudaStream_t s = m.stream.get();
    m.dft.resize(2);
    m.dft_host.resize(2);
    CUDA_CHECK(cudaMemsetAsync(m.dft.get(), 0, 2 * sizeof(double), s));
    const int blocks = std::min(m.plane_h, 4 * m.dev.sm_count);
    dft_bin_kernel<<<blocks, 256, 0, s>>>(m.plane.get(), m.plane_w, m.plane_h, kx, ky, m.dft.get());
    CUDA_CHECK_LAUNCH("dft_bin_kernel");
    CUDA_CHECK(cudaMemcpyAsync(m.dft_host.get(), m.dft.get(), 2 * sizeof(double), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    return {m.dft_host.get()[0], m.dft_host.get()[1]};
}

// The unmasked spectrum the last full run left on the device, as a source (custom-fast's full one is made
// from the plane when the picture path did not keep it).
namespace {
SpectrumSource last_spectrum(GpuEngine::Impl& m) {
    if (!m.spectrum_valid || m.last_path < 0) throw ConfigError("no spectrum on the device from a full run");
    const int w = m.last_w, h = m.last_h;
    switch (Path(m.last_path)) {
        case Path::Custom:
            return m.custom_spectrum;
        case Path::Cufft:
            return m.cufft.last(w, h, m.last_mode);
        case Path::CustomFast:
            return SpectrumSource{m.fast_full(w, h, m.last_version, nullptr), w, h, w, false, nullptr};
    }
    throw ConfigError("no spectrum on the device");
}
}  // namespace

PowerSums GpuEngine::power_sums() {
    Impl& m = bound(*impl_);
    return m.profiler.run(last_spectrum(m), m.stream.get());
}

int GpuEngine::take_power_sum(std::vector<double>& sum, int* width, int* height) {
    Impl& m = bound(*impl_);
    const int n = m.power_count;
    *width = m.power_w;
    *height = m.power_h;
    sum.assign(std::size_t(m.power_w) * m.power_h, 0.0);
    if (n > 0) {
        CUDA_CHECK(cudaMemcpyAsync(sum.data(), m.power.get(), sum.size() * sizeof(double), cudaMemcpyDeviceToHost,
                                   m.stream.get()));
        CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
    }
    m.power_count = 0;
    return n;
}

std::vector<std::complex<float>> GpuEngine::spectrum_bins(const std::vector<int>& kx, const std::vector<int>& ky) {
    Impl& m = bound(*impl_);
    const std::vector<float2> v = gather_bins(last_spectrum(m), kx, ky, m.stream.get());
    std::vector<std::complex<float>> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = {v[i].x, v[i].y};
    return out;
}

std::complex<float> GpuEngine::stopped_element(int x, int y) {
    Impl& m = bound(*impl_);
    if (!m.stopped || x < 0 || y < 0 || x >= m.stopped_w || y >= m.stopped_h)
        throw ConfigError("no stopped data at (" + std::to_string(x) + ", " + std::to_string(y) + ")");
    m.dft_host.resize(2);
    cudaStream_t s = m.stream.get();
    CUDA_CHECK(cudaMemcpyAsync(m.dft_host.get(), m.stopped + (long long)y * m.stopped_w + x, sizeof(float2),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    const float* v = reinterpret_cast<const float*>(m.dft_host.get());
    return {v[0], v[1]};
}

GpuEngine::~GpuEngine() {
    if (impl_) cudaSetDevice(impl_->dev.device);  // (its buffers, streams and plans are freed on their device)
}

const DeviceInfo& GpuEngine::info() const { return impl_->dev; }

// [SECTION] The plane and the plan
std::vector<KernelResources> GpuEngine::resources(int width, int height, const CustomConfig& cfg) {
    bound(*impl_);
    const Custom2DPlan p = plan_custom_2d(width, height, cfg, impl_->dev, true);
    return {row_fft_resources(p.rows1, true, impl_->dev), transpose_resources(p.transpose, impl_->dev),
            row_fft_resources(p.rows2, false, impl_->dev)};
}

// The plane, when it changed: uploaded, or made on the device from the image (uploaded once per image).
std::vector<KernelTiming> GpuEngine::make_plane(const GpuRequest& req, bool wait) {
    Impl& m = *impl_;
    cudaStream_t s = m.stream.get();
    const int w = req.width, h = req.height;
    const long long n = (long long)w * h;
    if (w < 1 || h < 1 || (!req.plane && !req.recipe)) throw ConfigError("empty plane");
    std::vector<KernelTiming> prep_timings;
    if (req.plane_version == 0 || req.plane_version != m.plane_version || w != m.plane_w || h != m.plane_h) {
        m.plane.resize(n);
        m.plane_version = 0;  // until it is complete
        m.prep_timer.start(s);
        if (req.recipe) {
            if (req.recipe->plane_width != w || req.recipe->plane_height != h)
                throw ConfigError("plane recipe size mismatch");
            m.prep.prepare(*req.recipe, m.plane.get(), s, &m.prep_timer);
        } else {
            CUDA_CHECK(cudaMemcpyAsync(m.plane.get(), req.plane, n * sizeof(float), cudaMemcpyHostToDevice, s));
            m.prep_timer.mark("upload plane (host -> device)", double(n) * 4.0);
        }
        if (wait) prep_timings = m.prep_timer.collect();
        m.plane_version = req.plane_version;
        m.plane_w = w;
        m.plane_h = h;
    }
    return prep_timings;
}

double GpuEngine::plan(const GpuRequest& req) {
    Impl& m = bound(*impl_);
    const int w = req.width, h = req.height;
    const auto plan_key =
        std::make_tuple(int(req.path), w, h, req.path == Path::Custom ? req.custom.rows.threads_per_block : 0,
                        req.path == Path::Custom ? req.custom.rows.block_height : 0,
                        req.path == Path::Custom ? req.custom.rows.max_local_length : 0,
                        req.path == Path::Custom ? req.custom.transpose.tile : 0,
                        req.path == Path::Cufft ? int(req.cufft_mode) : 0, int(req.view.range));
    if (m.warming || req.stop.kind != StopPoint::Kind::Done || m.planned.count(plan_key)) return 0.0;
    if (w < 1 || h < 1) throw ConfigError("empty plane");
    if (req.recipe || req.plane) make_plane(req);  // not part of the plan's time
    const auto t0 = std::chrono::steady_clock::now();
    if (!req.recipe && !req.plane && (m.plane_w != w || m.plane_h != h)) {
        // Planned before the image is here: the warm-up runs on a zero plane of this size (the run makes the
        // real one); a plane of this size already on the device serves as it is.
        m.plane.resize((long long)w * h);
        CUDA_CHECK(cudaMemsetAsync(m.plane.get(), 0, sizeof(float) * std::size_t(w) * std::size_t(h), m.stream.get()));
        m.plane_version = 0;
        m.plane_w = w;
        m.plane_h = h;
    }
    GpuRequest warm = req;
    warm.want_spectrum = false;
    warm.want_rgba = true;
    warm.surface = 0;
    warm.picture_slot = -1;
    m.planned.insert(plan_key);  // before the run: a failing plan is not retried as a plan each time
    m.warming = true;            // the picture goes to a device buffer and stays there
    try {
        run(warm);
    } catch (...) {
        m.warming = false;
        throw;
    }
    m.warming = false;
    return std::max(1e-6, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

// [SECTION] One run, in named steps: begin (checks, the plane, the plan) -> the picture's target -> the transform and
// the picture -> the filtered image -> the power sum -> the lab's third view -> what the next run may reuse ->
// downloads -> finish (range, wait, timings). The steps share one RunState.
struct GpuEngine::RunState {
    RunState(const GpuRequest& request, cudaStream_t stream)
        : req(request), s(stream), w(request.width), h(request.height), n((long long)request.width * request.height) {}
    const GpuRequest& req;
    cudaStream_t s;
    int w, h;
    long long n;
    GpuResult out;
    Custom2DPlan cplan;
    bool power_only = false;  // only adds to the power sum: nothing waits for the device
    bool done_stop = true;    // no classroom stop
    std::vector<KernelTiming> prep_timings;
    double plan_ms = 0;
    std::size_t first = 0, last = 0;  // total_ms covers the timer's marks in [first, last)
    std::uint32_t* rgba = nullptr;
    PictureTarget target;
    int lb = 0;                    // bytes a level (0: RGBA)
    const float2* full = nullptr;  // where the complex spectrum can be read, on request
    std::tuple<int, std::uint64_t, int, int, int, int, int, int, int> spectrum_key;
    bool reuse = false;       // a view-only change: the last run's spectrum is still valid
    bool no_picture = false;  // nothing to show anywhere: the picture stages do not run
    bool lab_here = false;    // the third view made on the device, into the slot
    const float* mask = nullptr;
};

namespace {
// Test-only (SPECVIEW_TEST_GPU_FAULT=1 in the environment): the first run launches a kernel that writes far outside
// its buffer, so that the tests watch a real sticky error (cudaErrorIllegalAddress) reach the engine, the viewer and
// the batch, and their fallback to the CPU. Nothing else sets it.
__global__ void test_fault_kernel(int* p) { p[(1ll << 36) / sizeof(int) + threadIdx.x] = 1; }
bool test_fault_requested() {
    static const bool on = [] {
        const char* v = std::getenv("SPECVIEW_TEST_GPU_FAULT");
        return v && std::string(v) == "1";
    }();
    return on;
}
}  // namespace

GpuResult GpuEngine::run(const GpuRequest& req) {
    Impl& m = bound(*impl_);
    RunState r(req, m.stream.get());
    begin_run(r);
    choose_target(r);
    transform_and_picture(r);
    if (req.want_inverse) filtered_image(r);
    if (req.accumulate_power && !m.warming) add_power(r);
    r.lab_here = req.want_inverse && req.lab_on_device && req.picture_slot >= 0 && !m.warming;
    if (r.lab_here) lab_view(r);
    r.last = m.timer.marks();
    remember_spectrum(r);
    download(r);
    if (r.power_only) return std::move(r.out);  // no range, no timings: nothing waits
    return finish_run(r);
}

// Checks, the custom pipeline's plan (a configuration the device cannot run fails here, before any allocation or
// launch), the plane when it changed, and the plan of this path and size.
void GpuEngine::begin_run(RunState& r) {
    Impl& m = *impl_;
    const GpuRequest& req = r.req;
    if (r.w < 1 || r.h < 1 || (!req.plane && !req.recipe && !m.warming)) throw ConfigError("empty plane");
    if (req.path == Path::Custom) {
        r.cplan = plan_custom_2d(r.w, r.h, req.custom, m.dev, true);
        r.out.notes = r.cplan.rows1.notes;
        for (const auto& note : r.cplan.rows2.notes) r.out.notes.push_back("second pass: " + note);
    }
    r.done_stop = req.stop.kind == StopPoint::Kind::Done;
    // A run that only adds to the power sum (a stack's frames) returns without waiting for the device: the host
    // stages the next frame while this one is transformed; errors surface at the next wait (take_power_sum).
    r.power_only = req.accumulate_power && !req.want_rgba && req.picture_slot < 0 && !req.surface &&
                   !req.want_spectrum && !req.want_inverse && r.done_stop && !m.warming;
    if (!m.warming) r.prep_timings = make_plane(req, !r.power_only);  // the warm-up runs on what the plan left
    r.plan_ms = plan(req);
    m.timer.start(r.s);
    r.first = m.timer.marks();
    if (!m.warming && test_fault_requested()) {
        test_fault_kernel<<<1, 32, 0, r.s>>>(reinterpret_cast<int*>(m.plane.get()));
        CUDA_CHECK_LAUNCH("test_fault_kernel");
    }
}

// Where the picture goes: a picture slot (after the viewer has copied the slot's previous picture out), levels, or
// an RGBA buffer; a surface is written by the picture kernels directly.
void GpuEngine::choose_target(RunState& r) {
    Impl& m = *impl_;
    const GpuRequest& req = r.req;
    r.target.format = req.picture;
    r.lb = level_bytes(req.picture);
    if (r.lb && (req.picture_slot >= 0 || req.surface))
        throw ConfigError("a picture of levels goes to a buffer, not to a picture slot or a texture");
    if (r.lb && !r.done_stop) r.target.format = PictureFormat::Rgba8;  // classroom: colours
    // No picture wanted (a stack's power sum): levels would have nowhere to go; RGBA with no target writes nothing.
    if (r.lb && !req.want_rgba) r.target.format = PictureFormat::Rgba8;
    if (req.picture_slot >= 0) {
        if (req.picture_slot >= kPictureSlots) throw ConfigError("no picture slot " + std::to_string(req.picture_slot));
        m.slots[req.picture_slot].resize(r.n);
        // A no-op for an unrecorded event.
        CUDA_CHECK(cudaStreamWaitEvent(r.s, m.consumed[req.picture_slot].get(), 0));
        r.rgba = m.slots[req.picture_slot].get();
        r.out.device_rgba = r.rgba;
    } else if (req.want_rgba && r.target.format != PictureFormat::Rgba8) {
        m.levels.resize(r.n * r.lb);
        r.target.levels = m.levels.get();
    } else if (req.want_rgba) {
        m.rgba.resize(r.n);
        r.rgba = m.rgba.get();
    }
    r.target.rgba = r.rgba;
    r.target.surface = req.surface;
}

// The transform through the chosen path and the picture from it. View-only changes (the same path, plane and
// transform settings as the last full run) reuse the spectrum left on the device, so only the view stages run
// (never inside the plan's warm-up, whose timings are not shown).
void GpuEngine::transform_and_picture(RunState& r) {
    Impl& m = *impl_;
    const GpuRequest& req = r.req;
    const int w = r.w, h = r.h;
    const bool custom = req.path == Path::Custom;
    r.spectrum_key = std::make_tuple(int(req.path), req.plane_version, w, h,
                                     req.path == Path::Cufft ? int(req.cufft_mode) : 0,
                                     custom ? req.custom.rows.threads_per_block : 0,
                                     custom ? req.custom.rows.block_height : 0,
                                     custom ? req.custom.rows.max_local_length : 0,
                                     custom ? req.custom.transpose.tile : 0);
    r.reuse = !m.warming && r.done_stop && req.plane_version != 0 && m.spectrum_valid &&
              m.spectrum_key == r.spectrum_key;
    if (!r.reuse && !m.warming) m.spectrum_valid = false;  // the buffers are about to change
    if (r.reuse) r.out.notes.push_back("spectrum reused: only the view stages ran (same plane and transform)");
    r.mask = r.done_stop ? m.mask.get(req.filters, req.strokes, req.mask_invert, w, h, r.s, &m.timer) : nullptr;
    if (req.want_inverse && !r.done_stop)
        throw ConfigError("the inverse transform needs the whole forward one (no classroom stop)");
    // Nothing to show anywhere (a stack's power sum, a saved spectrum, a filtered image alone). custom-fast then has
    // no first pass in place for a later view-only change (remember_spectrum).
    r.no_picture = r.done_stop && !m.warming && !req.want_rgba && req.picture_slot < 0 && !req.surface;
    r.out.width = w;
    r.out.height = h;
    if (req.path == Path::CustomFast) {
        if (r.no_picture) return;
        // Two passes; the picture straight from the second one's epilogue.
        r.out.range_reused = m.fast
                                 .picture(m.plane.get(), w, h, req.plane_version, req.view, r.target, r.s, &m.timer,
                                          r.reuse, r.mask, m.mask.version())
                                 .range_reused;
        if (r.out.range_reused) r.out.notes.push_back("range reused from an identical earlier run (same plane and view)");
        return;
    }
    SpectrumSource src;
    if (custom && r.reuse) {
        src = m.custom_spectrum;
    } else if (custom) {
        m.a.resize(r.n);
        m.b.resize(r.n);
        Custom2DResult cr =
            run_custom_2d(r.cplan, m.plane.get(), m.a.get(), m.b.get(), false, req.stop, m.twiddles, r.s, &m.timer);
        src = {cr.data, cr.cols, cr.rows, cr.cols, false};
        m.custom_spectrum = src;
        m.stopped = cr.data;
        m.stopped_w = cr.cols;
        m.stopped_h = cr.rows;
    } else {
        src = r.reuse ? m.cufft.last(w, h, req.cufft_mode)
                      : m.cufft.forward_real(m.plane.get(), w, h, req.cufft_mode, r.s, &m.timer);
    }
    if (custom) {
        r.out.resources = {row_fft_resources(r.cplan.rows1, true, m.dev), transpose_resources(r.cplan.transpose, m.dev),
                           row_fft_resources(r.cplan.rows2, false, m.dev)};
        r.out.row_plans = {r.cplan.rows1, r.cplan.rows2};
    }
    r.out.width = src.width;
    r.out.height = src.height;
    SpectrumSource shown = src;
    shown.mask = r.done_stop ? r.mask : nullptr;
    if (!r.no_picture) m.viewer.run(shown, req.view, r.target, r.s, &m.timer);
    r.full = src.data;
    if (req.want_spectrum && src.half) {
        m.full.resize(r.n);
        m.fast_full_version = 0;  // m.full holds this path's spectrum now
        expand_half_spectrum(src.data, w, h, m.full.get(), r.s);
        r.full = m.full.get();
    }
}

// The filtered image: the masked spectrum through each path's own inverse transform, normalised.
void GpuEngine::filtered_image(RunState& r) {
    Impl& m = *impl_;
    const GpuRequest& req = r.req;
    const int w = r.w, h = r.h;
    const long long n = r.n;
    const float scale = 1.0f / (float(w) * float(h));
    m.inv_a.resize(n);
    m.inverse.resize(n);
    if (req.path == Path::Cufft) {
        masked_half(m.cufft.last(w, h, req.cufft_mode), r.mask, m.inv_a.get(), r.s);
        m.timer.mark(r.mask ? "mask -> half spectrum" : "half spectrum", double(w / 2 + 1) * h * (r.mask ? 20.0 : 16.0));
        m.cufft.inverse_real(m.inv_a.get(), m.inverse.get(), w, h, r.s);
        m.timer.mark("cuFFT C2R 2D (inverse)", double(w / 2 + 1) * h * 8.0 + double(n) * 4.0);
        scale_real(m.inverse.get(), n, scale, r.s);
        m.timer.mark("scale 1/(width height)", double(n) * 8.0);
        return;
    }
    // custom-fast's inverse C2C needs no scratch where it runs in place (powers of two within the L2, m58): inv_b is
    // not made for it there (33 MB at 2048^2), and a null scratch would fault rather than be used.
    const bool custom = req.path == Path::Custom;
    const bool fast_in_place = !custom && m.fast.c2c_in_place(w, h);
    if (!fast_in_place) m.inv_b.resize(n);
    const SpectrumSource fwd =
        custom ? m.custom_spectrum
               : SpectrumSource{m.fast_full(w, h, req.plane_version, &m.timer), w, h, w, false, nullptr};
    masked_full(fwd, r.mask, m.inv_a.get(), r.s);
    m.timer.mark(r.mask ? "mask -> spectrum copy" : "spectrum copy", double(n) * (r.mask ? 20.0 : 16.0));
    const float2* result = m.inv_a.get();
    if (custom) {  // the same row-FFT and transpose kernels, backwards
        const Custom2DPlan ip = plan_custom_2d(w, h, req.custom, m.dev, false);
        result = run_custom_2d(ip, nullptr, m.inv_a.get(), m.inv_b.get(), true, StopPoint{}, m.twiddles, r.s, &m.timer)
                     .data;
    } else {
        m.fast.c2c(m.inv_a.get(), fast_in_place ? nullptr : m.inv_b.get(), w, h, true, r.s, &m.timer);
    }
    real_part(result, n, scale, m.inverse.get(), r.s);
    m.timer.mark("real part / (width height)", double(n) * 12.0);
}

// A stack's power sum: |F|^2 of the unmasked spectrum added on the device (custom-fast's full one where it is there,
// else its half one made for it).
void GpuEngine::add_power(RunState& r) {
    Impl& m = *impl_;
    const GpuRequest& req = r.req;
    const int w = r.w, h = r.h;
    if (!r.done_stop) throw ConfigError("a power sum needs the whole transform (no classroom stop)");
    if (m.power_count > 0 && (m.power_w != w || m.power_h != h))
        throw ConfigError("a power sum of " + std::to_string(m.power_w) + "x" + std::to_string(m.power_h) +
                          " spectra cannot take a " + std::to_string(w) + "x" + std::to_string(h) + " one");
    if (m.power_count == 0) {
        m.power.resize(std::size_t(r.n));
        CUDA_CHECK(cudaMemsetAsync(m.power.get(), 0, std::size_t(r.n) * sizeof(double), r.s));
    }
    const bool have_full = m.fast_full_version != 0 && m.fast_full_version == req.plane_version &&
                           m.fast_full_w == w && m.fast_full_h == h;
    const SpectrumSource src = req.path == Path::Custom  ? m.custom_spectrum
                               : req.path == Path::Cufft ? m.cufft.last(w, h, req.cufft_mode)
                               : have_full               ? SpectrumSource{m.full.get(), w, h, w, false, nullptr}
                                                         : m.fast_half(w, h, &m.timer);
    accumulate_power(src, m.power.get(), r.s);
    m.timer.mark("power sum += |F|^2", double(r.n) * 24.0);
    ++m.power_count;
    m.power_w = w;
    m.power_h = h;
}

// The third view on the device, into the slot's lab picture (after the viewer has copied its last one out).
void GpuEngine::lab_view(RunState& r) {
    Impl& m = *impl_;
    const GpuRequest& req = r.req;
    const int w = r.w, h = r.h;
    const int lw = std::max(1, std::min(req.lab_w, w - req.lab_x)), lh = std::max(1, std::min(req.lab_h, h - req.lab_y));
    if (req.lab_x < 0 || req.lab_y < 0 || req.lab_x >= w || req.lab_y >= h)
        throw ConfigError("lab region outside the plane");
    m.lab_slots[req.picture_slot].resize(std::size_t(lw) * lh);
    CUDA_CHECK(cudaStreamWaitEvent(r.s, m.lab_consumed[req.picture_slot].get(), 0));
    const LabPictureKind kind = LabPictureKind(std::clamp(req.lab_kind, 0, 2));
    m.lab_picture.run(m.inverse.get(), kind == LabPictureKind::Filtered ? nullptr : m.plane.get(), w, req.lab_x,
                      req.lab_y, lw, lh, kind, m.lab_slots[req.picture_slot].get(), r.s, &m.timer);
    r.out.device_lab_rgba = m.lab_slots[req.picture_slot].get();
    r.out.lab_width = lw;
    r.out.lab_height = lh;
}

// What the next run may reuse: the spectrum this full run left (a view-only change then re-runs the view alone).
void GpuEngine::remember_spectrum(RunState& r) {
    Impl& m = *impl_;
    const GpuRequest& req = r.req;
    if (req.path == Path::CustomFast && r.no_picture) {
        m.spectrum_valid = false;  // its picture's first pass never ran
    } else if (!m.warming && r.done_stop && req.plane_version != 0) {
        m.spectrum_key = r.spectrum_key;
        m.spectrum_valid = true;
        m.last_path = int(req.path);
        m.last_mode = req.cufft_mode;
        m.last_w = r.w;
        m.last_h = r.h;
        m.last_version = req.plane_version;
    }
}

// What the caller asked to have on the host: the complex spectrum, the picture, the filtered image, the levels.
void GpuEngine::download(RunState& r) {
    Impl& m = *impl_;
    const GpuRequest& req = r.req;
    const long long n = r.n;
    if (req.want_spectrum) {
        if (req.path == Path::CustomFast)  // the picture never held the complex spectrum
            r.full = m.fast_full(r.w, r.h, req.plane_version, &m.timer);
        r.out.spectrum.resize(n);
        CUDA_CHECK(cudaMemcpyAsync(r.out.spectrum.data(), r.full, n * sizeof(float2), cudaMemcpyDeviceToHost, r.s));
        m.timer.mark("download spectrum (device -> host)", double(n) * 8.0);
    }
    if (req.want_rgba && r.rgba && !m.warming) {
        r.out.rgba.resize(n);
        CUDA_CHECK(cudaMemcpyAsync(r.out.rgba.data(), r.rgba, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, r.s));
        m.timer.mark("download picture (device -> host)", double(n) * 4.0);
    }
    if (req.want_inverse && !m.warming && !r.lab_here) {
        r.out.inverse.resize(n);
        CUDA_CHECK(cudaMemcpyAsync(r.out.inverse.data(), m.inverse.get(), std::size_t(n) * sizeof(float),
                                   cudaMemcpyDeviceToHost, r.s));
        m.timer.mark("download filtered image (device -> host)", double(n) * 4.0);
    }
    if (r.target.levels && !m.warming) {
        r.out.levels.resize(std::size_t(n) * r.lb);
        CUDA_CHECK(
            cudaMemcpyAsync(r.out.levels.data(), r.target.levels, std::size_t(n) * r.lb, cudaMemcpyDeviceToHost, r.s));
        m.timer.mark(r.lb == 1 ? "download picture levels (device -> host)" : "download 16-bit levels (device -> host)",
                     double(n) * r.lb);
    }
    r.out.picture = r.target.levels ? r.target.format : PictureFormat::Rgba8;
}

// The range the picture used, the wait for the device, and the timings (the plan's and the plane's first).
GpuResult GpuEngine::finish_run(RunState& r) {
    Impl& m = *impl_;
    if (r.req.path == Path::CustomFast)
        m.fast.range(&r.out.range_lo, &r.out.range_hi, r.s);
    else
        m.viewer.range(&r.out.range_lo, &r.out.range_hi, r.s);
    CUDA_CHECK(cudaStreamSynchronize(r.s));
    if (r.lab_here) m.lab_picture.range(&r.out.lab_lo, &r.out.lab_hi, r.s);
    r.out.timings = m.timer.collect();
    for (std::size_t i = r.first; i < r.last; ++i) r.out.total_ms += r.out.timings[i].ms;
    if (r.plan_ms > 0)
        r.out.timings.insert(r.out.timings.begin(),
                             {"plan (first run at this size and configuration) [host]", r.plan_ms, 0.0});
    r.out.timings.insert(r.out.timings.begin(), r.prep_timings.begin(), r.prep_timings.end());
    return std::move(r.out);
}

}  // namespace specview::gpu
