// Seed 001's comparison, the table of its section on results (issue 62): the same image through every backend this
// machine has — CUDA custom (the seed's kernels), custom-fast, cuFFT, OpenCL on each usable device, OpenGL compute,
// FFTW — at the seed's sizes, ms per transform + picture (the run's own stage times) and the whole engine call (the
// plane made, the picture downloaded), medians of --reps runs after three, each as a ratio to cuFFT's (to FFTW's where
// there is no CUDA). A backend that cannot run here is a line saying why.
//   specview-api-bench [--sizes 256,512,...,8192] [--reps N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app/engine/devices.h"
#include "app/engine/engine.h"
#include "gpu/common/errors.h"
#include "tests/bench/photo.h"

using namespace specview;

namespace {
double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Api {
    std::string name;
    Settings s;
};
}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes = {256, 512, 1024, 2048, 4096, 8192};
    int reps = 10;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
            sizes.clear();
            for (const char* p = argv[++i]; *p;) {
                sizes.push_back(std::atoi(p));
                while (*p && *p != ',') ++p;
                if (*p == ',') ++p;
            }
        } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = std::max(1, std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: specview-api-bench [--sizes 256,512,...] [--reps N]\n");
            return 2;
        }
    }
    // Every backend with its devices (--list-devices' lines): CUDA's three where CUDA works, each usable OpenCL device.
    std::vector<Api> apis;
    bool cuda = false;
    for (const DeviceLine& d : list_devices()) {
        std::printf("%s\n", d.text().c_str());
        if (!d.usable) continue;
        if (d.backend == "cuda") {
            cuda = true;
            for (Backend b : {Backend::Cufft, Backend::CustomFast, Backend::Custom}) {
                Api a{name_of(b) + " (CUDA)", {}};
                a.s.backend = b;
                apis.push_back(a);
            }
        } else if (d.backend == "opencl") {
            Api a{"opencl " + d.id + " (" + d.name.substr(0, d.name.find(" (")) + ")", {}};
            a.s.backend = Backend::OpenCl;
            std::sscanf(d.id.c_str(), "%d:%d", &a.s.opencl_platform, &a.s.opencl_device);
            apis.push_back(a);
        } else if (d.backend == "gl") {
            Api a{"gl (" + d.name.substr(0, d.name.find(" (")) + ")", {}};
            a.s.backend = Backend::Gl;
            apis.push_back(a);
        } else if (d.backend == "cpu") {
            Api a{"cpu (FFTW, " + d.name.substr(d.name.find(", ") + 2) + ")", {}};
            a.s.backend = Backend::Cpu;
            apis.push_back(a);
        }
    }
    std::printf("\nmedians of %d runs after 3; window none, pad pow2, log-magnitude, 8-bit levels downloaded; ratio to %s\n",
                reps, cuda ? "cuFFT" : "FFTW");
    std::printf("%-6s %-58s %12s %12s %8s\n", "size", "backend", "run ms", "wall ms", "ratio");
    for (int n : sizes) {
        const std::vector<unsigned char> px = bench::synthetic_photo(n, n, 7);
        Image img = Image::allocate(n, n, 3, 8, "photo");
        std::copy(px.begin(), px.end(), img.writable());
        struct Row {
            std::string name, error;
            double run = 0, wall = 0;
            bool base = false;
        };
        std::vector<Row> rows;
        for (Api& a : apis) {
            a.s.window = Window::None;
            Row row{a.name, "", 0, 0, (cuda && a.s.backend == Backend::Cufft) || (!cuda && a.s.backend == Backend::Cpu)};
            try {
                Engine engine;
                engine.set_image(img, "photo");
                RunOptions o;
                o.picture = PictureFormat::Level8;
                std::vector<double> run, wall;
                for (int r = 0; r < reps + 3; ++r) {
                    const auto t0 = std::chrono::steady_clock::now();
                    const Frame f = engine.run(a.s, o);
                    const double w = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                    if (r >= 3) run.push_back(f.total_ms), wall.push_back(w);
                }
                row.run = median(run);
                row.wall = median(wall);
            } catch (const std::exception& e) {
                row.error = e.what();
            }
            rows.push_back(row);
        }
        double base = 0;
        for (const Row& r : rows)
            if (r.base && r.error.empty()) base = r.wall;
        for (const Row& r : rows) {
            if (!r.error.empty()) {
                std::printf("%-6d %-58s cannot run: %s\n", n, r.name.c_str(), r.error.c_str());
                continue;
            }
            char ratio[32] = "-";
            if (base > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", r.wall / base);
            std::printf("%-6d %-58s %12.3f %12.3f %8s\n", n, r.name.c_str(), r.run, r.wall, ratio);
        }
        std::fflush(stdout);
    }
    return 0;
}
