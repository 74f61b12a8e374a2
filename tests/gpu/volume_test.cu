// A volume's 3D FFT on the GPU (gpu/engine/volume_engine.h): cuFFT's 3D plans (R2C in place, C2C), custom-fast's 3D
// R2C and the seed's 3D pipeline (row FFT x3 with four transposes, or the final two merged) against FFTW in double on
// fresh random volumes, odd sizes for cuFFT and powers of two for custom-fast's and the seed's, over the seed's knobs;
// the host buffer's padding never leaks in.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

#include "app/core/picture.h"
#include "app/engine/volume_gpu.h"
#include "app/volume/volume.h"
#include "gpu/engine/multi_gpu_volume.h"
#include "gpu/common/errors.h"
#include "gpu/engine/volume_engine.h"
#include "gpu/fast/fft_fast.h"
#include "gpu/runtime/device_info.h"
#include "tests/support/gpu_test.h"
#include "tests/support/oracle.h"
#include "tests/support/random_image.h"

namespace specview::test {
namespace {

class VolumeFft : public GpuTest {};

// numpy's fftn of a (d, h, w) volume in double: each slab's 2D DFT, then the DFT along z.
std::vector<cd> dft3(const std::vector<float>& v, int w, int h, int d) {
    std::vector<cd> planes;
    for (int z = 0; z < d; ++z) {
        std::vector<cd> p(v.begin() + std::ptrdiff_t(z) * w * h, v.begin() + std::ptrdiff_t(z + 1) * w * h);
        const std::vector<cd> f = dft2d(p, h, w);
        planes.insert(planes.end(), f.begin(), f.end());
    }
    const std::size_t n = std::size_t(w) * h;
    std::vector<cd> columns(planes.size());
    for (int z = 0; z < d; ++z)
        for (std::size_t i = 0; i < n; ++i) columns[i * d + z] = planes[z * n + i];
    const std::vector<cd> along = dft_rows(columns, d, int(n));
    for (int z = 0; z < d; ++z)
        for (std::size_t i = 0; i < n; ++i) planes[z * n + i] = along[i * d + z];
    return planes;
}

// A random volume in FFTW's in-place r2c layout (rows of 2 (w/2 + 1) floats; the padding NaN, which must not leak),
// run through the engine; the half spectrum's error against the double DFT.
double half_error(gpu::VolumeEngine& e, const gpu::VolumeRequest& r, int w, int h, int d, Rng& rng,
                  std::string* what = nullptr) {
    const int hw = w / 2 + 1, stride = 2 * hw;
    const std::vector<float> v = rng.real(std::size_t(w) * h * d, -1.0f, 1.0f);
    std::vector<float> host(std::size_t(stride) * h * d, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t row = 0; row < std::size_t(h) * d; ++row)
        for (int x = 0; x < w; ++x) host[row * stride + x] = v[row * w + x];
    const gpu::VolumeRun run = e.r2c_in_place(host.data(), w, h, d, r);
    if (what) *what = run.what;
    EXPECT_GT(run.transform_ms, 0.0);
    EXPECT_FALSE(run.stages.empty());
    const std::vector<cd> full = dft3(v, w, h, d);
    std::vector<cd> want;
    for (std::size_t row = 0; row < std::size_t(h) * d; ++row)
        for (int x = 0; x < hw; ++x) want.push_back(full[row * w + x]);
    return rel_l2(reinterpret_cast<const cf*>(host.data()), want.data(), want.size());
}

TEST_F(VolumeFft, CufftR2cAndC2cMatchTheDoubleDftAtOddSizes) {
    Rng rng;
    gpu::VolumeEngine e(device().device);
    const int sizes[][3] = {{15, 9, 7}, {1, 1, 1}, {2, 3, 1}, {32, 16, 8}, {64, 64, 64}, {100, 30, 3}, {97, 5, 11}};
    for (gpu::CufftMode mode : {gpu::CufftMode::R2C, gpu::CufftMode::C2C})
        for (const auto& sz : sizes) {
            gpu::VolumeRequest r;
            r.path = gpu::VolumePath::Cufft;
            r.cufft_mode = mode;
            EXPECT_LT(half_error(e, r, sz[0], sz[1], sz[2], rng), 1e-5)
                << (mode == gpu::CufftMode::R2C ? "R2C " : "C2C ") << sz[0] << "x" << sz[1] << "x" << sz[2] << " seed "
                << rng.seed();
            EXPECT_GT(gpu::VolumeEngine::device_bytes(r, sz[0], sz[1], sz[2]), 8.0 * sz[0] * sz[1] * sz[2] / 2);
        }
}

// custom-fast's 3D R2C in place (real rows in pairs along x, each slab's ld columns along y as a batch, the columns
// along z) at powers of two with each side at its extremes in turn (2 and 4096, the batch and the strides with them),
// and cuFFT's R2C in its place, said, at sizes it does not take.
TEST_F(VolumeFft, CustomFastR2cMatchesTheDoubleDftOrSaysCufftRan) {
    Rng rng;
    gpu::VolumeEngine e(device().device);
    gpu::VolumeRequest r;
    r.path = gpu::VolumePath::Fast;
    const int sizes[][3] = {{2, 2, 2},   {32, 16, 8},  {64, 64, 64}, {4096, 2, 4}, {2, 4096, 2}, {4, 2, 4096},
                            {256, 8, 4}, {8, 256, 16}, {16, 4, 256}, {128, 32, 2}, {15, 9, 7},   {64, 64, 3}};
    for (const auto& sz : sizes) {
        const int w = sz[0], h = sz[1], d = sz[2];
        const bool fast = gpu::FastFft::c2c_3d_supported(w, h, d);
        std::string what;
        const std::string at = std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d);
        EXPECT_LT(half_error(e, r, w, h, d, rng, &what), 1e-5) << at << " seed " << rng.seed();
        EXPECT_NE(what.find(fast ? "custom-fast CUDA 3D R2C" : "takes powers of two, 2 to 4096 a side: cuFFT's ran"),
                  std::string::npos)
            << at << ": " << what;
        // in place, no workspace: the half spectrum's bytes (cuFFT's estimate beside them where it runs)
        const double half = 8.0 * (w / 2 + 1) * double(h) * d;
        if (fast) EXPECT_EQ(gpu::VolumeEngine::device_bytes(r, w, h, d), half) << at;
        if (!fast) EXPECT_GE(gpu::VolumeEngine::device_bytes(r, w, h, d), half) << at;
    }
    // cuFFT's plan and custom-fast's in turn on one engine: each run's buffers are its own path's
    gpu::VolumeRequest c;
    c.path = gpu::VolumePath::Cufft;
    for (const gpu::VolumeRequest& q : {c, r, c, r}) EXPECT_LT(half_error(e, q, 32, 16, 8, rng), 1e-5);
}

// cuFFT's multi-GPU plan (issue 64, --split-volume) on the GPUs there are: 0 and 1 on a host of several; on one GPU
// the same device named twice where cuFFT takes that (else skipped, saying what cuFFT said). The half spectrum comes
// back in natural order into FFTW's layout, the padding (NaN) never leaking in; what each GPU held adds up.
TEST_F(VolumeFft, TheSplitOverGpusMatchesTheDoubleDft) {
    EXPECT_THROW(gpu::MultiGpuVolumeFft({0, 1}, 16, 64, 64), gpu::ConfigError);  // a side under 32
    EXPECT_THROW(gpu::MultiGpuVolumeFft({0}, 64, 64, 64), gpu::ConfigError);      // one GPU
    const int count = gpu::cuda_device_count();
    const std::vector<int> gpus = count >= 2 ? std::vector<int>{0, 1} : std::vector<int>{0, 0};
    Rng rng;
    const int sizes[][3] = {{32, 32, 32}, {64, 48, 40}, {96, 32, 33}};
    for (const auto& sz : sizes) {
        const int w = sz[0], h = sz[1], d = sz[2], hw = w / 2 + 1, stride = 2 * hw;
        const std::vector<float> v = rng.real(std::size_t(w) * h * d, -1.0f, 1.0f);
        std::vector<float> host(std::size_t(stride) * h * d, std::numeric_limits<float>::quiet_NaN());
        for (std::size_t row = 0; row < std::size_t(h) * d; ++row)
            for (int x = 0; x < w; ++x) host[row * stride + x] = v[row * w + x];
        std::unique_ptr<gpu::MultiGpuVolumeFft> f;
        try {
            f = std::make_unique<gpu::MultiGpuVolumeFft>(gpus, w, h, d);
        } catch (const gpu::GpuError& e) {
            if (count >= 2) throw;
            GTEST_SKIP() << "one GPU here, and cuFFT does not split over it named twice: " << e.what();
        }
        f->forward(host.data());
        const std::vector<cd> full = dft3(v, w, h, d);
        std::vector<cd> want;
        for (std::size_t row = 0; row < std::size_t(h) * d; ++row)
            for (int x = 0; x < hw; ++x) want.push_back(full[row * w + x]);
        const std::string at = std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d);
        EXPECT_LT(rel_l2(reinterpret_cast<const cf*>(host.data()), want.data(), want.size()), 1e-5)
            << at << " seed " << rng.seed();
        const gpu::MultiGpuLayout& l = f->layout();
        EXPECT_TRUE(l.measured);
        ASSERT_EQ(l.shares.size(), gpus.size());
        int planes = 0;
        double data = 0;
        for (const gpu::MultiGpuShare& sh : l.shares) planes += sh.planes, data += sh.data_bytes;
        EXPECT_EQ(planes, d) << at;
        EXPECT_GE(data, 8.0 * hw * h * d) << at << ": the GPUs hold the whole padded volume\n" << l.text();
        EXPECT_GT(f->fft_ms, 0.0);
    }
}

TEST_F(VolumeFft, TheSeedPipelineMatchesOverItsKnobsAndBothTransposeForms) {
    Rng rng;
    gpu::VolumeEngine e(device().device);
    const int sizes[][3] = {{2, 2, 2}, {16, 8, 4}, {64, 32, 128}, {256, 4, 2}, {8, 512, 16}, {4096, 2, 4}};
    const int configs[][3] = {{256, 0, 32}, {64, 2, 8}, {1024, 0, 64}, {32, 1, 16}};  // threads, H, tile
    for (const auto& sz : sizes)
        for (const auto& c : configs)
            for (bool merge : {false, true}) {
                gpu::VolumeRequest r;
                r.path = gpu::VolumePath::Custom;
                r.custom.rows.threads_per_block = c[0];
                r.custom.rows.block_height = c[1];
                r.custom.transpose.tile = c[2];
                r.custom.merge_final_transposes = merge;
                EXPECT_LT(half_error(e, r, sz[0], sz[1], sz[2], rng), 1e-5)
                    << sz[0] << "x" << sz[1] << "x" << sz[2] << " threads " << c[0] << " H " << c[1] << " tile " << c[2]
                    << (merge ? " merged" : " four transposes") << " seed " << rng.seed();
            }
    // Rows longer than one block holds run global stages first.
    gpu::VolumeRequest r;
    r.path = gpu::VolumePath::Custom;
    r.custom.rows.max_local_length = 64;
    EXPECT_LT(half_error(e, r, 512, 16, 256, rng), 1e-5) << "global stages, seed " << rng.seed();
    // Seed 000 section 4.1's switch: twice the local length in threads a block, whatever threads per block says;
    // section 5.2.2's: the last stages of every row pass through warp shuffles (48 threads raised to whole warps).
    for (const auto& sz : sizes)
        for (const bool shuffles : {false, true}) {
            gpu::VolumeRequest t;
            t.path = gpu::VolumePath::Custom;
            t.custom.rows.threads_per_block = shuffles ? 48 : 32;
            t.custom.rows.threads_twice_length = !shuffles;
            t.custom.rows.warp_shuffles = shuffles;
            EXPECT_LT(half_error(e, t, sz[0], sz[1], sz[2], rng), 1e-5)
                << sz[0] << "x" << sz[1] << "x" << sz[2] << (shuffles ? " warp shuffles" : " 2 x length threads")
                << ", seed " << rng.seed();
        }
    // Section 5.1.1's: each pass runs the next axis's first stages across its block's rows (blocks of 1 to 16 rows;
    // none where rows are longer than a block holds: the local length lowered to 64 makes global stages), with
    // shuffles and both transpose forms too.
    const int carry_sizes[][3] = {{2, 2, 2}, {16, 8, 4}, {64, 32, 128}, {256, 4, 2}, {8, 512, 16}, {32, 64, 256},
                                  {1024, 16, 8}};
    for (const auto& sz : carry_sizes)
        for (int variant = 0; variant < 5; ++variant) {
            gpu::VolumeRequest t;
            t.path = gpu::VolumePath::Custom;
            t.custom.rows.next_axis_stages = true;
            t.custom.rows.block_height = variant == 1 ? 2 : variant == 2 ? 16 : 0;
            t.custom.rows.max_local_length = variant == 3 ? 64 : 0;
            t.custom.rows.warp_shuffles = variant == 4;
            t.custom.merge_final_transposes = variant % 2 == 0;
            EXPECT_LT(half_error(e, t, sz[0], sz[1], sz[2], rng), 1e-5)
                << sz[0] << "x" << sz[1] << "x" << sz[2] << " next-axis stages, variant " << variant << ", seed "
                << rng.seed();
        }
}

TEST_F(VolumeFft, TheSeedPipelineRefusesWhatItCannotRunBeforeAnyLaunch) {
    gpu::VolumeEngine e(device().device);
    gpu::VolumeRequest r;
    r.path = gpu::VolumePath::Custom;
    for (const auto& sz : {std::array<int, 3>{15, 8, 8}, {8, 12, 8}, {8, 8, 1}, {8, 8, 3}}) {
        try {
            e.check(r, sz[0], sz[1], sz[2]);
            ADD_FAILURE() << sz[0] << "x" << sz[1] << "x" << sz[2] << " was not refused";
        } catch (const gpu::ConfigError& err) {
            EXPECT_NE(std::string(err.what()).find("power of two"), std::string::npos) << err.what();
        }
    }
    r.custom.rows.threads_per_block = 4096;
    EXPECT_THROW(e.check(r, 16, 16, 16), gpu::ConfigError);
    r.custom.rows.threads_per_block = 256;
    r.custom.transpose.tile = 12;
    EXPECT_THROW(e.check(r, 16, 16, 16), gpu::ConfigError);
    std::vector<float> host(2 * 9 * 8 * 8, 0.0f);
    EXPECT_THROW(e.r2c_in_place(host.data(), 16, 8, 8, r), gpu::ConfigError);
}

// The reference: the same frames and settings on the CPU backend (FFTW).
void on_the_cpu(VolumeSpectrum& v, Settings s, const std::vector<Image>& frames) {
    s.backend = Backend::Cpu;
    v.begin(s, frames[0].width, frames[0].height, int(frames.size()), 2);
    v.add_frames(frames, "random");
    v.transform();
}

// The spectrum kept on the GPU (VolumeSpectrum::attach_device): every view made there — slices at several bins,
// projections, the range's lattice (strided and whole), the shells — equals the host's views of the same spectrum
// brought down (view values within float rounding of the device's logarithms; shell counts exactly, sums within
// 1e-12), and the spectrum brought down is FFTW's (rel L2 < 1e-5): for cuFFT R2C (rows W/2 + 1 bins apart), C2C and
// the seed pipeline (whole rows), odd sizes and cubes, voxel sizes given.
TEST_F(VolumeFft, ViewsMadeWhereTheSpectrumIsKeptEqualTheHostsViewsOfIt) {
    Rng rng;
    struct Case {
        Backend backend;
        gpu::CufftMode mode;
        int w, h, d;
    };
    const Case cases[] = {{Backend::Cufft, gpu::CufftMode::R2C, 15, 9, 7},  {Backend::Cufft, gpu::CufftMode::R2C, 64, 64, 64},
                          {Backend::Cufft, gpu::CufftMode::C2C, 20, 7, 12}, {Backend::Custom, gpu::CufftMode::R2C, 32, 16, 8},
                          {Backend::Cufft, gpu::CufftMode::R2C, 1, 1, 1},   {Backend::Cufft, gpu::CufftMode::R2C, 100, 30, 3}};
    // (a range's lo and hi within rounding of the larger of them: top's lo is its hi less the span, e.g. 60 - 80 dB,
    // and carries the rounding of the 60)
    auto near = [](const std::vector<float>& a, const std::vector<float>& b, const std::string& what) {
        ASSERT_EQ(a.size(), b.size()) << what;
        const bool range = what.rfind("range", 0) == 0;
        const double scale = range ? std::max(std::fabs(b[0]), std::fabs(b[1])) : 0.0;
        double worst = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
            worst = std::max(worst, double(std::fabs(a[i] - b[i])) /
                                        std::max({1.0, scale, double(std::fabs(b[i]))}));
        EXPECT_LT(worst, 2e-6) << what;
    };
    for (const Case& c : cases) {
        Settings s;
        s.backend = c.backend;
        s.cufft_mode = c.mode;
        s.pad = PadMode::None;
        s.window = Window::Hann;
        std::vector<Image> frames;
        for (int z = 0; z < c.d; ++z) frames.push_back(random_image(rng, c.w, c.h, 1, 32));
        const std::string name = std::to_string(c.w) + "x" + std::to_string(c.h) + "x" + std::to_string(c.d) + " " +
                                 name_of(c.backend) + (c.mode == gpu::CufftMode::C2C ? " c2c" : "") + " seed " +
                                 std::to_string(rng.seed());
        VolumeSpectrum cpu, gpu_vol;
        on_the_cpu(cpu, s, frames);
        GpuVolumeFft engine(s);
        gpu_vol.begin(s, c.w, c.h, c.d, 2);
        gpu_vol.add_frames(frames, "random");
        const VolumeGeometry& g = gpu_vol.geometry();
        gpu_vol.transform(nullptr, nullptr, [&](float* b) { engine.run(b, g.width, g.height, g.depth, true); });
        gpu_vol.attach_device(kept_on_device(engine));
        ASSERT_TRUE(gpu_vol.on_device()) << name;

        // Everything asked of the device first (nothing is on the host yet) ...
        struct Asked {
            std::string what;
            std::vector<float> values;
        };
        std::vector<Asked> device, host;
        auto ask = [&](const VolumeSpectrum& v, std::vector<Asked>& out) {
            int w = 0, h = 0;
            for (View view : {View::LogMag, View::Phase, View::PowerDb})
                for (bool shift : {true, false}) {
                    ViewParams vp;
                    vp.view = view;
                    vp.shift = shift;
                    const std::string tag = " view " + std::to_string(int(view)) + (shift ? " shifted" : "");
                    for (VolumeAxis a : {VolumeAxis::X, VolumeAxis::Y, VolumeAxis::Z}) {
                        const int n = a == VolumeAxis::X ? g.width : a == VolumeAxis::Y ? g.height : g.depth;
                        for (int k : {0, 1, -1, -(n / 2), (n - 1) / 2})
                            if (k >= -(n / 2) && k <= (n - 1) / 2)
                                out.push_back({std::string("slice ") + axis_name(a) + ":" + std::to_string(k) + tag,
                                               v.slice_values(a, k, vp, &w, &h)});
                        for (bool max : {true, false})
                            out.push_back({std::string(max ? "max" : "sum") + " along " + axis_name(a) + tag,
                                           v.projection_values(a, max, vp, &w, &h)});
                    }
                    out.push_back({"lattice (all)" + tag, v.sample_values(vp)});
                    out.push_back({"lattice (every few)" + tag, v.sample_values(vp, 50)});
                    // The display range: ranked on the device, it is the host's compute_range of the very sample
                    // the device gives (exactly), and near the host's of the spectrum brought down.
                    for (RangeMode mode : {RangeMode::Percentile, RangeMode::Auto, RangeMode::Top})
                        for (std::size_t most : {std::size_t(1) << 20, std::size_t(50)}) {
                            ViewParams rp = vp;
                            rp.range = mode;
                            rp.pct_lo = 2;
                            rp.pct_hi = 99.5f;
                            float lo = NAN, hi = NAN, want_lo = NAN, want_hi = NAN;
                            v.display_range(rp, &lo, &hi, most);
                            const std::string what = "range " + std::to_string(int(mode)) + " of " +
                                                     std::to_string(most) + tag;
                            if (v.on_device()) {
                                compute_range(v.sample_values(rp, most), rp, &want_lo, &want_hi);
                                EXPECT_EQ(lo, want_lo) << what;
                                EXPECT_EQ(hi, want_hi) << what;
                            }
                            out.push_back({what, {lo, hi}});
                        }
                }
            std::vector<std::complex<float>> bins;  // (the viewer's readout under the pointer)
            v.slice_values(VolumeAxis::Y, g.height > 1 ? 1 : 0, ViewParams{}, &w, &h, &bins);
            std::vector<float> parts;
            for (const std::complex<float>& b : bins) parts.insert(parts.end(), {b.real(), b.imag()});
            out.push_back({"a slice's bins", parts});
            const Profile p = v.shell_profile(2), q = v.shell_profile(2, 0.1, 0.2, 0.5);
            for (const Profile* r : {&p, &q}) {
                std::vector<float> counts, sums;
                for (std::size_t i = 0; i < r->count.size(); ++i) {
                    counts.push_back(float(r->count[i]));
                    sums.push_back(float(r->mean_power[i]));
                }
                out.push_back({"shell counts", counts});
                out.push_back({"shell powers", sums});
            }
        };
        ask(gpu_vol, device);
        EXPECT_TRUE(gpu_vol.on_device()) << name;
        // ... then the spectrum brought down (half() does) and the host's views of it.
        std::vector<cf> got, want;
        for (int z = 0; z < g.depth; ++z)
            for (int y = 0; y < g.height; ++y)
                for (int x = 0; x < g.width; ++x) {
                    got.push_back(gpu_vol.at(x, y, z));
                    want.push_back(cpu.at(x, y, z));
                }
        std::vector<cd> want_d(want.begin(), want.end());
        EXPECT_LT(rel_l2(got, want_d), 1e-5) << name << ": the spectrum brought down";
        gpu_vol.attach_device(nullptr);
        ask(gpu_vol, host);
        ASSERT_EQ(device.size(), host.size());
        for (std::size_t i = 0; i < device.size(); ++i) {
            if (device[i].what == "shell counts") {
                EXPECT_EQ(device[i].values, host[i].values) << name << ": " << device[i].what;
            } else {
                near(device[i].values, host[i].values, device[i].what + " (" + name + ")");
            }
        }
    }
}

// The frames' samples shaped on the device (VolumeSpectrum::begin with frames_on_device): the same volume as the
// host shapes — 8-bit RGB luma, 16-bit gray, float, an alpha channel; levelling none, mean, plane; separable and
// spherical windows; zero and mean padding, a crop — so the spectrum is FFTW's of the host's volume (rel L2 < 2e-6),
// on cuFFT R2C (odd sizes), C2C and the seed pipeline (powers of two).
TEST_F(VolumeFft, FramesShapedOnTheDeviceAreTheHostsVolume) {
    Rng rng;
    struct Case {
        Backend backend;
        gpu::CufftMode mode;
        int w, h, d, channels, depth;
        Channel channel;
        PadMode pad;
        PadFill fill;
        Window window;
        WindowShape shape;
        Level level;
    };
    const Case cases[] = {
        {Backend::Cufft, gpu::CufftMode::R2C, 15, 9, 7, 3, 8, Channel::Luma, PadMode::Pow2, PadFill::Zero, Window::Hann,
         WindowShape::Separable, Level::Plane},
        {Backend::Cufft, gpu::CufftMode::R2C, 20, 12, 10, 1, 16, Channel::Luma, PadMode::None, PadFill::Zero,
         Window::Hann, WindowShape::Radial, Level::Mean},
        {Backend::Cufft, gpu::CufftMode::C2C, 17, 6, 5, 1, 32, Channel::Luma, PadMode::Pow2, PadFill::Mean,
         Window::Tukey, WindowShape::Separable, Level::None},
        {Backend::Cufft, gpu::CufftMode::R2C, 24, 20, 9, 4, 8, Channel::A, PadMode::Crop, PadFill::Zero, Window::None,
         WindowShape::Separable, Level::Plane},
        {Backend::Custom, gpu::CufftMode::R2C, 30, 14, 7, 3, 16, Channel::G, PadMode::Pow2, PadFill::Mean, Window::Hann,
         WindowShape::Radial, Level::Plane},
        {Backend::Cufft, gpu::CufftMode::R2C, 64, 64, 64, 1, 16, Channel::Luma, PadMode::Pow2, PadFill::Zero,
         Window::Hann, WindowShape::Separable, Level::Mean}};
    for (const Case& c : cases) {
        Settings s;
        s.backend = c.backend;
        s.cufft_mode = c.mode;
        s.channel = c.channel;
        s.pad = c.pad;
        s.pad_fill = c.fill;
        s.window = c.window;
        s.window_shape = c.shape;
        s.level = c.level;
        std::vector<Image> frames;
        for (int z = 0; z < c.d; ++z) frames.push_back(random_image(rng, c.w, c.h, c.channels, c.depth));
        const std::string name = std::to_string(c.w) + "x" + std::to_string(c.h) + "x" + std::to_string(c.d) + " " +
                                 std::to_string(c.channels) + "ch " + std::to_string(c.depth) + "-bit " +
                                 name_of(c.backend) + " seed " + std::to_string(rng.seed());
        VolumeSpectrum cpu, dev;
        on_the_cpu(cpu, s, frames);
        GpuVolumeFft engine(s);
        dev.begin(s, c.w, c.h, c.d, 2, frames_on_device(engine));
        for (int z = c.d - 1; z >= 0; --z) dev.add_frame(frames[std::size_t(z)], z, "random");  // (any order)
        dev.transform();
        ASSERT_TRUE(dev.on_device()) << name;
        const VolumeGeometry& g = dev.geometry();
        ASSERT_EQ(g.width, cpu.geometry().width) << name;
        std::vector<cf> got;
        std::vector<cd> want;
        for (int z = 0; z < g.depth; ++z)
            for (int y = 0; y < g.height; ++y)
                for (int x = 0; x < g.width; ++x) {
                    got.push_back(dev.at(x, y, z));
                    want.push_back(cd(cpu.at(x, y, z)));
                }
        EXPECT_LT(rel_l2(got, want), 2e-6) << name;
        EXPECT_NE(engine.last().what.find(c.backend == Backend::Custom ? "custom CUDA 3D" : "cuFFT"), std::string::npos)
            << engine.last().what;
        bool shaped = false;
        for (const gpu::KernelTiming& k : engine.last().stages) shaped |= k.name.rfind("shape", 0) == 0;
        EXPECT_TRUE(shaped) << name << ": no shaping pass on the device";
    }
}

// Frames sent under a key stay on the device: the next transform under that key (a knob change) takes the samples
// kept there - the host frames handed to it then are not read, as a poisoned copy shows - while another key, or none,
// sends its frames. Another window over the kept frames is the spectrum of the frames, not of the poison.
TEST_F(VolumeFft, FramesSentUnderAKeyAreKeptForTheNextTransform) {
    Rng rng;
    const int w = 32, h = 16, d = 130;  // (kept frames are made into slabs in batches: more than a block's 128 frames)
    std::vector<Image> frames, poison;
    for (int z = 0; z < d; ++z) {
        frames.push_back(random_image(rng, w, h, 1, 16));
        poison.push_back(random_image(rng, w, h, 1, 16));
    }
    Settings s;
    s.backend = Backend::Cufft;
    s.window = Window::Hann;
    s.level = Level::Plane;  // (the frames' sums in use)
    GpuVolumeFft engine(s);
    auto spectrum = [&](const Settings& st, const std::vector<Image>& fr, std::uint64_t key, bool* resident,
                        bool reversed = false) {
        VolumeSpectrum v;
        v.begin(st, w, h, d, 2, frames_on_device(engine, key));
        if (reversed)  // handed over last first: each its own batch
            for (int z = d - 1; z >= 0; --z) v.add_frame(fr[std::size_t(z)], z, "random");
        else
            v.add_frames(fr, "random");
        *resident = engine.engine()->frames_resident();
        v.transform();
        std::vector<cf> out;
        for (int z = 0; z < d; ++z)
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) out.push_back(v.at(x, y, z));
        return out;
    };
    bool resident = true;
    const std::vector<cf> a = spectrum(s, frames, 7, &resident);
    EXPECT_FALSE(resident) << "the first frames under a key are sent";
    EXPECT_EQ(spectrum(s, poison, 7, &resident), a) << "the kept frames, not the ones handed over";
    EXPECT_TRUE(resident);
    EXPECT_EQ(spectrum(s, poison, 7, &resident, true), a) << "the kept frames asked for in reverse";
    EXPECT_TRUE(resident);
    Settings t = s;
    t.window = Window::Blackman;
    VolumeSpectrum cpu;
    on_the_cpu(cpu, t, frames);
    std::vector<cf> got = spectrum(t, poison, 7, &resident);
    std::vector<cd> want;
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) want.push_back(cd(cpu.at(x, y, z)));
    EXPECT_LT(rel_l2(got, want), 2e-6) << "another window over the kept frames";
    EXPECT_NE(spectrum(s, poison, 8, &resident), a) << "another key sends its frames";
    EXPECT_FALSE(resident);
    EXPECT_NE(spectrum(s, frames, 0, &resident), spectrum(s, poison, 0, &resident)) << "no key: nothing kept";
    EXPECT_FALSE(resident);
}

// A kept spectrum belongs to its run: once the engine transforms again, the old handle refuses (no stale pictures).
TEST_F(VolumeFft, AKeptSpectrumRefusesOnceTheEngineTransformsAgain) {
    Settings s;
    s.backend = Backend::Cufft;
    GpuVolumeFft engine(s);
    std::vector<float> host(2 * 5 * 8 * 8, 1.0f);
    engine.run(host.data(), 8, 8, 8, true);
    const std::shared_ptr<VolumeDevice> kept = kept_on_device(engine);
    ASSERT_NE(kept, nullptr);
    EXPECT_EQ(kept->slice(VolumeAxis::Z, 0, View::LogMag, true, 8, 8).size(), 64u);
    engine.run(host.data(), 8, 8, 8, false);  // (downloaded: nothing kept)
    EXPECT_EQ(kept_on_device(engine), nullptr);
    EXPECT_THROW(kept->slice(VolumeAxis::Z, 0, View::LogMag, true, 8, 8), std::logic_error);
    std::vector<std::complex<float>> half(5 * 8 * 8);
    EXPECT_THROW(kept->download_half(half.data()), std::logic_error);
}

}  // namespace
}  // namespace specview::test
