// What decoding in sandboxed child processes costs (app/io/decoder_pool.h), against decoding in this process, on
// photo-like 1920x1080 JPEGs (the batch case) and a 4096^2 PNG: median ms per image over repeated passes after a
// warm-up pass, one thread, pool warm, every sample read once after the load (as a consumer would); then
// images/s with several threads.
//
//   specview-decode-bench [IMAGES=40] [PASSES=5] [THREADS=cores]
//   specview-decode-bench --stack FILE [STREAMS...]   a stack's frames through load_frames_parallel, each sample
//                                                     touched, nothing else: frames/s per decoder count (the
//                                                     decoding side of --average alone; default 1 2 4 8)
//   specview-decode-bench --nvdec FILE                a video decoded on the GPU (app/io/video_gpu.h), in this
//                                                     process, every frame once: open time and frames/s
//   SPECVIEW_BENCH_CONSUME_MS=M specview-decode-bench --stack ...   the consumer also sleeps M ms a frame (a
//                                                     transform that does not compete for the cores): whether
//                                                     decoding overlaps it shows as max(decode, M) against their sum
#include <stb_image_write.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "app/io/decoder_pool.h"
#include "app/io/video_gpu.h"
#include "app/io/load/load.h"
#include "tests/bench/photo.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace specview;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Every sample read once, as whatever uses the image would (a mapping from the child is touched here first).
volatile unsigned g_sink = 0;
void consume(const Image& img) {
    const unsigned char* p = static_cast<const unsigned char*>(img.data());
    unsigned sum = 0;
    for (std::size_t i = 0, n = img.sample_bytes(); i < n; i += 64) sum += p[i];
    g_sink = g_sink + sum;
}

// Median over passes of the mean ms per image of one pass (the first pass is a warm-up).
double per_image_ms(const std::vector<std::string>& files, int passes,
                    const std::function<void(const std::string&)>& load) {
    std::vector<double> each;
    for (int p = 0; p <= passes; ++p) {
        const auto t0 = Clock::now();
        for (const auto& f : files) load(f);
        if (p > 0) each.push_back(ms_since(t0) / double(files.size()));
    }
    return median(each);
}

double images_per_s(const std::vector<std::string>& files, int threads, DecoderPool& pool, LoadLimits lim) {
    std::atomic<std::size_t> next{0};
    const std::size_t total = files.size() * 4;
    const auto t0 = Clock::now();
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
        ts.emplace_back([&] {
            for (std::size_t i; (i = next++) < total;) consume(pool.load(files[i % files.size()], lim));
        });
    for (auto& t : ts) t.join();
    return double(total) / (ms_since(t0) / 1000.0);
}

}  // namespace

// A stack decoded as --average decodes it, with a consumer that only touches the samples.
int stack_mode(const std::string& path, std::vector<int> streams) {
    if (streams.empty()) streams = {1, 2, 4, 8};
    LoadLimits lim;  // a stack's file may be larger than an image's (max_stack_file_bytes)
    for (int k : streams) {
        DecoderOptions o;
        o.processes = k;
        DecoderPool pool(o);
        int frames = 0;
        std::size_t bytes = 0;
        pool.load(path, lim);  // the children started and the file in the page cache
        const auto t0 = Clock::now();
        static const double consume_ms =
            std::getenv("SPECVIEW_BENCH_CONSUME_MS") ? std::atof(std::getenv("SPECVIEW_BENCH_CONSUME_MS")) : 0.0;
        pool.load_frames_parallel(
            path, lim, 0, INT_MAX, nullptr,
            [&](Image img) {
                consume(img);
                if (consume_ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(consume_ms));
                ++frames;
                bytes += img.sample_bytes();
                return true;
            },
            k);
        const double s = ms_since(t0) / 1000.0;
        std::printf("%s: %d frames, %d decoders: %.3f s, %.0f frames/s, %.2f GB/s of samples\n", path.c_str(), frames,
                    k, s, frames / s, double(bytes) / s / 1e9);
    }
    return 0;
}

// Decoding alone on the GPU: each frame released as soon as it is decoded, the device waited for at the end.
int nvdec_mode(const std::string& path) {
    try {
        auto t0 = Clock::now();
        auto v = open_gpu_video(path, LoadLimits{});
        const double open_ms = ms_since(t0);
        t0 = Clock::now();
        const int n = v->frames();
        for (int k = 0; k < n; ++k) v->decode(k, {});
        cudaError_t e = cudaDeviceSynchronize();
        const double s = ms_since(t0) / 1000.0;
        std::printf(
            "%s: %d frames of %dx%d by %s: opened (first frame decoded) in %.1f ms, then %.3f s, %.0f frames/s%s\n",
            path.c_str(), n, v->width(), v->height(), v->decoder().c_str(), open_ms, s, (n - 1) / s,
            e == cudaSuccess ? "" : " (CUDA error at the end)");
        return e == cudaSuccess ? 0 : 1;
    } catch (const std::exception& e) {
        std::printf("%s: not decoded on the GPU: %s\n", path.c_str(), e.what());
        return 1;
    }
}

int main(int argc, char** argv) {
    if (argc > 2 && std::string(argv[1]) == "--nvdec") return nvdec_mode(argv[2]);
    if (argc > 2 && std::string(argv[1]) == "--stack") {
        std::vector<int> streams;
        for (int i = 3; i < argc; ++i) streams.push_back(std::max(1, std::atoi(argv[i])));
        return stack_mode(argv[2], streams);
    }
    const int n = argc > 1 ? std::atoi(argv[1]) : 40;
    const int passes = argc > 2 ? std::atoi(argv[2]) : 5;
    const int threads = argc > 3 ? std::atoi(argv[3]) : int(std::max(1u, std::thread::hardware_concurrency()));
    const fs::path dir = fs::temp_directory_path() / ("specview-decode-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::vector<std::string> jpegs;
    for (int i = 0; i < n; ++i) {
        const auto px = bench::synthetic_photo(1920, 1080, unsigned(i + 1));
        jpegs.push_back((dir / ("p" + std::to_string(i) + ".jpg")).string());
        stbi_write_jpg(jpegs.back().c_str(), 1920, 1080, 3, px.data(), 90);
    }
    const std::string big = (dir / "big.png").string();
    {
        const auto px = bench::synthetic_photo(4096, 4096, 7);
        stbi_write_png_compression_level = 2;
        stbi_write_png(big.c_str(), 4096, 4096, 3, px.data(), 4096 * 3);
    }
    LoadLimits lim;
    DecoderOptions sandboxed;
    sandboxed.processes = threads;
    DecoderOptions plain = sandboxed;
    plain.sandbox = false;
    DecoderPool pool(sandboxed), pool_plain(plain);
    std::printf("decoder pool cost (%d cores here; pool sandboxed: %s)\n", int(std::thread::hardware_concurrency()),
                pool.sandboxed() ? "yes" : "no");
    std::printf("%-28s %12s %12s %12s %10s\n", "images", "in-process", "child", "child+seccomp", "overhead");
    auto row = [&](const char* what, const std::vector<std::string>& files) {
        const double a = per_image_ms(files, passes, [&](const std::string& f) { consume(load_image(f, lim)); });
        const double b = per_image_ms(files, passes, [&](const std::string& f) { consume(pool_plain.load(f, lim)); });
        const double c = per_image_ms(files, passes, [&](const std::string& f) { consume(pool.load(f, lim)); });
        std::printf("%-28s %9.2f ms %9.2f ms %9.2f ms %+7.2f ms\n", what, a, b, c, c - a);
    };
    row("1920x1080 JPEG q90 (median)", jpegs);
    row("4096x4096 RGB PNG", {big});
    std::printf("1920x1080 JPEGs, %d threads: %.0f images/s through the pool\n", threads,
                images_per_s(jpegs, threads, pool, lim));
    fs::remove_all(dir);
    return 0;
}
