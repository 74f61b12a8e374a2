// The device-resident pipeline behind the live viewer: the plane made on the device equals the host's, the
// picture slots hold the same picture as a host download, the cursor's one-bin DFT equals FFTW, plans stay
// out of the kernels' timings, and the worker hands GPU pictures over on the device.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <thread>

#include "app/engine/cpu_backend.h"
#include "app/engine/engine.h"
#include "app/io/memory_need.h"
#include "app/core/plane.h"
#include "app/engine/backend.h"
#include "ui/worker/worker.h"
#include "gpu/engine/gpu_engine.h"
#include "gpu/plane/plane_prep.h"
#include "tests/fixtures/image_writers.h"
#include "tests/support/gpu_test.h"
#include "tests/support/oracle.h"
#include "tests/support/random_image.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

class Live : public GpuTest {};

TEST_F(Live, DevicePlaneEqualsTheHostPlaneForEveryChannelWindowLevelAndSizePolicy) {
    Rng rng;
    gpu::PlanePrep prep;
    gpu::Stream stream;
    std::uint64_t version = 0;
    int cases = 0;
    for (auto [w, h, c, depth] : {std::tuple{300, 200, 3, 8}, std::tuple{64, 64, 1, 16}, std::tuple{33, 70, 4, 32},
                                  std::tuple{128, 17, 2, 8}, std::tuple{41, 29, 3, 16}, std::tuple{50, 50, 1, 8}}) {
        const Image img = random_image(rng, w, h, c, depth);
        ++version;
        for (Channel ch : {Channel::Luma, Channel::R, Channel::G, Channel::B, Channel::A}) {
            if (ch == Channel::A && !(c == 2 || c == 4)) continue;
            for (Window win : {Window::None, Window::Hann, Window::Hamming, Window::Tukey, Window::Blackman,
                               Window::BlackmanHarris, Window::Kaiser, Window::FlatTop, Window::Welch})
                for (auto [shape, level] :
                     {std::pair{WindowShape::Separable, Level::None}, std::pair{WindowShape::Radial, Level::Plane},
                      std::pair{WindowShape::Separable, Level::Mean}})
                    for (PadMode pad : {PadMode::Pow2, PadMode::Crop, PadMode::None})
                        for (PadFill fill : {PadFill::Zero, PadFill::Mean}) {
                            Settings s;
                            s.channel = ch;
                            s.window = win;
                            s.tukey_alpha = 0.3f;
                            s.kaiser_beta = 6.0f;
                            s.window_shape = shape;
                            s.level = level;
                            s.pad = pad;
                            s.pad_fill = fill;
                            const PreparedPlane host = prepare_plane(extract_channel(img, ch), s);
                            gpu::DeviceBuffer<float> plane(host.plane.v.size());
                            poison(plane);
                            prep.prepare(plane_recipe(img, s, version, true), plane.get(), stream.get(), nullptr);
                            stream.sync();
                            const auto got = download<float>(plane.get(), host.plane.v.size());
                            double worst = 0;
                            for (std::size_t i = 0; i < got.size(); ++i) {
                                const double d = std::abs(double(got[i]) - host.plane.v[i]);
                                worst = std::isfinite(got[i]) ? std::max(worst, d) : 1e30;
                            }
                            // Identical arithmetic; only the mean's summation order differs.
                            EXPECT_LE(worst, 1e-7)
                                << w << "x" << h << "x" << c << " depth " << depth << " channel " << name_of(ch)
                                << " window " << name_of(win) << " " << name_of(shape) << " level " << name_of(level)
                                << " pad " << name_of(pad) << " fill " << name_of(fill);
                            ++cases;
                        }
        }
    }
    EXPECT_GT(cases, 450 * 6);
}

TEST_F(Live, OneBinDftEqualsFftwDoubleAtRandomBins) {
    Rng rng;
    Engine engine;
    for (auto [w, h] : {std::pair{256, 128}, std::pair{1024, 1024}, std::pair{300, 200}}) {
        const Image img = random_image(rng, w, h, 1);
        engine.set_image(img, "random");
        Settings s;
        s.backend = Backend::Cufft;
        s.pad = PadMode::None;
        engine.run(s);
        const std::vector<cd> ref =
            dft2d(widen(std::vector<float>(static_cast<const float*>(img.data()),
                                           static_cast<const float*>(img.data()) + img.sample_count())),
                  h, w);
        double norm = 0;
        for (const cd& v : ref) norm += std::norm(v);
        norm = std::sqrt(norm / ref.size());  // RMS bin magnitude
        std::uniform_int_distribution<int> ux(0, w - 1), uy(0, h - 1);
        for (int k = 0; k < 40; ++k) {
            const int x = k == 0 ? 0 : ux(rng.engine()), y = k == 0 ? 0 : uy(rng.engine());
            const std::complex<double> got = engine.read_value(s, x, y);
            const cd want = ref[std::size_t(y) * w + x];
            EXPECT_LT(std::abs(got - want), 1e-5 * std::max(norm, std::abs(want)))
                << w << "x" << h << " bin " << x << "," << y << " seed " << rng.seed();
        }
    }
}

TEST_F(Live, PictureSlotsHoldTheSamePictureAsAHostDownloadOnEveryBackend) {
    Rng rng;
    Engine engine;
    engine.set_image(random_image(rng, 640, 480, 3), "random");
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast}) {
        Settings s;
        s.backend = b;
        s.window = Window::Hann;
        s.view.colormap = Colormap::Inferno;
        const Frame host = engine.run(s);
        for (int slot = 0; slot < gpu::GpuEngine::kPictureSlots; ++slot) {
            RunOptions o;
            o.want_rgba = false;
            o.picture_slot = slot;
            const Frame f = engine.run(s, o);
            ASSERT_NE(f.device_rgba, nullptr);
            EXPECT_TRUE(f.rgba.empty());
            EXPECT_NE(f.slot_consumed_event, 0u);
            const auto px = download<std::uint32_t>(f.device_rgba, std::size_t(f.width) * f.height);
            EXPECT_EQ(px, host.rgba) << name_of(b) << " slot " << slot;
        }
    }
}

// Pictures for files come back as levels (a quarter or half of the bytes): 8-bit levels are the colours'
// levels exactly, 16-bit ones the same values at 257 times the resolution, on every backend and range mode.
TEST_F(Live, LevelPicturesAreTheColoursLevelsOnEveryBackend) {
    Rng rng;
    const Image img = random_image(rng, 640, 480, 3);
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast})
        for (RangeMode range : {RangeMode::Auto, RangeMode::Percentile, RangeMode::Fixed}) {
            Settings s;
            s.backend = b;
            s.window = Window::Hann;
            s.view.colormap = Colormap::Viridis;
            s.view.range = range;
            s.view.fixed_lo = 2.0f;
            s.view.fixed_hi = 9.0f;
            const std::string what = name_of(b) + " " + name_of(range);
            const ColormapLut lut = make_colormap_lut(s.view.colormap);
            Engine engine;
            engine.set_image(img, "random");
            const Frame colours = engine.run(s);
            ASSERT_EQ(colours.picture, PictureFormat::Rgba8);
            for (PictureFormat format : {PictureFormat::Level8, PictureFormat::Level16}) {
                RunOptions o;
                o.picture = format;
                o.one_shot = true;
                Engine fresh;  // as the CLI runs: planned for the header's size first, then one run
                fresh.plan_for(s, img.width, img.height);
                fresh.set_image(img, "random");
                const Frame f = fresh.run(s, o);
                ASSERT_EQ(f.picture, format) << what;
                EXPECT_TRUE(f.rgba.empty()) << what;
                ASSERT_EQ(f.levels.size(), colours.rgba.size() * std::size_t(level_bytes(format))) << what;
                EXPECT_EQ(f.range_lo, colours.range_lo) << what;
                EXPECT_EQ(f.range_hi, colours.range_hi) << what;
                std::size_t bad = 0;
                for (std::size_t i = 0; i < colours.rgba.size(); ++i) {
                    if (format == PictureFormat::Level8) {
                        bad += lut.rgba[f.levels[i]] != colours.rgba[i];
                    } else {
                        std::uint16_t v;
                        std::memcpy(&v, &f.levels[2 * i], 2);
                        bad += lut.rgba[level_of(v / 65535.0f)] != colours.rgba[i];
                    }
                }
                EXPECT_EQ(bad, 0u) << what << " format " << int(format);
                bool early = false, first_run = false;
                for (const auto& t : f.timings) {
                    early |= t.name.find("plan (while the image was decoded)") != std::string::npos;
                    first_run |= t.name.find("plan (first run") != std::string::npos;
                }
                EXPECT_TRUE(early) << what;
                EXPECT_FALSE(first_run) << what << ": the run planned (computed) again";
            }
        }
}

// Whether a timed stage is (part of) the transform a view-only change can skip: custom's row passes, cuFFT, and
// custom-fast's first pass (its second pass always runs: the view is fused into it).
bool runs_transform(Backend b, const std::string& stage) {
    if (b == Backend::CustomFast) return stage.find("pass 1") != std::string::npos;
    return stage.find("row FFT") != std::string::npos || stage.find("cuFFT") != std::string::npos;
}

TEST_F(Live, AViewOnlyChangeRunsOnlyTheViewStagesAndGivesTheSamePicture) {
    Rng rng;
    Engine engine;
    const Image img = random_image(rng, 512, 256, 3);
    engine.set_image(img, "random");
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast}) {
        for (gpu::CufftMode mode : {gpu::CufftMode::R2C, gpu::CufftMode::C2C}) {
            if (b != Backend::Cufft && mode == gpu::CufftMode::C2C) continue;
            Settings s;
            s.backend = b;
            s.cufft_mode = mode;
            s.window = Window::Hann;
            engine.run(s);
            engine.run(s);  // planned and full
            for (auto [cm, range] :
                 {std::pair{Colormap::Turbo, RangeMode::Top}, std::pair{Colormap::Magma, RangeMode::Auto},
                  std::pair{Colormap::Gray, RangeMode::Percentile}}) {
                s.view.colormap = cm;
                s.view.range = range;
                engine.run(s);  // a new range mode plans first; this run and the next are view-only
                const Frame f = engine.run(s);
                bool transform = false, reused = false;
                for (const auto& t : f.timings) transform |= runs_transform(b, t.name);
                for (const auto& n : f.notes) reused |= n.find("spectrum reused") != std::string::npos;
                EXPECT_FALSE(transform) << name_of(b) << ": a view-only change ran the transform again";
                EXPECT_TRUE(reused) << name_of(b);
                Engine fresh;  // the same settings from scratch
                fresh.set_image(img, "random");
                const Frame ref = fresh.run(s);
                EXPECT_EQ(f.rgba, ref.rgba) << name_of(b) << " " << name_of(cm);
            }
            // A plane change runs the transform again.
            s.window = Window::Hamming;
            const Frame g = engine.run(s);
            bool transform = false;
            for (const auto& t : g.timings) transform |= runs_transform(b, t.name);
            EXPECT_TRUE(transform) << name_of(b);
        }
    }
}

TEST_F(Live, PlanTimeIsItsOwnLineOnTheFirstRunOnly) {
    Rng rng;
    Engine engine;
    engine.set_image(random_image(rng, 512, 512, 1), "random");
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast}) {
        Settings s;
        s.backend = b;
        auto has_plan = [](const Frame& f) {
            for (const auto& t : f.timings)
                if (t.name.rfind("plan", 0) == 0) return true;
            return false;
        };
        const Frame first = engine.run(s);
        const Frame second = engine.run(s);
        EXPECT_TRUE(has_plan(first)) << name_of(b);
        EXPECT_FALSE(has_plan(second)) << name_of(b);
        double kernels = 0;  // total_ms counts the transform and view stages, never the plan or the plane
        for (const auto& t : first.timings)
            if (t.name.find("plan") == std::string::npos && t.name.find("plane") == std::string::npos &&
                t.name.find("host") == std::string::npos && t.name.find("image") == std::string::npos)
                kernels += t.ms;
        EXPECT_NEAR(first.total_ms, kernels, 1e-6) << name_of(b);
    }
}

// The device-memory model each GPU backend is checked against before decoding: never below what a run really
// allocates (cudaMemGetInfo before the engine and after its run), and not wildly above.
TEST_F(Live, DeviceMemoryNeedModelCoversWhatARunAllocates) {
    Rng rng;
    const Image img = random_image(rng, 2048, 2048, 3, 8);
    FilterSpec lowpass;
    lowpass.r = 0.1;
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast})
        for (int extra : {0, 1, 2})  // nothing, --raw, the lab (a filter and --inverse)
            for (RangeMode range : {RangeMode::Auto, RangeMode::Percentile}) {
                const bool raw = extra == 1, lab = extra == 2;
                ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
                std::size_t free0 = 0, free1 = 0, total = 0;
                ASSERT_EQ(cudaMemGetInfo(&free0, &total), cudaSuccess);
                double used = 0;
                {
                    Engine engine;
                    engine.set_image(img, "random");
                    Settings s;
                    s.backend = b;
                    s.view.range = range;
                    if (lab) s.filters = {lowpass};
                    RunOptions o;
                    o.want_spectrum = raw;
                    o.want_inverse = lab;
                    engine.run(s, o);
                    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
                    ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
                    used = double(free0) - double(free1);
                }
                Settings s;
                s.backend = b;
                s.view.range = range;
                if (lab) s.filters = {lowpass};
                const double model = memory_need(ImageHeader{2048, 2048, 3, 8, "random"}, s, raw, false, lab).device;
                const std::string what = name_of(b) +
                                         (raw   ? " raw "
                                          : lab ? " lab "
                                                : " ") +
                                         name_of(range) + ": model " + human_bytes(model) + ", allocated " +
                                         human_bytes(used);
                std::cout << "  " << what << "\n";
                EXPECT_GE(model, used) << what;
                EXPECT_LE(model, 2.0 * used + 128.0 * 1024 * 1024) << what;
            }
}

TEST_F(Live, PlaneSettingsChangeTheDevicePlaneAndTheSpectrumFollows) {
    Rng rng;
    Engine engine;
    const Image img = random_image(rng, 200, 120, 4);
    engine.set_image(img, "random");
    CpuFft fft;
    for (Window win : {Window::None, Window::Tukey, Window::Hann})
        for (Channel ch : {Channel::Luma, Channel::A})
            for (PadFill fill : {PadFill::Zero, PadFill::Mean}) {
                Settings s;
                s.backend = Backend::Cufft;
                s.cufft_mode = gpu::CufftMode::C2C;
                s.window = win;
                s.channel = ch;
                s.pad_fill = fill;
                RunOptions o;
                o.want_spectrum = true;
                const Frame f = engine.run(s, o);
                const PreparedPlane p = prepare_plane(extract_channel(img, ch), s);
                const std::vector<cd> ref = dft2d(widen(p.plane.v), p.plane.height, p.plane.width);
                EXPECT_LT(rel_l2(f.spectrum, ref), 1e-5) << name_of(win) << " " << name_of(ch) << " " << name_of(fill);
            }
}

TEST_F(Live, WorkerHandsGpuPicturesOverOnTheDeviceAndReadsBins) {
    TempDir dir;
    fixtures::Pixels p{128, 128, 1, {}};
    for (int y = 0; y < 128; ++y)
        for (int x = 0; x < 128; ++x) p.v.push_back(0.5 + 0.5 * std::cos(2 * M_PI * (5.0 * x + 3.0 * y) / 128));
    const std::string path = dir.file("g.png");
    fixtures::write_file(path, fixtures::png(p, 16));
    Worker worker(1);
    worker.open(path);
    worker.wait_idle();
    WorkerUpdates u = worker.poll();
    ASSERT_TRUE(u.decoded.has_value());
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast}) {
        Settings s;
        s.backend = b;
        worker.run(s, 1, true);
        worker.wait_idle();
        u = worker.poll();
        ASSERT_TRUE(u.run.has_value());
        ASSERT_TRUE(u.run->ok) << u.run->error;
        const Frame& f = u.run->frame;
        ASSERT_NE(f.device_rgba, nullptr) << name_of(b);
        ASSERT_GE(f.picture_slot, 0);
        worker.release_slot(f.picture_slot);
        worker.read_value(s, 1, 5, 3);  // the grating's bin: |F| = 128^2 / 4 (16-bit quantisation aside)
        worker.wait_idle();
        u = worker.poll();
        ASSERT_TRUE(u.value.has_value());
        ASSERT_TRUE(u.value->ok);
        EXPECT_NEAR(std::abs(u.value->value), 128.0 * 128.0 / 4.0, 1.0) << name_of(b);
    }
}

}  // namespace
}  // namespace specview::test
