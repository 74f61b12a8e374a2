// How a content pixel's value becomes the plane's, on the host and the device alike (the device code is
// compiled without fused multiply-adds, so both give the same bits): the levelling plane subtracted, then
// the window, separable (w(x) w(y)) or radial (a table of w over the distance from the centre).
#pragma once

#include <math.h>

#include <cstddef>
#include <cstdint>
#include <vector>

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

namespace specview::gpu {

// How to make the plane from the image: plain data, filled in by the app from its settings (app/engine's
// plane_recipe), for the devices that make the plane themselves (gpu/plane in CUDA, gpu/glsl in GL shaders).
struct PlaneRecipe {
    const void* samples = nullptr;  // host, interleaved, channels samples a pixel, as decoded:
    int bit_depth = 8;              // 8 (uint8, v / 255), 16 (uint16, v / 65535) or 32 (float, as is)
    // Or on the device (a video frame NVDEC decoded; `samples` null): one channel, rows device_pitch bytes apart,
    // written by work on the legacy default stream (FFmpeg's); 16-bit samples with significant_bits (< 16) at the
    // top widen to v | (v >> significant_bits), as the CPU decoder widens them.
    const void* device_samples = nullptr;
    std::size_t device_pitch = 0;
    int significant_bits = 0;
    int image_width = 0, image_height = 0, channels = 0;
    std::uint64_t image_version = 0;  // the pixels are uploaded again only when this changes
    int channel = 0;                  // 0 luma (Rec. 709 on channels 0..2, or the gray value), else index + 1
    int plane_width = 0, plane_height = 0;
    int crop_x = 0, crop_y = 0, content_width = 0, content_height = 0;
    std::vector<double> window_x, window_y;  // separable window: content_width and content_height values
    std::vector<double> radial_table;        // radial window: kRadialWindowTable values (gpu/common/plane_shape.h)
    PlaneShape shape;                        // levelling plane and window kind
    bool fill_mean = false;                  // pad with the windowed content's mean (else zeros)
};

}  // namespace specview::gpu
