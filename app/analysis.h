// The frequency lab's measurements on a full complex spectrum (unshifted, width x height, as Frame::spectrum
// holds it): the radially averaged power spectrum with a power-law fit, the angular profile, and the shift
// between two images by phase correlation with sub-pixel refinement.
#pragma once

#include <complex>
#include <string>
#include <vector>

namespace specview {

// One value a bin: `at` is the bin's frequency (cycles/pixel) or angle (degrees), mean_power the mean of
// |F|^2 / (width height) over the spectrum bins that fall in it, count how many did. DC is left out.
struct Profile {
    std::vector<double> at, mean_power;
    std::vector<long long> count;
};

// Radial bins of width d = 1/max(width, height): bin i holds the bins whose radius r = sqrt(u^2 + v^2) rounds
// to i d (at = i d), i >= 1; u, v as numpy.fft.fftfreq gives them.
Profile radial_profile(const std::complex<float>* spectrum, int width, int height);
// 180 bins of 1 degree: the angle of (u, -v) counter-clockwise from +u folded into [0, 180); at = the bin's
// lower edge.
Profile angular_profile(const std::complex<float>* spectrum, int width, int height);

// log10(mean_power) = slope log10(f) + intercept, least squares over the radial bins with f_lo <= f <= f_hi and
// some power; points = how many. Throws std::invalid_argument when fewer than 2 bins qualify.
struct PowerLawFit {
    double slope = 0, intercept = 0, f_lo = 0, f_hi = 0;
    int points = 0;
};
PowerLawFit fit_power_law(const Profile& radial, double f_lo, double f_hi);

// Writes "header\n" and a line "at,mean_power,count" a bin. Throws std::runtime_error naming the path.
void write_profile_csv(const std::string& path, const std::string& header, const Profile& p);

// Where the content of image A moved to in image B (x right, y down, pixels): the peak of the inverse transform
// of the normalised cross-power spectrum B conj(A) / |B conj(A)|, refined to 1/upsample pixel by a matrix DFT
// of the 1.5-pixel neighbourhood (Guizar-Sicairos, Thurman and Fienup 2008). Shifts are taken modulo the size,
// in (-size/2, size/2]. `peak`: the correlation peak's height (1 for a pure shift).
struct ShiftEstimate {
    double dx = 0, dy = 0, peak = 0;
};
ShiftEstimate phase_correlation(const std::complex<float>* a, const std::complex<float>* b, int width, int height,
                                int upsample = 100, int threads = 0);

}  // namespace specview
