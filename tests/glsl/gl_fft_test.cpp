// gpu/glsl (issue 62): seed 001's pipeline in OpenGL compute shaders against FFTW in double precision on fresh random
// planes, on the headless context there is (Mesa's llvmpipe here and in CI; NVIDIA's driver on the GPU machine);
// every classroom stop against the CPU model; the limits refused with their reason; outputs poisoned.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "app/core/picture.h"
#include "app/engine/backend.h"
#include "app/engine/staged_fft.h"
#include "gpu/common/errors.h"
#include "gpu/glsl/gl_fft.h"
#include "tests/support/device_picture.h"
#include "tests/support/oracle.h"
#include "tests/support/seed_stops.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

using gpu::GlFft;
using gpu::GlFftConfig;

// The context, or a skip saying why there is none (a failure where SPECVIEW_EXPECT_GL says there must be one).
std::unique_ptr<GlFft> context_or_skip(std::string* why) {
    try {
        return std::make_unique<GlFft>();
    } catch (const gpu::GpuUnavailable& e) {
        *why = e.what();
        return nullptr;
    }
}
#define REQUIRE_GL(fft)                                                                       \
    std::string why_;                                                                         \
    const std::unique_ptr<GlFft> fft = context_or_skip(&why_);                                \
    if (!fft) {                                                                               \
        if (std::getenv("SPECVIEW_EXPECT_GL")) FAIL() << "no OpenGL compute context: " << why_; \
        GTEST_SKIP() << "no OpenGL compute context: " << why_;                                \
    }

TEST(GlFft, MatchesFftwDoubleAtEverySizeAndKnob) {
    REQUIRE_GL(fft);
    std::printf("[ gl       ] %s\n", fft->renderer().c_str());
    Rng rng;
    const std::vector<std::tuple<int, int, GlFftConfig>> cases = {
        {1, 1, {}}, {2, 1, {}}, {1, 8, {}}, {8, 4, {}}, {64, 32, {}}, {256, 256, {}}, {512, 8, {64, 1, 8}},
        {4, 1024, {32, 4, 16}}, {2048, 2, {256, 2, 4}}, {128, 64, {16, 8, 32}}, {32, 32, {2, 1, 1}},
        // Work-items looping over a block's butterflies; the automatic local length (shared memory's longest).
        {4096, 4, {0, 1, 16, 256}}, {1024, 64, {0, 2, 8, 64}}, {2048, 8, {1024, 1, 16, 32}}, {8, 8, {0, 1, 4, 3}},
    };
    for (const auto& [w, h, c] : cases) {
        const std::size_t n = std::size_t(w) * h;
        const std::vector<float> plane = rng.real(n, -1.0f, 1.0f);
        std::vector<cd> in(n);
        for (std::size_t i = 0; i < n; ++i) in[i] = plane[i];
        std::vector<cf> got(n, cf(std::numeric_limits<float>::quiet_NaN(), 0.0f));  // poisoned
        std::vector<gpu::GlPassTime> times;
        fft->forward(plane.data(), w, h, c, got.data(), &times);
        EXPECT_LT(rel_l2(got, dft2d(in, h, w)), 1e-5)
            << w << "x" << h << " local " << c.local_length << " H " << c.rows_per_group << " tile " << c.tile
            << " (seed " << rng.seed() << ")";
        ASSERT_EQ(times.size(), 5u);  // plane -> complex, row FFT, transpose, row FFT, transpose back
        for (const auto& t : times) EXPECT_GE(t.ms, 0.0) << t.what;
        // The same plane with its rows 3 floats apart more (FFTW's in-place buffer is padded), NaN between them.
        const int stride = w + 3;
        std::vector<float> padded(std::size_t(stride) * h, std::numeric_limits<float>::quiet_NaN());
        for (int y = 0; y < h; ++y)
            std::copy(plane.begin() + std::ptrdiff_t(y) * w, plane.begin() + std::ptrdiff_t(y + 1) * w,
                      padded.begin() + std::ptrdiff_t(y) * stride);
        std::vector<cf> again(n, cf(std::numeric_limits<float>::quiet_NaN(), 0.0f));
        fft->forward(padded.data(), w, h, c, again.data(), nullptr, stride);
        EXPECT_EQ(again, got) << w << "x" << h << " with rows " << stride << " apart";
    }
}

// The compiled programs kept on disk (GL_ARB_get_program_binary): a second context takes them from there instead of
// compiling, with the same spectrum; a damaged or foreign file is compiled again and replaced, never trusted.
TEST(GlFft, CompiledProgramsAreKeptOnDiskAndADamagedOneIsCompiledAgain) {
    TempDir dir;
    const char* old_cache = std::getenv("XDG_CACHE_HOME");
    const std::string restore = old_cache ? old_cache : "";
    setenv("XDG_CACHE_HOME", dir.path().c_str(), 1);
    struct Restore {
        std::string v;
        bool had;
        ~Restore() { had ? setenv("XDG_CACHE_HOME", v.c_str(), 1) : unsetenv("XDG_CACHE_HOME"); }
    } restore_env{restore, old_cache != nullptr};
    REQUIRE_GL(first);
    if (first->program_cache().empty()) GTEST_SKIP() << "this driver offers no program binary format";
    EXPECT_EQ(first->program_cache(), dir.file("specview/gl"));
    const int w = 64, h = 32;
    const GlFftConfig c{};
    Rng rng;
    const std::vector<float> plane = rng.real(std::size_t(w) * h, -1.0f, 1.0f);
    std::vector<cf> want(plane.size());
    first->prepare(w, h, c);
    first->forward(plane.data(), w, h, c, want.data());
    const int programs = first->programs_compiled();
    EXPECT_GT(programs, 0);
    EXPECT_EQ(first->programs_loaded(), 0);
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(first->program_cache())) files.push_back(e.path());
    ASSERT_EQ(int(files.size()), programs) << "one file a program, no temporary left";

    const auto run_again = [&](int loaded, int compiled, const char* what) {
        GlFft again;
        again.prepare(w, h, c);
        std::vector<cf> got(plane.size(), cf(std::numeric_limits<float>::quiet_NaN(), 0.0f));
        again.forward(plane.data(), w, h, c, got.data());
        EXPECT_EQ(got, want) << what;
        EXPECT_EQ(again.programs_loaded(), loaded) << what;
        EXPECT_EQ(again.programs_compiled(), compiled) << what;
    };
    run_again(programs, 0, "from the disk cache");

    // One file cut short, one with its binary's bytes scrambled, one another program's: each compiled again.
    ASSERT_GE(files.size(), 3u);
    std::filesystem::resize_file(files[0], 20);
    {
        std::fstream f(files[1], std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(24);
        const std::string junk(64, '\x5a');
        f.write(junk.data(), std::streamsize(junk.size()));
    }
    std::filesystem::copy_file(files[3 % files.size()], files[2], std::filesystem::copy_options::overwrite_existing);
    run_again(programs - 3, 3, "three damaged files");
    run_again(programs, 0, "the damaged files replaced");

    setenv("SPECVIEW_NO_GL_CACHE", "1", 1);
    EXPECT_EQ(GlFft().program_cache(), "") << "SPECVIEW_NO_GL_CACHE turns the cache off";
    unsetenv("SPECVIEW_NO_GL_CACHE");
}

TEST(GlFft, EveryStopShowsTheStagedModelsData) {
    REQUIRE_GL(fft);
    Rng rng;
    for (const auto& [w, h, local] : std::vector<std::tuple<int, int, int>>{{16, 8, 1024}, {64, 32, 8}}) {
        Plane plane(w, h);
        plane.v = rng.real(std::size_t(w) * h, -1.0f, 1.0f);
        for (const GlFftConfig& c : {GlFftConfig{local, 2, 4}, GlFftConfig{0, 1, 8, 4}})
        for (const gpu::StopPoint& stop : every_seed_stop(w, h)) {
            const StagedResult want = run_staged_2d(plane, stop);
            std::vector<cf> got;
            int rows = 0, cols = 0;
            fft->forward_until(plane.v.data(), w, h, c, stop, got, &rows, &cols);
            const std::string what = std::to_string(w) + "x" + std::to_string(h) + " stop " +
                                     std::to_string(int(stop.kind)) + " stage " + std::to_string(stop.stage) +
                                     (stop.bit_reversed ? " bit-reversed" : "");
            ASSERT_EQ(rows, want.rows) << what;
            ASSERT_EQ(cols, want.cols) << what;
            EXPECT_LT(rel_l2(got, std::vector<cd>(want.data.begin(), want.data.end())), 1e-5) << what;
        }
    }
}

TEST(GlFft, RefusesWhatTheContextOrTheRadixCannotRun) {
    REQUIRE_GL(fft);
    std::vector<cf> out(100 * 64);
    std::vector<float> plane(100 * 64, 0.0f);
    try {
        fft->forward(plane.data(), 100, 64, {}, out.data());
        FAIL() << "100x64 ran on radix-2 shaders";
    } catch (const gpu::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("radix 2"), std::string::npos) << e.what();
    }
    EXPECT_NE(fft->check(1 << 20, 2, {1 << 20, 64, 16}), "");
    EXPECT_NE(fft->check(64, 64, {48, 1, 16}).find("power of two"), std::string::npos);
    EXPECT_NE(fft->check(64, 64, {512, 0, 16}), "");
    EXPECT_NE(fft->check(64, 64, {512, 1, 4096}).find("tile"), std::string::npos);
    EXPECT_EQ(fft->check(64, 64, {}), "");
    // A plane over the largest storage buffer the context addresses (llvmpipe: 128 MiB, NVIDIA: 2 GiB) is refused.
    EXPECT_NE(fft->check(1 << 15, 1 << 15, {}).find("largest storage buffer"), std::string::npos)
        << fft->check(1 << 15, 1 << 15, {});
}

// The plane made in a shader from the image's samples (forward_recipe) is app/core/plane.cpp's: the spectrum equals
// the one of the host's plane, bit for bit with a separable window and no levelling (the same float operations),
// within 1e-6 otherwise (double division and sqrt need not round as libm's): every bit depth, channel, window shape,
// levelling, crop and pad; the samples go up once an image.
TEST(GlFft, ThePlaneMadeFromTheSamplesIsTheHostsPlane) {
    REQUIRE_GL(fft);
    Rng rng;
    struct Img {
        int w, h, channels, bits;
    };
    std::uint64_t version = 0;
    for (const Img& d : {Img{50, 30, 3, 8}, Img{33, 64, 1, 16}, Img{40, 24, 1, 32}, Img{20, 17, 4, 8}}) {
        Image img;
        img.width = d.w;
        img.height = d.h;
        img.channels = d.channels;
        img.bit_depth = d.bits;
        const std::size_t n = img.sample_count();
        auto bytes = std::make_shared<std::vector<unsigned char>>(img.sample_bytes());
        for (std::size_t i = 0; i < n; ++i) {
            const float u = rng.real(1, 0.0f, 1.0f)[0];
            if (d.bits == 8) (*bytes)[i] = static_cast<unsigned char>(u * 255.0f);
            if (d.bits == 16) reinterpret_cast<std::uint16_t*>(bytes->data())[i] = std::uint16_t(u * 65535.0f);
            if (d.bits == 32) reinterpret_cast<float*>(bytes->data())[i] = 4.0f * u - 1.0f;
        }
        img.storage = std::shared_ptr<const unsigned char>(bytes, bytes->data());
        ++version;
        for (const Window win : {Window::None, Window::Hann, Window::Tukey})
            for (const WindowShape shape : {WindowShape::Separable, WindowShape::Radial})
                for (const Level level : {Level::None, Level::Mean, Level::Plane})
                    for (const PadMode pad : {PadMode::Pow2, PadMode::Crop})
                        for (const Channel channel : {Channel::Luma, Channel::G, Channel::A}) {
                            if (channel == Channel::A && d.channels % 2) continue;  // (no alpha: an input error)
                            Settings s;
                            s.window = win;
                            s.window_shape = shape;
                            s.level = level;
                            s.pad = pad;
                            s.channel = channel;
                            const gpu::PlaneRecipe r = plane_recipe(img, s, version, true);
                            const std::string what = std::to_string(d.w) + "x" + std::to_string(d.h) + "x" +
                                                     std::to_string(d.channels) + " " + std::to_string(d.bits) +
                                                     "-bit window " + std::to_string(int(win)) + " shape " +
                                                     std::to_string(int(shape)) + " level " + std::to_string(int(level)) +
                                                     " pad " + std::to_string(int(pad)) + " channel " +
                                                     std::to_string(int(channel));
                            ASSERT_EQ(GlFft::recipe_error(r), "") << what;
                            const PreparedPlane host = prepare_plane(img, s);
                            const int pw = host.plane.width, ph = host.plane.height;
                            ASSERT_EQ(pw, r.plane_width) << what;
                            ASSERT_EQ(ph, r.plane_height) << what;
                            const std::size_t count = std::size_t(pw) * ph;
                            std::vector<cf> want(count), got(count, cf(std::numeric_limits<float>::quiet_NaN(), 0.0f));
                            fft->forward(host.plane.v.data(), pw, ph, {}, want.data());
                            std::vector<gpu::GlPassTime> times;
                            fft->forward_recipe(r, {}, got.data(), &times);
                            const bool exact = shape == WindowShape::Separable && level == Level::None;
                            if (exact) {
                                EXPECT_EQ(got, want) << what;
                            } else {
                                std::vector<cd> w(want.begin(), want.end());
                                EXPECT_LT(rel_l2(got, w), 1e-6) << what;
                            }
                            bool uploaded = false;
                            for (const auto& t : times) uploaded |= t.what.find("samples up") != std::string::npos;
                            EXPECT_EQ(uploaded, win == Window::None && shape == WindowShape::Separable &&
                                                    level == Level::None && pad == PadMode::Pow2 &&
                                                    channel == Channel::Luma)
                                << what << ": the samples go up once an image";
                        }
    }
    gpu::PlaneRecipe mean;
    mean.fill_mean = true;
    mean.samples = &version;
    EXPECT_NE(GlFft::recipe_error(mean), "");
}

// The picture made in shaders from the spectrum kept on the device is the CPU's (tests/support/device_picture.h).
TEST(GlFft, PictureOnTheDeviceIsTheCpusPicture) {
    REQUIRE_GL(fft);
    Rng rng;
    expect_device_picture_is_cpus<GlFft, GlFftConfig, gpu::GlPassTime>(*fft, GlFftConfig{}, rng);
}

}  // namespace
}  // namespace specview::test
