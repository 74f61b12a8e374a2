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

// A run's output, back from the device, with the names of the stage marks it left (run_c2c_marked, run_r2c_marked).
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
// The R2C of the real w x h `plane` on the device (cuFFT's layout, or transposed): the half spectrum, written over a
// poisoned buffer, and the timer's marks.
MarkedRun run_r2c_marked(gpu::FastFft& fast, const float* plane, int w, int h, bool transposed = false) {
    const std::size_t m = std::size_t(w / 2 + 1) * h;
    gpu::DeviceBuffer<float2> half(m);
    poison(half);
    gpu::StageTimer timer;
    timer.start(nullptr);
    fast.r2c(plane, w, h, half.get(), nullptr, &timer, transposed);
    MarkedRun r;
    for (const auto& k : timer.collect()) r.marks.push_back(k.name);
    r.out = download<cf>(half.get(), m);
    return r;
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
            const double e = rel_l2(run_c2c(fast, x, w, h, inverse), want);
            EXPECT_LT(e, 1e-5) << w << "x" << h << (inverse ? " inverse" : " forward")
                               << (fast.one_launch_blocks(w, h, inverse) > 0 ? " in one launch" : "")
                               << (fast.c2c_in_place(w, h) ? " in place" : "");
            if (e > worst) {
                worst = e;
                where = std::to_string(w) + "x" + std::to_string(h) + (inverse ? " inverse" : " forward");
            }
        }
    std::printf("[ fast     ] C2C worst relative L2 error vs FFTW (double): %.3g at %s\n", worst, where.c_str());
}

// custom-fast's 3D C2C (three passes: rows along x, each slab's columns along y as a batch, the volume's columns along
// z) against FFTW in double - each slab's 2D DFT, then each line along z's - forward and inverse, at sides from 2 to
// 4096 (one side long, the others short, where the batch and the strides are at their extremes); refused sizes say
// so before any launch.
TEST_F(FastFft, ThreeDimensionalC2cMatchesFftw) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    gpu::FastFft fast;
    const int sizes[][3] = {{2, 2, 2}, {32, 16, 8}, {64, 64, 64}, {256, 128, 16}, {4096, 2, 4},
                            {2, 4096, 8}, {16, 8, 4096}, {512, 4, 2}, {8, 512, 32}};
    for (const auto& sz : sizes)
        for (bool inverse : {false, true}) {
            const int w = sz[0], h = sz[1], d = sz[2];
            const std::size_t plane = std::size_t(w) * h, n = plane * d;
            const std::vector<cf> x = rng.complex(n);
            const std::vector<cd> wx = widen(x);
            std::vector<cd> want(n);
            for (int z = 0; z < d; ++z) {  // each slab's 2D DFT ...
                const std::vector<cd> slab(wx.begin() + long(z * plane), wx.begin() + long((z + 1) * plane));
                const std::vector<cd> f = dft2d(slab, h, w, inverse);
                std::copy(f.begin(), f.end(), want.begin() + long(z * plane));
            }
            for (std::size_t i = 0; i < plane; ++i) {  // ... then each line along z's
                std::vector<cd> line(static_cast<std::size_t>(d));
                for (int z = 0; z < d; ++z) line[std::size_t(z)] = want[std::size_t(z) * plane + i];
                const std::vector<cd> f = dft2d(line, d, 1, inverse);
                for (int z = 0; z < d; ++z) want[std::size_t(z) * plane + i] = f[std::size_t(z)];
            }
            gpu::DeviceBuffer<float2> buf;
            upload(buf, x);
            fast.c2c_3d(buf.get(), w, h, d, inverse, nullptr, nullptr);
            CUDA_CHECK(cudaDeviceSynchronize());
            EXPECT_LT(rel_l2(download<cf>(buf.get(), n), want), 1e-5)
                << w << "x" << h << "x" << d << (inverse ? " inverse" : " forward");
        }
    for (const auto& bad : {std::array<int, 3>{3, 4, 4}, {8192, 2, 2}, {4, 4, 1}, {4096, 4096, 256}}) {
        EXPECT_FALSE(gpu::FastFft::c2c_3d_supported(bad[0], bad[1], bad[2]));
        EXPECT_THROW(fast.c2c_3d(nullptr, bad[0], bad[1], bad[2], false, nullptr, nullptr), gpu::ConfigError);
    }
}

// Every block size the benchmark sweeps gives the same transform (C2C, real_spectrum) and the same picture as
// FastFft's own: at shapes with one column a block and many, with 2 to 8 row lines of whole warps a block (m72: each
// line's exchanges on a named barrier of its own) and where those do not apply, in one launch and two, in place and
// through the scratch, and split (8192-point columns).
TEST_F(FastFft, EveryBlockSizeMatchesFftw) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const int sizes[][2] = {{1, 1},     {2, 8},       {8, 512},     {64, 32},    {1024, 512}, {4096, 64},
                            {16, 8192}, {512, 2048},  {256, 8192},  {512, 256},  {2048, 32},  {4096, 16},
                            {1024, 64}, {1024, 1024}, {2048, 2048}, {8192, 1024}};
    bool first = true;
    for (auto [rt, ct] : {std::pair{256, 1024}, std::pair{256, 256}, std::pair{512, 512}, std::pair{1024, 1024},
                          std::pair{512, 256}, std::pair{1024, 512}}) {
        gpu::FastFft fast;
        fast.set_block_threads(rt, ct);
        for (const auto& sz : sizes)
            for (bool inverse : {false, true}) {
                const int w = sz[0], h = sz[1];
                const std::size_t n = std::size_t(w) * h;
                if (small_run() && n > (1u << 20)) continue;
                if (!first && n > (1u << 20)) continue;  // the big ones at the first block sizes
                const std::vector<cf> x = rng.complex(n);
                const std::string what = std::to_string(w) + "x" + std::to_string(h) +
                                         (inverse ? " inverse" : " forward") + " R" + std::to_string(rt) + "/C" +
                                         std::to_string(ct) +
                                         (fast.one_launch_blocks(w, h, inverse) > 0 ? ", one launch"
                                          : fast.c2c_in_place(w, h)                 ? ", in place"
                                                                                    : ", through the scratch");
                EXPECT_LT(rel_l2(run_c2c(fast, x, w, h, inverse), dft2d(widen(x), h, w, inverse)), 1e-5) << what;
                if (inverse || n > (small_run() ? 4096u : (1u << 19))) continue;
                const std::vector<float> r = rng.real(n);  // the real paths too
                gpu::DeviceBuffer<float> plane;
                upload(plane, r);
                gpu::DeviceBuffer<float2> full(n);
                poison(full);
                fast.real_spectrum(plane.get(), w, h, full.get(), nullptr, nullptr);
                EXPECT_LT(rel_l2(download<cf>(full.get(), n), dft2d(widen(r), h, w)), 1e-5) << what << ", real";
                // The picture does the same arithmetic at every block size: the same bytes as at FastFft's own.
                gpu::FastFft reference;
                gpu::DeviceBuffer<std::uint32_t> pa(n), pb(n);
                const ViewParams vp;
                reference.picture(plane.get(), w, h, 0, vp, gpu::PictureTarget{pa.get()}, nullptr, nullptr);
                fast.picture(plane.get(), w, h, 0, vp, gpu::PictureTarget{pb.get()}, nullptr, nullptr);
                EXPECT_EQ(download<std::uint32_t>(pa.get(), n), download<std::uint32_t>(pb.get(), n))
                    << what << ", picture";
            }
        first = false;
    }
}

// Where a path must run (Want::Always), must run on a device with the tensor memory accelerator (Want::Tma: sm_90 and
// up; elsewhere it must not), or must never run (Want::Never), by a pass's timer mark.
enum class Want { Always, Tma, Never };
struct PathCase {
    int w, h;
    const char* pass;  // the mark's prefix ("": any pass)
    const char* mark;  // what it contains ("": nothing asserted, FFTW's transform only)
    Want want;
};
void expect_path(const MarkedRun& run, const PathCase& c, bool tma, const std::string& what) {
    if (!*c.mark) return;
    const bool want = c.want == Want::Always || (c.want == Want::Tma && tma);
    EXPECT_EQ(run.marked(c.pass, c.mark), want)
        << what << ": " << c.pass << " \"" << c.mark << "\"" << (want ? " should run" : " should not run");
}

// Which path each C2C shape takes (FastFft's dispatch rules, by the passes' marks) and that it gives FFTW's transform,
// both directions (the largest forward only): at 8192^2 the split's rows a line a block (m83) with row y through bulk
// copies (m89), and the grouped 4096-point halves through bulk copies (m86); the grouped 4096- and 2048-point columns
// through bulk copies (m86, m97); the in-place 2048-point columns through the TMA (m95; 1024-point ones not); the
// mixed-radix rows of a compiled-in length through bulk copies (m93), never Bluestein's; and, FFTW's transform only,
// shapes whose column blocks take m102's first-pass order (512^2, 1024^2, 4096 x 512, 1024 x 2048, 512 x 8192; 8192 x
// 1024 through the grouped scratch keeps the strided one) or eight 2048-point columns (m75: 2048^2 in place; 512 x 2048
// one launch, 64 x 2048 keep four). 3000 x 16 and 256 x 1024 are in a small run, for memcheck.
TEST_F(FastFft, C2cPathsRunWhereTheirRulesSayAndMatchFftw) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const bool tma = device_major() >= 9;
    const PathCase cases[] = {
        {8192, 8192, "fast pass 1", "a line a block", Want::Always},
        {8192, 8192, "fast pass 1", "a line a block, bulk-copied loads", Want::Tma},
        {8192, 8192, "fast pass 2", "two halves, bulk-copied loads", Want::Tma},
        {1024, 8192, "fast pass 2", "two halves, bulk-copied loads", Want::Tma},
        {1024, 8192, "fast pass 1", "a line a block", Want::Never},
        {4096, 4096, "fast pass 2", "bulk-copied loads", Want::Tma},
        {4096, 2048, "fast pass 2", "bulk-copied loads", Want::Tma},
        {2048, 2048, "fast pass 2", "in place, TMA loads", Want::Tma},
        {1024, 2048, "fast pass 2", "in place, TMA loads", Want::Tma},
        {4096, 1024, "fast pass 2", "TMA loads", Want::Never},
        {256, 4096, "fast pass 2", "bulk-copied loads", Want::Never},
        {3000, 2000, "fast pass 1", "bulk-copied loads", Want::Tma},
        {3000, 16, "fast pass 1", "bulk-copied loads", Want::Tma},
        {1009, 4, "fast pass 1", "bulk-copied loads", Want::Never},
        {1920, 1080, "", "", Want::Always},
        {1080, 1920, "", "", Want::Always},
        {4032, 3024, "", "", Want::Always},
        {720, 720, "", "", Want::Always},
        {256, 1024, "", "", Want::Always},
        {512, 512, "", "", Want::Always},
        {1024, 1024, "", "", Want::Always},
        {4096, 512, "", "", Want::Always},
        {512, 8192, "", "", Want::Always},
        {8192, 1024, "", "", Want::Always},
        {512, 2048, "", "", Want::Always},
        {64, 2048, "", "", Want::Always},
    };
    for (const PathCase& c : cases)
        for (bool inverse : {false, true}) {
            const std::size_t n = std::size_t(c.w) * c.h;
            if (small_run() && n > (1u << 20)) continue;
            if (inverse && n > (1u << 23)) continue;  // the largest: forward only (FFTW in double takes a while)
            const std::string what =
                std::to_string(c.w) + "x" + std::to_string(c.h) + (inverse ? " inverse" : " forward");
            const std::vector<cf> x = rng.complex(n);
            gpu::FastFft fast;
            const MarkedRun run = run_c2c_marked(fast, x, c.w, c.h, inverse);
            expect_path(run, c, tma, what);
            EXPECT_LT(rel_l2(run.out, dft2d(widen(x), c.h, c.w, inverse)), 1e-5) << what << " vs FFTW";
        }
}

// The same for the R2C, both layouts: cuFFT's columns first from 1M points (m78; below, rows first), the plane's
// 4096-point columns through the TMA where a block takes two or more (m85; 8192-point columns as even and odd rows,
// m82), the split's rows of 2048 and 4096 points in mirror pairs (m84) and shorter ones in groups of four (m82); the
// transposed layout's real rows through bulk copies at rows of 4096 points or more (m92). Each against FFTW's half
// spectrum up to 2^25 points (FFTW in double takes a while beyond).
TEST_F(FastFft, R2cPathsRunWhereTheirRulesSayAndMatchFftw) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    const bool tma = device_major() >= 9;
    const char* kPairs = "the real plane as complex pairs";
    const struct {
        PathCase c;
        bool transposed;
    } cases[] = {
        {{512, 512, "fast pass 1", kPairs, Want::Never}, false},
        {{1024, 1024, "fast pass 1", kPairs, Want::Always}, false},
        {{16384, 64, "fast pass 1", kPairs, Want::Always}, false},
        {{2048, 2048, "fast pass 1", "TMA loads", Want::Never}, false},
        {{512, 4096, "fast pass 1", "TMA loads", Want::Tma}, false},
        {{2048, 4096, "fast pass 1", "TMA loads", Want::Tma}, false},
        {{4096, 4096, "fast pass 1", "TMA loads", Want::Tma}, false},
        {{2048, 8192, "fast pass 1", "even and odd rows, TMA loads", Want::Tma}, false},
        {{2048, 8192, "fast pass 2", "+ last column stage", Want::Always}, false},
        {{4096, 8192, "fast pass 2", "mirror pairs", Want::Always}, false},
        {{8192, 8192, "fast pass 2", "mirror pairs", Want::Always}, false},
        {{16384, 8192, "fast pass 1", kPairs, Want::Never}, false},
        {{256, 64, "fast pass 1: real rows", "bulk-copied loads", Want::Never}, true},
        {{2048, 1024, "fast pass 1: real rows", "bulk-copied loads", Want::Never}, true},
        {{4096, 64, "fast pass 1: real rows", "bulk-copied loads", Want::Tma}, true},
        {{4096, 4096, "fast pass 1: real rows", "bulk-copied loads", Want::Tma}, true},
        {{1024, 8192, "fast pass 1: real rows", "bulk-copied loads", Want::Never}, true},
        {{8192, 8192, "fast pass 1: real rows", "bulk-copied loads", Want::Tma}, true},
    };
    for (const auto& [c, transposed] : cases) {
        const std::size_t n = std::size_t(c.w) * c.h;
        if (small_run() && n > (1u << 20)) continue;
        const std::string what =
            std::to_string(c.w) + "x" + std::to_string(c.h) + (transposed ? " R2C transposed" : " R2C");
        const std::vector<float> x = rng.real(n);
        gpu::DeviceBuffer<float> plane;
        upload(plane, x);
        gpu::FastFft fast;
        const MarkedRun run = run_r2c_marked(fast, plane.get(), c.w, c.h, transposed);
        expect_path(run, c, tma, what);
        if (n <= (1u << 25))
            EXPECT_LT(rel_l2(run.out, half_spectrum(dft2d(widen(x), c.h, c.w), c.w, c.h, transposed)), 1e-5)
                << what << " vs FFTW";
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
    {  // (one launch at the squares, columns first elsewhere)
        gpu::FastFft fast;
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
    }
    std::printf("[ fast     ] real-input worst relative L2 error vs FFTW (double): %.3g\n", worst);
}

// m78: the power-of-two R2C in cuFFT's layout columns first (the plane's columns as complex pairs, then the rows in
// pairs (ky, H - ky) unpacked into whole output rows) against FFTW at the edges of its rule (1M points, square, wide,
// tall, 8192-point columns split, m82) and at the block sizes the benchmark sweeps; through the caller's buffer and
// through real_spectrum (whose own half_ buffer makes r2c take the other scratch). 8192-point columns at widths over
// 8192, a transposed output, a plane that cannot be read as float2 and fewer than 1M points go rows first.
TEST_F(FastFft, R2cColumnsFirstMatchesFftwAtTheEdgesOfItsRule) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    for (auto [w, h] : {std::pair{1024, 1024}, std::pair{16384, 64}, std::pair{256, 4096}, std::pair{2048, 2048},
                        std::pair{128, 8192}, std::pair{1024, 8192}}) {
        const std::size_t n = std::size_t(w) * h;
        if (small_run() && n > (1u << 20)) continue;
        const std::string what = std::to_string(w) + "x" + std::to_string(h);
        const std::vector<float> x = rng.real(n);
        const std::vector<cd> full = dft2d(widen(x), h, w);
        const std::vector<cd> want = half_spectrum(full, w, h);
        gpu::DeviceBuffer<float> plane;
        upload(plane, x);
        for (auto [rows, cols] : {std::pair{0, 0}, std::pair{1024, 1024}, std::pair{512, 256}}) {
            gpu::FastFft fast;
            if (rows) fast.set_block_threads(rows, cols);
            EXPECT_TRUE(fast.r2c_columns_first(plane.get(), w, h, false)) << what;
            gpu::DeviceBuffer<float2> half(want.size());
            poison(half);
            fast.r2c(plane.get(), w, h, half.get(), nullptr, nullptr);
            const std::string how = what + ", block threads " + std::to_string(rows) + "/" + std::to_string(cols);
            EXPECT_LT(rel_l2(download<cf>(half.get(), want.size()), want), 1e-5) << how;
            if (rows == 0) {  // twice more: the scratch it made is reused; real_spectrum's own buffer
                poison(half);
                fast.r2c(plane.get(), w, h, half.get(), nullptr, nullptr);
                EXPECT_LT(rel_l2(download<cf>(half.get(), want.size()), want), 1e-5) << how << ", again";
                gpu::DeviceBuffer<float2> whole(n);
                poison(whole);
                fast.real_spectrum(plane.get(), w, h, whole.get(), nullptr, nullptr);
                EXPECT_LT(rel_l2(download<cf>(whole.get(), n), full), 1e-5) << how << ", real_spectrum";
            }
        }
    }
    gpu::FastFft fast;
    gpu::DeviceBuffer<float> plane(2 * 64 + 1);
    EXPECT_FALSE(fast.r2c_columns_first(plane.get(), 512, 512, false)) << "fewer than 1M points";
    EXPECT_FALSE(fast.r2c_columns_first(plane.get(), 2048, 256, false)) << "fewer than 1M points, wide";
    EXPECT_TRUE(fast.r2c_columns_first(plane.get(), 1024, 1024, false)) << "1M points";
    EXPECT_TRUE(fast.r2c_columns_first(plane.get(), 16384, 64, false)) << "1M points, wide";
    EXPECT_TRUE(fast.r2c_columns_first(plane.get(), 128, 8192, false)) << "8192-point columns, split (m82)";
    EXPECT_FALSE(fast.r2c_columns_first(plane.get(), 16384, 8192, false)) << "8192-point columns, rows over 4096 pairs";
    EXPECT_FALSE(fast.r2c_columns_first(plane.get(), 1024, 1024, true)) << "transposed";
    EXPECT_FALSE(fast.r2c_columns_first(plane.get(), 1920, 1080, false)) << "not a power of two";
    EXPECT_FALSE(fast.r2c_columns_first(plane.get() + 1, 1024, 1024, false)) << "a plane not aligned for float2";
    {  // ... which still gives the transform, rows first
        Rng r2;
        const int w = 1024, h = 1024;
        const std::vector<float> x = r2.real(std::size_t(w) * h);
        gpu::DeviceBuffer<float> big;
        std::vector<float> padded(1 + x.size());
        std::copy(x.begin(), x.end(), padded.begin() + 1);
        upload(big, padded);
        const std::vector<cd> want = half_spectrum(dft2d(widen(x), h, w), w, h);
        gpu::DeviceBuffer<float2> half(want.size());
        poison(half);
        fast.r2c(big.get() + 1, w, h, half.get(), nullptr, nullptr);
        EXPECT_LT(rel_l2(download<cf>(half.get(), want.size()), want), 1e-5) << "unaligned plane";
    }
}

// m80: the small power-of-two C2C in place, not square, columns first in two launches (cuFFT's order and shapes)
// against FFTW, both directions, with its scratch (poisoned) left alone; at the block sizes the benchmark sweeps too;
// and the rule's edges.
TEST_F(FastFft, ColumnsFirstShapesMatchFftw) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    for (auto [w, h] : {std::pair{1024, 512}, std::pair{512, 1024}, std::pair{256, 512}, std::pair{64, 1024},
                        std::pair{1024, 64}, std::pair{2, 4}, std::pair{4, 2}, std::pair{16, 4}, std::pair{2048, 512}})
        for (bool inverse : {false, true})
            for (auto [rows, cols] : {std::pair{0, 0}, std::pair{256, 256}, std::pair{1024, 1024}}) {
                const std::size_t n = std::size_t(w) * h;
                const std::vector<cf> x = rng.complex(n);
                const std::vector<cd> want = dft2d(widen(x), h, w, inverse);
                const std::string what = std::to_string(w) + "x" + std::to_string(h) +
                                         (inverse ? " inverse" : " forward") + ", block threads " +
                                         std::to_string(rows) + "/" + std::to_string(cols);
                gpu::FastFft fast;
                if (rows) fast.set_block_threads(rows, cols);
                EXPECT_TRUE(fast.c2c_columns_first(w, h)) << what;
                gpu::DeviceBuffer<float2> d, scratch(n);
                upload(d, x);
                poison(scratch);
                const std::vector<float2> before = download<float2>(scratch.get(), n);
                fast.c2c(d.get(), scratch.get(), w, h, inverse, nullptr, nullptr);
                EXPECT_LT(rel_l2(download<cf>(d.get(), n), want), 1e-5) << what;
                const std::vector<float2> after = download<float2>(scratch.get(), n);
                EXPECT_EQ(0, std::memcmp(before.data(), after.data(), n * sizeof(float2)))
                    << what << ": scratch touched";
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
    // The Auto/Top picture goes columns first below kRowsFirstMinPoints (above) and rows first, grouped, from there:
    // square, wide (many columns a block) and tall, and at the column lengths the kernels have compiled in (512, 4096).
    for (auto [w, h] : {std::pair{1024, 1024}, std::pair{8192, 128}, std::pair{256, 4096}})
        for (View v : {View::LogMag, View::Phase, View::Imag})
            for (RangeMode r : {RangeMode::Auto, RangeMode::Top})
                for (bool shift : {true, false}) {
                    if (small_run() && (w != 1024 || v != View::LogMag)) continue;
                    expect_picture_like_the_cpus(rng, fast, w, h, v, r, shift, ++version);
                }
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
    const int w = 1024, h = 1024;  // (kRowsFirstMinPoints: rows first for Auto)
    const std::vector<float> x = rng.real(std::size_t(w) * h);
    gpu::DeviceBuffer<float> plane;
    upload(plane, x);
    auto fresh = [&](const ViewParams& vp) {
        gpu::FastFft f;
        gpu::DeviceBuffer<std::uint32_t> out(x.size());
        f.picture(plane.get(), w, h, 1, vp, gpu::PictureTarget{out.get()}, nullptr, nullptr);
        return download<std::uint32_t>(out.get(), x.size());
    };
    gpu::FastFft fast;
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
    for (auto [w, h] : {std::pair{1024, 1024}, std::pair{8192, 128}}) {  // grouped by 4, and not
        const std::size_t n = std::size_t(w) * h;
        gpu::DeviceBuffer<float> plane;
        upload(plane, rng.real(n));
        gpu::FastFft fast;
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
// row and as a column, C2C both ways, R2C (both layouts) against FFTW, and the picture against the CPU's.
TEST_F(FastFft, CompiledInPlansMatchFftw) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    gpu::FastFft compiled;
    std::uint64_t version = 1;
    for (int len : mixed_radix::kFixedLengths)
        for (auto [w, h] : {std::pair{len, 6}, std::pair{10, len}}) {
            const std::size_t n = std::size_t(w) * h;
            const std::string what = std::to_string(w) + "x" + std::to_string(h);
            for (bool inverse : {false, true}) {
                const std::vector<cf> x = rng.complex(n);
                const std::vector<cd> want = dft2d(widen(x), h, w, inverse);
                EXPECT_LT(rel_l2(run_c2c(compiled, x, w, h, inverse), want), 1e-5)
                    << what << (inverse ? " inverse" : " forward");
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
            poison(half);
            compiled.r2c(plane.get(), w, h, half.get(), nullptr, nullptr, true);
            EXPECT_LT(rel_l2(download<cf>(half.get(), t_want.size()), t_want), 1e-5) << what << " R2C transposed";
            // The picture (columns first below 2^20 points: pass A on columns, pass B on rows) as the CPU's.
            expect_picture_like_the_cpus(rng, compiled, w, h, View::LogMag, RangeMode::Auto, true, ++version);
        }
    // Twelve columns grouped by the row pass, read straight by the first pass (ten above: not grouped, the last block
    // half full, copied into shared memory first: m21); those of more than 256 threads a line (4608, 6000, 6048) go
    // four to a C2C column block in two rounds (m17).
    // With column blocks of at most 512 threads, four lines of more than 128 threads go in rounds, their grouped
    // run copied into shared memory first (m25).
    // With column blocks of up to 1024 threads, four lines of up to 256 threads run at once with their threads
    // interleaved (m27).
    gpu::FastFft rounds, wide;
    rounds.set_block_threads(256, 512);
    wide.set_block_threads(256, 1024);
    for (int len : mixed_radix::kFixedLengths)
        for (bool inverse : {false, true}) {
            const int w = 12, h = len;
            const std::string what = "12x" + std::to_string(len) + (inverse ? " inverse" : " forward") + ", grouped";
            const std::vector<cf> x = rng.complex(std::size_t(w) * h);
            const std::vector<cd> want = dft2d(widen(x), h, w, inverse);
            EXPECT_LT(rel_l2(run_c2c(compiled, x, w, h, inverse), want), 1e-5) << what;
            EXPECT_LT(rel_l2(run_c2c(rounds, x, w, h, inverse), want), 1e-5)
                << what << ", columns of at most 512 threads";
            EXPECT_LT(rel_l2(run_c2c(wide, x, w, h, inverse), want), 1e-5)
                << what << ", columns of at most 1024 threads";
        }
}

// The power-of-two column passes' block shapes: the split column pass (8192-point columns as two 4096-point halves,
// a group's halves in neighbouring blocks, m29) and the transposed R2C's blocks of two 4096-point columns of the four
// the row pass grouped (m30): C2C both ways and both R2C layouts against FFTW, narrow and wide planes.
TEST_F(FastFft, SplitAndNarrowColumnBlocksMatchFftw) {
    Rng rng;
    SCOPED_TRACE("random seed " + std::to_string(rng.seed()));
    gpu::FastFft fast;
    for (auto [w, h] : {std::pair{16, 8192}, std::pair{128, 8192}, std::pair{512, 4096}, std::pair{1024, 8192}}) {
        const std::size_t n = std::size_t(w) * h;
        if (small_run() && n > (1u << 20)) continue;
        const std::vector<cf> x = rng.complex(n);
        for (bool inverse : {false, true})
            EXPECT_LT(rel_l2(run_c2c(fast, x, w, h, inverse), dft2d(widen(x), h, w, inverse)), 1e-5)
                << w << "x" << h << " C2C" << (inverse ? " inverse" : "");
        const std::vector<float> r = rng.real(n);
        gpu::DeviceBuffer<float> plane;
        upload(plane, r);
        const std::vector<cd> want = dft2d(widen(r), h, w);
        for (bool transposed : {false, true})
            EXPECT_LT(
                rel_l2(run_r2c_marked(fast, plane.get(), w, h, transposed).out, half_spectrum(want, w, h, transposed)),
                1e-5)
                << w << "x" << h << (transposed ? " R2C transposed" : " R2C");
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
