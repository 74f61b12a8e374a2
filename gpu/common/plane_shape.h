// How a content pixel's value becomes the plane's, on the host and the device alike (the device code is
// compiled without fused multiply-adds, so both give the same bits): the levelling plane subtracted, then
// the window, separable (w(x) w(y)) or radial (a table of w over the distance from the centre).
#pragma once

#include <math.h>

#include "gpu/common/spectrum_math.h"  // SV_HD

namespace specview {

constexpr int kRadialWindowTable = 4097;  // samples of w(t) for t in [0, 0.5], edge to centre

struct PlaneShape {
    bool level = false;
    double level_a = 0, level_bx = 0, level_by = 0;  // subtracted: a + bx x + by y (content coordinates)
    bool radial = false;
    double cx = 0, hx = 0, cy = 0, hy = 0;  // radial: centre and half-axes of the inscribed ellipse
};

// The plane's value (before rounding to float) for the content pixel (x, y) of value v. `wx`, `wy`: the
// separable window's factors; `table`: the radial window's kRadialWindowTable samples.
SV_HD double plane_value(const PlaneShape& p, double v, int x, int y, const double* wx, const double* wy,
                         const double* table) {
    if (p.level) {
        double t = p.level_bx * double(x);
        t = t + p.level_a;
        const double u = p.level_by * double(y);
        t = t + u;
        v = v - t;
    }
    if (!p.radial) return v * wx[x] * wy[y];
    const double rx = p.hx > 0.0 ? (double(x) - p.cx) / p.hx : 0.0;
    const double ry = p.hy > 0.0 ? (double(y) - p.cy) / p.hy : 0.0;
    double rho = sqrt(rx * rx + ry * ry);
    if (rho > 1.0) rho = 1.0;  // outside the inscribed ellipse: the edge value
    const double pos = (1.0 - rho) * double(kRadialWindowTable - 1);
    int i = int(pos);
    if (i > kRadialWindowTable - 2) i = kRadialWindowTable - 2;
    const double frac = pos - double(i);
    const double w = table[i] + (table[i + 1] - table[i]) * frac;
    return v * w;
}

}  // namespace specview
