// The float plane fed to the FFT: one channel of the image, windowed, then padded or cropped by the size
// policy.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "app/core/image.h"
#include "app/core/settings.h"
#include "gpu/common/plane_shape.h"
#include "gpu/common/pow2.h"  // is_pow2, next_pow2, prev_pow2 (the size policy)

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

// `count` values of the channel from row y, column x0 on (the plane's own conversion, any sample type); throws
// InputError for A without alpha.
void channel_values(const Image& img, Channel ch, int y, int x0, int count, float* out, const std::string& name = "image");
// The least and greatest of the channel's values over the whole image (channel_values' floats; NaNs left out, +inf
// and -inf when there are none). A single stored channel of 8- or 16-bit samples is scanned as the integers it is
// (its conversion keeps order); luma of colour converts each pixel.
void channel_range(const Image& img, Channel ch, float* lo, float* hi, const std::string& name = "image");
// InputError naming `name` where the image has not that channel (alpha without one).
void check_channel(const Image& img, Channel ch, const std::string& name);

// The 1D window at t in [0, 1] (symmetric about t = 0.5, its peak): Hann, Hamming, Tukey (alpha), Blackman,
// 4-term Blackman-Harris, Kaiser (beta: I0(beta sqrt(1 - (2t-1)^2)) / I0(beta)), flat top (scipy's
// coefficients), Welch (1 - (2t-1)^2).
double window_at(Window w, double t, double tukey_alpha, double kaiser_beta);
// 1D window of length n at index i (t = i / (n-1): symmetric, w(0) = w(n-1)); n == 1 gives 1.
double window_value(Window w, int i, int n, double tukey_alpha, double kaiser_beta = 8.6);

// Size the FFT will run at for an image of w x h under the policy.
void transform_size(PadMode pad, int w, int h, int* out_w, int* out_h);

struct PreparedPlane {
    Plane plane;        // transform_size() big
    int content_x = 0;  // where the image's (cropped) content sits in the plane
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

// What is subtracted before the window: the settings' level, or the content's mean where --pad-fill mean meets a
// window and padding (issue 59): a window tapers the content to 0 at its edges, and padding with the raw mean would
// bring back the edge cross the window removed; so the mean goes first (as --level mean: the spectrum differs in DC
// alone) and the padding is 0, the value the windowed content tapers to.
Level effective_level(const Settings& s, const PlaneGeometry& g);

// Everything that turns content values into plane values for these settings (gpu/common/plane_shape.h's arithmetic):
// the levelling plane, fitted to the content (`row_of(y, out)` gives content row y's values, content_w of
// them; only called when the settings level), and the window's factors or radial table.
struct PlaneShaping {
    PlaneShape shape;
    std::vector<double> wx, wy;  // separable: content_w and content_h factors
    std::vector<double> table;   // radial: kRadialWindowTable samples of w from the edge (t = 0) to the centre
};
PlaneShaping plane_shaping(const Settings& s, const PlaneGeometry& g, const std::function<void(int, float*)>& row_of,
                           int threads = 0);
// The same for an image's content (the channel of s, cropped as g says).
PlaneShaping plane_shaping(const Image& img, const Settings& s, const PlaneGeometry& g, int threads = 0);

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

// The plane of prepare_plane_into folded: its fx x fy tiles of (width / fx) x (height / fy) summed into one, into
// `dst` (rows `stride` floats apart). The DFT of the folded plane is exactly every fx-th, fy-th bin of the whole
// plane's DFT (F_folded[j] = F[fx j]): the viewer's live preview of a big spectrum, made by one pass over the
// samples and a transform of 1/(fx fy) the size. fx and fy must divide the plane's width and height.
PlaneGeometry prepare_folded_plane_into(const Image& img, const Settings& s, int fx, int fy, float* dst,
                                        std::size_t stride, const std::string& name = "image", int threads = 0);

}  // namespace specview
