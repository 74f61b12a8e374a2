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
Profile radial_profile(const std::complex<float>* spectrum, int width, int height, int threads = 1);
// 180 bins of 1 degree: the angle of (u, -v) counter-clockwise from +u folded into [0, 180); at = the bin's
// lower edge.
Profile angular_profile(const std::complex<float>* spectrum, int width, int height, int threads = 1);
// How many radial bins radial_profile uses for a width x height spectrum (bin i at i / max(width, height)).
int radial_bin_count(int width, int height);
// A profile from per-bin sums of |F|^2 / (w h) and counts (what the GPU reduces), as the functions above make it.
Profile profile_from_sums(const std::vector<double>& sum, const std::vector<long long>& count, bool radial, int width,
                          int height);
// The most powerful angular bin's lower edge (degrees); -1 for an empty profile.
double dominant_angle(const Profile& angular);

// The spectrum resampled on a log-polar grid (the log-phi view): angles phi_j = 360 j / n_phi degrees
// (counter-clockwise from +u, up positive) and radii r_i = r0 (r1 / r0)^(i / (n_r - 1)) bins from r0 = 1 to
// r1 = max(width, height) / 2, each at its nearest bin. Returns the unshifted bins (kx, ky), row i (radius) by
// column j (angle).
struct LogPolarGrid {
    int n_phi = 0, n_r = 0;
    double r0 = 1, r1 = 1;  // in bins along the longer axis; a radius of r bins is r / max(w, h) cycles/pixel
    std::vector<int> kx, ky;
};
LogPolarGrid log_polar_grid(int width, int height, int n_phi, int n_r);
// The bins along a line from signed bin (u0, v0) to (u1, v1) (offsets from DC, v down), one per step of the
// longer axis, each rounded to the nearest bin; unshifted (kx, ky) and each point's distance from the start in
// cycles/pixel.
struct LineBins {
    std::vector<int> kx, ky;
    std::vector<double> at;
};
LineBins line_bins(int width, int height, double u0, double v0, double u1, double v1);

// log10(mean_power) = slope log10(f) + intercept, least squares over the radial bins with f_lo <= f <= f_hi and
// some power; points = how many. Throws std::invalid_argument when fewer than 2 bins qualify.
struct PowerLawFit {
    double slope = 0, intercept = 0, f_lo = 0, f_hi = 0;
    int points = 0;
};
PowerLawFit fit_power_law(const Profile& radial, double f_lo, double f_hi);

// Writes "header\n" and a line "at,mean_power,count" a bin. Throws std::runtime_error naming the path.
void write_profile_csv(const std::string& path, const std::string& header, const Profile& p);
// The same with a second column after the first: each bin's `at` divided by `per` (the radial profile in cycles per
// unit, `at` / the pixel size in that unit); the header names it.
void write_profile_csv(const std::string& path, const std::string& header, const Profile& p, double per);

// Where the content of image A moved to in image B (x right, y down, pixels): the peak of the inverse transform
// of the normalised cross-power spectrum B conj(A) / |B conj(A)|, refined to 1/upsample pixel by a matrix DFT
// of the 1.5-pixel neighbourhood (Guizar-Sicairos, Thurman and Fienup 2008). Shifts are taken modulo the size,
// in (-size/2, size/2]. `peak`: the correlation peak's height (1 for a pure shift).
struct ShiftEstimate {
    double dx = 0, dy = 0, peak = 0;
};
// `surface`: when given, the correlation's magnitude over all integer shifts, width x height, shifted so that no
// shift is at (width/2, height/2) (x right, y down: a shift (dx, dy) is at (width/2 + dx, height/2 + dy)).
// `phase` false: plain cross-correlation, B conj(A) / sqrt(sum |A|^2 sum |B|^2) (the peak then is the images'
// normalised correlation, 1 for a pure shift), refined the same way; phase correlation's peak is sharper,
// cross-correlation's weighs the strong frequencies.
ShiftEstimate phase_correlation(const std::complex<float>* a, const std::complex<float>* b, int width, int height,
                                int upsample = 100, int threads = 0, std::vector<float>* surface = nullptr,
                                bool phase = true);

// A correlation surface as 8-bit levels for a heat map: log scale over 4 decades below its maximum (0 for
// what is lower or zero), so that the peak and the structure around it both show.
std::vector<unsigned char> correlation_levels(const std::vector<float>& surface);

}  // namespace specview
