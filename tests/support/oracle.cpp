#include "tests/support/oracle.h"

#include <fftw3.h>

#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>

namespace specview::test {

Rng::Rng() : seed_((std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}()), gen_(seed_) {}

std::vector<cf> Rng::complex(std::size_t n) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<cf> v(n);
    for (auto& x : v) x = cf(d(gen_), d(gen_));
    return v;
}

std::vector<float> Rng::real(std::size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = d(gen_);
    return v;
}

namespace {
std::mutex planner;

std::vector<cd> run_plan(const std::vector<cd>& in, int rank, const int* dims, int howmany, int dist, bool inverse) {
    std::vector<cd> out(in.size());
    fftw_plan p;
    {
        std::lock_guard<std::mutex> lock(planner);
        std::vector<cd> tmp_in(in.size()), tmp_out(in.size());
        p = fftw_plan_many_dft(rank, dims, howmany, reinterpret_cast<fftw_complex*>(tmp_in.data()), nullptr, 1, dist,
                               reinterpret_cast<fftw_complex*>(tmp_out.data()), nullptr, 1, dist,
                               inverse ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
    }
    if (!p) throw std::runtime_error("FFTW planning failed");
    fftw_execute_dft(p, reinterpret_cast<fftw_complex*>(const_cast<cd*>(in.data())),
                     reinterpret_cast<fftw_complex*>(out.data()));
    std::lock_guard<std::mutex> lock(planner);
    fftw_destroy_plan(p);
    return out;
}
}  // namespace

std::vector<cd> dft2d(const std::vector<cd>& in, int rows, int cols, bool inverse) {
    const int dims[2] = {rows, cols};
    return run_plan(in, 2, dims, 1, rows * cols, inverse);
}

std::vector<cd> dft_rows(const std::vector<cd>& in, int n, int rows, bool inverse) {
    const int dims[1] = {n};
    return run_plan(in, 1, dims, rows, n, inverse);
}

std::vector<cd> direct_dft2d(const std::vector<cd>& in, int rows, int cols) {
    std::vector<cd> out(in.size());
    for (int ky = 0; ky < rows; ++ky)
        for (int kx = 0; kx < cols; ++kx) {
            cd acc = 0;
            for (int y = 0; y < rows; ++y)
                for (int x = 0; x < cols; ++x) {
                    const double a = -2.0 * M_PI * (double(ky) * y / rows + double(kx) * x / cols);
                    acc += in[std::size_t(y) * cols + x] * cd(std::cos(a), std::sin(a));
                }
            out[std::size_t(ky) * cols + kx] = acc;
        }
    return out;
}

double rel_l2(const cf* got, const cd* ref, std::size_t n) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const cd g(got[i]);
        if (!std::isfinite(g.real()) || !std::isfinite(g.imag())) return std::numeric_limits<double>::infinity();
        num += std::norm(g - ref[i]);
        den += std::norm(ref[i]);
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

double rel_l2(const std::vector<cf>& got, const std::vector<cd>& ref) {
    if (got.size() != ref.size()) return std::numeric_limits<double>::infinity();
    return rel_l2(got.data(), ref.data(), got.size());
}

}  // namespace specview::test
