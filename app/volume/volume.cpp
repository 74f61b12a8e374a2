#include "app/volume/volume.h"

#include <fftw3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "app/core/parallel_bands.h"
#include "app/core/calibration.h"
#include "app/core/huge_pages.h"
#include "app/core/plane.h"
#include "app/engine/cpu_backend.h"
#include "gpu/common/spectrum_math.h"
#include "gpu/common/volume_math.h"

namespace specview {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double fftfreq(int k, int n) { return volume_fftfreq(k, n); }
int source(int i, int n, bool shift) { return volume_source(i, n, shift); }

constexpr int kSphereTable = kVolumeSphereTable;
}  // namespace

VolumeGeometry volume_geometry(PadMode pad, int w, int h, int d) {
    VolumeGeometry g;
    auto axis = [pad](int n) {
        switch (pad) {
            case PadMode::Pow2:
            case PadMode::Square:
                return next_pow2(n);
            case PadMode::Crop:
                return prev_pow2(n);
            case PadMode::None:
                return n;
        }
        return n;
    };
    g.width = axis(w);
    g.height = axis(h);
    g.depth = axis(d);
    if (pad == PadMode::Square) g.width = g.height = g.depth = std::max({g.width, g.height, g.depth});
    g.content_w = std::min(g.width, w);
    g.content_h = std::min(g.height, h);
    g.content_d = std::min(g.depth, d);
    if (pad == PadMode::Crop) {
        g.crop_x = (w - g.content_w) / 2;
        g.crop_y = (h - g.content_h) / 2;
        g.crop_z = (d - g.content_d) / 2;
    }
    return g;
}

struct VolumeSpectrum::Impl {
    Settings s;
    int threads = 1;
    int frame_w = 0, frame_h = 0;
    float* in = nullptr;
    fftwf_plan plan = nullptr;
    std::size_t stride = 0;  // floats a row: 2 (W/2 + 1)
    // Per content frame: the sum of its values, and of (x - xc) v and (y - yc) v (levelling).
    std::vector<double> sum, sum_x, sum_y;
    std::vector<char> added;
    // Whether `in` holds the half spectrum (false while only the device holds it: VolumeSpectrum::attach_device).
    std::atomic<bool> host_ok{true};
    std::mutex host_mu;
    std::shared_ptr<VolumeInput> input;  // the frames' device (begin's), or none: the host buffer
    void allocate(const VolumeGeometry& g);  // the host buffer and FFTW's plan
    ~Impl() { reset(); }
    void reset() {
        auto lock = lock_fftw_planner();
        if (plan) fftwf_destroy_plan(plan);
        if (in) fftwf_free(in);
        plan = nullptr;
        in = nullptr;
    }
    float* row(int y, int z) { return in + (std::size_t(z) * std::size_t(rows_h) + std::size_t(y)) * stride; }
    int rows_h = 0;
};

VolumeSpectrum::VolumeSpectrum() : impl_(new Impl) {}
VolumeSpectrum::~VolumeSpectrum() = default;

void VolumeSpectrum::begin(const Settings& s, int w, int h, int d, int threads, std::shared_ptr<VolumeInput> input) {
    if (w < 1 || h < 1 || d < 1) throw std::invalid_argument("a volume needs at least one voxel");
    Impl& m = *impl_;
    device_.reset();  // (its buffer is about to hold the next transform)
    m.host_ok = true;
    const VolumeGeometry was = g_;
    const int was_threads = m.threads;
    m.s = s;
    m.threads = threads > 0 ? threads : cpu_fft_threads();
    m.frame_w = w;
    m.frame_h = h;
    g_ = volume_geometry(s.pad, w, h, d);
    // Begun again at the same size (the viewer's volume under another window or level): the buffer and plan stay,
    // their pages already there (a 512^3 buffer's first touch is ~130,000 page faults).
    const bool keep = m.in && m.plan && was.width == g_.width && was.height == g_.height && was.depth == g_.depth &&
                      was_threads == m.threads;
    if (!keep) m.reset();
    m.rows_h = g_.height;
    m.stride = 2 * (std::size_t(g_.width) / 2 + 1);
    m.sum.assign(std::size_t(g_.content_d), 0.0);
    m.sum_x.assign(std::size_t(g_.content_d), 0.0);
    m.sum_y.assign(std::size_t(g_.content_d), 0.0);
    m.added.assign(std::size_t(g_.content_d), 0);
    m.input = std::move(input);
    if (m.input) {  // the frames go to the device; the host buffer only when the spectrum is needed here
        m.input->begin(g_);
        return;
    }
    if (keep) return;
    m.allocate(g_);
}

void VolumeSpectrum::Impl::allocate(const VolumeGeometry& g) {
    Impl& m = *this;
    const std::size_t floats = m.stride * std::size_t(g.height) * std::size_t(g.depth);
    auto lock = lock_fftw_planner();
    m.in = fftwf_alloc_real(floats);
    if (!m.in) throw std::bad_alloc();
    advise_huge_pages(m.in, floats * sizeof(float));
    fftwf_plan_with_nthreads(m.threads);
    // Estimated: a volume is planned once a run, and measuring a 256^3 plan takes longer than the transform.
    m.plan = fftwf_plan_dft_r2c_3d(g.depth, g.height, g.width, m.in, reinterpret_cast<fftwf_complex*>(m.in),
                                   FFTW_ESTIMATE);
    if (!m.plan) {
        fftwf_free(m.in);
        m.in = nullptr;
        throw std::runtime_error("FFTW could not plan a " + std::to_string(g.width) + "x" +
                                 std::to_string(g.height) + "x" + std::to_string(g.depth) + " transform");
    }
}

void VolumeSpectrum::add_frame(const Image& frame, int k, const std::string& name) {
    add_frame_rows(frame, k, name, impl_->threads);
}

void VolumeSpectrum::add_frames(const std::vector<Image>& frames, const std::string& name) {
    for (std::size_t k = 0; k < frames.size(); ++k) check_frame(frames[k], int(k), name);  // (throws here, not on a thread)
    if (impl_->input) {  // one device stream: the frames in turn
        for (std::size_t k = 0; k < frames.size(); ++k) add_frame_rows(frames[k], int(k), name, 1);
        return;
    }
    parallel_bands(int(frames.size()), impl_->threads, [&](int k0, int k1, int) {
        for (int k = k0; k < k1; ++k) add_frame_rows(frames[std::size_t(k)], k, name, 1);
    }, 1);
}

void VolumeSpectrum::check_frame(const Image& frame, int k, const std::string& name) const {
    const Impl& m = *impl_;
    if (frame.width != m.frame_w || frame.height != m.frame_h)
        throw InputError(name, "frame " + std::to_string(k + 1) + " is " + std::to_string(frame.width) + "x" +
                                   std::to_string(frame.height) + ", the first " + std::to_string(m.frame_w) + "x" +
                                   std::to_string(m.frame_h) + ": a volume's frames must have one size");
    require_host_samples(frame, name);
}

void VolumeSpectrum::add_frame_rows(const Image& frame, int k, const std::string& name, int threads) {
    Impl& m = *impl_;
    check_frame(frame, k, name);
    const int z = k - g_.crop_z;
    if (z < 0 || z >= g_.content_d) return;  // outside the centred crop
    if (m.input) {
        check_channel(frame, m.s.channel, name);
        m.input->frame(frame, int(m.s.channel), z);
        m.added[std::size_t(z)] = 1;
        return;
    }
    const int cw = g_.content_w, ch = g_.content_h;
    const double xc = (cw - 1) / 2.0, yc = (ch - 1) / 2.0;
    std::vector<double> s(static_cast<std::size_t>(ch)), sx(static_cast<std::size_t>(ch));
    // Bands of at least 256 Ki samples: a frame as it is decoded starts threads of its own, and for a 256^2 or 512^2
    // frame their start cost more than the work they shared (a 256^3 stack through the CLI: 145 -> 132 ms, medians
    // of 10 on 2 cores).
    parallel_bands(ch, threads, [&](int y0, int y1, int) {
        for (int y = y0; y < y1; ++y) {
            float* r = m.row(y, z);
            channel_values(frame, m.s.channel, y + g_.crop_y, g_.crop_x, cw, r, name);
            volume_row_sums(r, cw, xc, &s[std::size_t(y)], &sx[std::size_t(y)]);
        }
    }, std::max(64, (1 << 18) / std::max(1, cw)));
    double a = 0, b = 0, c = 0;
    for (int y = 0; y < ch; ++y) {  // in row order: the same sums however many threads
        a += s[std::size_t(y)];
        b += sx[std::size_t(y)];
        c += (y - yc) * s[std::size_t(y)];
    }
    m.sum[std::size_t(z)] = a;
    m.sum_x[std::size_t(z)] = b;
    m.sum_y[std::size_t(z)] = c;
    m.added[std::size_t(z)] = 1;
}

void VolumeSpectrum::transform(double* shape_ms, double* fft_ms, const Fft3d& fft) {
    Impl& m = *impl_;
    if (!m.plan && !m.input) throw std::logic_error("VolumeSpectrum::transform before begin");
    for (int z = 0; z < g_.content_d; ++z)
        if (!m.added[std::size_t(z)]) throw std::logic_error("a volume frame was never added");
    auto t0 = Clock::now();
    if (m.input) m.input->sums(m.sum.data(), m.sum_x.data(), m.sum_y.data());  // (the frames' device adds them)
    const Settings& s = m.s;
    const int W = g_.width, H = g_.height, D = g_.depth, cw = g_.content_w, ch = g_.content_h, cd = g_.content_d;
    const bool padded = W > cw || H > ch || D > cd;
    // Levelling over the whole content (centred coordinates are orthogonal over the grid: each slope on its own); a
    // window with mean padding subtracts the mean first (as in 2D: effective_level).
    Level level = s.level;
    if (level == Level::None && s.pad_fill == PadFill::Mean && s.window != Window::None && padded) level = Level::Mean;
    const double xc = (cw - 1) / 2.0, yc = (ch - 1) / 2.0, zc = (cd - 1) / 2.0;
    double S = 0, Sx = 0, Sy = 0, Sz = 0;
    for (int z = 0; z < cd; ++z) {
        S += m.sum[std::size_t(z)];
        Sx += m.sum_x[std::size_t(z)];
        Sy += m.sum_y[std::size_t(z)];
        Sz += (z - zc) * m.sum[std::size_t(z)];
    }
    auto sq = [](int n, double c) {
        double t = 0;
        for (int i = 0; i < n; ++i) t += (i - c) * (i - c);
        return t;
    };
    const double voxels = double(cw) * ch * cd;
    double a = 0, bx = 0, by = 0, bz = 0;
    if (level != Level::None) a = S / voxels;
    if (level == Level::Plane) {
        const double dxx = sq(cw, xc), dyy = sq(ch, yc), dzz = sq(cd, zc);
        bx = dxx > 0 ? Sx / (dxx * ch * cd) : 0.0;
        by = dyy > 0 ? Sy / (dyy * cw * cd) : 0.0;
        bz = dzz > 0 ? Sz / (dzz * cw * ch) : 0.0;
    }
    // The window: per axis, or over the inscribed ellipsoid (a table of w from the edge to the centre).
    const bool radial = s.window_shape == WindowShape::Radial && s.window != Window::None;
    std::vector<double> wx(std::size_t(cw), 1.0), wy(std::size_t(ch), 1.0), wz(std::size_t(cd), 1.0), table;
    if (radial) {
        table.resize(kSphereTable);
        for (int k = 0; k < kSphereTable; ++k)
            table[std::size_t(k)] = window_at(s.window, 0.5 * k / double(kSphereTable - 1), s.tukey_alpha, s.kaiser_beta);
    } else {
        for (int i = 0; i < cw; ++i) wx[std::size_t(i)] = window_value(s.window, i, cw, s.tukey_alpha, s.kaiser_beta);
        for (int i = 0; i < ch; ++i) wy[std::size_t(i)] = window_value(s.window, i, ch, s.tukey_alpha, s.kaiser_beta);
        for (int i = 0; i < cd; ++i) wz[std::size_t(i)] = window_value(s.window, i, cd, s.tukey_alpha, s.kaiser_beta);
    }
    const double hx = xc > 0 ? xc : 1.0, hy = yc > 0 ? yc : 1.0, hz = zc > 0 ? zc : 1.0;
    if (m.input) {  // the device shapes and transforms what it holds; the spectrum stays there
        VolumeInput::Shape sh;
        sh.a = a, sh.bx = bx, sh.by = by, sh.bz = bz, sh.radial = radial;
        if (radial) {
            sh.table = table;
        } else {
            sh.wx = wx, sh.wy = wy, sh.wz = wz;
        }
        sh.fill_mean = s.pad_fill == PadFill::Mean && level == s.level && padded;
        double frames = 0, shaped = 0, fft_time = 0;
        std::shared_ptr<VolumeInput> input = std::move(m.input);  // (used up: the next volume begins again)
        attach_device(input->shape_and_transform(sh, &frames, &shaped, &fft_time));
        if (shape_ms) *shape_ms = ms_since(t0) - fft_time;
        if (fft_ms) *fft_ms = fft_time;
        return;
    }
    // Shaped content rows (each (y, z) row on one thread), their sums kept for a mean fill.
    std::vector<double> row_sum(std::size_t(ch) * cd, 0.0);
    parallel_bands(ch * cd, m.threads, [&](int r0, int r1, int) {
        for (int r = r0; r < r1; ++r) {
            const int y = r % ch, z = r / ch;
            float* row = m.row(y, z);
            const double base = a + by * (y - yc) + bz * (z - zc);
            double sum = 0;
            if (radial) {
                const double ry = (y - yc) / hy, rz = (z - zc) / hz;
                for (int x = 0; x < cw; ++x) {
                    const float v = volume_shaped_radial(row[x], base, bx, x, xc, hx, ry, rz, table.data());
                    row[x] = v;
                    sum += v;
                }
            } else {
                const double wyz = wy[std::size_t(y)] * wz[std::size_t(z)];
                for (int x = 0; x < cw; ++x) {
                    const float v = volume_shaped(row[x], base, bx, x, xc, wx[std::size_t(x)], wyz);
                    row[x] = v;
                    sum += v;
                }
            }
            row_sum[std::size_t(r)] = sum;
        }
    });
    float fill = 0.0f;
    if (s.pad_fill == PadFill::Mean && level == s.level && padded) {
        double t = 0;
        for (double r : row_sum) t += r;
        fill = float(t / voxels);
    }
    parallel_bands(H * D, m.threads, [&](int r0, int r1, int) {
        for (int r = r0; r < r1; ++r) {
            const int y = r % H, z = r / H;
            float* row = m.row(y, z);
            const int from = (y < ch && z < cd) ? cw : 0;
            std::fill(row + from, row + W, fill);
        }
    });
    if (shape_ms) *shape_ms = ms_since(t0);
    t0 = Clock::now();
    if (fft)
        fft(m.in);
    else
        fftwf_execute(m.plan);
    if (fft_ms) *fft_ms = ms_since(t0);
}

void VolumeSpectrum::attach_device(std::shared_ptr<VolumeDevice> device) {
    device_ = std::move(device);
    impl_->host_ok = device_ == nullptr;
}

const std::complex<float>* VolumeSpectrum::half() const {
    Impl& m = *impl_;
    if (device_ && !m.host_ok.load(std::memory_order_acquire)) {  // (callers on several threads: one download)
        std::lock_guard<std::mutex> lock(m.host_mu);
        if (!m.host_ok.load(std::memory_order_relaxed)) {
            if (!m.in) m.allocate(g_);  // (the frames went to the device: no host buffer until now)
            device_->download_half(reinterpret_cast<std::complex<float>*>(m.in));
            m.host_ok.store(true, std::memory_order_release);
        }
    }
    return reinterpret_cast<const std::complex<float>*>(m.in);
}

std::complex<float> VolumeSpectrum::at(int x, int y, int z) const {
    const std::complex<float>* F = half();
    bool conj = false;
    const std::size_t i = volume_half_index(x, y, z, g_.width, g_.height, g_.depth,
                                            std::size_t(g_.width / 2 + 1), &conj);
    return conj ? std::conj(F[i]) : F[i];
}

void VolumeSpectrum::full_plane(int z, std::complex<float>* out) const {
    for (int y = 0; y < g_.height; ++y)
        for (int x = 0; x < g_.width; ++x) out[std::size_t(y) * g_.width + x] = at(x, y, z);
}

namespace {
int fixed_index(int index, int n, VolumeAxis a) {
    if (index < -(n / 2) || index > (n - 1) / 2)
        throw std::invalid_argument(std::string("--slice ") + axis_name(a) + ":" + std::to_string(index) +
                                    ": the spectrum's " + axis_name(a) + " frequencies run from " +
                                    std::to_string(-(n / 2)) + " to " + std::to_string((n - 1) / 2));
    return (index % n + n) % n;
}
}  // namespace

std::vector<float> VolumeSpectrum::slice_values(VolumeAxis axis, int index, const ViewParams& vp, int* width,
                                                int* height, std::vector<std::complex<float>>* bins) const {
    const int W = g_.width, H = g_.height, D = g_.depth;
    const bool sh = vp.shift;
    const int n = axis == VolumeAxis::Z ? D : axis == VolumeAxis::Y ? H : W;
    const int k = fixed_index(index, n, axis);
    // (row, column) of the picture -> bin (x, y, z): z -> (y, x), y -> (z, x), x -> (z, y)
    const int rows = axis == VolumeAxis::Z ? H : D, cols = axis == VolumeAxis::X ? H : W;
    *width = cols, *height = rows;
    if (device_) return device_->slice(axis, k, vp.view, sh, rows, cols, bins);
    half();  // (here, not on the threads)
    std::vector<float> v(std::size_t(rows) * cols);
    if (bins) bins->resize(v.size());
    // Rows over the threads: a slice of a 512^3 volume is a quarter of a million logarithms, and moving a slice in
    // the viewer waits for it.
    parallel_bands(rows, impl_->threads, [&](int r0, int r1, int) {
        for (int i = r0; i < r1; ++i) {
            const int a = source(i, rows, sh);
            for (int j = 0; j < cols; ++j) {
                int x = 0, y = 0, z = 0;
                volume_slice_bin(axis_number(axis), k, a, source(j, cols, sh), &x, &y, &z);
                const std::complex<float> c = at(x, y, z);
                v[std::size_t(i) * cols + j] = view_value(vp.view, c.real(), c.imag());
                if (bins) (*bins)[std::size_t(i) * cols + j] = c;
            }
        }
    }, 16);
    return v;
}

namespace {
// A lattice through DC over the half spectrum FFTW keeps (its other half mirrors it: the same values), every step-th
// bin along each axis, at most max_samples of them.
struct Lattice {
    int step, nx, ny, nz;
};
Lattice lattice_of(const VolumeGeometry& g, std::size_t max_samples) {
    const int hw = g.width / 2 + 1;
    const double half_bins = double(hw) * g.height * g.depth;
    const int step = std::max(1, int(std::ceil(std::cbrt(half_bins / double(std::max<std::size_t>(max_samples, 1))))));
    return {step, (hw + step - 1) / step, (g.height + step - 1) / step, (g.depth + step - 1) / step};
}
}  // namespace

void VolumeSpectrum::display_range(const ViewParams& vp, float* lo, float* hi, std::size_t max_samples) const {
    if (!device_) return compute_range(sample_values(vp, max_samples), vp, lo, hi);
    const Lattice l = lattice_of(g_, max_samples);
    device_->sample_range(vp, l.step, l.nx, l.ny, l.nz, l.step > 1, lo, hi);
}

std::vector<float> VolumeSpectrum::sample_values(const ViewParams& vp, std::size_t max_samples) const {
    const int H = g_.height, hw = g_.width / 2 + 1;
    // The lattice (lattice_of) ...
    const Lattice l = lattice_of(g_, max_samples);
    const int step = l.step, nx = l.nx, ny = l.ny, nz = l.nz;
    std::vector<float> v;
    if (device_) {
        v = device_->lattice(vp.view, step, nx, ny, nz);
    } else {
        v.resize(std::size_t(nx) * ny * nz);
        const std::complex<float>* F = half();
        parallel_bands(nz, impl_->threads, [&](int z0, int z1, int) {
            for (int zi = z0; zi < z1; ++zi)
                for (int yi = 0; yi < ny; ++yi)
                    for (int xi = 0; xi < nx; ++xi) {
                        const std::complex<float> c = F[(std::size_t(zi) * step * H + std::size_t(yi) * step) * hw +
                                                        std::size_t(xi) * step];
                        v[(std::size_t(zi) * ny + yi) * nx + xi] = view_value(vp.view, c.real(), c.imag());
                    }
        }, 1);
    }
    // (the mirrored half's phase and imaginary part are the negatives of these)
    if (vp.view == View::Phase || vp.view == View::Imag) {
        const std::size_t n = v.size();
        for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
    }
    // ... and, where the lattice skips bins, the three planes through DC whole (where a volume's strongest bins lie:
    // its edges' and the axes').
    if (step > 1) {
        ViewParams unshifted = vp;
        unshifted.shift = false;
        int w = 0, h = 0;
        for (VolumeAxis a : {VolumeAxis::Z, VolumeAxis::Y, VolumeAxis::X}) {
            const std::vector<float> p = slice_values(a, 0, unshifted, &w, &h);
            v.insert(v.end(), p.begin(), p.end());
        }
    }
    return v;
}

std::vector<float> VolumeSpectrum::projection_values(VolumeAxis axis, bool max, const ViewParams& vp, int* width,
                                                     int* height) const {
    const int W = g_.width, H = g_.height, D = g_.depth;
    const bool sh = vp.shift;
    // The picture's (row, column) and the axis along which it is taken, as in slice_values.
    const int rows = axis == VolumeAxis::Z ? H : D, cols = axis == VolumeAxis::X ? H : W;
    const int along = axis == VolumeAxis::Z ? D : axis == VolumeAxis::Y ? H : W;
    *width = cols;
    *height = rows;
    if (device_) return device_->projection(axis, max, vp.view, sh, rows, cols);
    half();  // (here, not on the threads)
    std::vector<float> v(std::size_t(rows) * cols);
    // Log-magnitude and power grow with |F|: the largest view value is the view of the largest |F|^2, so only that
    // is kept along the axis (no logarithm a voxel); phase, real and imaginary parts take the view of each.
    const bool by_power = !max || vp.view == View::LogMag || vp.view == View::PowerDb;
    const bool each_view = max && !by_power;
    auto power_of = [](std::complex<float> c) { return double(c.real()) * c.real() + double(c.imag()) * c.imag(); };
    // (the largest bin's own view value, as a slice through it shows it)
    auto finish = [&](double acc, std::complex<float> top) {
        return max && by_power ? view_value(vp.view, top.real(), top.imag())
               : max           ? float(acc)
                               : view_value(vp.view, float(std::sqrt(acc)), 0.0f);
    };
    parallel_bands(rows, impl_->threads, [&](int r0, int r1, int) {
        std::vector<double> acc(static_cast<std::size_t>(cols));
        std::vector<std::complex<float>> top(static_cast<std::size_t>(cols));
        for (int i = r0; i < r1; ++i) {
            const int a = source(i, rows, sh);
            std::fill(acc.begin(), acc.end(), max ? -INFINITY : 0.0);
            // The axis in the middle loop and the picture's columns innermost where those run along x in memory
            // (projections along z and y); along x, x innermost.
            if (axis == VolumeAxis::X) {
                for (int j = 0; j < cols; ++j) {
                    const int b = source(j, cols, sh);
                    double best = -INFINITY, sum = 0;
                    std::complex<float> tc;
                    for (int t = 0; t < along; ++t) {
                        const std::complex<float> c = at(t, b, a);
                        if (each_view) {
                            best = std::max(best, double(view_value(vp.view, c.real(), c.imag())));
                        } else if (max) {
                            const double p = power_of(c);
                            if (p > best) best = p, tc = c;
                        } else {
                            sum += power_of(c);
                        }
                    }
                    acc[std::size_t(j)] = max ? best : sum;
                    top[std::size_t(j)] = tc;
                }
            } else {
                for (int t = 0; t < along; ++t)
                    for (int j = 0; j < cols; ++j) {
                        const int b = source(j, cols, sh);
                        const std::complex<float> c = axis == VolumeAxis::Z ? at(b, a, t) : at(b, t, a);
                        double& x = acc[std::size_t(j)];
                        if (each_view) {
                            x = std::max(x, double(view_value(vp.view, c.real(), c.imag())));
                        } else if (max) {
                            const double p = power_of(c);
                            if (p > x) x = p, top[std::size_t(j)] = c;
                        } else {
                            x += power_of(c);
                        }
                    }
            }
            for (int j = 0; j < cols; ++j)
                v[std::size_t(i) * cols + j] = finish(acc[std::size_t(j)], top[std::size_t(j)]);
        }
    });
    return v;
}

std::vector<float> VolumeSpectrum::orthoslices(int kx, int ky, int kz, const std::string& projection,
                                               const ViewParams& vp, int label_h, int gap, int* width, int* height,
                                               std::vector<Panel>* panels) const {
    struct Part {
        VolumeAxis axis;
        int index;
        const char* plane;
        const char* fixed;
    };
    const Part parts[3] = {{VolumeAxis::Z, kz, "kx-ky", "kz"}, {VolumeAxis::Y, ky, "kx-kz", "ky"},
                           {VolumeAxis::X, kx, "ky-kz", "kx"}};
    std::vector<std::vector<float>> values(3);
    panels->assign(3, Panel{});
    int x = 0, tallest = 0;
    for (int i = 0; i < 3; ++i) {
        Panel& p = (*panels)[std::size_t(i)];
        values[std::size_t(i)] =
            projection.empty()
                ? slice_values(parts[i].axis, parts[i].index, vp, &p.width, &p.height)
                : projection_values(parts[i].axis, projection == "max", vp, &p.width, &p.height);
        p.x = x;
        p.y = label_h;
        p.label = std::string(parts[i].plane) + (projection.empty() ? ", " + std::string(parts[i].fixed) + "=" +
                                                                          std::to_string(parts[i].index)
                                                                    : ", " + projection + " over " + parts[i].fixed);
        x += p.width + (i < 2 ? gap : 0);
        tallest = std::max(tallest, p.height);
    }
    *width = x;
    *height = label_h + tallest;
    std::vector<float> out(std::size_t(*width) * *height, NAN);
    for (int i = 0; i < 3; ++i) {
        const Panel& p = (*panels)[std::size_t(i)];
        for (int r = 0; r < p.height; ++r)
            std::copy_n(values[std::size_t(i)].data() + std::size_t(r) * p.width, p.width,
                        out.data() + std::size_t(p.y + r) * *width + p.x);
    }
    return out;
}

Profile VolumeSpectrum::shell_profile(int threads, double sx, double sy, double sz) const {
    const int W = g_.width, H = g_.height, D = g_.depth, hw = W / 2 + 1;
    // Radii in bins of 1 / max(W sx, H sy, D sz) per unit (1 / max(W, H, D) cycles per voxel for cubes).
    const double m = std::max({W * sx, H * sy, D * sz});
    const int bins = int(std::ceil(0.5 * m * std::sqrt(1 / (sx * sx) + 1 / (sy * sy) + 1 / (sz * sz)))) + 2;
    const int nt = std::max(1, std::min(threads > 0 ? threads : impl_->threads, D));
    std::vector<std::vector<double>> sums(std::size_t(nt), std::vector<double>(std::size_t(bins), 0.0));
    std::vector<std::vector<long long>> counts(std::size_t(nt), std::vector<long long>(std::size_t(bins), 0));
    const double norm = 1.0 / (double(W) * H * D);
    if (device_) {
        device_->shell(sx, sy, sz, m, norm, bins, sums[0].data(), counts[0].data());
        Profile p = profile_from_sums(sums[0], counts[0], true, 1, 1);
        for (double& a : p.at) a *= sx / m;
        return p;
    }
    const std::complex<float>* F = half();
    // Per x, once: fx^2 and the weight (a half bin stands for its mirror too, except where the mirror is itself:
    // x = 0, W/2). The inner loop is then a square root and two adds a bin (it divided and called lround a bin:
    // 104 ms for a 512^3 volume on the H100 machine's 16 cores).
    std::vector<double> fx2(std::size_t(hw), 0.0);
    std::vector<int> weight(std::size_t(hw), 2);
    for (int x = 0; x < hw; ++x) {
        const double fx = fftfreq(x, W) / sx;
        fx2[std::size_t(x)] = fx * fx;
        if (x == 0 || (W % 2 == 0 && x == W / 2)) weight[std::size_t(x)] = 1;
    }
    parallel_bands(
        D, nt,
        [&](int z0, int z1, int t) {
            double* sum = sums[std::size_t(t)].data();
            long long* count = counts[std::size_t(t)].data();
            for (int z = z0; z < z1; ++z) {
                const double fz = fftfreq(z, D) / sz, fz2 = fz * fz;
                for (int y = 0; y < H; ++y) {
                    const double fy = fftfreq(y, H) / sy, fy2 = fy * fy;
                    const std::complex<float>* row = F + (std::size_t(z) * H + y) * hw;
                    for (int x = (y == 0 && z == 0) ? 1 : 0; x < hw; ++x) {  // DC left out, as the 2D profile does
                        const std::size_t i = volume_shell(fx2[std::size_t(x)], fy2, fz2, m);
                        const int wt = weight[std::size_t(x)];
                        const std::complex<float> c = row[x];
                        sum[i] += wt * (double(c.real()) * c.real() + double(c.imag()) * c.imag()) * norm;
                        count[i] += wt;
                    }
                }
            }
        },
        1);
    for (int t = 1; t < nt; ++t)
        for (int i = 0; i < bins; ++i) {
            sums[0][std::size_t(i)] += sums[std::size_t(t)][std::size_t(i)];
            counts[0][std::size_t(i)] += counts[std::size_t(t)][std::size_t(i)];
        }
    Profile p = profile_from_sums(sums[0], counts[0], true, 1, 1);  // the 2D radial profile's bins, from i = 1
    for (double& a : p.at) a *= sx / m;                                // bin i: i / m per unit, times sx per voxel
    return p;
}

std::string parse_voxel_size(const std::string& text, VoxelSize* out) {
    const std::string usage = "--voxel-size " + text + ": X:Y:Z and a unit (pm, A, nm, um, mm, cm, m, in), e.g. "
                              "0.1:0.1:0.5um, or one size for cubic voxels, e.g. 2nm";
    const std::size_t last = text.rfind(':');
    PixelSize tail;
    if (!parse_pixel_size(text.substr(last == std::string::npos ? 0 : last + 1), &tail).empty() || !tail.calibrated())
        return usage;
    VoxelSize v;
    v.unit = tail.unit;
    v.x = v.y = v.z = tail.value;
    if (last != std::string::npos) {
        double xy[2] = {0, 0};
        char dummy = 0;
        if (std::sscanf(text.substr(0, last).c_str(), "%lf:%lf%c", &xy[0], &xy[1], &dummy) != 2 || !(xy[0] > 0) ||
            !(xy[1] > 0) || !std::isfinite(xy[0]) || !std::isfinite(xy[1]))
            return usage;
        v.x = xy[0];
        v.y = xy[1];
    }
    *out = v;
    return "";
}

bool parse_volume_slice(const std::string& text, VolumeAxis* axis, int* index) {
    if (text.empty()) return false;
    const char c = text[0];
    if (c != 'x' && c != 'y' && c != 'z') return false;
    *axis = c == 'x' ? VolumeAxis::X : c == 'y' ? VolumeAxis::Y : VolumeAxis::Z;
    *index = 0;
    if (text.size() == 1) return true;
    if (text[1] != ':' || text.size() == 2) return false;
    char* end = nullptr;
    const long v = std::strtol(text.c_str() + 2, &end, 10);
    if (*end != '\0' || v < -(1L << 30) || v > (1L << 30)) return false;
    *index = int(v);
    return true;
}

const char* axis_name(VolumeAxis a) { return a == VolumeAxis::X ? "x" : a == VolumeAxis::Y ? "y" : "z"; }

}  // namespace specview
