// The frequency lab's masks, shared by the CPU and the GPU (host and device code, in double precision so that
// both build the same float mask): what each filter keeps at frequency (u, v) in cycles/pixel, with
// numpy.fft.fftfreq's convention (u along x, the columns; v along y, the rows, positive downwards).
#pragma once

#include <math.h>

#include "gpu/common/spectrum_math.h"  // SV_HD

namespace specview {

enum class FilterKind : int { LowPass = 0, HighPass, BandPass, BandStop, Notch, Wedge, Stripe };
enum class FilterEdge : int { Ideal = 0, Gauss, Butterworth };

// One filter as `--filter` spells it (app/lab/filter.h parses and checks it): radii in cycles/pixel.
struct FilterSpec {
    FilterKind kind = FilterKind::LowPass;
    FilterEdge edge = FilterEdge::Ideal;
    int order = 1;          // Butterworth's N
    double r = 0;           // lowpass, highpass, notch
    double r1 = 0, r2 = 0;  // bandpass, bandstop
    double u = 0, v = 0;    // notch centre (its twin is at (-u, -v))
    // wedge (r: half-width in degrees) and stripe (r: full width in cycles/pixel): the direction in degrees,
    // counter-clockwise from +u of (u, -v) (the image's up is +), and r1: the radius up to which all is kept.
    double angle = 0;
    bool operator==(const FilterSpec& o) const {
        return kind == o.kind && edge == o.edge && order == o.order && r == o.r && r1 == o.r1 && r2 == o.r2 &&
               u == o.u && v == o.v && angle == o.angle;
    }
    bool operator!=(const FilterSpec& o) const { return !(*this == o); }
};

constexpr int kMaxFilters = 32;

// specview's one angle convention (the readout, the wedge and stripe filters, the angular profile, their CSVs): the
// direction of the bin (u, v) in degrees, counter-clockwise from +u with the image's up positive (v counts downwards,
// so up is -v), in (-180, 180].
SV_HD double bin_angle_degrees(double u, double v) { return atan2(-v, u) * (180.0 / 3.14159265358979323846); }

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
        case FilterEdge::Gauss:
            return exp(-(r * r) / (2.0 * R * R));
        case FilterEdge::Butterworth:
            return 1.0 / (1.0 + pow_2n(r / R, order));
        default:
            return r <= R ? 1.0 : 0.0;
    }
}

// High-pass: ideal keeps r > R, Gaussian 1 - exp(-r^2 / (2 R^2)), Butterworth 1 / (1 + (R/r)^(2N)), 0 at r = 0.
SV_HD double highpass_value(FilterEdge e, int order, double r, double R) {
    switch (e) {
        case FilterEdge::Gauss:
            return 1.0 - exp(-(r * r) / (2.0 * R * R));
        case FilterEdge::Butterworth:
            return r > 0.0 ? 1.0 / (1.0 + pow_2n(R / r, order)) : 0.0;
        default:
            return r > R ? 1.0 : 0.0;
    }
}

// What the filter keeps at (u, v), in [0, 1]. Every filter is symmetric: filter_value(-u, -v) == filter_value(u, v).
SV_HD double filter_value(const FilterSpec& f, double u, double v) {
    const double r = sqrt(u * u + v * v);
    switch (f.kind) {
        case FilterKind::LowPass:
            return lowpass_value(f.edge, f.order, r, f.r);
        case FilterKind::HighPass:
            return highpass_value(f.edge, f.order, r, f.r);
        case FilterKind::BandPass:
        case FilterKind::BandStop: {
            const double pass = highpass_value(f.edge, f.order, r, f.r1) * lowpass_value(f.edge, f.order, r, f.r2);
            return f.kind == FilterKind::BandPass ? pass : 1.0 - pass;
        }
        case FilterKind::Wedge:
        case FilterKind::Stripe: {
            // Removed around a line through the origin: each direction stands for its opposite as well, so (u, v)
            // is first folded into the upper half plane (the result is exactly symmetric).
            if (r <= f.r1) return 1.0;
            double a = u, b = -v;  // b: up is positive
            if (b < 0.0 || (b == 0.0 && a < 0.0)) {
                a = -a;
                b = -b;
            }
            const double t = f.angle * (3.14159265358979323846 / 180.0);
            double d;
            if (f.kind == FilterKind::Stripe) {
                d = fabs(a * sin(t) - b * cos(t));  // distance to the line, cycles/pixel
                return 1.0 - lowpass_value(f.edge, f.order, d, 0.5 * f.r);
            }
            d = atan2(b, a) * (180.0 / 3.14159265358979323846) -
                f.angle;  // bin_angle_degrees(a, -b), folded to [0, 90]
            d = fmod(d, 180.0);
            if (d < 0.0) d += 180.0;
            if (d > 90.0) d = 180.0 - d;
            return 1.0 - lowpass_value(f.edge, f.order, d, f.r);
        }
        case FilterKind::Notch: {
            const double du1 = u - f.u, dv1 = v - f.v, du2 = u + f.u, dv2 = v + f.v;
            const double d1 = sqrt(du1 * du1 + dv1 * dv1), d2 = sqrt(du2 * du2 + dv2 * dv2);
            const double keep =
                1.0 - (lowpass_value(f.edge, f.order, d1, f.r) + lowpass_value(f.edge, f.order, d2, f.r));
            return keep < 0.0 ? 0.0 : keep > 1.0 ? 1.0 : keep;
        }
    }
    return 1.0;
}

// numpy.fft.fftfreq(n)[k]: k/n for k < (n+1)/2, else (k-n)/n (an even n's Nyquist bin n/2 is -0.5).
SV_HD double bin_frequency(int k, int n) { return double(k < (n + 1) / 2 ? k : k - n) / double(n); }

// Bin (kx, ky) of a width x height transform as signed bin offsets from DC (sx, sy), numpy.fft.fftfreq's
// index. An even size's Nyquist bin stands for +n/2 and -n/2 at once; its sign is taken so that bin -k gets
// -s(k), which makes every mask exactly symmetric (mask(-k) = mask(k): the filtered image stays real).
SV_HD void signed_bin(int kx, int ky, int width, int height, int* sx, int* sy) {
    int a = kx < (width + 1) / 2 ? kx : kx - width, b = ky < (height + 1) / 2 ? ky : ky - height;
    const bool nyq_u = width % 2 == 0 && kx == width / 2, nyq_v = height % 2 == 0 && ky == height / 2;
    if (nyq_u && !nyq_v) a = b > 0 ? -width / 2 : width / 2;
    if (nyq_v && !nyq_u) b = a > 0 ? -height / 2 : height / 2;
    *sx = a;
    *sy = b;
}

// The mask's filters at bin (kx, ky) of a width x height transform: their product.
SV_HD float mask_value(const FilterSpec* filters, int count, int kx, int ky, int width, int height) {
    int sx, sy;
    signed_bin(kx, ky, width, height, &sx, &sy);
    const double u = double(sx) / double(width), v = double(sy) / double(height);
    double m = 1.0;
    for (int i = 0; i < count; ++i) m *= filter_value(filters[i], u, v);
    return static_cast<float>(m);
}

// A dab of the freehand brush, in spectrum bins: a disc of radius r around the signed bin offset (u, v) from DC
// (v positive downwards) and, mirrored, around (-u, -v). Painting removes (the mask is 0 there), erasing puts
// back what earlier dabs removed; the last dab over a bin decides. The analytic filters multiply on top.
struct BrushStroke {
    double u = 0, v = 0, r = 0;
    int erase = 0;
    bool operator==(const BrushStroke& o) const { return u == o.u && v == o.v && r == o.r && erase == o.erase; }
    bool operator!=(const BrushStroke& o) const { return !(*this == o); }
};

// Whether the dab (or its mirror) covers signed bin (sx, sy).
SV_HD bool stroke_covers(const BrushStroke& b, int sx, int sy) {
    const double d1x = sx - b.u, d1y = sy - b.v, d2x = sx + b.u, d2y = sy + b.v, r2 = b.r * b.r;
    return d1x * d1x + d1y * d1y <= r2 || d2x * d2x + d2y * d2y <= r2;
}

// A dab's bounding box in signed bins (the mirror's is its negation): [x0, x0 + w) x [y0, y0 + h), at most the
// transform's size.
SV_HD void stroke_box(const BrushStroke& b, int width, int height, int* x0, int* y0, int* w, int* h) {
    const int ax = int(floor(b.u - b.r)), bx = int(ceil(b.u + b.r)), ay = int(floor(b.v - b.r)),
              by = int(ceil(b.v + b.r));
    *x0 = ax;
    *y0 = ay;
    *w = bx - ax + 1 < width ? bx - ax + 1 : width;
    *h = by - ay + 1 < height ? by - ay + 1 : height;
}

}  // namespace specview
