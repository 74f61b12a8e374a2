#include "app/cpu_backend.h"

#include <fftw3.h>

#include <algorithm>
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

void CpuFft::forward(const Plane& p, std::vector<std::complex<float>>& out) {
    const int w = p.width, h = p.height, hw = w / 2 + 1;
    Impl& m = *impl_;
    if (m.w != w || m.h != h || m.threads != fft_threads()) {
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
    std::memcpy(m.in, p.v.data(), sizeof(float) * p.v.size());
    fftwf_execute(m.plan);
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

}  // namespace specview
