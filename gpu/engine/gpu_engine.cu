#include "gpu/engine/gpu_engine.h"

#include <algorithm>
#include <chrono>
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
}  // namespace

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
    Impl& m = *impl_;
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
    Impl& m = *impl_;
    return m.profiler.run(last_spectrum(m), m.stream.get());
}

int GpuEngine::take_power_sum(std::vector<double>& sum, int* width, int* height) {
    Impl& m = *impl_;
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
    Impl& m = *impl_;
    const std::vector<float2> v = gather_bins(last_spectrum(m), kx, ky, m.stream.get());
    std::vector<std::complex<float>> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = {v[i].x, v[i].y};
    return out;
}

std::complex<float> GpuEngine::stopped_element(int x, int y) {
    Impl& m = *impl_;
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

GpuEngine::~GpuEngine() = default;

const DeviceInfo& GpuEngine::info() const { return impl_->dev; }

std::vector<KernelResources> GpuEngine::resources(int width, int height, const CustomConfig& cfg) {
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
    Impl& m = *impl_;
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

GpuResult GpuEngine::run(const GpuRequest& req) {
    Impl& m = *impl_;
    cudaStream_t s = m.stream.get();
    const int w = req.width, h = req.height;
    const long long n = (long long)w * h;
    if (w < 1 || h < 1 || (!req.plane && !req.recipe && !m.warming)) throw ConfigError("empty plane");
    GpuResult out;

    // Plan first: a configuration the device cannot run fails here, before any allocation or launch.
    Custom2DPlan cplan;
    if (req.path == Path::Custom) {
        cplan = plan_custom_2d(w, h, req.custom, m.dev, true);
        out.notes = cplan.rows1.notes;
        for (const auto& note : cplan.rows2.notes) out.notes.push_back("second pass: " + note);
    }

    // A run that only adds to the power sum (a stack's frames) returns without waiting for the device: the host
    // stages the next frame while this one is transformed; errors surface at the next wait (take_power_sum).
    const bool power_only = req.accumulate_power && !req.want_rgba && req.picture_slot < 0 && !req.surface &&
                            !req.want_spectrum && !req.want_inverse && req.stop.kind == StopPoint::Kind::Done &&
                            !m.warming;
    std::vector<KernelTiming> prep_timings;
    if (!m.warming) prep_timings = make_plane(req, !power_only);  // the warm-up runs on what the plan left in place
    const double plan_ms = plan(req);

    m.timer.start(s);

    // The picture, through the chosen path; `full` is where the complex spectrum can be read, on request.
    const std::size_t first = m.timer.marks();
    std::uint32_t* rgba = nullptr;
    PictureTarget target;
    target.format = req.picture;
    const int lb = level_bytes(req.picture);
    if (lb && (req.picture_slot >= 0 || req.surface))
        throw ConfigError("a picture of levels goes to a buffer, not to a picture slot or a texture");
    if (lb && req.stop.kind != StopPoint::Kind::Done) target.format = PictureFormat::Rgba8;  // classroom: colours
    // No picture wanted (a stack's power sum): levels would have nowhere to go; RGBA with no target writes nothing.
    if (lb && !req.want_rgba) target.format = PictureFormat::Rgba8;
    if (req.picture_slot >= 0) {
        if (req.picture_slot >= kPictureSlots) throw ConfigError("no picture slot " + std::to_string(req.picture_slot));
        m.slots[req.picture_slot].resize(n);
        // Not before the viewer has copied the slot's previous picture out (a no-op for an unrecorded event).
        CUDA_CHECK(cudaStreamWaitEvent(s, m.consumed[req.picture_slot].get(), 0));
        rgba = m.slots[req.picture_slot].get();
        out.device_rgba = rgba;
    } else if (req.want_rgba && target.format != PictureFormat::Rgba8) {
        m.levels.resize(n * lb);
        target.levels = m.levels.get();
    } else if (req.want_rgba) {
        m.rgba.resize(n);
        rgba = m.rgba.get();
    }
    target.rgba = rgba;
    target.surface = req.surface;
    const float2* full = nullptr;
    // View-only changes: the same path, plane and transform settings as the last full run leave its spectrum on
    // the device valid, so only the view stages run (never inside the plan's warm-up, whose timings are not shown).
    const auto spectrum_key =
        std::make_tuple(int(req.path), req.plane_version, w, h, req.path == Path::Cufft ? int(req.cufft_mode) : 0,
                        req.path == Path::Custom ? req.custom.rows.threads_per_block : 0,
                        req.path == Path::Custom ? req.custom.rows.block_height : 0,
                        req.path == Path::Custom ? req.custom.rows.max_local_length : 0,
                        req.path == Path::Custom ? req.custom.transpose.tile : 0);
    const bool done_stop = req.stop.kind == StopPoint::Kind::Done;
    const bool reuse =
        !m.warming && done_stop && req.plane_version != 0 && m.spectrum_valid && m.spectrum_key == spectrum_key;
    if (!reuse && !m.warming) m.spectrum_valid = false;  // the buffers are about to change
    if (reuse) out.notes.push_back("spectrum reused: only the view stages ran (same plane and transform)");
    const float* mask = done_stop ? m.mask.get(req.filters, req.strokes, req.mask_invert, w, h, s, &m.timer) : nullptr;
    if (req.want_inverse && !done_stop)
        throw ConfigError("the inverse transform needs the whole forward one (no classroom stop)");
    // custom-fast's full spectrum of this plane (for --raw and the inverse), computed once per plane.
    auto fast_full = [&]() -> const float2* { return m.fast_full(w, h, req.plane_version, &m.timer); };
    // Nothing to show anywhere (a stack's power sum, a saved spectrum, a filtered image alone): the picture stages
    // do not run. custom-fast then has no first pass in place for a later view-only change (see the end).
    const bool no_picture = done_stop && !m.warming && !req.want_rgba && req.picture_slot < 0 && !req.surface;
    if (req.path == Path::CustomFast && no_picture) {
        out.width = w;
        out.height = h;
    } else if (req.path == Path::CustomFast) {
        // Two passes; the picture straight from the second one's epilogue.
        out.width = w;
        out.height = h;
        out.range_reused = m.fast
                               .picture(m.plane.get(), w, h, req.plane_version, req.view, target, s, &m.timer, reuse,
                                        mask, m.mask.version())
                               .range_reused;
        if (out.range_reused) out.notes.push_back("range reused from an identical earlier run (same plane and view)");
    } else {
        SpectrumSource src;
        if (req.path == Path::Custom && reuse) {
            src = m.custom_spectrum;
        } else if (req.path == Path::Custom) {
            m.a.resize(n);
            m.b.resize(n);
            Custom2DResult r =
                run_custom_2d(cplan, m.plane.get(), m.a.get(), m.b.get(), false, req.stop, m.twiddles, s, &m.timer);
            src = {r.data, r.cols, r.rows, r.cols, false};
            m.custom_spectrum = src;
            m.stopped = r.data;
            m.stopped_w = r.cols;
            m.stopped_h = r.rows;
        } else {
            src = reuse ? m.cufft.last(w, h, req.cufft_mode)
                        : m.cufft.forward_real(m.plane.get(), w, h, req.cufft_mode, s, &m.timer);
        }
        if (req.path == Path::Custom) {
            out.resources = {row_fft_resources(cplan.rows1, true, m.dev), transpose_resources(cplan.transpose, m.dev),
                             row_fft_resources(cplan.rows2, false, m.dev)};
            out.row_plans = {cplan.rows1, cplan.rows2};
        }
        out.width = src.width;
        out.height = src.height;
        SpectrumSource shown = src;
        shown.mask = done_stop ? mask : nullptr;
        if (!no_picture) m.viewer.run(shown, req.view, target, s, &m.timer);
        full = src.data;
        if (req.want_spectrum && src.half) {
            m.full.resize(n);
            m.fast_full_version = 0;  // m.full holds this path's spectrum now
            expand_half_spectrum(src.data, w, h, m.full.get(), s);
            full = m.full.get();
        }
    }
    // The filtered image: the masked spectrum through each path's own inverse transform, normalised.
    if (req.want_inverse) {
        const float scale = 1.0f / (float(w) * float(h));
        m.inv_a.resize(n);
        m.inverse.resize(n);
        if (req.path == Path::Cufft) {
            masked_half(m.cufft.last(w, h, req.cufft_mode), mask, m.inv_a.get(), s);
            m.timer.mark(mask ? "mask -> half spectrum" : "half spectrum",
                         double(w / 2 + 1) * h * (mask ? 20.0 : 16.0));
            m.cufft.inverse_real(m.inv_a.get(), m.inverse.get(), w, h, s);
            m.timer.mark("cuFFT C2R 2D (inverse)", double(w / 2 + 1) * h * 8.0 + double(n) * 4.0);
            scale_real(m.inverse.get(), n, scale, s);
            m.timer.mark("scale 1/(width height)", double(n) * 8.0);
        } else {
            // custom-fast's inverse C2C needs no scratch where it runs in place (powers of two within the L2, m58):
            // inv_b is not made for it there (33 MB at 2048^2), and a null scratch would fault rather than be used.
            const bool fast_in_place = req.path != Path::Custom && m.fast.c2c_in_place(w, h);
            if (!fast_in_place) m.inv_b.resize(n);
            const SpectrumSource fwd =
                req.path == Path::Custom ? m.custom_spectrum : SpectrumSource{fast_full(), w, h, w, false, nullptr};
            masked_full(fwd, mask, m.inv_a.get(), s);
            m.timer.mark(mask ? "mask -> spectrum copy" : "spectrum copy", double(n) * (mask ? 20.0 : 16.0));
            const float2* result = m.inv_a.get();
            if (req.path == Path::Custom) {  // the same row-FFT and transpose kernels, backwards
                const Custom2DPlan ip = plan_custom_2d(w, h, req.custom, m.dev, false);
                result =
                    run_custom_2d(ip, nullptr, m.inv_a.get(), m.inv_b.get(), true, StopPoint{}, m.twiddles, s, &m.timer)
                        .data;
            } else {
                m.fast.c2c(m.inv_a.get(), fast_in_place ? nullptr : m.inv_b.get(), w, h, true, s, &m.timer);
            }
            real_part(result, n, scale, m.inverse.get(), s);
            m.timer.mark("real part / (width height)", double(n) * 12.0);
        }
    }
    // A stack's power sum: |F|^2 of the unmasked spectrum added on the device (custom-fast's full one made for it).
    if (req.accumulate_power && !m.warming) {
        if (!done_stop) throw ConfigError("a power sum needs the whole transform (no classroom stop)");
        if (m.power_count > 0 && (m.power_w != w || m.power_h != h))
            throw ConfigError("a power sum of " + std::to_string(m.power_w) + "x" + std::to_string(m.power_h) +
                              " spectra cannot take a " + std::to_string(w) + "x" + std::to_string(h) + " one");
        if (m.power_count == 0) {
            m.power.resize(std::size_t(n));
            CUDA_CHECK(cudaMemsetAsync(m.power.get(), 0, std::size_t(n) * sizeof(double), s));
        }
        // custom-fast: the full spectrum when this plane's is already there, else just the half one.
        const bool have_full = m.fast_full_version != 0 && m.fast_full_version == req.plane_version &&
                               m.fast_full_w == w && m.fast_full_h == h;
        const SpectrumSource src = req.path == Path::Custom  ? m.custom_spectrum
                                   : req.path == Path::Cufft ? m.cufft.last(w, h, req.cufft_mode)
                                   : have_full               ? SpectrumSource{m.full.get(), w, h, w, false, nullptr}
                                                             : m.fast_half(w, h, &m.timer);
        accumulate_power(src, m.power.get(), s);
        m.timer.mark("power sum += |F|^2", double(n) * 24.0);
        ++m.power_count;
        m.power_w = w;
        m.power_h = h;
    }
    // The third view on the device, into the slot's lab picture (after the viewer has copied its last one out).
    const bool lab_here = req.want_inverse && req.lab_on_device && req.picture_slot >= 0 && !m.warming;
    if (lab_here) {
        const int lw = std::max(1, std::min(req.lab_w, w - req.lab_x)),
                  lh = std::max(1, std::min(req.lab_h, h - req.lab_y));
        if (req.lab_x < 0 || req.lab_y < 0 || req.lab_x >= w || req.lab_y >= h)
            throw ConfigError("lab region outside the plane");
        m.lab_slots[req.picture_slot].resize(std::size_t(lw) * lh);
        CUDA_CHECK(cudaStreamWaitEvent(s, m.lab_consumed[req.picture_slot].get(), 0));
        const LabPictureKind kind = LabPictureKind(std::clamp(req.lab_kind, 0, 2));
        m.lab_picture.run(m.inverse.get(), kind == LabPictureKind::Filtered ? nullptr : m.plane.get(), w, req.lab_x,
                          req.lab_y, lw, lh, kind, m.lab_slots[req.picture_slot].get(), s, &m.timer);
        out.device_lab_rgba = m.lab_slots[req.picture_slot].get();
        out.lab_width = lw;
        out.lab_height = lh;
    }
    const std::size_t last = m.timer.marks();  // total_ms covers the marks in [first, last)
    if (req.path == Path::CustomFast && no_picture)
        m.spectrum_valid = false;  // its picture's first pass never ran
    else if (!m.warming && done_stop && req.plane_version != 0) {
        m.spectrum_key = spectrum_key;
        m.spectrum_valid = true;
        m.last_path = int(req.path);
        m.last_mode = req.cufft_mode;
        m.last_w = w;
        m.last_h = h;
        m.last_version = req.plane_version;
    }

    if (req.want_spectrum) {
        if (req.path == Path::CustomFast) full = fast_full();  // the picture never held the complex spectrum
    }
    if (req.want_spectrum) {
        out.spectrum.resize(n);
        CUDA_CHECK(cudaMemcpyAsync(out.spectrum.data(), full, n * sizeof(float2), cudaMemcpyDeviceToHost, s));
        m.timer.mark("download spectrum (device -> host)", double(n) * 8.0);
    }
    if (req.want_rgba && rgba && !m.warming) {
        out.rgba.resize(n);
        CUDA_CHECK(cudaMemcpyAsync(out.rgba.data(), rgba, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, s));
        m.timer.mark("download picture (device -> host)", double(n) * 4.0);
    }
    if (req.want_inverse && !m.warming && !lab_here) {
        out.inverse.resize(n);
        CUDA_CHECK(cudaMemcpyAsync(out.inverse.data(), m.inverse.get(), std::size_t(n) * sizeof(float),
                                   cudaMemcpyDeviceToHost, s));
        m.timer.mark("download filtered image (device -> host)", double(n) * 4.0);
    }
    if (target.levels && !m.warming) {
        out.levels.resize(std::size_t(n) * lb);
        CUDA_CHECK(cudaMemcpyAsync(out.levels.data(), target.levels, std::size_t(n) * lb, cudaMemcpyDeviceToHost, s));
        m.timer.mark(lb == 1 ? "download picture levels (device -> host)" : "download 16-bit levels (device -> host)",
                     double(n) * lb);
    }
    out.picture = target.levels ? target.format : PictureFormat::Rgba8;
    if (power_only) return out;  // no range, no timings: nothing waits
    if (req.path == Path::CustomFast)
        m.fast.range(&out.range_lo, &out.range_hi, s);
    else
        m.viewer.range(&out.range_lo, &out.range_hi, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (lab_here) m.lab_picture.range(&out.lab_lo, &out.lab_hi, s);
    out.timings = m.timer.collect();
    for (std::size_t i = first; i < last; ++i) out.total_ms += out.timings[i].ms;
    if (plan_ms > 0)
        out.timings.insert(out.timings.begin(),
                           {"plan (first run at this size and configuration) [host]", plan_ms, 0.0});
    out.timings.insert(out.timings.begin(), prep_timings.begin(), prep_timings.end());
    return out;
}

}  // namespace specview::gpu
