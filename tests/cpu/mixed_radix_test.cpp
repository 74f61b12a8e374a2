// The mixed-radix plan and host reference for custom-fast's exact sizes (gpu/mixed_radix.h): every length's
// passes multiply to it (or it goes to Bluestein over a power of two >= 2n - 1), each small DFT is the DFT, and
// whole lines in float, forward and inverse, match FFTW in double on fresh random inputs at the sizes users'
// images have (1920, 1080, 3000, 2000, 4032, 3024), powers of two, and lengths with a large prime factor.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gpu/mixed_radix.h"
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
                EXPECT_TRUE(p.radix[i] == 2 || p.radix[i] == 3 || p.radix[i] == 4 || p.radix[i] == 5 || p.radix[i] == 7 ||
                            p.radix[i] == 8 || p.radix[i] == 16)
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
    for (int R : {2, 3, 4, 5, 7, 8, 16})
        for (bool inverse : {false, true}) {
            const std::vector<cf> x = rng.complex(std::size_t(R));
            std::vector<float2> v = to_float2(x);
            mr::dft_small(v.data(), R, inverse);
            const std::vector<cd> ref = dft_rows(widen(x), R, 1, inverse);
            EXPECT_LT(rel_l2_f2(v, ref), 4e-7) << "radix " << R << (inverse ? " inverse" : "") << " (seed " << rng.seed() << ")";
        }
}

TEST(MixedRadix, LinesMatchFftwAtUsersSizesPowersOfTwoAndPrimes) {
    Rng rng;
    double worst = 0;
    int worst_n = 0;
    for (int n : {1, 2, 3, 5, 6, 7, 12, 15, 21, 35, 60, 105, 120, 256, 1080, 1920, 2000, 3000, 3024, 4032, 4096, 8192,
                  11, 13, 97, 221, 1009, 2003, 4099}) {
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

}  // namespace
}  // namespace specview::test
