// A CPU model of the custom GPU pipeline's staged radix-2 algorithm (gpu/custom/fft_rows.cu): the same butterflies in
// the same order, so classroom mode can show every stage without a GPU and the GPU tests can check each
// intermediate stage against it. Computed in double precision.
#pragma once

#include <complex>
#include <vector>

#include "app/core/plane.h"
#include "gpu/common/config.h"

namespace specview {

// In place on one row of n = 2^k points: butterfly stages 1..stages of radix-2 DIT with natural-order input
// (each stage: t = W_n^{bitrev(g)} x[i + s]; x[i] = x[i] + t; x[i + s] = x[i] - t). After all stages the row
// holds X[bitrev(j)] at j; natural = true then reorders it to X[j].
void staged_row_fft(std::complex<double>* row, int n, int stages, bool natural, bool inverse = false);

// The index whose bits are those of i reversed in `bits` bits.
unsigned bit_reverse(unsigned i, int bits);

// The twiddle exponent e (W_n^e) the butterfly of group g uses at any stage: bitrev(g) in log2(n) - 1 bits.
unsigned twiddle_exponent(unsigned group, int log2n);

struct StagedResult {
    int rows = 0, cols = 0;  // layout at the stop point (width x height after one transpose)
    std::vector<std::complex<float>> data;
};

// The 2D pipeline (row pass, transpose, row pass, transpose) stopped at `stop`. Throws gpu::ConfigError for
// sizes that are not powers of two.
StagedResult run_staged_2d(const Plane& plane, const gpu::StopPoint& stop);

}  // namespace specview
