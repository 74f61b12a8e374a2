// The frequency lab's reference, written from the formulas independently of gpu/common/mask_math.h: the mask
// of --filter specs at a bin, and ifft2(fft2(plane) * mask) in double precision (FFTW).
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "app/lab/filter.h"
#include "app/core/settings.h"
#include "tests/support/oracle.h"

namespace specview::test {

struct RefFilter {
    std::string kind;  // lowpass, highpass, bandpass, bandstop, notch, wedge, stripe
    std::string edge;  // ideal, gauss, butterworth
    int n = 1;
    double a = 0, b = 0, c = 0;  // R | R1 R2 | U V R | ANGLE HALF-or-WIDTH RMIN
};

inline double ref_fftfreq(int k, int n) { return (k <= (n - 1) / 2 ? k : k - n) / double(n); }

inline double ref_lowpass(const RefFilter& f, double r, double R) {
    if (f.edge == "gauss") return std::exp(-r * r / (2 * R * R));
    if (f.edge == "butterworth") return 1.0 / (1.0 + std::pow(r / R, 2.0 * f.n));
    return r <= R ? 1.0 : 0.0;
}
inline double ref_highpass(const RefFilter& f, double r, double R) {
    if (f.edge == "gauss") return 1.0 - std::exp(-r * r / (2 * R * R));
    if (f.edge == "butterworth") return r == 0 ? 0.0 : 1.0 / (1.0 + std::pow(R / r, 2.0 * f.n));
    return r > R ? 1.0 : 0.0;
}
inline double ref_filter(const RefFilter& f, double u, double v) {
    const double r = std::hypot(u, v);
    if (f.kind == "lowpass") return ref_lowpass(f, r, f.a);
    if (f.kind == "highpass") return ref_highpass(f, r, f.a);
    if (f.kind == "bandpass") return ref_highpass(f, r, f.a) * ref_lowpass(f, r, f.b);
    if (f.kind == "bandstop") return 1.0 - ref_highpass(f, r, f.a) * ref_lowpass(f, r, f.b);
    if (f.kind == "wedge" || f.kind == "stripe") {
        if (r <= f.c) return 1.0;
        double removed;
        if (f.kind == "wedge") {
            // How far the direction of (u, -v) is from ANGLE, modulo 180 degrees (a line has two directions).
            const double theta = std::atan2(-v, u) * 180.0 / M_PI;
            const double d = std::abs(std::remainder(theta - f.a, 180.0));
            removed = ref_lowpass(f, d, f.b);
        } else {
            // Distance from (u, -v) to the line through 0 along (cos ANGLE, sin ANGLE): a 2D cross product.
            const double t = f.a * M_PI / 180.0;
            const double d = std::abs(u * std::sin(t) - (-v) * std::cos(t));
            removed = ref_lowpass(f, d, f.b / 2);
        }
        return 1.0 - removed;
    }
    // notch: discs around (U, V) and (-U, -V)
    const double d1 = std::hypot(u - f.a, v - f.b), d2 = std::hypot(u + f.a, v + f.b);
    return std::clamp(1.0 - (ref_lowpass(f, d1, f.c) + ref_lowpass(f, d2, f.c)), 0.0, 1.0);
}
// At an even size's Nyquist bin the frequency's sign is chosen so that bin -k has frequency -f(k) (README).
inline double ref_mask(const std::vector<RefFilter>& fs, int kx, int ky, int w, int h) {
    double u = ref_fftfreq(kx, w), v = ref_fftfreq(ky, h);
    const bool nu = w % 2 == 0 && kx == w / 2, nv = h % 2 == 0 && ky == h / 2;
    if (nu && !nv) u = v > 0 ? -0.5 : 0.5;
    if (nv && !nu) v = u > 0 ? -0.5 : 0.5;
    double m = 1;
    for (const auto& f : fs) m *= ref_filter(f, u, v);
    return m;
}

// The brush layer at a bin: the last dab whose disc, or its mirror, covers the bin's signed index decides (paint
// 0, erase 1); none: 1. Signed indices with the same Nyquist rule as the frequencies.
struct RefDab {
    double u, v, r;
    bool erase;
};
inline double ref_paint(const std::vector<RefDab>& dabs, int kx, int ky, int w, int h) {
    double u = ref_fftfreq(kx, w) * w, v = ref_fftfreq(ky, h) * h;
    const bool nu = w % 2 == 0 && kx == w / 2, nv = h % 2 == 0 && ky == h / 2;
    if (nu && !nv) u = v > 0 ? -w / 2 : w / 2;
    if (nv && !nu) v = u > 0 ? -h / 2 : h / 2;
    u = std::round(u);
    v = std::round(v);
    for (auto it = dabs.rbegin(); it != dabs.rend(); ++it)
        if (std::hypot(u - it->u, v - it->v) <= it->r || std::hypot(u + it->u, v + it->v) <= it->r)
            return it->erase ? 1.0 : 0.0;
    return 1.0;
}

// ifft2(fft2(plane) * mask) / (w h), complex (the imaginary part shows whether the mask kept it real).
inline std::vector<cd> ref_filtered(const std::vector<float>& plane, int w, int h, const std::vector<RefFilter>& fs) {
    std::vector<cd> F = dft2d(widen(plane), h, w);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) F[std::size_t(y) * w + x] *= ref_mask(fs, x, y, w, h);
    std::vector<cd> out = dft2d(F, h, w, true);
    for (auto& c : out) c /= double(w) * h;
    return out;
}

// The same for any mask given bin by bin (mask(kx, ky)).
template <class MaskAt>
std::vector<cd> ref_filtered_by(const std::vector<float>& plane, int w, int h, MaskAt mask) {
    std::vector<cd> F = dft2d(widen(plane), h, w);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) F[std::size_t(y) * w + x] *= mask(x, y);
    std::vector<cd> out = dft2d(F, h, w, true);
    for (auto& c : out) c /= double(w) * h;
    return out;
}

// Random brush dabs in bins over a w x h spectrum (some reaching past the Nyquist edges, some erasing).
inline std::vector<RefDab> random_dabs(Rng& rng, int w, int h, int count) {
    std::vector<RefDab> out;
    std::uniform_real_distribution<double> pos(-0.55, 0.55), size(0.0, 0.15);
    for (int i = 0; i < count; ++i) {
        const double u = std::floor(pos(rng.engine()) * w), v = std::floor(pos(rng.engine()) * h);
        const double r = 0.5 + std::floor(size(rng.engine()) * std::max(w, h));
        out.push_back({u, v, r, i % 4 == 3});
    }
    return out;
}
inline std::vector<BrushStroke> to_strokes(const std::vector<RefDab>& dabs) {
    std::vector<BrushStroke> out;
    for (const RefDab& d : dabs) out.push_back(BrushStroke{d.u, d.v, d.r, d.erase ? 1 : 0});
    return out;
}

// Every filter kind with every edge, as --filter spells it and as the reference has it.
struct LabCase {
    std::string spec;
    RefFilter ref;
};
inline std::vector<LabCase> lab_cases() {
    std::vector<LabCase> out;
    const std::vector<std::pair<std::string, RefFilter>> edges = {
        {"", {"", "ideal", 1}}, {",gauss", {"", "gauss", 1}}, {",butterworth:3", {"", "butterworth", 3}}};
    for (const auto& edge : edges) {
        const std::string& suffix = edge.first;
        const RefFilter& e = edge.second;
        auto add = [&](const std::string& spec, const std::string& kind, double a, double b, double c) {
            RefFilter r = e;
            r.kind = kind;
            r.a = a;
            r.b = b;
            r.c = c;
            out.push_back({spec + suffix, r});
        };
        add("lowpass:0.1", "lowpass", 0.1, 0, 0);
        add("highpass:0.15", "highpass", 0.15, 0, 0);
        add("bandpass:0.05:0.2", "bandpass", 0.05, 0.2, 0);
        add("bandstop:0.05:0.2", "bandstop", 0.05, 0.2, 0);
        add("notch:0.2:-0.125:0.04", "notch", 0.2, -0.125, 0.04);
        add("wedge:30:12", "wedge", 30, 12, 0);
        add("stripe:90:0.037:0.043", "stripe", 90, 0.037, 0.043);
    }
    return out;
}

// The filter sets the inverse tests run: each case alone, a low-pass times a notch, and none at all.
inline std::vector<std::vector<LabCase>> lab_sets() {
    const std::vector<LabCase> all = lab_cases();
    std::vector<std::vector<LabCase>> sets;
    for (const LabCase& c : all) sets.push_back({c});
    sets.push_back({all[0], all[4]});
    sets.push_back({all[5], all[6]});  // a wedge and a stripe
    sets.push_back({});
    return sets;
}

// Adds a set's filters to the settings (parsed as --filter parses them) and their references to `refs`, its
// specs to `what`; false when a spec does not parse.
inline bool add_filters(const std::vector<LabCase>& set, Settings& s, std::vector<RefFilter>& refs, std::string& what) {
    for (const LabCase& c : set) {
        FilterSpec f;
        if (!parse_filter(c.spec, &f).empty()) return false;
        s.filters.push_back(f);
        refs.push_back(c.ref);
        what += " " + c.spec;
    }
    return true;
}

}  // namespace specview::test
