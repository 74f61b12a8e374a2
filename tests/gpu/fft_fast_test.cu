// custom-fast: the two-pass Stockham FFT against FFTW (double), and its fused picture against the CPU one.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <limits>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "app/engine/cpu_backend.h"
#include "gpu/runtime/cuda_check.h"
#include "gpu/cufft/cufft_backend.h"
#include "gpu/common/errors.h"
#include "gpu/fast/fft_fast.h"
#include "gpu/fast/fft_fast_detail.h"
#include "gpu/common/mixed_radix.h"
#include "gpu/runtime/timing.h"
#include "tests/support/gpu_test.h"
#include "tests/support/oracle.h"

namespace specview::test {
namespace {

class FastFft : public GpuTest {};

// The R2C layouts of a full w x h spectrum (row-major): cuFFT's, height rows of width/2 + 1 bins; and its
// transpose, width/2 + 1 rows of height bins.
std::vector<cd> half_spectrum(const std::vector<cd>& full, int w, int h, bool transposed = false) {
    const int ld = w / 2 + 1;
    std::vector<cd> half(std::size_t(ld) * h);
    for (int y = 0; y < h; ++y)
        for (int u = 0; u < ld; ++u)
            half[transposed ? std::size_t(u) * h + y : std::size_t(y) * ld + u] = full[std::size_t(y) * w + u];
    return half;
}

// A run's output, back from the device, with the names of the stage marks it left (run_c2c_marked,
// run_r2c_columns_first_marked).
struct MarkedRun {
    std::vector<cf> out;
    std::vector<std::string> marks;
    // Whether a mark that starts with `prefix` contains `part`.
    bool marked(const std::string& prefix, const std::string& part) const {
        for (const auto& m : marks)
            if (m.rfind(prefix, 0) == 0 && m.find(part) != std::string::npos) return true;
        return false;
    }
};
// x through fast.c2c (its scratch poisoned).
MarkedRun run_c2c_marked(gpu::FastFft& fast, const std::vector<cf>& x, int w, int h, bool inverse) {
    gpu::DeviceBuffer<float2> d, scratch(x.size());
    upload(d, x);
    poison(scratch);
    gpu::StageTimer timer;
    timer.start(nullptr);
    fast.c2c(d.get(), scratch.get(), w, h, inverse, nullptr, &timer);
    MarkedRun r;
    for (const auto& k : timer.collect()) r.marks.push_back(k.name);
    r.out = download<cf>(d.get(), x.size());
    return r;
}
std::vector<cf> run_c2c(gpu::FastFft& fast, const std::vector<cf>& x, int w, int h, bool inverse) {
    return run_c2c_marked(fast, x, w, h, inverse).out;
}
// x through fast.c2c with the switch `sw` of `base` on ([0]) and off ([1]), each on a FastFft of its own: the A/B of a
// step's same-bytes tests.
std::array<MarkedRun, 2> run_c2c_on_off(bool gpu::FastFft::Variant::*sw, gpu::FastFft::Variant base,
                                        const std::vector<cf>& x, int w, int h, bool inverse) {
    std::array<MarkedRun, 2> runs;
    for (int side : {0, 1}) {
        gpu::FastFft fast;
        base.*sw = side == 0;
        fast.set_variant(base);
        runs[side] = run_c2c_marked(fast, x, w, h, inverse);
    }
    return runs;
}
// The columns-first R2C (cuFFT's layout) of the real w x h `plane` on the device under variant v, which must take that
// path: the half spectrum, written over a poisoned buffer, and the timer's marks.
MarkedRun run_r2c_columns_first_marked(const float* plane, int w, int h, const gpu::FastFft::Variant& v) {
    gpu::FastFft fast;
    fast.set_variant(v);
    EXPECT_TRUE(fast.r2c_columns_first(plane, w, h, false)) << w << "x" << h << ": the columns-first R2C";
    const std::size_t m = std::size_t(w / 2 + 1) * h;
    gpu::DeviceBuffer<float2> half(m);
    poison(half);
    gpu::StageTimer timer;
    timer.start(nullptr);
    fast.r2c(plane, w, h, half.get(), nullptr, &timer);
    MarkedRun r;
    for (const auto& k : timer.collect()) r.marks.push_back(k.name);
    r.out = download<cf>(half.get(), m);
    return r;
}
// The columns-first R2C of the real w x h plane x (uploaded here) with the switch `sw` of `base` on ([0]) and off
// ([1]), each on a FastFft of its own: the R2C steps' A/B (run_c2c_on_off's for the C2C).
std::array<MarkedRun, 2> run_r2c_on_off(bool gpu::FastFft::Variant::*sw, gpu::FastFft::Variant base,
                                        const std::vector<float>& x, int w, int h) {
    gpu::DeviceBuffer<float> plane;
    upload(plane, x);
    std::array<MarkedRun, 2> runs;
    for (int side : {0, 1}) {
        base.*sw = side == 0;
        runs[side] = run_r2c_columns_first_marked(plane.get(), w, h, base);
    }
    return runs;
}
// The default variant with the R2C columns first at every size (r2c_columns_first_min_points 0).
gpu::FastFft::Variant r2c_columns_first_everywhere() {
    gpu::FastFft::Variant v;
    v.r2c_columns_first_min_points = 0;
    return v;
}

// The current device's compute capability, major number (the TMA paths need 9).
int device_major() {
    int device = 0, major = 0;
    EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), cudaSuccess);
    return major;
}

// The mixed-radix small DFTs (gpu/common/mixed_radix.h) of `lines` lines of R points each, on the device.
__global__ void small_dft_kernel(float2* v, int R, int lines, bool inverse) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < lines) mixed_radix::dft_small(v + std::size_t(i) * R, R, inverse);
}

// Exact sizes, step 1: the small DFTs the mixed-radix kernels will run give on the device what they give on the
// host, where tests/cpu/mixed_radix_test.cpp holds them against FFTW.
TEST_F(FastFft, MixedRadixSmallDftsOnTheDeviceEqualTheHosts) {
    Rng rng;
    const int lines = 1000;
    for (int R : {2, 3, 4, 5, 7, 8, 9, 10, 15, 16})
        for (bool inverse : {false, true}) {
            const std::vector<cf> x = rng.complex(std::size_t(R) * lines);
            std::vector<float2> host(x.size());
            for (std::size_t i = 0; i < x.size(); ++i) host[i] = mixed_radix::c_make(x[i].real(), x[i].imag());
            gpu::DeviceBuffer<float2> d(host.size());
            CUDA_CHECK(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(float2), cudaMemcpyHostToDevice));
            small_dft_kernel<<<(lines + 127) / 128, 128>>>(d.get(), R, lines, inverse);
            CUDA_CHECK_LAUNCH("small_dft_kernel");
            std::vector<float2> got(host.size());
            CUDA_CHECK(cudaMemcpy(got.data(), d.get(), got.size() * sizeof(float2), cudaMemcpyDeviceToHost));
            double num = 0, den = 0;
            for (int l = 0; l < lines; ++l) {
                mixed_radix::dft_small(host.data() + std::size_t(l) * R, R, inverse);
                for (int k = 0; k < R; ++k) {
                    const float2 a = got[std::size_t(l) * R + k], b = host[std::size_t(l) * R + k];
                    num += double(a.x - b.x) * (a.x - b.x) + double(a.y - b.y) * (a.y - b.y);
                    den += double(b.x) * b.x + double(b.y) * b.y;
                }
            }
            EXPECT_LT(std::sqrt(num / den), 2e-7) << "radix " << R << (inverse ? " inverse" : "");
        }
}

__global__ void view_values_kernel(const float2* z, int n, View view, float* fast, float* exact) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fast[i] = gpu::fast_detail::fast_view_value(view, z[i].x, z[i].y);
    exact[i] = view_value(view, z[i].x, z[i].y);
}

// The picture passes' view values (the log views by the special function unit, PERF_NOTES.md p6) beside
// view_value's over magnitudes from 0 through 1e-30 to 1e18 and inf: within 2e-6 of it (absolute, and relative
// above 1): far inside one of 256 levels of any range the picture shows. Phase, real and imaginary are view_value's.
TEST_F(FastFft, FastViewValuesStayWithinAMillionthOfViewValue) {
    Rng rng;
    std::vector<float2> z;
    for (float m : {0.0f, 1e-30f, 1e-12f, 1e-6f, 1e-3f, 0.5f, 1.0f, 3.0f, 1e3f, 1e6f, 1e12f, 1e18f})
        for (int k = 0; k < 8; ++k) {
            const float a = 0.7853982f * k;
            z.push_back(make_float2(m * std::cos(a), m * std::sin(a)));
        }
    for (const cf& c : rng.complex(4000)) z.push_back(make_float2(c.real() * 1e4f, c.imag()));
    const float inf = std::numeric_limits<float>::infinity();
    z.push_back(make_float2(inf, 0.0f));
    const int n = int(z.size());
    gpu::DeviceBuffer<float2> dz(n);
    gpu::DeviceBuffer<float> fast(n), exact(n);
    CUDA_CHECK(cudaMemcpy(dz.get(), z.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    for (View v : {View::LogMag, View::PowerDb, View::Phase, View::Real, View::Imag}) {
        poison(fast);
        view_values_kernel<<<(n + 255) / 256, 256>>>(dz.get(), n, v, fast.get(), exact.get());
        CUDA_CHECK_LAUNCH("view_values_kernel");
        const std::vector<float> f = download<float>(fast.get(), n), e = download<float>(exact.get(), n);
        for (int i = 0; i < n; ++i) {
            if (std::isinf(e[i])) {
                EXPECT_EQ(f[i], e[i]) << name_of(v) << " at " << z[i].x << "+" << z[i].y << "i";
                continue;
            }
            EXPECT_NEAR(f[i], e[i], 2e-6 * std::max(1.0f, std::abs(e[i])))
                << name_of(v) << " at " << z[i].x << "+" << z[i].y << "i";
        }
        if (v == View::LogMag) EXPECT_EQ(f[0], 0.0f) << "log1p|0|";
    }
}

// Powers of two by the register-resident kernels; any other side by the mixed-radix ones (gpu/fast/fft_mixed.h):
// 7-smooth sides by Stockham passes, a prime over 7 by Bluestein (1009, 13, 8191, 11 x 17), a power of two beside
// one that is not, the users' sizes. The mixed path runs with its row pass's output grouped for the column blocks
// and without.
TEST_F(FastFft, ComplexTransformMatchesFftwForwardAndInverse) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    gpu::FastFft fast;
    int coop = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0), cudaSuccess);
    if (coop) {
        EXPECT_GT(fast.one_launch_blocks(256, 256), 0) << "256^2 runs as one cooperative launch";
        EXPECT_GT(fast.one_launch_blocks(1024, 1024, true), 0);
    }
    EXPECT_EQ(fast.one_launch_blocks(2048, 2048), 0) << "over 1024^2 points: two launches";
    EXPECT_EQ(fast.one_launch_blocks(640, 480), 0) << "not powers of two: the mixed kernels";
    double worst = 0;
    std::string where;
    const int sizes[][2] = {{1, 1},       {2, 2},       {4, 8},       {16, 16},     {32, 64},     {256, 256},
                            {512, 512},   {128, 512},   {1024, 64},   {32, 2048},   {2, 8192},    {8192, 2},
                            {16384, 4},   {4, 16384},   {256, 4096},  {4096, 256},  {1024, 1024}, {2048, 2048},
                            {4096, 4096}, {8192, 8192}, {3, 1},       {1, 5},       {7, 9},       {12, 4},
                            {15, 9},      {6, 10},      {13, 1},      {1009, 13},   {13, 1009},   {187, 30},
                            {8191, 3},    {3, 8191},    {4096, 3},    {3, 16384},   {10000, 6},   {6, 10000},
                            {640, 480},   {1920, 1080}, {3000, 2000}, {4032, 3024}, {1080, 1920}, {3024, 4032}};
    for (const auto& sz : sizes)
        for (bool inverse : {false, true}) {
            const int w = sz[0], h = sz[1];
            const std::size_t n = std::size_t(w) * h;
            if (small_run() && n > (1u << 20)) continue;
            if (n > (1u << 22) && inverse) continue;  // the largest: forward only (FFTW in double takes a while)
            const std::vector<cf> x = rng.complex(n);
            const std::vector<cd> want = dft2d(widen(x), h, w, inverse);
            const bool pow2 = (w & (w - 1)) == 0 && (h & (h - 1)) == 0;
            for (int k = 0; k < 3; ++k) {
                // The mixed kernels grouped and not; powers of two: their default, and in two launches where the
                // default is one (the other power-of-two layouts: EveryLayoutVariantAndBlockSizeMatchesFftw).
                const bool grouped = k != 1, one_launch = k != 2;
                if (pow2 && k == 1) continue;
                if (!pow2 && k == 2) continue;
                if (k == 2) {
                    fast.set_variant({});
                    if (fast.one_launch_blocks(w, h, inverse) == 0) continue;
                }
                // in place where the plane fits in L2 (m58), and through the scratch
                for (bool in_place : {true, false}) {
                    gpu::FastFft::Variant v{grouped, true, true, one_launch};
                    v.in_place_c2c = in_place;
                    fast.set_variant(v);
                    if (!in_place) EXPECT_FALSE(fast.c2c_in_place(w, h));
                    const double e = rel_l2(run_c2c(fast, x, w, h, inverse), want);
                    EXPECT_LT(e, 1e-5) << w << "x" << h << (inverse ? " inverse" : " forward")
                                       << (grouped ? "" : " ungrouped") << (one_launch ? "" : " in two launches")
                                       << (fast.c2c_in_place(w, h) ? " in place" : "");
                    if (e > worst) {
                        worst = e;
                        where = std::to_string(w) + "x" + std::to_string(h) + (inverse ? " inverse" : " forward");
                    }
                }
            }
        }
    std::printf("[ fast     ] C2C worst relative L2 error vs FFTW (double): %.3g at %s\n", worst, where.c_str());
}

// The layout variants the benchmark compares (grouped column blocks, bank-aware column buffers) and block sizes
// all give the same transform.
TEST_F(FastFft, EveryLayoutVariantAndBlockSizeMatchesFftw) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int sizes[][2] = {{1, 1},     {2, 8},     {8, 512},    {64, 32},   {1024, 512},
                            {4096, 64}, {16, 8192}, {512, 2048}, {256, 8192}};
    for (int vi = 0; vi < 8; ++vi)
        for (auto [rt, ct] : {std::pair{256, 1024}, std::pair{512, 512}, std::pair{1024, 1024}, std::pair{512, 256}}) {
            gpu::FastFft fast;
            gpu::FastFft::Variant var{(vi & 2) != 0, (vi & 1) != 0, (vi & 4) != 0};
            var.in_place_c2c = vi == 0 || vi == 7;  // in place (m58) at every block size there; the layouts elsewhere
            fast.set_variant(var);
            fast.set_block_threads(rt, ct);
            for (const auto& sz : sizes)
                for (bool inverse : {false, true}) {
                    const int w = sz[0], h = sz[1];
                    const std::size_t n = std::size_t(w) * h;
                    if (small_run() && n > (1u << 20)) continue;
                    if ((vi < 4 || rt != 256) && n > (1u << 20)) continue;  // the big ones once a split variant
                    const std::vector<cf> x = rng.complex(n);
                    EXPECT_LT(rel_l2(run_c2c(fast, x, w, h, inverse), dft2d(widen(x), h, w, inverse)), 1e-5)
                        << w << "x" << h << (inverse ? " inverse" : " forward") << " variant " << vi << " R" << rt
                        << "/C" << ct;
                    if (n <= (small_run()
                                  ? 4096u
                                  : (1u << 19))) {  // the real paths too (their column buffers follow the bank variant)
                        const std::vector<float> r = rng.real(n);
                        gpu::DeviceBuffer<float> plane;
                        upload(plane, r);
                        gpu::DeviceBuffer<float2> full(n);
                        poison(full);
                        fast.real_spectrum(plane.get(), w, h, full.get(), nullptr, nullptr);
                        const std::vector<cd> want = dft2d(widen(r), h, w);
                        EXPECT_LT(rel_l2(download<cf>(full.get(), n), want), 1e-5) << w << "x" << h;
                        // The picture path does the same arithmetic in every variant: the same bytes.
                        gpu::FastFft reference;
                        gpu::DeviceBuffer<std::uint32_t> pa(n), pb(n);
                        const ViewParams vp;
                        reference.picture(plane.get(), w, h, 0, vp, gpu::PictureTarget{pa.get()}, nullptr, nullptr);
                        fast.picture(plane.get(), w, h, 0, vp, gpu::PictureTarget{pb.get()}, nullptr, nullptr);
                        EXPECT_EQ(download<std::uint32_t>(pa.get(), n), download<std::uint32_t>(pb.get(), n))
                            << w << "x" << h << " picture, variant " << vi << " R" << rt << "/C" << ct;
                    }
                }
        }
}

// m72: the power-of-two C2C row blocks with each line's exchanges on its own named barrier give the same bytes as
// with the block's barrier (the same arithmetic), and FFTW's transform: in one launch and two, in place and through
// the scratch, at block sizes of 2 to 8 lines of whole warps (1024- and 2048-point rows) and where they do not apply.
TEST_F(FastFft, LineBarriersGiveTheSameBytes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int sizes[][2] = {{1024, 1024}, {2048, 2048}, {1024, 64}, {2048, 32}, {512, 256}, {4096, 16}, {256, 8192}};
    for (auto [rt, ct] : {std::pair{256, 256}, std::pair{256, 1024}, std::pair{1024, 512}})
        for (const auto& sz : sizes)
            for (bool inverse : {false, true})
                for (int k = 0; k < 3; ++k) {  // in one launch (where it applies), in two, through the scratch
                    const int w = sz[0], h = sz[1];
                    const std::size_t n = std::size_t(w) * h;
                    if (small_run() && n > (1u << 20)) continue;
                    const std::vector<cf> x = rng.complex(n);
                    std::vector<cf> got[2];
                    std::string what = std::to_string(w) + "x" + std::to_string(h) +
                                       (inverse ? " inverse" : " forward") + " R" + std::to_string(rt) + "/C" +
                                       std::to_string(ct);
                    for (bool lines : {true, false}) {
                        gpu::FastFft fast;
                        gpu::FastFft::Variant v;
                        v.line_barriers = lines;
                        v.one_launch = k == 0;
                        v.c2c_columns_first = false;  // (its own test: ColumnsFirstShapesMatchFftwAndTheRowsFirstOnes)
                        v.in_place_c2c = k != 2;
                        fast.set_variant(v);
                        fast.set_block_threads(rt, ct);
                        if (lines)
                            what += fast.one_launch_blocks(w, h, inverse) > 0 ? ", one launch" : ", two launches";
                        got[lines ? 0 : 1] = run_c2c(fast, x, w, h, inverse);
                    }
                    what += k == 2 ? ", through the scratch" : ", in place";
                    EXPECT_EQ(0, std::memcmp(got[0].data(), got[1].data(), n * sizeof(cf))) << what;
                    EXPECT_LT(rel_l2(got[0], dft2d(widen(x), h, w, inverse)), 1e-5) << what;
                }
}

// m83: the split C2C's row pass at 8192^2 with each line a block (Variant::split_rows_alone, the columns' first stage
// before the row FFT) and with the rows paired: the same transform within float rounding, both directions, grouped
// for the column blocks and not; against FFTW forward. 8192^2 is the only shape it runs at (skipped in a small run).
TEST_F(FastFft, SplitRowsAloneGiveTheTransformOfThePairedRows) {
    if (small_run()) GTEST_SKIP() << "8192^2 only (a small run)";
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int w = 8192, h = 8192;
    const std::vector<cf> x = rng.complex(std::size_t(w) * h);
    for (bool inverse : {false, true})
        for (bool grouped : {true, false}) {
            const std::string what =
                std::string(inverse ? "inverse" : "forward") + (grouped ? ", grouped" : ", row-major");
            std::vector<cf> got[2];
            for (bool alone : {true, false}) {
                gpu::FastFft fast;
                gpu::FastFft::Variant v;
                v.grouped = grouped;
                v.split_rows_alone = alone;
                fast.set_variant(v);
                EXPECT_FALSE(fast.c2c_in_place(w, h)) << "the split runs through the scratch";
                got[alone ? 0 : 1] = run_c2c(fast, x, w, h, inverse);
            }
            EXPECT_LT(rel_l2(got[0], widen(got[1])), 1e-5) << what;
            if (!inverse && grouped)
                EXPECT_LT(rel_l2(got[0], dft2d(widen(x), h, w, false)), 1e-5) << what << " vs FFTW";
        }
}

// m89: m83's row pass with row y of each pair through bulk copies (Variant::tma_split_rows) or a thread's loads: each
// point's arithmetic is the same, so the same bytes, both directions, grouped and row-major; the pass's timer mark says
// whether the bulk copies ran (sm_90 and up). 8192^2 only (skipped in a small run; memcheck runs it at full size).
TEST_F(FastFft, TmaSplitRowsGiveTheSameBytes) {
    if (small_run()) GTEST_SKIP() << "8192^2 only (a small run)";
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int major = device_major();
    const int w = 8192, h = 8192;
    const std::size_t n = std::size_t(w) * h;
    const std::vector<cf> x = rng.complex(n);
    for (bool inverse : {false, true})
        for (bool grouped : {true, false}) {
            const std::string what =
                std::string(inverse ? "inverse" : "forward") + (grouped ? ", grouped" : ", row-major");
            gpu::FastFft::Variant v;
            v.grouped = grouped;
            const auto runs = run_c2c_on_off(&gpu::FastFft::Variant::tma_split_rows, v, x, w, h, inverse);
            for (int side : {0, 1}) {
                EXPECT_TRUE(runs[side].marked("", "a line a block")) << what << ": m83's row pass";
                EXPECT_EQ(runs[side].marked("", "a line a block, bulk-copied loads"), side == 0 && major >= 9)
                    << what << (side == 0 ? ", bulk copies on" : ", bulk copies off");
            }
            EXPECT_EQ(0, std::memcmp(runs[0].out.data(), runs[1].out.data(), n * sizeof(cf))) << what;
        }
}

// m92: the real rows' pass with its rows through bulk copies (Variant::tma_real_rows: rows of 4096 points or more,
// whole blocks) or a thread's loads, in the transposed R2C (rows paired 2p, 2p + 1; at height 8192 the split's p,
// p + H/2): the same bins to the bit; FFTW's at the small sizes; the pass's mark says whether the copies ran (sm_90 and
// up). Rows of 2048 points or fewer keep the loads (there the copies measured 3-6% slower); 4096 x 64 is in a small
// run, for memcheck.
TEST_F(FastFft, TmaRealRowsGiveTheSameBytes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int major = device_major();
    for (auto [w, h] : {std::pair{256, 64}, std::pair{512, 512}, std::pair{2048, 1024}, std::pair{4096, 64},
                        std::pair{4096, 4096}, std::pair{1024, 8192}, std::pair{8192, 8192}}) {
        const std::size_t n = std::size_t(w) * h, m = std::size_t(w / 2 + 1) * h;
        if (small_run() && n > (1u << 20)) continue;
        const std::string what = std::to_string(w) + "x" + std::to_string(h);
        const std::vector<float> x = rng.real(n);
        gpu::DeviceBuffer<float> plane;
        upload(plane, x);
        std::vector<cf> got[2];
        bool ran[2] = {false, false};
        for (bool bulk : {true, false}) {
            gpu::FastFft fast;
            gpu::FastFft::Variant v;
            v.tma_real_rows = bulk;
            fast.set_variant(v);
            gpu::DeviceBuffer<float2> t(m);
            poison(t);
            gpu::StageTimer timer;
            timer.start(nullptr);
            fast.r2c(plane.get(), w, h, t.get(), nullptr, &timer, true);
            for (const auto& k : timer.collect())
                ran[bulk ? 0 : 1] = ran[bulk ? 0 : 1] || (k.name.rfind("fast pass 1: real rows", 0) == 0 &&
                                                          k.name.find("bulk-copied loads") != std::string::npos);
            got[bulk ? 0 : 1] = download<cf>(t.get(), m);
        }
        EXPECT_FALSE(ran[1]) << what << ": bulk copies off";
        if (w < 4096 || major < 9)
            EXPECT_FALSE(ran[0]) << what << ": rows of " << w << " points keep the loads";
        else
            EXPECT_TRUE(ran[0]) << what << ": bulk copies on";
        EXPECT_EQ(0, std::memcmp(got[0].data(), got[1].data(), m * sizeof(cf))) << what;
        if (n <= (1u << 21))
            EXPECT_LT(rel_l2(got[0], half_spectrum(dft2d(widen(x), h, w), w, h, true)), 1e-5) << what << " vs FFTW";
    }
}

// m96: the columns-first R2C (cuFFT's layout) with its unpacking's twiddles W_2n^k as a thread's one
// sincospif times constant steps (Variant::r2c_unpack_steps) or a sincospif a bin: other roundings, so compared within
// float error, and against FFTW in double where that is quick (up to 2M points), where the steps must be as accurate
// as the per-bin twiddles (within 10% of their error, or under 1e-7 more). Its three row kernels: in pairs (512^2 to
// 4096^2, rows of 256 to 2048 points; 16 x 16 has rows of 8 points, fewer than a thread's 16, and keeps the per-bin
// twiddles), the split's groups of four (8192 x 8192 is m84's, 2048 x 8192 the groups') and m84's mirror pairs.
TEST_F(FastFft, R2cUnpackStepsMatchFftwAsThePerBinTwiddlesDo) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    for (auto [w, h] :
         {std::pair{16, 16}, std::pair{512, 512}, std::pair{1024, 1024}, std::pair{2048, 1024}, std::pair{1024, 2048},
          std::pair{4096, 4096}, std::pair{2048, 8192}, std::pair{4096, 8192}, std::pair{8192, 8192}}) {
        const std::size_t n = std::size_t(w) * h;
        if (small_run() && n > (1u << 20)) continue;
        const std::string what = std::to_string(w) + "x" + std::to_string(h);
        const std::vector<float> x = rng.real(n);
        auto runs = run_r2c_on_off(&gpu::FastFft::Variant::r2c_unpack_steps, r2c_columns_first_everywhere(), x, w, h);
        const std::vector<cf> got[2] = {std::move(runs[0].out), std::move(runs[1].out)};
        EXPECT_LT(rel_l2(got[0], widen(got[1])), 1e-6) << what << ": steps against per-bin twiddles";
        if (n <= (1u << 21)) {
            const std::vector<cd> want = half_spectrum(dft2d(widen(x), h, w), w, h);
            const double e_steps = rel_l2(got[0], want), e_bins = rel_l2(got[1], want);
            EXPECT_LT(e_steps, std::max(1.1 * e_bins, e_bins + 1e-7))
                << what << " vs FFTW: steps " << e_steps << ", per bin " << e_bins;
            EXPECT_LT(e_steps, 1e-6) << what << " vs FFTW";
        }
    }
}

// m93: the mixed-radix C2C's row pass at a compiled-in length with its rows through bulk copies (Variant::
// tma_mixed_rows) or a thread's loads: the same spectrum (the same butterflies on the same points; compared within
// float rounding, not to the bit, as the first pass's gather is another instantiation), FFTW's where it is small
// enough, both directions. The pass's mark must say that the copies ran at 3000-point rows (one line a block, sm_90
// and up; 3000 x 16 is in a small run, for memcheck) and never with the switch off; 1009 x 4 (Bluestein) never.
TEST_F(FastFft, TmaMixedRowsGiveTheSameSpectrum) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int major = device_major();
    for (auto [w, h] : {std::pair{3000, 2000}, std::pair{1920, 1080}, std::pair{1080, 1920}, std::pair{4032, 3024},
                        std::pair{720, 720}, std::pair{3000, 16}, std::pair{1009, 4}})
        for (bool inverse : {false, true}) {
            const std::size_t n = std::size_t(w) * h;
            if (small_run() && n > (1u << 20)) continue;
            const std::string what = std::to_string(w) + "x" + std::to_string(h) + (inverse ? " inverse" : " forward");
            const std::vector<cf> x = rng.complex(n);
            const auto runs = run_c2c_on_off(&gpu::FastFft::Variant::tma_mixed_rows, {}, x, w, h, inverse);
            const bool ran[2] = {runs[0].marked("fast pass 1", "bulk-copied loads"),
                                 runs[1].marked("fast pass 1", "bulk-copied loads")};
            const std::vector<cf>* got[2] = {&runs[0].out, &runs[1].out};
            std::printf("[ fast     ] %s: rows through bulk copies %s\n", what.c_str(), ran[0] ? "yes" : "no");
            EXPECT_FALSE(ran[1]) << what << ": bulk copies off";
            if (w == 3000) EXPECT_EQ(ran[0], major >= 9) << what;
            if (w == 1009) EXPECT_FALSE(ran[0]) << what << ": Bluestein has no compiled-in plan";
            EXPECT_LT(rel_l2(*got[0], widen(*got[1])), 1e-6) << what;
            if (n <= (1u << 21)) EXPECT_LT(rel_l2(*got[0], dft2d(widen(x), h, w, inverse)), 1e-5) << what << " vs FFTW";
        }
}

// m95: the power-of-two C2C's in-place column pass at 2048 points with its loads through the tensor memory
// accelerator (Variant::tma_inplace_columns) or a thread's: the same transform within float rounding (another
// instantiation of the line), both directions; FFTW's at 2048^2; the
// pass's mark must say that the TMA ran at 2048^2 (sm_90 and up) and never with the switch off.
TEST_F(FastFft, TmaInPlaceColumnsGiveTheSameBytes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int major = device_major();
    for (auto [w, h] : {std::pair{2048, 2048}, std::pair{1024, 2048}, std::pair{4096, 2048}})
        for (bool inverse : {false, true}) {
            const std::size_t n = std::size_t(w) * h;
            if (small_run() && n > (1u << 22)) continue;
            const std::string what = std::to_string(w) + "x" + std::to_string(h) + (inverse ? " inverse" : " forward");
            const std::vector<cf> x = rng.complex(n);
            const auto runs = run_c2c_on_off(&gpu::FastFft::Variant::tma_inplace_columns, {}, x, w, h, inverse);
            const bool ran[2] = {runs[0].marked("", "in place, TMA loads"), runs[1].marked("", "in place, TMA loads")};
            const std::vector<cf>* got[2] = {&runs[0].out, &runs[1].out};
            std::printf("[ fast     ] %s: in-place columns through the TMA %s\n", what.c_str(), ran[0] ? "yes" : "no");
            EXPECT_FALSE(ran[1]) << what << ": TMA off";
            if (w == 2048) EXPECT_EQ(ran[0], major >= 9) << what;
            EXPECT_LT(rel_l2(*got[0], widen(*got[1])), 1e-6) << what << ": TMA against the loads";
            if (w == 2048) EXPECT_LT(rel_l2(*got[0], dft2d(widen(x), h, w, inverse)), 1e-5) << what << " vs FFTW";
        }
}

// m102: the C2C's column blocks with the first pass's butterflies a thread's neighbours (Variant::blocked_first_pass)
// or tpc apart: the same bytes (the first pass has no twiddles, so only which thread does a butterfly and where it
// is stored change), both directions, at the one-launch squares (512^2: radix 2 first, 1024^2: radix 4) and shapes
// whose column pass run_cols launches with C > 1 (2048-, 512- and 8192-point columns: radix 8, 2, and the split's
// 4096, which keeps the strided order; 8192 x 1024, 64 MiB, through the grouped scratch, where c2c keeps the strided
// order on both sides since m102 lost there by 4%); FFTW's where it is cheap. 256 x 1024 is in a small run, for memcheck.
TEST_F(FastFft, BlockedFirstPassGivesTheSameBytes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    for (auto [w, h] : {std::pair{256, 1024}, std::pair{512, 512}, std::pair{1024, 1024}, std::pair{4096, 512},
                        std::pair{1024, 2048}, std::pair{512, 8192}, std::pair{8192, 1024}})
        for (bool inverse : {false, true}) {
            const std::size_t n = std::size_t(w) * h;
            if (small_run() && n > (1u << 18)) continue;
            const std::string what = std::to_string(w) + "x" + std::to_string(h) + (inverse ? " inverse" : " forward");
            const std::vector<cf> x = rng.complex(n);
            const auto runs = run_c2c_on_off(&gpu::FastFft::Variant::blocked_first_pass, {}, x, w, h, inverse);
            EXPECT_EQ(0, std::memcmp(runs[0].out.data(), runs[1].out.data(), n * sizeof(cf))) << what;
            if (n <= (1u << 20))
                EXPECT_LT(rel_l2(runs[0].out, dft2d(widen(x), h, w, inverse)), 1e-5) << what << " vs FFTW";
        }
}

// m104: the C2C's TMA column kernel with m102's first-pass order, Gray-swizzled (Variant::blocked_first_tma), or the
// strided one: the same bytes, both directions, at 2048^2 (in place, eight columns a block) and 4096 x 2048 (the
// grouped scratch, m97), the marks saying the TMA kernel ran on both sides (sm_90 and up); FFTW's at 2048^2.
TEST_F(FastFft, BlockedFirstTmaGivesTheSameBytes) {
    if (small_run()) GTEST_SKIP() << "2048-point TMA columns only at 2048^2 and 4096 x 2048 (a small run)";
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int major = device_major();
    for (auto [w, h] : {std::pair{2048, 2048}, std::pair{4096, 2048}})
        for (bool inverse : {false, true}) {
            const std::size_t n = std::size_t(w) * h;
            const std::string what = std::to_string(w) + "x" + std::to_string(h) + (inverse ? " inverse" : " forward");
            const std::vector<cf> x = rng.complex(n);
            const auto runs = run_c2c_on_off(&gpu::FastFft::Variant::blocked_first_tma, {}, x, w, h, inverse);
            const char* mark = w == 2048 ? "in place, TMA loads" : "bulk-copied loads";
            for (int side : {0, 1})
                EXPECT_EQ(runs[side].marked("fast pass 2", mark), major >= 9) << what << ", side " << side;
            EXPECT_EQ(0, std::memcmp(runs[0].out.data(), runs[1].out.data(), n * sizeof(cf))) << what;
            if (w == 2048) EXPECT_LT(rel_l2(runs[0].out, dft2d(widen(x), h, w, inverse)), 1e-5) << what << " vs FFTW";
        }
}

// m84: the columns-first R2C's split row pass (height 8192) at rows of 2048 and 4096 points with two mirror lines a block
// (Variant::split_r2c_rows_alone) and in groups of four: the same half spectrum within float rounding; FFTW's at
// 4096 x 8192. Only these shapes take it (skipped in a small run).
TEST_F(FastFft, SplitR2cRowsInMirrorPairsGiveTheGroupsTransform) {
    if (small_run()) GTEST_SKIP() << "4096 x 8192 and 8192^2 only (a small run)";
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    for (int w : {4096, 8192}) {
        const int h = 8192;
        const std::size_t n = std::size_t(w) * h;
        const std::string what = std::to_string(w) + "x" + std::to_string(h);
        const std::vector<float> x = rng.real(n);
        auto runs = run_r2c_on_off(&gpu::FastFft::Variant::split_r2c_rows_alone, {}, x, w, h);
        const std::vector<cf> got[2] = {std::move(runs[0].out), std::move(runs[1].out)};
        EXPECT_LT(rel_l2(got[0], widen(got[1])), 1e-5) << what;
        if (w == 4096)
            EXPECT_LT(rel_l2(got[0], half_spectrum(dft2d(widen(x), h, w), w, h)), 1e-5) << what << " vs FFTW";
    }
}

// m85: the columns-first R2C's first pass with its loads through the tensor memory accelerator (Variant::
// tma_plane_columns) or a thread's own: the same half spectrum within float rounding, and FFTW's. Where the columns have
// 4096 points and a block takes two or more (sm_90 and up) the pass's timer mark must say that the TMA path ran; one
// column a block (narrow planes) and the shorter columns keep the loads.
TEST_F(FastFft, TmaPlaneColumnsMatchFftwAndTheLoadedOnes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int major = device_major();
    struct Shape {
        int w, h;
        bool tma;  // (on a device that has it) two columns a block or more
    };
    for (Shape sh : {Shape{1024, 1024, false}, Shape{2048, 2048, false}, Shape{512, 4096, true}, Shape{64, 4096, false},
                     Shape{2048, 4096, true}, Shape{4096, 4096, true}, Shape{2048, 8192, true}}) {
        const int w = sh.w, h = sh.h;
        const std::size_t n = std::size_t(w) * h;
        if (small_run() && n > (1u << 22)) continue;
        const std::string what = std::to_string(w) + "x" + std::to_string(h);
        const std::vector<float> x = rng.real(n);
        auto runs = run_r2c_on_off(&gpu::FastFft::Variant::tma_plane_columns, r2c_columns_first_everywhere(), x, w, h);
        for (int side : {0, 1})
            EXPECT_EQ(runs[side].marked("", "TMA loads"), side == 0 && sh.tma && major >= 9)
                << what << (side == 0 ? ", TMA on" : ", TMA off");
        const std::vector<cf> got[2] = {std::move(runs[0].out), std::move(runs[1].out)};
        EXPECT_LT(rel_l2(got[0], widen(got[1])), 1e-5) << what;
        if (n <= (1u << 22))
            EXPECT_LT(rel_l2(got[0], half_spectrum(dft2d(widen(x), h, w), w, h)), 1e-5) << what << " vs FFTW";
    }
}

// m86: the C2C's column pass over the grouped scratch with its loads as bulk copies (Variant::tma_grouped_columns) or a
// thread's own: each column's arithmetic is the same, so the same bytes, both directions; FFTW's transform at 4096^2.
// The pass's timer mark must say that the bulk copies ran where the columns have 4096 points (whole, or the halves of
// 8192), or 2048 (m97: 4096 x 2048, with tma_grouped_2048), and the scratch is grouped (not in place), on sm_90
// and up; elsewhere the loads.
TEST_F(FastFft, TmaGroupedColumnsGiveTheSameBytes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int major = device_major();
    for (auto [w, h] : {std::pair{256, 4096}, std::pair{4096, 4096}, std::pair{1024, 8192}, std::pair{4096, 2048},
                        std::pair{8192, 8192}})
        for (bool inverse : {false, true}) {
            const std::size_t n = std::size_t(w) * h;
            if (small_run() && n > (1u << 20)) continue;
            const std::vector<cf> x = rng.complex(n);
            const std::string what = std::to_string(w) + "x" + std::to_string(h) + (inverse ? " inverse" : " forward");
            std::vector<cf> got[2];
            for (bool tma : {true, false}) {
                gpu::FastFft fast;
                gpu::FastFft::Variant v;
                v.tma_grouped_columns = tma;
                fast.set_variant(v);
                const bool want_tma = tma && major >= 9 && !fast.c2c_in_place(w, h) &&
                                      (h == 2048 || h == 4096 || h == 8192) &&
                                      fast.one_launch_blocks(w, h, inverse) == 0;
                MarkedRun run = run_c2c_marked(fast, x, w, h, inverse);
                // (the column pass's mark: m89's row pass has bulk copies too)
                EXPECT_EQ(run.marked("fast pass 2", "bulk-copied loads"), want_tma)
                    << what << (tma ? ", bulk copies on" : ", bulk copies off");
                got[tma ? 0 : 1] = std::move(run.out);
            }
            EXPECT_EQ(0, std::memcmp(got[0].data(), got[1].data(), n * sizeof(cf))) << what;
            if (w == 4096 && h == 4096) {
                std::vector<cd> want = dft2d(widen(x), h, w, inverse);
                EXPECT_LT(rel_l2(got[0], want), 1e-5) << what << " vs FFTW";
            }
        }
}

// m75: the 2048^2 C2C in place with its columns eight a block (Variant::wide_2048_columns) or four: each column's
// arithmetic is the same, so the same bytes, and FFTW's transform, both directions. The other shapes with 2048-point
// columns (one launch at 512 x 2048, through the scratch) keep four a block: the switch must not change their bytes.
TEST_F(FastFft, Wide2048ColumnsGiveTheSameBytes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    for (auto [w, h] : {std::pair{512, 2048}, std::pair{2048, 2048}, std::pair{4096, 2048}, std::pair{64, 2048}})
        for (bool in_place : {true, false})
            for (bool inverse : {false, true}) {
                const std::size_t n = std::size_t(w) * h;
                if (small_run() && n > (1u << 20)) continue;
                const std::vector<cf> x = rng.complex(n);
                std::vector<cf> got[2];
                std::string what = std::to_string(w) + "x" + std::to_string(h) + (inverse ? " inverse" : " forward") +
                                   (in_place ? ", in place" : ", through the scratch");
                for (bool wide : {true, false}) {
                    gpu::FastFft fast;
                    gpu::FastFft::Variant v;
                    v.wide_2048_columns = wide;
                    v.in_place_c2c = in_place;
                    fast.set_variant(v);
                    if (wide) what += fast.one_launch_blocks(w, h, inverse) > 0 ? ", one launch" : ", two launches";
                    got[wide ? 0 : 1] = run_c2c(fast, x, w, h, inverse);
                }
                EXPECT_EQ(0, std::memcmp(got[0].data(), got[1].data(), n * sizeof(cf))) << what;
                EXPECT_LT(rel_l2(got[0], dft2d(widen(x), h, w, inverse)), 1e-5) << what;
            }
}

// m58: a power-of-two C2C whose plane fits in L2 runs in place, in one launch or two: the same transform as through
// the scratch, and the scratch (poisoned) left as it was. Other sizes (mixed radices, Bluestein, over the L2) use
// the scratch.
TEST_F(FastFft, InPlaceC2cLeavesTheScratchAloneAndMatchesFftw) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    int device = 0, l2 = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), cudaSuccess);
    const int sizes[][2] = {{1, 1}, {2, 8}, {256, 256}, {1024, 64}, {64, 1024}, {512, 1024}, {2048, 16}, {16, 4096}};
    for (int how = 0; how < 3; ++how) {  // the default (columns first where not square), the one launch, rows first
        gpu::FastFft fast;
        gpu::FastFft::Variant v;
        v.one_launch = how != 2;
        v.c2c_columns_first = how == 0;
        fast.set_variant(v);
        for (const auto& sz : sizes)
            for (bool inverse : {false, true}) {
                const int w = sz[0], h = sz[1];
                const std::size_t n = std::size_t(w) * h;
                ASSERT_LE(8.0 * double(n), double(l2)) << "the test's sizes fit in any L2 that runs it";
                EXPECT_TRUE(fast.c2c_in_place(w, h)) << w << "x" << h;
                const std::vector<cf> x = rng.complex(n);
                gpu::DeviceBuffer<float2> d, scratch(n);
                upload(d, x);
                poison(scratch);
                const std::vector<float2> before = download<float2>(scratch.get(), n);
                fast.c2c(d.get(), scratch.get(), w, h, inverse, nullptr, nullptr);
                const std::string what = std::to_string(w) + "x" + std::to_string(h) +
                                         (inverse ? " inverse" : " forward") +
                                         (fast.one_launch_blocks(w, h, inverse) > 0 ? " in one launch"
                                          : fast.c2c_columns_first(w, h)            ? " columns first"
                                                                                    : " in two launches");
                const std::vector<cf> got = download<cf>(d.get(), n);
                EXPECT_LT(rel_l2(got, dft2d(widen(x), h, w, inverse)), 1e-5) << what;
                const std::vector<float2> after = download<float2>(scratch.get(), n);
                EXPECT_EQ(0, std::memcmp(before.data(), after.data(), n * sizeof(float2)))
                    << what << ": the in-place C2C wrote to its scratch";
                // With no scratch at all, as the engine's inverse passes it there: the same bytes.
                upload(d, x);
                fast.c2c(d.get(), nullptr, w, h, inverse, nullptr, nullptr);
                CUDA_CHECK(cudaDeviceSynchronize());
                EXPECT_EQ(0, std::memcmp(got.data(), download<cf>(d.get(), n).data(), n * sizeof(cf)))
                    << what << " with a null scratch";
            }
    }
    gpu::FastFft fast;
    EXPECT_FALSE(fast.c2c_in_place(640, 480)) << "mixed radices keep the scratch";
    EXPECT_FALSE(fast.c2c_in_place(1024, 1009)) << "a Bluestein side";
    EXPECT_FALSE(fast.c2c_in_place(8192, 8192)) << "512 MiB: over any L2";
    gpu::FastFft::Variant off;
    off.in_place_c2c = false;
    fast.set_variant(off);
    EXPECT_FALSE(fast.c2c_in_place(256, 256)) << "switched off";
}

TEST_F(FastFft, RealSpectrumMatchesFftw) {
    Rng rng;
    gpu::FastFft fast;
    double worst = 0;
    for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 8}, std::pair{8, 1}, std::pair{2, 4}, std::pair{64, 32},
                        std::pair{512, 512}, std::pair{2048, 1024}, std::pair{4096, 4096}, std::pair{16384, 2},
                        // mixed radix (and Bluestein: 1009)
                        std::pair{3, 1}, std::pair{1, 3}, std::pair{5, 7}, std::pair{15, 8}, std::pair{8, 15},
                        std::pair{1009, 4}, std::pair{300, 200}, std::pair{1920, 1080}, std::pair{4032, 3024},
                        // 8192-point columns: the split (s4), the scratch r2c picks when the output is its own buffer
                        std::pair{16, 8192}, std::pair{1024, 8192}}) {
        const std::size_t n = std::size_t(w) * h;
        if (small_run() && n > (1u << 20)) continue;
        const std::vector<float> x = rng.real(n);
        gpu::DeviceBuffer<float> plane;
        upload(plane, x);
        gpu::DeviceBuffer<float2> full(n);
        poison(full);
        fast.real_spectrum(plane.get(), w, h, full.get(), nullptr, nullptr);
        const std::vector<cd> want = dft2d(widen(x), h, w);
        const double e = rel_l2(download<cf>(full.get(), n), want);
        EXPECT_LT(e, 1e-5) << w << "x" << h;
        worst = std::max(worst, e);
        {  // R2C into the transposed layout (width/2 + 1 rows of height bins), at every size
            const std::vector<cd> t_want = half_spectrum(want, w, h, true);
            gpu::DeviceBuffer<float2> t(t_want.size());
            poison(t);
            fast.r2c(plane.get(), w, h, t.get(), nullptr, nullptr, true);
            EXPECT_LT(rel_l2(download<cf>(t.get(), t_want.size()), t_want), 1e-5) << w << "x" << h << " transposed";
        }
        if ((w & (w - 1)) == 0 && (h & (h - 1)) == 0 &&
            h > 1) {  // the columns through the grouped scratch at every height (r2c_scratch)
            gpu::FastFft other;
            gpu::FastFft::Variant v;
            v.r2c_scratch = true;
            other.set_variant(v);
            poison(full);
            other.real_spectrum(plane.get(), w, h, full.get(), nullptr, nullptr);
            EXPECT_LT(rel_l2(download<cf>(full.get(), n), want), 1e-5) << w << "x" << h << " r2c_scratch";
        }
    }
    std::printf("[ fast     ] real-input worst relative L2 error vs FFTW (double): %.3g\n", worst);
}

// m78: the power-of-two R2C in cuFFT's layout columns first (the plane's columns as complex pairs, then the rows in
// pairs (ky, H - ky) unpacked into whole output rows) against FFTW and against the rows-first path it replaces, at
// the edges of its rule (height 2, width 2, one row of 8192 pairs, 4096-point columns; forced below its 1M-point
// threshold) and at the block sizes the benchmark sweeps; through the caller's buffer and through real_spectrum (whose
// own half_ buffer makes r2c take the other scratch). Heights of 1, 8192 at widths over 8192, a transposed output, a
// plane that cannot be read as float2 and, by default, fewer than 1M points go rows first.
TEST_F(FastFft, R2cColumnsFirstMatchesFftwAndTheRowsFirstPath) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    for (auto [w, h] :
         {std::pair{2, 2}, std::pair{2, 64}, std::pair{64, 2}, std::pair{4, 4}, std::pair{16384, 2},
          std::pair{32, 4096}, std::pair{1024, 1024}, std::pair{512, 256}, std::pair{2048, 2048}, std::pair{4096, 4096},
          // m82, 8192-point columns split: narrow (one group a block at most), and wide
          std::pair{2, 8192}, std::pair{16, 8192}, std::pair{1024, 8192}}) {
        const std::size_t n = std::size_t(w) * h;
        if (small_run() && n > (1u << 20)) continue;
        const std::string what = std::to_string(w) + "x" + std::to_string(h);
        const std::vector<float> x = rng.real(n);
        const std::vector<cd> full = dft2d(widen(x), h, w);
        const std::vector<cd> want = half_spectrum(full, w, h);
        gpu::DeviceBuffer<float> plane;
        upload(plane, x);
        for (auto [rows, cols] : {std::pair{0, 0}, std::pair{1024, 1024}, std::pair{512, 256}}) {
            std::vector<cf> got[2];
            for (bool first : {true, false}) {
                gpu::FastFft fast;
                gpu::FastFft::Variant v;
                v.r2c_columns_first = first;
                v.split_r2c_columns_first = first;
                v.r2c_columns_first_min_points = 0;
                fast.set_variant(v);
                if (rows) fast.set_block_threads(rows, cols);
                EXPECT_EQ(first, fast.r2c_columns_first(plane.get(), w, h, false)) << what;
                gpu::DeviceBuffer<float2> half(want.size());
                poison(half);
                fast.r2c(plane.get(), w, h, half.get(), nullptr, nullptr);
                got[first ? 0 : 1] = download<cf>(half.get(), want.size());
                const std::string how = what + (first ? " columns first" : " rows first") + ", block threads " +
                                        std::to_string(rows) + "/" + std::to_string(cols);
                EXPECT_LT(rel_l2(got[first ? 0 : 1], want), 1e-5) << how;
                if (first && rows == 0) {  // twice more: the scratch it made is reused; real_spectrum's own buffer
                    poison(half);
                    fast.r2c(plane.get(), w, h, half.get(), nullptr, nullptr);
                    EXPECT_LT(rel_l2(download<cf>(half.get(), want.size()), want), 1e-5) << how << ", again";
                    gpu::DeviceBuffer<float2> whole(n);
                    poison(whole);
                    fast.real_spectrum(plane.get(), w, h, whole.get(), nullptr, nullptr);
                    EXPECT_LT(rel_l2(download<cf>(whole.get(), n), full), 1e-5) << how << ", real_spectrum";
                }
            }
            // Different arithmetic, the same transform: within float rounding of each other.
            EXPECT_LT(rel_l2(got[0], widen(got[1])), 1e-5) << what;
        }
    }
    gpu::FastFft fast;
    gpu::DeviceBuffer<float> plane(2 * 64 + 1);
    EXPECT_FALSE(fast.r2c_columns_first(plane.get(), 512, 512, false)) << "fewer than 1M points, by default";
    EXPECT_TRUE(fast.r2c_columns_first(plane.get(), 1024, 1024, false)) << "1M points";
    EXPECT_TRUE(fast.r2c_columns_first(plane.get(), 16384, 64, false)) << "1M points, wide";
    gpu::FastFft::Variant v;  // the rest of the rule, at any size
    v.r2c_columns_first_min_points = 0;
    fast.set_variant(v);
    EXPECT_TRUE(fast.r2c_columns_first(plane.get(), 64, 2, false)) << "forced";
    EXPECT_FALSE(fast.r2c_columns_first(plane.get(), 64, 1, false)) << "one row";
    EXPECT_TRUE(fast.r2c_columns_first(plane.get(), 64, 8192, false)) << "8192-point columns, split (m82)";
    EXPECT_FALSE(fast.r2c_columns_first(plane.get(), 16384, 8192, false)) << "8192-point columns, rows over 4096 pairs";
    EXPECT_FALSE(fast.r2c_columns_first(plane.get(), 64, 64, true)) << "transposed";
    EXPECT_FALSE(fast.r2c_columns_first(plane.get(), 60, 64, false)) << "not a power of two";
    EXPECT_FALSE(fast.r2c_columns_first(plane.get() + 1, 64, 2, false)) << "a plane not aligned for float2";
    {  // ... which still gives the transform, rows first
        Rng r2;
        const std::vector<float> x = r2.real(64 * 2);
        gpu::DeviceBuffer<float> big;
        std::vector<float> padded(1 + x.size());
        std::copy(x.begin(), x.end(), padded.begin() + 1);
        upload(big, padded);
        const std::vector<cd> want = half_spectrum(dft2d(widen(x), 2, 64), 64, 2);
        gpu::DeviceBuffer<float2> half(want.size());
        poison(half);
        fast.r2c(big.get() + 1, 64, 2, half.get(), nullptr, nullptr);
        EXPECT_LT(rel_l2(download<cf>(half.get(), want.size()), want), 1e-5) << "unaligned plane";
    }
}

// m80: the small power-of-two C2C in place, not square, columns first in two launches (cuFFT's order and shapes)
// against FFTW and against the one launch, both directions, with its scratch (poisoned) left alone; at the block sizes
// the benchmark sweeps too; and the rule's edges.
TEST_F(FastFft, ColumnsFirstShapesMatchFftwAndTheRowsFirstOnes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    for (auto [w, h] : {std::pair{1024, 512}, std::pair{512, 1024}, std::pair{256, 512}, std::pair{64, 1024},
                        std::pair{1024, 64}, std::pair{2, 4}, std::pair{4, 2}, std::pair{16, 4}, std::pair{2048, 512}})
        for (bool inverse : {false, true})
            for (auto [rows, cols] : {std::pair{0, 0}, std::pair{256, 256}, std::pair{1024, 1024}}) {
                const std::size_t n = std::size_t(w) * h;
                const std::vector<cf> x = rng.complex(n);
                const std::vector<cd> want = dft2d(widen(x), h, w, inverse);
                std::vector<cf> got[2];
                std::string what = std::to_string(w) + "x" + std::to_string(h) + (inverse ? " inverse" : " forward") +
                                   ", block threads " + std::to_string(rows) + "/" + std::to_string(cols);
                for (bool first : {true, false}) {
                    gpu::FastFft fast;
                    gpu::FastFft::Variant v;
                    v.c2c_columns_first = first;
                    fast.set_variant(v);
                    if (rows) fast.set_block_threads(rows, cols);
                    EXPECT_EQ(first, fast.c2c_columns_first(w, h)) << what;
                    gpu::DeviceBuffer<float2> d, scratch(n);
                    upload(d, x);
                    poison(scratch);
                    const std::vector<float2> before = download<float2>(scratch.get(), n);
                    fast.c2c(d.get(), scratch.get(), w, h, inverse, nullptr, nullptr);
                    got[first ? 0 : 1] = download<cf>(d.get(), n);
                    EXPECT_LT(rel_l2(got[first ? 0 : 1], want), 1e-5)
                        << what << (first ? ", columns first" : ", rows first");
                    const std::vector<float2> after = download<float2>(scratch.get(), n);
                    EXPECT_EQ(0, std::memcmp(before.data(), after.data(), n * sizeof(float2)))
                        << what << ": scratch touched";
                }
                EXPECT_LT(rel_l2(got[0], widen(got[1])), 1e-5) << what;
            }
    {
        gpu::FastFft fast;
        EXPECT_TRUE(fast.c2c_columns_first(1024, 512)) << "by default where not square";
        EXPECT_EQ(0, fast.one_launch_blocks(1024, 512)) << "columns first is not the one launch";
        EXPECT_FALSE(fast.c2c_columns_first(1024, 1024)) << "squares: the one launch";
        EXPECT_FALSE(fast.c2c_columns_first(256, 256)) << "squares: the one launch";
        EXPECT_FALSE(fast.c2c_columns_first(2048, 1024)) << "over 1M points: the two passes rows first";
        EXPECT_FALSE(fast.c2c_columns_first(1920, 1080)) << "not powers of two";
    }
}

// custom-fast's C2C and R2C error against FFTW (double) beside cuFFT's, on the same fresh inputs: with `bar`,
// within 2x cuFFT's (issue 13's accuracy bar); always under `ceiling`. The R2C output is cuFFT's layout (height
// rows of width/2 + 1).
void expect_accuracy_like_cuffts(Rng& rng, gpu::FastFft& fast, gpu::CufftBackend& cufft, int w, int h, bool bar,
                                 double ceiling) {
    const std::size_t n = std::size_t(w) * h;
    const std::string what = std::to_string(w) + "x" + std::to_string(h);
    // C2C
    const std::vector<cf> x = rng.complex(n);
    const std::vector<cd> want = dft2d(widen(x), h, w);
    gpu::DeviceBuffer<float2> d, scratch(n);
    upload(d, x);
    poison(scratch);
    fast.c2c(d.get(), scratch.get(), w, h, false, nullptr, nullptr);
    const double e_fast = rel_l2(download<cf>(d.get(), n), want);
    upload(d, x);
    cufft.c2c(d.get(), w, h, false, nullptr);
    const double e_cufft = rel_l2(download<cf>(d.get(), n), want);
    if (bar) EXPECT_LE(e_fast, 2 * e_cufft) << what << " C2C";
    EXPECT_LT(e_fast, ceiling) << what << " C2C";
    // R2C: both write height x (width/2 + 1) bins
    const std::vector<float> r = rng.real(n);
    const std::vector<cd> full = dft2d(widen(r), h, w);
    const std::vector<cd> half_want = half_spectrum(full, w, h);
    gpu::DeviceBuffer<float> plane;
    upload(plane, r);
    gpu::DeviceBuffer<float2> half(half_want.size());
    poison(half);
    fast.r2c(plane.get(), w, h, half.get(), nullptr, nullptr);
    const double r_fast = rel_l2(download<cf>(half.get(), half_want.size()), half_want);
    const gpu::SpectrumSource src = cufft.forward_real(plane.get(), w, h, gpu::CufftMode::R2C, nullptr, nullptr);
    const double r_cufft = rel_l2(download<cf>(src.data, half_want.size()), half_want);
    if (bar) EXPECT_LE(r_fast, 2 * r_cufft) << what << " R2C";
    EXPECT_LT(r_fast, ceiling) << what << " R2C";
    {  // the transposed layout: width/2 + 1 rows of height bins
        const std::vector<cd> t_want = half_spectrum(full, w, h, true);
        poison(half);
        fast.r2c(plane.get(), w, h, half.get(), nullptr, nullptr, true);
        const double t_fast = rel_l2(download<cf>(half.get(), t_want.size()), t_want);
        if (bar) EXPECT_LE(t_fast, 2 * r_cufft) << what << " R2C transposed";
        EXPECT_LT(t_fast, ceiling) << what << " R2C transposed";
    }
    std::printf(
        "[ fast     ] %-10s rel L2 vs FFTW: C2C fast %.3g cuFFT %.3g (%.2fx), R2C fast %.3g cuFFT %.3g (%.2fx)%s\n",
        what.c_str(), e_fast, e_cufft, e_fast / e_cufft, r_fast, r_cufft, r_fast / r_cufft,
        bar ? "" : " (measured, not held to 2x)");
}

// Issue 13's accuracy bar: custom-fast within 2x cuFFT's relative L2 error against FFTW (double), C2C and R2C, at
// powers of two and the users' exact sizes. A Bluestein size (1009 x 1013, primes both) is measured beside them
// and held to 2e-6 only: the bar is the issue's sizes', and how cuFFT treats primes is its own.
TEST_F(FastFft, StaysWithinTwiceCufftsErrorC2cAndR2c) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    gpu::FastFft fast;
    gpu::CufftBackend cufft;
    for (auto [w, h] : {std::pair{256, 256}, std::pair{512, 128}, std::pair{1024, 1024}, std::pair{2048, 2048},
                        std::pair{4096, 4096}, std::pair{64, 8192}, std::pair{2048, 8192}, std::pair{1920, 1080},
                        std::pair{3000, 2000}, std::pair{4032, 3024}, std::pair{4096, 3000}, std::pair{1009, 1013}}) {
        if (small_run() && std::size_t(w) * h > (1u << 20)) continue;
        expect_accuracy_like_cuffts(rng, fast, cufft, w, h, w != 1009, w == 1009 ? 2e-6 : 1e-5);
    }
}

// Each texel's view value's uncertainty in float, in the picture's order (vp.shift as the picture's). A float 2D
// FFT's rounding in bin (ky, kx) is about eps times the norms of what the two passes carried through it: column kx's
// values after the row pass (|F[:, kx]| / sqrt(h), Parseval) and row ky's before the column pass, or the other way
// round (|F[ky, :]| / sqrt(w)). Of a plane with a mean, the line through the DC bin carries values n times the
// input's size, so its bins are undetermined in float to ~1e-2 absolute (1024 x 512 in [0, 1)) where the others
// are ~1e-4: a bin of |F| ~ 0.5 there (-5 dB) has no float-exact dB value, on the GPU or in FFTW float. delta =
// 8 eps (both norms) covers both sides' rounding; the view moves by |dv/d|F|| delta: LogMag delta / (1 + |F|),
// PowerDb 20 / ln 10 |F| delta / (|F|^2 + floor), Phase delta / |F| (at most pi), Real and Imag delta.
std::vector<float> view_uncertainty(const std::vector<float>& plane, int w, int h, const ViewParams& vp) {
    const std::vector<cd> F = dft2d(widen(plane), h, w);
    std::vector<double> col(w, 0.0), row(h, 0.0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double p = std::norm(F[std::size_t(y) * w + x]);
            col[x] += p;
            row[y] += p;
        }
    const double eps = std::numeric_limits<float>::epsilon();
    std::vector<cf> u(F.size());  // the uncertainty in the real part, so that View::Real shifts it as the picture
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = std::size_t(y) * w + x;
            const double delta = 8 * eps * (std::sqrt(col[x] / h) + std::sqrt(row[y] / w)), a = std::abs(F[i]);
            double d = delta;
            switch (vp.view) {
                case View::LogMag:
                    d = delta / (1 + a);
                    break;
                case View::PowerDb:
                    d = 20 / std::log(10.0) * a * delta / (a * a + kPowerFloor);
                    break;
                case View::Phase:
                    d = a > delta ? std::min(delta / a, M_PI) : M_PI;
                    break;
                case View::Real:
                case View::Imag:
                    break;
            }
            u[i] = cf(float(d), 0.0f);
        }
    ViewParams real = vp;
    real.view = View::Real;
    std::vector<float> out;
    compute_view_values(u.data(), w, h, real, out);
    return out;
}

// custom-fast's picture of a random plane (w x h) against the CPU picture from FFTW's spectrum: the range within
// 1e-3 of its span's scale, every texel within one colormap level of the CPU's, plus the levels its value's float
// uncertainty spans (view_uncertainty: a texel whose value float does not fix to a level may differ by those; the
// others, nearly all, by one) (phase: away from the +-pi wrap).
void expect_picture_like_the_cpus(Rng& rng, gpu::FastFft& fast, int w, int h, View v, RangeMode r, bool shift,
                                  std::uint64_t version) {
    const std::size_t n = std::size_t(w) * h;
    Plane p(w, h);
    p.v = rng.real(n);
    ViewParams vp;
    vp.view = v;
    vp.range = r;
    vp.shift = shift;
    vp.colormap = Colormap::Magma;
    vp.fixed_lo = -5;
    vp.fixed_hi = 8;
    vp.top_span = 4;
    // The CPU picture from FFTW's spectrum.
    CpuFft cpu;
    std::vector<cf> F;
    cpu.forward(p, F);
    std::vector<float> values;
    compute_view_values(F.data(), w, h, vp, values);
    float lo, hi;
    compute_range(values, vp, &lo, &hi);
    std::vector<std::uint32_t> want;
    colorize(values, lo, hi, vp.colormap, want);

    gpu::DeviceBuffer<float> plane;
    upload(plane, p.v);
    gpu::DeviceBuffer<std::uint32_t> rgba(n);
    poison(rgba);
    fast.picture(plane.get(), w, h, version, vp, gpu::PictureTarget{rgba.get()}, nullptr, nullptr);
    float glo, ghi;
    fast.range(&glo, &ghi, nullptr);
    const std::string what =
        std::to_string(w) + "x" + std::to_string(h) + " " + name_of(v) + " " + name_of(r) + (shift ? " shifted" : "");
    const float tol = 1e-3f * std::max({1.0f, std::abs(lo), std::abs(hi)});
    EXPECT_NEAR(glo, lo, tol) << what;
    EXPECT_NEAR(ghi, hi, tol) << what;
    const std::vector<std::uint32_t> got = download<std::uint32_t>(rgba.get(), n);
    const std::vector<float> unc = view_uncertainty(p.v, w, h, vp);
    const ColormapLut lut = make_colormap_lut(vp.colormap);
    std::unordered_map<std::uint32_t, int> level;
    for (int i = 255; i >= 0; --i) level[lut.rgba[i]] = i;  // the lowest level of a colour, as level_of_pixel
    std::size_t bad = 0, widened = 0, first_bad = n;
    for (std::size_t i = 0; i < n; ++i) {
        if (got[i] == want[i]) continue;
        const auto g = level.find(got[i]), c = level.find(want[i]);
        if (g == level.end() || c == level.end()) {  // not a colour of the map (e.g. poison left unwritten)
            if (bad++ == 0) first_bad = i;
            continue;
        }
        const int d = std::abs(g->second - c->second);
        if (d <= 1) continue;
        // Phase wraps at +-pi: a bin next to the negative real axis is near +pi on one side and near -pi on the
        // other, both right. (The self-conjugate bins, exactly real, are pi on both: custom-fast zeroes their
        // rounding and a -0 counts as +0.)
        if (v == View::Phase && std::abs(values[i]) >= float(M_PI) - 1e-3f - unc[i]) continue;
        const int spread = level_of(normalize_to_range(values[i] + unc[i], lo, hi)) -
                           level_of(normalize_to_range(values[i] - unc[i], lo, hi));
        if (d <= 1 + spread) {
            ++widened;
            continue;
        }
        if (bad++ == 0) first_bad = i;
    }
    EXPECT_EQ(bad, 0u) << what << ": " << bad << " texels off by more than one level and their float uncertainty; the "
                       << "first at (" << first_bad % w << ", " << first_bad / w << "), value " << values[first_bad % n]
                       << " +- " << unc[first_bad % n] << ", levels "
                       << level_of(normalize_to_range(values[first_bad % n], lo, hi));
    if (widened)
        std::printf(
            "[ fast     ] %s: %zu texel(s) off by more than one level, within their value's float uncertainty\n",
            what.c_str(), widened);
}

TEST_F(FastFft, FusedPictureMatchesTheCpuPicture) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    gpu::FastFft fast;
    std::uint64_t version = 1;
    for (auto [w, h] : {std::pair{64, 32}, std::pair{256, 256}, std::pair{2, 16}, std::pair{1024, 512}})
        for (View v : {View::LogMag, View::PowerDb, View::Phase, View::Real, View::Imag})
            for (RangeMode r : {RangeMode::Auto, RangeMode::Percentile, RangeMode::Fixed, RangeMode::Top})
                for (bool shift : {true, false}) expect_picture_like_the_cpus(rng, fast, w, h, v, r, shift, ++version);
    // The Auto/Top picture goes columns first below rows_first_min_points and rows first (grouped) from there; all
    // three ways at every size here, and the default at the column lengths the kernels have compiled in (512, 4096).
    for (int k = 0; k < 3; ++k) {
        gpu::FastFft::Variant var;
        var.rows_first_min_points = 0;
        if (k == 0) var.rows_first = false;
        if (k == 2) var.grouped = false;
        fast.set_variant(var);
        SCOPED_TRACE(k == 0 ? "columns first" : k == 1 ? "rows first, grouped" : "rows first, ungrouped");
        for (auto [w, h] : {std::pair{64, 32}, std::pair{256, 256}, std::pair{1024, 512}, std::pair{16, 8192}})
            for (View v : {View::LogMag, View::Phase, View::Imag})
                for (RangeMode r : {RangeMode::Auto, RangeMode::Top})
                    for (bool shift : {true, false})
                        expect_picture_like_the_cpus(rng, fast, w, h, v, r, shift, ++version);
    }
    fast.set_variant({});
    for (bool shift : {true, false}) {
        expect_picture_like_the_cpus(rng, fast, 512, 4096, View::LogMag, RangeMode::Auto, shift, ++version);
        expect_picture_like_the_cpus(rng, fast, 1024, 1024, View::PowerDb, RangeMode::Top, shift, ++version);
        if (!small_run())  // 8192-point columns: the split rows first (s4)
            expect_picture_like_the_cpus(rng, fast, 512, 8192, View::Phase, RangeMode::Auto, shift, ++version);
    }
}

// A picture that reuses its first pass (the caller's word: same plane) runs it again where the last picture left
// the other layout in place (rows first for Auto, columns first for a fixed range): the same pictures as fresh runs.
TEST_F(FastFft, FirstPassIsReusedOnlyInTheLayoutItWasLeftIn) {
    Rng rng;
    const int w = 256, h = 128;
    const std::vector<float> x = rng.real(std::size_t(w) * h);
    gpu::DeviceBuffer<float> plane;
    upload(plane, x);
    gpu::FastFft::Variant any_size;  // rows first at this size too
    any_size.rows_first_min_points = 0;
    auto fresh = [&](const ViewParams& vp) {
        gpu::FastFft f;
        f.set_variant(any_size);
        gpu::DeviceBuffer<std::uint32_t> out(x.size());
        f.picture(plane.get(), w, h, 1, vp, gpu::PictureTarget{out.get()}, nullptr, nullptr);
        return download<std::uint32_t>(out.get(), x.size());
    };
    gpu::FastFft fast;
    fast.set_variant(any_size);
    gpu::DeviceBuffer<std::uint32_t> out(x.size());
    auto run = [&](const ViewParams& vp, std::uint64_t version, bool reuse) {
        poison(out);
        fast.picture(plane.get(), w, h, version, vp, gpu::PictureTarget{out.get()}, nullptr, nullptr, reuse);
        return download<std::uint32_t>(out.get(), x.size());
    };
    ViewParams autov, fixedv, dbv;
    fixedv.range = RangeMode::Fixed;
    fixedv.fixed_lo = -2;
    fixedv.fixed_hi = 6;
    dbv.view = View::PowerDb;
    EXPECT_EQ(run(autov, 0, false), fresh(autov));
    EXPECT_EQ(run(fixedv, 0, true), fresh(fixedv)) << "after a rows-first picture, columns first from the start";
    EXPECT_EQ(run(autov, 0, true), fresh(autov)) << "after a columns-first picture, rows first from the start";
    EXPECT_EQ(run(dbv, 0, true), fresh(dbv)) << "rows first again: its first pass reused";
}

// The rows-first colormap is compiled per target (an RGBA8 buffer, a surface such as the viewer's interop texture,
// levels, or both at once: PERF_NOTES.md p7): every kind gives the buffer's texels, at a size whose values are
// grouped by 4 columns (the kernel's constant case) and at one where they are not.
TEST_F(FastFft, RowsFirstPictureIsTheSameInEveryTargetKind) {
    Rng rng;
    for (auto [w, h, any_size] :
         {std::tuple{1024, 1024, false}, std::tuple{64, 32, true}, std::tuple{256, 128, true}}) {
        const std::size_t n = std::size_t(w) * h;
        gpu::DeviceBuffer<float> plane;
        upload(plane, rng.real(n));
        gpu::FastFft fast;
        gpu::FastFft::Variant v;
        if (any_size) v.rows_first_min_points = 0;
        fast.set_variant(v);
        ViewParams vp;
        vp.view = View::Phase;  // the mirrors negated
        gpu::DeviceBuffer<std::uint32_t> buffer(n), both(n);
        poison(buffer);
        poison(both);
        fast.picture(plane.get(), w, h, 0, vp, gpu::PictureTarget{buffer.get()}, nullptr, nullptr);
        const std::vector<std::uint32_t> want = download<std::uint32_t>(buffer.get(), n);

        cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
        cudaArray_t array = nullptr;
        CUDA_CHECK(cudaMallocArray(&array, &desc, w, h, cudaArraySurfaceLoadStore));
        cudaResourceDesc res{};
        res.resType = cudaResourceTypeArray;
        res.res.array.array = array;
        cudaSurfaceObject_t surface = 0;
        CUDA_CHECK(cudaCreateSurfaceObject(&surface, &res));
        std::vector<std::uint32_t> got(n, 0xDEADBEEFu);
        CUDA_CHECK(cudaMemcpy2DToArray(array, 0, 0, got.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
        gpu::PictureTarget on_surface;
        on_surface.surface = surface;
        fast.picture(plane.get(), w, h, 0, vp, on_surface, nullptr, nullptr);
        CUDA_CHECK(cudaMemcpy2DFromArray(got.data(), w * 4, array, 0, 0, w * 4, h, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaDestroySurfaceObject(surface));
        CUDA_CHECK(cudaFreeArray(array));
        const std::string what = std::to_string(w) + "x" + std::to_string(h);
        EXPECT_EQ(got, want) << what << ": the surface";

        gpu::PictureTarget two;  // a buffer and a surface: the general path
        two.rgba = both.get();
        CUDA_CHECK(cudaMallocArray(&array, &desc, w, h, cudaArraySurfaceLoadStore));
        res.res.array.array = array;
        CUDA_CHECK(cudaCreateSurfaceObject(&surface, &res));
        two.surface = surface;
        fast.picture(plane.get(), w, h, 0, vp, two, nullptr, nullptr);
        CUDA_CHECK(cudaMemcpy2DFromArray(got.data(), w * 4, array, 0, 0, w * 4, h, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaDestroySurfaceObject(surface));
        CUDA_CHECK(cudaFreeArray(array));
        EXPECT_EQ(got, want) << what << ": the surface beside a buffer";
        EXPECT_EQ(download<std::uint32_t>(both.get(), n), want) << what << ": the buffer beside a surface";

        gpu::DeviceBuffer<std::uint8_t> levels(n);
        poison(levels);
        gpu::PictureTarget level8;
        level8.levels = levels.get();
        level8.format = PictureFormat::Level8;
        fast.picture(plane.get(), w, h, 0, vp, level8, nullptr, nullptr);
        const std::vector<std::uint8_t> lv = download<std::uint8_t>(levels.get(), n);
        const ColormapLut lut = make_colormap_lut(vp.colormap);
        std::vector<std::uint32_t> gray(n);  // the colour of each level
        for (std::size_t i = 0; i < n; ++i) gray[i] = lut.rgba[lv[i]];
        EXPECT_EQ(gray, want) << what << ": the levels";
    }
}

TEST_F(FastFft, RangeOfAnIdenticalRunIsReusedAndGivesTheSamePicture) {
    Rng rng;
    gpu::FastFft fast;
    const int w = 256, h = 128;
    const std::vector<float> x = rng.real(std::size_t(w) * h);
    gpu::DeviceBuffer<float> plane;
    upload(plane, x);
    gpu::DeviceBuffer<std::uint32_t> a(x.size()), b(x.size());
    ViewParams vp;
    EXPECT_FALSE(fast.picture(plane.get(), w, h, 7, vp, gpu::PictureTarget{a.get()}, nullptr, nullptr).range_reused);
    vp.colormap = Colormap::Viridis;  // the colormap does not change the range
    EXPECT_TRUE(fast.picture(plane.get(), w, h, 7, vp, gpu::PictureTarget{b.get()}, nullptr, nullptr).range_reused);
    vp.colormap = Colormap::Gray;
    EXPECT_TRUE(fast.picture(plane.get(), w, h, 7, vp, gpu::PictureTarget{b.get()}, nullptr, nullptr).range_reused);
    EXPECT_EQ(download<std::uint32_t>(a.get(), x.size()), download<std::uint32_t>(b.get(), x.size()));
    vp.view = View::PowerDb;
    EXPECT_FALSE(fast.picture(plane.get(), w, h, 7, vp, gpu::PictureTarget{b.get()}, nullptr, nullptr).range_reused);
    EXPECT_FALSE(fast.picture(plane.get(), w, h, 8, vp, gpu::PictureTarget{b.get()}, nullptr, nullptr)
                     .range_reused);  // new plane
    EXPECT_FALSE(fast.picture(plane.get(), w, h, 0, vp, gpu::PictureTarget{b.get()}, nullptr, nullptr)
                     .range_reused);  // unknown plane
}

TEST_F(FastFft, RefusesSizesItCannotDo) {
    gpu::FastFft fast;
    gpu::DeviceBuffer<float2> d(1 << 15), s(1 << 15);
    EXPECT_THROW(fast.c2c(d.get(), s.get(), 1 << 15, 1, false, nullptr, nullptr), gpu::ConfigError);
    EXPECT_THROW(fast.c2c(d.get(), s.get(), 0, 4, false, nullptr, nullptr), gpu::ConfigError);
    // A prime over 8192 would need a 32768-point Bluestein line in one block: refused by name.
    try {
        fast.c2c(d.get(), s.get(), 9973, 2, false, nullptr, nullptr);
        ADD_FAILURE() << "9973 x 2 ran";
    } catch (const gpu::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("prime factor 9973"), std::string::npos) << e.what();
    }
}

// ---- Exact sizes (issue 13): the mixed-radix kernels, for sides that are not powers of two ----

// The users' lengths run plans compiled into the kernels (mixed_radix::kFixedLengths, PERF_NOTES.md m9): each as a
// row and as a column, C2C both ways, R2C and the picture, against FFTW and against the run-time plan they replace.
TEST_F(FastFft, CompiledInPlansMatchFftwAndTheRunTimePlans) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    gpu::FastFft compiled, run_time;
    gpu::FastFft::Variant v;
    v.compiled_plans = false;
    run_time.set_variant(v);
    for (int len : mixed_radix::kFixedLengths)
        for (auto [w, h] : {std::pair{len, 6}, std::pair{10, len}}) {
            const std::size_t n = std::size_t(w) * h;
            const std::string what = std::to_string(w) + "x" + std::to_string(h);
            for (bool inverse : {false, true}) {
                const std::vector<cf> x = rng.complex(n);
                const std::vector<cd> want = dft2d(widen(x), h, w, inverse);
                const std::vector<cf> got = run_c2c(compiled, x, w, h, inverse),
                                      got_rt = run_c2c(run_time, x, w, h, inverse);
                EXPECT_LT(rel_l2(got, want), 1e-5) << what << (inverse ? " inverse" : " forward");
                EXPECT_LT(rel_l2(got_rt, want), 1e-5)
                    << what << (inverse ? " inverse" : " forward") << " run-time plan";
                EXPECT_LT(rel_l2(got, widen(got_rt)), 1e-6) << what << " compiled against run-time";
            }
            const std::vector<float> r = rng.real(n);
            gpu::DeviceBuffer<float> plane;
            upload(plane, r);
            const std::vector<cd> want = dft2d(widen(r), h, w);
            const std::vector<cd> half_want = half_spectrum(want, w, h);
            gpu::DeviceBuffer<float2> half(half_want.size());
            poison(half);
            compiled.r2c(plane.get(), w, h, half.get(), nullptr, nullptr);
            EXPECT_LT(rel_l2(download<cf>(half.get(), half_want.size()), half_want), 1e-5) << what << " R2C";
            const std::vector<cd> t_want = half_spectrum(want, w, h, true);
            for (gpu::FastFft* f : {&compiled, &run_time}) {
                poison(half);
                f->r2c(plane.get(), w, h, half.get(), nullptr, nullptr, true);
                EXPECT_LT(rel_l2(download<cf>(half.get(), t_want.size()), t_want), 1e-5)
                    << what << " R2C transposed" << (f == &run_time ? ", run-time plan" : "");
            }
            // The picture (columns first below 2^20 points: pass A on columns, pass B on rows) within one level of
            // the run-time plan's.
            ViewParams vp;
            vp.colormap = Colormap::Magma;
            gpu::DeviceBuffer<std::uint32_t> pa(n), pb(n);
            poison(pa);
            poison(pb);
            compiled.picture(plane.get(), w, h, 0, vp, gpu::PictureTarget{pa.get()}, nullptr, nullptr);
            run_time.picture(plane.get(), w, h, 0, vp, gpu::PictureTarget{pb.get()}, nullptr, nullptr);
            const std::vector<std::uint32_t> a = download<std::uint32_t>(pa.get(), n),
                                             b = download<std::uint32_t>(pb.get(), n);
            EXPECT_LE(max_level_diff(a, b, vp.colormap), 1) << what << " picture";
        }
    // Twelve columns grouped by the row pass, read straight by the first pass (ten above: not grouped, the last block
    // half full, copied into shared memory first: m21); those of more than 256 threads a line (4608, 6000, 6048) go
    // four to a C2C column block in two rounds (m17).
    // With column blocks of at most 512 threads, four lines of more than 128 threads go in rounds, their grouped
    // run copied into shared memory first (m25).
    // With column blocks of up to 1024 threads, four lines of up to 256 threads run at once with their threads
    // interleaved (m27); the same transforms as with each line on consecutive threads, bit for bit.
    gpu::FastFft rounds, wide, wide_plain;
    rounds.set_block_threads(256, 512);
    wide.set_block_threads(256, 1024);
    wide_plain.set_block_threads(256, 1024);
    gpu::FastFft::Variant plain;
    plain.interleaved_columns = false;
    wide_plain.set_variant(plain);
    for (int len : mixed_radix::kFixedLengths)
        for (bool inverse : {false, true}) {
            const int w = 12, h = len;
            const std::string what = "12x" + std::to_string(len) + (inverse ? " inverse" : " forward") + ", grouped";
            const std::vector<cf> x = rng.complex(std::size_t(w) * h);
            const std::vector<cd> want = dft2d(widen(x), h, w, inverse);
            EXPECT_LT(rel_l2(run_c2c(compiled, x, w, h, inverse), want), 1e-5) << what;
            EXPECT_LT(rel_l2(run_c2c(rounds, x, w, h, inverse), want), 1e-5)
                << what << ", columns of at most 512 threads";
            const std::vector<cf> got = run_c2c(wide, x, w, h, inverse),
                                  got_plain = run_c2c(wide_plain, x, w, h, inverse);
            EXPECT_LT(rel_l2(got, want), 1e-5) << what << ", columns of at most 1024 threads";
            ASSERT_EQ(got.size(), got_plain.size());
            EXPECT_EQ(std::memcmp(got.data(), got_plain.data(), got.size() * sizeof(cf)), 0)
                << what << ": interleaved and plain column blocks differ";
        }
}

// The power-of-two column passes' block shapes and orders: the split column pass (8192-point columns as two
// 4096-point halves) with a group's halves in neighbouring blocks (the default) or every group's first half before
// the second (the grid's y); blocks of four 4096-point columns or of two (narrow_column_blocks, each reading half of
// the group the row pass wrote: the transposed R2C). The same work on every column in another order or grouping,
// so the same bytes, on C2C both ways, both R2C layouts and the picture; and the R2C against FFTW.
TEST_F(FastFft, ColumnBlockShapesAndOrdersGiveTheSameBytes) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    gpu::FastFft reference, apart, wide;
    gpu::FastFft::Variant v;
    v.split_halves_adjacent = false;
    apart.set_variant(v);
    v = {};
    v.narrow_column_blocks = false;
    wide.set_variant(v);
    auto same = [](const auto& a, const auto& b) {
        return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
    };
    // 128 x 8192: the picture rows first, split too; from 512 wide, four 4096-point columns a block (narrowed).
    for (auto [w, h] : {std::pair{16, 8192}, std::pair{128, 8192}, std::pair{512, 4096}, std::pair{1024, 8192}}) {
        const std::size_t n = std::size_t(w) * h;
        if (small_run() && n > (1u << 20)) continue;
        const std::vector<cf> x = rng.complex(n);
        const std::vector<float> r = rng.real(n);
        gpu::DeviceBuffer<float> plane;
        upload(plane, r);
        const std::vector<cd> want = dft2d(widen(r), h, w);
        for (bool inverse : {false, true}) {
            const std::vector<cf> c2c = run_c2c(reference, x, w, h, inverse);
            for (gpu::FastFft* f : {&apart, &wide})
                EXPECT_TRUE(same(c2c, run_c2c(*f, x, w, h, inverse)))
                    << w << "x" << h << " C2C" << (inverse ? " inverse" : "")
                    << (f == &apart ? ", halves apart" : ", wide blocks");
        }
        for (bool transposed : {false, true}) {
            const std::size_t bins = std::size_t(w / 2 + 1) * h;
            std::vector<cf> got[3];
            gpu::FastFft* fs[3] = {&reference, &apart, &wide};
            for (int i = 0; i < 3; ++i) {
                gpu::DeviceBuffer<float2> half(bins);
                poison(half);
                fs[i]->r2c(plane.get(), w, h, half.get(), nullptr, nullptr, transposed);
                got[i] = download<cf>(half.get(), bins);
            }
            const std::string what =
                std::to_string(w) + "x" + std::to_string(h) + (transposed ? " R2C transposed" : " R2C");
            EXPECT_TRUE(same(got[0], got[1])) << what << ", halves apart";
            EXPECT_TRUE(same(got[0], got[2])) << what << ", wide blocks";
            EXPECT_LT(rel_l2(got[0], half_spectrum(want, w, h, transposed)), 1e-5) << what;
        }
        gpu::DeviceBuffer<std::uint32_t> pa(n), pb(n);
        poison(pa);
        poison(pb);
        const ViewParams vp;
        reference.picture(plane.get(), w, h, 0, vp, gpu::PictureTarget{pa.get()}, nullptr, nullptr);
        apart.picture(plane.get(), w, h, 0, vp, gpu::PictureTarget{pb.get()}, nullptr, nullptr);
        EXPECT_TRUE(same(download<std::uint32_t>(pa.get(), n), download<std::uint32_t>(pb.get(), n)))
            << w << "x" << h << " picture, halves apart";
    }
}

// The mixed-radix C2C's own block sizes (m25's and m27's sweeps) by column length: rows 128 threads; columns 512
// where a column's line takes at most 128 threads, else 1024; what set_block_threads gives until reset_block_threads.
TEST_F(FastFft, MixedC2cTakesItsOwnBlockSizesUntilSet) {
    gpu::FastFft f;
    EXPECT_EQ(f.mixed_c2c_threads(1080), std::make_pair(128, 512));   // 1080-point columns: 96 threads a line
    EXPECT_EQ(f.mixed_c2c_threads(2000), std::make_pair(128, 544));   // 2000: 128, four interleaved columns on 136
    EXPECT_EQ(f.mixed_c2c_threads(1440), std::make_pair(128, 640));   // 1440: 96, four interleaved columns on 160
    EXPECT_EQ(f.mixed_c2c_threads(3000), std::make_pair(128, 1024));  // 3000: 224
    EXPECT_EQ(f.mixed_c2c_threads(4000), std::make_pair(128, 1024));  // 4000: 256
    EXPECT_EQ(f.mixed_c2c_threads(6000), std::make_pair(128, 1024));  // 6000: 416
    f.set_block_threads(512, 768);
    EXPECT_EQ(f.mixed_c2c_threads(1080), std::make_pair(512, 768));
    f.reset_block_threads();
    EXPECT_EQ(f.mixed_c2c_threads(1080), std::make_pair(128, 512));
}

TEST_F(FastFft, MixedRadixPictureMatchesTheCpuPicture) {
    Rng rng;
    gpu::FastFft fast;
    std::uint64_t version = 1;
    for (auto [w, h] : {std::pair{15, 9}, std::pair{3, 1}, std::pair{1, 5}, std::pair{12, 7}, std::pair{101, 64},
                        std::pair{300, 200}})
        for (View v : {View::LogMag, View::PowerDb, View::Phase, View::Real, View::Imag})
            for (RangeMode r : {RangeMode::Auto, RangeMode::Percentile, RangeMode::Fixed, RangeMode::Top})
                for (bool shift : {true, false}) expect_picture_like_the_cpus(rng, fast, w, h, v, r, shift, ++version);
    for (auto [w, h] : {std::pair{1920, 1080}, std::pair{1009, 1013}})
        expect_picture_like_the_cpus(rng, fast, w, h, View::LogMag, RangeMode::Auto, true, ++version);
}

// m77: a kernel's dynamic shared-memory limit only rises (detail::ensure_dynamic_smem): a smaller request after a
// larger one leaves the larger allowed, and two host threads launching one kernel at two sizes over 48 KiB never see
// a launch refused (set to each launch's own size, the smaller launch's setting could land between the larger's
// setting and its launch).
__global__ void smem_fill_kernel(unsigned int* out, int words) {
    extern __shared__ unsigned int smem_words[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) smem_words[i] = unsigned(i);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = smem_words[words - 1];
}

TEST_F(FastFft, DynamicSharedMemoryLimitOnlyRises) {
    int device = 0, optin = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), cudaSuccess);
    const int big = std::min(optin, 160 * 1024) & ~1023, small = 64 * 1024;
    if (big <= small) GTEST_SKIP() << "this device allows " << optin << " bytes of shared memory a block";
    const void* f = reinterpret_cast<const void*>(smem_fill_kernel);
    gpu::detail::ensure_dynamic_smem(f, big);
    gpu::detail::ensure_dynamic_smem(f, small);
    cudaFuncAttributes fa{};
    ASSERT_EQ(cudaFuncGetAttributes(&fa, f), cudaSuccess);
    EXPECT_GE(fa.maxDynamicSharedSizeBytes, big) << "the smaller request lowered the limit";
    gpu::DeviceBuffer<unsigned int> out(2);
    std::atomic<int> refused{0};
    auto worker = [&](int bytes, int slot) {
        cudaStream_t s = nullptr;
        if (cudaSetDevice(device) != cudaSuccess ||
            cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
            ++refused;
            return;
        }
        for (int i = 0; i < 300; ++i) {
            gpu::detail::ensure_dynamic_smem(f, bytes);
            smem_fill_kernel<<<1, 128, std::size_t(bytes), s>>>(out.get() + slot, bytes / 4);
            if (cudaPeekAtLastError() != cudaSuccess) {
                ++refused;
                (void)cudaGetLastError();
            }
        }
        if (cudaStreamSynchronize(s) != cudaSuccess) ++refused;
        (void)cudaStreamDestroy(s);
    };
    std::thread a(worker, big, 0), b(worker, small + 4096, 1);
    a.join();
    b.join();
    EXPECT_EQ(refused.load(), 0) << "launches refused or failed";
    const std::vector<unsigned int> got = download<unsigned int>(out.get(), 2);
    EXPECT_EQ(got[0], unsigned(big / 4 - 1));
    EXPECT_EQ(got[1], unsigned((small + 4096) / 4 - 1));
}

}  // namespace
}  // namespace specview::test
