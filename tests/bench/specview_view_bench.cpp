// The CPU's view stage (picture_from_half: view values, range, colormap or levels) against the floor the issue sets
// for it: one plain pass that reads the half spectrum and writes the picture's bytes, on the same threads. Every
// range mode, the CLI's 1-byte levels and the viewer's RGBA; median of --reps runs after two warm-ups, fresh random
// spectra (magnitudes over six decades, as a photo's).
//   specview-view-bench [--sizes 2048,4096,8192] [--threads N] [--reps 9]
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/core/parallel_bands.h"
#include "app/core/picture.h"

namespace {
using Clock = std::chrono::steady_clock;
using specview::PictureFormat;
using specview::RangeMode;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class F>
double time_median(int reps, F&& f) {
    for (int i = 0; i < 2; ++i) f();
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = Clock::now();
        f();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return median(ms);
}
}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes{2048, 4096, 8192};
    int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    int reps = 9;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--sizes" && i + 1 < argc) {
            sizes.clear();
            std::stringstream ss(argv[++i]);
            for (std::string t; std::getline(ss, t, ',');) sizes.push_back(std::atoi(t.c_str()));
        } else if (a == "--threads" && i + 1 < argc) {
            threads = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--reps" && i + 1 < argc) {
            reps = std::max(1, std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: specview-view-bench [--sizes 2048,4096] [--threads N] [--reps 9]\n");
            return 2;
        }
    }
    std::printf("view stage on %d threads, median of %d runs (ms); floor: read the half spectrum, write the picture\n",
                threads, reps);
    std::mt19937 gen(std::random_device{}());
    for (int n : sizes) {
        const int w = n, h = n, hw = w / 2 + 1;
        std::vector<std::complex<float>> half(std::size_t(hw) * h);
        std::uniform_real_distribution<float> phase(0.0f, 6.2831853f), decade(0.0f, 6.0f);
        for (auto& c : half) c = std::polar(std::pow(10.0f, decade(gen)), phase(gen));
        std::vector<unsigned char> bytes(std::size_t(w) * h);
        std::vector<std::uint32_t> words(std::size_t(w) * h);
        // The floor: each output pixel from one input value (the mirror half read again, as the view does).
        auto floor_pass = [&](unsigned char* b8, std::uint32_t* b32) {
            specview::parallel_bands(h, threads, [&](int y0, int y1, int) {
                for (int y = y0; y < y1; ++y) {
                    const std::complex<float>* row = half.data() + std::size_t(y) * hw;
                    const std::complex<float>* mirror = half.data() + std::size_t(y == 0 ? 0 : h - y) * hw;
                    for (int x = 0; x < w; ++x) {
                        const std::complex<float> c = x < hw ? row[x] : mirror[w - x];
                        const float v = std::abs(c.real()) + std::abs(c.imag());
                        if (b8)
                            b8[std::size_t(y) * w + x] = static_cast<unsigned char>(v);
                        else
                            b32[std::size_t(y) * w + x] = static_cast<std::uint32_t>(v);
                    }
                }
            });
        };
        const double floor8 = time_median(reps, [&] { floor_pass(bytes.data(), nullptr); });
        const double floor32 = time_median(reps, [&] { floor_pass(nullptr, words.data()); });
        std::printf("%dx%d: floor %.2f (1-byte levels), %.2f (RGBA)\n", w, h, floor8, floor32);
        const std::pair<RangeMode, const char*> modes[] = {{RangeMode::Percentile, "percentile (CLI default)"},
                                                           {RangeMode::Auto, "auto"},
                                                           {RangeMode::Top, "top"},
                                                           {RangeMode::Fixed, "fixed"}};
        for (const auto& [mode, name] : modes)
            for (PictureFormat f : {PictureFormat::Level8, PictureFormat::Rgba8}) {
                specview::ViewParams vp;
                vp.range = mode;
                vp.colormap = specview::Colormap::Inferno;
                std::vector<std::uint32_t> rgba;
                std::vector<unsigned char> levels;
                float lo = 0, hi = 0;
                const double ms = time_median(reps, [&] {
                    specview::picture_from_half(half.data(), w, h, vp, threads, rgba, &lo, &hi, f, &levels);
                });
                const double fl = f == PictureFormat::Level8 ? floor8 : floor32;
                std::printf("  %-26s %-6s %8.2f ms  %.2fx the floor\n", name, f == PictureFormat::Level8 ? "levels" : "rgba",
                            ms, ms / fl);
            }
    }
    return 0;
}
