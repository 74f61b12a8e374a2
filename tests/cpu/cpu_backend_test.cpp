// The CPU spectrum on analytic images and against a direct double-precision DFT.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <cstring>
#include <filesystem>

#include "app/engine/cpu_backend.h"
#include "app/engine/engine.h"
#include "app/engine/preview.h"
#include "app/core/plane.h"
#include "gpu/common/errors.h"
#include "gpu/common/gl_context.h"
#include "tests/support/oracle.h"
#include "tests/support/random_image.h"
#include "tests/support/temp_dir.h"

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
        const Plane p =
            filled(w, h, [&](int x, int y) { return std::cos(2 * M_PI * (double(kx) * x / w + double(ky) * y / h)); });
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

TEST(Plane, MadeStraightFromTheSamplesEqualsExtractThenPrepareBitForBit) {
    Rng rng;
    int cases = 0;
    for (auto [w, h, c, depth] :
         {std::tuple{37, 21, 3, 8}, std::tuple{64, 48, 1, 16}, std::tuple{30, 33, 4, 32}, std::tuple{16, 9, 2, 8}}) {
        const Image img = random_image(rng, w, h, c, depth);
        for (Channel ch : {Channel::Luma, Channel::R, Channel::G, Channel::B, Channel::A}) {
            if (ch == Channel::A && !(c == 2 || c == 4)) continue;
            for (Window win : {Window::None, Window::Hann, Window::Tukey, Window::Kaiser})
                for (auto [shape, level] :
                     {std::pair{WindowShape::Separable, Level::None}, std::pair{WindowShape::Radial, Level::Plane},
                      std::pair{WindowShape::Separable, Level::Mean}})
                    for (PadMode pad : {PadMode::Pow2, PadMode::Crop, PadMode::None})
                        for (PadFill fill : {PadFill::Zero, PadFill::Mean}) {
                            Settings s;
                            s.channel = ch;
                            s.window = win;
                            s.window_shape = shape;
                            s.level = level;
                            s.pad = pad;
                            s.pad_fill = fill;
                            const PreparedPlane want = prepare_plane(extract_channel(img, ch), s);
                            const PreparedPlane got = prepare_plane(img, s);
                            ASSERT_EQ(got.plane.width, want.plane.width);
                            ASSERT_EQ(got.plane.height, want.plane.height);
                            EXPECT_EQ(got.crop_x, want.crop_x);
                            EXPECT_EQ(got.content_w, want.content_w);
                            EXPECT_EQ(std::memcmp(got.plane.v.data(), want.plane.v.data(), want.plane.v.size() * 4), 0)
                                << w << "x" << h << "x" << c << " depth " << depth << " " << name_of(ch) << " "
                                << name_of(win) << " " << name_of(pad) << " " << name_of(fill);
                            // Into a strided buffer (FFTW's padded rows): the same rows, the padding untouched.
                            const std::size_t stride = std::size_t(want.plane.width) + 3;
                            std::vector<float> buf(stride * want.plane.height, -7.0f);
                            prepare_plane_into(img, s, buf.data(), stride);
                            for (int y = 0; y < want.plane.height; ++y) {
                                EXPECT_EQ(
                                    std::memcmp(&buf[y * stride], &want.plane.v[std::size_t(y) * want.plane.width],
                                                std::size_t(want.plane.width) * 4),
                                    0);
                                for (std::size_t x = std::size_t(want.plane.width); x < stride; ++x)
                                    EXPECT_EQ(buf[y * stride + x], -7.0f);
                            }
                            ++cases;
                        }
        }
    }
    EXPECT_GT(cases, 200 * 4);
    // Tall enough for bands of rows on several threads: still bit for bit, the mean fill and levelling included.
    const Image big = random_image(rng, 257, 700, 3, 8);
    for (int threads : {1, 3, 8}) {
        Settings s;
        s.window = Window::Hann;
        s.pad_fill = PadFill::Mean;
        s.level = Level::Plane;
        const PreparedPlane want = prepare_plane(extract_channel(big, s.channel), s);
        std::vector<float> buf(want.plane.v.size());
        prepare_plane_into(big, s, buf.data(), std::size_t(want.plane.width), "big", threads);
        EXPECT_EQ(std::memcmp(buf.data(), want.plane.v.data(), buf.size() * 4), 0) << threads << " threads";
    }
}

// The windows against numpy (np.kaiser, np.blackman: reference values) and their definitions.
TEST(Window, MatchesNumpyAndTheDefinitions) {
    const double kaiser7[] = {0.00133251399790242, 0.13040194654166437, 0.6304119273359405, 1.0,
                              0.6304119273359405,  0.13040194654166437, 0.00133251399790242};
    const double blackman7[] = {-1.3877787807814457e-17, 0.13000000000000009, 0.63000000000000012,
                                0.99999999999999989,     0.63000000000000012, 0.13000000000000009,
                                -1.3877787807814457e-17};
    for (int i = 0; i < 7; ++i) {
        EXPECT_NEAR(window_value(Window::Kaiser, i, 7, 0.5, 8.6), kaiser7[i], 1e-12) << i;
        EXPECT_NEAR(window_value(Window::Blackman, i, 7, 0.5, 8.6), blackman7[i], 1e-15) << i;
    }
    const double welch5[] = {0, 0.75, 1, 0.75, 0};
    for (int i = 0; i < 5; ++i) EXPECT_NEAR(window_value(Window::Welch, i, 5, 0.5, 8.6), welch5[i], 1e-15);
    // Blackman-Harris (4 terms) and flat top (scipy's coefficients): symmetric, their sums of coefficients at the
    // centre, their alternating sums at the ends.
    EXPECT_NEAR(window_at(Window::BlackmanHarris, 0.5, 0.5, 8.6), 1.0, 1e-12);
    EXPECT_NEAR(window_at(Window::BlackmanHarris, 0.0, 0.5, 8.6), 0.35875 - 0.48829 + 0.14128 - 0.01168, 1e-12);
    EXPECT_NEAR(window_at(Window::FlatTop, 0.5, 0.5, 8.6), 1.000000003, 1e-9);
    EXPECT_NEAR(window_at(Window::FlatTop, 0.0, 0.5, 8.6),
                0.21557895 - 0.41663158 + 0.277263158 - 0.083578947 + 0.006947368, 1e-12);
    for (Window w : {Window::Hann, Window::Hamming, Window::Tukey, Window::Blackman, Window::BlackmanHarris,
                     Window::Kaiser, Window::FlatTop, Window::Welch})
        for (int i = 0; i < 16; ++i)
            EXPECT_NEAR(window_value(w, i, 16, 0.4, 5.0), window_value(w, 15 - i, 16, 0.4, 5.0), 1e-12) << name_of(w);
}

// Levelling: an image that is a tilted plane levels to zero with --level plane, to its tilt about the mean with
// --level mean.
TEST(Plane, LevellingRemovesTheMeanOrTheFittedPlane) {
    const int w = 64, h = 40;
    std::vector<float> v(std::size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) v[std::size_t(y) * w + x] = 0.3f + 0.004f * x - 0.003f * y;
    const Image img = Image::from_floats(w, h, 1, v);
    Settings s;
    s.pad = PadMode::None;
    s.level = Level::Plane;
    PreparedPlane p = prepare_plane(img, s);
    double worst = 0, sum = 0;
    for (float x : p.plane.v) worst = std::max(worst, double(std::abs(x)));
    EXPECT_LE(worst, 1e-6);
    s.level = Level::Mean;
    p = prepare_plane(img, s);
    for (float x : p.plane.v) sum += x;
    EXPECT_NEAR(sum / double(w * h), 0.0, 1e-7);
    EXPECT_NEAR(p.plane.at(w - 1, 0) - p.plane.at(0, 0), 0.004 * (w - 1), 1e-5);  // the tilt stays
}

// The radial window: 1 at the centre, the window's edge value on the inscribed ellipse and beyond, the same at
// mirrored pixels.
TEST(Plane, RadialWindowPeaksAtTheCentreAndReachesItsEdgeOnTheInscribedEllipse) {
    const int w = 65, h = 33;
    const Image img = Image::from_floats(w, h, 1, std::vector<float>(std::size_t(w) * h, 1.0f));
    Settings s;
    s.pad = PadMode::None;
    s.window = Window::Hann;
    s.window_shape = WindowShape::Radial;
    const PreparedPlane p = prepare_plane(img, s);
    EXPECT_FLOAT_EQ(p.plane.at(32, 16), 1.0f);
    EXPECT_NEAR(p.plane.at(0, 16), 0.0f, 1e-7);  // on the ellipse
    EXPECT_NEAR(p.plane.at(0, 0), 0.0f, 1e-7);   // a corner: outside
    EXPECT_NEAR(p.plane.at(32, 0), 0.0f, 1e-7);
    EXPECT_GT(p.plane.at(16, 16), 0.4f);  // half-way out along x: hann(0.25) = 0.5
    EXPECT_NEAR(p.plane.at(16, 16), 0.5f, 1e-3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) EXPECT_EQ(p.plane.at(x, y), p.plane.at(w - 1 - x, h - 1 - y)) << x << "," << y;
}

TEST(CpuPicture, KthSmallestEqualsNthElement) {
    Rng rng;
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1000), std::size_t(100003)}) {
        std::vector<float> v = rng.real(n, -3.0f, 5.0f);
        for (std::size_t i = 0; i < n; i += 7) v[i] = 0.0f;  // ties
        if (n > 10) v[3] = -0.0f;
        for (std::size_t k : {std::size_t(0), n / 3, n / 2, n - 1}) {
            std::vector<float> c(v);
            std::nth_element(c.begin(), c.begin() + long(k), c.end());
            EXPECT_EQ(kth_smallest(v.data(), n, k), c[k]) << "n " << n << " k " << k;
        }
    }
}

// A percentile range (compute_range: both ends from one histogram pass and one counting pass, in bands over the
// cores) is the two order statistics nth_element finds, whatever the count against the bands' chunks.
TEST(CpuPicture, APercentileRangeIsTheTwoOrderStatistics) {
    Rng rng;
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(999), std::size_t(16384), std::size_t(16385),
                          std::size_t(3 * 16384 + 7), std::size_t(1) << 20}) {
        std::vector<float> v = rng.real(n, -3.0f, 5.0f);
        for (std::size_t i = 0; i < n; i += 5) v[i] = 1.0f;  // ties
        for (auto [plo, phi] : {std::pair{0.0f, 100.0f}, std::pair{1.0f, 99.9f}, std::pair{50.0f, 50.0f}}) {
            ViewParams vp;
            vp.range = RangeMode::Percentile;
            vp.pct_lo = plo;
            vp.pct_hi = phi;
            float lo = 0, hi = 0;
            compute_range(v, vp, &lo, &hi);
            const long long nn = (long long)n;
            const std::size_t klo = std::size_t(std::min<long long>(percentile_index(plo, nn), nn - 1));
            const std::size_t khi = std::size_t(std::min<long long>(percentile_index(phi, nn), nn - 1));
            std::vector<float> c(v);
            std::nth_element(c.begin(), c.begin() + long(klo), c.end());
            EXPECT_EQ(lo, c[klo]) << "n " << n << " percentile " << plo;
            std::nth_element(c.begin(), c.begin() + long(khi), c.end());
            EXPECT_EQ(hi, c[khi]) << "n " << n << " percentile " << phi;
        }
    }
}

// colorize over threads (chunks of 32768 values a band) colours each value as one thread does: every value its
// colormap level's colour, NaN and values outside [lo, hi] included.
TEST(CpuPicture, ColorizeOverThreadsColoursEveryValueAsOneThreadDoes) {
    Rng rng;
    std::vector<float> values = rng.real(100003);  // (not a whole number of chunks)
    for (std::size_t i = 0; i < values.size(); i += 997) values[i] = (i / 997) % 2 ? NAN : -5.0f;
    const ColormapLut lut = make_colormap_lut(Colormap::Turbo);
    for (int threads : {1, 2, 3, 16}) {
        std::vector<std::uint32_t> rgba;
        colorize(values, -0.5f, 0.75f, Colormap::Turbo, rgba, threads);
        ASSERT_EQ(rgba.size(), values.size());
        for (std::size_t i = 0; i < values.size(); ++i)
            ASSERT_EQ(rgba[i], lut.rgba[level_of(normalize_to_range(values[i], -0.5f, 0.75f))])
                << threads << " threads, value " << i;
    }
}

// The fused picture from the half spectrum equals the separate steps on the full spectrum for every view, range
// and both shifts: bit for bit where the formulas are the same, within a level where fast_ln replaces the
// library logarithm (log-magnitude, power).
TEST(CpuPicture, FromTheHalfSpectrumEqualsTheStepsOnTheFullOne) {
    Rng rng;
    for (auto [w, h] : {std::pair{64, 32}, std::pair{45, 27}, std::pair{128, 128}}) {
        Plane p(w, h);
        p.v = rng.real(std::size_t(w) * h);
        CpuFft fft;
        std::vector<cf> full;
        fft.forward(p, full);
        for (View view : {View::LogMag, View::PowerDb, View::Phase, View::Real, View::Imag})
            for (RangeMode range : {RangeMode::Auto, RangeMode::Percentile, RangeMode::Top, RangeMode::Fixed})
                for (bool shift : {true, false}) {
                    ViewParams vp;
                    vp.view = view;
                    vp.range = range;
                    vp.shift = shift;
                    vp.colormap = Colormap::Viridis;
                    std::vector<float> values;
                    compute_view_values(full.data(), w, h, vp, values);
                    float lo = 0, hi = 0;
                    compute_range(values, vp, &lo, &hi);
                    std::vector<std::uint32_t> want;
                    colorize(values, lo, hi, vp.colormap, want);
                    std::vector<std::uint32_t> got;
                    float glo = 0, ghi = 0;
                    picture_from_half(fft.half(), w, h, vp, 3, got, &glo, &ghi);
                    const std::string what = std::to_string(w) + "x" + std::to_string(h) + " " + name_of(view) + " " +
                                             name_of(range) + " shift " + std::to_string(shift);
                    if (view == View::LogMag || view == View::PowerDb) {  // fast_ln: within a level
                        const float tol = 1e-5f * std::max({1.0f, std::abs(lo), std::abs(hi)});
                        EXPECT_NEAR(glo, lo, tol) << what;
                        EXPECT_NEAR(ghi, hi, tol) << what;
                        EXPECT_LE(max_level_difference(got.data(), want.data(), (long long)want.size(), vp.colormap), 1)
                            << what;
                        std::size_t differ = 0;
                        for (std::size_t i = 0; i < got.size(); ++i) differ += got[i] != want[i];
                        EXPECT_LE(differ, got.size() / 100) << what << ": more than 1% of the pixels a level off";
                    } else {
                        EXPECT_EQ(glo, lo) << what;
                        EXPECT_EQ(ghi, hi) << what;
                        EXPECT_EQ(got, want) << what;
                    }
                    // The same picture as levels: 8-bit levels are the colours' levels, 16-bit ones the same
                    // values at 257 times the resolution; the value buffer is released.
                    const ColormapLut lut = make_colormap_lut(vp.colormap);
                    for (PictureFormat format : {PictureFormat::Level8, PictureFormat::Level16}) {
                        std::vector<std::uint32_t> scratch;
                        std::vector<unsigned char> levels(3, 0xAB);  // poisoned, resized by the call
                        float llo = 0, lhi = 0;
                        picture_from_half(fft.half(), w, h, vp, 2, scratch, &llo, &lhi, format, &levels);
                        EXPECT_TRUE(scratch.empty()) << what;
                        EXPECT_EQ(llo, glo) << what;
                        EXPECT_EQ(lhi, ghi) << what;
                        ASSERT_EQ(levels.size(), got.size() * std::size_t(level_bytes(format))) << what;
                        std::size_t bad = 0;
                        for (std::size_t i = 0; i < got.size(); ++i) {
                            if (format == PictureFormat::Level8) {
                                bad += lut.rgba[levels[i]] != got[i];
                            } else {
                                std::uint16_t v;
                                std::memcpy(&v, &levels[2 * i], 2);
                                bad += lut.rgba[level_of(v / 65535.0f)] != got[i];
                            }
                        }
                        EXPECT_EQ(bad, 0u) << what << " format " << int(format);
                    }
                }
        for (auto [x, y] : {std::pair{0, 0}, std::pair{w - 1, 1}, std::pair{w / 2, h - 1}, std::pair{3, 5}})
            EXPECT_EQ(fft.at(x, y), full[std::size_t(y) * w + x]);
    }
}

TEST(CpuPicture, FastLnIsWithinAFewUlpOfTheLibraryLogarithm) {
    double worst = 0;
    for (double y = 1e-30; y < 1e37; y *= 1.0007) {
        const float f = float(y);
        const double want = std::log(double(f));
        const double err = std::abs(double(fast_ln(f)) - want) / std::max(1.0, std::abs(want));
        worst = std::max(worst, err);
    }
    for (float y = 1.0f; y < 1.001f; y = std::nextafter(y, 2.0f)) {  // around 1, where ln y is tiny
        const double err = std::abs(double(fast_ln(y)) - std::log(double(y)));
        worst = std::max(worst, err);
    }
    std::cout << "  fast_ln worst error (relative above 1, absolute below): " << worst << "\n";
    EXPECT_LT(worst, 5e-7);
}

// FFTW wisdom: with measuring on, a size without wisdom is measured and the wisdom saved under the cache folder;
// a later plan of that size uses it even with measuring off; results equal the estimated plan's.
TEST(CpuSpectrum, MeasuredPlansAreSavedAsWisdomAndReused) {
    TempDir dir;
    setenv("XDG_CACHE_HOME", dir.path().c_str(), 1);
    EXPECT_EQ(cpu_fft_wisdom_path(), dir.file("specview/fftwf-wisdom"));
    Rng rng;
    Plane p(96, 40);
    p.v = rng.real(p.v.size());
    std::vector<cf> estimated, measured, reused;
    {
        CpuFft fft;
        fft.forward(p, estimated);
        EXPECT_FALSE(fft.measured());
    }
    set_cpu_fft_measure(true);
    {
        CpuFft fft;
        fft.forward(p, measured);
        EXPECT_TRUE(fft.measured());
    }
    set_cpu_fft_measure(false);
    EXPECT_TRUE(std::filesystem::exists(dir.file("specview/fftwf-wisdom")));
    {
        CpuFft fft;
        fft.forward(p, reused);
        EXPECT_TRUE(fft.measured()) << "the wisdom of this process was not used";
    }
    unsetenv("XDG_CACHE_HOME");
    double worst = 0, norm = 0;
    for (std::size_t i = 0; i < estimated.size(); ++i) {
        worst =
            std::max({worst, double(std::abs(measured[i] - estimated[i])), double(std::abs(reused[i] - estimated[i]))});
        norm = std::max(norm, double(std::abs(estimated[i])));
    }
    EXPECT_LT(worst, 1e-5 * norm);
}

TEST(Engine, OneShotRunGivesTheSamePictureSpectrumAndReadout) {
    Rng rng;
    const Image img = random_image(rng, 300, 200, 3, 8);
    for (PadMode pad : {PadMode::Pow2, PadMode::None})
        for (RangeMode range : {RangeMode::Auto, RangeMode::Percentile}) {
            Settings s;
            s.pad = pad;
            s.window = Window::Hann;
            s.view.range = range;
            RunOptions keep, once;
            keep.want_spectrum = once.want_spectrum = true;
            once.one_shot = true;
            Engine a, b;
            a.set_image(img, "random");
            b.set_image(img, "random");
            const Frame fa = a.run(s, keep), fb = b.run(s, once);
            EXPECT_EQ(fa.rgba, fb.rgba);
            EXPECT_EQ(fa.spectrum, fb.spectrum);
            EXPECT_EQ(fa.range_lo, fb.range_lo);
            EXPECT_FALSE(fb.host_data);  // nothing kept for a readout that will not come
            EXPECT_EQ(a.read_value(s, 7, 3), b.read_value(s, 7, 3));
            EXPECT_EQ(a.read_value(s, fa.width - 2, fa.height - 1), b.read_value(s, fa.width - 2, fa.height - 1));
        }
}

// Planning for the header's size before the image is here (the CLI, while the decoder works): the run then
// plans nothing, reports the early plan as its own line, and its picture is the same.
TEST(Engine, PlanForTheHeaderSizeBeforeTheImageGivesTheSamePicture) {
    Rng rng;
    const Image img = random_image(rng, 300, 200, 1, 8);
    Settings s;
    s.backend = Backend::Cpu;
    RunOptions once;
    once.one_shot = true;
    once.picture = PictureFormat::Level8;
    Engine a, b;
    a.set_image(img, "random");
    const Frame fa = a.run(s, once);
    EXPECT_GT(b.plan_for(s, img.width, img.height), 0.0);
    EXPECT_EQ(b.plan_for(s, img.width, img.height), 0.0);  // planned already
    b.set_image(img, "random");
    const Frame fb = b.run(s, once);
    EXPECT_EQ(fa.levels, fb.levels);
    EXPECT_EQ(fb.picture, PictureFormat::Level8);
    EXPECT_TRUE(fb.rgba.empty());
    auto has = [](const Frame& f, const std::string& what) {
        for (const auto& t : f.timings)
            if (t.name.find(what) != std::string::npos) return true;
        return false;
    };
    EXPECT_TRUE(has(fa, "plan (first run"));
    EXPECT_FALSE(has(fa, "plan (while"));
    EXPECT_TRUE(has(fb, "plan (while the image was decoded)"));
    EXPECT_FALSE(has(fb, "plan (first run"));
}

}  // namespace
}  // namespace specview::test

namespace specview::test {
namespace {

// The folded plane's spectrum is every fx-th, fy-th bin of the whole plane's (the live preview rests on this): for
// separable and radial windows, levelling, mean padding, odd and even folded sizes, against FFTW in double.
TEST(Preview, FoldedPlaneSpectrumIsEveryFthBinOfTheWholeOne) {
    Rng rng;
    struct Case {
        int w, h;
        PadMode pad;
        Window win;
        WindowShape shape;
        Level level;
        PadFill fill;
        int fx, fy;
    };
    const Case cases[] = {{300, 200, PadMode::Pow2, Window::Hann, WindowShape::Separable, Level::None, PadFill::Zero, 4, 2},
                          {90, 75, PadMode::None, Window::Tukey, WindowShape::Radial, Level::Plane, PadFill::Zero, 3, 5},
                          {100, 60, PadMode::Pow2, Window::None, WindowShape::Separable, Level::None, PadFill::Mean, 2, 4},
                          {130, 97, PadMode::Pow2, Window::Blackman, WindowShape::Separable, Level::Mean, PadFill::Mean, 8, 4}};
    for (const Case& c : cases) {
        SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h) + " folds " + std::to_string(c.fx) + "x" +
                     std::to_string(c.fy) + ", seed " + std::to_string(rng.seed()));
        const Image img = random_image(rng, c.w, c.h, 3, 8);
        Settings s;
        s.pad = c.pad;
        s.window = c.win;
        s.window_shape = c.shape;
        s.level = c.level;
        s.pad_fill = c.fill;
        const PreparedPlane whole = prepare_plane(img, s);
        const int W = whole.plane.width, H = whole.plane.height, w = W / c.fx, h = H / c.fy;
        const std::vector<cd> ref = dft2d(widen(whole.plane.v), H, W);
        Plane folded(w, h, std::nanf(""));  // poisoned: every element must be written
        prepare_folded_plane_into(img, s, c.fx, c.fy, folded.v.data(), std::size_t(w), "image", 2);
        const std::vector<cf> got = spectrum(folded);
        std::vector<cd> want(got.size());
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) want[std::size_t(y) * w + x] = ref[std::size_t(y * c.fy) * W + x * c.fx];
        EXPECT_LT(rel_l2(got, want), 2e-6);
    }
    float dummy[16];
    const Image img = random_image(rng, 30, 20, 1, 8);
    EXPECT_THROW(prepare_folded_plane_into(img, Settings{}, 3, 1, dummy, 16), std::invalid_argument);  // 32 % 3
}

// The preview picture under a fixed range is the full picture at the bins it shows, and the viewer's offset puts
// each preview pixel on its bin, shifted (DC at n/2 of either) or not.
TEST(Preview, PictureShowsTheFullPicturesPixelsAtItsBins) {
    Rng rng;
    const Image img = random_image(rng, 1000, 700, 3, 8);  // a 1024 x 1024 plane: folds 4 x 4 at 256 a side
    for (bool shift : {true, false}) {
        Settings s;
        s.backend = Backend::Cpu;
        s.window = Window::Hann;
        s.view.shift = shift;
        s.view.range = RangeMode::Fixed;
        s.view.fixed_lo = 2.0f;
        s.view.fixed_hi = 12.0f;
        Engine e;
        e.set_image(img, "random");
        const Frame full = e.run(s);
        Preview p;
        ASSERT_TRUE(e.preview(s, 256, 2, p));
        ASSERT_EQ(p.fx, 4);
        ASSERT_EQ(p.fy, 4);
        ASSERT_EQ(p.width, 256);
        ASSERT_EQ(p.plane_width, full.width);
        ASSERT_EQ(p.rgba.size(), std::size_t(256) * 256);
        int same = 0, far = 0;
        for (int q = 0; q < p.height; ++q)
            for (int x = 0; x < p.width; ++x) {
                const int a = int(p.rgba[std::size_t(q) * p.width + x] & 0xff);
                const int b = int(full.rgba[std::size_t(q * p.fy + p.offset_y) * full.width + x * p.fx + p.offset_x] & 0xff);
                same += a == b;
                far += std::abs(a - b) > 1;
            }
        EXPECT_GT(same, 256 * 256 * 95 / 100) << "shift " << shift;
        EXPECT_EQ(far, 0) << "shift " << shift;
        EXPECT_EQ(p.offset_x, 0);  // 1024 / 2 - 4 (256 / 2)
        Preview none;
        Engine small;
        small.set_image(random_image(rng, 200, 100, 1, 8), "small");
        EXPECT_FALSE(small.preview(s, 256, 2, none));  // a 256 x 128 plane: not worth folding
    }
}

TEST(Preview, FoldsDivideTheSizeAndLeaveAPrimeSizeWhole) {
    int fx = 0, fy = 0;
    preview_folds(4096, 2048, 1024, &fx, &fy);
    EXPECT_EQ(fx, 4);
    EXPECT_EQ(fy, 2);
    preview_folds(4099, 3000, 1024, &fx, &fy);  // prime; 3000 / 3 = 1000
    EXPECT_EQ(fx, 1);
    EXPECT_EQ(fy, 3);
    preview_folds(800, 1024, 1024, &fx, &fy);
    EXPECT_EQ(fx, 1);
    EXPECT_EQ(fy, 1);
}

// A CPU run asked to give up does so between stages, and the next run's picture and readout are as if it had not
// started (nothing half-made is kept).
TEST(Engine, CancelledCpuRunThrowsAndLeavesNothingHalfMade) {
    Rng rng;
    const Image img = random_image(rng, 300, 200, 3, 8);
    Settings s;
    s.backend = Backend::Cpu;
    s.window = Window::Hann;
    Engine a, b;
    a.set_image(img, "random");
    b.set_image(img, "random");
    const Frame want = a.run(s);
    for (int give_up_at : {1, 2}) {
        int asked = 0;
        RunOptions o;
        o.cancelled = [&] { return ++asked >= give_up_at; };
        Settings t = s;
        t.tukey_alpha = 0.3f;  // another plane
        t.window = Window::Tukey;
        EXPECT_THROW(b.run(t, o), RunCancelled);
        EXPECT_EQ(asked, give_up_at);
        EXPECT_THROW(b.read_value(s, 3, 4), gpu::ConfigError);  // the last spectrum is gone, not a wrong one
        const Frame got = b.run(s);
        EXPECT_EQ(got.rgba, want.rgba);
        EXPECT_EQ(b.read_value(s, 3, 4), a.read_value(s, 3, 4));
    }
}

// Seed 000 section 4.1's switch (the planner's shape, as classroom mode plans without a device): twice the local
// length in threads a block, in place of the threads-per-block knob, at most the device's; said in the plan's notes.
TEST(RowPlan, TwiceTheLocalLengthInThreadsIsSection41sSwitch) {
    gpu::RowFftConfig c;
    c.threads_per_block = 64;
    const gpu::RowFftPlan off = gpu::plan_row_fft_shape(256, 512, c, 1024, 227 * 1024, "an H100");
    EXPECT_EQ(off.threads, 64);
    c.threads_twice_length = true;
    const gpu::RowFftPlan on = gpu::plan_row_fft_shape(256, 512, c, 1024, 227 * 1024, "an H100");
    EXPECT_EQ(on.local_len, 256);
    EXPECT_EQ(on.threads, 512);
    bool said = false;
    for (const std::string& n : on.notes) said |= n.find("section 4.1") != std::string::npos;
    EXPECT_TRUE(said);
    EXPECT_EQ(gpu::plan_row_fft_shape(4096, 64, c, 1024, 227 * 1024, "an H100").threads, 1024);  // (the device's most)
}

// Seed 000 section 5.2.2's switch: the last min(5, log2 L) stages through warp shuffles, in whole warps (threads per
// block raised to a multiple of 32), said in the notes; off, nothing changes. Its script key sweeps off and on.
TEST(RowPlan, WarpShufflesAreSection522sSwitch) {
    gpu::RowFftConfig c;
    c.threads_per_block = 100;
    const gpu::RowFftPlan off = gpu::plan_row_fft_shape(1024, 512, c, 1024, 227 * 1024, "an H100");
    EXPECT_EQ(off.threads, 100);
    EXPECT_EQ(off.shuffle_stages, 0);
    c.warp_shuffles = true;
    const gpu::RowFftPlan on = gpu::plan_row_fft_shape(1024, 512, c, 1024, 227 * 1024, "an H100");
    EXPECT_EQ(on.threads, 128);
    EXPECT_EQ(on.shuffle_stages, 5);
    std::string notes;
    for (const std::string& n : on.notes) notes += n + "\n";
    EXPECT_NE(notes.find("whole warps"), std::string::npos) << notes;
    EXPECT_NE(notes.find("section 5.2.2"), std::string::npos) << notes;
    c.max_local_length = 8;  // three local stages: all of them shuffled
    EXPECT_EQ(gpu::plan_row_fft_shape(1024, 512, c, 1024, 227 * 1024, "an H100").shuffle_stages, 3);
    Settings s;
    EXPECT_EQ(set_option(s, "warp-shuffles", {"on"}), "");
    EXPECT_TRUE(s.custom.rows.warp_shuffles);
    EXPECT_NE(set_option(s, "warp-shuffles", {"yes"}), "");
    EXPECT_EQ(option_steps("warp-shuffles"), (std::vector<std::string>{"off", "on"}));
    EXPECT_EQ(set_option(s, "next-axis-stages", {"on"}), "");  // (section 5.1.1's, a volume's)
    EXPECT_TRUE(s.custom.rows.next_axis_stages);
    EXPECT_EQ(option_steps("next-axis-stages"), (std::vector<std::string>{"off", "on"}));
}

// A shared context the engine cannot make current (NVIDIA's EGL refused one on the worker's thread): the GL backend
// runs in a context of its own, the picture comes back to the host, and the engine says why (the viewer's Pipeline
// panel shows it) instead of the viewer believing its texture is written on the GPU.
TEST(Engine, AGlShareThatCannotBeMadeCurrentIsSaidAndThePictureComesToTheHost) {
    Rng rng;
    const Image img = random_image(rng, 64, 32, 1, 8);
    auto refused = std::make_shared<gpu::GlSharedContext>();
    refused->make_current = [] { return false; };
    refused->release = [] {};
    refused->proc_address = [](const char*) -> void* { return nullptr; };
    Engine e;
    e.set_gl_context(refused);
    EXPECT_TRUE(e.gl_shares_context());
    EXPECT_EQ(e.gl_share_refused(), "");
    e.set_image(img, "random");
    Settings s;
    s.backend = Backend::Gl;
    RunOptions o;
    o.want_rgba = false;
    o.picture_slot = 0;
    Frame f;
    try {
        f = e.run(s, o);
    } catch (const gpu::GpuUnavailable& x) {
        GTEST_SKIP() << "no OpenGL compute here: " << x.what();
    }
    EXPECT_FALSE(e.gl_shares_context());
    EXPECT_NE(e.gl_share_refused().find("cannot be made current"), std::string::npos) << e.gl_share_refused();
    EXPECT_EQ(f.picture_slot, -1);
    EXPECT_EQ(f.gl_texture, 0u);
    EXPECT_EQ(f.rgba.size(), std::size_t(f.width) * f.height);
    e.set_gl_context(nullptr);  // a new share (or none) forgets the refusal
    EXPECT_EQ(e.gl_share_refused(), "");
}

}  // namespace
}  // namespace specview::test
