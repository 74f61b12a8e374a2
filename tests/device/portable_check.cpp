// gpu/opencl and gpu/glsl on the GPU machine without the whole build (a fresh machine takes ~5 minutes to build it):
// every usable OpenCL device and the EGL GL compute context, each against a double-precision DFT on a random 64 x 32
// plane (rel L2) and timed at 4096^2 (median of 5 forward passes, kernels only). Built by hand there:
//   g++ -O2 -std=c++17 -I. -Ibuild/gpu/generated tests/device/portable_check.cpp gpu/opencl/cl_fft.cpp \
//       gpu/glsl/gl_fft.cpp -lOpenCL -lEGL -o /tmp/portable_check
// (the generated headers come from a local configure: carry build/gpu/generated).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gpu/glsl/gl_fft.h"
#include "gpu/opencl/cl_fft.h"

using cd = std::complex<double>;
using cf = std::complex<float>;

namespace {
double error_vs_dft(const std::function<void(const float*, int, int, cf*)>& fft) {
    const int w = 64, h = 32;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> p(std::size_t(w) * h);
    for (float& x : p) x = u(rng);
    std::vector<cf> got(p.size(), cf(NAN, NAN));
    fft(p.data(), w, h, got.data());
    double num = 0, den = 0;
    for (int ky = 0; ky < h; ++ky)
        for (int kx = 0; kx < w; ++kx) {
            cd s = 0;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    s += double(p[std::size_t(y) * w + x]) *
                         std::polar(1.0, -2 * M_PI * (double(kx) * x / w + double(ky) * y / h));
            num += std::norm(cd(got[std::size_t(ky) * w + kx]) - s);
            den += std::norm(s);
        }
    return std::sqrt(num / den);
}
template <class Times>
double kernels_ms(const Times& t) {
    double ms = 0;
    for (const auto& p : t)
        if (p.what.find("load") == std::string::npos) ms += p.ms;  // (not the upload and download)
    return ms;
}
}  // namespace

int main() {
    int bad = 0;
    const int n = 4096;
    std::vector<float> big(std::size_t(n) * n, 0.5f);
    std::vector<cf> out(big.size());
    for (const auto& d : specview::gpu::list_opencl_devices()) {
        std::printf("opencl %d:%d %s (%s): %s\n", d.platform, d.device, d.name.c_str(), d.version.c_str(),
                    d.usable ? "usable" : d.why.c_str());
        if (!d.usable) continue;
        try {  // the backend's default knobs: 256 threads a row, local length 512
            specview::gpu::OpenClFft fft(d.platform, d.device);
            const specview::gpu::OpenClFftConfig c{512, 1, 16};
            const double e = error_vs_dft([&](const float* p, int w, int h, cf* o) { fft.forward(p, w, h, c, o); });
            std::vector<double> ms;
            for (int r = 0; r < 6; ++r) {
                std::vector<specview::gpu::OpenClPassTime> t;
                fft.forward(big.data(), n, n, c, out.data(), &t);
                if (r) ms.push_back(kernels_ms(t));
            }
            std::sort(ms.begin(), ms.end());
            std::printf("  rel L2 %.2e %s; 4096^2 kernels %.3f ms (median of 5)\n", e, e < 1e-5 ? "ok" : "FAIL", ms[2]);
            bad += e >= 1e-5;
        } catch (const std::exception& e) {
            std::printf("  %s\n", e.what());
            bad += 1;
        }
    }
    try {
        specview::gpu::GlFft gl;
        std::printf("gl %s\n", gl.renderer().c_str());
        // The seed's one butterfly a work-item (local length 512), then the backend's knobs (the longest local length
        // the shared memory holds, 256 work-items a row looping); the picture's passes (percentile range, 8-bit levels).
        double e = 0;
        for (const specview::gpu::GlFftConfig c : {specview::gpu::GlFftConfig{512, 1, 16},
                                                   specview::gpu::GlFftConfig{0, 1, 16, 256}}) {
            e = std::max(e, error_vs_dft([&](const float* p, int w, int h, cf* o) { gl.forward(p, w, h, c, o); }));
            std::vector<double> ms, pic;
            std::vector<specview::gpu::GlPassTime> t, tp;
            std::vector<unsigned char> levels(big.size());
            specview::ViewParams vp;
            vp.range = specview::RangeMode::Percentile;
            for (int r = 0; r < 6; ++r) {
                gl.forward(big.data(), n, n, c, nullptr, &t);
                float lo = 0, hi = 0;
                gl.picture(vp, specview::PictureFormat::Level8, levels.data(), &lo, &hi, &tp);
                if (r) ms.push_back(kernels_ms(t)), pic.push_back(kernels_ms(tp));
            }
            std::sort(ms.begin(), ms.end());
            std::sort(pic.begin(), pic.end());
            std::printf("  local %d threads %d: 4096^2 passes %.3f ms, picture %.3f ms (medians of 5):", c.local_length,
                        c.threads, ms[2], pic[2]);
            for (const auto& x : t) std::printf(" %s %.3f;", x.what.c_str(), x.ms);
            for (const auto& x : tp) std::printf(" %s %.3f;", x.what.c_str(), x.ms);
            std::printf("\n");
        }
        std::printf("  rel L2 %.2e %s\n", e, e < 1e-5 ? "ok" : "FAIL");
        bad += e >= 1e-5;
    } catch (const std::exception& e) {
        std::printf("gl: %s\n", e.what());
        bad += 1;
    }
    return bad ? 1 : 0;
}
