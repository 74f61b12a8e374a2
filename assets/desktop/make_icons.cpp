// specview's icon: a spectrum as the viewer shows one (inferno, DC bright at the centre, the padding cross, a pair
// of peaks and a ring) on a rounded dark square. `specview-make-icons DIR` writes specview.svg and the PNG sizes
// specview-N.png (N = 16 ... 256) from one description of the picture; the build runs it and `cmake --install` puts
// them under share/icons/hicolor.
#include <stb_image_write.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gpu/common/spectrum_math.h"

namespace {

// The picture, in a unit square: the spectrum's brightness t in [0, 1] at (x, y), and the square's coverage.
constexpr double kCorner = 0.18;                    // the rounded square's corner radius
constexpr double kPeakX = 0.20, kPeakY = 0.13;      // the peaks at (0.5 +- kPeakX, 0.5 -+ kPeakY)
constexpr double kRing = 0.31, kRingWidth = 0.016;  // a ring of the disc's Airy pattern
constexpr double kSpot = 0.055, kPeak = 0.032, kLine = 0.011;

double gauss(double d, double s) { return std::exp(-d * d / (2 * s * s)); }

double brightness(double x, double y) {
    const double dx = x - 0.5, dy = y - 0.5, r = std::hypot(dx, dy);
    double t = gauss(r, kSpot);
    t += 0.45 * gauss(dx, kLine) * std::exp(-std::fabs(dy) / 0.30);  // the padding cross
    t += 0.45 * gauss(dy, kLine) * std::exp(-std::fabs(dx) / 0.30);
    t += 0.85 * gauss(std::hypot(dx - kPeakX, dy + kPeakY), kPeak);  // a grating's pair of peaks
    t += 0.85 * gauss(std::hypot(dx + kPeakX, dy - kPeakY), kPeak);
    t += 0.30 * gauss(r - kRing, kRingWidth);
    t += 0.10 * std::exp(-r / 0.25);  // the noise floor rising towards DC
    return std::fmin(1.0, t);
}

// How much of pixel (x, y) the rounded square covers (4x4 samples).
double coverage(double x0, double y0, double px) {
    int in = 0;
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) {
            const double x = x0 + (i + 0.5) * px / 4, y = y0 + (j + 0.5) * px / 4;
            const double cx = std::fmin(std::fmax(x, kCorner), 1 - kCorner),
                         cy = std::fmin(std::fmax(y, kCorner), 1 - kCorner);
            in += std::hypot(x - cx, y - cy) <= kCorner;
        }
    return in / 16.0;
}

// A colour channel in [0, 1] as a byte (the colormap polynomials overshoot a little at the ends).
unsigned char byte(double v) {
    return static_cast<unsigned char>(std::lround(255 * std::fmin(1.0, std::fmax(0.0, v))));
}

bool write_png(const std::string& path, int n) {
    std::vector<unsigned char> px(std::size_t(n) * n * 4);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            double t = 0;  // the brightness averaged over 3x3 samples of the pixel
            for (int j = 0; j < 3; ++j)
                for (int i = 0; i < 3; ++i) t += brightness((x + (i + 0.5) / 3) / n, (y + (j + 0.5) / 3) / n);
            const specview::Rgb c = specview::colormap_rgb(specview::Colormap::Inferno, float(0.08 + 0.92 * t / 9));
            unsigned char* p = &px[(std::size_t(y) * n + x) * 4];
            p[0] = byte(c.r);
            p[1] = byte(c.g);
            p[2] = byte(c.b);
            p[3] = byte(coverage(double(x) / n, double(y) / n, 1.0 / n));
        }
    return stbi_write_png(path.c_str(), n, n, 4, px.data(), n * 4) != 0;
}

std::string hex(float t) {
    const specview::Rgb c = specview::colormap_rgb(specview::Colormap::Inferno, t);
    char b[8];
    std::snprintf(b, sizeof b, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
    return b;
}

// The same picture as vector shapes on a 256-unit canvas: gradients for the spot and the peaks, lines for the
// cross, a stroke for the ring.
bool write_svg(const std::string& path) {
    std::ofstream o(path);
    const double s = 256;
    auto at = [&](double v) { return std::to_string(int(std::lround(v * s))); };
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"256\" height=\"256\" viewBox=\"0 0 256 256\">\n"
      << "  <defs>\n"
      << "    <radialGradient id=\"spot\"><stop offset=\"0\" stop-color=\"" << hex(1.0f)
      << "\"/><stop offset=\"0.5\" stop-color=\"" << hex(0.6f) << "\"/><stop offset=\"1\" stop-color=\"" << hex(0.08f)
      << "\" stop-opacity=\"0\"/></radialGradient>\n"
      << "    <radialGradient id=\"peak\"><stop offset=\"0\" stop-color=\"" << hex(0.9f)
      << "\"/><stop offset=\"1\" stop-color=\"" << hex(0.3f) << "\" stop-opacity=\"0\"/></radialGradient>\n"
      << "    <linearGradient id=\"fadeh\"><stop offset=\"0\" stop-color=\"" << hex(0.45f)
      << "\" stop-opacity=\"0\"/><stop offset=\"0.5\" stop-color=\"" << hex(0.55f)
      << "\"/><stop offset=\"1\" stop-color=\"" << hex(0.45f) << "\" stop-opacity=\"0\"/></linearGradient>\n"
      << "    <linearGradient id=\"fadev\" x2=\"0\" y2=\"1\"><stop offset=\"0\" stop-color=\"" << hex(0.45f)
      << "\" stop-opacity=\"0\"/><stop offset=\"0.5\" stop-color=\"" << hex(0.55f)
      << "\"/><stop offset=\"1\" stop-color=\"" << hex(0.45f) << "\" stop-opacity=\"0\"/></linearGradient>\n"
      << "  </defs>\n"
      << "  <rect width=\"256\" height=\"256\" rx=\"" << at(kCorner) << "\" fill=\"" << hex(0.08f) << "\"/>\n"
      << "  <circle cx=\"128\" cy=\"128\" r=\"" << at(kRing) << "\" fill=\"none\" stroke=\"" << hex(0.35f)
      << "\" stroke-width=\"" << at(2.5 * kRingWidth) << "\" stroke-opacity=\"0.7\"/>\n"
      << "  <rect x=\"0\" y=\"" << at(0.5 - 1.5 * kLine) << "\" width=\"256\" height=\"" << at(3 * kLine)
      << "\" fill=\"url(#fadeh)\"/>\n"
      << "  <rect x=\"" << at(0.5 - 1.5 * kLine) << "\" y=\"0\" width=\"" << at(3 * kLine)
      << "\" height=\"256\" fill=\"url(#fadev)\"/>\n"
      << "  <circle cx=\"" << at(0.5 + kPeakX) << "\" cy=\"" << at(0.5 - kPeakY) << "\" r=\"" << at(3 * kPeak)
      << "\" fill=\"url(#peak)\"/>\n"
      << "  <circle cx=\"" << at(0.5 - kPeakX) << "\" cy=\"" << at(0.5 + kPeakY) << "\" r=\"" << at(3 * kPeak)
      << "\" fill=\"url(#peak)\"/>\n"
      << "  <circle cx=\"128\" cy=\"128\" r=\"" << at(3 * kSpot) << "\" fill=\"url(#spot)\"/>\n"
      << "</svg>\n";
    return bool(o);
}

}  // namespace

int main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : ".";
    bool ok = write_svg(dir + "/specview.svg");
    for (int n : {16, 24, 32, 48, 64, 128, 256})
        ok = write_png(dir + "/specview-" + std::to_string(n) + ".png", n) && ok;
    if (!ok) std::fprintf(stderr, "specview-make-icons: cannot write into %s\n", dir.c_str());
    return ok ? 0 : 1;
}
