// Seed 001's FFT pipeline in OpenCL (issue 62): row FFT -> transpose -> row FFT -> transpose, the kernels in
// seed_fft.cl, on any OpenCL platform and device the Khronos ICD loader finds (PoCL on the CPU, NVIDIA's OpenCL on
// the H100, AMD's, Intel's). No OpenCL header here: app/ includes this without them.
#pragma once

#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "gpu/common/config.h"
#include "gpu/common/seed_checks.h"
#include "gpu/common/spectrum_math.h"

namespace specview::gpu {

// One OpenCL device as the ICD loader lists it: its platform and device indices (--opencl-device P:D), names, and
// whether it can run the pipeline (a device without float2 local memory of a row's size, a platform whose
// compiler is missing) with the reason.
struct OpenClDeviceInfo {
    int platform = -1, device = -1;
    std::string platform_name, name, version;  // version: the device's "OpenCL 3.0 CUDA", "OpenCL 3.0 PoCL ..."
    bool gpu = false;                          // CL_DEVICE_TYPE_GPU
    bool gl_sharing = false;                   // offers cl_khr_gl_sharing (CL images of GL textures)
    std::size_t max_work_group = 0, local_memory = 0, global_memory = 0;
    bool usable = false;
    std::string why;  // why not, when not usable
};

// Every platform's devices, in the loader's order; empty when there is no loader or no platform (then `why` says
// which, when given).
std::vector<OpenClDeviceInfo> list_opencl_devices(std::string* why = nullptr);

using OpenClFftConfig = SeedConfig;  // (gpu/common/seed_checks.h)

// One pass's time from the queue's profiling events.
struct OpenClPassTime {
    std::string what;
    double ms = 0;
    double bytes = 0;  // read + written in device memory by its kernels (0 for the copies to and from the host)
};

class OpenClFft {
public:
    // The device (platform p, device d of list_opencl_devices; -1, -1: the first usable, GPUs first): its context,
    // queue and the program built for it. Throws GpuUnavailable naming the reason.
    OpenClFft(int platform = -1, int device = -1);
    ~OpenClFft();
    OpenClFft(const OpenClFft&) = delete;
    OpenClFft& operator=(const OpenClFft&) = delete;
    const OpenClDeviceInfo& device() const;
    std::string describe() const;  // "OpenCL seed pipeline (device, platform)"
    // What a size needs made now (its twiddles); its milliseconds (0: made already).
    double prepare(int width, int height, const OpenClFftConfig& c);

    // Why this size and configuration cannot run here (sides not powers of two: the kernels are radix 2; a work-group
    // or tile over the device's limits), or "" when it can.
    std::string check(int width, int height, const OpenClFftConfig& c) const;
    // The full complex spectrum (height x width, row-major, unshifted, unnormalised: numpy's fft2) of the real plane
    // `plane` (height x width floats), into `out`; each pass's time in *times when given. Throws ConfigError (check's
    // reason) or GpuError (an OpenCL call failed, naming it and the error). `out` null: the spectrum stays on the
    // device (kept() until the next run) for picture(), bins() and spectrum().
    // `stride`: floats from one row of `plane` to the next (0: width; FFTW's in-place buffer is padded).
    void forward(const float* plane, int width, int height, const OpenClFftConfig& c, std::complex<float>* out,
                 std::vector<OpenClPassTime>* times = nullptr, int stride = 0);
    // Classroom: the pipeline stopped at `stop` (after k butterfly stages of a row pass, after a transpose), the data
    // as it lies there in *out, *rows x *cols (width x height after one transpose): what app/engine/staged_fft.h's
    // model and the CUDA custom kernels show at the same stop. Throws ConfigError for a stage outside the pass.
    void forward_until(const float* plane, int width, int height, const OpenClFftConfig& c, const StopPoint& stop,
                       std::vector<std::complex<float>>& out, int* rows, int* cols,
                       std::vector<OpenClPassTime>* times = nullptr);

    bool kept() const;
    // The kept spectrum's picture, made in kernels (gpu/opencl/spectrum_view.cl) as GlFft::picture makes it: the
    // view's values, the exact range, the colormap; only the picture comes back (4, 2 or 1 bytes a pixel) into `out`.
    void picture(const ViewParams& vp, PictureFormat format, void* out, float* lo, float* hi,
                 std::vector<OpenClPassTime>* times = nullptr);
    // Bins (x[i], y[i]) of the kept spectrum, or all of it (height x width).
    void bins(const int* x, const int* y, std::size_t n, std::complex<float>* out);
    void spectrum(std::complex<float>* out);

private:
    void run(const float* plane, int stride, int width, int height, const OpenClFftConfig& c, const StopPoint* stop,
             std::complex<float>* out, int* rows, int* cols, std::vector<OpenClPassTime>* times);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace specview::gpu
