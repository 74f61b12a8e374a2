// specview-volume-bench: a volume's 3D FFT on the GPU (issue 61, seed 000) against its peers in one run — cuFFT's 3D
// plans (C2C in place, R2C out of place and in place), VkFFT 3D, custom-fast's 3D C2C and R2C, the paper's "1D CUFFT plan over 3D data" (batched 1D cuFFT along
// each axis with our transposes between), the seed's pipeline (row FFT x3 with four transposes, and with the final two
// merged: section 5.1.2) — and the memory floor: one read and one write of the volume per axis at the device's
// copy bandwidth, measured here. Medians of many runs after warm-up (tests/bench/measure.h), CUDA events. "x best
// peer": against the faster of cuFFT and VkFFT of the same kind (C2C or R2C).
//
//   specview-volume-bench [--reps N] [--sizes 128,256,512,1024,2048x2048x128,1024x1024x100] [--csv FILE]
#include <cuda_runtime.h>
#include <cufft.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "gpu/custom/pipeline_3d.h"
#include "gpu/fast/fft_fast.h"
#include "gpu/runtime/cuda_check.h"
#include "gpu/runtime/device_info.h"
#include "gpu/runtime/resources.h"
#include "tests/bench/measure.h"
#include "tests/bench/vkfft_peer.h"

using namespace specview;
using namespace specview::gpu;
using namespace specview::bench;

namespace {

struct Size {
    int w, h, d;
    std::string label() const {
        return w == h && h == d ? std::to_string(w) + "^3"
                                : std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d);
    }
    bool pow2() const { return !(w & (w - 1)) && !(h & (h - 1)) && !(d & (d - 1)); }
};

bool parse_size(const std::string& t, Size* s) {
    int a = 0, b = 0, c = 0;
    char tail = 0;
    if (std::sscanf(t.c_str(), "%dx%dx%d%c", &a, &b, &c, &tail) == 3 && a > 0 && b > 0 && c > 0) {
        *s = {a, b, c};
        return true;
    }
    if (std::sscanf(t.c_str(), "%d%c", &a, &tail) == 1 && a > 0) {
        *s = {a, a, a};
        return true;
    }
    return false;
}

// "(passes 0.106 + 0.104 + 0.102)": each timed stage's median, ms.
std::string pass_medians(const StageStats& st) {
    std::string per;
    for (std::size_t i = 0; i < st.names.size(); ++i) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s%.3f", i ? " + " : "(passes ", median(st.ms[i]));
        per += buf;
    }
    return per + ")";
}

struct Row {
    std::string name;
    double ms = 0, err = -1;  // err: rel L2 against cuFFT C2C (R2C rows: cuFFT R2C; -1: not compared)
    std::string note;
};

}  // namespace

int main(int argc, char** argv) {
    int reps = 20;
    std::string csv_path;
    std::vector<Size> sizes;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--reps" && i + 1 < argc) {
            reps = std::max(3, std::atoi(argv[++i]));
        } else if (a == "--csv" && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (a == "--sizes" && i + 1 < argc) {
            std::string list = argv[++i];
            std::size_t p = 0;
            while (p <= list.size()) {
                const std::size_t q = std::min(list.find(',', p), list.size());
                Size s{};
                if (!parse_size(list.substr(p, q - p), &s)) {
                    std::fprintf(stderr, "specview-volume-bench: bad size '%s'\n", list.substr(p, q - p).c_str());
                    return 2;
                }
                sizes.push_back(s);
                p = q + 1;
            }
        } else {
            std::fprintf(stderr,
                         "usage: %s [--reps N] [--sizes 128,256,512,1024,2048x2048x128,1024x1024x100] [--csv FILE]\n",
                         argv[0]);
            return a == "--help" ? 0 : 2;
        }
    }
    if (sizes.empty()) sizes = {{128, 128, 128}, {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024},
                                {2048, 2048, 128}, {1024, 1024, 100}};
    const DeviceInfo dev = probe_device(0);
    if (!dev.available) {
        std::fprintf(stderr, "specview-volume-bench: no usable GPU: %s\n", dev.why_unavailable.c_str());
        return 4;
    }
    CUDA_CHECK(cudaSetDevice(dev.device));
    Stream stream;
    cudaStream_t s = stream.get();
    std::ofstream csv;
    if (!csv_path.empty()) {
        csv.open(csv_path);
        csv << "size,path,median_ms,x_floor,x_best_peer,rel_l2_vs_cufft\n";
    }
    // The copy bandwidth (read + write) of a 512 MiB device-to-device copy.
    double copy_gbps = 0;
    {
        const std::size_t bytes = std::size_t(512) << 20;
        DeviceBuffer<char> x(bytes), y(bytes);
        const StageStats st = measure(3, 20, s, nullptr, [&](StageTimer& t) {
            CUDA_CHECK(cudaMemcpyAsync(y.get(), x.get(), bytes, cudaMemcpyDeviceToDevice, s));
            t.mark("copy", 2.0 * bytes);
        });
        copy_gbps = 2.0 * bytes / (st.median_total() * 1e6);
    }
    std::printf("GPU: %s, %.0f GiB; copy bandwidth %.0f GB/s (read + write); medians of %d runs; %s\n",
                dev.name.c_str(), double(dev.total_memory) / (1 << 30), copy_gbps, reps, vkfft_status().c_str());
    std::printf("floor: one read and one write of the complex volume per axis (C2C, 48 B/voxel; R2C 4 + 8 + 8 + 8 + 8 "
                "+ 8 B per voxel over the half spectrum)\n");
    TwiddleTable tw;
    std::mt19937 rng(12345);
    for (const Size& z : sizes) {
        const long long n = (long long)z.w * z.h * z.d, hw = z.w / 2 + 1, nh = hw * z.h * z.d;
        const double floor_c2c = 48.0 * n / (copy_gbps * 1e6);
        const double floor_r2c = (4.0 * n + 8.0 * nh + 4 * 8.0 * nh) / (copy_gbps * 1e6);
        std::size_t free_b = 0, total_b = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        // a, b, the input and cuFFT's C2C answer (8 B a voxel each), the real volume (4) and FFTW's padded layout of it
        // (4), cuFFT's workspace (about 8).
        if (double(n) * 48 > double(free_b)) {
            std::printf("\n%s: skipped (needs about %.1f GiB, %.1f free)\n", z.label().c_str(), n * 48.0 / (1 << 30),
                        double(free_b) / (1 << 30));
            continue;
        }
        DeviceBuffer<float2> a(n), b(n), ref(n);
        std::vector<float2> host(n);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (auto& v : host) v = make_float2(u(rng), 0.0f);  // a real volume, as a C2C's input
        CUDA_CHECK(cudaMemcpy(ref.get(), host.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
        auto restore = [&] { CUDA_CHECK(cudaMemcpyAsync(a.get(), ref.get(), n * sizeof(float2), cudaMemcpyDeviceToDevice, s)); };
        std::vector<Row> rows;
        std::printf("\n%s (%.0f MiB complex)\n", z.label().c_str(), n * 8.0 / (1 << 20));
        // cuFFT C2C 3D in place: the reference for every other C2C.
        DeviceBuffer<float2> want(n);
        {
            CufftPlan p;
            p.make_3d(z.d, z.h, z.w, CUFFT_C2C, s);
            const StageStats st = measure(3, reps, s, restore, [&](StageTimer& t) {
                CUFFT_CHECK(cufftExecC2C(p.get(), reinterpret_cast<cufftComplex*>(a.get()),
                                         reinterpret_cast<cufftComplex*>(a.get()), CUFFT_FORWARD));
                t.mark("cufft c2c", 16.0 * n);
            });
            rows.push_back({"cuFFT C2C 3D (in place)", st.median_total(), -1, ""});
            CUDA_CHECK(cudaMemcpyAsync(want.get(), a.get(), n * sizeof(float2), cudaMemcpyDeviceToDevice, s));
        }
        // custom-fast's 3D C2C: three passes (rows along x; each slab's columns along y, a batch; the columns along z).
        if (FastFft::c2c_3d_supported(z.w, z.h, z.d)) {
            FastFft fast;
            const StageStats st = measure(3, reps, s, restore, [&](StageTimer& t) {
                fast.c2c_3d(a.get(), z.w, z.h, z.d, false, s, &t);
            });
            CUDA_CHECK(cudaStreamSynchronize(s));
            rows.push_back({"custom-fast C2C 3D (3 passes, in place)", st.median_total(),
                            rel_l2_device(a.get(), want.get(), n), pass_medians(st)});
        } else {
            rows.push_back({"custom-fast C2C 3D", 0, -1, "not at this size (powers of two to 4096 a side)"});
        }
        // The real volume for R2C: the real parts of ref.
        DeviceBuffer<float> real(n);
        {
            std::vector<float> r(n);
            for (long long i = 0; i < n; ++i) r[i] = host[i].x;
            CUDA_CHECK(cudaMemcpy(real.get(), r.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        }
        {
            CufftPlan p;
            p.make_3d(z.d, z.h, z.w, CUFFT_R2C, s);
            const StageStats st = measure(3, reps, s, nullptr, [&](StageTimer& t) {
                CUFFT_CHECK(cufftExecR2C(p.get(), real.get(), reinterpret_cast<cufftComplex*>(b.get())));
                t.mark("cufft r2c", 12.0 * n);
            });
            rows.push_back({"cuFFT R2C 3D (out of place)", st.median_total(), -1, ""});
        }
        // In place in FFTW's r2c layout (rows of 2 (w/2 + 1) floats), as the volume engine runs them: cuFFT's R2C and
        // custom-fast's (real rows in pairs along x, then the half spectrum's columns along y and z), against the
        // out-of-place answer in b.
        {
            const long long lines = (long long)z.h * z.d, stride = 2 * hw;
            DeviceBuffer<float> padded(std::size_t(lines * stride));
            auto fill = [&] {
                CUDA_CHECK(cudaMemcpy2DAsync(padded.get(), stride * sizeof(float), real.get(), z.w * sizeof(float),
                                             z.w * sizeof(float), std::size_t(lines), cudaMemcpyDeviceToDevice, s));
            };
            const auto* half = reinterpret_cast<const float2*>(padded.get());
            {
                CufftPlan p;
                p.make_3d(z.d, z.h, z.w, CUFFT_R2C, s);
                const StageStats st = measure(3, reps, s, fill, [&](StageTimer& t) {
                    CUFFT_CHECK(cufftExecR2C(p.get(), padded.get(), reinterpret_cast<cufftComplex*>(padded.get())));
                    t.mark("cufft r2c in place", 12.0 * n);
                });
                CUDA_CHECK(cudaStreamSynchronize(s));
                rows.push_back({"cuFFT R2C 3D (in place)", st.median_total(), rel_l2_device(half, b.get(), nh), ""});
            }
            if (FastFft::c2c_3d_supported(z.w, z.h, z.d)) {
                FastFft fast;
                const StageStats st = measure(3, reps, s, fill, [&](StageTimer& t) {
                    fast.r2c_3d(padded.get(), z.w, z.h, z.d, s, &t);
                });
                CUDA_CHECK(cudaStreamSynchronize(s));
                rows.push_back({"custom-fast R2C 3D (3 passes, in place)", st.median_total(),
                                rel_l2_device(half, b.get(), nh), pass_medians(st)});
            } else {
                rows.push_back({"custom-fast R2C 3D", 0, -1, "not at this size (powers of two to 4096 a side)"});
            }
        }
        // VkFFT 3D.
        if (vkfft_built()) {
            try {
                VkfftPlan p(z.w, z.h, false, a.get(), a.get(), s, z.d);
                const StageStats st = measure(3, reps, s, restore, [&](StageTimer& t) {
                    p.forward();
                    t.mark("vkfft c2c", 16.0 * n);
                });
                CUDA_CHECK(cudaStreamSynchronize(s));
                rows.push_back({"VkFFT C2C 3D (in place)", st.median_total(), rel_l2_device(a.get(), want.get(), n),
                                "plan + NVRTC " + std::to_string(int(p.plan_ms())) + " ms"});
            } catch (const std::exception& e) {
                rows.push_back({"VkFFT C2C 3D", 0, -1, e.what()});
            }
            try {
                VkfftPlan p(z.w, z.h, true, real.get(), b.get(), s, z.d);
                const StageStats st = measure(3, reps, s, nullptr, [&](StageTimer& t) {
                    p.forward();
                    t.mark("vkfft r2c", 12.0 * n);
                });
                rows.push_back({"VkFFT R2C 3D (out of place)", st.median_total(), -1,
                                "plan + NVRTC " + std::to_string(int(p.plan_ms())) + " ms"});
            } catch (const std::exception& e) {
                rows.push_back({"VkFFT R2C 3D", 0, -1, e.what()});
            }
        }
        const TransposeConfig tile{32};
        // The paper's "1D CUFFT plan over 3D data": batched 1D cuFFT along x, y, z with our transposes between.
        {
            auto plan1d = [&](int len, long long batch) {
                cufftHandle h = 0;
                int nn[1] = {len};
                CUFFT_CHECK(cufftPlanMany(&h, 1, nn, nullptr, 1, len, nullptr, 1, len, CUFFT_C2C, int(batch)));
                CUFFT_CHECK(cufftSetStream(h, s));
                return h;
            };
            cufftHandle px = plan1d(z.w, (long long)z.h * z.d), py = plan1d(z.h, (long long)z.w * z.d),
                        pz = plan1d(z.d, (long long)z.w * z.h);
            const long long plane = (long long)z.w * z.h;
            TransposeShape slabs{z.h, z.w, z.w, z.h, z.d, plane, plane};
            TransposeShape zt{z.d, int(plane), plane, z.d, 1, 0, 0};
            TransposeShape back{int(plane), z.d, z.d, plane, 1, 0, 0};
            TransposeShape slabs_back{z.w, z.h, z.h, z.w, z.d, plane, plane};
            auto* A = reinterpret_cast<cufftComplex*>(a.get());
            auto* B = reinterpret_cast<cufftComplex*>(b.get());
            const StageStats st = measure(3, reps, s, restore, [&](StageTimer& t) {
                CUFFT_CHECK(cufftExecC2C(px, A, A, CUFFT_FORWARD));
                t.mark("1D x", 16.0 * n);
                run_transpose(a.get(), b.get(), slabs, tile, s);
                t.mark("T", 16.0 * n);
                CUFFT_CHECK(cufftExecC2C(py, B, B, CUFFT_FORWARD));
                t.mark("1D y", 16.0 * n);
                run_transpose(b.get(), a.get(), zt, tile, s);
                t.mark("T", 16.0 * n);
                CUFFT_CHECK(cufftExecC2C(pz, A, A, CUFFT_FORWARD));
                t.mark("1D z", 16.0 * n);
                run_transpose(a.get(), b.get(), back, tile, s);
                t.mark("T", 16.0 * n);
                run_transpose(b.get(), a.get(), slabs_back, tile, s);
                t.mark("T", 16.0 * n);
            });
            CUDA_CHECK(cudaStreamSynchronize(s));
            rows.push_back({"1D cuFFT x3 + 4 transposes (paper)", st.median_total(), rel_l2_device(a.get(), want.get(), n),
                            ""});
            cufftDestroy(px);
            cufftDestroy(py);
            cufftDestroy(pz);
        }
        // The seed pipeline: default knobs, four transposes and the final two merged (5.1.2); 2 x the local length in
        // threads a block (4.1), the last five stages by warp shuffles (5.2.2) and the next axis's first stages in
        // each pass (5.1.1), with four.
        if (z.pow2()) {
            for (int variant : {0, 1, 2, 3, 4}) {
                const bool merge = variant == 1;
                CustomConfig knobs;
                knobs.rows.threads_twice_length = variant == 2;
                knobs.rows.warp_shuffles = variant == 3;
                knobs.rows.next_axis_stages = variant == 4;
                const Custom3DPlan p = plan_custom_3d(z.w, z.h, z.d, knobs, dev, merge);
                float2* out = nullptr;
                const StageStats st = measure(3, reps, s, restore, [&](StageTimer& t) {
                    out = run_custom_3d(p, a.get(), b.get(), false, tw, s, &t);
                });
                CUDA_CHECK(cudaStreamSynchronize(s));
                std::string per;
                for (std::size_t i = 0; i < st.names.size(); ++i) {
                    char buf[96];
                    std::snprintf(buf, sizeof buf, "%s%s %.3f", i ? ", " : "", st.names[i].c_str(), median(st.ms[i]));
                    per += buf;
                }
                rows.push_back({variant == 1   ? "seed pipeline, 3 transposes (5.1.2)"
                                : variant == 2 ? "seed pipeline, 2 x length threads (4.1)"
                                : variant == 3 ? "seed pipeline, warp shuffles (5.2.2)"
                                : variant == 4 ? "seed pipeline, next axis's stages (5.1.1)"
                                               : "seed pipeline, 4 transposes",
                                st.median_total(), rel_l2_device(out, want.get(), n), per});
            }
        } else {
            rows.push_back({"seed pipeline", 0, -1, "radix 2: not at this size"});
        }
        // The peers' best of each kind: cuFFT's and VkFFT's rows (ours never count).
        double best_c2c = 0, best_r2c = 0;
        for (const Row& r : rows) {
            const bool peer = r.name.rfind("cuFFT ", 0) == 0 || r.name.rfind("VkFFT ", 0) == 0;
            double& best = r.name.find("R2C") != std::string::npos ? best_r2c : best_c2c;
            if (peer && r.ms > 0 && (best == 0 || r.ms < best)) best = r.ms;
        }
        for (const Row& r : rows) {
            const bool r2c = r.name.find("R2C") != std::string::npos;
            const double fl = r2c ? floor_r2c : floor_c2c, best = r2c ? best_r2c : best_c2c;
            if (r.ms <= 0) {
                std::printf("  %-38s %s\n", r.name.c_str(), r.note.c_str());
                continue;
            }
            std::printf("  %-38s %9.3f ms  %5.2fx floor  %5.2fx best peer %s", r.name.c_str(), r.ms, r.ms / fl,
                        r.ms / best, r2c ? "R2C" : "C2C");
            if (r.err >= 0) std::printf("  rel L2 %.1e", r.err);
            if (!r.note.empty()) std::printf("  (%s)", r.note.c_str());
            std::printf("\n");
            if (csv) csv << z.label() << ",\"" << r.name << "\"," << r.ms << ',' << r.ms / fl << ',' << r.ms / best
                         << ',' << r.err << '\n';
        }
        std::printf("  floor C2C %.3f ms, R2C %.3f ms\n", floor_c2c, floor_r2c);
    }
    if (!slowed_blocks.empty())
        std::printf("\n%zu timed blocks were slowed as a whole and timed again (kept the faster)\n", slowed_blocks.size());
    return 0;
}
