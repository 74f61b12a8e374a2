#include "app/cpu_backend.h"

#include "app/backend.h"
#include "app/staged_fft.h"
#include "gpu/errors.h"
#include "gpu/config.h"

#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <atomic>
#include <cfloat>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace specview {

struct CpuFft::Impl {
    int w = 0, h = 0, threads = 0;
    fftwf_plan plan = nullptr;
    float* in = nullptr;
    fftwf_complex* out = nullptr;

    void reset() {
        if (plan) fftwf_destroy_plan(plan);
        if (in) fftwf_free(in);
        if (out) fftwf_free(out);
        plan = nullptr;
        in = nullptr;
        out = nullptr;
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
    const int w = p.width, h = p.height, hw = w / 2 + 1;
    Impl& m = *impl_;
    if (m.w != w || m.h != h || m.threads != fft_threads()) make_plan(w, h);
    std::memcpy(m.in, p.v.data(), sizeof(float) * p.v.size());
    fftwf_execute(m.plan);
    finish(out, w, h, hw);
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
        m.in = fftwf_alloc_real(std::size_t(w) * h);
        m.out = fftwf_alloc_complex(std::size_t(hw) * h);
        if (!m.in || !m.out) {
            m.reset();
            throw std::bad_alloc();
        }
        m.plan = fftwf_plan_dft_r2c_2d(h, w, m.in, m.out, FFTW_ESTIMATE);
        if (!m.plan) {
            m.reset();
            throw std::runtime_error("FFTW could not plan a " + std::to_string(w) + "x" + std::to_string(h) + " transform");
        }
        m.w = w;
        m.h = h;
    }
}

void CpuFft::finish(std::vector<std::complex<float>>& out, int w, int h, int hw) {
    Impl& m = *impl_;
    out.resize(std::size_t(w) * h);
    for (int y = 0; y < h; ++y) {
        const fftwf_complex* row = m.out + std::size_t(y) * hw;
        std::complex<float>* dst = out.data() + std::size_t(y) * w;
        for (int x = 0; x < hw; ++x) dst[x] = {row[x][0], row[x][1]};
        // The other half: F[y][x] = conj(F[-y][-x]).
        const fftwf_complex* mirror = m.out + std::size_t(y == 0 ? 0 : h - y) * hw;
        for (int x = hw; x < w; ++x) dst[x] = {mirror[w - x][0], -mirror[w - x][1]};
    }
}

void compute_view_values(const std::complex<float>* F, int w, int h, const ViewParams& vp, std::vector<float>& values) {
    values.resize(std::size_t(w) * h);
    for (int y = 0; y < h; ++y) {
        const int sy = vp.shift ? shift_source(y, h) : y;
        for (int x = 0; x < w; ++x) {
            const int sx = vp.shift ? shift_source(x, w) : x;
            const std::complex<float> f = F[std::size_t(sy) * w + sx];
            values[std::size_t(y) * w + x] = view_value(vp.view, f.real(), f.imag());
        }
    }
}

void compute_range(const std::vector<float>& values, const ViewParams& vp, float* lo, float* hi) {
    switch (vp.range) {
        case RangeMode::Auto:
        case RangeMode::Top: {
            float mn = FLT_MAX, mx = -FLT_MAX;
            for (float v : values) {
                mn = std::min(mn, v);
                mx = std::max(mx, v);
            }
            if (vp.range == RangeMode::Auto) {
                *lo = mn;
                *hi = mx;
            } else {
                *lo = mx - vp.top_span;
                *hi = mx;
            }
            return;
        }
        case RangeMode::Percentile: {
            std::vector<float> s(values);
            const long long n = (long long)s.size();
            const long long il = percentile_index(vp.pct_lo, n), ih = percentile_index(vp.pct_hi, n);
            std::nth_element(s.begin(), s.begin() + il, s.end());
            *lo = s[il];
            std::nth_element(s.begin(), s.begin() + ih, s.end());
            *hi = s[ih];
            return;
        }
        case RangeMode::Fixed:
            *lo = vp.fixed_lo;
            *hi = vp.fixed_hi;
            return;
    }
}

void colorize(const std::vector<float>& values, float lo, float hi, Colormap cm, std::vector<std::uint32_t>& rgba) {
    const ColormapLut lut = make_colormap_lut(cm);
    rgba.resize(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) rgba[i] = lut.rgba[level_of(normalize_to_range(values[i], lo, hi))];
}

// ---- The CPU backend behind SpectrumBackend: FFTW (or the staged radix-2 model at classroom stops) ----

namespace {
using BackendClock = std::chrono::steady_clock;
double ms_since(BackendClock::time_point t0) {
    return std::chrono::duration<double, std::milli>(BackendClock::now() - t0).count();
}

class CpuSpectrumBackend : public SpectrumBackend {
public:
    double plan(const PlaneContext& ctx, const Settings& s) override {
        if (s.stop.kind != gpu::StopPoint::Kind::Done) return 0.0;  // the staged model plans nothing
        int w = 0, h = 0;
        transform_size(s.pad, ctx.image->width, ctx.image->height, &w, &h);
        return fft_.plan(w, h);
    }

    Frame run(const PlaneContext& ctx, const Settings& s, const RunOptions& o) override {
        Frame f;
        double prepare_ms = 0;
        const PreparedPlane& pp = ctx.host_plane(&prepare_ms);
        f.content_x = pp.content_x;
        f.content_y = pp.content_y;
        f.content_w = pp.content_w;
        f.content_h = pp.content_h;
        f.crop_x = pp.crop_x;
        f.crop_y = pp.crop_y;
        const int w = pp.plane.width, h = pp.plane.height;
        if (prepare_ms > 0) f.timings.push_back({"prepare plane (channel, window, pad) [CPU]", prepare_ms, 0.0});
        const std::size_t first = f.timings.size();
        f.width = w;
        f.height = h;
        auto t0 = BackendClock::now();
        // The previous run's data may still be shown (Frame::host_data): write into a fresh buffer then.
        if (data_.use_count() > 1 || !data_) data_ = std::make_shared<std::vector<std::complex<float>>>();
        if (s.stop.kind != gpu::StopPoint::Kind::Done) {
            StagedResult r = run_staged_2d(pp.plane, s.stop);
            *data_ = std::move(r.data);
            f.width = r.cols;
            f.height = r.rows;
            f.timings.push_back({"staged radix-2 model", ms_since(t0), 0.0});
            f.backend = "CPU (staged radix-2 model)";
            // The launch shapes the GPU would use, for classroom mode's thread mapping (H100 limits).
            f.row_plans = {gpu::plan_row_fft_shape(w, h, s.custom.rows, 1024, 227 * 1024, "an H100"),
                           gpu::plan_row_fft_shape(h, w, s.custom.rows, 1024, 227 * 1024, "an H100")};
        } else {
            fft_.forward(pp.plane, *data_);
            f.timings.push_back({"FFTW r2c 2D + Hermitian fill", ms_since(t0), double(w) * h * 12.0});
            f.backend = "CPU (FFTW)";
        }
        t0 = BackendClock::now();
        compute_view_values(data_->data(), f.width, f.height, s.view, values_);
        f.timings.push_back({"view (shift + value)", ms_since(t0), double(w) * h * 12.0});
        t0 = BackendClock::now();
        compute_range(values_, s.view, &f.range_lo, &f.range_hi);
        f.timings.push_back({"range", ms_since(t0), double(w) * h * 4.0});
        t0 = BackendClock::now();
        colorize(values_, f.range_lo, f.range_hi, s.view.colormap, f.rgba);
        f.timings.push_back({"colormap -> RGBA8", ms_since(t0), double(w) * h * 8.0});
        if (o.want_spectrum) f.spectrum = *data_;
        f.host_data = data_;
        width_ = f.width;
        height_ = f.height;
        for (std::size_t i = first; i < f.timings.size(); ++i) f.total_ms += f.timings[i].ms;
        return f;
    }

    std::complex<double> read_value(const Settings&, int x, int y) override {
        if (!data_ || x < 0 || y < 0 || x >= width_ || y >= height_ || data_->size() != std::size_t(width_) * height_)
            throw gpu::ConfigError("no value at (" + std::to_string(x) + ", " + std::to_string(y) + ")");
        return (*data_)[std::size_t(y) * width_ + x];
    }

private:
    CpuFft fft_;
    std::shared_ptr<std::vector<std::complex<float>>> data_;
    std::vector<float> values_;
    int width_ = 0, height_ = 0;
};
}  // namespace

std::unique_ptr<SpectrumBackend> make_cpu_backend() { return std::make_unique<CpuSpectrumBackend>(); }

}  // namespace specview
