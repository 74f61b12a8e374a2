// The spectrum's display math, shared by the CPU backend and the CUDA post kernels so that both paths
// compute the same picture from the same complex spectrum (pixel for pixel, up to float rounding).
// Everything here is header-only and callable from host and device code.
#pragma once

#include <math.h>  // sqrtf, log1pf, ...: the names device code uses, for host code too

#include <cstdint>

#if defined(__CUDACC__)
#define SV_HD __host__ __device__ __forceinline__
#else
#define SV_HD inline
#endif

namespace specview {

enum class View : int { LogMag = 0, PowerDb, Phase, Real, Imag };
// Auto: min..max of the view. Percentile: the pct_lo..pct_hi percentiles (nearest rank).
// Fixed: fixed_lo..fixed_hi in the view's units (dB for PowerDb). Top: max - top_span .. max, e.g. "the 80 dB
// below the peak" for PowerDb.
enum class RangeMode : int { Auto = 0, Percentile, Fixed, Top };
enum class Colormap : int { Gray = 0, Viridis, Inferno, Magma, Turbo };

struct ViewParams {
    View view = View::LogMag;
    RangeMode range = RangeMode::Auto;
    float pct_lo = 1.0f;
    float pct_hi = 99.9f;
    float fixed_lo = 0.0f;
    float fixed_hi = 1.0f;
    float top_span = 80.0f;
    Colormap colormap = Colormap::Gray;
    bool shift = true;  // fftshift: DC in the centre
};

// |F|^2 below this is shown as this: 10*log10(1e-20) = -200 dB, so an exact zero bin is finite.
constexpr float kPowerFloor = 1e-20f;

// fftshift for any n (odd too, numpy's convention): the shifted picture's index i shows bin
// (i - n/2) mod n, so DC lands at index n/2 (rounded down).
SV_HD int shift_source(int i, int n) {
    int s = i + (n + 1) / 2;
    return s >= n ? s - n : s;
}

// Where unshifted bin k appears after the shift (the inverse of shift_source).
SV_HD int shift_dest(int k, int n) {
    int d = k + n / 2;
    return d >= n ? d - n : d;
}

SV_HD float view_value(View v, float re, float im) {
    switch (v) {
        case View::LogMag:
            return log1pf(sqrtf(re * re + im * im));
        case View::PowerDb:
            return 10.0f * log10f(re * re + im * im + kPowerFloor);
        // The principal value, in (-pi, pi]: a real negative bin is pi whatever the sign of its zero imaginary
        // part (-0 + 0 = +0), which the kernels' and the CPU's arithmetic leave differently.
        case View::Phase:
            return atan2f(im + 0.0f, re);
        case View::Real:
            return re;
        case View::Imag:
            return im;
    }
    return 0.0f;
}

// Value -> [0, 1] within [lo, hi]; a degenerate range (hi <= lo) or NaN maps to 0.
SV_HD float normalize_to_range(float v, float lo, float hi) {
    float span = hi - lo;
    if (!(span > 0.0f)) return 0.0f;
    float t = (v - lo) / span;
    if (!(t > 0.0f)) return 0.0f;  // also catches NaN
    return t < 1.0f ? t : 1.0f;
}

// [0, 1] -> colormap level 0..255.
SV_HD int level_of(float t) { return static_cast<int>(t * 255.0f + 0.5f); }
// [0, 1] -> 16-bit gray level 0..65535 (--depth 16).
SV_HD uint32_t level16_of(float t) { return static_cast<uint32_t>(t * 65535.0f + 0.5f); }

// What a picture is stored as: RGBA8 colours (the viewer's textures), or levels for files: one byte a pixel,
// the colormap level (a PNG writer maps it to RGB, or writes it as gray), or two, a 16-bit gray level.
enum class PictureFormat : int { Rgba8 = 0, Level8, Level16 };
inline int level_bytes(PictureFormat f) { return f == PictureFormat::Level8 ? 1 : f == PictureFormat::Level16 ? 2 : 0; }

// The colormaps as polynomials in t in [0, 1], evaluated once per level into a 256-entry table (host code
// builds it, the GPU gets a copy). Coefficients: viridis, inferno, magma from Matt Zucker's CC0 degree-6 fits
// to matplotlib's data (shadertoy WlfXRN, itself CC0 from BIDS/colormap); turbo from Google's Apache-2.0
// polynomial approximation of the Turbo colormap (Anton Mikhailov, Ruofei Du).
struct Rgb {
    float r, g, b;
};

inline Rgb colormap_rgb(Colormap cm, float t) {
    auto horner7 = [](const double* c, double x) {
        double acc = c[6];
        for (int i = 5; i >= 0; --i) acc = c[i] + x * acc;
        return acc;
    };
    double x = t < 0.0f ? 0.0 : (t > 1.0f ? 1.0 : t);
    switch (cm) {
        case Colormap::Gray:
            return {float(x), float(x), float(x)};
        case Colormap::Viridis: {
            static const double r[7] = {0.2777273272234177, 0.1050930431085774, -0.3308618287255563, -4.634230498983486,
                                        6.228269936347081,  4.776384997670288,  -5.435455855934631};
            static const double g[7] = {0.005407344544966578, 1.404613529898575,  0.214847559468213, -5.799100973351585,
                                        14.17993336680509,    -13.74514537774601, 4.645852612178535};
            static const double b[7] = {0.3340998053353061, 1.384590162594685,  0.09509516302823659, -19.33244095627987,
                                        56.69055260068105,  -65.35303263337234, 26.3124352495832};
            return {float(horner7(r, x)), float(horner7(g, x)), float(horner7(b, x))};
        }
        case Colormap::Inferno: {
            static const double r[7] = {0.0002189403691192265, 0.1065134194856116, 11.60249308247187,
                                        -41.70399613139459,    77.162935699427,    -71.31942824499214,
                                        25.13112622477341};
            static const double g[7] = {0.001651004631001012, 0.5639564367884091, -3.972853965665698, 17.43639888205313,
                                        -33.40235894210092,   32.62606426397723,  -12.24266895238567};
            static const double b[7] = {-0.01948089843709184, 3.932712388889277, -15.9423941062914, 44.35414519872813,
                                        -81.80730925738993,   73.20951985803202, -23.07032500287172};
            return {float(horner7(r, x)), float(horner7(g, x)), float(horner7(b, x))};
        }
        case Colormap::Magma: {
            static const double r[7] = {-0.002136485053939582, 0.2516605407371642, 8.353717279216625,
                                        -27.66873308576866,    52.17613981234068,  -50.76852536473588,
                                        18.65570506591883};
            static const double g[7] = {-0.000749655052795221, 0.6775232436837668, -3.577719514958484,
                                        14.26473078096533,     -27.94360607168351, 29.04658282127291,
                                        -11.48977351997711};
            static const double b[7] = {-0.005386127855323933, 2.494026599312351, 0.3144679030132573,
                                        -13.64921318813922,    12.94416944238394, 4.23415299384598,
                                        -5.601961508734096};
            return {float(horner7(r, x)), float(horner7(g, x)), float(horner7(b, x))};
        }
        case Colormap::Turbo: {
            // Degree 5; padded with a zero x^6 term.
            static const double r[7] = {0.13572138,    4.61539260,  -42.66032258, 132.13108234,
                                        -152.94239396, 59.28637943, 0.0};
            static const double g[7] = {0.09140261, 2.19418839, 4.84296658, -14.18503333, 4.27729857, 2.82956604, 0.0};
            static const double b[7] = {0.10667330,   12.64194608, -60.58204836, 110.36276771,
                                        -89.90310912, 27.34824973, 0.0};
            return {float(horner7(r, x)), float(horner7(g, x)), float(horner7(b, x))};
        }
    }
    return {0.0f, 0.0f, 0.0f};
}

// RGBA8 packed little-endian (R in the low byte), alpha 255: the byte order of a GL_RGBA8 texture row.
inline uint32_t pack_rgba(Rgb c) {
    auto q = [](float v) -> uint32_t {
        float s = v * 255.0f + 0.5f;
        return s <= 0.0f ? 0u : (s >= 255.0f ? 255u : static_cast<uint32_t>(s));
    };
    return q(c.r) | (q(c.g) << 8) | (q(c.b) << 16) | (255u << 24);
}

// The 256-entry table both paths index with level_of(normalize_to_range(value, lo, hi)).
struct ColormapLut {
    uint32_t rgba[256];
};

inline ColormapLut make_colormap_lut(Colormap cm) {
    ColormapLut lut{};
    for (int i = 0; i < 256; ++i) lut.rgba[i] = pack_rgba(colormap_rgb(cm, i / 255.0f));
    return lut;
}

// The level (0..255) whose colour a picture pixel has, or -1 if it is none of the table's: for comparing two
// pictures of one colormap level by level.
inline int level_of_pixel(const ColormapLut& lut, uint32_t px) {
    for (int i = 0; i < 256; ++i)
        if (lut.rgba[i] == px) return i;
    return -1;
}

// Largest level difference between two pictures of the same colormap (a pixel outside the table counts as
// 256 levels off).
inline int max_level_difference(const uint32_t* a, const uint32_t* b, long long n, Colormap cm) {
    const ColormapLut lut = make_colormap_lut(cm);
    int worst = 0;
    for (long long i = 0; i < n; ++i) {
        if (a[i] == b[i]) continue;
        const int la = level_of_pixel(lut, a[i]), lb = level_of_pixel(lut, b[i]);
        const int d = (la < 0 || lb < 0) ? 256 : (la > lb ? la - lb : lb - la);
        worst = d > worst ? d : worst;
    }
    return worst;
}

// Nearest-rank index of percentile p (0..100) in n sorted values; the same formula on both paths.
inline long long percentile_index(double p, long long n) {
    if (n <= 0) return 0;
    double pos = p / 100.0 * double(n - 1) + 0.5;
    long long k = static_cast<long long>(pos);
    return k < 0 ? 0 : (k >= n ? n - 1 : k);
}

}  // namespace specview
