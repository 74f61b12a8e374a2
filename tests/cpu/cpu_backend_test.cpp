// The CPU spectrum on analytic images and against a direct double-precision DFT.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "app/cpu_backend.h"
#include "app/engine.h"
#include "gpu/errors.h"
#include "tests/support/oracle.h"

namespace specview::test {
namespace {

std::vector<cf> spectrum(const Plane& p) {
    CpuFft fft;
    std::vector<cf> out;
    fft.forward(p, out);
    return out;
}

Plane filled(int w, int h, const std::function<double(int, int)>& f) {
    Plane p(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) p.at(x, y) = float(f(x, y));
    return p;
}

TEST(CpuSpectrum, ConstantImageHasOnlyDc) {
    for (auto [w, h] : {std::pair{16, 8}, std::pair{15, 9}}) {
        const auto F = spectrum(filled(w, h, [](int, int) { return 0.75; }));
        EXPECT_NEAR(F[0].real(), 0.75 * w * h, 1e-3);
        EXPECT_NEAR(F[0].imag(), 0.0, 1e-4);
        for (std::size_t i = 1; i < F.size(); ++i) EXPECT_LT(std::abs(F[i]), 1e-4) << i;
    }
}

TEST(CpuSpectrum, ImpulseHasFlatMagnitude) {
    for (auto [x0, y0] : {std::pair{0, 0}, std::pair{5, 3}}) {
        const auto F = spectrum(filled(16, 12, [&](int x, int y) { return x == x0 && y == y0 ? 1.0 : 0.0; }));
        for (const auto& v : F) EXPECT_NEAR(std::abs(v), 1.0, 1e-5);
    }
}

TEST(CpuSpectrum, GratingGivesTwoPeaksAtExactlyPlusMinusK) {
    for (auto [w, h, kx, ky] : {std::tuple{64, 64, 5, 3}, std::tuple{64, 32, -7, 4}, std::tuple{45, 33, 6, -2}}) {
        const Plane p = filled(w, h, [&](int x, int y) { return std::cos(2 * M_PI * (double(kx) * x / w + double(ky) * y / h)); });
        const auto F = spectrum(p);
        ViewParams vp;  // log-magnitude, shifted
        std::vector<float> v;
        compute_view_values(F.data(), w, h, vp, v);
        // The two largest values, in shifted coordinates.
        std::vector<std::size_t> idx(v.size());
        for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::partial_sort(idx.begin(), idx.begin() + 3, idx.end(), [&](auto a, auto b) { return v[a] > v[b]; });
        const int cx = w / 2, cy = h / 2;
        std::set<std::pair<int, int>> peaks{{int(idx[0] % w), int(idx[0] / w)}, {int(idx[1] % w), int(idx[1] / w)}};
        std::set<std::pair<int, int>> want{{cx + kx, cy + ky}, {cx - kx, cy - ky}};
        EXPECT_EQ(peaks, want) << w << "x" << h << " k=(" << kx << "," << ky << ")";
        EXPECT_GT(v[idx[1]], v[idx[2]] + 5) << "the peaks stand far above the rest";
        EXPECT_NEAR(std::abs(F[std::size_t((ky + h) % h) * w + (kx + w) % w]), 0.5 * w * h, 1e-2 * w * h);
    }
}

TEST(CpuSpectrum, SeparableProductIsTheProductOfSpectra) {
    const int w = 32, h = 16;
    Rng rng;
    const auto g = rng.real(w), k = rng.real(h);
    const auto F = spectrum(filled(w, h, [&](int x, int y) { return double(g[x]) * k[y]; }));
    const auto G = dft_rows(widen(g), w, 1), K = dft_rows(widen(k), h, 1);
    std::vector<cd> want(std::size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) want[std::size_t(y) * w + x] = G[x] * K[y];
    EXPECT_LT(rel_l2(F, want), 1e-5);
}

TEST(CpuSpectrum, ParsevalAndLinearity) {
    Rng rng;
    const int w = 40, h = 24;
    Plane a(w, h), b(w, h), c(w, h);
    a.v = rng.real(a.v.size());
    b.v = rng.real(b.v.size());
    for (std::size_t i = 0; i < c.v.size(); ++i) c.v[i] = 2.0f * a.v[i] - 3.0f * b.v[i];
    const auto A = spectrum(a), B = spectrum(b), C = spectrum(c);
    double e_space = 0, e_freq = 0;
    for (float v : a.v) e_space += double(v) * v;
    for (const auto& v : A) e_freq += std::norm(cd(v));
    EXPECT_NEAR(e_freq / (double(w) * h), e_space, 1e-5 * e_space);
    std::vector<cd> lin(A.size());
    for (std::size_t i = 0; i < A.size(); ++i) lin[i] = 2.0 * cd(A[i]) - 3.0 * cd(B[i]);
    EXPECT_LT(rel_l2(C, lin), 1e-5);
}

TEST(CpuSpectrum, MatchesADirectDoubleDftOnOddEvenAndPrimeSizes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    for (auto [w, h] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{5, 7}, std::pair{8, 8}, std::pair{13, 11},
                        std::pair{16, 9}, std::pair{31, 17}, std::pair{64, 3}}) {
        Plane p(w, h);
        p.v = rng.real(p.v.size(), -1, 1);
        EXPECT_LT(rel_l2(spectrum(p), direct_dft2d(widen(p.v), h, w)), 1e-5) << w << "x" << h;
    }
}

TEST(CpuSpectrum, HannWindowCutsLeakageOfAnOffBinGrating) {
    // 10.5 cycles: half a bin off, the worst case for leakage.
    Engine engine;
    std::vector<float> grating;
    for (int y = 0; y < 128; ++y)
        for (int x = 0; x < 128; ++x) grating.push_back(float(0.5 + 0.5 * std::cos(2 * M_PI * 10.5 * x / 128)));
    const Image img = Image::from_floats(128, 128, 1, grating);
    engine.set_image(img, "grating");
    auto far_energy = [&](Window win) {
        Settings s;
        s.window = win;
        RunOptions o;
        o.want_spectrum = true;
        const Frame f = engine.run(s, o);
        double far = 0, all = 0;
        for (int y = 0; y < 128; ++y)
            for (int x = 0; x < 128; ++x) {
                const double e = std::norm(cd(f.spectrum[std::size_t(y) * 128 + x]));
                const int u = std::min(x, 128 - x);
                all += e;
                if (std::abs(u - 10) > 4 && u > 4) far += e;
            }
        return far / all;
    };
    EXPECT_LT(far_energy(Window::Hann) * 100, far_energy(Window::None));
}

TEST(Engine, CpuFrameHasPictureTimingsAndRange) {
    Engine engine;
    Rng rng;
    const Image img = Image::from_floats(100, 60, 1, rng.real(6000));
    engine.set_image(img, "rand");
    Settings s;
    const Frame f = engine.run(s);
    EXPECT_EQ(f.width, 128);
    EXPECT_EQ(f.height, 64);
    EXPECT_EQ(f.rgba.size(), 128u * 64u);
    EXPECT_TRUE(f.spectrum.empty());
    EXPECT_LT(f.range_lo, f.range_hi);
    EXPECT_GE(f.timings.size(), 4u);
    EXPECT_EQ(f.backend, "CPU (FFTW)");
    // No GPU here (or one): asking for a GPU backend either works or says why.
    s.backend = Backend::Custom;
    if (!engine.device_info().available) {
        EXPECT_THROW(engine.run(s), gpu::GpuUnavailable);
    }
}

}  // namespace
}  // namespace specview::test
