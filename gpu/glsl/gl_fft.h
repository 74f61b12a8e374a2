// Seed 001's FFT pipeline in OpenGL 4.3 compute shaders (issue 62): row FFT -> transpose -> row FFT -> transpose,
// the OpenCL kernels' algorithm (gpu/opencl/seed_fft.cl) in GLSL, on a headless context of its own: EGL's device
// platform (a GPU's driver, NVIDIA's on the GPU machine) or Mesa's surfaceless one (llvmpipe without a GPU). No GL or
// EGL header here: app/ includes this without them.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/common/config.h"
#include "gpu/common/gl_context.h"
#include "gpu/common/plane_shape.h"
#include "gpu/common/seed_checks.h"
#include "gpu/common/spectrum_math.h"

namespace specview::gpu {

// The knobs, as OpenCL's (gpu/common/seed_checks.h); a program is compiled per (local length, H) and per tile once and
// kept.
using GlFftConfig = SeedConfig;

struct GlPassTime {
    std::string what;
    double ms = 0;  // GL timer queries
    double bytes = 0;
};

class GlFft {
public:
    // A 4.3+ core context with compute shaders, headless. Throws GpuUnavailable with the reason (no EGL, no driver
    // offering 4.3, ...).
    GlFft();
    // In a context another thread's shares (the viewer's: ui/platform), current on the calling thread when it runs.
    // Throws GpuUnavailable when it cannot be made current or lacks 4.3's entry points.
    explicit GlFft(std::shared_ptr<GlSharedContext> shared);
    ~GlFft();
    GlFft(const GlFft&) = delete;
    GlFft& operator=(const GlFft&) = delete;
    std::string renderer() const;  // "llvmpipe (LLVM 15.0.6, 256 bits), OpenGL 4.5 (Core Profile) Mesa 22.3.6"
    std::string describe() const;  // "OpenGL compute seed pipeline (renderer)"
    bool software() const;         // a software renderer (llvmpipe, softpipe, swrast)

    // Why this size and configuration cannot run here (radix 2, the context's compute limits), or "".
    std::string check(int width, int height, const GlFftConfig& c) const;
    // Compiles the programs this size and configuration runs (and its twiddles) now; the milliseconds it took (0:
    // there already). forward() compiles what is missing itself.
    double prepare(int width, int height, const GlFftConfig& c);
    // The full complex spectrum (height x width, unshifted, unnormalised) of the real plane, into `out`; each pass's
    // time in *times. Throws ConfigError (check's reason) or GpuError (a GL error, a shader that does not compile).
    // `out` null: the spectrum stays on the device (kept() until the next run), for picture(), bins(), spectrum().
    // `stride`: floats from one row of `plane` to the next (0: width; FFTW's in-place buffer is padded).
    void forward(const float* plane, int width, int height, const GlFftConfig& c, std::complex<float>* out,
                 std::vector<GlPassTime>* times = nullptr, int stride = 0);
    // The same from the image's samples (uploaded once an image: kept while r.image_version holds), the plane made in
    // a shader as app/core/plane.cpp makes it (channel, levelling, window, crop and zero padding): a settings change
    // sends only the window's values. recipe_error() says what it cannot make ("": it can; the mean fill, samples
    // not on the host).
    static std::string recipe_error(const PlaneRecipe& r);
    void forward_recipe(const PlaneRecipe& r, const GlFftConfig& c, std::complex<float>* out,
                        std::vector<GlPassTime>* times = nullptr);
    // Classroom: stopped at `stop`, the data as it lies there (*rows x *cols), as OpenCL's forward_until.
    void forward_until(const float* plane, int width, int height, const GlFftConfig& c, const StopPoint& stop,
                       std::vector<std::complex<float>>& out, int* rows, int* cols,
                       std::vector<GlPassTime>* times = nullptr);

    bool kept() const;  // the last forward() left its spectrum on the device
    int kept_width() const;
    int kept_height() const;
    // The kept spectrum's picture, made in shaders (gpu/glsl/spectrum_view.glsl): the view's values, its range (exact:
    // Percentile ranks as app/core/picture.cpp's kth_smallest finds them), the colormap; only the picture comes back,
    // width x height into `out`: RGBA8 colours (4 bytes a pixel), 8-bit colormap levels or 16-bit gray levels.
    void picture(const ViewParams& vp, PictureFormat format, void* out, float* lo, float* hi,
                 std::vector<GlPassTime>* times = nullptr);
    // The same picture into picture slot `slot` (0..2): an RGBA8 texture of the kept spectrum's size, of this context's
    // share group, written by imageStore. `wait` (a GLsync the slot's last reader left, or 0) is waited for on the
    // device before the slot is written, then deleted. Returns the texture; *ready gets a GLsync (flushed) that is
    // signalled once the picture is in it, for the reader to wait on (and delete).
    unsigned picture_to_slot(const ViewParams& vp, int slot, std::uint64_t wait, std::uint64_t* ready, float* lo,
                             float* hi, std::vector<GlPassTime>* times = nullptr);
    bool shares_context() const;  // made with a GlSharedContext (picture_to_slot's textures are the viewer's to read)
    // The compiled programs kept on disk (GL_ARB_get_program_binary): the directory ("" where the driver offers no
    // binary format, or SPECVIEW_NO_GL_CACHE is set), and how many programs came from there and from source.
    std::string program_cache() const;
    int programs_loaded() const;
    int programs_compiled() const;
    // Bins (x[i], y[i]) of the kept spectrum, or all of it (height x width).
    void bins(const int* x, const int* y, std::size_t n, std::complex<float>* out);
    void spectrum(std::complex<float>* out);

private:
    void view_and_range(const ViewParams& vp, float* lo, float* hi);
    void run(const float* plane, const PlaneRecipe* recipe, int stride, int width, int height, const GlFftConfig& c,
             const StopPoint* stop,
             std::complex<float>* out, int* rows, int* cols, std::vector<GlPassTime>* times);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace specview::gpu
