#include "app/core/filter_spec.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

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

// The shortest text that reads back to the same double (0.1, not 0.10000000000000001): what the lab panel lists and,
// being exact, what a saved mask keeps.
std::string num(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
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
            return what + kind +
                   (wedge ? " takes a direction, a half-width in degrees and optionally the radius kept "
                            "(wedge:ANGLE:HALF[:RMIN])"
                          : " takes a direction, a width in cycles/pixel and optionally the radius kept "
                            "(stripe:ANGLE:WIDTH[:RMIN])");
        if (std::abs(v[0]) > 3600) return what + "ANGLE = " + p[1] + " is not a direction in degrees (|ANGLE| <= 3600)";
        if (wedge && !(v[1] > 0 && v[1] <= 90)) return what + "HALF = " + p[2] + " must be in (0, 90] degrees";
        if (!wedge && !(v[1] > 0 && v[1] <= 1)) return what + "WIDTH = " + p[2] + " must be in (0, 1] cycles/pixel";
        if (v.size() == 3 && !(v[2] >= 0 && v[2] <= rmax))
            return what + "RMIN = " + p[3] + " must be in [0, 0.7071] cycles/pixel";
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
        case FilterKind::LowPass:
            s = "lowpass:" + num(f.r);
            break;
        case FilterKind::HighPass:
            s = "highpass:" + num(f.r);
            break;
        case FilterKind::BandPass:
            s = "bandpass:" + num(f.r1) + ":" + num(f.r2);
            break;
        case FilterKind::BandStop:
            s = "bandstop:" + num(f.r1) + ":" + num(f.r2);
            break;
        case FilterKind::Notch:
            s = "notch:" + num(f.u) + ":" + num(f.v) + ":" + num(f.r);
            break;
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

std::string parse_stroke(const std::vector<std::string>& words, bool erase, BrushStroke* out) {
    const std::string what = std::string(erase ? "erase" : "paint") + ": ";
    if (words.size() != 3) return what + "takes U V R (the brush's centre and radius in spectrum bins from DC)";
    double v[3];
    for (int i = 0; i < 3; ++i)
        if (!number(words[std::size_t(i)], &v[i])) return what + "'" + words[std::size_t(i)] + "' is not a number";
    if (std::abs(v[0]) > 1e6 || std::abs(v[1]) > 1e6)
        return what + "the centre is beyond any spectrum (|U|, |V| <= 1e6 bins)";
    if (!(v[2] > 0 && v[2] <= 1e5)) return what + "R = " + words[2] + " must be in (0, 100000] bins";
    *out = BrushStroke{v[0], v[1], v[2], erase ? 1 : 0};
    return "";
}

std::string stroke_text(const BrushStroke& b) {
    return std::string(b.erase ? "erase " : "paint ") + num(b.u) + " " + num(b.v) + " " + num(b.r);
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

std::string parse_mask_text(const std::string& text, std::vector<FilterSpec>* filters,
                            std::vector<BrushStroke>* strokes, bool* invert) {
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
