// The CPU backend: FFTW (single precision) for the spectrum, the shared view math for the picture. Always
// available; the fallback when there is no GPU.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/core/picture.h"
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
// For other FFTW plans of this process (app/volume): the planner's lock (FFTW's planner is not thread-safe) with
// FFTW's threads initialised, and the threads plans use (set_cpu_fft_threads).
std::unique_lock<std::mutex> lock_fftw_planner();
int cpu_fft_threads();

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

}  // namespace specview
