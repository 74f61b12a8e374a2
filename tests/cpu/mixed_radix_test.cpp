// The mixed-radix plan and host reference for custom-fast's exact sizes (gpu/common/mixed_radix.h): every length's
// passes multiply to it (or it goes to Bluestein over a power of two >= 2n - 1), each small DFT is the DFT, and
// whole lines in float, forward and inverse, match FFTW in double on fresh random inputs at the sizes users'
// images have (1920, 1080, 3000, 2000, 4032, 3024), powers of two, and lengths with a large prime factor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "gpu/common/mixed_radix.h"
#include "tests/support/oracle.h"

namespace specview::test {
namespace {

namespace mr = specview::mixed_radix;

std::vector<float2> to_float2(const std::vector<cf>& v) {
    std::vector<float2> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = mr::c_make(v[i].real(), v[i].imag());
    return out;
}

double rel_l2_f2(const std::vector<float2>& got, const std::vector<cd>& ref) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const cd g(got[i].x, got[i].y);
        num += std::norm(g - ref[i]);
        den += std::norm(ref[i]);
    }
    return std::sqrt(num / (den > 0 ? den : 1));
}

TEST(MixedRadix, EveryLengthFactorsIntoItsPassesOrGoesToBluestein) {
    int smooth = 0, bluestein = 0;
    for (int n = 1; n <= 16384; ++n) {
        const mr::LinePlan p = mr::plan_line(n);
        ASSERT_EQ(p.n, n);
        if (p.bluestein) {
            ++bluestein;
            EXPECT_GE(p.m, 2 * n - 1) << n;
            EXPECT_LT(p.m, 4 * n) << n;
            EXPECT_EQ(p.m & (p.m - 1), 0) << n;
            int rest = n;
            for (int r : {2, 3, 5, 7})
                while (rest % r == 0) rest /= r;
            EXPECT_GT(rest, 1) << n << " is 7-smooth: no Bluestein";
        } else {
            ++smooth;
            long long prod = 1;
            ASSERT_LE(p.passes, mr::kMaxPasses);
            for (int i = 0; i < p.passes; ++i) {
                EXPECT_TRUE(p.radix[i] == 2 || p.radix[i] == 3 || p.radix[i] == 4 || p.radix[i] == 5 ||
                            p.radix[i] == 7 || p.radix[i] == 8 || p.radix[i] == 9 || p.radix[i] == 16)
                    << n;
                prod *= p.radix[i];
            }
            EXPECT_EQ(prod, n);
        }
    }
    // The users' sizes are 7-smooth.
    for (int n : {1920, 1080, 3000, 2000, 4032, 3024}) EXPECT_FALSE(mr::plan_line(n).bluestein) << n;
    std::cout << "[ mixed    ] lengths 1..16384: " << smooth << " by passes, " << bluestein << " by Bluestein\n";
}

TEST(MixedRadix, EachSmallDftIsTheDft) {
    Rng rng;
    for (int R : {2, 3, 4, 5, 7, 8, 9, 10, 15, 16})
        for (bool inverse : {false, true}) {
            const std::vector<cf> x = rng.complex(std::size_t(R));
            std::vector<float2> v = to_float2(x);
            mr::dft_small(v.data(), R, inverse);
            const std::vector<cd> ref = dft_rows(widen(x), R, 1, inverse);
            EXPECT_LT(rel_l2_f2(v, ref), 4e-7)
                << "radix " << R << (inverse ? " inverse" : "") << " (seed " << rng.seed() << ")";
        }
}

// The compiled-in lengths' plans (fixed_plan: a 5 and a 3 merged into a pass of 15, a 2 and a 5 into 10, where a
// line's threads hold the points) through the host's Stockham passes, against FFTW; and no thread holds more
// butterflies than the run-time plan's kernels allow for, nor more than 20 points in a merged pass.
TEST(MixedRadix, CompiledInPlansMatchFftw) {
    Rng rng;
    int merged = 0;
    for (int n : mr::kFixedLengths) {
        const mr::LinePlan p = mr::fixed_plan(n), q = mr::plan_line(n);
        ASSERT_FALSE(p.bluestein) << n;
        int product = 1;
        for (int i = 0; i < p.passes; ++i) {
            product *= p.radix[i];
            // the butterflies a thread holds: never more than the run-time plan's bound, ceil(16 / R) (one of 15)
            const int tpc = mr::fixed_threads(n), R = p.radix[i], b = (n / R + tpc - 1) / tpc;
            EXPECT_LE(b, (16 + R - 1) / R) << n << " pass " << i;
            if (R == 10 || R == 15) {
                EXPECT_LE(b * R, 20) << n << " pass " << i;
            }
        }
        EXPECT_EQ(product, n);
        if (p.passes < q.passes) ++merged;
        EXPECT_EQ(mr::same_passes(p, q), p.passes == q.passes) << n;  // merging is all fixed_plan changes
        EXPECT_TRUE(mr::is_fixed_length(n));
        for (bool inverse : {false, true}) {
            const std::vector<cf> x = rng.complex(std::size_t(n));
            std::vector<float2> v = to_float2(x);
            mr::detail::run_passes(v, p, inverse);
            EXPECT_LT(rel_l2_f2(v, dft_rows(widen(x), n, 1, inverse)), 1e-6) << n << (inverse ? " inverse" : "");
        }
    }
    EXPECT_FALSE(mr::is_fixed_length(1009));
    EXPECT_GE(merged, 9) << "1080, 1920, 2160, 3840, 3000 and 6000 take a pass of 15; 1440, 2560 and 4000 one of 10";
}

TEST(MixedRadix, LinesMatchFftwAtUsersSizesPowersOfTwoAndPrimes) {
    Rng rng;
    double worst = 0;
    int worst_n = 0;
    for (int n : {1,    2,    3,    5,    6,    7,    12,   15, 21, 35, 60,  105,  120,  256, 1080,
                  1920, 2000, 3000, 3024, 4032, 4096, 8192, 11, 13, 97, 221, 1009, 2003, 4099}) {
        for (bool inverse : {false, true}) {
            const std::vector<cf> x = rng.complex(std::size_t(n));
            std::vector<float2> v = to_float2(x);
            mr::reference_line(v, inverse);
            const std::vector<cd> ref = dft_rows(widen(x), n, 1, inverse);
            const double e = rel_l2_f2(v, ref);
            // float arithmetic: a few ulps times the passes (Bluestein: three transforms of 2n or more points).
            EXPECT_LT(e, 1.5e-6) << n << (inverse ? " inverse" : "") << " (seed " << rng.seed() << ")";
            if (e > worst) worst = e, worst_n = n;
        }
    }
    std::cout << "[ mixed    ] worst relative L2 error vs FFTW (double): " << worst << " at n = " << worst_n << "\n";
}

// ---- The kernels' line engine (gpu/fast/fft_mixed.cu), run on the host: the block's threads one after another
// between its barriers, on a padded shared-memory line poisoned with NaN. What the device adds to this is the
// launch, its shared memory and the barriers themselves. ----

template <int R, bool kInv>
void emulate_pass(std::vector<float2>& sm, const std::vector<float2>& table, int n, int ns, int tpc) {
    std::vector<mr::PassRegs<R>> regs(static_cast<std::size_t>(tpc));
    for (int t = 0; t < tpc; ++t)
        mr::pass_gather<R, kInv>(sm.data(), regs[std::size_t(t)], table.data(), n, ns, t, tpc);
    // barrier
    for (int t = 0; t < tpc; ++t) mr::pass_scatter<R>(sm.data(), regs[std::size_t(t)], n, ns, t, tpc);
}

// The kernels' first pass (fft_mixed.cu, first_pass): gathered from the line where it lies, each thread's
// butterflies scattered into shared memory right after, no barrier between.
template <int R, bool kInv>
void emulate_first_pass(const std::vector<float2>& x, std::vector<float2>& sm, const std::vector<float2>& table,
                        int tpc) {
    const int n = int(x.size());
    for (int t = 0; t < tpc; ++t) {
        mr::PassRegs<R> g = {};
        mr::pass_gather_from<R, kInv>([&x](int i) { return x.at(std::size_t(i)); }, g, table.data(), n, 1, t, tpc);
        mr::pass_scatter<R>(sm.data(), g, n, 1, t, tpc);
    }
}

// The row kernels' last pass (fft_mixed.cu, last_pass): gathered from shared memory (or, as the only pass, from
// the line itself), a barrier, scattered straight to where the line goes (`out`).
template <int R, bool kInv>
void emulate_last_pass(const std::vector<float2>& x, const std::vector<float2>& sm, std::vector<float2>& out,
                       const std::vector<float2>& table, int tpc, bool only) {
    const int n = int(x.size());
    std::vector<mr::PassRegs<R>> regs(static_cast<std::size_t>(tpc));
    for (int t = 0; t < tpc; ++t) {
        if (only)
            mr::pass_gather_from<R, kInv>([&x](int i) { return x.at(std::size_t(i)); }, regs[std::size_t(t)],
                                          table.data(), n, 1, t, tpc);
        else
            mr::pass_gather<R, kInv>(sm.data(), regs[std::size_t(t)], table.data(), n, n / R, t, tpc);
    }
    // barrier
    for (int t = 0; t < tpc; ++t)
        mr::pass_scatter_last<R>([&out](int i, float2 v) { out.at(std::size_t(i)) = v; }, regs[std::size_t(t)], n, t,
                                 tpc);
}

// Passes from..to-1 (to < 0: all) on the shared line; with from = 1 the first has run already (emulate_first_pass).
template <bool kInv>
void emulate_passes(std::vector<float2>& sm, const mr::LinePlan& p, int tpc, int from = 0, int to = -1) {
    const std::vector<float2> table = mr::twiddle_table(p);
    EXPECT_EQ(int(table.size()), std::max(0, p.n - 1)) << p.n;  // the passes' ns (R - 1) add up to n - 1
    int ns = 1;
    for (int i = 0; i < from; ++i) ns *= p.radix[i];
    for (int i = from; i < (to < 0 ? p.passes : to); ++i) {
        mr::with_radix(p.radix[i], [&](auto r) { emulate_pass<decltype(r)::value, kInv>(sm, table, p.n, ns, tpc); });
        ns *= p.radix[i];
    }
}

// One line as a block runs it. to_out = false (line_fft_from, the columns): the first pass read from the line in
// "global memory" into the poisoned, padded shared buffer, the rest there, read back in natural order. to_out =
// true (line_fft_to, the rows): the same but the last pass written straight to a poisoned output line. A
// Bluestein line (or a line of one point) is copied in first and transformed in place.
template <bool kInv>
void emulate_line(std::vector<float2>& x, const std::vector<float2>* spectrum = nullptr, bool to_out = false) {
    const int n = int(x.size());
    const mr::LinePlan p = mr::plan_line(n);
    const int work = p.bluestein ? p.m : n;
    const int tpc = mr::line_threads(work);
    const float nan = std::nanf("");
    std::vector<float2> sm(std::size_t(mr::padded_len(work)), mr::c_make(nan, nan));
    if (!p.bluestein && p.passes > 0) {
        const std::vector<float2> table = mr::twiddle_table(p);
        if (to_out) {
            const bool only = p.passes == 1;
            if (!only) {
                mr::with_radix(p.radix[0],
                               [&](auto r) { emulate_first_pass<decltype(r)::value, kInv>(x, sm, table, tpc); });
                // barrier
                emulate_passes<kInv>(sm, p, tpc, 1, p.passes - 1);
            }
            std::vector<float2> out(std::size_t(n), mr::c_make(nan, nan));
            mr::with_radix(p.radix[p.passes - 1],
                           [&](auto r) { emulate_last_pass<decltype(r)::value, kInv>(x, sm, out, table, tpc, only); });
            x = out;
            return;
        }
        mr::with_radix(p.radix[0], [&](auto r) { emulate_first_pass<decltype(r)::value, kInv>(x, sm, table, tpc); });
        // barrier
        emulate_passes<kInv>(sm, p, tpc, 1);
    } else {
        for (int i = 0; i < n; ++i) sm[std::size_t(mr::padi(i))] = x[std::size_t(i)];
        if (!p.bluestein) {
            emulate_passes<kInv>(sm, p, tpc);
        } else {
            const mr::LinePlan pm = mr::plan_line(p.m);
            for (int t = 0; t < tpc; ++t) mr::bluestein_premultiply<kInv>(sm.data(), n, p.m, t, tpc);
            emulate_passes<false>(sm, pm, tpc);
            for (int t = 0; t < tpc; ++t) mr::bluestein_convolve(sm.data(), spectrum->data(), p.m, t, tpc);
            emulate_passes<true>(sm, pm, tpc);
            for (int t = 0; t < tpc; ++t) mr::bluestein_postmultiply<kInv>(sm.data(), n, t, tpc);
        }
    }
    for (int i = 0; i < n; ++i) x[std::size_t(i)] = sm[std::size_t(mr::padi(i))];
}

// ---- A compiled-in length as its kernels run it (fft_mixed.cu: first_pass, fixed_passes, last_pass with
// FixedLine's constants), each pass's output in its own layout (FixedLine::kPadOut, padded or plain). ----

// kSplit: the twiddles from the split tables (mixed_radix::split_twiddle_table, m24) as the kernels read them.
// kTpc: the line's threads (0: fixed_threads; the interleaved column blocks take column_threads).
template <int N, bool kInv, bool kSplit, int kTpc, int P = 0>
void emulate_fixed(const std::vector<float2>& x, std::vector<float2>& sm, std::vector<float2>& out,
                   const std::vector<float2>& table, bool to_out) {
    using F = mr::FixedLine<N, kTpc>;
    constexpr int R = F::template kRadix<P>, kB = F::template kButterflies<P>, ns = F::template kNs<P>;
    constexpr bool last = P + 1 == F::passes;
    std::vector<mr::PassRegs<R, kB>> regs(std::size_t(F::tpc));
    for (int t = 0; t < F::tpc; ++t) {
        if constexpr (P == 0)
            mr::pass_gather_from<R, kInv, 0, true>([&x](int i) { return x.at(std::size_t(i)); }, regs[std::size_t(t)],
                                                   table.data(), N, 1, t,
                                                   F::tpc);  // loads first, as the kernels' first pass (m52)
        else
            mr::pass_gather<R, kInv, kB, F::template kPadOut<P - 1>, true, kSplit ? N : 0>(
                sm.data(), regs[std::size_t(t)], table.data(), N, ns, t, F::tpc);
    }
    // barrier
    for (int t = 0; t < F::tpc; ++t) {
        if (last && to_out)
            mr::pass_scatter_last<R>([&out](int i, float2 v) { out.at(std::size_t(i)) = v; }, regs[std::size_t(t)], N,
                                     t, F::tpc);
        else
            mr::pass_scatter<R, kB, F::template kPadOut<P>, true>(sm.data(), regs[std::size_t(t)], N, ns, t, F::tpc);
    }
    if constexpr (!last) emulate_fixed<N, kInv, kSplit, kTpc, P + 1>(x, sm, out, table, to_out);
}

template <int kN, int kTpc = 0>
void check_fixed_line(Rng& rng, int& plain) {
    using F = mr::FixedLine<kN, kTpc>;
    const std::vector<float2> table = mr::twiddle_table(F::plan), split = mr::split_twiddle_table(kN);
    const float nan = std::nanf("");
    std::string layouts;
    double worst[2] = {0, 0};  // whole table, split tables
    for (int i = 0; i < F::passes; ++i) {
        layouts += F::layouts.padded[i] ? "P" : "-";
        plain += F::layouts.padded[i] ? 0 : 1;
    }
    EXPECT_TRUE(F::layouts.padded[F::passes - 1]) << kN << ": the last pass's output is read back with padi";
    for (bool inverse : {false, true})
        for (int mode = 0; mode < 4; ++mode) {
            const bool to_out = mode & 1, by_split = mode & 2;
            const std::vector<cf> x = rng.complex(static_cast<std::size_t>(kN));
            const std::vector<float2> in = to_float2(x);
            std::vector<float2> sm(std::size_t(mr::padded_len(kN)), mr::c_make(nan, nan)),
                out(static_cast<std::size_t>(kN), mr::c_make(nan, nan));
            if (by_split) {
                if (inverse)
                    emulate_fixed<kN, true, true, kTpc>(in, sm, out, split, to_out);
                else
                    emulate_fixed<kN, false, true, kTpc>(in, sm, out, split, to_out);
            } else {
                if (inverse)
                    emulate_fixed<kN, true, false, kTpc>(in, sm, out, table, to_out);
                else
                    emulate_fixed<kN, false, false, kTpc>(in, sm, out, table, to_out);
            }
            std::vector<float2> got(static_cast<std::size_t>(kN));
            for (int i = 0; i < kN; ++i)
                got[std::size_t(i)] = to_out ? out[std::size_t(i)] : sm[std::size_t(mr::padi(i))];
            const double e = rel_l2_f2(got, dft_rows(widen(x), kN, 1, inverse));
            worst[by_split] = std::max(worst[by_split], e);
            EXPECT_LT(e, 1e-6) << kN << " on " << F::tpc << " threads (layouts " << layouts
                               << (inverse ? ", inverse" : "") << (to_out ? ", to out" : "")
                               << (by_split ? ", split twiddles" : "") << ")";
        }
    std::cout << "[ mixed    ] " << kN << " on " << F::tpc << " threads: passes";
    for (int i = 0; i < F::passes; ++i) std::cout << " " << F::plan.radix[i] << (F::layouts.padded[i] ? "" : "(plain)");
    std::cout << "; worst rel L2 vs FFTW " << worst[0] << " (whole table), " << worst[1] << " (split tables)\n";
}

template <std::size_t... I>
void check_fixed_lines(Rng& rng, int& plain, std::index_sequence<I...>) {
    (check_fixed_line<mr::kFixedLengths[I]>(rng, plain), ...);
}
// The same on the interleaved column blocks' threads, where they differ (mixed_radix::column_threads).
template <std::size_t... I>
int check_column_lines(Rng& rng, std::index_sequence<I...>) {
    int plain = 0, checked = 0;
    auto one = [&](auto n) {
        constexpr int N = decltype(n)::value;
        if constexpr (mr::column_threads(N) != mr::fixed_threads(N)) {
            check_fixed_line<N, mr::column_threads(N)>(rng, plain);
            ++checked;
        }
    };
    (one(std::integral_constant<int, mr::kFixedLengths[I]>{}), ...);
    return checked;
}

// Every compiled-in length through its kernels' passes and layouts, both directions, to the shared line and
// straight out, against FFTW; a layout mix-up between a pass's scatter and the next one's gather reads NaN.
TEST(MixedRadix, CompiledInPassesAndLayoutsMatchFftw) {
    Rng rng;
    int plain = 0;
    check_fixed_lines(rng, plain, std::make_index_sequence<std::size(mr::kFixedLengths)>{});
    EXPECT_GE(plain, int(std::size(mr::kFixedLengths))) << "most compiled-in plans keep a pass's output plain";
    EXPECT_GE(check_column_lines(rng, std::make_index_sequence<std::size(mr::kFixedLengths)>{}), 1)
        << "some lengths take fewer threads in the column blocks";
}

// m93: the mixed C2C rows through bulk copies gather their first pass from the row in shared memory in plain order
// (fft_mixed.cu line_fft_staged_to: pass_gather with a plain layout, kKnown) instead of from global memory
// (first_pass: pass_gather_from, loads first). For every compiled-in length and both directions, every thread's
// butterfly registers must be the same bits either way, so the staged rows give the same line as the loaded ones.
template <int kN>
void check_staged_first_pass(Rng& rng) {
    using F = mr::FixedLine<kN>;
    constexpr int R = F::template kRadix<0>, kB = F::template kButterflies<0>;
    const std::vector<float2> table = mr::split_twiddle_table(kN);
    for (bool inverse : {false, true}) {
        const std::vector<float2> x = to_float2(rng.complex(static_cast<std::size_t>(kN)));
        int differ = 0;
        for (int t = 0; t < F::tpc; ++t) {
            mr::PassRegs<R, kB> a = {}, b = {};
            if (inverse) {
                mr::pass_gather_from<R, true, 0, true>([&x](int i) { return x.at(std::size_t(i)); }, a, table.data(),
                                                       kN, 1, t, F::tpc);
                mr::pass_gather<R, true, kB, false, true>(x.data(), b, table.data(), kN, 1, t, F::tpc);
            } else {
                mr::pass_gather_from<R, false, 0, true>([&x](int i) { return x.at(std::size_t(i)); }, a, table.data(),
                                                        kN, 1, t, F::tpc);
                mr::pass_gather<R, false, kB, false, true>(x.data(), b, table.data(), kN, 1, t, F::tpc);
            }
            for (int k = 0; k < kB; ++k)
                for (int r = 0; r < R; ++r)
                    differ += (a.v[k][r].x != b.v[k][r].x || a.v[k][r].y != b.v[k][r].y) ? 1 : 0;
        }
        EXPECT_EQ(differ, 0) << kN << (inverse ? " inverse" : " forward") << ": butterfly registers that differ";
    }
}
template <std::size_t... I>
void check_staged_first_passes(Rng& rng, std::index_sequence<I...>) {
    (check_staged_first_pass<mr::kFixedLengths[I]>(rng), ...);
}
TEST(MixedRadix, StagedFirstPassGathersWhatTheLoadedOneDoes) {
    Rng rng;
    check_staged_first_passes(rng, std::make_index_sequence<std::size(mr::kFixedLengths)>{});
}

// The column blocks' threads (column_threads): fewer than fixed_threads where the passes leave threads idle, never
// more points a thread in any pass, within PassRegs' butterfly bound, four lines in whole warps; or, for the measured
// lengths (m40), more threads that hold fewer points a thread.
TEST(MixedRadix, ColumnThreadsHoldNoMorePointsAThread) {
    EXPECT_EQ(mr::column_threads(1080), 72);  // 8, 9, 15: 135, 120 and 72 butterflies (96 threads: 18 points at most)
    for (int n : mr::kFixedLengths) {
        const mr::LinePlan p = mr::fixed_plan(n);
        const int c = mr::column_threads(n), f = mr::fixed_threads(n);
        EXPECT_TRUE(mr::within_butterfly_bound(p, c)) << n;
        if (mr::measured_column_threads(n) > 0) {  // more threads, fewer points a thread (m40)
            EXPECT_LE(4 * c, 1024) << n << ": four lines a block";
            EXPECT_EQ(c % 8, 0) << n;
            EXPECT_LT(mr::most_points(p, c), mr::most_points(p, f)) << n;
            continue;
        }
        EXPECT_LE(c, f) << n;
        EXPECT_TRUE(c == f || c % 8 == 0) << n;
        EXPECT_LE(mr::most_points(p, c), mr::most_points(p, f)) << n;
        if (c > 8 && c < f) {
            EXPECT_TRUE(mr::most_points(p, c - 8) > mr::most_points(p, f) || !mr::within_butterfly_bound(p, c - 8))
                << n << ": 8 threads fewer would do";
        }
    }
}

// The layout choice's count of wavefronts: a warp's 32 neighbouring 8-byte elements take two wherever they start,
// padded three when the skipped slots fall inside (from 8); 32 elements 16 apart all fall in one bank pair; the
// same index twice is one.
TEST(MixedRadix, WavefrontCountOfAWarpsAccess) {
    int a[32] = {};
    for (int l = 0; l < 32; ++l) a[l] = 8 + l;
    EXPECT_EQ(mr::detail::wavefronts(a, 32), 2);
    for (int l = 0; l < 32; ++l) a[l] = mr::padi(l);
    EXPECT_EQ(mr::detail::wavefronts(a, 32), 2);
    for (int l = 0; l < 32; ++l) a[l] = mr::padi(8 + l);
    EXPECT_EQ(mr::detail::wavefronts(a, 32), 3);
    for (int l = 0; l < 32; ++l) a[l] = 16 * l;
    EXPECT_EQ(mr::detail::wavefronts(a, 32), 32);
    for (int l = 0; l < 32; ++l) a[l] = mr::padi(16 * l);  // padded: 17 apart
    EXPECT_EQ(mr::detail::wavefronts(a, 32), 2);
    for (int l = 0; l < 32; ++l) a[l] = 5;
    EXPECT_EQ(mr::detail::wavefronts(a, 32), 1);
    // radix 16 at Ns = 1 (a first pass): plain 16 apart, padded 17; the next pass reads neighbours either way
    EXPECT_LT(mr::detail::boundary_wavefronts(4096, 256, 16, 1, 16, true),
              mr::detail::boundary_wavefronts(4096, 256, 16, 1, 16, false));
    // at Ns = 256 the scatter writes neighbours too: plain is no worse
    EXPECT_LE(mr::detail::boundary_wavefronts(4096, 256, 16, 256, 16, false),
              mr::detail::boundary_wavefronts(4096, 256, 16, 256, 16, true));
}

// The passes' j mod ns by multiplication is the division's remainder for every j and ns a line can have.
// The C2C rows' put (RowPut) lands every output where the grouped layout puts it ([x / group][rows][x % group], or
// [x]), through its stride where group divides q and through put(i, v) where not: the last pass of every
// compiled-in plan and of run-time plans of each radix, for every group the row pass takes, against the layout's
// formula, with each slot written once.
template <int R>
void check_row_put(int n, int group, int rows, int& strided) {
    const int q = n / R, tpc = (q + 3) / 4;
    constexpr int kB = 4;
    const int width = group > 0 ? group : n, size = n * rows;
    std::vector<float2> got(std::size_t(size), mr::c_make(-1.0f, -1.0f));
    const int row = rows / 2;  // a row inside the image: the grouped layout interleaves rows
    const mr::RowPut put(got.data() + std::size_t(row) * std::size_t(width), rows, group);
    strided += put.stride(q) > 0;
    for (int t = 0; t < tpc; ++t) {
        mr::PassRegs<R, kB> g;
        for (int b = 0; b < kB; ++b)
            for (int r = 0; r < R; ++r) g.v[b][r] = mr::c_make(float(t + b * tpc + r * q), 1.0f);  // its x
        mr::pass_scatter_last<R>(put, g, n, t, tpc);
    }
    int written = 0;
    for (int x = 0; x < n; ++x) {
        const std::size_t at =
            group > 0 ? std::size_t(x / group) * std::size_t(rows * group) + std::size_t(row * group + x % group)
                      : std::size_t(row * n + x);
        ASSERT_EQ(got[at].x, float(x)) << "n " << n << " radix " << R << " group " << group << " x " << x;
    }
    for (const float2& v : got) written += v.y == 1.0f;
    EXPECT_EQ(written, n) << "n " << n << " radix " << R << " group " << group;
}

template <class F>
void with_last_radix(int R, F&& f) {  // every radix a plan's last pass takes (with_radix has no 10 or 15)
    if (R == 10)
        f(std::integral_constant<int, 10>{});
    else if (R == 15)
        f(std::integral_constant<int, 15>{});
    else
        mr::with_radix(R, f);
}

TEST(MixedRadix, RowPutLandsEveryOutputInTheGroupedLayout) {
    int strided = 0, cases = 0;
    for (int n : mr::kFixedLengths) {
        const mr::LinePlan p = mr::fixed_plan(n);
        for (int group : {0, 1, 2, 4, 8, 16}) {
            if (group > 0 && n % group != 0) continue;
            with_last_radix(p.radix[p.passes - 1],
                            [&](auto r) { check_row_put<decltype(r)::value>(n, group, 5, strided); });
            ++cases;
        }
    }
    for (int n :
         {16, 32, 48, 80, 96, 112, 144, 160, 256, 2048}) {  // run-time plans: q = 1 and 2 (no stride), radices 3-16
        const mr::LinePlan p = mr::plan_line(n);
        for (int group : {0, 4, 16})
            with_last_radix(p.radix[p.passes - 1],
                            [&](auto r) { check_row_put<decltype(r)::value>(n, group, 3, strided); }),
                ++cases;
    }
    EXPECT_GT(strided, 0);
    EXPECT_LT(strided, cases);  // both ways taken
}

TEST(MixedRadix, TheDividerIsExactForEveryIndexAndStride) {
    std::size_t wrong = 0;
    for (int d = 1; d <= 16384; ++d) {
        const mr::Divider by(d);
        for (int j = 0; j <= 16384; ++j) wrong += by.mod(j) != j % d;
    }
    EXPECT_EQ(wrong, 0u);
}

// No thread is given more butterflies than its registers hold, at any length the kernels take, in any pass.
TEST(MixedRadix, NoThreadHasMoreButterfliesThanItsRegistersHold) {
    for (int n = 1; n <= 16384; ++n) {
        const mr::LinePlan p0 = mr::plan_line(n);
        if (p0.bluestein && n > 8192) continue;  // refused (gpu/fast/fft_mixed.h)
        const mr::LinePlan p = p0.bluestein ? mr::plan_line(p0.m) : p0;
        const int work = p0.bluestein ? p0.m : n;
        const int tpc = mr::line_threads(work);
        ASSERT_LE(tpc, 1024) << n;
        ASSERT_LE(mr::padded_len(work) * 8, 227 * 1024) << n;  // one line fits a block's shared memory
        for (int i = 0; i < p.passes; ++i) {
            const int R = p.radix[i], q = work / R;
            ASSERT_LE((q + tpc - 1) / tpc, (16 + R - 1) / R) << "n " << n << " radix " << R;
        }
    }
}

TEST(MixedRadix, TheKernelsLineEngineMatchesFftwAtEveryLengthTo2100AndTheUsersSizes) {
    Rng rng;
    std::vector<int> lengths;
    for (int n = 1; n <= 2100; ++n) lengths.push_back(n);
    for (int n : {2187, 2401, 3000, 3024, 3125, 4032, 4096, 4099, 5040, 6561, 7919, 8191, 8192, 10000, 15625, 16384})
        lengths.push_back(n);
    double worst = 0;
    int worst_n = 0, bluestein = 0;
    for (int n : lengths)
        for (bool inverse : {false, true})
            for (bool to_out : {false, true}) {  // the columns' way (read back from shared memory), the rows'
                const std::vector<cf> x = rng.complex(std::size_t(n));
                std::vector<float2> v = to_float2(x);
                const mr::LinePlan p = mr::plan_line(n);
                std::vector<float2> spectrum;
                if (p.bluestein) spectrum = mr::chirp_spectrum(n, inverse), ++bluestein;
                if (inverse)
                    emulate_line<true>(v, &spectrum, to_out);
                else
                    emulate_line<false>(v, &spectrum, to_out);
                const double e = rel_l2_f2(v, dft_rows(widen(x), n, 1, inverse));
                ASSERT_LT(e, 2e-6) << n << (inverse ? " inverse" : "") << (to_out ? " last pass out" : "") << " (seed "
                                   << rng.seed() << ")";
                if (e > worst) worst = e, worst_n = n;
            }
    EXPECT_GT(bluestein, 1000);
    std::cout << "[ mixed    ] line engine: " << lengths.size() << " lengths (" << bluestein / 4
              << " by Bluestein), worst relative L2 error vs FFTW (double) " << worst << " at n = " << worst_n << "\n";
}

// Two real lines packed as one complex line: the unpacked halves are each line's own spectrum.
TEST(MixedRadix, TwoRealLinesUnpackIntoTheirOwnSpectra) {
    Rng rng;
    for (int n : {1, 2, 3, 5, 8, 15, 45, 1009, 1080, 1920}) {
        const std::vector<float> a = rng.real(std::size_t(n)), b = rng.real(std::size_t(n));
        std::vector<float2> z(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) z[std::size_t(i)] = mr::c_make(a[std::size_t(i)], b[std::size_t(i)]);
        const mr::LinePlan p = mr::plan_line(n);
        std::vector<float2> spectrum;
        if (p.bluestein) spectrum = mr::chirp_spectrum(n, false);
        emulate_line<false>(z, &spectrum);
        std::vector<float2> sm(static_cast<std::size_t>(mr::padded_len(n)));
        for (int i = 0; i < n; ++i) sm[std::size_t(mr::padi(i))] = z[std::size_t(i)];
        std::vector<float2> ga(std::size_t(n / 2 + 1)), gb(ga.size());
        for (int k = 0; k <= n / 2; ++k) mr::unpack_pair(sm.data(), n, k, &ga[std::size_t(k)], &gb[std::size_t(k)]);
        std::vector<cd> wa = dft_rows(widen(std::vector<cf>(a.begin(), a.end())), n, 1, false),
                        wb = dft_rows(widen(std::vector<cf>(b.begin(), b.end())), n, 1, false);
        wa.resize(ga.size());
        wb.resize(gb.size());
        EXPECT_LT(rel_l2_f2(ga, wa), 2e-6) << n;
        EXPECT_LT(rel_l2_f2(gb, wb), 2e-6) << n;
    }
}

}  // namespace
}  // namespace specview::test
