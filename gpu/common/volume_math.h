// A volume as app/volume shapes and shows it, shared by the host (app/volume/volume.cpp) and the device
// (gpu/engine/volume_engine.cu, gpu/picture/volume_view.cu) so that both make the same values: a content row's sums
// for the levelling fit, a voxel's shaped value (levelling plane, separable or spherical window), the whole spectrum's
// bin (x, y, z) in the half that an in-place R2C transform keeps, a slice's or projection's picture index to its bin,
// the shell a bin falls in. The device code is compiled without fused multiply-adds, so both round alike.
#pragma once

#include <math.h>

#include <cstddef>

#include "gpu/common/spectrum_math.h"  // SV_HD, shift_source

namespace specview {

constexpr int kVolumeSphereTable = 4096;  // samples of the spherical window, edge (0) to centre

// A content row's sums for the levelling fit, in x order: sum v and sum (x - xc) v.
SV_HD void volume_row_sums(const float* row, int cw, double xc, double* a, double* b) {
    double s = 0, sx = 0;
    for (int x = 0; x < cw; ++x) {
        s += row[x];
        sx += (x - xc) * row[x];
    }
    *a = s;
    *b = sx;
}

// The shaped value of content voxel x of a row whose levelling base is `base` (a + by (y - yc) + bz (z - zc)): the
// levelling plane subtracted, then the separable window's wx[x] wy[y] wz[z] (wyz = wy[y] wz[z]).
SV_HD float volume_shaped(float v, double base, double bx, int x, double xc, double wxx, double wyz) {
    return float((double(v) - base - bx * (x - xc)) * wxx * wyz);
}

// The same with the spherical window: w of the distance from the centre over the inscribed ellipsoid (half-axes hx,
// hy, hz; ry, rz the row's), from `table` (kVolumeSphereTable samples, edge to centre) linearly.
SV_HD float volume_shaped_radial(float v, double base, double bx, int x, double xc, double hx, double ry, double rz,
                                 const double* table) {
    const double rx = (x - xc) / hx;
    double rho = sqrt(rx * rx + ry * ry + rz * rz);
    if (rho > 1.0) rho = 1.0;
    const double pos = (1.0 - rho) * double(kVolumeSphereTable - 1);
    int i = int(pos);
    if (i > kVolumeSphereTable - 2) i = kVolumeSphereTable - 2;
    const double w = table[i] + (table[i + 1] - table[i]) * (pos - i);
    return float((double(v) - base - bx * (x - xc)) * w);
}

// Seed 000 section 5.1.1 in the seed's in-order pipeline: a row pass whose block b holds 2^log2h rows that are
// positions of the next axis (length 2^log2next) 2^(log2next - log2h) apart, so that it can run that axis's first
// log2h stages across them (in the in-place order the first stages pair positions n_next / 2, n_next / 4, ... apart:
// the block's rows). Rows are numbered (a n_next + j) inner + m: the next axis j, `inner` rows between its positions
// (x-rows of a volume: j = y, inner 1; y-rows after the slabs' transpose: j = z, inner = width). The memory row of
// the block's row h:
SV_HD long long next_axis_row(long long block, int h, int log2h, int log2next, long long inner) {
    const long long m = block % inner, t = block / inner;
    const int per_log2 = log2next - log2h;  // the block's first position j0 < n_next / 2^log2h
    const long long j0 = t & ((1ll << per_log2) - 1), a = t >> per_log2;
    return ((a << log2next) + j0 + ((long long)h << per_log2)) * inner + m;
}

// numpy.fft.fftfreq's frequency of index k of n, in cycles per sample.
SV_HD double volume_fftfreq(int k, int n) { return double(k < (n + 1) / 2 ? k : k - n) / double(n); }

// The unshifted index a picture index i shows along an axis of n (shifted or not).
SV_HD int volume_source(int i, int n, bool shift) { return shift ? shift_source(i, n) : i; }

// Where bin (x, y, z) of the whole W x H x D spectrum lies in the half (depth x height rows of W/2 + 1 bins, `pitch`
// bins apart): the index, and whether that bin is its mirror (then its conjugate is bin (x, y, z)).
SV_HD std::size_t volume_half_index(int x, int y, int z, int W, int H, int D, std::size_t pitch, bool* conj) {
    if (x < W / 2 + 1) {
        *conj = false;
        return (std::size_t(z) * std::size_t(H) + std::size_t(y)) * pitch + std::size_t(x);
    }
    *conj = true;
    const int mz = z == 0 ? 0 : D - z, my = y == 0 ? 0 : H - y;
    return (std::size_t(mz) * std::size_t(H) + std::size_t(my)) * pitch + std::size_t(W - x);
}

// Axes by number on the device: 0 x, 1 y, 2 z (app/volume's VolumeAxis X, Y, Z). A slice normal to `axis` at bin k
// shows, at picture row a and column b (both already unshifted): z -> (y = a, x = b), y -> (z = a, x = b),
// x -> (z = a, y = b). A projection along `axis` walks t in place of k.
SV_HD void volume_slice_bin(int axis, int k, int a, int b, int* x, int* y, int* z) {
    if (axis == 2) {
        *x = b, *y = a, *z = k;
    } else if (axis == 1) {
        *x = b, *y = k, *z = a;
    } else {
        *x = k, *y = b, *z = a;
    }
}

// The shell of a bin whose squared frequencies per axis (in the shells' units) are fx2, fy2, fz2, shells 1 / m wide:
// the radius in shells rounded half away from zero (std::lround's, exactly: r >= 0, and r - trunc(r) is exact),
// (fx2 + fy2) + fz2 summed in that order.
SV_HD std::size_t volume_shell(double fx2, double fy2, double fz2, double m) {
    const double r = sqrt(fx2 + fy2 + fz2) * m;
    const std::size_t whole = std::size_t(r);
    return whole + (r - double(whole) >= 0.5 ? 1 : 0);
}

}  // namespace specview
