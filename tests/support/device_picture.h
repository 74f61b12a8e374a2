// The picture an engine (gpu/glsl's GlFft, gpu/opencl's OpenClFft) makes on the device from the spectrum it kept
// against app/core/picture.cpp's on that same spectrum (read back): every view, range mode and output format, shifted
// and not; the range exactly the CPU's ranks, the levels within one of the CPU's (the device's log and atan are not
// libm's); the kept spectrum's bins; no picture once a run read its spectrum back. Outputs poisoned.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "app/core/picture.h"
#include "gpu/common/errors.h"
#include "tests/support/oracle.h"

namespace specview::test {

template <class Fft, class Config, class PassTime>
void expect_device_picture_is_cpus(Fft& fft, const Config& config, Rng& rng) {
    using cf = std::complex<float>;
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{64, 32}, {256, 128}, {1, 8}, {2, 1}, {4096, 2}}) {
        const std::size_t n = std::size_t(w) * h;
        std::vector<float> plane = rng.real(n, 0.0f, 1.0f);
        fft.forward(plane.data(), w, h, config, nullptr);
        ASSERT_TRUE(fft.kept());
        std::vector<cf> spectrum(n, cf(std::numeric_limits<float>::quiet_NaN(), 0.0f));
        fft.spectrum(spectrum.data());
        const std::vector<int> bx = {0, w - 1, w / 2}, by = {0, h - 1, h / 3};
        std::vector<cf> bins(3);
        fft.bins(bx.data(), by.data(), 3, bins.data());
        for (int i = 0; i < 3; ++i) EXPECT_EQ(bins[i], spectrum[std::size_t(by[i]) * w + bx[i]]);
        for (View view : {View::LogMag, View::PowerDb, View::Phase, View::Real, View::Imag})
            for (RangeMode range : {RangeMode::Auto, RangeMode::Percentile, RangeMode::Fixed, RangeMode::Top})
                for (PictureFormat format : {PictureFormat::Rgba8, PictureFormat::Level8, PictureFormat::Level16}) {
                    ViewParams vp;
                    vp.view = view;
                    vp.range = range;
                    vp.pct_lo = 2.0f;
                    vp.pct_hi = 97.0f;
                    vp.fixed_lo = 0.5f;
                    vp.fixed_hi = 3.0f;
                    vp.top_span = 20.0f;
                    vp.colormap = Colormap::Viridis;
                    vp.shift = range != RangeMode::Top;
                    std::vector<float> values;
                    compute_view_values(spectrum.data(), w, h, vp, values);
                    float lo = 0, hi = 0;
                    compute_range(values, vp, &lo, &hi);
                    const int bytes = format == PictureFormat::Rgba8 ? 4 : level_bytes(format);
                    std::vector<unsigned char> got(n * std::size_t(bytes), 0xAB);  // poisoned
                    float glo = NAN, ghi = NAN;
                    std::vector<PassTime> times;
                    fft.picture(vp, format, got.data(), &glo, &ghi, &times);
                    const std::string what = std::to_string(w) + "x" + std::to_string(h) + " view " +
                                             std::to_string(int(view)) + " range " + std::to_string(int(range)) +
                                             " format " + std::to_string(int(format));
                    const float tol = 1e-5f * std::max({1.0f, std::abs(lo), std::abs(hi)});
                    EXPECT_NEAR(glo, lo, tol) << what;
                    EXPECT_NEAR(ghi, hi, tol) << what;
                    EXPECT_GE(times.size(), 3u) << what;
                    const ColormapLut lut = make_colormap_lut(vp.colormap);
                    std::size_t off = 0;
                    for (std::size_t i = 0; i < n; ++i) {
                        const float t = normalize_to_range(values[i], lo, hi);
                        long want = 0, have = 0;
                        if (format == PictureFormat::Rgba8) {
                            std::uint32_t c;
                            std::memcpy(&c, got.data() + 4 * i, 4);
                            want = level_of(t);
                            have = -1;
                            for (int l = 0; l < 256 && have < 0; ++l)  // the level whose colour it is
                                if (lut.rgba[l] == c) have = l;
                            if (have < 0) {
                                ADD_FAILURE() << what << ": pixel " << i << " is not a colormap colour";
                                break;
                            }
                        } else if (format == PictureFormat::Level8) {
                            want = level_of(t);
                            have = got[i];
                        } else {
                            std::uint16_t l;
                            std::memcpy(&l, got.data() + 2 * i, 2);
                            want = long(level16_of(t));
                            have = l;
                        }
                        const long slack = format == PictureFormat::Level16 ? 64 : 1;
                        if (std::labs(want - have) > slack) ++off;
                    }
                    // Values at a level's edge may round the other way; no more than a few in a thousand.
                    EXPECT_LE(off, n / 200 + 1) << what << ": " << off << " of " << n << " pixels off";
                }
    }
    std::vector<float> plane(64, 1.0f);
    std::vector<cf> out(64);
    fft.forward(plane.data(), 8, 8, config, out.data());
    EXPECT_FALSE(fft.kept());
    float lo, hi;
    std::vector<std::uint32_t> pic(64);
    EXPECT_THROW(fft.picture({}, PictureFormat::Rgba8, pic.data(), &lo, &hi), gpu::ConfigError);
}

}  // namespace specview::test
