// A volume's 3D FFT on the GPU (issue 61), behind a CUDA-free interface: the host's shaped volume in FFTW's in-place
// r2c layout goes up, is transformed by cuFFT's 3D plans (R2C in place, or C2C), by custom-fast's 3D R2C in place or
// by the seed's 3D pipeline (gpu/custom/pipeline_3d.h), and its half spectrum comes back into the same buffer — what fftwf_plan_dft_r2c_3d
// in place leaves there — so every view of app/volume works on it unchanged.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/common/config.h"
#include "gpu/common/errors.h"
#include "gpu/common/spectrum_math.h"  // View

namespace specview::gpu {

// Fast: custom-fast's 3D R2C (gpu/fast/fft_fast.h, in place) where its sizes allow (powers of two, 2 to 4096 a
// side), else cuFFT's R2C, said in VolumeRun::what.
enum class VolumePath : int { Cufft = 0, Custom, Fast };

struct VolumeRequest {
    VolumePath path = VolumePath::Cufft;
    CufftMode cufft_mode = CufftMode::R2C;
    CustomConfig custom;  // with the seed's hypotheses as switches (custom.merge_final_transposes: section 5.1.2)
};

struct VolumeRun {
    std::vector<KernelTiming> stages;  // every pass in order, the copies included (device time, events)
    double transform_ms = 0;           // the passes of the transform alone
    double copy_ms = 0;                // up and down (and the real -> complex expansion where there is one)
    double frames_ms = 0;              // the frames' path: host time in frame() (their uploads and kernels queued)
    std::string what;                  // "cuFFT R2C 3D (in place) on NVIDIA H100 ..."
};

// The frames' path: the transform's size, the content (cw x ch x cd voxels at the volume's corner, rows 2 (W/2 + 1)
// floats apart as FFTW's in-place buffer lays them), and where the content starts in each frame.
struct VolumeContent {
    int W = 0, H = 0, D = 0;
    int cw = 0, ch = 0, cd = 0;
    int crop_x = 0, crop_y = 0;
};
// One frame's samples as decoded, in host memory: interleaved, 8/16-bit unsigned or float.
struct VolumeFrame {
    const void* samples = nullptr;
    int bit_depth = 8, width = 0, height = 0, channels = 1;
};
// The shaping app/volume computes from the frames' sums: the levelling plane a + bx (x - xc) + by (y - yc) +
// bz (z - zc), the separable window's values per axis (cw, ch, cd of them) or the spherical window's table
// (kVolumeSphereTable), and whether the padding takes the shaped content's mean (else zero).
struct VolumeShapeParams {
    double a = 0, bx = 0, by = 0, bz = 0;
    bool radial = false;
    std::vector<double> wx, wy, wz, table;
    bool fill_mean = false;
};

class VolumeEngine {
public:
    // Throws GpuUnavailable when there is no usable device.
    explicit VolumeEngine(int device = 0);
    ~VolumeEngine();
    VolumeEngine(const VolumeEngine&) = delete;
    VolumeEngine& operator=(const VolumeEngine&) = delete;

    const DeviceInfo& device() const;
    // Throws ConfigError where the request cannot run at W x H x D (custom: not powers of two; a knob the device
    // refuses). Needs no device memory.
    void check(const VolumeRequest& r, int W, int H, int D) const;
    // Device bytes a run at W x H x D needs: the buffers and cuFFT's workspace (its estimate).
    static double device_bytes(const VolumeRequest& r, int W, int H, int D);
    // `host`: depth x height rows of 2 (W/2 + 1) floats, the first W of each the shaped volume. Afterwards: depth x
    // height rows of W/2 + 1 complex bins, unnormalised, as FFTW's in-place r2c leaves them. Plans and buffers are
    // kept for the next run of the same size. Throws ConfigError, GpuError (out of memory among them).
    // `keep`: the half spectrum stays on the device instead (`host` keeps the shaped volume): what is shown of it is
    // made there (below), and it comes down only when download_half asks, until the next run.
    VolumeRun r2c_in_place(float* host, int W, int H, int D, const VolumeRequest& r, bool keep = false);

    // The volume made on the device from its frames instead of a host buffer: frames_begin (buffers for the request at
    // the content's size), frame() for each content slab z (its samples go up and its channel into the slab; nothing
    // waits), frame_sums (each slab's sum v, sum (x - xc) v, sum (y - yc) v, as app/volume adds them, cd of each), then
    // shape_and_transform (the levelling, the window, the fill, the transform; the spectrum kept on the device where
    // `keep`). Throws ConfigError for inconsistent content, frames or windows; GpuError.
    // `frames_key` (0: none) names the frames' contents as the caller knows them: frames sent with a key stay on the
    // device where its free memory allows (their raw samples, cd frames), and the next frames_begin with the same key
    // and content takes them from there - frame() then sends nothing (a knob change re-shapes a 512^3 volume without
    // its 256 MiB going up again). The same key must mean the same samples.
    void frames_begin(const VolumeRequest& r, const VolumeContent& c, std::uint64_t frames_key = 0);
    // Whether frame() took (or, before any frame, will take) the samples from the device this time.
    bool frames_resident() const;
    void frame(const VolumeFrame& f, int channel, int z);
    void frame_sums(double* sum, double* sum_x, double* sum_y);
    VolumeRun shape_and_transform(const VolumeShapeParams& p, bool keep = true);

    // The run a spectrum kept on the device belongs to (0: none kept); the calls below throw std::logic_error when
    // asked for another run's spectrum (the buffer holds the next one, or none).
    std::uint64_t kept() const;
    void download_half(std::uint64_t run, std::complex<float>* host);  // packed rows of W/2 + 1 bins
    // gpu/picture/volume_view.h's views of the kept spectrum (axis 0 x, 1 y, 2 z).
    std::vector<float> slice(std::uint64_t run, int axis, int k, View view, bool shift, int rows, int cols,
                             std::vector<std::complex<float>>* bins = nullptr);
    std::vector<float> projection(std::uint64_t run, int axis, bool max, View view, bool shift, int rows, int cols);
    std::vector<float> lattice(std::uint64_t run, View view, int step, int nx, int ny, int nz);
    void sample_range(std::uint64_t run, const ViewParams& vp, int step, int nx, int ny, int nz, bool planes, float* lo,
                      float* hi);
    void shell(std::uint64_t run, double sx, double sy, double sz, double m, double norm, int bins, double* sums,
               long long* counts);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace specview::gpu
