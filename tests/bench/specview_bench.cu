// specview-bench: our four-kernel pipeline and custom-fast against cuFFT and VkFFT, per kernel, with the device's
// copy bandwidth measured in the same run. Medians of many runs timed with CUDA events after warm-up; inputs are random and
// restored before every run (the transforms work in place). Prints a table and writes CSV.
//
//   specview-bench [--csv FILE] [--reps N] [--sizes 256,1024,...] [--no-sweep] [--quick]
// (A change's before and after: tests/device/ab.sh builds both commits and runs this on each, alternately.)
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gpu/common/spectrum_math.h"
#include "gpu/cufft/cufft_backend.h"
#include "gpu/runtime/cuda_check.h"
#include "gpu/runtime/device_info.h"
#include "gpu/fast/fft_fast.h"
#include "gpu/common/mixed_radix.h"
#include "gpu/custom/pipeline.h"
#include "gpu/runtime/resources.h"
#include "gpu/picture/spectrum_view.h"
#include "gpu/runtime/timing.h"
#include "tests/bench/measure.h"
#include "tests/bench/vkfft_peer.h"

using namespace specview;
using namespace specview::gpu;
using namespace specview::bench;

namespace {

std::string cfg_name(const CustomConfig& c, const Custom2DPlan& p) {
    char b[160];
    std::snprintf(b, sizeof b, "T%d H%d/%d L%d/%d tile%d", c.rows.threads_per_block, p.rows1.block_height,
                  p.rows2.block_height, p.rows1.local_len, p.rows2.local_len, c.transpose.tile);
    return b;
}

// custom-fast's R2C in the transposed layout (`got`: width/2 + 1 rows of height bins, on the device) against cuFFT
// R2C of the same plane, transposed on the host: relative L2.
double transposed_r2c_error(const float2* got_d, const float* plane, int w, int h, CufftBackend& cufft,
                            cudaStream_t s) {
    const long long ld = w / 2 + 1, m = ld * h;
    std::vector<float2> got(m), want(m);
    CUDA_CHECK(cudaMemcpyAsync(got.data(), got_d, m * sizeof(float2), cudaMemcpyDeviceToHost, s));
    const SpectrumSource src = cufft.forward_real(plane, w, h, CufftMode::R2C, s, nullptr);
    CUDA_CHECK(cudaMemcpyAsync(want.data(), src.data, m * sizeof(float2), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    double num = 0, den = 0;
    for (long long y = 0; y < h; ++y)
        for (long long u = 0; u < ld; ++u) {
            const float2 a = got[u * h + y], b = want[y * ld + u];
            num += double(a.x - b.x) * (a.x - b.x) + double(a.y - b.y) * (a.y - b.y);
            den += double(b.x) * b.x + double(b.y) * b.y;
        }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

struct Csv {
    std::ofstream out;
    void row(const std::string& size, const std::string& path, const std::string& config, const std::string& stage,
             double ms, double bytes, double copy_gbps) {
        if (!out) return;
        const double gbps = ms > 0 && bytes > 0 ? bytes / (ms * 1e6) : 0;
        out << size << ',' << path << ",\"" << config << "\"," << stage << ',' << ms << ',' << gbps << ','
            << (copy_gbps > 0 ? 100.0 * gbps / copy_gbps : 0) << '\n';
    }
};

}  // namespace

int main(int argc, char** argv) {
    std::string csv_path = "specview-bench.csv";
    int reps = 50;
    bool sweep = true;
    // --quick: custom-fast at FastFft's own block sizes only, none of its block-size sweeps (the C2C's, the picture's,
    // the exact sizes'): a shorter run for ab.sh's comparisons, which time what the engine runs.
    bool quick = false;
    std::vector<std::pair<int, int>> sizes;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--csv" && i + 1 < argc)
            csv_path = argv[++i];
        else if (a == "--reps" && i + 1 < argc)
            reps = std::max(5, std::atoi(argv[++i]));
        else if (a == "--no-sweep")
            sweep = false;
        else if (a == "--quick")
            quick = true;
        else if (a == "--sizes" && i + 1 < argc) {
            std::string list = argv[++i];
            for (std::size_t p = 0; p < list.size();) {
                const std::size_t q = list.find(',', p);
                const std::string item = list.substr(p, q == std::string::npos ? std::string::npos : q - p);
                const std::size_t x = item.find('x');
                if (x == std::string::npos)
                    sizes.push_back({std::atoi(item.c_str()), std::atoi(item.c_str())});
                else
                    sizes.push_back({std::atoi(item.substr(0, x).c_str()), std::atoi(item.substr(x + 1).c_str())});
                if (q == std::string::npos) break;
                p = q + 1;
            }
        } else {
            std::fprintf(
                stderr,
                "usage: %s [--csv FILE] [--reps N] [--sizes 256,1024,1920x1080,...] [--no-sweep] [--quick]\n"
                "  --no-sweep: no sweep of the seed pipeline's settings; --quick: none of custom-fast's block-size sweeps\n",
                argv[0]);
            return a == "--help" ? 0 : 2;
        }
    }
    if (sizes.empty())
        sizes = {{256, 256},   {512, 512},   {1024, 1024}, {2048, 2048}, {4096, 4096},
                 {8192, 8192}, {1920, 1080}, {3000, 2000}, {4032, 3024}};

    const DeviceInfo dev = probe_device(0);
    if (!dev.available) {
        std::fprintf(stderr, "specview-bench: no usable GPU: %s\n", dev.why_unavailable.c_str());
        return 4;
    }
    Stream stream;
    cudaStream_t s = stream.get();
    Csv csv;
    csv.out.open(csv_path);
    csv.out << "size,path,config,stage,median_ms,gbps,pct_of_copy\n";

    // The device's copy bandwidth: a 512 MiB device-to-device copy, bytes read + written.
    double copy_gbps = 0;
    {
        const std::size_t bytes = 512ull << 20;
        DeviceBuffer<unsigned char> x(bytes), y(bytes);
        CUDA_CHECK(cudaMemsetAsync(x.get(), 1, bytes, s));
        StageStats st = measure(3, 30, s, nullptr, [&](StageTimer& t) {
            CUDA_CHECK(cudaMemcpyAsync(y.get(), x.get(), bytes, cudaMemcpyDeviceToDevice, s));
            t.mark("copy", 2.0 * bytes);
        });
        copy_gbps = 2.0 * bytes / (st.median_total() * 1e6);
        csv.row("512MiB", "copy", "", "device-to-device copy", st.median_total(), 2.0 * bytes, copy_gbps);
    }
    std::printf("GPU: %s, %d SMs, %.0f GiB; device-to-device copy bandwidth %.0f GB/s (read + write, median of 30)\n",
                dev.name.c_str(), dev.sm_count, dev.total_memory / 1073741824.0, copy_gbps);
    std::printf("medians of %d runs after warm-up, CUDA events; %% = share of the copy bandwidth\n", reps);
    std::printf(
        "peers: cuFFT %d (toolkit); %s\n\n",
        [] {
            int v = 0;
            cufftGetVersion(&v);
            return v;
        }(),
        bench::vkfft_status().c_str());

    TwiddleTable tw;
    CufftBackend cufft;
    SpectrumViewer viewer;
    FastFft fast;
    std::mt19937 gen(12345);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    ViewParams vp;  // log-magnitude, auto range, gray, shifted: the default picture

    struct Summary {
        std::string size;
        double custom_default, custom_best, c2c, r2c, e2e_custom, e2e_c2c, e2e_r2c;
        std::string best_cfg;
        double fast_c2c, e2e_fast_cold, e2e_fast_warm;
        // Issue 13's columns: the peers at the image's own size (no padding), custom-fast R2C.
        double c2c_exact, r2c_exact, vk_c2c, vk_r2c, fast_r2c, e2e_r2c_exact;
        // custom-fast at the image's own size (0: a power of two, where the padded figures are the exact ones).
        double fast_c2c_x, fast_r2c_x, e2e_fast_x;
        double fast_r2c_t;          // custom-fast R2C into the transposed half spectrum (at the image's own size)
        double fast_c2c_x_default;  // custom-fast C2C at the image's own size at FastFft's own block sizes (0: none)
        // Whole runs (one event before, one after, as the peers are timed; see `whole`), at the image's own size:
        // custom-fast's and the picture's peer (cuFFT R2C + post).
        double w_c2c, w_r2c, w_r2c_t, w_pic;
        double w_peer_pic;
    };
    std::vector<Summary> summary;

    for (const auto& wh : sizes) {
        const int w0 = wh.first, h0 = wh.second;
        // Our pipeline needs powers of two: pad up, as the app does.
        int w = 1, h = 1;
        while (w < w0) w *= 2;
        while (h < h0) h *= 2;
        const std::string label =
            std::to_string(w0) + "x" + std::to_string(h0) +
            (w != w0 || h != h0 ? " (padded " + std::to_string(w) + "x" + std::to_string(h) + ")" : "");
        const long long n = (long long)w * h, n0 = (long long)w0 * h0;
        const int r = n >= (1 << 24) ? std::max(10, reps / 2) : reps;

        std::vector<float2> hc(n);
        std::vector<float> hr(n);
        for (auto& v : hc) v = make_float2(uni(gen), uni(gen));
        for (auto& v : hr) v = uni(gen) * 0.5f + 0.5f;
        DeviceBuffer<float2> pristine(n), a(n), b(n);
        DeviceBuffer<float> plane(n);
        DeviceBuffer<std::uint32_t> rgba(n);
        CUDA_CHECK(cudaMemcpy(pristine.get(), hc.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(plane.get(), hr.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        auto restore = [&] {
            CUDA_CHECK(cudaMemcpyAsync(a.get(), pristine.get(), n * sizeof(float2), cudaMemcpyDeviceToDevice, s));
        };
        // A run timed whole, as the peers' are: an event before it and one after, none between its kernels. (The
        // stage marks' events between custom-fast's kernels keep each from starting before the one before it has
        // ended and the event is recorded: PERF_NOTES.md m26.)
        auto whole = [&](const std::function<void()>& reset, const std::function<void()>& body, double bytes) {
            return measure(3, r, s, reset,
                           [&](StageTimer& t) {
                               body();
                               t.mark("whole run", bytes);
                           })
                .median_total();
        };
        double w_c2c = 0, w_r2c = 0, w_r2c_t = 0, w_pic = 0;

        auto run_custom = [&](const CustomConfig& cfg, int reps_, StageStats* out) {
            Custom2DPlan p = plan_custom_2d(w, h, cfg, dev, false);
            *out = measure(3, reps_, s, restore,
                           [&](StageTimer& t) { run_custom_2d(p, nullptr, a.get(), b.get(), false, {}, tw, s, &t); });
            return p;
        };

        // Default configuration, and seed 000's row-kernel hypotheses as switches on it: 2 x the local length in
        // threads a block (4.1), the last five stages by warp shuffles (5.2.2).
        CustomConfig def;
        StageStats st_def;
        Custom2DPlan p_def = run_custom(def, r, &st_def);
        CustomConfig c41 = def, c522 = def;
        c41.rows.threads_twice_length = true;
        c522.rows.warp_shuffles = true;
        StageStats st_41, st_522;
        Custom2DPlan p_41 = run_custom(c41, r, &st_41);
        Custom2DPlan p_522 = run_custom(c522, r, &st_522);

        // Sweep: threads per block x block height x local length at tile 32, then the tile for the best.
        CustomConfig best = def;
        double best_ms = st_def.median_total();
        int tried = 1;
        if (sweep) {
            const int sweep_reps = n >= (1 << 24) ? 5 : 9;
            for (int T : {64, 128, 256, 512, 1024})
                for (int H : {1, 2, 4, 8, 16})
                    for (int L : {0, 16384}) {
                        CustomConfig c;
                        c.rows = {T, H, L};
                        c.transpose.tile = 32;
                        StageStats st;
                        try {
                            run_custom(c, sweep_reps, &st);
                        } catch (const ConfigError&) {
                            continue;  // over this device's limits: not a candidate
                        }
                        ++tried;
                        if (st.median_total() < best_ms) {
                            best_ms = st.median_total();
                            best = c;
                        }
                    }
            for (int tile : {16, 64}) {
                CustomConfig c = best;
                c.transpose.tile = tile;
                StageStats st;
                run_custom(c, sweep_reps, &st);
                ++tried;
                if (st.median_total() < best_ms) {
                    best_ms = st.median_total();
                    best = c;
                }
            }
        }
        StageStats st_best;
        Custom2DPlan p_best = run_custom(best, r, &st_best);

        // cuFFT at the same (padded) size: C2C in place on complex data, R2C on the real plane.
        StageStats st_c2c = measure(3, r, s, restore, [&](StageTimer& t) {
            cufft.c2c(a.get(), w, h, false, s);
            t.mark("cuFFT C2C", double(n) * 16);
        });
        StageStats st_r2c = measure(
            3, r, s, nullptr, [&](StageTimer& t) { cufft.forward_real(plane.get(), w, h, CufftMode::R2C, s, &t); });
        // And at the image's own size when it is not a power of two (cuFFT needs no padding).
        double c2c_native = 0, r2c_native = 0;
        if (n0 != n) {
            c2c_native = measure(3, r, s, restore, [&](StageTimer& t) {
                             cufft.c2c(a.get(), w0, h0, false, s);
                             t.mark("cuFFT C2C", double(n0) * 16);
                         }).median_total();
            r2c_native = measure(3, r, s, nullptr, [&](StageTimer& t) {
                             cufft.forward_real(plane.get(), w0, h0, CufftMode::R2C, s, &t);
                         }).median_total();
        }

        // VkFFT at the image's own size (it pads nothing either): kernels compiled once (timed apart), then the same
        // timed runs as cuFFT. Its outputs are checked against cuFFT's on the same input.
        double vk_c2c = 0, vk_r2c = 0, vk_plan_c2c = 0, vk_plan_r2c = 0, vk_err_c2c = -1, vk_err_r2c = -1;
        std::string vk_why;
        DeviceBuffer<float2> half_a(std::size_t(w / 2 + 1) * h), half_b(std::size_t(w / 2 + 1) * h);
        if (bench::vkfft_built()) {
            try {
                const long long nh0 = (long long)(w0 / 2 + 1) * h0;
                {
                    bench::VkfftPlan plan(w0, h0, false, a.get(), a.get(), s);
                    vk_plan_c2c = plan.plan_ms();
                    vk_c2c = measure(3, r, s, restore, [&](StageTimer& t) {
                                 plan.forward();
                                 t.mark("VkFFT C2C", double(n0) * 16);
                             }).median_total();
                    restore();
                    plan.forward();
                    CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), n0 * sizeof(float2), cudaMemcpyDeviceToDevice, s));
                    restore();
                    cufft.c2c(a.get(), w0, h0, false, s);
                    CUDA_CHECK(cudaStreamSynchronize(s));
                    vk_err_c2c = rel_l2_device(b.get(), a.get(), n0);
                }
                {
                    bench::VkfftPlan plan(w0, h0, true, plane.get(), half_a.get(), s);
                    vk_plan_r2c = plan.plan_ms();
                    vk_r2c = measure(3, r, s, nullptr, [&](StageTimer& t) {
                                 plan.forward();
                                 t.mark("VkFFT R2C", double(n0) * 12);
                             }).median_total();
                    const SpectrumSource src = cufft.forward_real(plane.get(), w0, h0, CufftMode::R2C, s, nullptr);
                    CUDA_CHECK(cudaStreamSynchronize(s));
                    vk_err_r2c = rel_l2_device(half_a.get(), src.data, nh0);
                }
            } catch (const std::exception& e) {
                vk_why = e.what();
            }
        }
        // custom-fast R2C: real plane -> the half spectrum in cuFFT's layout (height rows of width/2 + 1), at the
        // padded size; checked against cuFFT R2C at that size. With the defaults the engine uses (the sweeps below
        // leave their best settings in `fast`: reset them, or this row would run with the previous size's).
        StageStats st_fast_r2c;
        double fast_r2c_err = 0;
        {
            fast.set_block_threads(256, 0);
            st_fast_r2c =
                measure(3, r, s, nullptr, [&](StageTimer& t) { fast.r2c(plane.get(), w, h, half_b.get(), s, &t); });
            if (n0 == n)
                w_r2c = whole(
                    nullptr, [&] { fast.r2c(plane.get(), w, h, half_b.get(), s, nullptr); }, double(n) * 12);
            const SpectrumSource src = cufft.forward_real(plane.get(), w, h, CufftMode::R2C, s, nullptr);
            CUDA_CHECK(cudaStreamSynchronize(s));
            fast_r2c_err = rel_l2_device(half_b.get(), src.data, (long long)(w / 2 + 1) * h);
        }
        StageStats st_fast_r2c_t;
        double fast_r2c_t_err = 0;
        {
            // The issue's other layout: the half spectrum transposed (width/2 + 1 rows of height bins), checked
            // against cuFFT's after a transpose on the host.
            st_fast_r2c_t = measure(3, r, s, nullptr,
                                    [&](StageTimer& t) { fast.r2c(plane.get(), w, h, half_b.get(), s, &t, true); });
            if (n0 == n)
                w_r2c_t = whole(
                    nullptr, [&] { fast.r2c(plane.get(), w, h, half_b.get(), s, nullptr, true); }, double(n) * 12);
            fast_r2c_t_err = transposed_r2c_error(half_b.get(), plane.get(), w, h, cufft, s);
        }

        // End to end: real plane on the device -> RGBA8 picture (log-magnitude, auto range, shift).
        StageStats e2e_custom = measure(3, r, s, nullptr, [&](StageTimer& t) {
            auto res = run_custom_2d(p_best, plane.get(), a.get(), b.get(), false, {}, tw, s, &t);
            viewer.run({res.data, w, h, w, false}, vp, PictureTarget{rgba.get()}, s, &t);
        });
        StageStats e2e_c2c = measure(3, r, s, nullptr, [&](StageTimer& t) {
            SpectrumSource src = cufft.forward_real(plane.get(), w, h, CufftMode::C2C, s, &t);
            viewer.run(src, vp, PictureTarget{rgba.get()}, s, &t);
        });
        StageStats e2e_r2c = measure(3, r, s, nullptr, [&](StageTimer& t) {
            SpectrumSource src = cufft.forward_real(plane.get(), w, h, CufftMode::R2C, s, &t);
            viewer.run(src, vp, PictureTarget{rgba.get()}, s, &t);
        });
        // The same at the image's own size, which cuFFT needs no padding for: what a user of cuFFT gets.
        double e2e_r2c_exact = e2e_r2c.median_total();
        if (n0 != n)
            e2e_r2c_exact = measure(3, r, s, nullptr, [&](StageTimer& t) {
                                SpectrumSource src = cufft.forward_real(plane.get(), w0, h0, CufftMode::R2C, s, &t);
                                viewer.run(src, vp, PictureTarget{rgba.get()}, s, &t);
                            }).median_total();

        const double w_peer_pic = whole(
            nullptr,
            [&] {
                SpectrumSource src = cufft.forward_real(plane.get(), w0, h0, CufftMode::R2C, s, nullptr);
                viewer.run(src, vp, PictureTarget{rgba.get()}, s, nullptr);
            },
            double(n0) * 8);

        // custom-fast: the two-pass C2C on the same complex data, and real plane -> picture, the range found
        // by its own pass each run (cold) or reused from the identical previous run (warm).
        // Block sizes: rows x columns kernels in turn; the fastest C2C is what the picture measurements use.
        StageStats st_fast;
        int fast_rows = 0, fast_cols = 0;
        std::string fast_sweep;
        // The block sizes the sweeps leave in `fast`: their best, or with --quick FastFft's own (rows 0: not set).
        auto use_blocks = [&](int rows, int cols) {
            if (rows == 0)
                fast.reset_block_threads();
            else
                fast.set_block_threads(rows, cols);
        };
        auto blocks_name = [](int rows, int cols) {
            return rows == 0 ? std::string("own blocks") : "R" + std::to_string(rows) + "/C" + std::to_string(cols);
        };
        if (quick) {
            fast.reset_block_threads();
            st_fast = measure(3, r, s, restore, [&](StageTimer& t) { fast.c2c(a.get(), b.get(), w, h, false, s, &t); });
            fast_sweep = " none (--quick: FastFft's own block sizes)";
        }
        if (!quick) {
            fast_sweep += fast.c2c_in_place(w, h) ? " (in place):" : ":";
            for (int rt : {256, 512, 1024})
                for (int ct : {256, 512, 1024}) {
                    fast.set_block_threads(rt, ct);
                    StageStats st = measure(3, r, s, restore,
                                            [&](StageTimer& t) { fast.c2c(a.get(), b.get(), w, h, false, s, &t); });
                    char buf[64];
                    std::snprintf(buf, sizeof buf, "  R%d/C%d %.4f", rt, ct, st.median_total());
                    fast_sweep += buf;
                    if (fast_rows == 0 || st.median_total() < st_fast.median_total()) {
                        st_fast = st;
                        fast_rows = rt;
                        fast_cols = ct;
                    }
                }
        }
        use_blocks(fast_rows, fast_cols);
        if (n0 == n)
            w_c2c = whole(
                restore, [&] { fast.c2c(a.get(), b.get(), w, h, false, s, nullptr); }, double(n) * 16);
        // What the engine runs at a power of two (FastFft's own block sizes), whole: the sweep's best above need not
        // be it (at 2048^2 the sweep took 1024-thread column blocks, FastFft 512, until m75).
        double w_c2c_own = 0;
        if (n0 == n) {
            fast.reset_block_threads();
            w_c2c_own = whole(
                restore, [&] { fast.c2c(a.get(), b.get(), w, h, false, s, nullptr); }, double(n) * 16);
            use_blocks(fast_rows, fast_cols);
        }
        const int one_blocks = fast.one_launch_blocks(w, h);
        // The picture's own sweep (its passes have other shapes): keep the faster.
        double best_pic = 1e30;
        int pic_rows = fast_rows, pic_cols = fast_cols;
        for (int rt : {256, 512, 1024})
            for (int ct : {512, 1024}) {
                if (quick) break;
                fast.set_block_threads(rt, ct);
                const double ms = measure(2, 9, s, nullptr, [&](StageTimer& t) {
                                      fast.picture(plane.get(), w, h, 0, vp, PictureTarget{rgba.get()}, s, &t);
                                  }).median_total();
                if (ms < best_pic) {
                    best_pic = ms;
                    pic_rows = rt;
                    pic_cols = ct;
                }
            }
        use_blocks(pic_rows, pic_cols);
        if (!quick)
            fast_sweep +=
                "\n                        picture best R" + std::to_string(pic_rows) + "/C" + std::to_string(pic_cols);
        StageStats e2e_fast_cold = measure(3, r, s, nullptr, [&](StageTimer& t) {
            fast.picture(plane.get(), w, h, 0, vp, PictureTarget{rgba.get()}, s, &t);
        });
        if (n0 == n)
            w_pic = whole(
                nullptr, [&] { fast.picture(plane.get(), w, h, 0, vp, PictureTarget{rgba.get()}, s, nullptr); },
                double(n) * 8);
        StageStats e2e_fast_warm = measure(3, r, s, nullptr, [&](StageTimer& t) {
            fast.picture(plane.get(), w, h, 42, vp, PictureTarget{rgba.get()}, s, &t);
        });
        // custom-fast at the image's own size when it is not a power of two (its mixed-radix kernels, issue 13):
        // C2C with the row block sizes swept, R2C and the picture; each checked against cuFFT at that size.
        StageStats st_fast_x, st_fast_x_default, st_fast_r2c_x, e2e_fast_x, st_fast_r2c_x_t;
        double fast_x_err_r2c_t = -1;
        double fast_x_err_c2c = -1, fast_x_err_r2c = -1;
        int fast_x_rows = 256, fast_x_cols = 0;
        std::string fast_x_sweep;
        if (n0 != n) {
            if (quick) {
                fast_x_rows = 0;
                fast.reset_block_threads();
                st_fast_x =
                    measure(3, r, s, restore, [&](StageTimer& t) { fast.c2c(a.get(), b.get(), w0, h0, false, s, &t); });
                fast_x_sweep = " none (--quick)";
            }
            for (int rt : {128, 256, 512, 1024})
                for (int ct : {384, 512, 768, 1024}) {
                    if (quick) break;
                    fast.set_block_threads(rt, ct);
                    StageStats st = measure(3, r, s, restore,
                                            [&](StageTimer& t) { fast.c2c(a.get(), b.get(), w0, h0, false, s, &t); });
                    char cell[64];
                    std::snprintf(cell, sizeof cell, " R%d/C%d %.4f", rt, ct, st.median_total());
                    fast_x_sweep += cell;
                    if (st_fast_x.names.empty() || st.median_total() < st_fast_x.median_total()) {
                        st_fast_x = st;
                        fast_x_rows = rt;
                        fast_x_cols = ct;
                    }
                }
            use_blocks(fast_x_rows, fast_x_cols);
            restore();
            fast.c2c(a.get(), b.get(), w0, h0, false, s, nullptr);
            CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), n0 * sizeof(float2), cudaMemcpyDeviceToDevice, s));
            restore();
            cufft.c2c(a.get(), w0, h0, false, s);
            CUDA_CHECK(cudaStreamSynchronize(s));
            fast_x_err_c2c = rel_l2_device(b.get(), a.get(), n0);
            // What the engine runs: the C2C at FastFft's own block sizes (mixed_c2c_threads), and R2C and the picture,
            // which are not swept, at theirs too.
            fast.reset_block_threads();
            st_fast_x_default =
                measure(3, r, s, restore, [&](StageTimer& t) { fast.c2c(a.get(), b.get(), w0, h0, false, s, &t); });
            st_fast_r2c_x =
                measure(3, r, s, nullptr, [&](StageTimer& t) { fast.r2c(plane.get(), w0, h0, half_b.get(), s, &t); });
            const SpectrumSource src = cufft.forward_real(plane.get(), w0, h0, CufftMode::R2C, s, nullptr);
            CUDA_CHECK(cudaStreamSynchronize(s));
            fast_x_err_r2c = rel_l2_device(half_b.get(), src.data, (long long)(w0 / 2 + 1) * h0);
            // Into the transposed layout (width/2 + 1 rows of height bins): checked against cuFFT's after a transpose
            // on the host.
            st_fast_r2c_x_t = measure(3, r, s, nullptr,
                                      [&](StageTimer& t) { fast.r2c(plane.get(), w0, h0, half_b.get(), s, &t, true); });
            fast_x_err_r2c_t = transposed_r2c_error(half_b.get(), plane.get(), w0, h0, cufft, s);
            e2e_fast_x = measure(3, r, s, nullptr, [&](StageTimer& t) {
                fast.picture(plane.get(), w0, h0, 0, vp, PictureTarget{rgba.get()}, s, &t);
            });
            w_c2c = whole(
                restore, [&] { fast.c2c(a.get(), b.get(), w0, h0, false, s, nullptr); }, double(n0) * 16);
            w_r2c = whole(
                nullptr, [&] { fast.r2c(plane.get(), w0, h0, half_b.get(), s, nullptr); }, double(n0) * 12);
            w_r2c_t = whole(
                nullptr, [&] { fast.r2c(plane.get(), w0, h0, half_b.get(), s, nullptr, true); }, double(n0) * 12);
            w_pic = whole(
                nullptr, [&] { fast.picture(plane.get(), w0, h0, 0, vp, PictureTarget{rgba.get()}, s, nullptr); },
                double(n0) * 8);
        }

        const double c2c = st_c2c.median_total();
        std::printf("== %s ==\n", label.c_str());
        auto print_stages = [&](const char* path, const std::string& cfg, const StageStats& st) {
            std::printf("  %-28s %-34s %9.4f ms  %5.2fx cuFFT C2C\n", path, cfg.c_str(), st.median_total(),
                        st.median_total() / c2c);
            csv.row(label, path, cfg, "total", st.median_total(), 0, copy_gbps);
            for (std::size_t i = 0; i < st.names.size(); ++i) {
                const double ms = median(st.ms[i]);
                const double gbps = st.bytes[i] / (ms * 1e6);
                std::printf("      %-36s %9.4f ms %8.0f GB/s %5.0f%% of copy\n", st.names[i].c_str(), ms, gbps,
                            100.0 * gbps / copy_gbps);
                csv.row(label, path, cfg, st.names[i], ms, st.bytes[i], copy_gbps);
            }
        };
        print_stages("custom (default)", cfg_name(def, p_def), st_def);
        print_stages("custom, 4.1: 2x threads", cfg_name(c41, p_41), st_41);
        print_stages("custom, 5.2.2: shuffles", cfg_name(c522, p_522), st_522);
        print_stages(("custom (best of " + std::to_string(tried) + ")").c_str(), cfg_name(best, p_best), st_best);
        print_stages("custom-fast C2C",
                     (one_blocks > 0 ? "one launch of " + std::to_string(one_blocks) + " blocks, " : "two passes, ") +
                         blocks_name(fast_rows, fast_cols),
                     st_fast);
        std::printf("      block-size sweep:%s\n", fast_sweep.c_str());
        std::printf("  %-28s %-34s %9.4f ms\n", "cuFFT C2C", "", c2c);
        std::printf("  %-28s %-34s %9.4f ms\n", "cuFFT R2C", "", st_r2c.median_total());
        csv.row(label, "cufft_c2c", "", "total", c2c, double(n) * 16, copy_gbps);
        csv.row(label, "cufft_r2c", "", "total", st_r2c.median_total(), double(n) * 12, copy_gbps);
        if (n0 != n) {
            std::printf("  %-28s %-34s %9.4f ms\n", "cuFFT C2C, unpadded", "", c2c_native);
            std::printf("  %-28s %-34s %9.4f ms\n", "cuFFT R2C, unpadded", "", r2c_native);
            csv.row(label, "cufft_c2c_unpadded", "", "total", c2c_native, double(n0) * 16, copy_gbps);
            csv.row(label, "cufft_r2c_unpadded", "", "total", r2c_native, double(n0) * 12, copy_gbps);
        }
        const double c2c_exact = n0 != n ? c2c_native : c2c, r2c_exact = n0 != n ? r2c_native : st_r2c.median_total();
        if (vk_c2c > 0) {
            std::printf("  %-28s %-34s %9.4f ms  (plan + NVRTC compile %.0f ms; vs cuFFT rel L2 %.2g)\n", "VkFFT C2C",
                        n0 != n ? "unpadded" : "", vk_c2c, vk_plan_c2c, vk_err_c2c);
            std::printf("  %-28s %-34s %9.4f ms  (plan + NVRTC compile %.0f ms; vs cuFFT rel L2 %.2g)\n", "VkFFT R2C",
                        n0 != n ? "unpadded" : "", vk_r2c, vk_plan_r2c, vk_err_r2c);
            csv.row(label, "vkfft_c2c", n0 != n ? "unpadded" : "", "total", vk_c2c, double(n0) * 16, copy_gbps);
            csv.row(label, "vkfft_r2c", n0 != n ? "unpadded" : "", "total", vk_r2c, double(n0) * 12, copy_gbps);
        } else {
            std::printf("  VkFFT: %s\n", vk_why.empty() ? bench::vkfft_status().c_str() : vk_why.c_str());
        }
        print_stages("custom-fast R2C", "half spectrum, cuFFT's layout", st_fast_r2c);
        std::printf("      vs cuFFT R2C rel L2 %.2g\n", fast_r2c_err);
        print_stages("custom-fast R2C, transposed out", "(width/2 + 1) x height", st_fast_r2c_t);
        std::printf("      vs cuFFT R2C rel L2 %.2g\n", fast_r2c_t_err);
        const double peer_c2c = vk_c2c > 0 ? std::min(c2c_exact, vk_c2c) : c2c_exact;
        const double peer_r2c = vk_r2c > 0 ? std::min(r2c_exact, vk_r2c) : r2c_exact;
        std::printf("  custom-fast / faster peer: C2C %.2fx, R2C %.2fx (transposed out %.2fx)%s\n",
                    st_fast.median_total() / peer_c2c, st_fast_r2c.median_total() / peer_r2c,
                    st_fast_r2c_t.median_total() / peer_r2c, n0 != n ? " (custom-fast padded)" : "");
        if (n0 != n) {
            print_stages("custom-fast C2C, unpadded", "mixed radix " + blocks_name(fast_x_rows, fast_x_cols),
                         st_fast_x);
            std::printf("      block-size sweep (ms):%s\n", fast_x_sweep.c_str());
            {
                const auto [rt, ct] = fast.mixed_c2c_threads(h0);
                print_stages("custom-fast C2C, unpadded, FastFft's block sizes",
                             "R" + std::to_string(rt) + "/C" + std::to_string(ct) + " (what the engine runs)",
                             st_fast_x_default);
                std::printf("      its ratio to the faster peer: %.2fx\n", st_fast_x_default.median_total() / peer_c2c);
            }
            std::printf("      vs cuFFT C2C rel L2 %.2g\n", fast_x_err_c2c);
            print_stages("custom-fast R2C, unpadded", "mixed radix", st_fast_r2c_x);
            std::printf("      vs cuFFT R2C rel L2 %.2g\n", fast_x_err_r2c);
            print_stages("custom-fast R2C, unpadded, transposed out", "mixed radix, (width/2 + 1) x height",
                         st_fast_r2c_x_t);
            std::printf("      vs cuFFT R2C rel L2 %.2g\n", fast_x_err_r2c_t);
            print_stages("custom-fast picture, unpadded", "mixed radix, range in the run", e2e_fast_x);
            std::printf(
                "  custom-fast unpadded / faster peer: C2C %.2fx, R2C %.2fx (transposed out %.2fx); picture / (cuFFT R2C + post) %.2fx\n",
                st_fast_x.median_total() / peer_c2c, st_fast_r2c_x.median_total() / peer_r2c,
                st_fast_r2c_x_t.median_total() / peer_r2c, e2e_fast_x.median_total() / e2e_r2c_exact);
        }
        std::printf(
            "  whole runs (no events between custom-fast's kernels), ms: C2C %.4f, R2C %.4f, R2C transposed %.4f, "
            "picture %.4f; cuFFT R2C + post %.4f\n",
            w_c2c, w_r2c, w_r2c_t, w_pic, w_peer_pic);
        if (w_c2c_own > 0) {
            std::printf(
                "  whole C2C at FastFft's own block sizes (what the engine runs), ms: %.4f (the sweep's best: %.4f)\n",
                w_c2c_own, w_c2c);
            csv.row(label, "custom-fast C2C, whole, FastFft's block sizes", "", "total", w_c2c_own, 0, copy_gbps);
        }
        const std::pair<const char*, double> wholes[] = {{"custom-fast C2C, whole", w_c2c},
                                                         {"custom-fast R2C, whole", w_r2c},
                                                         {"custom-fast R2C transposed, whole", w_r2c_t},
                                                         {"custom-fast picture, whole", w_pic}};
        for (const auto& [path, ms] : wholes) csv.row(label, path, "", "total", ms, 0, copy_gbps);
        csv.row(label, "cuFFT R2C + post, whole", "", "total", w_peer_pic, 0, copy_gbps);
        std::printf("  end to end, real plane -> RGBA8 picture:\n");
        print_stages("custom (best) + post", cfg_name(best, p_best), e2e_custom);
        print_stages("cuFFT C2C + post", "", e2e_c2c);
        print_stages("cuFFT R2C + post", "", e2e_r2c);
        print_stages("custom-fast, range in the run", "", e2e_fast_cold);
        print_stages("custom-fast, range reused", "", e2e_fast_warm);
        std::printf("  custom-fast picture / (cuFFT C2C + post) = %.2fx, / (cuFFT R2C + post) = %.2fx\n",
                    e2e_fast_cold.median_total() / e2e_c2c.median_total(),
                    e2e_fast_cold.median_total() / e2e_r2c.median_total());
        std::printf("\n");
        summary.push_back({label,
                           st_def.median_total(),
                           st_best.median_total(),
                           c2c,
                           st_r2c.median_total(),
                           e2e_custom.median_total(),
                           e2e_c2c.median_total(),
                           e2e_r2c.median_total(),
                           cfg_name(best, p_best),
                           st_fast.median_total(),
                           e2e_fast_cold.median_total(),
                           e2e_fast_warm.median_total(),
                           c2c_exact,
                           r2c_exact,
                           vk_c2c,
                           vk_r2c,
                           st_fast_r2c.median_total(),
                           e2e_r2c_exact,
                           n0 != n ? st_fast_x.median_total() : 0.0,
                           n0 != n ? st_fast_r2c_x.median_total() : 0.0,
                           n0 != n ? e2e_fast_x.median_total() : 0.0,
                           n0 != n ? st_fast_r2c_x_t.median_total() : st_fast_r2c_t.median_total(),
                           n0 != n ? st_fast_x_default.median_total() : 0.0,
                           w_c2c,
                           w_r2c,
                           w_r2c_t,
                           w_pic,
                           w_peer_pic});
    }

    std::printf("Summary on %s (copy %.0f GB/s), ms, medians:\n", dev.name.c_str(), copy_gbps);
    std::printf(
        "| size | custom default | custom best | best config | cuFFT C2C | cuFFT R2C | best/C2C | "
        "e2e custom | e2e C2C+post | e2e R2C+post |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& m : summary)
        std::printf("| %s | %.4f | %.4f | %s | %.4f | %.4f | %.2fx | %.4f | %.4f | %.4f |\n", m.size.c_str(),
                    m.custom_default, m.custom_best, m.best_cfg.c_str(), m.c2c, m.r2c, m.custom_best / m.c2c,
                    m.e2e_custom, m.e2e_c2c, m.e2e_r2c);
    std::printf("\ncustom-fast on %s, ms, medians (e2e = real plane on the device -> RGBA8 picture):\n",
                dev.name.c_str());
    std::printf(
        "| size | fast C2C | cuFFT C2C | fast/C2C | e2e fast | e2e fast, range reused | cuFFT C2C + post | fast / (C2C+post) | "
        "cuFFT R2C + post | fast / (R2C+post) |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& m : summary)
        std::printf("| %s | %.4f | %.4f | %.2fx | %.4f | %.4f | %.4f | %.2fx | %.4f | %.2fx |\n", m.size.c_str(),
                    m.fast_c2c, m.c2c, m.fast_c2c / m.c2c, m.e2e_fast_cold, m.e2e_fast_warm, m.e2e_c2c,
                    m.e2e_fast_cold / m.e2e_c2c, m.e2e_r2c, m.e2e_fast_cold / m.e2e_r2c);
    std::printf(
        "\nIssue 13 on %s, ms, medians; everything at the image's own size (custom-fast's mixed-radix kernels "
        "where it is not a power of two); targets: C2C and R2C <= 0.95x the faster peer (<= 1.0x at exact sizes), "
        "picture <= 0.6x (cuFFT R2C + post):\n",
        dev.name.c_str());
    // (the columns the issue named first, then what was added after: the C2C at FastFft's own block sizes)
    std::printf(
        "| size | fast C2C | cuFFT C2C | VkFFT C2C | C2C ratio | fast R2C | cuFFT R2C | VkFFT R2C | R2C ratio | "
        "fast R2C, transposed out | its ratio | picture | cuFFT R2C + post | picture ratio | "
        "fast C2C, its own block sizes | its ratio |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    auto ms_or_na = [](double v) { return v > 0 ? std::to_string(v).substr(0, 6) : std::string("n/a"); };
    for (const auto& m : summary) {
        const double pc = m.vk_c2c > 0 ? std::min(m.c2c_exact, m.vk_c2c) : m.c2c_exact;
        const double pr = m.vk_r2c > 0 ? std::min(m.r2c_exact, m.vk_r2c) : m.r2c_exact;
        const bool x = m.fast_c2c_x > 0;
        const double fc = x ? m.fast_c2c_x : m.fast_c2c, fr = x ? m.fast_r2c_x : m.fast_r2c,
                     fp = x ? m.e2e_fast_x : m.e2e_fast_cold;
        const std::string rt = m.fast_r2c_t > 0 ? ms_or_na(m.fast_r2c_t) : "n/a";
        char rtr[32] = "n/a";
        if (m.fast_r2c_t > 0) std::snprintf(rtr, sizeof rtr, "%.2fx", m.fast_r2c_t / pr);
        char own[32] = "n/a", own_ratio[32] = "n/a";  // (powers of two: the sweep's best is the default's path)
        if (m.fast_c2c_x_default > 0) {
            std::snprintf(own, sizeof own, "%.4f", m.fast_c2c_x_default);
            std::snprintf(own_ratio, sizeof own_ratio, "%.2fx", m.fast_c2c_x_default / pc);
        }
        std::printf(
            "| %s | %.4f | %.4f | %s | %.2fx | %.4f | %.4f | %s | %.2fx | %s | %s | %.4f | %.4f | %.2fx | %s | %s |\n",
            (x ? m.size.substr(0, m.size.find(' ')) : m.size).c_str(), fc, m.c2c_exact, ms_or_na(m.vk_c2c).c_str(),
            fc / pc, fr, m.r2c_exact, ms_or_na(m.vk_r2c).c_str(), fr / pr, rt.c_str(), rtr, fp, m.e2e_r2c_exact,
            fp / m.e2e_r2c_exact, own, own_ratio);
    }
    std::printf(
        "\nIssue 13, whole runs on %s (custom-fast timed as the peers are: one event before, one after; "
        "at the image's own size, at FastFft's own block sizes there; at powers of two at the settings of the staged rows "
        "above: C2C and the picture at the sweep's best), ms, medians:\n",
        dev.name.c_str());
    std::printf(
        "| size | fast C2C | C2C ratio | fast R2C | R2C ratio | R2C transposed | its ratio | "
        "picture | cuFFT R2C + post | picture ratio |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& m : summary) {
        const double pc = m.vk_c2c > 0 ? std::min(m.c2c_exact, m.vk_c2c) : m.c2c_exact;
        const double pr = m.vk_r2c > 0 ? std::min(m.r2c_exact, m.vk_r2c) : m.r2c_exact;
        std::printf("| %s | %.4f | %.2fx | %.4f | %.2fx | %.4f | %.2fx | %.4f | %.4f | %.2fx |\n",
                    m.size.substr(0, m.size.find(' ')).c_str(), m.w_c2c, m.w_c2c / pc, m.w_r2c, m.w_r2c / pr, m.w_r2c_t,
                    m.w_r2c_t / pr, m.w_pic, m.w_peer_pic, m.w_pic / m.w_peer_pic);
    }
    if (slowed_blocks.empty()) {
        std::printf(
            "\nNo timed block was slowed (median over %.1fx its measurement's fastest warm-up run, from %.2f ms).\n",
            kSlowBlock, kSlowBlockMinMs);
    } else {
        std::printf(
            "\nTimed blocks slowed as a whole (median over %.1fx the measurement's fastest warm-up run, from %.2f ms), "
            "timed again up to %d times, the smallest median kept: %zu\n",
            kSlowBlock, kSlowBlockMinMs, kSlowBlockRetries, slowed_blocks.size());
        for (const auto& b : slowed_blocks)
            std::printf("  median %.4f -> %.4f ms (fastest warm-up run %.4f)\n", b.first_ms, b.kept_ms,
                        b.warmup_best_ms);
    }
    std::printf("CSV: %s\n", csv_path.c_str());
    return 0;
}
