// The post kernels against the CPU views, pixel for pixel (each channel within one level), and the engine's
// backends against each other.
#include <gtest/gtest.h>

#include <cstdlib>

#include "app/engine/cpu_backend.h"
#include "app/engine/engine.h"
#include "app/core/settings.h"
#include "gpu/picture/spectrum_view.h"
#include "tests/support/gpu_test.h"
#include "tests/support/oracle.h"

namespace specview::test {
namespace {

class PostKernels : public GpuTest {};
class EngineGpu : public GpuTest {};

TEST_F(PostKernels, MatchTheCpuViewsPixelForPixel) {
    Rng rng;
    gpu::SpectrumViewer viewer;
    for (auto [w, h] : {std::pair{64, 64}, std::pair{33, 17}, std::pair{256, 128}})
        for (View v : {View::LogMag, View::PowerDb, View::Phase, View::Real, View::Imag})
            for (RangeMode r : {RangeMode::Auto, RangeMode::Percentile, RangeMode::Fixed, RangeMode::Top})
                for (Colormap cm : {Colormap::Gray, Colormap::Viridis, Colormap::Turbo})
                    for (bool shift : {true, false}) {
                        const std::size_t n = std::size_t(w) * h;
                        std::vector<cf> spec = rng.complex(n);
                        for (auto& s : spec) s *= 100.0f;
                        ViewParams vp;
                        vp.view = v;
                        vp.range = r;
                        vp.colormap = cm;
                        vp.shift = shift;
                        vp.pct_lo = 2;
                        vp.pct_hi = 98;
                        vp.fixed_lo = -20;
                        vp.fixed_hi = 30;
                        vp.top_span = 3;
                        std::vector<float> values;
                        compute_view_values(spec.data(), w, h, vp, values);
                        float lo, hi;
                        compute_range(values, vp, &lo, &hi);
                        std::vector<std::uint32_t> cpu;
                        colorize(values, lo, hi, cm, cpu);

                        gpu::DeviceBuffer<float2> d;
                        upload(d, spec);
                        gpu::DeviceBuffer<std::uint32_t> rgba(n);
                        poison(rgba);
                        viewer.run({d.get(), w, h, w, false}, vp, gpu::PictureTarget{rgba.get()}, nullptr, nullptr);
                        float glo, ghi;
                        viewer.range(&glo, &ghi, nullptr);
                        const auto gpu_px = download<std::uint32_t>(rgba.get(), n);
                        const std::string what = std::to_string(w) + "x" + std::to_string(h) + " view " + name_of(v) +
                                                 " range " + name_of(r) + " cmap " + name_of(cm) +
                                                 (shift ? " shifted" : "");
                        EXPECT_NEAR(glo, lo, 1e-4 * std::max(1.0f, std::abs(lo))) << what;
                        EXPECT_NEAR(ghi, hi, 1e-4 * std::max(1.0f, std::abs(hi))) << what;
                        EXPECT_LE(max_level_diff(gpu_px, cpu, cm), 1) << what;
                    }
}

TEST_F(PostKernels, HalfSpectrumGivesTheSamePictureAsTheFullOne) {
    Rng rng;
    gpu::SpectrumViewer viewer;
    for (auto [w, h] : {std::pair{64, 32}, std::pair{35, 19}}) {
        // A Hermitian spectrum: the DFT of a real plane.
        const std::vector<float> x = rng.real(std::size_t(w) * h);
        const auto F = dft2d(widen(x), h, w);
        std::vector<cf> full(F.begin(), F.end()), half;
        const int ld = w / 2 + 1;
        for (int y = 0; y < h; ++y)
            for (int c = 0; c < ld; ++c) half.push_back(full[std::size_t(y) * w + c]);
        gpu::DeviceBuffer<float2> dfull, dhalf;
        upload(dfull, full);
        upload(dhalf, half);
        gpu::DeviceBuffer<std::uint32_t> a(full.size()), b(full.size());
        ViewParams vp;
        vp.view = View::Phase;
        viewer.run({dfull.get(), w, h, w, false}, vp, gpu::PictureTarget{a.get()}, nullptr, nullptr);
        const auto pa = download<std::uint32_t>(a.get(), full.size());
        viewer.run({dhalf.get(), w, h, ld, true}, vp, gpu::PictureTarget{b.get()}, nullptr, nullptr);
        const auto pb = download<std::uint32_t>(b.get(), full.size());
        EXPECT_LE(max_level_diff(pa, pb, vp.colormap), 1) << w << "x" << h;
    }
}

Image random_image(Rng& rng, int w, int h) {
    Image img = Image::from_floats(w, h, 3, rng.real(std::size_t(w) * h * 3));
    return img;
}

TEST_F(EngineGpu, CustomCufftAndCpuShowTheSamePicture) {
    Rng rng;
    Engine engine;
    for (auto [w, h] : {std::pair{640, 480}, std::pair{256, 256}, std::pair{1000, 30}}) {
        engine.set_image(random_image(rng, w, h), "random");
        Settings s;
        s.view.range = RangeMode::Percentile;
        s.view.colormap = Colormap::Viridis;
        RunOptions o;
        o.want_spectrum = true;
        s.backend = Backend::Cpu;
        const Frame cpu = engine.run(s, o);
        s.backend = Backend::Custom;
        const Frame custom = engine.run(s, o);
        s.backend = Backend::Cufft;
        const Frame r2c = engine.run(s, o);
        s.cufft_mode = gpu::CufftMode::C2C;
        const Frame c2c = engine.run(s, o);
        s.backend = Backend::CustomFast;
        const Frame fast = engine.run(s, o);
        for (const Frame* f : {&custom, &r2c, &c2c, &fast}) {
            EXPECT_EQ(f->width, cpu.width);
            EXPECT_EQ(f->height, cpu.height);
            EXPECT_LE(max_level_diff(f->rgba, cpu.rgba, s.view.colormap), 1) << f->backend;
            std::vector<cd> ref(cpu.spectrum.begin(), cpu.spectrum.end());
            EXPECT_LT(rel_l2(f->spectrum, ref), 1e-5) << f->backend;
            EXPECT_GT(f->total_ms, 0.0) << f->backend;
        }
        EXPECT_EQ(custom.resources.size(), 3u);
    }
}

// The seed pipeline stays radix-2; custom-fast takes exact sizes through its mixed-radix kernels (issue 13).
TEST_F(EngineGpu, NonPowerOfTwoWithoutPaddingIsAClearErrorOnCustomAndFineOnCufftAndCustomFast) {
    Rng rng;
    Engine engine;
    for (auto [w, h] : {std::pair{300, 200}, std::pair{1920, 1080}, std::pair{127, 45}}) {
        engine.set_image(random_image(rng, w, h), "odd");
        Settings s;
        s.pad = PadMode::None;
        s.backend = Backend::Custom;
        EXPECT_THROW(engine.run(s), gpu::ConfigError);
        RunOptions o;
        o.want_spectrum = true;
        s.backend = Backend::Cpu;
        const Frame cpu = engine.run(s, o);
        for (Backend b : {Backend::Cufft, Backend::CustomFast}) {
            s.backend = b;
            const Frame f = engine.run(s, o);
            EXPECT_EQ(f.width, w) << name_of(b);
            EXPECT_EQ(f.height, h) << name_of(b);
            EXPECT_LE(max_level_diff(f.rgba, cpu.rgba, s.view.colormap), 1) << name_of(b) << " " << w << "x" << h;
            std::vector<cd> ref(cpu.spectrum.begin(), cpu.spectrum.end());
            EXPECT_LT(rel_l2(f.spectrum, ref), 1e-5) << name_of(b) << " " << w << "x" << h;
        }
    }
}

}  // namespace
}  // namespace specview::test
