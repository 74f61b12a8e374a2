// Generates specview's synthetic sample images (the PNGs beside this file): each one shows a textbook
// spectrum. Run `specview-make-assets DIR`; the output is deterministic, and a test checks the committed
// files still match what this program writes.
#include <stb_easy_font.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Gray {
    int w, h;
    std::vector<float> v;
    Gray(int w_, int h_, float fill = 0.0f) : w(w_), h(h_), v(std::size_t(w_) * h_, fill) {}
    float& at(int x, int y) { return v[std::size_t(y) * w + x]; }
};

bool save(const std::string& dir, const char* name, const Gray& g) {
    std::vector<unsigned char> px(g.v.size());
    for (std::size_t i = 0; i < px.size(); ++i) {
        const float c = g.v[i] < 0 ? 0 : (g.v[i] > 1 ? 1 : g.v[i]);
        px[i] = static_cast<unsigned char>(std::lround(c * 255.0f));
    }
    const std::string path = dir + "/" + name;
    if (!stbi_write_png(path.c_str(), g.w, g.h, 1, px.data(), g.w)) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        return false;
    }
    std::printf("wrote %s (%dx%d)\n", path.c_str(), g.w, g.h);
    return true;
}

// cos(2 pi (kx x / W + ky y / H)): exactly two spectral peaks, at +-(kx, ky) from DC.
Gray grating(int w, int h, double kx, double ky) {
    Gray g(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) g.at(x, y) = float(0.5 + 0.5 * std::cos(2.0 * M_PI * (kx * x / w + ky * y / h)));
    return g;
}

// A grating at an angle and a frequency that falls between bins: leakage, and what a window does to it.
Gray rotated_grating(int n, double cycles, double degrees) {
    Gray g(n, n);
    const double a = degrees * M_PI / 180.0, fx = std::cos(a) * cycles / n, fy = std::sin(a) * cycles / n;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) g.at(x, y) = float(0.5 + 0.5 * std::cos(2.0 * M_PI * (fx * x + fy * y)));
    return g;
}

// A disc: its spectrum is the Airy pattern (rings). 4x4 supersampled edges.
Gray disc(int n, double radius) {
    Gray g(n, n);
    const double c = n / 2.0;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            int inside = 0;
            for (int sy = 0; sy < 4; ++sy)
                for (int sx = 0; sx < 4; ++sx) {
                    const double dx = x + (sx + 0.5) / 4 - c, dy = y + (sy + 0.5) / 4 - c;
                    inside += dx * dx + dy * dy <= radius * radius;
                }
            g.at(x, y) = inside / 16.0f;
        }
    return g;
}

Gray checkerboard(int n, int square) {
    Gray g(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) g.at(x, y) = ((x / square + y / square) & 1) ? 1.0f : 0.0f;
    return g;
}

// Text drawn with stb_easy_font's quads, scaled: lines and strokes give a spectrum of streaks.
Gray text(int w, int h, const char* lines[], int nlines, int scale) {
    Gray g(w, h, 1.0f);
    static char buffer[200000];
    for (int l = 0; l < nlines; ++l) {
        const int quads = stb_easy_font_print(0, 0, const_cast<char*>(lines[l]), nullptr, buffer, sizeof(buffer));
        const float* v = reinterpret_cast<const float*>(buffer);  // 4 vertices of x, y, z, rgba(4 bytes)
        const int tw = stb_easy_font_width(const_cast<char*>(lines[l])) * scale;
        const int ox = (w - tw) / 2, oy = 24 + l * 12 * scale;
        for (int q = 0; q < quads; ++q) {
            const float* a = v + q * 16;  // 4 vertices * 4 floats
            const int x0 = ox + int(a[0] * scale), y0 = oy + int(a[1] * scale);
            const int x1 = ox + int(a[8] * scale), y1 = oy + int(a[9] * scale);
            for (int y = y0; y < y1; ++y)
                for (int x = x0; x < x1; ++x)
                    if (x >= 0 && x < w && y >= 0 && y < h) g.at(x, y) = 0.0f;
        }
    }
    return g;
}

// A scene (a disc, text, a slow shading) under a periodic screen, cos at (64, 32) cycles per image: the
// frequency lab's notch example (notch:0.125:0.0625:R removes the screen and its twin, the scene stays).
Gray screened(int n, const char* lines[], int nlines) {
    Gray g = text(n, n, lines, nlines, 3);
    const Gray d = disc(n, n * 0.22);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double scene =
                0.25 + 0.45 * g.at(x, y) * (0.6 + 0.4 * double(x + y) / (2.0 * n)) + 0.25 * d.v[std::size_t(y) * n + x];
            const double screen = 0.12 * std::cos(2.0 * M_PI * (64.0 * x + 32.0 * y) / n);
            g.at(x, y) = float(scene + screen);
        }
    return g;
}

// A scanned surface as an atomic force microscope gives it: a fractal (Gaussian random) surface whose power
// spectrum falls as f^-beta (amplitudes r^(-beta/2) at random phases, one inverse DFT), with the scanner's
// artefacts: each line offset by its own small amount, and a few lines jumping. The lab's stripe filter
// (stripe:90:W) takes the lines out; the radial PSD's slope is about -beta. Deterministic (its own generator).
Gray surface(int n, double beta) {
    std::uint64_t state = 0x5eed5eedULL;
    auto uniform = [&state]() {  // splitmix64 -> [0, 1)
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return double((z ^ (z >> 31)) >> 11) / double(1ULL << 53);
    };
    using C = std::complex<double>;
    std::vector<C> F(std::size_t(n) * n), T(F.size()), tw(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) tw[std::size_t(k)] = std::polar(1.0, 2.0 * M_PI * k / n);
    for (int ky = 0; ky < n; ++ky)
        for (int kx = 0; kx < n; ++kx) {
            const int sx = kx < n / 2 ? kx : kx - n, sy = ky < n / 2 ? ky : ky - n;
            const double r = std::sqrt(double(sx) * sx + double(sy) * sy), phase = 2.0 * M_PI * uniform();
            F[std::size_t(ky) * n + kx] = r > 0 ? std::polar(std::pow(r, -beta / 2), phase) : C(0.0);
        }
    // The inverse DFT, rows then columns (O(n^3): a second at 512).
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            C acc = 0;
            for (int k = 0; k < n; ++k) acc += F[std::size_t(y) * n + k] * tw[std::size_t((std::int64_t(k) * x) % n)];
            T[std::size_t(y) * n + x] = acc;
        }
    Gray g(n, n);
    double lo = 1e300, hi = -1e300;
    for (int x = 0; x < n; ++x)
        for (int y = 0; y < n; ++y) {
            C acc = 0;
            for (int k = 0; k < n; ++k) acc += T[std::size_t(k) * n + x] * tw[std::size_t((std::int64_t(k) * y) % n)];
            g.at(x, y) = float(acc.real());
            lo = std::min(lo, acc.real());
            hi = std::max(hi, acc.real());
        }
    for (int y = 0; y < n; ++y) {
        const double offset = 0.05 * (uniform() - 0.5) + (uniform() < 0.03 ? 0.12 * (uniform() - 0.5) : 0.0);
        for (int x = 0; x < n; ++x) g.at(x, y) = float(0.12 + 0.76 * (g.at(x, y) - lo) / (hi - lo) + offset);
    }
    return g;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : ".";
    const char* lines[] = {"SPECVIEW", "2D FFT ON THE GPU"};
    bool ok = true;
    ok &= save(dir, "grating_16_8.png", grating(256, 256, 16, 8));
    ok &= save(dir, "grating_rotated.png", rotated_grating(512, 40.5, 30.0));
    ok &= save(dir, "disc.png", disc(256, 20.0));
    ok &= save(dir, "checkerboard.png", checkerboard(256, 16));
    ok &= save(dir, "text.png", text(512, 256, lines, 2, 4));
    ok &= save(dir, "screened.png", screened(512, lines, 2));
    ok &= save(dir, "surface.png", surface(512, 3.0));
    return ok ? 0 : 1;
}
