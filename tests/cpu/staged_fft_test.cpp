// The CPU model of the staged radix-2 algorithm: the permutation on its own, every stage count against
// FFTW, and an 8-point example worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <set>
#include <vector>

#include "app/engine/staged_fft.h"
#include "gpu/common/errors.h"
#include "gpu/common/volume_math.h"
#include "tests/support/oracle.h"

namespace specview::test {
namespace {

TEST(BitReversal, IsAPermutationAndItsOwnInverse) {
    EXPECT_EQ(bit_reverse(8, 4), 1u);  // seed 001: index 8 of 16 -> 1
    EXPECT_EQ(bit_reverse(8, 5), 2u);  // index 8 of 32 -> 2
    EXPECT_EQ(bit_reverse(1, 3), 4u);
    EXPECT_EQ(bit_reverse(6, 3), 3u);
    for (int bits = 0; bits <= 14; ++bits) {
        std::set<unsigned> seen;
        for (unsigned i = 0; i < (1u << bits); ++i) {
            EXPECT_EQ(bit_reverse(bit_reverse(i, bits), bits), i);
            seen.insert(bit_reverse(i, bits));
        }
        EXPECT_EQ(seen.size(), std::size_t(1) << bits);
    }
}

TEST(StagedFft, AllStagesEqualFftwForEveryPowerOfTwo) {
    Rng rng;
    for (int n = 1; n <= 4096; n *= 2) {
        const auto x = widen(rng.complex(n));
        for (bool inverse : {false, true}) {
            auto y = x;
            staged_row_fft(y.data(), n, -1, true, inverse);
            const auto ref = dft_rows(x, n, 1, inverse);
            std::vector<cf> got(y.begin(), y.end());
            EXPECT_LT(rel_l2(got, ref), 1e-6) << n;
        }
    }
}

// x = [1, 2, 3, 4, 0, 0, 0, 0], by hand. Stage 1 (span 4, W = 1): x[i] +- x[i+4] -> [1,2,3,4,1,2,3,4].
// Stage 2 (span 2): group 0 with W_8^0 = 1, group 1 with W_8^2 = -i:
//   [1+3, 2+4, 1-3, 2-4 | 1-3i, 2-4i, 1+3i, 2+4i]
// Stage 3 (span 1): groups 0..3 use W_8^{bitrev2(g)} = W^0, W^2, W^1, W^3:
//   g0: 4 +- 6 = 10, -2;  g1: -2 +- (-i)(-2) = -2+2i, -2-2i;
//   g2: (1-3i) +- W^1 (2-4i),  W^1 = (1-i)/sqrt2;  g3: (1+3i) +- W^3 (2+4i),  W^3 = (-1-i)/sqrt2.
TEST(StagedFft, EightPointExampleWorkedByHand) {
    using C = std::complex<double>;
    const double r = 1 / std::sqrt(2.0);
    std::vector<C> x{1, 2, 3, 4, 0, 0, 0, 0};
    auto after = [&](int s) {
        auto y = x;
        staged_row_fft(y.data(), 8, s, false);
        return y;
    };
    const std::vector<C> s1{1, 2, 3, 4, 1, 2, 3, 4};
    const std::vector<C> s2{4, 6, -2, -2, C(1, -3), C(2, -4), C(1, 3), C(2, 4)};
    const C w1(r, -r), w3(-r, -r);
    const std::vector<C> s3{10,
                            -2,
                            C(-2, 2),
                            C(-2, -2),
                            C(1, -3) + w1 * C(2, -4),
                            C(1, -3) - w1 * C(2, -4),
                            C(1, 3) + w3 * C(2, 4),
                            C(1, 3) - w3 * C(2, 4)};
    const std::vector<C>* want[] = {&s1, &s2, &s3};
    for (int s = 1; s <= 3; ++s) {
        const auto got = after(s);
        for (int i = 0; i < 8; ++i) {
            EXPECT_NEAR(got[i].real(), (*want[s - 1])[i].real(), 1e-12) << "stage " << s << " element " << i;
            EXPECT_NEAR(got[i].imag(), (*want[s - 1])[i].imag(), 1e-12) << "stage " << s << " element " << i;
        }
    }
    // After stage 3, element j is X[bitrev(j)]; X[0] = 10, X[4] = 1-2+3-4 = -2.
    EXPECT_NEAR(after(3)[1].real(), -2, 1e-12);
    const auto ref = dft_rows(x, 8, 1);
    for (int j = 0; j < 8; ++j) EXPECT_NEAR(std::abs(after(3)[j] - ref[bit_reverse(j, 3)]), 0, 1e-12);
    EXPECT_EQ(twiddle_exponent(2, 3), 1u);
    EXPECT_EQ(twiddle_exponent(3, 3), 3u);
}

TEST(StagedFft, TwoDimensionalStopsHaveTheRightShapes) {
    Plane p(8, 4);
    for (std::size_t i = 0; i < p.v.size(); ++i) p.v[i] = float(i % 5);
    using K = gpu::StopPoint::Kind;
    EXPECT_EQ(run_staged_2d(p, {K::RowPass1, 2, false}).rows, 4);
    EXPECT_EQ(run_staged_2d(p, {K::Transpose1, 0, false}).rows, 8);
    EXPECT_EQ(run_staged_2d(p, {K::RowPass2, 1, false}).cols, 4);
    const auto full = run_staged_2d(p, {K::Transpose2, 0, false});
    EXPECT_EQ(full.rows, 4);
    EXPECT_LT(rel_l2(full.data, dft2d(widen(p.v), 4, 8)), 1e-6);
    Plane odd(6, 4);
    EXPECT_THROW(run_staged_2d(odd, {}), gpu::ConfigError);
}

// Seed 000 section 5.1.1 in the in-order pipeline (gpu/common/volume_math.h's next_axis_row, the CUDA row kernel's
// carried stages): a pass's blocks of 2^k rows along the next axis cover every row once, and the first k stages of
// the next axis run across a block's rows - pairs h, h + s; group h >> (log2 s + 1) - are the staged model's first k
// stages along that axis.
TEST(StagedFft, TheNextAxissFirstStagesRunAcrossABlocksRowsAreTheModels) {
    Rng rng;
    struct Case {
        int outer, log2next, inner, log2h;
    };
    for (const Case c : {Case{3, 4, 1, 2}, Case{2, 5, 8, 4}, Case{1, 3, 4, 3}, Case{4, 6, 2, 1}, Case{1, 2, 1, 2}}) {
        const int n_next = 1 << c.log2next, H = 1 << c.log2h;
        const long long rows = (long long)c.outer * n_next * c.inner, blocks = rows / H;
        // Every row once; a block's rows are one (outer, inner) pair's positions j0 + h n_next / H.
        std::vector<int> seen(static_cast<std::size_t>(rows), 0);
        for (long long b = 0; b < blocks; ++b)
            for (int h = 0; h < H; ++h) {
                const long long r = next_axis_row(b, h, c.log2h, c.log2next, c.inner);
                ASSERT_GE(r, 0);
                ASSERT_LT(r, rows);
                ++seen[std::size_t(r)];
                const long long r0 = next_axis_row(b, 0, c.log2h, c.log2next, c.inner);
                EXPECT_EQ(r - r0, (long long)h * (n_next / H) * c.inner) << "block " << b << " row " << h;
            }
        for (const int k : seen) ASSERT_EQ(k, 1);
        // One value per row (a row's position x stands for all): the carried stages against the model's.
        std::vector<std::complex<double>> v(static_cast<std::size_t>(rows));
        for (auto& x : v) x = {rng.real(1)[0], rng.real(1)[0]};
        std::vector<std::complex<double>> want = v;
        for (int a = 0; a < c.outer; ++a)
            for (int m = 0; m < c.inner; ++m) {
                std::vector<std::complex<double>> line(static_cast<std::size_t>(n_next));
                for (int j = 0; j < n_next; ++j) line[std::size_t(j)] = want[std::size_t((a * n_next + j) * c.inner + m)];
                staged_row_fft(line.data(), n_next, c.log2h, false);
                for (int j = 0; j < n_next; ++j) want[std::size_t((a * n_next + j) * c.inner + m)] = line[std::size_t(j)];
            }
        for (long long b = 0; b < blocks; ++b) {
            std::vector<std::complex<double>> r(static_cast<std::size_t>(H));
            for (int h = 0; h < H; ++h) r[std::size_t(h)] = v[std::size_t(next_axis_row(b, h, c.log2h, c.log2next, c.inner))];
            for (int ls = c.log2h - 1; ls >= 0; --ls) {  // spans H/2 .. 1, as the kernel runs them
                const int span = 1 << ls;
                for (int h = 0; h + span < H; ++h) {
                    if (h & span) continue;
                    const unsigned g = unsigned(h) >> (ls + 1);
                    const double ang = -2.0 * M_PI * twiddle_exponent(g, c.log2next) / n_next;
                    const std::complex<double> t = std::polar(1.0, ang) * r[std::size_t(h + span)];
                    r[std::size_t(h + span)] = r[std::size_t(h)] - t;
                    r[std::size_t(h)] += t;
                }
            }
            for (int h = 0; h < H; ++h) v[std::size_t(next_axis_row(b, h, c.log2h, c.log2next, c.inner))] = r[std::size_t(h)];
        }
        for (std::size_t i = 0; i < v.size(); ++i)
            ASSERT_LT(std::abs(v[i] - want[i]), 1e-12) << "row " << i << " (next axis 2^" << c.log2next << ", H " << H << ")";
    }
}

}  // namespace
}  // namespace specview::test
