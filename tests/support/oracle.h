// The tests' reference: FFTW in double precision, fresh random inputs, relative L2 error.
#pragma once

#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace specview::test {

using cd = std::complex<double>;
using cf = std::complex<float>;

// A generator seeded afresh for every test run (std::random_device); seed() says which, for a failure message.
class Rng {
public:
    Rng();
    std::uint64_t seed() const { return seed_; }
    std::vector<cf> complex(std::size_t n);
    std::vector<float> real(std::size_t n, float lo = 0.0f, float hi = 1.0f);
    std::mt19937_64& engine() { return gen_; }

private:
    std::uint64_t seed_;
    std::mt19937_64 gen_;
};

// rows x cols 2D DFT (unnormalised both ways, FFTW's and cuFFT's convention).
std::vector<cd> dft2d(const std::vector<cd>& in, int rows, int cols, bool inverse = false);
// `rows` independent 1D DFTs of n points each.
std::vector<cd> dft_rows(const std::vector<cd>& in, int n, int rows, bool inverse = false);
// Direct O(N^2) double DFT of one row (an oracle that does not trust FFTW either).
std::vector<cd> direct_dft2d(const std::vector<cd>& in, int rows, int cols);

template <class T>
std::vector<cd> widen(const std::vector<T>& v) {
    std::vector<cd> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = cd(v[i]);
    return out;
}

// ||got - ref|| / ||ref||; infinity if got holds a NaN or inf (e.g. an unwritten, poisoned element).
double rel_l2(const cf* got, const cd* ref, std::size_t n);
double rel_l2(const std::vector<cf>& got, const std::vector<cd>& ref);

}  // namespace specview::test
