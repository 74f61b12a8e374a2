// The row-FFT kernels against FFTW (double) and against the CPU model of the same staged algorithm.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <sstream>

#include "app/engine/staged_fft.h"
#include "gpu/common/errors.h"
#include "gpu/custom/fft_rows.h"
#include "tests/support/gpu_test.h"
#include "tests/support/oracle.h"

namespace specview::test {
namespace {

class FftRows : public GpuTest {};

struct RowCase {
    int n, rows;
    gpu::RowFftConfig cfg;
    bool inverse, real;
};

std::string describe(const RowCase& c) {
    std::ostringstream s;
    s << "n=" << c.n << " rows=" << c.rows << " T=" << c.cfg.threads_per_block << " H=" << c.cfg.block_height
      << " L=" << c.cfg.max_local_length << (c.inverse ? " inverse" : " forward") << (c.real ? " real" : " complex");
    return s.str();
}

// Runs one case on fresh random data and returns the relative L2 error against FFTW.
double run_case(const RowCase& c, const gpu::DeviceInfo& dev, const gpu::TwiddleTable& tw, Rng& rng) {
    const std::size_t total = std::size_t(c.n) * c.rows;
    gpu::RowFftPlan plan = gpu::plan_row_fft(c.n, c.rows, c.cfg, dev, c.real);
    gpu::DeviceBuffer<float2> in(total), out(total);
    gpu::DeviceBuffer<float> real_in;
    std::vector<cd> ref_in;
    if (c.real) {
        std::vector<float> h = rng.real(total, -1.0f, 1.0f);
        upload(real_in, h);
        poison(in);  // the scratch buffer too
        ref_in = widen(h);
    } else {
        std::vector<cf> h = rng.complex(total);
        upload(in, h);
        ref_in = widen(h);
    }
    poison(out);
    gpu::run_row_fft(plan, c.real ? real_in.get() : nullptr, in.get(), out.get(), in.get(), c.inverse, {}, tw, nullptr);
    const std::vector<cf> got = download<cf>(out.get(), total);
    return rel_l2(got, dft_rows(ref_in, c.n, c.rows, c.inverse));
}

// run_case's error, or nothing where the plan is refused: only an over-large block may be (registers are clamped by
// lowering H), and it must say why.
std::optional<double> error_unless_refused(const RowCase& c, const gpu::DeviceInfo& dev, const gpu::TwiddleTable& tw,
                                           Rng& rng) {
    try {
        return run_case(c, dev, tw, rng);
    } catch (const gpu::ConfigError& err) {
        EXPECT_NE(std::string(err.what()).find("shared memory"), std::string::npos) << describe(c) << ": " << err.what();
        return std::nullopt;
    }
}

// Every stop of a plan (0 .. log2 n stages, natural and bit-reversed order) against the CPU's staged model.
void expect_every_stop(const gpu::RowFftPlan& plan, int rows, const gpu::TwiddleTable& tw, Rng& rng,
                       const std::string& what) {
    const int n = plan.n;
    for (int s = 0; s <= plan.log2n; ++s)
        for (bool natural : {true, false}) {
            const std::vector<cf> h = rng.complex(std::size_t(n) * rows);
            std::vector<cd> model = widen(h);
            for (int r = 0; r < rows; ++r) staged_row_fft(model.data() + std::size_t(r) * n, n, s, natural);
            gpu::DeviceBuffer<float2> in, out(h.size());
            upload(in, h);
            poison(out);
            const float2* res =
                gpu::run_row_fft(plan, nullptr, in.get(), out.get(), in.get(), false, {s, natural}, tw, nullptr);
            EXPECT_LT(rel_l2(download<cf>(res, h.size()), model), 1e-5)
                << "n=" << n << " " << what << " stages=" << s << (natural ? " natural" : " bit-reversed");
        }
}

TEST_F(FftRows, MatchesFftwForEveryPowerOfTwoAndConfiguration) {
    gpu::TwiddleTable tw;
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    double worst = 0;
    std::string worst_case;
    int cases = 0;
    const std::vector<int> threads = small_run() ? std::vector<int>{64, 256} : std::vector<int>{32, 128, 256, 1024};
    const std::vector<int> heights = small_run() ? std::vector<int>{0, 4} : std::vector<int>{0, 1, 4, 16};
    for (int log2n = 0; log2n <= gpu::kMaxRowLog2; ++log2n) {
        const int n = 1 << log2n;
        const int rows = std::max(3, (small_run() ? (1 << 14) : (1 << 17)) / n) + 1;  // not a multiple of H
        for (int T : threads)
            for (int H : heights)
                for (int L : {0, 64})
                    for (bool inverse : {false, true})
                        for (bool real : {false, true}) {
                            if (real && inverse) continue;
                            RowCase c{n, rows, {T, H, L}, inverse, real};
                            const std::optional<double> err = error_unless_refused(c, device(), tw, rng);
                            if (!err) continue;
                            const double e = *err;
                            ++cases;
                            EXPECT_LT(e, 1e-5) << describe(c);
                            if (e > worst) {
                                worst = e;
                                worst_case = describe(c);
                            }
                        }
    }
    std::printf("[ rows     ] %d cases, worst relative L2 error %.3g (%s)\n", cases, worst, worst_case.c_str());
    RecordProperty("worst_rel_l2", std::to_string(worst));
}

TEST_F(FftRows, BitReversedOutputIsTheBitReversalOfTheNaturalOne) {
    gpu::TwiddleTable tw;
    Rng rng;
    for (int log2n : {1, 3, 8, 12, 14}) {
        const int n = 1 << log2n, rows = 5;
        for (int L : {0, 256}) {
            gpu::RowFftPlan plan = gpu::plan_row_fft(n, rows, {256, 0, L}, device(), false);
            const std::vector<cf> h = rng.complex(std::size_t(n) * rows);
            gpu::DeviceBuffer<float2> in, nat(h.size()), rev(h.size());
            upload(in, h);
            poison(nat);
            gpu::run_row_fft(plan, nullptr, in.get(), nat.get(), in.get(), false, {}, tw, nullptr);
            upload(in, h);
            poison(rev);
            gpu::run_row_fft(plan, nullptr, in.get(), rev.get(), in.get(), false, {-1, false}, tw, nullptr);
            const auto a = download<cf>(nat.get(), h.size()), b = download<cf>(rev.get(), h.size());
            for (int r = 0; r < rows; ++r)
                for (int j = 0; j < n; ++j)
                    ASSERT_EQ(b[std::size_t(r) * n + j], a[std::size_t(r) * n + bit_reverse(unsigned(j), log2n)])
                        << "n=" << n << " L=" << L << " row " << r << " j " << j;
        }
    }
}

TEST_F(FftRows, EveryStageMatchesTheCpuModel) {
    gpu::TwiddleTable tw;
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    for (int log2n : {1, 3, 6, 10, 13}) {
        const int n = 1 << log2n, rows = 6;
        for (int L : {0, 16}) {  // 16: several global stages first
            expect_every_stop(gpu::plan_row_fft(n, rows, {128, 2, L}, device(), false), rows, tw, rng,
                              "L=" + std::to_string(L));
        }
    }
}

// Seed 000 section 5.2.2's switch: a row's last stages through warp shuffles. Every length (so every local length,
// from all-shuffled short rows to global stages first), threads per block not a whole number of warps (raised),
// heights, rows not a multiple of H; then every stop (fewer shuffled stages) against the CPU model.
TEST_F(FftRows, WarpShufflesMatchFftwAndTheModelAtEveryStage) {
    gpu::TwiddleTable tw;
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    int cases = 0;
    double worst = 0;
    for (int log2n = 0; log2n <= gpu::kMaxRowLog2; ++log2n) {
        const int n = 1 << log2n;
        const int rows = std::max(3, (small_run() ? (1 << 13) : (1 << 16)) / n) + 1;
        for (int T : {100, 256, 1024})
            for (int H : {0, 1, 4})
                for (int L : {0, 16, 64})
                    for (int kind = 0; kind < 3; ++kind) {  // forward, inverse, real input
                        RowCase c{n, rows, {T, H, L}, kind == 1, kind == 2};
                        c.cfg.warp_shuffles = true;
                        const std::optional<double> err = error_unless_refused(c, device(), tw, rng);
                        if (!err) continue;
                        const double e = *err;
                        ++cases;
                        worst = std::max(worst, e);
                        EXPECT_LT(e, 1e-5) << describe(c) << " warp shuffles";
                    }
    }
    std::printf("[ rows     ] warp shuffles: %d cases, worst relative L2 error %.3g\n", cases, worst);
    for (int log2n : {1, 4, 5, 7, 10, 13}) {
        const int n = 1 << log2n, rows = 6;
        for (int L : {0, 16}) {
            gpu::RowFftConfig cfg{96, 2, L};
            cfg.warp_shuffles = true;
            gpu::RowFftPlan plan = gpu::plan_row_fft(n, rows, cfg, device(), false);
            EXPECT_EQ(plan.shuffle_stages, std::min(5, plan.log2l));
            expect_every_stop(plan, rows, tw, rng, "warp shuffles, L=" + std::to_string(L));
        }
    }
}

TEST_F(FftRows, RejectsWhatTheDeviceCannotRunBeforeLaunch) {
    const auto& d = device();
    EXPECT_THROW(gpu::plan_row_fft(12, 4, {}, d, false), gpu::ConfigError);       // not a power of two
    EXPECT_THROW(gpu::plan_row_fft(1 << 15, 4, {}, d, false), gpu::ConfigError);  // too long
    EXPECT_THROW(gpu::plan_row_fft(1024, 4, {d.max_threads_per_block * 2, 0, 0}, d, false), gpu::ConfigError);
    EXPECT_THROW(gpu::plan_row_fft(1024, 4, {0, 0, 0}, d, false), gpu::ConfigError);
    EXPECT_THROW(gpu::plan_row_fft(1024, 4, {256, 3, 0}, d, false), gpu::ConfigError);    // H not a power of two
    EXPECT_THROW(gpu::plan_row_fft(1024, 4, {256, 0, 100}, d, false), gpu::ConfigError);  // L not a power of two
    // 64 rows of 16384 points in one block: far over any shared memory.
    try {
        gpu::plan_row_fft(16384, 64, {1024, 64, 16384}, d, false);
        ADD_FAILURE() << "expected a ConfigError";
    } catch (const gpu::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("KiB of shared memory"), std::string::npos) << e.what();
    }
    // Clamps are reported, not silent.
    gpu::RowFftPlan p = gpu::plan_row_fft(16, 2, {1024, 64, 0}, d, false);
    EXPECT_LE(p.threads, 32);
    EXPECT_LE(p.block_height, 2);
    EXPECT_FALSE(p.notes.empty());
}

}  // namespace
}  // namespace specview::test
