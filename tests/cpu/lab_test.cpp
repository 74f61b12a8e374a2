// The frequency lab on the CPU: --filter specs, the masks against the issue's formulas (written independently in
// tests/support/lab_oracle.h), the inverse of the masked spectrum against ifft2(fft2(x) * mask) in double, the
// radial and angular profiles, the power-law fit, and phase correlation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "app/lab/analysis.h"
#include "app/engine/cpu_backend.h"
#include "app/engine/engine.h"
#include "app/lab/filter.h"
#include "app/core/plane.h"
#include "gpu/common/errors.h"
#include "tests/support/lab_oracle.h"
#include "tests/support/oracle.h"
#include "tests/support/random_image.h"

namespace specview::test {
namespace {

using Case = LabCase;
std::vector<Case> cases() { return lab_cases(); }

TEST(Filter, SpecsParseAndPrintBackTheSame) {
    for (const Case& c : cases()) {
        FilterSpec f;
        ASSERT_EQ(parse_filter(c.spec, &f), "") << c.spec;
        FilterSpec g;
        ASSERT_EQ(parse_filter(filter_text(f), &g), "") << filter_text(f);
        EXPECT_EQ(f, g) << c.spec << " -> " << filter_text(f);
    }
}

// Specs print in the shortest form that reads back to the same value (issue 59: the lab panel listed
// "lowpass:0.10000000000000001,gauss"), and values with no short form keep every digit they need.
TEST(Filter, SpecsPrintInTheirShortestExactForm) {
    FilterSpec f;
    ASSERT_EQ(parse_filter("lowpass:0.1,gauss", &f), "");
    EXPECT_EQ(filter_text(f), "lowpass:0.1,gauss");
    ASSERT_EQ(parse_filter("wedge:18.43494882292201:3:0.05", &f), "");
    EXPECT_EQ(filter_text(f), "wedge:18.43494882292201:3:0.05");
    f.kind = FilterKind::LowPass;
    f.edge = FilterEdge::Ideal;
    f.r = 1.0 / 3.0;
    FilterSpec g;
    ASSERT_EQ(parse_filter(filter_text(f), &g), "") << filter_text(f);
    EXPECT_EQ(g.r, f.r) << filter_text(f);
}

TEST(Filter, BadSpecsSayWhatIsWrong) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"lowpass", "one radius"},
        {"lowpass:0", "must be in (0, 0.7071]"},
        {"lowpass:0.8", "must be in (0, 0.7071]"},
        {"lowpass:-0.1", "must be in"},
        {"lowpass:x", "not a number"},
        {"lowpass:nan", "not a number"},
        {"highpass:0.1:0.2", "one radius"},
        {"bandpass:0.2:0.1", "R1 must be below R2"},
        {"bandstop:0.1", "two radii"},
        {"notch:0.6:0:0.1", "|U| and |V|"},
        {"notch:0.1:0.1", "centre and a radius"},
        {"lowpass:0.1,butterworth", "order N"},
        {"lowpass:0.1,butterworth:0", "order N"},
        {"lowpass:0.1,butterworth:2.5", "order N"},
        {"lowpass:0.1,butterworth:65", "above 64"},
        {"lowpass:0.1,box", "unknown edge"},
        {"lowpass:0.1,gauss,gauss", "one edge suffix"},
        {"wedge:1", "takes a direction"},
        {"wedge:30:0", "(0, 90]"},
        {"wedge:30:91", "(0, 90]"},
        {"stripe:90:0", "(0, 1]"},
        {"stripe:90:0.1:0.8", "RMIN"},
        {"stripe:9999:0.1", "not a direction"},
        {"ring:0.1", "unknown filter"},
        {"", "unknown filter"},
    };
    for (const auto& [spec, why] : bad) {
        FilterSpec f;
        const std::string err = parse_filter(spec, &f);
        EXPECT_NE(err.find(why), std::string::npos) << spec << ": " << err;
        EXPECT_NE(err.find("--filter " + spec), std::string::npos) << "the message names the spec: " << err;
    }
}

TEST(Filter, MasksFollowTheFormulasAndAreExactlySymmetric) {
    for (auto [w, h] : {std::pair{64, 48}, std::pair{45, 27}, std::pair{32, 33}})
        for (const Case& c : cases()) {
            FilterSpec f;
            ASSERT_EQ(parse_filter(c.spec, &f), "");
            double worst = 0;
            int asym = 0;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const float m = mask_value(&f, 1, x, y, w, h);
                    worst = std::max(worst, std::abs(double(m) - ref_mask({c.ref}, x, y, w, h)));
                    asym += m != mask_value(&f, 1, (w - x) % w, (h - y) % h, w, h);
                }
            EXPECT_LE(worst, 1e-6) << c.spec << " at " << w << "x" << h;
            EXPECT_EQ(asym, 0) << c.spec << " at " << w << "x" << h << ": mask(-k) != mask(k)";
        }
}

// The brush: the last dab over a bin decides, dabs are mirrored, the mask stays exactly symmetric (Nyquist rows
// and columns too), filters multiply on top and inversion is 1 - mask; against the reference's per-bin rule.
TEST(Filter, BrushDabsFollowTheLastDabRuleAndInvertingIsOneMinus) {
    Rng rng;
    FilterSpec lp;
    ASSERT_EQ(parse_filter("lowpass:0.3,gauss", &lp), "");
    const RefFilter lp_ref{"lowpass", "gauss", 1, 0.3, 0, 0};
    for (auto [w, h] : {std::pair{64, 48}, std::pair{45, 27}, std::pair{32, 33}})
        for (bool invert : {false, true}) {
            const std::vector<RefDab> dabs = random_dabs(rng, w, h, 25);
            const std::vector<BrushStroke> strokes = to_strokes(dabs);
            const std::vector<float> half = half_mask({lp}, strokes, invert, w, h, 2);
            const int hw = w / 2 + 1;
            ASSERT_EQ(half.size(), std::size_t(hw) * h);
            double worst = 0;
            int painted = 0;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < hw; ++x) {
                    const double p = ref_paint(dabs, x, y, w, h);
                    painted += p == 0.0;
                    const double m = ref_mask({lp_ref}, x, y, w, h) * p;
                    worst = std::max(worst, std::abs(half[std::size_t(y) * hw + x] - (invert ? 1.0 - m : m)));
                }
            EXPECT_LE(worst, 1e-6) << w << "x" << h << (invert ? " inverted" : "") << " (seed " << rng.seed() << ")";
            EXPECT_GT(painted, 0) << "no dab landed";
            std::vector<float> layer(std::size_t(w) * h, 1.0f);
            stamp_strokes(strokes.data(), strokes.size(), w, h, layer.data());
            int asym = 0;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    asym += layer[std::size_t(y) * w + x] != layer[std::size_t((h - y) % h) * w + (w - x) % w];
            EXPECT_EQ(asym, 0) << w << "x" << h << ": the brush layer is not symmetric";
        }
    // Nothing at all is no mask; an inverted nothing removes everything.
    EXPECT_TRUE(half_mask({}, {}, false, 8, 8, 1).empty());
    for (float v : half_mask({}, {}, true, 8, 8, 1)) EXPECT_EQ(v, 0.0f);
}

// The mask's description: every part round-trips; a bad line is named with what is wrong.
TEST(Filter, MaskDescriptionsRoundTripAndBadLinesAreNamed) {
    std::vector<FilterSpec> fs(2);
    ASSERT_EQ(parse_filter("stripe:90:0.02:0.01,butterworth:3", &fs[0]), "");
    ASSERT_EQ(parse_filter("notch:0.1:-0.2:0.03", &fs[1]), "");
    const std::vector<BrushStroke> bs = {{3, -4, 2.5, 0}, {-10, 7, 1, 1}};
    const std::string text = mask_text(fs, bs, true);
    std::vector<FilterSpec> f2;
    std::vector<BrushStroke> b2;
    bool inv = false;
    ASSERT_EQ(parse_mask_text(text, &f2, &b2, &inv), "") << text;
    EXPECT_EQ(f2, fs);
    EXPECT_EQ(b2, bs);
    EXPECT_TRUE(inv);
    for (const auto& [bad, why] : std::vector<std::pair<std::string, std::string>>{
             {"filter lowpass:0.1\nfilter lowpass:2\n", "line 2: --filter lowpass:2"},
             {"# c\n\npaint 1 2\n", "line 3: paint: takes U V R"},
             {"erase 1 2 -1\n", "line 1: erase: R = -1"},
             {"invert-mask maybe\n", "line 1: expected"},
             {"blur 3\n", "line 1: expected"}}) {
        const std::string err = parse_mask_text(bad, &f2, &b2, &inv);
        EXPECT_NE(err.find(why), std::string::npos) << bad << " -> " << err;
    }
}

// The CPU filtered image with brush dabs, filters and inversion against ifft2(fft2(x) * mask) in double.
TEST(CpuLab, BrushedAndInvertedMasksMatchTheOracle) {
    Rng rng;
    const Image img = random_image(rng, 90, 60, 1, 8);
    for (bool invert : {false, true}) {
        Settings s;
        s.pad = PadMode::None;
        FilterSpec w;
        ASSERT_EQ(parse_filter("wedge:45:10,gauss", &w), "");
        s.filters = {w};
        const RefFilter w_ref{"wedge", "gauss", 1, 45, 10, 0};
        const std::vector<RefDab> dabs = random_dabs(rng, 90, 60, 12);
        s.strokes = to_strokes(dabs);
        s.mask_invert = invert;
        Engine engine;
        engine.set_image(img, "random");
        RunOptions o;
        o.want_inverse = true;
        const Frame f = engine.run(s, o);
        const Plane& plane = engine.prepared(s).plane;
        const std::vector<cd> ref = ref_filtered_by(plane.v, 90, 60, [&](int x, int y) {
            const double m = ref_mask({w_ref}, x, y, 90, 60) * ref_paint(dabs, x, y, 90, 60);
            return invert ? 1.0 - m : m;
        });
        std::vector<cd> ref_re(ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i) ref_re[i] = ref[i].real();
        std::vector<cf> got(f.inverse.begin(), f.inverse.end());
        EXPECT_LE(rel_l2(got, ref_re), 1e-5) << (invert ? "inverted" : "") << " (seed " << rng.seed() << ")";
    }
}

// The analysis plots' data from the engine (CPU): the profiles of the last run's unmasked spectrum equal the
// functions' on the spectrum itself (on any number of threads), and spectrum_bins gives its values; the
// log-phi grid and the line's bins land where the geometry says.
TEST(Analysis, EngineProfilesAndBinsAreThoseOfTheUnmaskedSpectrum) {
    Rng rng;
    const Image img = random_image(rng, 70, 50, 1, 8);
    Settings s;
    s.pad = PadMode::None;
    FilterSpec lp;
    ASSERT_EQ(parse_filter("lowpass:0.1", &lp), "");
    s.filters = {lp};  // masked picture; the measurements stay the transform's
    Engine engine;
    engine.set_image(img, "random");
    RunOptions o;
    o.want_spectrum = true;
    const Frame f = engine.run(s, o);
    const PowerProfiles p = engine.power_profiles(s);
    for (int threads : {1, 3}) {
        const Profile r = radial_profile(f.spectrum.data(), 70, 50, threads),
                      a = angular_profile(f.spectrum.data(), 70, 50, threads);
        ASSERT_EQ(p.radial.at, r.at);
        ASSERT_EQ(p.radial.count, r.count);
        ASSERT_EQ(p.angular.count, a.count);
        for (std::size_t i = 0; i < r.at.size(); ++i)
            EXPECT_NEAR(p.radial.mean_power[i], r.mean_power[i], 1e-9 * r.mean_power[i]);
        for (std::size_t i = 0; i < a.at.size(); ++i)
            EXPECT_NEAR(p.angular.mean_power[i], a.mean_power[i], 1e-9 * a.mean_power[i]);
    }
    long long total = 0;
    for (long long c : p.radial.count) total += c;
    EXPECT_EQ(total, 70 * 50 - 1) << "every bin but DC, once";
    const std::vector<int> kx = {0, 69, 35, 3}, ky = {0, 49, 25, 40};
    const std::vector<std::complex<float>> v = engine.spectrum_bins(s, kx, ky);
    for (std::size_t i = 0; i < kx.size(); ++i) EXPECT_EQ(v[i], f.spectrum[std::size_t(ky[i]) * 70 + kx[i]]);
    EXPECT_THROW(engine.spectrum_bins(s, {70}, {0}), std::exception);
    // Geometry: the log-phi grid's first column points along +u, its quarter column up (-v); radii grow.
    const LogPolarGrid g = log_polar_grid(64, 64, 8, 16);
    EXPECT_EQ(g.kx[std::size_t(15) * 8 + 0], 32);  // r1 = 32 bins along +u: bin 32 (Nyquist)
    EXPECT_EQ(g.ky[std::size_t(15) * 8 + 0], 0);
    EXPECT_EQ(g.kx[std::size_t(15) * 8 + 2], 0);
    EXPECT_EQ(g.ky[std::size_t(15) * 8 + 2], 64 - 32);  // up: v = -32
    EXPECT_EQ(g.kx[0], 1);                              // r0 = 1 bin
    const LineBins l = line_bins(64, 48, -3, 2, 5, -2);
    ASSERT_EQ(l.kx.size(), 9u);
    EXPECT_EQ(l.kx.front(), 61);
    EXPECT_EQ(l.ky.front(), 2);
    EXPECT_EQ(l.kx.back(), 5);
    EXPECT_EQ(l.ky.back(), 46);
    EXPECT_DOUBLE_EQ(l.at.back(), std::hypot(8.0 / 64, 4.0 / 48));
}

// The CPU keeps its brush layer: dabs added since the last run are stamped where they land, any other change
// re-makes it; either way the result equals a fresh engine's.
TEST(CpuLab, BrushDabsStampIncrementallyAndEqualAFreshMask) {
    Rng rng;
    const Image img = random_image(rng, 64, 48, 1, 8);
    const std::vector<RefDab> all = random_dabs(rng, 64, 64, 10);
    FilterSpec hp;
    ASSERT_EQ(parse_filter("highpass:0.02,gauss", &hp), "");
    for (bool with_filter : {false, true})
        for (bool invert : {false, true}) {
            Engine engine;
            engine.set_image(img, "random");
            const std::vector<std::vector<RefDab>> steps = {
                {all.begin(), all.begin() + 3}, {all.begin(), all.begin() + 7}, all, {all.begin() + 2, all.end()}, {}};
            for (std::size_t k = 0; k < steps.size(); ++k) {
                Settings s;
                if (with_filter) s.filters = {hp};
                s.strokes = to_strokes(steps[k]);
                s.mask_invert = invert;
                RunOptions o;
                o.want_inverse = true;
                const Frame f = engine.run(s, o);
                Engine fresh;
                fresh.set_image(img, "random");
                const Frame g = fresh.run(s, o);
                EXPECT_EQ(f.inverse, g.inverse)
                    << "step " << k << (with_filter ? " with a filter" : "") << (invert ? " inverted" : "");
                EXPECT_EQ(f.rgba, g.rgba) << "step " << k;
            }
        }
}

// A stack's power sum (RunOptions::accumulate_power): the sum of |F|^2 over the runs, at even and odd sizes,
// masks or not (the sum is of the unmasked spectrum); taking it starts it again; other sizes are refused.
TEST(Analysis, ThePowerSumIsTheSumOfTheSpectraSquared) {
    Rng rng;
    for (auto [w, h] : {std::pair{45, 27}, std::pair{64, 48}, std::pair{32, 33}}) {
        Engine engine;
        Settings s;
        s.pad = PadMode::None;
        FilterSpec lp;
        ASSERT_EQ(parse_filter("lowpass:0.1", &lp), "");
        std::vector<double> want(std::size_t(w) * h, 0.0);
        for (int k = 0; k < 3; ++k) {
            engine.set_image(random_image(rng, w, h, 1, 8), "random");
            s.filters = k == 1 ? std::vector<FilterSpec>{lp} : std::vector<FilterSpec>{};
            RunOptions o;
            o.want_spectrum = true;
            o.accumulate_power = true;
            const Frame f = engine.run(s, o);
            for (std::size_t i = 0; i < want.size(); ++i) want[i] += std::norm(std::complex<double>(f.spectrum[i]));
        }
        std::vector<double> got;
        int gw = 0, gh = 0;
        ASSERT_EQ(engine.take_power_sum(got, &gw, &gh), 3);
        ASSERT_EQ(gw, w);
        ASSERT_EQ(gh, h);
        double err = 0, norm = 0;
        for (std::size_t i = 0; i < want.size(); ++i)
            err += (got[i] - want[i]) * (got[i] - want[i]), norm += want[i] * want[i];
        EXPECT_LE(std::sqrt(err / norm), 1e-6) << w << "x" << h;
        EXPECT_EQ(engine.take_power_sum(got, &gw, &gh), 0) << "taking it starts it again";
    }
    Engine engine;
    Settings s;
    s.pad = PadMode::None;
    RunOptions o;
    o.accumulate_power = true;
    engine.set_image(random_image(rng, 16, 16, 1, 8), "a");
    engine.run(s, o);
    engine.set_image(random_image(rng, 16, 8, 1, 8), "b");
    EXPECT_THROW(engine.run(s, o), gpu::ConfigError);
}

// The symmetric masks keep the filtered image real: the imaginary part of the complex inverse is rounding.
TEST(Filter, SymmetricMasksKeepTheFilteredImageReal) {
    Rng rng;
    const int w = 40, h = 30;
    const std::vector<float> plane = rng.real(std::size_t(w) * h);
    for (const Case& c : cases()) {
        const std::vector<cd> out = ref_filtered(plane, w, h, {c.ref});
        double re = 0, im = 0;
        for (const cd& v : out) {
            re += v.real() * v.real();
            im += v.imag() * v.imag();
        }
        EXPECT_LE(std::sqrt(im), 1e-6 * std::sqrt(re)) << c.spec;
    }
}

// The CPU backend's filtered image against ifft2(fft2(plane) * mask) in double, for every kind and edge, two
// filters at once, and no filter at all (the plane back), at a padded and an exact odd size.
TEST(CpuLab, InverseOfTheMaskedSpectrumMatchesTheOracle) {
    Rng rng;
    const Image img = random_image(rng, 90, 60, 3, 8);
    for (PadMode pad : {PadMode::Pow2, PadMode::None})
        for (const auto& set : lab_sets()) {
            Settings s;
            s.pad = pad;
            s.window = Window::Hann;
            std::vector<RefFilter> refs;
            std::string what = pad == PadMode::None ? "exact:" : "pow2:";
            ASSERT_TRUE(add_filters(set, s, refs, what)) << what;
            Engine engine;
            engine.set_image(img, "random");
            RunOptions o;
            o.want_inverse = true;
            o.want_spectrum = true;
            o.one_shot = true;
            o.picture = PictureFormat::Level8;
            const Frame f = engine.run(s, o);
            const Plane& plane = engine.prepared(s).plane;
            ASSERT_EQ(f.inverse.size(), plane.v.size()) << what;
            const std::vector<cd> ref = ref_filtered(plane.v, plane.width, plane.height, refs);
            std::vector<cf> got(f.inverse.begin(), f.inverse.end());
            std::vector<cd> ref_re(ref.size());
            for (std::size_t i = 0; i < ref.size(); ++i) ref_re[i] = ref[i].real();
            EXPECT_LE(rel_l2(got, ref_re), 1e-5) << what << " (seed " << rng.seed() << ")";
            // --raw stays the unmasked transform.
            const std::vector<cd> F = dft2d(widen(plane.v), plane.height, plane.width);
            EXPECT_LE(rel_l2(f.spectrum, F), 1e-5) << what;
        }
}

// The picture shows the masked spectrum: an ideal low-pass leaves log(1 + 0) outside its radius, which the auto
// range makes the lowest level, and the rest as the unmasked picture shows it (within a level).
TEST(CpuLab, ThePictureShowsTheMaskedSpectrum) {
    Rng rng;
    const Image img = random_image(rng, 64, 64, 1, 8);
    Settings s;
    s.view.shift = false;
    FilterSpec f;
    ASSERT_EQ(parse_filter("lowpass:0.2", &f), "");
    s.filters = {f};
    Engine engine;
    engine.set_image(img, "random");
    const Frame masked = engine.run(s);
    Settings plain = s;
    plain.filters.clear();
    const Frame all = engine.run(plain);
    int outside = 0, wrong = 0;
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x) {
            const double r = std::hypot(ref_fftfreq(x, 64), ref_fftfreq(y, 64));
            const std::uint32_t px = masked.rgba[std::size_t(y) * 64 + x];
            if (r > 0.2) {
                ++outside;
                wrong += (px & 0xFF) != 0;
            }
        }
    EXPECT_GT(outside, 1000);
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(masked.range_lo, 0.0f);
    EXPECT_EQ(masked.range_hi, all.range_hi);  // DC is inside the pass band: the same maximum
}

// A fractal surface whose power falls as f^-beta: the radial profile's fitted slope is -beta within 0.05.
TEST(Analysis, RadialSlopeOfAFractalSurfaceIsItsExponent) {
    Rng rng;
    const int n = 512;
    for (double beta : {2.0, 2.8}) {
        std::uniform_real_distribution<double> phase(0, 2 * M_PI);
        std::vector<cd> S(std::size_t(n) * n);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const double f = std::hypot(ref_fftfreq(x, n), ref_fftfreq(y, n));
                if (f > 0) S[std::size_t(y) * n + x] = std::polar(std::pow(f, -beta / 2), phase(rng.engine()));
            }
        const std::vector<cd> surface = dft2d(S, n, n, true);
        std::vector<float> plane(surface.size());
        for (std::size_t i = 0; i < plane.size(); ++i) plane[i] = float(surface[i].real());
        CpuFft fft;
        std::vector<cf> F;
        Plane p(n, n);
        p.v = plane;
        fft.forward(p, F);
        const Profile radial = radial_profile(F.data(), n, n);
        const PowerLawFit fit = fit_power_law(radial, 0.02, 0.25);
        EXPECT_NEAR(fit.slope, -beta, 0.05) << "seed " << rng.seed();
        EXPECT_GT(fit.points, 100);
        long long counted = 0;
        for (long long c : radial.count) counted += c;
        EXPECT_EQ(counted, (long long)n * n - 1);  // every bin but DC, once
    }
}

// A grating's power sits in the radial bin of its frequency and the angular bin of its direction.
TEST(Analysis, AGratingsPowerIsAtItsRadiusAndAngle) {
    const int w = 128, h = 64;
    const int kx = 8, ky = -4;  // u = 1/16, v = -1/16: the angle of (u, -v) is 45 degrees
    Plane p(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) p.at(x, y) = float(std::cos(2 * M_PI * (double(kx) * x / w + double(ky) * y / h)));
    CpuFft fft;
    std::vector<cf> F;
    fft.forward(p, F);
    const Profile radial = radial_profile(F.data(), w, h), angular = angular_profile(F.data(), w, h);
    std::size_t top = 0;
    for (std::size_t i = 0; i < radial.at.size(); ++i)
        if (radial.mean_power[i] > radial.mean_power[top]) top = i;
    EXPECT_NEAR(radial.at[top], std::hypot(1.0 / 16, 1.0 / 16), 0.5 / w);
    top = 0;
    for (std::size_t i = 0; i < angular.at.size(); ++i)
        if (angular.mean_power[i] > angular.mean_power[top]) top = i;
    EXPECT_EQ(angular.at[top], 45.0);
    EXPECT_GE(angular.at.size(), 170u);  // 1-degree bins; a small grid leaves a few empty (left out)
    EXPECT_LE(angular.at.size(), 180u);
}

// Phase correlation finds an integer circular shift exactly and a sub-pixel one (made by the shift theorem)
// within 0.05 pixel; x right, y down, where A's content went in B.
TEST(Analysis, PhaseCorrelationFindsIntegerAndSubpixelShifts) {
    Rng rng;
    const int w = 96, h = 80;
    std::vector<float> a = rng.real(std::size_t(w) * h);
    // Smooth it a little (a box blur): a real image's spectrum falls off.
    std::vector<float> s(a.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float sum = 0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) sum += a[std::size_t((y + dy + h) % h) * w + (x + dx + w) % w];
            s[std::size_t(y) * w + x] = sum / 9;
        }
    CpuFft fft;
    Plane pa(w, h);
    pa.v = s;
    std::vector<cf> A;
    fft.forward(pa, A);
    for (auto [dx, dy] : {std::pair{5.0, -3.0}, std::pair{-20.0, 17.0}, std::pair{2.3, -1.7}, std::pair{-0.45, 0.8}}) {
        std::vector<cf> B(A.size());
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const double ph = -2 * M_PI * (ref_fftfreq(x, w) * dx + ref_fftfreq(y, h) * dy);
                B[std::size_t(y) * w + x] = cf(cd(A[std::size_t(y) * w + x]) * std::polar(1.0, ph));
            }
        const ShiftEstimate e = phase_correlation(A.data(), B.data(), w, h);
        EXPECT_NEAR(e.dx, dx, 0.05) << dx << ", " << dy;
        EXPECT_NEAR(e.dy, dy, 0.05) << dx << ", " << dy;
        EXPECT_GT(e.peak, 0.5);
        // Plain cross-correlation finds it too, its peak the normalised correlation (1 for an integer shift).
        std::vector<float> surface;
        const ShiftEstimate c = phase_correlation(A.data(), B.data(), w, h, 100, 0, &surface, false);
        EXPECT_NEAR(c.dx, dx, 0.05) << "cross " << dx << ", " << dy;
        EXPECT_NEAR(c.dy, dy, 0.05) << "cross " << dx << ", " << dy;
        if (dx == std::round(dx)) {
            EXPECT_NEAR(c.peak, 1.0, 1e-3) << "cross " << dx << ", " << dy;
        }
        // The surface's maximum sits at the integer shift, counted from the centre.
        ASSERT_EQ(surface.size(), std::size_t(w) * h);
        const std::size_t top = std::size_t(std::max_element(surface.begin(), surface.end()) - surface.begin());
        EXPECT_EQ(int(top % w) - w / 2, int(std::lround(dx))) << dx;
        EXPECT_EQ(int(top / w) - h / 2, int(std::lround(dy))) << dy;
    }
}

}  // namespace
}  // namespace specview::test
