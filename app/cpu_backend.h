// The CPU backend: FFTW (single precision) for the spectrum, the shared view math for the picture. Always
// available; the fallback when there is no GPU.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "app/plane.h"
#include "gpu/spectrum_math.h"

namespace specview {

// Threads FFTW uses for plans made from now on (the viewer leaves one core to the UI); <= 0: all cores.
void set_cpu_fft_threads(int threads);

class CpuFft {
public:
    CpuFft();
    ~CpuFft();
    CpuFft(const CpuFft&) = delete;
    CpuFft& operator=(const CpuFft&) = delete;
    // The full complex spectrum of a real plane (unshifted, unnormalised: F[k] = sum f[n] e^{-2 pi i k n / N}),
    // through a real-to-complex plan (cached per size) and the Hermitian symmetry for the other half.
    void forward(const Plane& in, std::vector<std::complex<float>>& out);
    // Makes the plan for a width x height transform now; returns its milliseconds (0: made already).
    double plan(int width, int height);

private:
    void make_plan(int width, int height);
    void finish(std::vector<std::complex<float>>& out, int w, int h, int hw);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The post-processing on the CPU, with the formulas the GPU's post kernels use.
void compute_view_values(const std::complex<float>* spectrum, int width, int height, const ViewParams& vp,
                         std::vector<float>& values);
void compute_range(const std::vector<float>& values, const ViewParams& vp, float* lo, float* hi);
void colorize(const std::vector<float>& values, float lo, float hi, Colormap cm, std::vector<std::uint32_t>& rgba);

}  // namespace specview
