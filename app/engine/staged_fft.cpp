#include "app/engine/staged_fft.h"

#include <cmath>

#include "gpu/common/errors.h"

namespace specview {

unsigned bit_reverse(unsigned i, int bits) {
    unsigned r = 0;
    for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1u) << (bits - 1 - b);
    return r;
}

unsigned twiddle_exponent(unsigned group, int log2n) { return log2n <= 1 ? 0u : bit_reverse(group, log2n - 1); }

namespace {
int log2_exact(int n) {
    int l = 0;
    while ((1 << l) < n) ++l;
    if ((1 << l) != n)
        throw gpu::ConfigError("the staged radix-2 FFT needs power-of-two sizes; got " + std::to_string(n));
    return l;
}
}  // namespace

void staged_row_fft(std::complex<double>* x, int n, int stages, bool natural, bool inverse) {
    const int log2n = log2_exact(n);
    if (stages < 0 || stages > log2n) stages = log2n;
    for (int p = 1; p <= stages; ++p) {
        const int sbits = log2n - p;
        const int span = 1 << sbits;
        for (int j = 0; j < n / 2; ++j) {
            const unsigned g = unsigned(j) >> sbits;
            const int i0 = int((g << (sbits + 1)) | (unsigned(j) & unsigned(span - 1)));
            const int i1 = i0 + span;
            const double a = (inverse ? 2.0 : -2.0) * M_PI * twiddle_exponent(g, log2n) / n;
            const std::complex<double> t = std::complex<double>(std::cos(a), std::sin(a)) * x[i1];  // TWIDDLE
            const std::complex<double> u = x[i0];
            x[i0] = u + t;  // ADDSUB
            x[i1] = u - t;
        }
    }
    if (natural && stages == log2n) {
        for (int j = 0; j < n; ++j) {
            const int r = int(bit_reverse(unsigned(j), log2n));
            if (j < r) std::swap(x[j], x[r]);
        }
    }
}

StagedResult run_staged_2d(const Plane& plane, const gpu::StopPoint& stop) {
    using K = gpu::StopPoint::Kind;
    const int w = plane.width, h = plane.height;
    log2_exact(w);
    log2_exact(h);
    std::vector<std::complex<double>> a(std::size_t(w) * h), b(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = plane.v[i];

    auto finish = [](const std::vector<std::complex<double>>& d, int rows, int cols) {
        StagedResult r{rows, cols, std::vector<std::complex<float>>(d.size())};
        for (std::size_t i = 0; i < d.size(); ++i) r.data[i] = std::complex<float>(d[i]);
        return r;
    };
    auto transpose = [](const std::vector<std::complex<double>>& in, std::vector<std::complex<double>>& out, int rows,
                        int cols) {
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x) out[std::size_t(x) * rows + y] = in[std::size_t(y) * cols + x];
    };
    auto row_pass = [&](std::vector<std::complex<double>>& d, int rows, int n, K kind) {
        const int stages = stop.kind == kind ? stop.stage : -1;
        const bool natural = !(stop.kind == kind && stop.bit_reversed);
        for (int y = 0; y < rows; ++y) staged_row_fft(d.data() + std::size_t(y) * n, n, stages, natural);
    };

    row_pass(a, h, w, K::RowPass1);
    if (stop.kind == K::RowPass1) return finish(a, h, w);
    transpose(a, b, h, w);
    if (stop.kind == K::Transpose1) return finish(b, w, h);
    row_pass(b, w, h, K::RowPass2);
    if (stop.kind == K::RowPass2) return finish(b, w, h);
    transpose(b, a, w, h);
    return finish(a, h, w);
}

}  // namespace specview
