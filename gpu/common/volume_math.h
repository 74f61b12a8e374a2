// A volume's spectrum as app/volume shows it, shared by the host (app/volume/volume.cpp) and the device
// (gpu/picture/volume_view.cu) so that both pick the same bins: the whole spectrum's bin (x, y, z) in the half that an
// in-place R2C transform keeps, a slice's or projection's picture index to its bin, the shell a bin falls in. The
// device code is compiled without fused multiply-adds, so the shells' arithmetic rounds as the host's does.
#pragma once

#include <math.h>

#include <cstddef>

#include "gpu/common/spectrum_math.h"  // SV_HD, shift_source

namespace specview {

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
