// Index of this file (grep "[SECTION]"):
// - FFTW: threads, wisdom, plans, the half spectrum
// - The CPU backend behind SpectrumBackend: FFTW (or the staged radix-2 model at classroom stops)
#include "app/engine/cpu_backend.h"
#include "app/core/parallel_bands.h"

#include "app/engine/backend.h"
#include "app/lab/filter.h"
#include "app/engine/staged_fft.h"
#include "gpu/common/errors.h"
#include "gpu/common/config.h"
#include "gpu/common/seed_checks.h"
#ifdef SPECVIEW_HAS_OPENCL
#include "gpu/opencl/cl_fft.h"
#endif
#ifdef SPECVIEW_HAS_GLSL
#include "gpu/glsl/gl_fft.h"
#endif

#include <fftw3.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <atomic>
#include <cfloat>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <unistd.h>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace specview {

// [SECTION] FFTW: threads, wisdom, plans, the half spectrum
struct CpuFft::Impl {
    int w = 0, h = 0, threads = 0;
    fftwf_plan plan = nullptr;
    fftwf_plan inverse = nullptr;  // c2r in place, made on first use
    float* in = nullptr;           // in place: the padded real rows, then the half spectrum
    bool measured = false;         // planned from measurements (wisdom) rather than estimated

    void reset() {
        if (plan) fftwf_destroy_plan(plan);
        if (inverse) fftwf_destroy_plan(inverse);
        inverse = nullptr;
        if (in) fftwf_free(in);
        plan = nullptr;
        in = nullptr;
        w = h = 0;
    }
    ~Impl() { reset(); }
};

namespace {
std::mutex& planner_mutex() {  // FFTW's planner is not thread-safe
    static std::mutex m;
    return m;
}
std::atomic<int> g_threads{0};  // 0: all cores
int fft_threads() {
    const int t = g_threads.load();
    return t > 0 ? t : int(std::max(1u, std::thread::hardware_concurrency()));
}
void init_threads_once() {
    static std::once_flag once;
    std::call_once(once, [] { fftwf_init_threads(); });
}
}  // namespace

void set_cpu_fft_threads(int threads) { g_threads.store(std::max(0, threads)); }

namespace {
std::atomic<bool> g_measure{false};
std::atomic<double> g_measure_limit{-1.0};  // seconds FFTW may spend measuring a plan; < 0: no limit

// $XDG_CACHE_HOME/specview (or ~/.cache/specview)/fftwf-wisdom; empty when neither is known.
std::string wisdom_path() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/specview/fftwf-wisdom";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/specview/fftwf-wisdom";
    return "";
}

// With the planner mutex held: the saved wisdom, once a process.
void import_wisdom_once() {
    static bool done = false;
    if (done) return;
    done = true;
    const std::string p = wisdom_path();
    if (!p.empty()) fftwf_import_wisdom_from_filename(p.c_str());  // none yet, or unreadable: plan without it
}

// With the planner mutex held: all wisdom so far, written atomically.
void export_wisdom() {
    const std::string p = wisdom_path();
    if (p.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(p).parent_path(), ec);
    const std::string tmp = p + ".tmp-" + std::to_string(::getpid());
    if (fftwf_export_wisdom_to_filename(tmp.c_str()))
        std::filesystem::rename(tmp, p, ec);
    else
        std::filesystem::remove(tmp, ec);
}
}  // namespace

void set_cpu_fft_measure(bool measure, double time_limit_s) {
    g_measure.store(measure);
    g_measure_limit.store(time_limit_s);
}
std::string cpu_fft_wisdom_path() { return wisdom_path(); }
std::unique_lock<std::mutex> lock_fftw_planner() {
    std::unique_lock<std::mutex> lock(planner_mutex());
    init_threads_once();
    return lock;
}
int cpu_fft_threads() { return fft_threads(); }

CpuFft::CpuFft() : impl_(new Impl) {}
CpuFft::~CpuFft() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    impl_.reset();
}

double CpuFft::plan(int w, int h) {
    Impl& m = *impl_;
    if (m.w == w && m.h == h && m.threads == fft_threads()) return 0.0;
    const auto t0 = std::chrono::steady_clock::now();
    make_plan(w, h);
    return std::max(1e-6, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

void CpuFft::forward(const Plane& p, std::vector<std::complex<float>>& out) {
    const int w = p.width, h = p.height;
    float* in = input(w, h);
    const std::size_t st = stride();
    for (int y = 0; y < h; ++y)
        std::memcpy(in + std::size_t(y) * st, p.v.data() + std::size_t(y) * w, sizeof(float) * w);
    execute();
    full(out);
}

float* CpuFft::input(int w, int h) {
    Impl& m = *impl_;
    if (m.w != w || m.h != h || m.threads != fft_threads()) make_plan(w, h);
    return m.in;
}
bool CpuFft::measured() const { return impl_->measured; }
std::size_t CpuFft::stride() const { return 2 * std::size_t(impl_->w / 2 + 1); }
void CpuFft::execute() { fftwf_execute(impl_->plan); }
const std::complex<float>* CpuFft::half() const { return reinterpret_cast<const std::complex<float>*>(impl_->in); }
std::complex<float>* CpuFft::half() { return reinterpret_cast<std::complex<float>*>(impl_->in); }

void CpuFft::inverse(std::vector<float>& out) {
    Impl& m = *impl_;
    if (!m.plan) throw std::logic_error("CpuFft::inverse before a forward transform");
    if (!m.inverse) {
        std::lock_guard<std::mutex> lock(planner_mutex());
        fftwf_plan_with_nthreads(m.threads);
        // Estimated: planning must not touch the half spectrum waiting in the buffer.
        m.inverse = fftwf_plan_dft_c2r_2d(m.h, m.w, reinterpret_cast<fftwf_complex*>(m.in), m.in, FFTW_ESTIMATE);
        if (!m.inverse) throw std::runtime_error("FFTW could not plan the inverse transform");
    }
    fftwf_execute(m.inverse);
    const std::size_t st = stride();
    const float scale = 1.0f / (float(m.w) * float(m.h));
    out.resize(std::size_t(m.w) * m.h);
    for (int y = 0; y < m.h; ++y) {
        const float* row = m.in + std::size_t(y) * st;
        float* dst = out.data() + std::size_t(y) * m.w;
        for (int x = 0; x < m.w; ++x) dst[x] = row[x] * scale;
    }
}

void CpuFft::make_plan(int w, int h) {
    const int hw = w / 2 + 1;
    Impl& m = *impl_;
    {
        std::lock_guard<std::mutex> lock(planner_mutex());
        init_threads_once();
        m.threads = fft_threads();
        fftwf_plan_with_nthreads(m.threads);
        m.reset();
        // In place: the real rows padded to 2 (w/2 + 1) floats hold the half spectrum afterwards.
        m.in = fftwf_alloc_real(2 * std::size_t(hw) * h);
        if (!m.in) {
            m.reset();
            throw std::bad_alloc();
        }
        // Saved wisdom (FFTW_MEASURE's choices from an earlier run) when there is some for this size and thread
        // count; else measure now when asked (--fftw-measure: seconds, saved for later runs), else estimate.
        import_wisdom_once();
        auto* out = reinterpret_cast<fftwf_complex*>(m.in);
        m.plan = fftwf_plan_dft_r2c_2d(h, w, m.in, out, FFTW_MEASURE | FFTW_WISDOM_ONLY);
        m.measured = m.plan != nullptr;
        if (!m.plan && g_measure.load()) {
            fftwf_set_timelimit(g_measure_limit.load() > 0 ? g_measure_limit.load() : FFTW_NO_TIMELIMIT);
            m.plan = fftwf_plan_dft_r2c_2d(h, w, m.in, out, FFTW_MEASURE);
            fftwf_set_timelimit(FFTW_NO_TIMELIMIT);
            m.measured = m.plan != nullptr;
            if (m.plan) export_wisdom();
        }
        if (!m.plan) m.plan = fftwf_plan_dft_r2c_2d(h, w, m.in, out, FFTW_ESTIMATE);
        if (!m.plan) {
            m.reset();
            throw std::runtime_error("FFTW could not plan a " + std::to_string(w) + "x" + std::to_string(h) +
                                     " transform");
        }
        m.w = w;
        m.h = h;
    }
}

namespace {
// Bin (x, y) of a w x h real input's whole spectrum from its half one (h rows of w/2 + 1), and the whole one.
std::complex<float> half_spectrum_bin(const std::complex<float>* H, int w, int h, int x, int y) {
    const int hw = w / 2 + 1;
    if (x < hw) return H[std::size_t(y) * hw + x];
    return std::conj(H[std::size_t(y == 0 ? 0 : h - y) * hw + (w - x)]);
}

void expand_half_spectrum(const std::complex<float>* H, int w, int h, std::vector<std::complex<float>>& out) {
    const int hw = w / 2 + 1;
    out.resize(std::size_t(w) * h);
    for (int y = 0; y < h; ++y) {
        const std::complex<float>* row = H + std::size_t(y) * hw;
        std::complex<float>* dst = out.data() + std::size_t(y) * w;
        for (int x = 0; x < hw; ++x) dst[x] = row[x];
        const std::complex<float>* mirror = H + std::size_t(y == 0 ? 0 : h - y) * hw;
        for (int x = hw; x < w; ++x) dst[x] = std::conj(mirror[w - x]);
    }
}
}  // namespace

std::complex<float> CpuFft::at(int x, int y) const { return half_spectrum_bin(half(), impl_->w, impl_->h, x, y); }

void CpuFft::full(std::vector<std::complex<float>>& out) const {
    expand_half_spectrum(half(), impl_->w, impl_->h, out);
}

// [SECTION] The CPU backend behind SpectrumBackend: FFTW (or the staged radix-2 model at classroom stops)

namespace {
using BackendClock = std::chrono::steady_clock;

// Where the content sits in the plane and where it came from in the image, as the frame reports it.
void set_content(Frame& f, int x, int y, int w, int h, int crop_x, int crop_y) {
    f.content_x = x;
    f.content_y = y;
    f.content_w = w;
    f.content_h = h;
    f.crop_x = crop_x;
    f.crop_y = crop_y;
}
double ms_since(BackendClock::time_point t0) {
    return std::chrono::duration<double, std::milli>(BackendClock::now() - t0).count();
}

// A transform on another device in place of FFTW's (OpenCL, OpenGL compute): the seed's radix-2 pipeline with the
// custom backend's knobs; the full spectrum comes back to the host, or stays there for the picture.
struct DeviceFft {
    // Both engines' work-items loop over a block's butterflies: the threads per block are the work-items a row (one
    // butterfly each, the seed's, where they are half the local length), H rows a group, the tile; the automatic
    // local length (0) is the longest the shared (local) memory holds.
    static gpu::SeedConfig knobs(const Settings& s) {
        const gpu::RowFftConfig& r = s.custom.rows;
        return {std::max(r.max_local_length, 0), std::max(r.block_height, 1), s.custom.transpose.tile,
                std::max(r.threads_per_block, 1)};
    }
    virtual ~DeviceFft() = default;
    virtual std::string name() const = 0;  // what ran, in words
    virtual std::string short_name() const = 0;  // "OpenCL", "GL"
    // What a size and configuration need, made now (compiled programs); its milliseconds (0: made already).
    virtual double prepare(int, int, const Settings&) { return 0.0; }
    double setup_ms = 0;  // the context and the program's build, once (reported by the first run)
    virtual std::string check(int w, int h, const Settings& s) const = 0;
    // `stride`: floats from one row of `plane` to the next (FFTW's in-place buffer: 2 (w / 2 + 1)).
    virtual void forward(const float* plane, int stride, int w, int h, const Settings& s, std::complex<float>* out,
                         std::vector<gpu::KernelTiming>& t) = 0;
    virtual void forward_until(const Plane& p, const Settings& s, std::vector<std::complex<float>>& out, int* rows,
                               int* cols, std::vector<gpu::KernelTiming>& t) = 0;
    // Engines that keep the spectrum on the device and make the picture there (GL): forward() with a null `out`
    // keeps it; picture() brings back only the picture (RGBA8 or levels); bins() and spectrum() read it.
    virtual bool pictures() const { return false; }
    virtual void picture(const ViewParams&, PictureFormat, void*, float*, float*, std::vector<gpu::KernelTiming>&) {}
    // The picture into slot `slot`'s texture of the viewer's share group (GlFft::picture_to_slot); false where this
    // engine has no shared context (the picture then comes back to the host).
    virtual bool slots() const { return false; }
    // Engines that make the plane from the image's samples themselves (GL): whether, why a recipe cannot be made
    // there (""), and the transform of that plane with its spectrum kept on the device.
    virtual bool takes_recipes() const { return false; }
    virtual std::string recipe_error(const gpu::PlaneRecipe&) const { return "no plane on this device"; }
    virtual void forward_recipe(const gpu::PlaneRecipe&, const Settings&, std::vector<gpu::KernelTiming>&) {}
    virtual std::uint64_t picture_to_slot(const ViewParams&, int, std::uint64_t, std::uint64_t*, float*, float*,
                                          std::vector<gpu::KernelTiming>&) {
        return 0;
    }
    virtual void bins(const int*, const int*, std::size_t, std::complex<float>*) {}
    virtual void spectrum(std::complex<float>*) {}
};

// Whether an engine runs on a GPU: there its picture is made on the device (a 4096^2 spectrum's view, range and colours
// took 3.5 ms in GL shaders on the H100 against 25 ms on its 16 cores); on a CPU device (PoCL, llvmpipe) the host's
// picture is the faster (4096^2 here: 58 ms on 2 threads against PoCL's 310 ms and llvmpipe's 330 ms).
#ifdef SPECVIEW_HAS_OPENCL
bool on_gpu(const gpu::OpenClFft& f) { return f.device().gpu; }
#endif
#ifdef SPECVIEW_HAS_GLSL
bool on_gpu(const gpu::GlFft& f) { return !f.software(); }
#endif

// Which engines make pictures on the device (SeedDeviceFft below): those with picture() (GL, OpenCL); and which write
// them into the viewer's textures and loop over a block's butterflies: those with picture_to_slot() (GL).
template <class Fft, class = void>
struct HasPicture : std::false_type {};
template <class Fft>
struct HasPicture<Fft, std::void_t<decltype(&Fft::picture)>> : std::true_type {};
template <class Fft, class = void>
struct HasSlots : std::false_type {};
template <class Fft>
struct HasSlots<Fft, std::void_t<decltype(&Fft::picture_to_slot)>> : std::true_type {};

// Either engine (gpu/opencl's OpenClFft, gpu/glsl's GlFft: the same calls, configurations and pass times) as a
// DeviceFft.
template <class Fft, class Pass>
class SeedDeviceFft : public DeviceFft {
public:
    template <class... Args>
    SeedDeviceFft(std::string short_name, Args&&... args) : fft_(std::forward<Args>(args)...), short_(std::move(short_name)) {}
    std::string name() const override { return fft_.describe(); }
    std::string short_name() const override { return short_; }
    double prepare(int w, int h, const Settings& s) override { return fft_.prepare(w, h, config(s)); }
    std::string check(int w, int h, const Settings& s) const override { return fft_.check(w, h, config(s)); }
    void forward(const float* plane, int stride, int w, int h, const Settings& s, std::complex<float>* out,
                 std::vector<gpu::KernelTiming>& t) override {
        std::vector<Pass> times;
        fft_.forward(plane, w, h, config(s), out, &times, stride);
        add(times, t);
    }
    void forward_until(const Plane& p, const Settings& s, std::vector<std::complex<float>>& out, int* rows, int* cols,
                       std::vector<gpu::KernelTiming>& t) override {
        std::vector<Pass> times;
        fft_.forward_until(p.v.data(), p.width, p.height, config(s), s.stop, out, rows, cols, &times);
        add(times, t);
    }

    bool pictures() const override {
        if constexpr (HasPicture<Fft>::value) return on_gpu(fft_);
        return false;
    }
    void picture(const ViewParams& vp, PictureFormat format, void* out, float* lo, float* hi,
                 std::vector<gpu::KernelTiming>& t) override {
        if constexpr (HasPicture<Fft>::value) {
            std::vector<Pass> times;
            fft_.picture(vp, format, out, lo, hi, &times);
            add(times, t);
        }
    }
    bool slots() const override {
        if constexpr (HasSlots<Fft>::value) return fft_.shares_context();
        return false;
    }
    bool takes_recipes() const override { return HasSlots<Fft>::value; }
    std::string recipe_error(const gpu::PlaneRecipe& r) const override {
        if constexpr (HasSlots<Fft>::value) return Fft::recipe_error(r);
        return DeviceFft::recipe_error(r);
    }
    void forward_recipe(const gpu::PlaneRecipe& r, const Settings& s, std::vector<gpu::KernelTiming>& t) override {
        if constexpr (HasSlots<Fft>::value) {
            std::vector<Pass> times;
            fft_.forward_recipe(r, config(s), nullptr, &times);
            add(times, t);
        }
    }
    std::uint64_t picture_to_slot(const ViewParams& vp, int slot, std::uint64_t wait, std::uint64_t* ready, float* lo,
                                  float* hi, std::vector<gpu::KernelTiming>& t) override {
        if constexpr (HasSlots<Fft>::value) {
            std::vector<Pass> times;
            const unsigned tex = fft_.picture_to_slot(vp, slot, wait, ready, lo, hi, &times);
            add(times, t);
            return tex;
        }
        return 0;
    }
    void bins(const int* x, const int* y, std::size_t n, std::complex<float>* out) override {
        if constexpr (HasPicture<Fft>::value) fft_.bins(x, y, n, out);
    }
    void spectrum(std::complex<float>* out) override {
        if constexpr (HasPicture<Fft>::value) fft_.spectrum(out);
    }

private:
    static gpu::SeedConfig config(const Settings& s) { return knobs(s); }
    void add(const std::vector<Pass>& times, std::vector<gpu::KernelTiming>& t) const {
        for (const Pass& p : times) t.push_back({short_ + " " + p.what, p.ms, p.bytes});
    }
    Fft fft_;
    std::string short_;
};
#ifdef SPECVIEW_HAS_OPENCL
using OpenClDeviceFft = SeedDeviceFft<gpu::OpenClFft, gpu::OpenClPassTime>;
#endif
#ifdef SPECVIEW_HAS_GLSL
using GlDeviceFft = SeedDeviceFft<gpu::GlFft, gpu::GlPassTime>;
#endif

class CpuSpectrumBackend : public SpectrumBackend {
public:
    CpuSpectrumBackend() = default;
    explicit CpuSpectrumBackend(std::unique_ptr<DeviceFft> device) : device_(std::move(device)) {}
    double plan(const PlaneContext& ctx, const Settings& s) override {
        if (s.stop.kind != gpu::StopPoint::Kind::Done) return 0.0;  // the staged model plans nothing
        int w = 0, h = 0;
        transform_size(s.pad, ctx.image->width, ctx.image->height, &w, &h);
        check_device(s, w, h);
        return fft_.plan(w, h) + (device_ ? device_->prepare(w, h, s) : 0.0);
    }
    double plan_size(const Settings& s, int plane_w, int plane_h) override {
        if (s.stop.kind != gpu::StopPoint::Kind::Done) return 0.0;
        check_device(s, plane_w, plane_h);
        return fft_.plan(plane_w, plane_h) + (device_ ? device_->prepare(plane_w, plane_h, s) : 0.0);
    }

    Frame run(const PlaneContext& ctx, const Settings& s, const RunOptions& o) override {
        if (s.stop.kind != gpu::StopPoint::Kind::Done) return run_staged(ctx, s, o);
        Frame f;
        // The plane goes straight into FFTW's in-place buffer: from the engine's cached plane (the viewer
        // re-runs with it), or for a one-shot run made there from the image's samples (no plane kept).
        auto t0 = BackendClock::now();
        double prepare_ms = 0;
        int w = 0, h = 0;
        // FFTW's buffer is about to hold the plane: nothing of the last run's spectrum is kept from here on.
        data_.reset();
        spectrum_kept_ = false;
        half_kept_ = false;
        half_ok_ = false;
        device_kept_ = false;
        // The device's picture (GL): its spectrum stays there and only the picture comes back, where nothing after
        // the transform needs the spectrum on the host (a mask, an inverse, a power sum do).
        // With a picture slot (the viewer, in its share group) the picture goes into the slot's texture instead.
        const bool slot_picture = device_ && device_->slots() && o.picture_slot >= 0 && !has_mask(s) &&
                                  !o.want_inverse && !o.accumulate_power;
        const bool want_rgba = o.want_rgba || (o.picture_slot >= 0 && !slot_picture);  // a slot it cannot fill
        const bool device_picture = slot_picture || (device_ && device_->pictures() && want_rgba && !has_mask(s) &&
                                                     !o.want_inverse && !o.accumulate_power);
        auto give_up_if_cancelled = [&] {
            if (!o.cancelled || !o.cancelled()) return;
            half_ok_ = false;  // a spectrum of settings nobody asks about any more is no readout's
            throw RunCancelled();
        };
        // The GL engine on a GPU makes the plane itself from the image's samples (kept on the device while the image
        // is the same): the host prepares no plane, a settings change sends only the window's values. (On llvmpipe
        // the host's plane is the faster: 4096^2 here 85 ms on the host against ~1 s in double-precision shaders.)
        std::optional<gpu::PlaneRecipe> recipe;
        if (device_picture && device_->pictures() && device_->takes_recipes() && !ctx.image->on_device()) {
            t0 = BackendClock::now();
            gpu::PlaneRecipe r = plane_recipe(*ctx.image, s, ctx.image_version, true);
            if (device_->recipe_error(r).empty()) {
                recipe = std::move(r);
                f.timings.push_back({"plane recipe (window values, levelling fit) [host]", ms_since(t0), 0.0});
            }
        }
        if (recipe) {
            w = recipe->plane_width;
            h = recipe->plane_height;
            set_content(f, 0, 0, recipe->content_width, recipe->content_height, recipe->crop_x, recipe->crop_y);
        } else if (o.one_shot || !ctx.host_plane_cached) {
            // No copy of the plane kept: made on every thread straight into the buffer, no zero-filled 4 bytes a
            // pixel first touched and then copied (a window change at 4096^2 on 2 cores: ~210 -> ~60 ms).
            const bool named = !o.one_shot && !ctx.name.empty();
            require_host_samples(*ctx.image, named ? ctx.name : "(the CPU backend)");
            transform_size(s.pad, ctx.image->width, ctx.image->height, &w, &h);
            float* in = fft_.input(w, h);
            t0 = BackendClock::now();
            const PlaneGeometry g = prepare_plane_into(*ctx.image, s, in, fft_.stride(),
                                                       named ? ctx.name : "image", fft_threads());
            prepare_ms = std::max(ms_since(t0), 1e-6);
            set_content(f, 0, 0, g.content_w, g.content_h, g.crop_x, g.crop_y);
        } else {
            const PreparedPlane& pp = ctx.host_plane(&prepare_ms);
            set_content(f, pp.content_x, pp.content_y, pp.content_w, pp.content_h, pp.crop_x, pp.crop_y);
            w = pp.plane.width;
            h = pp.plane.height;
            float* in = fft_.input(w, h);
            const std::size_t st = fft_.stride();
            for (int y = 0; y < h; ++y)
                std::memcpy(in + std::size_t(y) * st, pp.plane.v.data() + std::size_t(y) * w, sizeof(float) * w);
        }
        if (prepare_ms > 0) f.timings.push_back({"prepare plane (channel, window, pad) [CPU]", prepare_ms, 0.0});
        report_device_setup(f);
        const std::size_t first = f.timings.size();
        f.width = w;
        f.height = h;
        give_up_if_cancelled();
        t0 = BackendClock::now();
        if (!run_device(s, w, h, f, device_picture, recipe ? &*recipe : nullptr)) {
            fft_.execute();
            f.timings.push_back(
                {std::string("FFTW r2c 2D (in place, ") + (fft_.measured() ? "measured plan)" : "estimated plan)"),
                 ms_since(t0), double(w) * h * 8.0});
            f.backend = "CPU (FFTW)";
        }
        width_ = w;
        height_ = h;
        half_ok_ = !device_kept_;
        give_up_if_cancelled();
        // The full spectrum only where it is asked for (--raw); readouts, bins and profiles read the transform's
        // half spectrum, before any mask: in FFTW's buffer, or (a mask or an inverse will change that) a copy of it.
        // Expanding the whole spectrum for them took 66-69 ms of a 4096^2 run here (and 8 bytes a bin).
        if (o.want_spectrum && device_kept_) {
            f.spectrum.resize(std::size_t(w) * h);
            device_->spectrum(f.spectrum.data());
        } else if (o.want_spectrum) {
            fft_.full(f.spectrum);
        }
        if (!o.one_shot && (has_mask(s) || o.want_inverse)) {
            t0 = BackendClock::now();
            const std::size_t count = std::size_t(w / 2 + 1) * h;
            kept_half_.resize(count);
            std::memcpy(kept_half_.data(), fft_.half(), count * sizeof(std::complex<float>));
            half_kept_ = true;
            f.timings.push_back({"keep the half spectrum (readout, profiles)", ms_since(t0), double(count) * 16.0});
        }
        const int threads = fft_threads();
        if (o.accumulate_power) add_power(w, h);
        if (has_mask(s)) {  // the mask (made once per description and size) times the half spectrum, in place
            t0 = BackendClock::now();
            const bool same_base = !mask_.empty() && mask_filters_ == s.filters && mask_invert_ == s.mask_invert &&
                                   mask_w_ == w && mask_h_ == h;
            const bool extends = same_base && mask_strokes_.size() <= s.strokes.size() &&
                                 std::equal(mask_strokes_.begin(), mask_strokes_.end(), s.strokes.begin());
            if (extends && mask_strokes_.size() < s.strokes.size()) {
                // New brush dabs only: stamped into the kept layer, the mask re-made where they landed.
                const float* fh = filter_half_.empty() ? nullptr : filter_half_.data();
                const bool inv = s.mask_invert;
                stamp_strokes_half(s.strokes.data() + mask_strokes_.size(), s.strokes.size() - mask_strokes_.size(), w,
                                   h, brush_half_.data(), [&](std::size_t i) {
                                       const float m = (fh ? fh[i] : 1.0f) * brush_half_[i];
                                       mask_[i] = inv ? 1.0f - m : m;
                                   });
                mask_strokes_ = s.strokes;
            } else if (!extends) {
                // The filters' part is kept: a change of the dabs re-makes only the brush layer and the product.
                if (filter_half_key_ != s.filters || mask_w_ != w || mask_h_ != h) {
                    filter_half_ = half_mask(s.filters, w, h, threads);
                    filter_half_key_ = s.filters;
                }
                mask_ = combine_half_mask(filter_half_, {}, s.mask_invert, w, h, threads);
                if (mask_.empty()) mask_.assign(std::size_t(w / 2 + 1) * h, 1.0f);  // dabs alone
                brush_half_.assign(std::size_t(w / 2 + 1) * h, 1.0f);
                if (!s.strokes.empty()) {
                    const float* fh = filter_half_.empty() ? nullptr : filter_half_.data();
                    const bool inv = s.mask_invert;
                    stamp_strokes_half(s.strokes.data(), s.strokes.size(), w, h, brush_half_.data(),
                                       [&](std::size_t i) {
                                           const float m = (fh ? fh[i] : 1.0f) * brush_half_[i];
                                           mask_[i] = inv ? 1.0f - m : m;
                                       });
                }
                mask_filters_ = s.filters;
                mask_strokes_ = s.strokes;
                mask_invert_ = s.mask_invert;
                mask_w_ = w;
                mask_h_ = h;
            }
            std::complex<float>* half = fft_.half();
            const std::size_t count = mask_.size();
            const float* m = mask_.data();
            for (std::size_t i = 0; i < count; ++i) half[i] *= m[i];
            half_ok_ = false;  // readouts come from data_, the unmasked spectrum
            f.timings.push_back({"mask (" + mask_summary(s.filters, s.strokes, s.mask_invert) + ")", ms_since(t0),
                                 double(count) * 20.0});
        }
        f.picture = o.picture;
        if (slot_picture && device_kept_) {
            f.gl_texture = device_->picture_to_slot(s.view, o.picture_slot, o.gl_slot_wait, &f.gl_ready, &f.range_lo,
                                                    &f.range_hi, f.timings);
            f.picture_slot = o.picture_slot;
        } else if (want_rgba && device_kept_) {
            void* out = nullptr;
            if (o.picture == PictureFormat::Rgba8) {
                f.rgba.resize(std::size_t(w) * h);
                out = f.rgba.data();
            } else {
                f.levels.resize(std::size_t(w) * h * std::size_t(level_bytes(o.picture)));
                out = f.levels.data();
            }
            device_->picture(s.view, o.picture, out, &f.range_lo, &f.range_hi, f.timings);
        } else if (want_rgba) {  // not for a stack's power sum, a saved spectrum, a correlation: 14% of --average's time
            t0 = BackendClock::now();
            picture_from_half(fft_.half(), w, h, s.view, threads, f.rgba, &f.range_lo, &f.range_hi, o.picture,
                              &f.levels);
            f.timings.push_back({"view + range + colormap (" + std::to_string(threads) + " threads)", ms_since(t0),
                                 double(w) * h * 12.0});
        }
        if (o.want_inverse) {
            t0 = BackendClock::now();
            fft_.inverse(f.inverse);
            half_ok_ = false;
            f.timings.push_back({"FFTW c2r 2D (inverse)", ms_since(t0), double(w) * h * 8.0});
        }
        width_ = f.width;
        height_ = f.height;
        for (std::size_t i = first; i < f.timings.size(); ++i) f.total_ms += f.timings[i].ms;
        return f;
    }

    // Classroom mode: the staged radix-2 model's data at the stop, then the view on it.
    Frame run_staged(const PlaneContext& ctx, const Settings& s, const RunOptions& o) {
        Frame f;
        double prepare_ms = 0;
        const PreparedPlane& pp = ctx.host_plane(&prepare_ms);
        set_content(f, pp.content_x, pp.content_y, pp.content_w, pp.content_h, pp.crop_x, pp.crop_y);
        const int w = pp.plane.width, h = pp.plane.height;
        if (prepare_ms > 0) f.timings.push_back({"prepare plane (channel, window, pad) [CPU]", prepare_ms, 0.0});
        const std::size_t first = f.timings.size();
        auto t0 = BackendClock::now();
        // The previous run's data may still be shown (Frame::host_data): write into a fresh buffer then.
        spectrum_kept_ = false;  // a classroom stop's data
        half_kept_ = false;
        device_kept_ = false;
        if (data_.use_count() > 1 || !data_) data_ = std::make_shared<std::vector<std::complex<float>>>();
        if (!run_device_staged(pp.plane, s, f)) {
            StagedResult r = run_staged_2d(pp.plane, s.stop);
            *data_ = std::move(r.data);
            f.width = r.cols;
            f.height = r.rows;
            f.timings.push_back({"staged radix-2 model", ms_since(t0), 0.0});
            f.backend = "CPU (staged radix-2 model)";
        }
        // The launch shapes the GPU would use, for classroom mode's thread mapping (H100 limits).
        f.row_plans = {gpu::plan_row_fft_shape(w, h, s.custom.rows, 1024, 227 * 1024, "an H100"),
                       gpu::plan_row_fft_shape(h, w, s.custom.rows, 1024, 227 * 1024, "an H100")};
        t0 = BackendClock::now();
        compute_view_values(data_->data(), f.width, f.height, s.view, values_);
        f.timings.push_back({"view (shift + value)", ms_since(t0), double(w) * h * 12.0});
        t0 = BackendClock::now();
        compute_range(values_, s.view, &f.range_lo, &f.range_hi);
        f.timings.push_back({"range", ms_since(t0), double(w) * h * 4.0});
        t0 = BackendClock::now();
        colorize(values_, f.range_lo, f.range_hi, s.view.colormap, f.rgba);
        f.timings.push_back({"colormap -> RGBA8", ms_since(t0), double(w) * h * 8.0});
        std::vector<float>().swap(values_);
        if (o.want_spectrum) f.spectrum = *data_;
        f.host_data = data_;
        half_ok_ = false;
        width_ = f.width;
        height_ = f.height;
        for (std::size_t i = first; i < f.timings.size(); ++i) f.total_ms += f.timings[i].ms;
        return f;
    }

    // The full-size sum, its mirrored half made once here from the half-spectrum sum.
    int take_power_sum(std::vector<double>& sum, int* width, int* height) override {
        const int n = power_count_, w = power_w_, h = power_h_, hw = w / 2 + 1;
        sum.assign(n > 0 ? std::size_t(w) * h : 0, 0.0);
        for (int y = 0; n > 0 && y < h; ++y)
            for (int x = 0; x < w; ++x)
                sum[std::size_t(y) * w + x] =
                    x < hw ? power_[std::size_t(y) * hw + x] : power_[std::size_t(y == 0 ? 0 : h - y) * hw + (w - x)];
        *width = w;
        *height = h;
        power_.clear();
        power_count_ = 0;
        return n;
    }

    // |F|^2 of the half spectrum in the buffer (unmasked: before the mask), added to a half-size sum (a half bin
    // stands for its mirror too, which take_power_sum fills in): one contiguous pass a frame.
    void add_power(int w, int h) {
        if (power_count_ > 0 && (w != power_w_ || h != power_h_))
            throw gpu::ConfigError("a power sum of " + std::to_string(power_w_) + "x" + std::to_string(power_h_) +
                                   " spectra cannot take a " + std::to_string(w) + "x" + std::to_string(h) + " one");
        const std::size_t count = std::size_t(w / 2 + 1) * h;
        if (power_count_ == 0) power_.assign(count, 0.0);
        power_w_ = w;
        power_h_ = h;
        const std::complex<float>* half = fft_.half();
        double* sum = power_.data();
        for (std::size_t i = 0; i < count; ++i) sum[i] += double(std::norm(half[i]));
        ++power_count_;
    }

    // The last run's unmasked half spectrum: FFTW's buffer while nothing changed it, else the copy kept; null
    // when there is none.
    const std::complex<float>* kept_half() const {
        if (half_ok_) return fft_.half();
        return half_kept_ && kept_half_.size() == std::size_t(width_ / 2 + 1) * height_ ? kept_half_.data() : nullptr;
    }
    // Its bin (x, y) of the whole spectrum; false when none is kept.
    bool kept_bin(int x, int y, std::complex<float>* out) const {
        const std::complex<float>* H = kept_half();
        if (H) *out = half_spectrum_bin(H, width_, height_, x, y);
        return H != nullptr;
    }
    // The whole unmasked spectrum in data_ (the profiles take it whole), made from the half once a run.
    bool keep_whole() {
        if (spectrum_kept_ && data_ && data_->size() == std::size_t(width_) * height_) return true;
        if (device_kept_) {  // the spectrum on the device, read back whole once
            auto full = std::make_shared<std::vector<std::complex<float>>>(std::size_t(width_) * height_);
            device_->spectrum(full->data());
            data_ = full;
            spectrum_kept_ = true;
            return true;
        }
        const std::complex<float>* H = kept_half();
        if (!H) return false;
        auto full = std::make_shared<std::vector<std::complex<float>>>();
        expand_half_spectrum(H, width_, height_, *full);
        data_ = full;
        spectrum_kept_ = true;
        return true;
    }

    PowerProfiles power_profiles(const Settings&) override {
        if (!keep_whole() || !data_ || data_->size() != std::size_t(width_) * height_)
            throw gpu::ConfigError("no spectrum kept from the last run for the power profiles");
        const auto t0 = BackendClock::now();
        const int threads = fft_threads();
        PowerProfiles p;
        p.radial = radial_profile(data_->data(), width_, height_, threads);
        p.angular = angular_profile(data_->data(), width_, height_, threads);
        p.ms = ms_since(t0);
        p.where = "CPU (" + std::to_string(threads) + " thread" + (threads > 1 ? "s)" : ")");
        return p;
    }

    std::vector<std::complex<float>> spectrum_bins(const Settings&, const std::vector<int>& kx,
                                                   const std::vector<int>& ky) override {
        const bool whole = spectrum_kept_ && data_ && data_->size() == std::size_t(width_) * height_;
        if (!whole && !device_kept_ && !kept_half()) throw gpu::ConfigError("no spectrum kept from the last run");
        std::vector<std::complex<float>> out(kx.size());
        if (!whole && device_kept_) {  // read from the device, a bin at a time (or whole, for many)
            if (kx.size() > 4096 && keep_whole()) return spectrum_bins(Settings{}, kx, ky);
            device_->bins(kx.data(), ky.data(), kx.size(), out.data());
            return out;
        }
        for (std::size_t i = 0; i < kx.size(); ++i) {
            if (kx[i] < 0 || ky[i] < 0 || kx[i] >= width_ || ky[i] >= height_)
                throw gpu::ConfigError("bin outside the spectrum");
            if (whole)
                out[i] = (*data_)[std::size_t(ky[i]) * width_ + kx[i]];
            else
                kept_bin(kx[i], ky[i], &out[i]);
        }
        return out;
    }

    std::complex<double> read_value(const Settings&, int x, int y) override {
        if (x < 0 || y < 0 || x >= width_ || y >= height_)
            throw gpu::ConfigError("no value at (" + std::to_string(x) + ", " + std::to_string(y) + ")");
        // A classroom stop's data (or the whole spectrum made for the profiles), else the half spectrum kept.
        if (data_ && data_->size() == std::size_t(width_) * height_) return (*data_)[std::size_t(y) * width_ + x];
        std::complex<float> v;
        if (device_kept_) {
            device_->bins(&x, &y, 1, &v);
            return v;
        }
        if (kept_bin(x, y, &v)) return v;
        throw gpu::ConfigError("no value at (" + std::to_string(x) + ", " + std::to_string(y) + ")");
    }

private:
    // The device's transform instead of FFTW's (make_opencl_backend, make_gl_backend): the plane in FFTW's buffer goes
    // up, the full spectrum comes back and its half is written where FFTW's r2c would leave it, so everything after
    // is the CPU backend's.
    std::unique_ptr<DeviceFft> device_;
    std::vector<std::complex<float>> device_full_;
    void check_device(const Settings& s, int w, int h) const {
        if (!device_) return;
        const std::string why = device_->check(w, h, s);
        if (!why.empty()) throw gpu::ConfigError(why);
    }
    // The device's context and program build, once, in the first run's timings (not in its total).
    void report_device_setup(Frame& f) {
        if (!device_ || device_->setup_ms <= 0) return;
        f.timings.push_back({device_->short_name() + " context + program build (once) [host]", device_->setup_ms, 0.0});
        device_->setup_ms = 0;
    }
    // `keep`: the spectrum stays on the device (device_kept_) for its picture; nothing comes back to FFTW's buffer.
    // `recipe`: the device makes the plane from the image's samples (FFTW's buffer holds nothing).
    bool run_device(const Settings& s, int w, int h, Frame& f, bool keep, const gpu::PlaneRecipe* recipe) {
        if (!device_) return false;
        if (recipe) {
            device_->forward_recipe(*recipe, s, f.timings);
            device_kept_ = true;
            f.backend = device_->name();
            return true;
        }
        // The plane goes up from FFTW's buffer as it lies (rows fft_.stride() floats apart): no copy of it here.
        const int st = int(fft_.stride());
        const std::size_t hw = std::size_t(w / 2 + 1);
        const float* buffer = reinterpret_cast<const float*>(fft_.half());
        if (keep) {
            device_->forward(buffer, st, w, h, s, nullptr, f.timings);
            device_kept_ = true;
            f.backend = device_->name();
            return true;
        }
        device_full_.resize(std::size_t(w) * h);
        device_->forward(buffer, st, w, h, s, device_full_.data(), f.timings);
        std::complex<float>* half = fft_.half();
        for (int y = 0; y < h; ++y)
            std::memcpy(half + std::size_t(y) * hw, device_full_.data() + std::size_t(y) * w,
                        sizeof(std::complex<float>) * hw);
        f.backend = device_->name();
        return true;
    }
    // Classroom on the device: its own kernels stopped at the stop (the same data as the model's).
    bool run_device_staged(const Plane& plane, const Settings& s, Frame& f) {
        if (!device_) return false;
        check_device(s, plane.width, plane.height);
        int rows = 0, cols = 0;
        device_->forward_until(plane, s, *data_, &rows, &cols, f.timings);
        f.width = cols;
        f.height = rows;
        f.backend = device_->name() + ", stopped for the classroom";
        return true;
    }
    CpuFft fft_;
    std::shared_ptr<std::vector<std::complex<float>>> data_;
    std::vector<float> values_;
    bool half_ok_ = false;        // fft_ holds the last run's half spectrum
    bool device_kept_ = false;    // the device (device_) holds the last run's spectrum, whole, unmasked
    bool spectrum_kept_ = false;  // data_ is the last run's whole unmasked spectrum
    std::vector<std::complex<float>>
        kept_half_;  // the last run's unmasked half spectrum, when a mask or inverse followed
    bool half_kept_ = false;
    std::vector<float> mask_;  // over the half spectrum, for mask_filters_ at mask_w_ x mask_h_
    std::vector<FilterSpec> mask_filters_, filter_half_key_;
    std::vector<BrushStroke> mask_strokes_;
    bool mask_invert_ = false;
    std::vector<float> filter_half_;  // the filters' part of mask_
    std::vector<float> brush_half_;   // the brush dabs' layer over the half spectrum (1 keeps, 0 removes)
    std::vector<double> power_;       // RunOptions::accumulate_power's sum, power_w_ x power_h_, unshifted
    int power_count_ = 0, power_w_ = 0, power_h_ = 0;
    int mask_w_ = 0, mask_h_ = 0;
    int width_ = 0, height_ = 0;
};
}  // namespace

std::unique_ptr<SpectrumBackend> make_cpu_backend() { return std::make_unique<CpuSpectrumBackend>(); }

std::unique_ptr<SpectrumBackend> make_opencl_backend(int platform, int device) {
#ifdef SPECVIEW_HAS_OPENCL
    const auto t0 = BackendClock::now();
    auto fft = std::make_unique<OpenClDeviceFft>("OpenCL", platform, device);
    fft->setup_ms = ms_since(t0);
    return std::make_unique<CpuSpectrumBackend>(std::move(fft));
#else
    (void)platform;
    (void)device;
    throw gpu::GpuUnavailable("this specview was built without OpenCL (ocl-icd-opencl-dev and opencl-c-headers)");
#endif
}

std::unique_ptr<SpectrumBackend> make_gl_backend(std::shared_ptr<gpu::GlSharedContext> shared) {
#ifdef SPECVIEW_HAS_GLSL
    const auto t0 = BackendClock::now();
    auto fft = shared ? std::make_unique<GlDeviceFft>("GL", std::move(shared)) : std::make_unique<GlDeviceFft>("GL");
    fft->setup_ms = ms_since(t0);
    return std::make_unique<CpuSpectrumBackend>(std::move(fft));
#else
    (void)shared;
    throw gpu::GpuUnavailable("this specview was built without OpenGL compute (libegl-dev and libgl-dev)");
#endif
}

}  // namespace specview
