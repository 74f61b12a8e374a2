// The CPU backend: FFTW (single precision) for the spectrum, the shared view math for the picture. Always
// available; the fallback when there is no GPU.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/core/plane.h"
#include "gpu/common/spectrum_math.h"

namespace specview {

// Threads FFTW uses for plans made from now on (the viewer leaves one core to the UI); <= 0: all cores.
void set_cpu_fft_threads(int threads);
// Plans for sizes without saved wisdom are measured (FFTW_MEASURE: seconds at 4096^2, 25% and more off each
// transform after) and the wisdom saved under the user's cache folder; without it they are estimated. Saved
// wisdom is always used. time_limit_s > 0 bounds the measuring (FFTW's planner time limit: the best plan found
// by then).
void set_cpu_fft_measure(bool measure, double time_limit_s = -1.0);
std::string cpu_fft_wisdom_path();

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

    // In place, without the full spectrum: input(w, h) is the plan's buffer, h rows of stride() floats (the
    // plane's w values first); execute() leaves h rows of w/2+1 complex values there, which half() points at.
    float* input(int width, int height);
    std::size_t stride() const;
    bool measured() const;  // the plan came from FFTW_MEASURE (now or saved wisdom)
    void execute();
    const std::complex<float>* half() const;
    std::complex<float>* half();
    // The inverse of the half spectrum in the buffer (after execute(), perhaps changed, e.g. masked): the real
    // plane, width x height, scaled by 1/(width height) so that an untouched spectrum gives the input back.
    // Consumes the half spectrum (FFTW's complex-to-real transform works in place).
    void inverse(std::vector<float>& out);
    // The full spectrum from the half one (Hermitian symmetry: F[y][x] = conj F[-y][-x]).
    void full(std::vector<std::complex<float>>& out) const;
    // Bin (x, y) of the full spectrum, from the half one.
    std::complex<float> at(int x, int y) const;

private:
    void make_plan(int width, int height);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The post-processing on the CPU, with the formulas the GPU's post kernels use.
void compute_view_values(const std::complex<float>* spectrum, int width, int height, const ViewParams& vp,
                         std::vector<float>& values);
void compute_range(const std::vector<float>& values, const ViewParams& vp, float* lo, float* hi);
void colorize(const std::vector<float>& values, float lo, float hi, Colormap cm, std::vector<std::uint32_t>& rgba);
// A stack's mean power spectrum through the view: |F| = sqrt(sum / frames) for each of the width x height
// (unshifted) bins of `power_sum`, the view's values and their display range.
std::vector<float> mean_power_view_values(const std::vector<double>& power_sum, int frames, int width, int height,
                                          const ViewParams& vp, float* lo, float* hi);

// The k-th smallest of n floats (k from 0), exactly, without a copy: two radix passes over the values' ordered
// bit patterns (what nth_element on a copy gives, in O(1) extra memory).
float kth_smallest(const float* values, std::size_t n, std::size_t k);

// ln y for a finite y > 0, branch-free (vectorisable), within about 2e-7 relative of logf.
float fast_ln(float y);

// The picture straight from a half spectrum (rows of w/2+1 complex values), in `rgba`: the view values are
// computed into it, the range found over them (a percentile range by kth_smallest, no copy), then each is
// turned into its colour in place: 4 bytes a pixel in all, on `threads` threads. Equal to compute_view_values
// + compute_range + colorize on the full spectrum, except that log-magnitude and power use fast_ln (within one
// colormap level of the exact picture; --raw is untouched).
// `format` Level8/Level16: the picture as levels in `levels` instead (1 or 2 bytes a pixel); `rgba` then only
// holds the values while they are needed and is released.
void picture_from_half(const std::complex<float>* half, int width, int height, const ViewParams& vp, int threads,
                       std::vector<std::uint32_t>& rgba, float* lo, float* hi,
                       PictureFormat format = PictureFormat::Rgba8, std::vector<unsigned char>* levels = nullptr);

}  // namespace specview
