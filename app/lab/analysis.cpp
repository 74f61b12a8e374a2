#include "app/lab/analysis.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <stdexcept>
#include <thread>

#include "app/core/parallel_bands.h"
#include "gpu/common/mask_math.h"  // bin_frequency

namespace specview {

namespace {
constexpr double kPi = 3.14159265358979323846;

int thread_count(int threads, int work) {
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1, std::min(threads, work));
}

Profile finish(const std::vector<double>& sum, const std::vector<long long>& count, double step, int first) {
    Profile p;
    for (std::size_t i = std::size_t(first); i < sum.size(); ++i) {
        if (count[i] == 0) continue;
        p.at.push_back(double(i) * step);
        p.mean_power.push_back(sum[i] / double(count[i]));
        p.count.push_back(count[i]);
    }
    return p;
}
}  // namespace

namespace {
// Mean power |F|^2 / (w h) of the spectrum's bins (DC left out) in `bins` bins; bin_of(u, v) says which.
// Rows are split over `threads` threads, each with its own sums, added in a fixed order.
template <class BinOf>
Profile binned_power(const std::complex<float>* F, int w, int h, int bins, double step, int first, int threads,
                     BinOf bin_of) {
    const int nt = thread_count(threads, h);
    std::vector<std::vector<double>> sums(std::size_t(nt), std::vector<double>(std::size_t(bins), 0.0));
    std::vector<std::vector<long long>> counts(std::size_t(nt), std::vector<long long>(std::size_t(bins), 0));
    const double norm = 1.0 / (double(w) * double(h));
    parallel_bands(
        h, nt,
        [&](int y0, int y1, int t) {
            std::vector<double>& sum = sums[std::size_t(t)];
            std::vector<long long>& count = counts[std::size_t(t)];
            for (int y = y0; y < y1; ++y) {
                const double v = bin_frequency(y, h);
                for (int x = 0; x < w; ++x) {
                    if (x == 0 && y == 0) continue;
                    const std::size_t i = bin_of(bin_frequency(x, w), v);
                    const std::complex<float> c = F[std::size_t(y) * w + x];
                    sum[i] += (double(c.real()) * c.real() + double(c.imag()) * c.imag()) * norm;
                    ++count[i];
                }
            }
        },
        1);
    for (int t = 1; t < nt; ++t)
        for (int i = 0; i < bins; ++i) {
            sums[0][std::size_t(i)] += sums[std::size_t(t)][std::size_t(i)];
            counts[0][std::size_t(i)] += counts[std::size_t(t)][std::size_t(i)];
        }
    return finish(sums[0], counts[0], step, first);
}
}  // namespace

int radial_bin_count(int w, int h) { return int(std::ceil(std::sqrt(0.5) * std::max(w, h))) + 2; }

Profile radial_profile(const std::complex<float>* F, int w, int h, int threads) {
    const int m = std::max(w, h);
    return binned_power(F, w, h, radial_bin_count(w, h), 1.0 / m, 1, threads,
                        [m](double u, double v) { return std::size_t(std::lround(std::sqrt(u * u + v * v) * m)); });
}

Profile angular_profile(const std::complex<float>* F, int w, int h, int threads) {
    return binned_power(F, w, h, 180, 1.0, 0, threads, [](double u, double v) {
        double a = bin_angle_degrees(u, v);
        if (a < 0) a += 180.0;
        if (a >= 180.0) a -= 180.0;
        return std::size_t(std::min(179, int(std::floor(a))));
    });
}

Profile profile_from_sums(const std::vector<double>& sum, const std::vector<long long>& count, bool radial, int w,
                          int h) {
    if (sum.size() != count.size()) throw std::invalid_argument("profile sums and counts differ in length");
    return radial ? finish(sum, count, 1.0 / std::max(w, h), 1) : finish(sum, count, 1.0, 0);
}

double dominant_angle(const Profile& p) {
    std::size_t top = 0;
    for (std::size_t k = 0; k < p.at.size(); ++k)
        if (p.mean_power[k] > p.mean_power[top]) top = k;
    return p.at.empty() ? -1.0 : p.at[top];
}

LogPolarGrid log_polar_grid(int w, int h, int n_phi, int n_r) {
    LogPolarGrid g;
    g.n_phi = std::max(1, n_phi);
    g.n_r = std::max(2, n_r);
    const int m = std::max(w, h);
    g.r0 = 1.0;
    g.r1 = std::max(2.0, m / 2.0);
    g.kx.resize(std::size_t(g.n_phi) * g.n_r);
    g.ky.resize(g.kx.size());
    for (int i = 0; i < g.n_r; ++i) {
        const double r = g.r0 * std::pow(g.r1 / g.r0, double(i) / (g.n_r - 1)) / m;  // cycles/pixel
        for (int j = 0; j < g.n_phi; ++j) {
            const double a = 2.0 * kPi * j / g.n_phi;
            // (u, v) = r (cos a, -sin a): up is positive; to the nearest bin, wrapped into the transform.
            const long long sx = std::llround(r * std::cos(a) * w), sy = std::llround(-r * std::sin(a) * h);
            g.kx[std::size_t(i) * g.n_phi + j] = int(((sx % w) + w) % w);
            g.ky[std::size_t(i) * g.n_phi + j] = int(((sy % h) + h) % h);
        }
    }
    return g;
}

LineBins line_bins(int w, int h, double u0, double v0, double u1, double v1) {
    LineBins l;
    const int steps = int(std::ceil(std::max(std::abs(u1 - u0), std::abs(v1 - v0))));
    for (int i = 0; i <= steps; ++i) {
        const double t = steps ? double(i) / steps : 0.0;
        const double u = u0 + (u1 - u0) * t, v = v0 + (v1 - v0) * t;
        const long long sx = std::llround(u), sy = std::llround(v);
        l.kx.push_back(int(((sx % w) + w) % w));
        l.ky.push_back(int(((sy % h) + h) % h));
        // Distance in cycles/pixel: each axis's bins in its own units.
        l.at.push_back(std::hypot((u - u0) / w, (v - v0) / h));
    }
    return l;
}

PowerLawFit fit_power_law(const Profile& p, double f_lo, double f_hi) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    PowerLawFit fit;
    fit.f_lo = f_lo;
    fit.f_hi = f_hi;
    for (std::size_t i = 0; i < p.at.size(); ++i) {
        if (p.at[i] < f_lo || p.at[i] > f_hi || !(p.mean_power[i] > 0) || !(p.at[i] > 0)) continue;
        const double x = std::log10(p.at[i]), y = std::log10(p.mean_power[i]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        ++n;
    }
    const double den = n * sxx - sx * sx;
    if (n < 2 || !(std::abs(den) > 0))
        throw std::invalid_argument("fewer than two radial bins with power between f = " + std::to_string(f_lo) +
                                    " and " + std::to_string(f_hi) + " cycles/pixel: nothing to fit");
    fit.slope = (n * sxy - sx * sy) / den;
    fit.intercept = (sy - fit.slope * sx) / n;
    fit.points = n;
    return fit;
}

void write_profile_csv(const std::string& path, const std::string& header, const Profile& p) {
    write_profile_csv(path, header, p, 0.0);
}

void write_profile_csv(const std::string& path, const std::string& header, const Profile& p, double per) {
    const std::string tmp = path + ".tmp-write";
    {
        std::ofstream out(tmp);
        if (!out) throw std::runtime_error(path + ": cannot write");
        out << header << "\n" << std::setprecision(9);
        for (std::size_t i = 0; i < p.at.size(); ++i) {
            out << p.at[i] << ",";
            if (per > 0) out << p.at[i] / per << ",";
            out << p.mean_power[i] << "," << p.count[i] << "\n";
        }
        out.flush();
        if (!out) throw std::runtime_error(path + ": write failed");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw std::runtime_error(path + ": cannot move the finished file into place");
    }
}

ShiftEstimate phase_correlation(const std::complex<float>* a, const std::complex<float>* b, int w, int h, int upsample,
                                int threads, std::vector<float>* surface, bool phase) {
    if (w < 1 || h < 1) throw std::invalid_argument("phase correlation of an empty image");
    const std::size_t n = std::size_t(w) * h;
    // The normalised cross-power spectrum (unit magnitude; 0 where either spectrum is 0).
    fftwf_complex* R = fftwf_alloc_complex(n);
    fftwf_complex* r = fftwf_alloc_complex(n);
    if (!R || !r) {
        fftwf_free(R);
        fftwf_free(r);
        throw std::bad_alloc();
    }
    // Cross-correlation: scaled so that the inverse's peak over n is the normalised correlation (as phase
    // correlation's is), n / sqrt(sum |A|^2 sum |B|^2).
    double cross_scale = 0;
    if (!phase) {
        double ea = 0, eb = 0;
        for (std::size_t i = 0; i < n; ++i)
            ea += std::norm(std::complex<double>(a[i])), eb += std::norm(std::complex<double>(b[i]));
        cross_scale = ea > 0 && eb > 0 ? double(n) / std::sqrt(ea * eb) : 0.0;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const std::complex<double> c = std::complex<double>(b[i]) * std::conj(std::complex<double>(a[i]));
        const double mag = std::abs(c);
        const std::complex<double> q = !phase ? c * cross_scale : mag > 0 ? c / mag : std::complex<double>(0.0);
        R[i][0] = float(q.real());
        R[i][1] = float(q.imag());
    }
    fftwf_plan plan = fftwf_plan_dft_2d(h, w, R, r, FFTW_BACKWARD, FFTW_ESTIMATE);
    if (!plan) {
        fftwf_free(R);
        fftwf_free(r);
        throw std::runtime_error("FFTW could not plan the correlation");
    }
    fftwf_execute(plan);
    fftwf_destroy_plan(plan);
    std::size_t best = 0;
    double best_v = -1;
    for (std::size_t i = 0; i < n; ++i) {
        const double v = double(r[i][0]) * r[i][0] + double(r[i][1]) * r[i][1];
        if (v > best_v) {
            best_v = v;
            best = i;
        }
    }
    if (surface) {  // |r| / n, shifted: no shift at the centre
        surface->assign(n, 0.0f);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const fftwf_complex& v = r[std::size_t(y) * w + x];
                (*surface)[std::size_t(shift_dest(y, h)) * w + shift_dest(x, w)] =
                    float(std::sqrt(double(v[0]) * v[0] + double(v[1]) * v[1]) / double(n));
            }
    }
    fftwf_free(r);
    int px = int(best % std::size_t(w)), py = int(best / std::size_t(w));
    if (px > w / 2) px -= w;
    if (py > h / 2) py -= h;

    // The inverse DFT of R at (px + (i - c) / U, py + (j - c) / U), i, j < m: m = 1.5 U + 1 points an axis,
    // as two matrix products (along x for every row, then along y).
    const int U = std::max(1, upsample), m = int(std::ceil(1.5 * U)) + 1, c = m / 2;
    auto positions = [&](int p0) {
        std::vector<double> pos(static_cast<std::size_t>(m));
        for (int i = 0; i < m; ++i) pos[std::size_t(i)] = p0 + double(i - c) / U;
        return pos;
    };
    const std::vector<double> xs = positions(px), ys = positions(py);
    auto kernel = [&](const std::vector<double>& pos, int len) {  // e^{2 pi i f(k) pos}, m x len
        std::vector<std::complex<double>> k(std::size_t(m) * len);
        for (int i = 0; i < m; ++i)
            for (int t = 0; t < len; ++t) {
                const double ph = 2.0 * kPi * bin_frequency(t, len) * pos[std::size_t(i)];
                k[std::size_t(i) * len + t] = {std::cos(ph), std::sin(ph)};
            }
        return k;
    };
    const std::vector<std::complex<double>> ex = kernel(xs, w), ey = kernel(ys, h);
    std::vector<std::complex<double>> T(std::size_t(h) * m);  // T[y][i] = sum_x R[y][x] ex[i][x]
    parallel_bands(
        h, thread_count(threads, h),
        [&](int y0, int y1, int) {
            for (int y = y0; y < y1; ++y) {
                const fftwf_complex* row = R + std::size_t(y) * w;
                for (int i = 0; i < m; ++i) {
                    const std::complex<double>* e = ex.data() + std::size_t(i) * w;
                    double re = 0, im = 0;
                    for (int x = 0; x < w; ++x) {
                        re += row[x][0] * e[x].real() - row[x][1] * e[x].imag();
                        im += row[x][0] * e[x].imag() + row[x][1] * e[x].real();
                    }
                    T[std::size_t(y) * m + i] = {re, im};
                }
            }
        },
        1);
    fftwf_free(R);
    double peak = -1;
    int bi = c, bj = c;
    for (int j = 0; j < m; ++j)
        for (int i = 0; i < m; ++i) {
            std::complex<double> s = 0;
            for (int y = 0; y < h; ++y) s += ey[std::size_t(j) * h + y] * T[std::size_t(y) * m + i];
            const double v = std::abs(s);
            if (v > peak) {
                peak = v;
                bi = i;
                bj = j;
            }
        }
    ShiftEstimate out;
    out.dx = xs[std::size_t(bi)];
    out.dy = ys[std::size_t(bj)];
    out.peak = peak / double(n);
    return out;
}

std::vector<unsigned char> correlation_levels(const std::vector<float>& surface) {
    float mx = 0;
    for (float v : surface) mx = std::max(mx, v);
    std::vector<unsigned char> out(surface.size(), 0);
    for (std::size_t i = 0; i < surface.size(); ++i) {
        const double t = mx > 0 && surface[i] > 0 ? 1.0 + std::log10(double(surface[i]) / mx) / 4.0 : 0.0;
        out[i] = static_cast<unsigned char>(level_of(normalize_to_range(float(t), 0.0f, 1.0f)));
    }
    return out;
}

}  // namespace specview
