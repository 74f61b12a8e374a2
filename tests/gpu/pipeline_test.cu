// The four-kernel 2D FFT (row FFT, transpose, row FFT, transpose) and the cuFFT backend against FFTW in
// double, forward and inverse, over a grid of configurations; the round trip; the staged stops.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "app/core/plane.h"
#include "app/engine/staged_fft.h"
#include "gpu/cufft/cufft_backend.h"
#include "gpu/common/errors.h"
#include "gpu/custom/pipeline.h"
#include "tests/support/gpu_test.h"
#include "tests/support/oracle.h"

namespace specview::test {
namespace {

class Custom2D : public GpuTest {};
class Cufft2D : public GpuTest {};

struct Worst {
    double err = 0;
    std::string where;
    void add(double e, const std::string& w) {
        if (e > err) {
            err = e;
            where = w;
        }
    }
};

std::vector<cf> run_custom(int w, int h, const gpu::CustomConfig& cfg, const std::vector<cf>& input, bool inverse,
                           const gpu::DeviceInfo& dev, const gpu::TwiddleTable& tw) {
    gpu::Custom2DPlan plan = gpu::plan_custom_2d(w, h, cfg, dev, false);
    gpu::DeviceBuffer<float2> a, b(input.size());
    upload(a, input);
    poison(b);
    gpu::Custom2DResult r = gpu::run_custom_2d(plan, nullptr, a.get(), b.get(), inverse, {}, tw, nullptr, nullptr);
    EXPECT_EQ(r.data, a.get());
    EXPECT_EQ(r.rows, h);
    EXPECT_EQ(r.cols, w);
    return download<cf>(r.data, input.size());
}

TEST_F(Custom2D, MatchesFftwForwardAndInverseOverConfigurations) {
    gpu::TwiddleTable tw;
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    Worst worst;
    const int sizes[][2] = {{1, 1},       {2, 2},     {8, 4},     {4, 8},    {64, 64},   {256, 128},   {128, 512},
                            {1024, 1024}, {16, 4096}, {4096, 16}, {8192, 8}, {2, 16384}, {2048, 2048}, {4096, 4096}};
    const gpu::CustomConfig configs[] = {
        {{256, 0, 0}, {32}}, {{64, 1, 0}, {8}}, {{1024, 4, 0}, {64}}, {{128, 16, 0}, {16}}, {{256, 2, 128}, {32}},
    };
    for (const auto& sz : sizes)
        for (const auto& cfg : configs)
            for (bool inverse : {false, true}) {
                const int w = sz[0], h = sz[1];
                const long long n = (long long)w * h;
                if (n >= (1 << 22) && &cfg != &configs[0] && &cfg != &configs[2]) continue;  // big: two configs
                if (small_run() && n >= (1 << 20)) continue;
                const std::vector<cf> x = rng.complex(std::size_t(n));
                const auto got = run_custom(w, h, cfg, x, inverse, device(), tw);
                const double e = rel_l2(got, dft2d(widen(x), h, w, inverse));
                std::ostringstream where;
                where << w << "x" << h << " T=" << cfg.rows.threads_per_block << " H=" << cfg.rows.block_height
                      << " L=" << cfg.rows.max_local_length << " tile=" << cfg.transpose.tile
                      << (inverse ? " inverse" : " forward");
                EXPECT_LT(e, 1e-5) << where.str();
                worst.add(e, where.str());
            }
    std::printf("[ custom2d ] worst relative L2 error vs FFTW (double): %.3g at %s\n", worst.err, worst.where.c_str());
    RecordProperty("worst_rel_l2", std::to_string(worst.err));
}

TEST_F(Custom2D, RoundTripReturnsTheInput) {
    gpu::TwiddleTable tw;
    Rng rng;
    for (auto [w, h] : {std::pair{512, 256}, std::pair{4096, 4096}, std::pair{16384, 2}}) {
        if (small_run() && w * h >= (1 << 20)) continue;
        const std::vector<cf> x = rng.complex(std::size_t(w) * h);
        gpu::Custom2DPlan plan = gpu::plan_custom_2d(w, h, {}, device(), false);
        gpu::DeviceBuffer<float2> a, b(x.size());
        upload(a, x);
        gpu::run_custom_2d(plan, nullptr, a.get(), b.get(), false, {}, tw, nullptr, nullptr);
        poison(b);
        gpu::run_custom_2d(plan, nullptr, a.get(), b.get(), true, {}, tw, nullptr, nullptr);
        auto got = download<cf>(a.get(), x.size());
        for (auto& v : got) v /= float(double(w) * h);
        EXPECT_LT(rel_l2(got, widen(x)), 1e-5) << w << "x" << h;
    }
}

TEST_F(Custom2D, RealInputMatchesFftw) {
    gpu::TwiddleTable tw;
    Rng rng;
    for (auto [w, h] : {std::pair{32, 8}, std::pair{1024, 512}, std::pair{8192, 4}, std::pair{4096, 4096}})
        for (int L : {0, 256}) {
            if (small_run() && w * h >= (1 << 20)) continue;
            const std::vector<float> x = rng.real(std::size_t(w) * h);
            gpu::CustomConfig cfg;
            cfg.rows.max_local_length = L;
            gpu::Custom2DPlan plan = gpu::plan_custom_2d(w, h, cfg, device(), true);
            gpu::DeviceBuffer<float> plane;
            upload(plane, x);
            gpu::DeviceBuffer<float2> a(x.size()), b(x.size());
            poison(a);
            poison(b);
            auto r = gpu::run_custom_2d(plan, plane.get(), a.get(), b.get(), false, {}, tw, nullptr, nullptr);
            const auto got = download<cf>(r.data, x.size());
            EXPECT_LT(rel_l2(got, dft2d(widen(x), h, w)), 1e-5) << w << "x" << h << " L=" << L;
        }
}

TEST_F(Custom2D, EveryStopPointMatchesTheStagedCpuModel) {
    using K = gpu::StopPoint::Kind;
    gpu::TwiddleTable tw;
    Rng rng;
    for (auto [w, h] : {std::pair{64, 64}, std::pair{32, 16}})
        for (int L : {0, 8}) {
            Plane p(w, h);
            p.v = rng.real(std::size_t(w) * h);
            gpu::CustomConfig cfg;
            cfg.rows.max_local_length = L;
            gpu::Custom2DPlan plan = gpu::plan_custom_2d(w, h, cfg, device(), true);
            std::vector<gpu::StopPoint> stops;
            for (int s = 0; s <= plan.rows1.log2n; ++s) stops.push_back({K::RowPass1, s, false});
            stops.push_back({K::RowPass1, plan.rows1.log2n, true});
            stops.push_back({K::Transpose1, 0, false});
            for (int s = 0; s <= plan.rows2.log2n; ++s) stops.push_back({K::RowPass2, s, false});
            stops.push_back({K::RowPass2, plan.rows2.log2n, true});
            stops.push_back({K::Transpose2, 0, false});
            gpu::DeviceBuffer<float> plane;
            upload(plane, p.v);
            for (const auto& stop : stops) {
                gpu::DeviceBuffer<float2> a(p.v.size()), b(p.v.size());
                poison(a);
                poison(b);
                auto r = gpu::run_custom_2d(plan, plane.get(), a.get(), b.get(), false, stop, tw, nullptr, nullptr);
                const StagedResult model = run_staged_2d(p, stop);
                EXPECT_EQ(r.rows, model.rows);
                EXPECT_EQ(r.cols, model.cols);
                const auto got = download<cf>(r.data, p.v.size());
                std::vector<cd> ref(model.data.begin(), model.data.end());
                EXPECT_LT(rel_l2(got, ref), 1e-5)
                    << w << "x" << h << " L=" << L << " stop kind " << int(stop.kind) << " stage " << stop.stage
                    << (stop.bit_reversed ? " bit-reversed" : "");
            }
            // The last stop is the whole FFT: it equals FFTW.
            const StagedResult full = run_staged_2d(p, {K::Transpose2, 0, false});
            EXPECT_LT(rel_l2(full.data, dft2d(widen(p.v), h, w)), 1e-6);  // stored as float
        }
}

TEST_F(Cufft2D, MatchesFftwIncludingOddAndNonPowerOfTwoSizes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    gpu::CufftBackend cufft;
    Worst worst;
    const int sizes[][2] = {{1, 1}, {3, 5}, {17, 31}, {64, 64}, {1000, 999}, {1920, 1080}, {3000, 2000}, {4096, 4096}};
    for (const auto& sz : sizes) {
        const int w = sz[0], h = sz[1];
        const std::size_t n = std::size_t(w) * h;
        if (small_run() && n >= (1u << 20)) continue;
        // C2C, both directions.
        for (bool inverse : {false, true}) {
            const std::vector<cf> x = rng.complex(n);
            gpu::DeviceBuffer<float2> d;
            upload(d, x);
            cufft.c2c(d.get(), w, h, inverse, nullptr);
            const double e = rel_l2(download<cf>(d.get(), n), dft2d(widen(x), h, w, inverse));
            EXPECT_LT(e, 1e-5) << w << "x" << h << " C2C";
            worst.add(e, std::to_string(w) + "x" + std::to_string(h) + " C2C");
        }
        // Real input through both modes; R2C expanded to the full spectrum.
        for (gpu::CufftMode mode : {gpu::CufftMode::R2C, gpu::CufftMode::C2C}) {
            const std::vector<float> x = rng.real(n);
            gpu::DeviceBuffer<float> plane;
            upload(plane, x);
            gpu::SpectrumSource s = cufft.forward_real(plane.get(), w, h, mode, nullptr, nullptr);
            gpu::DeviceBuffer<float2> full(n);
            poison(full);
            const float2* data = s.data;
            if (s.half) {
                gpu::expand_half_spectrum(s.data, w, h, full.get(), nullptr);
                data = full.get();
            }
            const double e = rel_l2(download<cf>(data, n), dft2d(widen(x), h, w));
            EXPECT_LT(e, 1e-5) << w << "x" << h << (s.half ? " R2C" : " C2C real");
            worst.add(e, std::to_string(w) + "x" + std::to_string(h) + (s.half ? " R2C" : " C2C real"));
        }
    }
    EXPECT_GE(cufft.cached_plans(), 1u);
    std::printf("[ cufft    ] worst relative L2 error vs FFTW (double): %.3g at %s\n", worst.err, worst.where.c_str());
}

}  // namespace
}  // namespace specview::test
