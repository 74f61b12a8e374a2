// The float plane fed to the FFT: one channel of the image, windowed, then padded or cropped by the size
// policy.
#pragma once

#include <cstddef>
#include <vector>

#include "app/image.h"
#include "app/settings.h"

namespace specview {

struct Plane {
    int width = 0;
    int height = 0;
    std::vector<float> v;  // row-major

    Plane() = default;
    Plane(int w, int h, float fill = 0.0f) : width(w), height(h), v(std::size_t(w) * h, fill) {}
    float& at(int x, int y) { return v[std::size_t(y) * width + x]; }
    float at(int x, int y) const { return v[std::size_t(y) * width + x]; }
};

// Luma is Rec. 709's Y' = 0.2126 R' + 0.7152 G' + 0.0722 B' on the stored (gamma-encoded) values; alpha is
// ignored (the spectrum is of the colours, not of a composite). R, G and B of a gray image are its gray
// value. A of an image without alpha is an InputError.
Plane extract_channel(const Image& img, Channel ch, const std::string& name = "image");

// 1D window of length n at index i (symmetric: w(0) = w(n-1)); n == 1 gives 1.
double window_value(Window w, int i, int n, double tukey_alpha);

// Size the FFT will run at for an image of w x h under the policy.
void transform_size(PadMode pad, int w, int h, int* out_w, int* out_h);

struct PreparedPlane {
    Plane plane;             // transform_size() big
    int content_x = 0;       // where the image's (cropped) content sits in the plane
    int content_y = 0;
    int content_w = 0;
    int content_h = 0;
    int crop_x = 0, crop_y = 0;  // for Crop: the origin of the centred crop in the source
};

// Where the content goes: the transform size, the (centred) crop's origin in the source and the content's size.
struct PlaneGeometry {
    int width = 0, height = 0;
    int crop_x = 0, crop_y = 0, content_w = 0, content_h = 0;
};
PlaneGeometry plane_geometry(const Settings& s, int image_w, int image_h);

// Crop (centred, for PadMode::Crop), then window the content, then pad: zeros, or the content's mean
// (after windowing) for PadFill::Mean. Padding goes to the right and bottom, so pixel (0, 0) stays the
// origin of the transform.
PreparedPlane prepare_plane(const Plane& src, const Settings& s);
// The same plane made straight from the image's samples (no float copy of the channel first), into `dst`:
// geometry.height rows of geometry.width floats, `stride` floats apart (FFTW's in-place padding stays as is).
// Runs on `threads` threads (0: all cores).
PlaneGeometry prepare_plane_into(const Image& img, const Settings& s, float* dst, std::size_t stride,
                                 const std::string& name = "image", int threads = 0);
PreparedPlane prepare_plane(const Image& img, const Settings& s, const std::string& name = "image");

bool is_pow2(long long v);
int next_pow2(int v);
int prev_pow2(int v);

}  // namespace specview
