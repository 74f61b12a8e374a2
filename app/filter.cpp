#include "app/filter.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <thread>

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
    } else {
        return what + "unknown filter '" + kind + "' (lowpass:R, highpass:R, bandpass:R1:R2, bandstop:R1:R2, notch:U:V:R)";
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
    }
    if (f.edge == FilterEdge::Gauss) s += ",gauss";
    if (f.edge == FilterEdge::Butterworth) s += ",butterworth:" + std::to_string(f.order);
    return s;
}

std::vector<float> half_mask(const std::vector<FilterSpec>& filters, int width, int height, int threads) {
    if (filters.empty()) return {};
    const int hw = width / 2 + 1;
    std::vector<float> m(std::size_t(hw) * height);
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::max(1, std::min(threads, height));
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
        ts.emplace_back([&, t] {
            for (int y = t * height / threads, y1 = (t + 1) * height / threads; y < y1; ++y)
                for (int x = 0; x < hw; ++x)
                    m[std::size_t(y) * hw + x] = mask_value(filters.data(), int(filters.size()), x, y, width, height);
        });
    for (auto& t : ts) t.join();
    return m;
}

}  // namespace specview
