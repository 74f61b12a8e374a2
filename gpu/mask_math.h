// The frequency lab's masks, shared by the CPU and the GPU (host and device code, in double precision so that
// both build the same float mask): what each filter keeps at frequency (u, v) in cycles/pixel, with
// numpy.fft.fftfreq's convention (u along x, the columns; v along y, the rows, positive downwards).
#pragma once

#include <math.h>

#include "gpu/spectrum_math.h"  // SV_HD

namespace specview {

enum class FilterKind : int { LowPass = 0, HighPass, BandPass, BandStop, Notch };
enum class FilterEdge : int { Ideal = 0, Gauss, Butterworth };

// One filter as `--filter` spells it (app/filter.h parses and checks it): radii in cycles/pixel.
struct FilterSpec {
    FilterKind kind = FilterKind::LowPass;
    FilterEdge edge = FilterEdge::Ideal;
    int order = 1;            // Butterworth's N
    double r = 0;             // lowpass, highpass, notch
    double r1 = 0, r2 = 0;    // bandpass, bandstop
    double u = 0, v = 0;      // notch centre (its twin is at (-u, -v))
    bool operator==(const FilterSpec& o) const {
        return kind == o.kind && edge == o.edge && order == o.order && r == o.r && r1 == o.r1 && r2 == o.r2 &&
               u == o.u && v == o.v;
    }
    bool operator!=(const FilterSpec& o) const { return !(*this == o); }
};

constexpr int kMaxFilters = 32;

// x^(2n) by multiplication (the same on every compiler and on the device).
SV_HD double pow_2n(double x, int n) {
    const double x2 = x * x;
    double p = 1.0;
    for (int i = 0; i < n; ++i) p *= x2;
    return p;
}

// Low-pass at radius R for a distance r: ideal keeps r <= R, Gaussian exp(-r^2 / (2 R^2)), Butterworth
// 1 / (1 + (r/R)^(2N)).
SV_HD double lowpass_value(FilterEdge e, int order, double r, double R) {
    switch (e) {
        case FilterEdge::Gauss: return exp(-(r * r) / (2.0 * R * R));
        case FilterEdge::Butterworth: return 1.0 / (1.0 + pow_2n(r / R, order));
        default: return r <= R ? 1.0 : 0.0;
    }
}

// High-pass: ideal keeps r > R, Gaussian 1 - exp(-r^2 / (2 R^2)), Butterworth 1 / (1 + (R/r)^(2N)), 0 at r = 0.
SV_HD double highpass_value(FilterEdge e, int order, double r, double R) {
    switch (e) {
        case FilterEdge::Gauss: return 1.0 - exp(-(r * r) / (2.0 * R * R));
        case FilterEdge::Butterworth: return r > 0.0 ? 1.0 / (1.0 + pow_2n(R / r, order)) : 0.0;
        default: return r > R ? 1.0 : 0.0;
    }
}

// What the filter keeps at (u, v), in [0, 1]. Every filter is symmetric: filter_value(-u, -v) == filter_value(u, v).
SV_HD double filter_value(const FilterSpec& f, double u, double v) {
    const double r = sqrt(u * u + v * v);
    switch (f.kind) {
        case FilterKind::LowPass: return lowpass_value(f.edge, f.order, r, f.r);
        case FilterKind::HighPass: return highpass_value(f.edge, f.order, r, f.r);
        case FilterKind::BandPass:
        case FilterKind::BandStop: {
            const double pass = highpass_value(f.edge, f.order, r, f.r1) * lowpass_value(f.edge, f.order, r, f.r2);
            return f.kind == FilterKind::BandPass ? pass : 1.0 - pass;
        }
        case FilterKind::Notch: {
            const double du1 = u - f.u, dv1 = v - f.v, du2 = u + f.u, dv2 = v + f.v;
            const double d1 = sqrt(du1 * du1 + dv1 * dv1), d2 = sqrt(du2 * du2 + dv2 * dv2);
            const double keep = 1.0 - (lowpass_value(f.edge, f.order, d1, f.r) + lowpass_value(f.edge, f.order, d2, f.r));
            return keep < 0.0 ? 0.0 : keep > 1.0 ? 1.0 : keep;
        }
    }
    return 1.0;
}

// numpy.fft.fftfreq(n)[k]: k/n for k < (n+1)/2, else (k-n)/n (an even n's Nyquist bin n/2 is -0.5).
SV_HD double bin_frequency(int k, int n) { return double(k < (n + 1) / 2 ? k : k - n) / double(n); }

// The mask at bin (kx, ky) of a width x height transform: the product of the filters. An even size's Nyquist
// frequency stands for +0.5 and -0.5 at once; its sign is taken so that bin -k gets frequency -f(k), which
// makes the mask exactly symmetric (mask(-k) = mask(k): the filtered image stays real).
SV_HD float mask_value(const FilterSpec* filters, int count, int kx, int ky, int width, int height) {
    double u = bin_frequency(kx, width), v = bin_frequency(ky, height);
    const bool nyq_u = width % 2 == 0 && kx == width / 2, nyq_v = height % 2 == 0 && ky == height / 2;
    if (nyq_u && !nyq_v) u = v > 0.0 ? -0.5 : 0.5;
    if (nyq_v && !nyq_u) v = u > 0.0 ? -0.5 : 0.5;
    double m = 1.0;
    for (int i = 0; i < count; ++i) m *= filter_value(filters[i], u, v);
    return static_cast<float>(m);
}

}  // namespace specview
