// gpu/opencl (issue 62): seed 001's pipeline in OpenCL C against FFTW in double precision on fresh random planes, on
// every usable device the ICD loader lists (PoCL here and in CI; NVIDIA's OpenCL too on the GPU machine); the knobs'
// limits refused with their reason; outputs poisoned before each run.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "app/engine/staged_fft.h"
#include "gpu/common/errors.h"
#include "gpu/opencl/cl_fft.h"
#include "tests/support/device_picture.h"
#include "tests/support/oracle.h"
#include "tests/support/seed_stops.h"

namespace specview::test {
namespace {

using gpu::OpenClFft;
using gpu::OpenClFftConfig;

std::vector<gpu::OpenClDeviceInfo> usable_devices() {
    std::vector<gpu::OpenClDeviceInfo> out;
    for (const auto& d : gpu::list_opencl_devices())
        if (d.usable) out.push_back(d);
    return out;
}

#define REQUIRE_OPENCL(devices)                                                                        \
    do {                                                                                               \
        std::string why_;                                                                              \
        if ((devices).empty()) {                                                                       \
            gpu::list_opencl_devices(&why_);                                                           \
            if (std::getenv("SPECVIEW_EXPECT_OPENCL")) FAIL() << "no usable OpenCL device: " << why_; \
            GTEST_SKIP() << "no usable OpenCL device: " << why_;                                       \
        }                                                                                              \
    } while (0)

// The full 2D spectrum of a real plane through the pipeline, within 1e-5 (rel L2) of FFTW's double one, at square and
// oblong powers of two, rows of one block and rows that run global stages first (local length below the row), and
// several rows a work-group (H); every device.
TEST(OpenClFft, MatchesFftwDoubleAtEverySizeAndKnob) {
    const auto devices = usable_devices();
    REQUIRE_OPENCL(devices);
    Rng rng;
    struct Case {
        int w, h;
        OpenClFftConfig c;
    };
    const std::vector<Case> cases = {
        {1, 1, {}},         {2, 1, {}},          {1, 8, {}},         {8, 4, {}},        {64, 32, {}},
        {256, 256, {}},     {512, 8, {64, 1, 8}}, {4, 1024, {32, 4, 16}}, {2048, 2, {256, 2, 4}},
        {128, 64, {16, 8, 32}}, {32, 32, {2, 1, 1}},
    };
    for (const auto& d : devices) {
        OpenClFft fft(d.platform, d.device);
        for (const Case& k : cases) {
            const std::size_t n = std::size_t(k.w) * k.h;
            const std::vector<float> plane = rng.real(n, -1.0f, 1.0f);
            std::vector<cd> ref_in(n);
            for (std::size_t i = 0; i < n; ++i) ref_in[i] = plane[i];
            const std::vector<cd> ref = dft2d(ref_in, k.h, k.w);
            std::vector<cf> got(n, cf(std::numeric_limits<float>::quiet_NaN(), 0.0f));  // poisoned
            std::vector<gpu::OpenClPassTime> times;
            fft.forward(plane.data(), k.w, k.h, k.c, got.data(), &times);
            const double err = rel_l2(got, ref);
            EXPECT_LT(err, 1e-5) << d.name << " " << k.w << "x" << k.h << " local " << k.c.local_length << " H "
                                 << k.c.rows_per_group << " tile " << k.c.tile << " (seed " << rng.seed() << ")";
            ASSERT_GE(times.size(), 7u);  // upload, plane -> complex, row FFT, transpose, row FFT, transpose back, download
            for (const auto& t : times) EXPECT_GE(t.ms, 0.0) << t.what;
            // The same plane with its rows 3 floats apart more (FFTW's in-place buffer is padded), NaN between them.
            const int stride = k.w + 3;
            std::vector<float> padded(std::size_t(stride) * k.h, std::numeric_limits<float>::quiet_NaN());
            for (int y = 0; y < k.h; ++y)
                std::copy(plane.begin() + std::ptrdiff_t(y) * k.w, plane.begin() + std::ptrdiff_t(y + 1) * k.w,
                          padded.begin() + std::ptrdiff_t(y) * stride);
            std::vector<cf> again(n, cf(std::numeric_limits<float>::quiet_NaN(), 0.0f));
            fft.forward(padded.data(), k.w, k.h, k.c, again.data(), nullptr, stride);
            EXPECT_EQ(again, got) << d.name << " " << k.w << "x" << k.h << " with rows " << stride << " apart";
        }
    }
}

// Classroom: stopped after any butterfly stage of either row pass (in place, or the last stage's rows left
// bit-reversed), after either transpose, the data equal the CPU model's (app/engine/staged_fft.h, the CUDA custom
// kernels' butterflies): rows of one block, and rows whose first stages run in global memory.
TEST(OpenClFft, EveryStopShowsTheStagedModelsData) {
    const auto devices = usable_devices();
    REQUIRE_OPENCL(devices);
    Rng rng;
    OpenClFft fft(devices[0].platform, devices[0].device);
    using Kind = gpu::StopPoint::Kind;
    for (const auto& [w, h, local] : std::vector<std::tuple<int, int, int>>{{16, 8, 1024}, {64, 32, 8}}) {
        Plane plane(w, h);
        plane.v = rng.real(std::size_t(w) * h, -1.0f, 1.0f);
        OpenClFftConfig c;
        c.local_length = local;
        c.rows_per_group = 2;
        c.tile = 4;
        for (const gpu::StopPoint& stop : every_seed_stop(w, h)) {
            const StagedResult want = run_staged_2d(plane, stop);
            std::vector<cf> got(std::size_t(w) * h, cf(NAN, NAN));
            int rows = 0, cols = 0;
            fft.forward_until(plane.v.data(), w, h, c, stop, got, &rows, &cols);
            const std::string what = std::to_string(w) + "x" + std::to_string(h) + " stop " +
                                     std::to_string(int(stop.kind)) + " stage " + std::to_string(stop.stage) +
                                     (stop.bit_reversed ? " bit-reversed" : "");
            ASSERT_EQ(rows, want.rows) << what;
            ASSERT_EQ(cols, want.cols) << what;
            std::vector<cd> ref(want.data.begin(), want.data.end());
            EXPECT_LT(rel_l2(got, ref), 1e-5) << what;
        }
    }
    gpu::StopPoint past{Kind::RowPass1, 5, false};  // a 16-point row has 4 stages
    std::vector<cf> out;
    int rows = 0, cols = 0;
    const std::vector<float> plane(16 * 8, 0.0f);
    EXPECT_THROW(fft.forward_until(plane.data(), 16, 8, {}, past, out, &rows, &cols), gpu::ConfigError);
}

// What the kernels cannot do is refused before a launch, with the reason: sides that are not powers of two (radix 2),
// a work-group or local memory over the device's limits, knobs out of range.
// The picture made in kernels from the spectrum kept on the device is the CPU's (tests/support/device_picture.h), on
// every device.
TEST(OpenClFft, PictureOnTheDeviceIsTheCpusPicture) {
    const auto devices = usable_devices();
    REQUIRE_OPENCL(devices);
    Rng rng;
    for (const auto& d : devices) {
        SCOPED_TRACE(d.name);
        OpenClFft fft(d.platform, d.device);
        expect_device_picture_is_cpus<OpenClFft, OpenClFftConfig, gpu::OpenClPassTime>(fft, OpenClFftConfig{}, rng);
    }
}

TEST(OpenClFft, RefusesWhatTheDeviceOrTheRadixCannotRun) {
    const auto devices = usable_devices();
    REQUIRE_OPENCL(devices);
    OpenClFft fft(devices[0].platform, devices[0].device);
    std::vector<cf> out(100 * 64);
    std::vector<float> plane(100 * 64, 0.0f);
    try {
        fft.forward(plane.data(), 100, 64, {}, out.data());
        FAIL() << "100x64 ran on radix-2 kernels";
    } catch (const gpu::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("radix 2"), std::string::npos) << e.what();
    }
    OpenClFftConfig huge;
    huge.local_length = 1 << 20;  // half a million work-items a group
    huge.rows_per_group = 64;
    EXPECT_NE(fft.check(1 << 20, 2, huge), "");
    OpenClFftConfig odd;
    odd.local_length = 48;
    EXPECT_NE(fft.check(64, 64, odd).find("power of two"), std::string::npos);
    odd = {};
    odd.rows_per_group = 0;
    EXPECT_NE(fft.check(64, 64, odd), "");
    OpenClFftConfig tile;
    tile.tile = 4096;
    EXPECT_NE(fft.check(64, 64, tile).find("tile"), std::string::npos);
    EXPECT_EQ(fft.check(64, 64, {}), "");
}

// A device that is not there is GpuUnavailable naming it; the list names each device and says why one is unusable.
TEST(OpenClFft, AMissingDeviceIsUnavailableAndTheListSaysWhy) {
    std::string why;
    const auto all = gpu::list_opencl_devices(&why);
    if (all.empty()) {
        EXPECT_FALSE(why.empty());
        EXPECT_THROW(OpenClFft(), gpu::GpuUnavailable);
        return;
    }
    for (const auto& d : all) {
        EXPECT_FALSE(d.name.empty());
        EXPECT_EQ(d.usable, d.why.empty()) << d.name << ": " << d.why;
    }
    try {
        OpenClFft fft(99, 0);
        FAIL() << "platform 99 opened";
    } catch (const gpu::GpuUnavailable& e) {
        EXPECT_NE(std::string(e.what()).find("99:0"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace specview::test
