// The shared view math on known values: shift, views, ranges, colormaps, windows, size policy.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "app/engine/cpu_backend.h"
#include "app/core/plane.h"
#include "app/core/settings.h"
#include "gpu/common/spectrum_math.h"

namespace specview::test {
namespace {

TEST(Shift, MatchesNumpyFftshiftForEvenAndOddSizes) {
    // numpy.fft.fftshift(range(n)): which bin each shifted index shows.
    const std::vector<int> even{2, 3, 0, 1}, odd{3, 4, 0, 1, 2}, one{0}, two{1, 0};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(shift_source(i, 4), even[i]);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(shift_source(i, 5), odd[i]);
    EXPECT_EQ(shift_source(0, 1), one[0]);
    for (int i = 0; i < 2; ++i) EXPECT_EQ(shift_source(i, 2), two[i]);
    for (int n = 1; n < 40; ++n) {
        EXPECT_EQ(shift_source(n / 2, n), 0) << "DC lands at n/2 for n=" << n;
        for (int k = 0; k < n; ++k) EXPECT_EQ(shift_source(shift_dest(k, n), n), k) << n;
    }
}

TEST(Views, KnownValues) {
    EXPECT_FLOAT_EQ(view_value(View::LogMag, 3, 4), std::log1p(5.0f));
    EXPECT_NEAR(view_value(View::PowerDb, 3, 4), 10 * std::log10(25.0), 1e-5);
    EXPECT_NEAR(view_value(View::PowerDb, 0, 0), -200.0, 1e-3);  // the floor, finite
    EXPECT_FLOAT_EQ(view_value(View::Phase, 0, 1), float(M_PI / 2));
    EXPECT_FLOAT_EQ(view_value(View::Phase, -1, 0), float(M_PI));
    EXPECT_FLOAT_EQ(view_value(View::Real, 3, 4), 3);
    EXPECT_FLOAT_EQ(view_value(View::Imag, 3, 4), 4);
}

TEST(Views, NormalizeAndLevels) {
    EXPECT_EQ(normalize_to_range(5, 0, 10), 0.5f);
    EXPECT_EQ(normalize_to_range(-1, 0, 10), 0.0f);
    EXPECT_EQ(normalize_to_range(11, 0, 10), 1.0f);
    EXPECT_EQ(normalize_to_range(3, 2, 2), 0.0f);  // degenerate range
    EXPECT_EQ(normalize_to_range(NAN, 0, 1), 0.0f);
    EXPECT_EQ(level_of(0), 0);
    EXPECT_EQ(level_of(1), 255);
    EXPECT_EQ(level_of(0.5f), 128);
}

TEST(Ranges, EachModeOnKnownValues) {
    std::vector<float> v;
    for (int i = 0; i <= 100; ++i) v.push_back(float(100 - i));  // 100 .. 0, unsorted order
    ViewParams vp;
    float lo, hi;
    vp.range = RangeMode::Auto;
    compute_range(v, vp, &lo, &hi);
    EXPECT_EQ(lo, 0);
    EXPECT_EQ(hi, 100);
    vp.range = RangeMode::Percentile;
    vp.pct_lo = 5;
    vp.pct_hi = 90;
    compute_range(v, vp, &lo, &hi);
    EXPECT_EQ(lo, 5);
    EXPECT_EQ(hi, 90);
    vp.range = RangeMode::Fixed;
    vp.fixed_lo = -3;
    vp.fixed_hi = 7;
    compute_range(v, vp, &lo, &hi);
    EXPECT_EQ(lo, -3);
    EXPECT_EQ(hi, 7);
    vp.range = RangeMode::Top;
    vp.top_span = 30;
    compute_range(v, vp, &lo, &hi);
    EXPECT_EQ(lo, 70);
    EXPECT_EQ(hi, 100);
}

TEST(Colormaps, EndpointsMatchTheirReferences) {
    auto rgb = [](std::uint32_t c) {
        return std::array<int, 3>{int(c & 255), int((c >> 8) & 255), int((c >> 16) & 255)};
    };
    auto near = [&](std::uint32_t c, std::array<int, 3> want, int tol) {
        const auto got = rgb(c);
        for (int i = 0; i < 3; ++i)
            if (std::abs(got[i] - want[i]) > tol) return false;
        return (c >> 24) == 255;
    };
    const auto gray = make_colormap_lut(Colormap::Gray);
    EXPECT_TRUE(near(gray.rgba[0], {0, 0, 0}, 0));
    EXPECT_TRUE(near(gray.rgba[255], {255, 255, 255}, 0));
    EXPECT_TRUE(near(gray.rgba[128], {128, 128, 128}, 0));
    // matplotlib's first and last entries (#440154/#fde725, #000004/#fcffa4, #000004/#fcfdbf): the degree-6 fits
    // stay within 6 levels of them.
    EXPECT_TRUE(near(make_colormap_lut(Colormap::Viridis).rgba[0], {68, 1, 84}, 6));
    EXPECT_TRUE(near(make_colormap_lut(Colormap::Viridis).rgba[255], {253, 231, 37}, 6));
    EXPECT_TRUE(near(make_colormap_lut(Colormap::Inferno).rgba[0], {0, 0, 4}, 6));
    EXPECT_TRUE(near(make_colormap_lut(Colormap::Inferno).rgba[255], {252, 255, 164}, 6));
    EXPECT_TRUE(near(make_colormap_lut(Colormap::Magma).rgba[0], {0, 0, 4}, 6));
    EXPECT_TRUE(near(make_colormap_lut(Colormap::Magma).rgba[255], {252, 253, 191}, 6));
    // Turbo is Google's polynomial approximation, loose at the ends: dark at 0, green in the middle, red at 1.
    const auto turbo = make_colormap_lut(Colormap::Turbo);
    const auto t0 = rgb(turbo.rgba[0]), t5 = rgb(turbo.rgba[128]), t1 = rgb(turbo.rgba[255]);
    EXPECT_LT(t0[0] + t0[1] + t0[2], 120);
    EXPECT_GT(t5[1], 200);
    EXPECT_GT(t5[1], t5[0]);
    EXPECT_GT(t5[1], t5[2]);
    EXPECT_GT(t1[0], 4 * (t1[1] + t1[2]));
    // Perceptual maps get brighter from 0 to 255.
    for (Colormap cm : {Colormap::Gray, Colormap::Viridis, Colormap::Inferno, Colormap::Magma}) {
        const auto lut = make_colormap_lut(cm);
        auto luma = [&](int i) {
            auto c = rgb(lut.rgba[i]);
            return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
        };
        for (int i = 16; i < 256; i += 16) EXPECT_GT(luma(i), luma(i - 16)) << name_of(cm) << " at " << i;
    }
}

TEST(Windows, ShapesAndEndpoints) {
    const int n = 65;
    EXPECT_NEAR(window_value(Window::Hann, 0, n, 0.5), 0.0, 1e-12);
    EXPECT_NEAR(window_value(Window::Hann, n - 1, n, 0.5), 0.0, 1e-12);
    EXPECT_NEAR(window_value(Window::Hann, n / 2, n, 0.5), 1.0, 1e-12);
    EXPECT_NEAR(window_value(Window::Hamming, 0, n, 0.5), 0.08, 1e-12);
    EXPECT_NEAR(window_value(Window::Hamming, n / 2, n, 0.5), 1.0, 1e-12);
    EXPECT_NEAR(window_value(Window::Tukey, 0, n, 0.5), 0.0, 1e-12);
    EXPECT_NEAR(window_value(Window::Tukey, n / 2, n, 0.5), 1.0, 1e-12);
    EXPECT_NEAR(window_value(Window::Tukey, n / 4 + 2, n, 0.5), 1.0, 1e-12);  // flat top
    EXPECT_LT(window_value(Window::Tukey, n / 8, n, 0.5), 1.0);
    EXPECT_EQ(window_value(Window::None, 3, n, 0.5), 1.0);
    EXPECT_EQ(window_value(Window::Hann, 0, 1, 0.5), 1.0);
    for (int i = 0; i < n; ++i)  // symmetric
        EXPECT_NEAR(window_value(Window::Hann, i, n, 0.5), window_value(Window::Hann, n - 1 - i, n, 0.5), 1e-12);
}

TEST(SizePolicy, PadCropAndNone) {
    Plane src(5, 3);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 5; ++x) src.at(x, y) = float(1 + x + 10 * y);
    Settings s;
    s.pad = PadMode::Pow2;
    PreparedPlane p = prepare_plane(src, s);
    ASSERT_EQ(p.plane.width, 8);
    ASSERT_EQ(p.plane.height, 4);
    EXPECT_EQ(p.plane.at(4, 2), src.at(4, 2));  // content at the origin
    EXPECT_EQ(p.plane.at(5, 0), 0.0f);
    EXPECT_EQ(p.plane.at(0, 3), 0.0f);
    s.pad_fill = PadFill::Mean;
    p = prepare_plane(src, s);
    double mean = 0;
    for (float v : src.v) mean += v;
    mean /= src.v.size();
    EXPECT_NEAR(p.plane.at(7, 3), mean, 1e-5);
    s.pad = PadMode::Crop;
    p = prepare_plane(src, s);
    ASSERT_EQ(p.plane.width, 4);
    ASSERT_EQ(p.plane.height, 2);
    EXPECT_EQ(p.crop_x, 0);  // (5 - 4) / 2
    EXPECT_EQ(p.crop_y, 0);  // (3 - 2) / 2
    EXPECT_EQ(p.plane.at(0, 0), src.at(0, 0));
    Plane wide(9, 9, 1.0f);
    p = prepare_plane(wide, s);
    EXPECT_EQ(p.crop_x, 0);
    EXPECT_EQ(p.plane.width, 8);
    Plane big(12, 6, 1.0f);
    p = prepare_plane(big, s);
    EXPECT_EQ(p.crop_x, 2);
    EXPECT_EQ(p.crop_y, 1);
    s.pad = PadMode::None;
    p = prepare_plane(src, s);
    EXPECT_EQ(p.plane.width, 5);
    EXPECT_EQ(p.plane.height, 3);
    EXPECT_EQ(p.plane.v, src.v);
    // A window multiplies the content, the padding stays the fill.
    s.pad = PadMode::Pow2;
    s.pad_fill = PadFill::Zero;
    s.window = Window::Hann;
    p = prepare_plane(src, s);
    EXPECT_EQ(p.plane.at(0, 0), 0.0f);
    EXPECT_NEAR(p.plane.at(2, 1), src.at(2, 1), 1e-6);  // the centre of a 5x3 Hann is 1
}

// --pad-fill mean with a window never brings the edge cross back (issue 59): a 600 x 400 photo-like plane (a bright
// offset, smooth texture) padded to 1024 x 512 with a Hann window. The cross is the power on the axes (u = 0 or v = 0,
// away from DC), against zero padding's; with the fill before (the raw mean beside windowed edges that go
// to 0) it stood orders of magnitude above; now it is as low as with zero padding: the spectrum is the one --level mean
// gives, but for DC.
TEST(SizePolicy, MeanPaddingWithAWindowMakesNoCross) {
    const int w = 600, h = 400;
    Plane src(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            src.at(x, y) = float(0.7 + 0.1 * std::sin(0.05 * x + 0.3 * std::cos(0.02 * y)) + 0.05 * std::cos(0.11 * y));
    CpuFft fft;
    auto cross = [&](const Settings& s, std::vector<std::complex<float>>* out = nullptr) {
        const PreparedPlane p = prepare_plane(src, s);
        std::vector<std::complex<float>> F;
        fft.forward(p.plane, F);
        const int W = p.plane.width, H = p.plane.height;
        double axis = 0;
        for (int k = 8; k < 64; ++k)  // away from DC, along both axes
            axis += std::norm(F[std::size_t(k)]) + std::norm(F[std::size_t(k) * W]);
        if (out) *out = F;
        EXPECT_EQ(W, 1024);
        EXPECT_EQ(H, 512);
        return axis;
    };
    Settings s;
    s.window = Window::Hann;
    s.pad_fill = PadFill::Zero;
    const double zero = cross(s);
    s.pad_fill = PadFill::Mean;
    std::vector<std::complex<float>> mean_fill, levelled;
    const double mean = cross(s, &mean_fill);
    EXPECT_EQ(effective_level(s, plane_geometry(s, w, h)), Level::Mean);
    EXPECT_LT(mean, 1.5 * zero) << "mean padding with a window: the axes' power " << mean << ", zero padding's "
                                << zero;
    s.pad_fill = PadFill::Zero;
    s.level = Level::Mean;
    cross(s, &levelled);
    double diff = 0, norm = 0;
    for (std::size_t i = 1; i < levelled.size(); ++i) {  // all but DC
        diff += std::norm(mean_fill[i] - levelled[i]);
        norm += std::norm(levelled[i]);
    }
    EXPECT_LT(std::sqrt(diff / norm), 1e-6) << "--level mean's spectrum (the padding 0), but for DC";
    // Without a window (or without padding) the fill is the content's mean, as before.
    Settings plain;
    plain.pad_fill = PadFill::Mean;
    EXPECT_EQ(effective_level(plain, plane_geometry(plain, w, h)), Level::None);
    EXPECT_NEAR(prepare_plane(src, plain).plane.at(1000, 500), 0.7, 0.05);
}

// --pad square (issue 59): both sides to the next power of two of the larger, the content at the origin, so a bin is
// as many cycles/pixel across as down (a 600 x 400 photo: 1024 x 1024, not 1024 x 512).
TEST(SizePolicy, SquarePaddingGivesTrueAspect) {
    Settings s;
    s.pad = PadMode::Square;
    const PlaneGeometry g = plane_geometry(s, 600, 400);
    EXPECT_EQ(g.width, 1024);
    EXPECT_EQ(g.height, 1024);
    EXPECT_EQ(g.content_w, 600);
    EXPECT_EQ(g.content_h, 400);
    EXPECT_EQ(g.crop_x, 0);
    const PlaneGeometry tall = plane_geometry(s, 100, 300);
    EXPECT_EQ(tall.width, 512);
    EXPECT_EQ(tall.height, 512);
    EXPECT_EQ(*parse_name<PadMode>("square"), PadMode::Square);
    Plane src(5, 3, 1.0f);
    s.pad_fill = PadFill::Mean;
    const PreparedPlane p = prepare_plane(src, s);
    EXPECT_EQ(p.plane.width, 8);
    EXPECT_EQ(p.plane.height, 8);
    EXPECT_NEAR(p.plane.at(7, 7), 1.0, 1e-6) << "the fill as with pow2";
}

TEST(Names, RoundTrip) {
    for (const auto& n : view_names()) EXPECT_EQ(name_of(*parse_name<View>(n)), n);
    for (const auto& n : colormap_names()) EXPECT_EQ(name_of(*parse_name<Colormap>(n)), n);
    for (const auto& n : backend_names()) EXPECT_EQ(name_of(*parse_name<Backend>(n)), n);
    for (const auto& n : window_names()) EXPECT_EQ(name_of(*parse_name<Window>(n)), n);
    for (const auto& n : level_names()) EXPECT_EQ(name_of(*parse_name<Level>(n)), n);
    EXPECT_FALSE(parse_name<Window>("bartlett").has_value());
}

}  // namespace
}  // namespace specview::test
