// The frequency lab on the GPU backends: the masked picture equals the CPU's (within a level), the inverse of
// the masked spectrum equals ifft2(fft2(x) * mask) in double, a mask change re-runs only the view and the
// inverse (the forward spectrum is kept), and without a mask the inverse gives the plane back.
#include <gtest/gtest.h>

#include "app/lab/analysis.h"
#include "app/engine/engine.h"
#include "app/lab/filter.h"
#include "ui/worker/worker.h"
#include "app/core/plane.h"
#include "tests/support/gpu_test.h"
#include "tests/support/lab_oracle.h"
#include "tests/support/oracle.h"
#include "tests/support/random_image.h"

namespace specview::test {
namespace {

class Lab : public GpuTest {};

struct Path {
    Backend backend;
    gpu::CufftMode mode;
    PadMode pad;
};

std::string path_name(const Path& p) {
    return name_of(p.backend) + (p.backend == Backend::Cufft ? std::string(" ") + name_of(p.mode) : "") +
           (p.pad == PadMode::None ? " exact size" : "");
}

// Every GPU path the lab runs on: the three backends, cuFFT's two modes, a size that is not a power of two (cuFFT and
// custom-fast).
std::vector<Path> every_path() {
    return {Path{Backend::Custom, gpu::CufftMode::R2C, PadMode::Pow2},
            Path{Backend::CustomFast, gpu::CufftMode::R2C, PadMode::Pow2},
            Path{Backend::Cufft, gpu::CufftMode::R2C, PadMode::Pow2},
            Path{Backend::Cufft, gpu::CufftMode::C2C, PadMode::Pow2},
            Path{Backend::Cufft, gpu::CufftMode::R2C, PadMode::None},
            Path{Backend::CustomFast, gpu::CufftMode::R2C, PadMode::None}};
}

TEST_F(Lab, MaskedPictureAndInverseMatchTheCpuAndTheOracleOnEveryBackend) {
    Rng rng;
    const Image img = random_image(rng, 90, 60, 3, 8);
    double worst_inverse = 0;
    for (const Path& path : every_path())
        for (const auto& set : lab_sets()) {
            Settings s;
            s.backend = path.backend;
            s.cufft_mode = path.mode;
            s.pad = path.pad;
            s.window = Window::Hann;
            s.view.colormap = Colormap::Viridis;
            std::vector<RefFilter> refs;
            std::string what = path_name(path) + ":";
            ASSERT_TRUE(add_filters(set, s, refs, what)) << what;
            RunOptions o;
            o.want_inverse = true;
            Engine gpu, cpu;
            gpu.set_image(img, "random");
            cpu.set_image(img, "random");
            const Frame g = gpu.run(s, o);
            Settings cs = s;
            cs.backend = Backend::Cpu;
            const Frame c = cpu.run(cs, o);
            EXPECT_LE(max_level_difference(g.rgba.data(), c.rgba.data(), (long long)c.rgba.size(), s.view.colormap), 1)
                << what;
            const Plane& plane = cpu.prepared(cs).plane;
            const std::vector<cd> ref = ref_filtered(plane.v, plane.width, plane.height, refs);
            std::vector<cd> ref_re(ref.size());
            for (std::size_t i = 0; i < ref.size(); ++i) ref_re[i] = ref[i].real();
            std::vector<cf> got(g.inverse.begin(), g.inverse.end());
            const double err = rel_l2(got, ref_re);
            worst_inverse = std::max(worst_inverse, err);
            EXPECT_LE(err, 1e-5) << what << " (seed " << rng.seed() << ")";
        }
    std::cout << "[ lab      ] worst inverse rel L2 vs ifft2(fft2(x) * mask) in double: " << worst_inverse << "\n";
}

// The live lab's loop: a mask change re-runs the view and the inverse from the kept forward spectrum (no
// forward transform stage), and the result equals a fresh run's.
TEST_F(Lab, AMaskChangeKeepsTheForwardSpectrum) {
    Rng rng;
    const Image img = random_image(rng, 256, 256, 1);
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast}) {
        Settings s;
        s.backend = b;
        FilterSpec lp, hp;
        ASSERT_EQ(parse_filter("lowpass:0.1,gauss", &lp), "");
        ASSERT_EQ(parse_filter("highpass:0.05,butterworth:2", &hp), "");
        s.filters = {lp};
        RunOptions o;
        o.want_inverse = true;
        Engine engine;
        engine.set_image(img, "random");
        engine.run(s, o);
        engine.run(s, o);
        s.filters = {hp};
        const Frame f = engine.run(s, o);
        // The forward stages come before the first view stage (the inverse's own row FFTs come after it).
        bool forward = false, built = false, seen_view = false, full_again = false;
        for (const auto& t : f.timings) {
            seen_view |= t.name.find("view") != std::string::npos;
            if (!seen_view)
                forward |= t.name.find("row FFT 1") != std::string::npos || t.name.find("R2C") != std::string::npos ||
                           t.name.find("pass 1") != std::string::npos;
            full_again |= t.name.find("real rows") != std::string::npos;  // custom-fast's full spectrum for the inverse
            built |= t.name.find("mask (built on the device") != std::string::npos;
        }
        bool reused = false;
        for (const auto& n : f.notes) reused |= n.find("spectrum reused") != std::string::npos;
        EXPECT_TRUE(seen_view) << name_of(b);
        EXPECT_TRUE(reused) << name_of(b);
        EXPECT_FALSE(forward) << name_of(b) << ": the forward transform ran again for a mask change";
        EXPECT_FALSE(full_again) << name_of(b) << ": custom-fast's full spectrum was made again for a mask change";
        EXPECT_TRUE(built) << name_of(b);
        Engine fresh;
        fresh.set_image(img, "random");
        const Frame ref = fresh.run(s, o);
        EXPECT_EQ(f.rgba, ref.rgba) << name_of(b);
        EXPECT_EQ(f.inverse, ref.inverse) << name_of(b);
    }
}

// Brush dabs, a wedge and inversion on every backend: the inverse equals the oracle's; dabs added since the last
// run are stamped on the device incrementally, and a changed history is re-stamped whole: either way the
// result equals a fresh engine's (and the CPU's picture within a level).
TEST_F(Lab, BrushDabsStampIncrementallyAndMatchTheOracle) {
    Rng rng;
    const Image img = random_image(rng, 96, 64, 1, 8);
    FilterSpec wedge;
    ASSERT_EQ(parse_filter("wedge:120:15,butterworth:2", &wedge), "");
    const RefFilter w_ref{"wedge", "butterworth", 2, 120, 15, 0};
    const std::vector<RefDab> all = random_dabs(rng, 128, 64, 9);
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast}) {
        Engine engine;
        engine.set_image(img, "random");
        // Histories: a prefix, extended by more dabs (incremental), then one with a dab taken out (re-made).
        std::vector<std::vector<RefDab>> steps = {{all.begin(), all.begin() + 4}, all, {all.begin() + 1, all.end()}};
        for (std::size_t k = 0; k < steps.size(); ++k)
            for (bool invert : {false, true}) {
                const std::string what = name_of(b) + " step " + std::to_string(k) + (invert ? " inverted" : "");
                Settings s;
                s.backend = b;
                s.filters = {wedge};
                s.strokes = to_strokes(steps[k]);
                s.mask_invert = invert;
                s.view.colormap = Colormap::Viridis;
                RunOptions o;
                o.want_inverse = true;
                const Frame f = engine.run(s, o);
                Settings cs = s;
                cs.backend = Backend::Cpu;
                Engine cpu;
                cpu.set_image(img, "random");
                const Frame c = cpu.run(cs, o);
                EXPECT_LE(max_level_difference(f.rgba.data(), c.rgba.data(), (long long)c.rgba.size(), s.view.colormap),
                          1)
                    << what;
                const Plane& plane = cpu.prepared(cs).plane;
                const std::vector<cd> ref = ref_filtered_by(plane.v, plane.width, plane.height, [&](int x, int y) {
                    const double m = ref_mask({w_ref}, x, y, plane.width, plane.height) *
                                     ref_paint(steps[k], x, y, plane.width, plane.height);
                    return invert ? 1.0 - m : m;
                });
                std::vector<cd> ref_re(ref.size());
                for (std::size_t i = 0; i < ref.size(); ++i) ref_re[i] = ref[i].real();
                std::vector<cf> got(f.inverse.begin(), f.inverse.end());
                EXPECT_LE(rel_l2(got, ref_re), 1e-5) << what << " (seed " << rng.seed() << ")";
                Engine fresh;
                fresh.set_image(img, "random");
                EXPECT_EQ(fresh.run(s, o).inverse, f.inverse)
                    << what << ": incremental stamping differs from a fresh mask";
            }
    }
}

// The third view made on the device into the picture slot equals the host's lab_picture of the downloaded
// filtered plane (within a level), for the filtered image, the removed part and the difference, with its range.
TEST_F(Lab, TheThirdViewOnTheDeviceEqualsTheHostsPicture) {
    Rng rng;
    const Image img = random_image(rng, 100, 70, 1, 8);
    FilterSpec lp;
    ASSERT_EQ(parse_filter("lowpass:0.08,gauss", &lp), "");
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast})
        for (LabView view : {LabView::Filtered, LabView::Removed, LabView::Difference}) {
            const std::string what = name_of(b) + " " + name_of(view);
            Settings s;
            s.backend = b;
            s.filters = {lp};
            s.strokes = {BrushStroke{5, 3, 2, 0}};
            s.lab_view = view;
            Engine engine;
            engine.set_image(img, "random");
            RunOptions host;
            host.want_inverse = true;
            const Frame h = engine.run(s, host);
            std::vector<std::uint32_t> want;
            int ww = 0, wh = 0;
            float lo = 0, hi = 0;
            Engine cpu;
            cpu.set_image(img, "random");
            Settings cs = s;
            cs.backend = Backend::Cpu;
            lab_picture(h, cpu.prepared(cs).plane.v.data(), view, want, &ww, &wh, &lo, &hi);
            RunOptions dev;
            dev.want_inverse = true;
            dev.want_rgba = false;
            dev.picture_slot = 1;
            dev.lab_on_device = true;
            const Frame d = engine.run(s, dev);
            ASSERT_NE(d.device_lab_rgba, nullptr) << what;
            EXPECT_TRUE(d.inverse.empty()) << what << ": the filtered plane was downloaded all the same";
            ASSERT_EQ(d.lab_width, ww) << what;
            ASSERT_EQ(d.lab_height, wh) << what;
            EXPECT_EQ(ww, 100);
            EXPECT_EQ(wh, 70);
            std::vector<std::uint32_t> got(want.size());
            ASSERT_EQ(cudaMemcpy(got.data(), d.device_lab_rgba, got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
            const Colormap cm = view == LabView::Difference ? Colormap::Inferno : Colormap::Gray;
            EXPECT_LE(max_level_difference(got.data(), want.data(), (long long)want.size(), cm), 1) << what;
            EXPECT_NEAR(d.lab_lo, lo, 1e-5 * (1 + std::abs(lo))) << what;
            EXPECT_NEAR(d.lab_hi, hi, 1e-5 * (1 + std::abs(hi))) << what;
            EXPECT_NE(d.slot_lab_consumed_event, 0u) << what;
        }
}

// The analysis plots' reductions on the device: the GPU's radial and angular profiles equal the host's of the
// same spectrum (downloaded), from half (R2C) and full sources, at even and odd sizes; the gathered bins equal
// the spectrum's.
TEST_F(Lab, PowerProfilesAndBinsOnTheDeviceEqualTheHosts) {
    Rng rng;
    // Odd and even sizes (Nyquist row and column); each profile taken twice (the second with the counts kept).
    for (const auto& [iw, ih] : {std::pair{91, 61}, std::pair{64, 48}, std::pair{90, 33}})
        for (const Path& path : every_path()) {
            Engine engine;
            for (int again = 0; again < 2; ++again) {
                const std::string what =
                    path_name(path) + " " + std::to_string(iw) + "x" + std::to_string(ih) + (again ? " again" : "");
                const Image img = random_image(rng, iw, ih, 1, 8);
                Settings s;
                s.backend = path.backend;
                s.cufft_mode = path.mode;
                s.pad = path.pad;
                engine.set_image(img, "random");
                RunOptions o;
                o.want_spectrum = true;
                const Frame f = engine.run(s, o);
                const PowerProfiles p = engine.power_profiles(s);
                const Profile r = radial_profile(f.spectrum.data(), f.width, f.height),
                              a = angular_profile(f.spectrum.data(), f.width, f.height);
                ASSERT_EQ(p.radial.at, r.at) << what;
                EXPECT_EQ(p.radial.count, r.count) << what;
                for (std::size_t i = 0; i < r.at.size(); ++i)
                    EXPECT_NEAR(p.radial.mean_power[i], r.mean_power[i], 1e-5 * r.mean_power[i])
                        << what << " radial bin " << i;
                // Angles: the device's atan2 may round a bin on an exact degree boundary the other way.
                ASSERT_EQ(p.angular.at.size(), a.at.size()) << what;
                long long moved = 0;
                for (std::size_t i = 0; i < a.at.size(); ++i) moved += std::abs(p.angular.count[i] - a.count[i]);
                EXPECT_LE(moved, 4) << what;
                if (moved == 0)
                    for (std::size_t i = 0; i < a.at.size(); ++i)
                        EXPECT_NEAR(p.angular.mean_power[i], a.mean_power[i], 1e-5 * a.mean_power[i])
                            << what << " angle " << i;
                EXPECT_GT(p.ms, 0.0);
                std::vector<int> kx, ky;
                for (int k = 0; k < 50; ++k) {
                    kx.push_back(int(rng.engine()() % std::uint64_t(f.width)));
                    ky.push_back(int(rng.engine()() % std::uint64_t(f.height)));
                }
                const std::vector<std::complex<float>> v = engine.spectrum_bins(s, kx, ky);
                for (std::size_t i = 0; i < kx.size(); ++i)
                    EXPECT_EQ(v[i], f.spectrum[std::size_t(ky[i]) * f.width + kx[i]])
                        << what << " bin " << kx[i] << ", " << ky[i];
            }
        }
}

// The power sum on the device (RunOptions::accumulate_power) equals the CPU's, on every GPU path, at an even
// and an odd size.
TEST_F(Lab, ThePowerSumOnTheDeviceEqualsTheCpus) {
    Rng rng;
    for (const Path& path : every_path()) {
        const std::string what = path_name(path);
        Engine gpu, cpu;
        Settings s;
        s.backend = path.backend;
        s.cufft_mode = path.mode;
        s.pad = path.pad;
        Settings cs = s;
        cs.backend = Backend::Cpu;
        RunOptions o;
        o.accumulate_power = true;
        o.want_rgba = false;
        o.picture = PictureFormat::Level8;
        Image img;
        for (int k = 0; k < 4; ++k) {
            img = random_image(rng, 91, 61, 1, 8);
            gpu.set_image(img, "random");
            cpu.set_image(img, "random");
            gpu.run(s, o);
            cpu.run(cs, o);
        }
        // Those runs made no picture (the picture stages are skipped): a picture of the same image afterwards is
        // the one a fresh engine makes (nothing half-made is taken for a reusable spectrum).
        {
            Engine fresh;
            fresh.set_image(img, "random");
            const RunOptions po;
            EXPECT_EQ(gpu.run(s, po).rgba, fresh.run(s, po).rgba) << what;
        }
        std::vector<double> g, c;
        int gw = 0, gh = 0, cw = 0, ch = 0;
        ASSERT_EQ(gpu.take_power_sum(g, &gw, &gh), 4) << what;
        ASSERT_EQ(cpu.take_power_sum(c, &cw, &ch), 4) << what;
        ASSERT_EQ(gw, cw) << what;
        ASSERT_EQ(gh, ch) << what;
        double err = 0, norm = 0;
        for (std::size_t i = 0; i < c.size(); ++i) err += (g[i] - c[i]) * (g[i] - c[i]), norm += c[i] * c[i];
        EXPECT_LE(std::sqrt(err / norm), 1e-5) << what;
    }
}

}  // namespace
}  // namespace specview::test
