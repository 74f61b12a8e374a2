// A volume's 3D FFT on the GPU (gpu/engine/volume_engine.h): cuFFT's 3D plans (R2C in place, C2C) and the seed's 3D
// pipeline (row FFT x3 with four transposes, or the final two merged) against FFTW in double on fresh random volumes,
// odd sizes for cuFFT and powers of two for the seed's, over its knobs; the host buffer's padding never leaks in.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <sstream>

#include "gpu/engine/volume_engine.h"
#include "tests/support/gpu_test.h"
#include "tests/support/oracle.h"

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
double half_error(gpu::VolumeEngine& e, const gpu::VolumeRequest& r, int w, int h, int d, Rng& rng) {
    const int hw = w / 2 + 1, stride = 2 * hw;
    const std::vector<float> v = rng.real(std::size_t(w) * h * d, -1.0f, 1.0f);
    std::vector<float> host(std::size_t(stride) * h * d, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t row = 0; row < std::size_t(h) * d; ++row)
        for (int x = 0; x < w; ++x) host[row * stride + x] = v[row * w + x];
    const gpu::VolumeRun run = e.r2c_in_place(host.data(), w, h, d, r);
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

}  // namespace
}  // namespace specview::test
