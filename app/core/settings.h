// What the user chose: everything the engine needs to turn an image into a spectrum picture.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/common/mask_math.h"
#include "gpu/common/spectrum_math.h"
#include "gpu/common/config.h"

namespace specview {

enum class Backend : int { Cpu = 0, Custom, Cufft, CustomFast, OpenCl, Gl };
// The backends that run on CUDA (custom, cufft, custom-fast): the device checks, NVDEC, picture slots and interop are
// theirs. OpenCL's and OpenGL compute's transforms run on their own device and hand the spectrum back to the host, as
// FFTW's does.
inline bool cuda_backend(Backend b) { return b == Backend::Custom || b == Backend::Cufft || b == Backend::CustomFast; }
// Pow2: each side to its next power of two; Crop: the centred power-of-two crop; None: the image's own size; Square:
// both sides to the next power of two of the larger (as ImageJ pads), so that a bin is as many cycles/pixel across as
// down and a circle in frequency stays a circle on screen.
enum class PadMode : int { Pow2 = 0, Crop, None, Square };
enum class PadFill : int { Zero = 0, Mean };
enum class Window : int { None = 0, Hann, Hamming, Tukey, Blackman, BlackmanHarris, Kaiser, FlatTop, Welch };
// Separable: w(x) w(y). Radial: w of the distance from the centre, the content's inscribed ellipse at the edge.
enum class WindowShape : int { Separable = 0, Radial };
// What is subtracted before the window: nothing, the content's mean, or its least-squares plane a + bx x + by y.
enum class Level : int { None = 0, Mean, Plane };
enum class Channel : int { Luma = 0, R, G, B, A };
// The viewer's third view when filters are on: the filtered image, what the filters removed (plane - filtered),
// or the size of that difference as a heat map.
enum class LabView : int { Filtered = 0, Removed, Difference };

// A rectangle of the image, in its pixels (x right, y down from the top-left corner): the part whose spectrum is
// taken. Empty (w or h 0): the whole image.
struct Roi {
    int x = 0, y = 0, w = 0, h = 0;
    bool whole() const { return w <= 0 || h <= 0; }
    bool operator==(const Roi& o) const { return x == o.x && y == o.y && w == o.w && h == o.h; }
    bool operator!=(const Roi& o) const { return !(*this == o); }
};
// "X:Y:W:H" (the CLI's --roi) or "none"; "" when read into *roi, else what is wrong.
std::string parse_roi(const std::string& text, Roi* roi);
std::string roi_string(const Roi& r);  // "X:Y:W:H", or "none"

struct Settings {
    Backend backend = Backend::Cpu;
    // --opencl-device P:D, the OpenCL platform and device (-1, -1: the first usable, GPUs first)
    int opencl_platform = -1, opencl_device = -1;
    Roi roi;  // the part of the image transformed (whole by default)
    Channel channel = Channel::Luma;
    Window window = Window::None;
    float tukey_alpha = 0.5f;
    float kaiser_beta = 8.6f;
    WindowShape window_shape = WindowShape::Separable;
    Level level = Level::None;
    PadMode pad = PadMode::Pow2;
    PadFill pad_fill = PadFill::Zero;
    ViewParams view;
    gpu::CustomConfig custom;
    gpu::CufftMode cufft_mode = gpu::CufftMode::R2C;
    gpu::StopPoint stop;  // classroom mode; Done for a normal run
    // The frequency lab: masks that multiply the spectrum the picture shows and the inverse transform takes
    // (app/lab/filter.h); empty: none. Not applied at classroom stops.
    std::vector<FilterSpec> filters;
    // On top of the filters: freehand brush dabs in spectrum bins (mirrored; app/lab/filter.h), and 1 - mask.
    std::vector<BrushStroke> strokes;
    bool mask_invert = false;
    LabView lab_view = LabView::Filtered;
};

// The size of what is transformed: the ROI's where one is set, else the image's.
inline void region_size(const Settings& s, int image_w, int image_h, int* w, int* h) {
    *w = s.roi.whole() ? image_w : s.roi.w;
    *h = s.roi.whole() ? image_h : s.roi.h;
}

// Whether a mask multiplies the spectrum (filters, brush dabs or an inverted all-pass).
inline bool has_mask(const Settings& s) { return !s.filters.empty() || !s.strokes.empty() || s.mask_invert; }

// Names as the CLI and the UI spell them; parse_* return nullopt for an unknown name.
const std::vector<std::string>& backend_names();
const std::vector<std::string>& pad_names();
const std::vector<std::string>& pad_fill_names();
const std::vector<std::string>& window_names();
const std::vector<std::string>& channel_names();
const std::vector<std::string>& view_names();
const std::vector<std::string>& range_names();
const std::vector<std::string>& colormap_names();
const std::vector<std::string>& cufft_mode_names();
const std::vector<std::string>& lab_view_names();
const std::vector<std::string>& window_shape_names();
const std::vector<std::string>& level_names();

// Sets an option named as on the command line without the dashes ("threads-per-block", "window",
// "percentiles", "no-shift", ...) from its value words; also "filter SPEC" (adds a filter, app/lab/filter.h),
// "roi X:Y:W:H|none", "filters none" (removes them all), "paint U V R" / "erase U V R" (a brush dab), "strokes none",
// "invert-mask on|off" and "lab-view filtered|removed|difference". Returns "" when done, else what is wrong (the
// settings are then unchanged).
std::string set_option(Settings& s, const std::string& option, const std::vector<std::string>& values);
// The values a slider or list walks for an option with a fixed set of values (threads-per-block, block-height,
// local-length, tile and the named choices); empty for a continuous one (tukey-alpha, top-span, ...).
std::vector<std::string> option_steps(const std::string& option);

template <class E>
const std::string& name_of(E e);
template <class E>
std::optional<E> parse_name(const std::string& s);

}  // namespace specview
