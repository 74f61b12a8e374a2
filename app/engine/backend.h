// One interface for every way of turning the plane into a picture, as cuFFT (plan / exec) and VkFFT
// (initialize / append) separate them: plan() builds what runs at this size and configuration reuse (FFTW plans;
// cuFFT plans, scratch, kernel modules on the GPU) and says how long that took; run() makes the picture;
// read_value() reads back one value of the data behind it. The Engine owns the image and the plane's identity
// and picks the backend; it has no CPU/GPU branch of its own.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "app/engine/engine.h"
#include "app/core/image.h"
#include "app/core/plane.h"
#include "app/core/settings.h"
#include "gpu/common/config.h"
#include "gpu/common/gl_context.h"
#include "gpu/plane/plane_prep.h"

namespace specview {

// What a backend gets for a run: the image, the plane's identity (a version that changes with the settings that
// shape it), and the host plane on request (made on the CPU then, with its time).
struct PlaneContext {
    const Image* image = nullptr;
    std::uint64_t image_version = 0;
    std::uint64_t plane_version = 0;
    std::function<const PreparedPlane&(double* ms)> host_plane;
    // The host plane for these settings is made already (host_plane costs nothing): a CPU run copies it; else it
    // makes the plane straight into FFTW's buffer and keeps none (Engine::prepared makes it when it is asked for).
    bool host_plane_cached = false;
    std::string name;  // the image's, for errors
};

class SpectrumBackend {
public:
    virtual ~SpectrumBackend() = default;
    // Milliseconds spent building the plan; 0 when it was built already.
    virtual double plan(const PlaneContext& ctx, const Settings& s) = 0;
    // The same before the image is there, for a plane of plane_w x plane_h (no classroom stop): what the run
    // will need is built (a GPU backend warms it up on a zero plane), so that a run of an image of that size
    // computes once.
    virtual double plan_size(const Settings& s, int plane_w, int plane_h) = 0;
    virtual Frame run(const PlaneContext& ctx, const Settings& s, const RunOptions& o) = 0;
    // The value behind data element (x, y) of the last run (unshifted data coordinates).
    virtual std::complex<double> read_value(const Settings& s, int x, int y) = 0;
    // The radial and angular power profiles of the last run's unmasked spectrum (a run to the end, no classroom
    // stop; throws gpu::ConfigError otherwise), with the time they took.
    virtual PowerProfiles power_profiles(const Settings& s) = 0;
    // The power sum of runs with RunOptions::accumulate_power (see Engine::take_power_sum).
    virtual int take_power_sum(std::vector<double>& sum, int* width, int* height) = 0;
    // Unmasked spectrum values of the last run at unshifted bins (kx[i], ky[i]).
    virtual std::vector<std::complex<float>> spectrum_bins(const Settings& s, const std::vector<int>& kx,
                                                           const std::vector<int>& ky) = 0;
};

// How the device makes the plane for these settings from the image (gpu/plane/plane_prep.h), with the window's values
// when `with_window` (they are needed only when the device makes a new plane).
gpu::PlaneRecipe plane_recipe(const Image& img, const Settings& s, std::uint64_t image_version, bool with_window);

std::unique_ptr<SpectrumBackend> make_cpu_backend();
// The CPU backend with its transform on an OpenCL device (gpu/opencl: the seed's radix-2 pipeline): the plane goes up,
// the spectrum comes back into FFTW's buffer, and the picture, readouts and lab are the CPU backend's; classroom stops
// are the CPU model's. Platform and device as list_opencl_devices numbers them (-1, -1: the first usable, GPUs first).
// Throws gpu::GpuUnavailable (no OpenCL here, no such device, a program that does not build) with the reason.
std::unique_ptr<SpectrumBackend> make_opencl_backend(int platform, int device);
// The same with the transform in OpenGL 4.3 compute shaders (gpu/glsl) on a headless context of its own, or (`shared`)
// in the viewer's share group, where a run with a picture slot leaves its picture in a texture the viewer reads.
std::unique_ptr<SpectrumBackend> make_gl_backend(std::shared_ptr<gpu::GlSharedContext> shared = nullptr);
// Throws gpu::GpuUnavailable when `dev` is not usable.
std::unique_ptr<SpectrumBackend> make_gpu_backend(const gpu::DeviceInfo& dev);
// The custom kernels' resources at a size and configuration (Device panel); needs the GPU backend.
std::vector<gpu::KernelResources> gpu_custom_resources(SpectrumBackend& gpu_backend, int w, int h,
                                                       const gpu::CustomConfig& c);

}  // namespace specview
