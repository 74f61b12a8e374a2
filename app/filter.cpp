#include "app/filter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "app/parallel_bands.h"

namespace specview {

namespace {
std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

bool number(const std::string& s, double* v) {
    if (s.empty()) return false;
    char* end = nullptr;
    *v = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(*v);
}

std::string num(double v) {
    std::ostringstream o;
    o.precision(17);
    o << v;
    return o.str();
}
}  // namespace

std::string parse_filter(const std::string& spec, FilterSpec* out) {
    const std::string what = "--filter " + spec + ": ";
    FilterSpec f;
    const std::vector<std::string> parts = split(spec, ',');
    if (parts.size() > 2) return what + "one edge suffix at most (,gauss or ,butterworth:N)";
    if (parts.size() == 2) {
        const std::vector<std::string> e = split(parts[1], ':');
        if (e.size() == 1 && e[0] == "gauss") {
            f.edge = FilterEdge::Gauss;
        } else if (e.size() == 1 && e[0] == "ideal") {
            f.edge = FilterEdge::Ideal;
        } else if (e[0] == "butterworth") {
            double n = 0;
            if (e.size() != 2 || !number(e[1], &n) || n != std::floor(n) || n < 1)
                return what + "butterworth needs an order N, a positive integer (,butterworth:2)";
            if (n > 64) return what + "butterworth order " + e[1] + " is above 64";
            f.edge = FilterEdge::Butterworth;
            f.order = int(n);
        } else {
            return what + "unknown edge '" + parts[1] + "' (gauss, butterworth:N or none for ideal)";
        }
    }
    const std::vector<std::string> p = split(parts[0], ':');
    const std::string& kind = p[0];
    std::vector<double> v;
    for (std::size_t i = 1; i < p.size(); ++i) {
        double x = 0;
        if (!number(p[i], &x)) return what + "'" + p[i] + "' is not a number";
        v.push_back(x);
    }
    const double rmax = std::sqrt(0.5);
    auto radius_ok = [&](double r) { return r > 0 && r <= rmax; };
    const std::string radius_rule = " must be in (0, 0.7071] cycles/pixel (sqrt(0.5), the corner of the spectrum)";
    if (kind == "lowpass" || kind == "highpass") {
        if (v.size() != 1) return what + kind + " takes one radius (" + kind + ":R)";
        if (!radius_ok(v[0])) return what + "R = " + p[1] + radius_rule;
        f.kind = kind == "lowpass" ? FilterKind::LowPass : FilterKind::HighPass;
        f.r = v[0];
    } else if (kind == "bandpass" || kind == "bandstop") {
        if (v.size() != 2) return what + kind + " takes two radii (" + kind + ":R1:R2)";
        if (!radius_ok(v[0])) return what + "R1 = " + p[1] + radius_rule;
        if (!radius_ok(v[1])) return what + "R2 = " + p[2] + radius_rule;
        if (!(v[0] < v[1])) return what + "R1 must be below R2";
        f.kind = kind == "bandpass" ? FilterKind::BandPass : FilterKind::BandStop;
        f.r1 = v[0];
        f.r2 = v[1];
    } else if (kind == "notch") {
        if (v.size() != 3) return what + "notch takes a centre and a radius (notch:U:V:R)";
        if (std::abs(v[0]) > 0.5 || std::abs(v[1]) > 0.5) return what + "|U| and |V| must be at most 0.5 cycles/pixel";
        if (!radius_ok(v[2])) return what + "R = " + p[3] + radius_rule;
        f.kind = FilterKind::Notch;
        f.u = v[0];
        f.v = v[1];
        f.r = v[2];
    } else if (kind == "wedge" || kind == "stripe") {
        const bool wedge = kind == "wedge";
        if (v.size() != 2 && v.size() != 3)
            return what + kind + (wedge ? " takes a direction, a half-width in degrees and optionally the radius kept "
                                          "(wedge:ANGLE:HALF[:RMIN])"
                                        : " takes a direction, a width in cycles/pixel and optionally the radius kept "
                                          "(stripe:ANGLE:WIDTH[:RMIN])");
        if (std::abs(v[0]) > 3600) return what + "ANGLE = " + p[1] + " is not a direction in degrees (|ANGLE| <= 3600)";
        if (wedge && !(v[1] > 0 && v[1] <= 90)) return what + "HALF = " + p[2] + " must be in (0, 90] degrees";
        if (!wedge && !(v[1] > 0 && v[1] <= 1)) return what + "WIDTH = " + p[2] + " must be in (0, 1] cycles/pixel";
        if (v.size() == 3 && !(v[2] >= 0 && v[2] <= rmax)) return what + "RMIN = " + p[3] + " must be in [0, 0.7071] cycles/pixel";
        f.kind = wedge ? FilterKind::Wedge : FilterKind::Stripe;
        f.angle = v[0];
        f.r = v[1];
        f.r1 = v.size() == 3 ? v[2] : 0.0;
    } else {
        return what + "unknown filter '" + kind +
               "' (lowpass:R, highpass:R, bandpass:R1:R2, bandstop:R1:R2, notch:U:V:R, wedge:ANGLE:HALF, stripe:ANGLE:WIDTH)";
    }
    *out = f;
    return "";
}

std::string filter_text(const FilterSpec& f) {
    std::string s;
    switch (f.kind) {
        case FilterKind::LowPass: s = "lowpass:" + num(f.r); break;
        case FilterKind::HighPass: s = "highpass:" + num(f.r); break;
        case FilterKind::BandPass: s = "bandpass:" + num(f.r1) + ":" + num(f.r2); break;
        case FilterKind::BandStop: s = "bandstop:" + num(f.r1) + ":" + num(f.r2); break;
        case FilterKind::Notch: s = "notch:" + num(f.u) + ":" + num(f.v) + ":" + num(f.r); break;
        case FilterKind::Wedge:
        case FilterKind::Stripe:
            s = std::string(f.kind == FilterKind::Wedge ? "wedge:" : "stripe:") + num(f.angle) + ":" + num(f.r) +
                (f.r1 > 0 ? ":" + num(f.r1) : "");
            break;
    }
    if (f.edge == FilterEdge::Gauss) s += ",gauss";
    if (f.edge == FilterEdge::Butterworth) s += ",butterworth:" + std::to_string(f.order);
    return s;
}

namespace {
// body(y) for every row, the rows in contiguous bands over `threads` threads (0: all cores).
template <class F>
void rows_in_threads(int height, int threads, F&& body) {
    parallel_bands(height, threads, [&](int y0, int y1, int) {
        for (int y = y0; y < y1; ++y) body(y);
    }, 1);
}
}  // namespace

std::vector<float> half_mask(const std::vector<FilterSpec>& filters, int width, int height, int threads) {
    if (filters.empty()) return {};
    const int hw = width / 2 + 1;
    std::vector<float> m(std::size_t(hw) * height);
    // Rings depend on r alone, the same in rows y and height - y (v and -v): those rows are made once.
    bool radial = true;
    for (const FilterSpec& f : filters)
        radial &= f.kind == FilterKind::LowPass || f.kind == FilterKind::HighPass || f.kind == FilterKind::BandPass ||
                  f.kind == FilterKind::BandStop;
    const int rows = radial ? height / 2 + 1 : height;
    rows_in_threads(rows, threads, [&](int y) {
        float* row = &m[std::size_t(y) * hw];
        for (int x = 0; x < hw; ++x) row[x] = mask_value(filters.data(), int(filters.size()), x, y, width, height);
        if (radial && y > 0 && height - y != y && height - y < height)
            std::copy(row, row + hw, &m[std::size_t(height - y) * hw]);
    });
    return m;
}

std::string parse_stroke(const std::vector<std::string>& words, bool erase, BrushStroke* out) {
    const std::string what = std::string(erase ? "erase" : "paint") + ": ";
    if (words.size() != 3) return what + "takes U V R (the brush's centre and radius in spectrum bins from DC)";
    double v[3];
    for (int i = 0; i < 3; ++i)
        if (!number(words[std::size_t(i)], &v[i])) return what + "'" + words[std::size_t(i)] + "' is not a number";
    if (std::abs(v[0]) > 1e6 || std::abs(v[1]) > 1e6) return what + "the centre is beyond any spectrum (|U|, |V| <= 1e6 bins)";
    if (!(v[2] > 0 && v[2] <= 1e5)) return what + "R = " + words[2] + " must be in (0, 100000] bins";
    *out = BrushStroke{v[0], v[1], v[2], erase ? 1 : 0};
    return "";
}

std::string stroke_text(const BrushStroke& b) {
    return std::string(b.erase ? "erase " : "paint ") + num(b.u) + " " + num(b.v) + " " + num(b.r);
}

namespace {
// Calls at(kx, ky) for every bin dab b or its mirror covers (its two bounding boxes, wrapped into the transform;
// the canonical signed bin decides, so the covered set is exactly symmetric), columns below `columns` only.
template <class At>
void for_each_covered(const BrushStroke& b, int width, int height, int columns, At at) {
    int x0, y0, bw, bh;
    stroke_box(b, width, height, &x0, &y0, &bw, &bh);
    for (int mirror = 0; mirror < 2; ++mirror) {
        // The mirror's box is the negated box: [-(x0 + bw - 1), -x0].
        const int sx0 = mirror ? -(x0 + bw - 1) : x0, sy0 = mirror ? -(y0 + bh - 1) : y0;
        for (int j = 0; j < bh; ++j) {
            const int ky = ((sy0 + j) % height + height) % height;
            for (int i = 0; i < bw; ++i) {
                const int kx = ((sx0 + i) % width + width) % width;
                if (kx >= columns) continue;
                int sx, sy;
                signed_bin(kx, ky, width, height, &sx, &sy);
                if (stroke_covers(b, sx, sy)) at(kx, ky);
            }
        }
    }
}
}  // namespace

void stamp_strokes(const BrushStroke* strokes, std::size_t count, int width, int height, float* layer) {
    for (std::size_t i = 0; i < count; ++i) {
        const float value = strokes[i].erase ? 1.0f : 0.0f;
        for_each_covered(strokes[i], width, height, width, [&](int kx, int ky) { layer[std::size_t(ky) * width + kx] = value; });
    }
}

std::vector<float> half_mask(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes,
                             bool invert, int width, int height, int threads) {
    if (filters.empty() && strokes.empty() && !invert) return {};
    return combine_half_mask(half_mask(filters, width, height, threads), strokes, invert, width, height, threads);
}

void stamp_strokes_half(const BrushStroke* strokes, std::size_t count, int width, int height, float* half_layer,
                        const std::function<void(std::size_t)>& touched) {
    // The half's columns only: a covered bin's mirror is covered too (the layer is symmetric), so the half holds
    // all there is.
    const int hw = width / 2 + 1;
    for (std::size_t i = 0; i < count; ++i) {
        const float value = strokes[i].erase ? 1.0f : 0.0f;
        for_each_covered(strokes[i], width, height, hw, [&](int kx, int ky) {
            const std::size_t k = std::size_t(ky) * hw + kx;
            half_layer[k] = value;
            if (touched) touched(k);
        });
    }
}

std::vector<float> combine_half_mask(std::vector<float> m, const std::vector<BrushStroke>& strokes, bool invert,
                                     int width, int height, int threads) {
    const int hw = width / 2 + 1;
    if (m.empty() && strokes.empty() && !invert) return {};
    if (m.empty()) m.assign(std::size_t(hw) * height, 1.0f);
    if (!strokes.empty()) {
        std::vector<float> layer(std::size_t(hw) * height, 1.0f);
        stamp_strokes_half(strokes.data(), strokes.size(), width, height, layer.data());
        rows_in_threads(height, threads, [&](int y) {
            for (int x = 0; x < hw; ++x) m[std::size_t(y) * hw + x] *= layer[std::size_t(y) * hw + x];
        });
    }
    if (invert)
        for (float& v : m) v = 1.0f - v;
    return m;
}

std::vector<std::uint8_t> mask_picture(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes,
                                       bool invert, int width, int height, int threads) {
    // The full mask from the half one through its symmetry (mask(-k) = mask(k)), shifted like the spectrum.
    const std::vector<float> half = half_mask(filters, strokes, invert, width, height, threads);
    const int hw = width / 2 + 1;
    std::vector<std::uint8_t> out(std::size_t(width) * height, 255);
    if (half.empty()) return out;
    rows_in_threads(height, threads, [&](int py) {
        const int ky = shift_source(py, height);
        for (int px = 0; px < width; ++px) {
            const int kx = shift_source(px, width);
            const float v = kx < hw ? half[std::size_t(ky) * hw + kx]
                                    : half[std::size_t(ky == 0 ? 0 : height - ky) * hw + (width - kx)];
            out[std::size_t(py) * width + px] = std::uint8_t(level_of(v < 0 ? 0.0f : v > 1 ? 1.0f : v));
        }
    });
    return out;
}

std::string mask_summary(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes, bool invert) {
    std::string t;
    auto add = [&](std::size_t n, const char* one, const char* many) {
        if (!n) return;
        t += (t.empty() ? "" : ", ") + std::to_string(n) + " " + (n == 1 ? one : many);
    };
    add(filters.size(), "filter", "filters");
    add(strokes.size(), "brush dab", "brush dabs");
    if (invert) t += t.empty() ? "inverted all-pass" : ", inverted";
    return t;
}

std::string mask_text(const std::vector<FilterSpec>& filters, const std::vector<BrushStroke>& strokes, bool invert) {
    std::string t = "# specview mask: the filters and brush dabs multiply (the last dab over a bin decides)\n";
    for (const FilterSpec& f : filters) t += "filter " + filter_text(f) + "\n";
    for (const BrushStroke& b : strokes) t += stroke_text(b) + "\n";
    if (invert) t += "invert-mask on\n";
    return t;
}

std::string parse_mask_text(const std::string& text, std::vector<FilterSpec>* filters, std::vector<BrushStroke>* strokes,
                            bool* invert) {
    std::vector<FilterSpec> fs;
    std::vector<BrushStroke> bs;
    bool inv = false;
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::istringstream ws(line);
        std::vector<std::string> w;
        for (std::string x; ws >> x;) w.push_back(x);
        if (w.empty() || w[0][0] == '#') continue;
        const std::string at = "line " + std::to_string(n) + ": ";
        std::string err;
        if (w[0] == "filter" && w.size() == 2) {
            FilterSpec f;
            if ((err = parse_filter(w[1], &f)).empty()) fs.push_back(f);
        } else if (w[0] == "paint" || w[0] == "erase") {
            BrushStroke b;
            if ((err = parse_stroke({w.begin() + 1, w.end()}, w[0] == "erase", &b)).empty()) bs.push_back(b);
        } else if (w[0] == "invert-mask" && w.size() == 2 && (w[1] == "on" || w[1] == "off")) {
            inv = w[1] == "on";
        } else {
            err = "expected 'filter SPEC', 'paint U V R', 'erase U V R' or 'invert-mask on|off', not '" + line + "'";
        }
        if (!err.empty()) return at + err;
        if (fs.size() > std::size_t(kMaxFilters)) return at + "more than " + std::to_string(kMaxFilters) + " filters";
        if (bs.size() > kMaxStrokes) return at + "more than " + std::to_string(kMaxStrokes) + " brush dabs";
    }
    *filters = std::move(fs);
    *strokes = std::move(bs);
    *invert = inv;
    return "";
}

}  // namespace specview
