// Video decoded on the GPU (app/io/video_gpu.h): NVDEC's luma equals the CPU decoder's sample for sample (H.264
// decoding is exact), forwards, by seeking and backwards; a GPU-decoded frame's spectrum equals the one of the
// same frame decoded on the CPU and uploaded; the caller may hold kGpuVideoFramesHeld frames while decoding on;
// the CPU backend refuses a device frame by name. Skips without a device, without FFmpeg, or where NVDEC is not
// offered (saying why); runs for real on the GPU machine.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>

#include "app/engine/engine.h"
#include "ui/worker/worker.h"
#include "app/io/load/video_decode.h"
#include "app/io/video_gpu.h"
#include "gpu/runtime/cuda_check.h"
#include "tests/fixtures/image_writers.h"
#include "tests/support/gpu_test.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

// Frame k: a vertical grating of (k + 2) cycles across, and a horizontal one of 3 (so rows differ), on mid gray.
std::vector<std::vector<std::uint8_t>> grating(int w, int h, int frames) {
    return fixtures::moving_grating(w, h, frames, 70, 20);
}

class Nvdec : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (IsSkipped()) return;
        if (!video_supported())
            GTEST_SKIP() << "this build has no video (FFmpeg's development packages were not found)";
    }
    // The grating video (n frames of w x h) written to `path` and opened on the GPU; null, with why in skip, where
    // either cannot be done here (no such encoder, no NVDEC).
    std::unique_ptr<GpuVideo> grating_video(const std::string& path, int w, int h, int n, const char* codec, int fps,
                                            int bits = 8) {
        try {
            fixtures::write_file(path, fixtures::video(w, h, grating(w, h, n), codec, "mp4", fps, bits));
        } catch (const std::runtime_error& e) {
            skip =
                std::string("no ") + codec + " encoder (" + std::to_string(bits) + "-bit) for the fixture: " + e.what();
            return nullptr;
        }
        try {
            return open_gpu_video(path, LoadLimits{});
        } catch (const GpuDecodeUnavailable& e) {
            skip = std::string("NVDEC not offered here: ") + e.what();
            return nullptr;
        }
    }
    std::string skip;
};

// The luma of a device frame, downloaded row by row from its pitch.
std::vector<std::uint8_t> download(const Image& img) {
    std::vector<std::uint8_t> out(std::size_t(img.width) * img.height * std::size_t(img.bytes_per_sample()));
    const std::size_t row = std::size_t(img.width) * std::size_t(img.bytes_per_sample());
    CUDA_CHECK(cudaMemcpy2D(out.data(), row, img.device->data, img.device->pitch, row, std::size_t(img.height),
                            cudaMemcpyDeviceToHost));
    return out;
}

std::vector<std::complex<float>> spectrum(Engine& e, const Image& img) {
    e.set_image(img, "frame");
    Settings s;
    s.backend = Backend::Cufft;
    s.pad = PadMode::None;
    RunOptions o;
    o.want_spectrum = true;
    return e.run(s, o).spectrum;
}

TEST_F(Nvdec, FramesEqualTheCpuDecodersAndSoDoTheirSpectra) {
    const int w = 320, h = 192, n = 40;
    TempDir dir;
    const std::string path = dir.file("g.mp4");
    std::unique_ptr<GpuVideo> gpu_video = grating_video(path, w, h, n, "libx264", 30);
    if (!gpu_video) GTEST_SKIP() << skip;
    std::cout << "[ nvdec    ] " << gpu_video->decoder() << ", " << gpu_video->frames() << " frames of "
              << gpu_video->width() << "x" << gpu_video->height() << "\n";
    ASSERT_EQ(gpu_video->frames(), n);
    EXPECT_NEAR(gpu_video->frame_rate(), 30.0, 1e-6);
    std::ifstream in(path, std::ios::binary);
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    VideoStack cpu(bytes, "g.mp4");
    Engine engine;
    int compared = 0;
    // Forwards, a far seek, back, the same frame again, and to the end.
    for (int k : {0, 1, 2, 3, 37, 5, 5, 20, 21, 39}) {
        SCOPED_TRACE("frame " + std::to_string(k));
        int headers = 0;
        const Image g = gpu_video->decode(k, [&](const ImageHeader& hd) {
            ++headers;
            EXPECT_EQ(hd.width, w);
            EXPECT_EQ(hd.height, h);
        });
        EXPECT_EQ(headers, 1);
        ASSERT_TRUE(g.on_device());
        ASSERT_EQ(g.width, w);
        ASSERT_EQ(g.height, h);
        EXPECT_EQ(g.bit_depth, 8);
        EXPECT_EQ(g.frame, k);
        EXPECT_EQ(g.frames, n);
        const Image c = cpu.decode(k, [](const ImageHeader&) {});
        ASSERT_FALSE(c.on_device());
        const std::vector<std::uint8_t> got = download(g);
        ASSERT_EQ(got.size(), c.sample_bytes());
        int wrong = 0;
        for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != static_cast<const std::uint8_t*>(c.data())[i];
        EXPECT_EQ(wrong, 0) << "NVDEC's luma differs from libavcodec's";
        const auto sg = spectrum(engine, g), sc = spectrum(engine, c);
        ASSERT_EQ(sg.size(), sc.size());
        double worst = 0;
        for (std::size_t i = 0; i < sg.size(); ++i) worst = std::max(worst, double(std::abs(sg[i] - sc[i])));
        EXPECT_EQ(worst, 0.0) << "the spectrum of the device frame is not the one of the uploaded frame";
        int peak = 1;
        for (int u = 1; u <= w / 2; ++u)
            if (std::abs(sg[std::size_t(u)]) > std::abs(sg[std::size_t(peak)])) peak = u;
        EXPECT_EQ(peak, k + 2);
        ++compared;
    }
    EXPECT_EQ(compared, 10);
    // The CPU backend cannot take a frame on the device: it says so, naming the option that decodes on the CPU.
    Engine cpu_engine;
    cpu_engine.set_image(gpu_video->decode(6, {}), "g.mp4");
    Settings s;
    s.backend = Backend::Cpu;
    try {
        cpu_engine.run(s);
        ADD_FAILURE() << "the CPU backend took a device frame";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--video-decode cpu"), std::string::npos) << e.what();
    }
}

// 10-bit HEVC: NVDEC's P010 surfaces (10 significant bits at the top of 16) widen exactly as the CPU decoder
// widens its 10-bit luma, so the 16-bit samples and the spectra are the same.
TEST_F(Nvdec, TenBitHevcWidensAsTheCpuDecoderDoes) {
    const int w = 256, h = 160, n = 8;
    TempDir dir;
    const std::string path = dir.file("g10.mp4");
    std::unique_ptr<GpuVideo> v = grating_video(path, w, h, n, "libx265", 24, 10);
    if (!v) GTEST_SKIP() << skip;
    std::cout << "[ nvdec    ] " << v->decoder() << ", 10-bit, " << v->frames() << " frames\n";
    std::ifstream in(path, std::ios::binary);
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    VideoStack cpu(bytes, "g10.mp4");
    Engine engine;
    for (int k : {0, 3, 7, 1}) {
        SCOPED_TRACE("frame " + std::to_string(k));
        const Image g = v->decode(k, {});
        const Image c = cpu.decode(k, [](const ImageHeader&) {});
        ASSERT_TRUE(g.on_device());
        ASSERT_EQ(g.bit_depth, 16);
        ASSERT_EQ(c.bit_depth, 16);
        EXPECT_EQ(g.device->significant_bits, 10);
        // The device samples as the plane sees them (widened), against the CPU's.
        Image host = download_device_image(g);
        ASSERT_EQ(host.sample_bytes(), c.sample_bytes());
        const auto* a = reinterpret_cast<const std::uint16_t*>(host.data());
        const auto* b = reinterpret_cast<const std::uint16_t*>(c.data());
        std::size_t wrong = 0, low_bits = 0;
        for (std::size_t i = 0; i < std::size_t(w) * h; ++i) {
            wrong += a[i] != b[i];
            low_bits += (b[i] >> 6) & 3;  // the 10-bit value's own low bits reached the samples
        }
        EXPECT_EQ(wrong, 0u) << "widened P010 luma differs from the CPU decoder's";
        EXPECT_GT(low_bits, 0u);
        const auto sg = spectrum(engine, g), sc = spectrum(engine, c);
        ASSERT_EQ(sg.size(), sc.size());
        double worst = 0;
        for (std::size_t i = 0; i < sg.size(); ++i) worst = std::max(worst, double(std::abs(sg[i] - sc[i])));
        EXPECT_EQ(worst, 0.0);
    }
}

// The viewer's stack analysis (mean power spectrum, one bin's series) of a video with a GPU backend runs on NVDEC's
// frames and that backend; it measures what the CPU's decoders and FFTW measure.
TEST_F(Nvdec, StackAnalysisOnTheGpuMeasuresWhatTheCpuMeasures) {
    const int w = 256, h = 128, n = 16;
    TempDir dir;
    const std::string path = dir.file("g.mp4");
    if (!grating_video(path, w, h, n, "libx264", 25)) GTEST_SKIP() << skip;
    auto measure = [&](Backend b) {
        Worker worker(2);
        Settings s;
        s.backend = b;
        s.pad = PadMode::None;
        worker.stack_analysis(s, path, 7, 0);
        worker.wait_idle();
        WorkerUpdates u = worker.poll();
        EXPECT_TRUE(u.stack && u.stack->ok) << (u.stack ? u.stack->error : "no result");
        return u.stack ? *u.stack : StackResult{};
    };
    const StackResult g = measure(Backend::Cufft), c = measure(Backend::Cpu);
    std::cout << "[ nvdec    ] stack analysis: " << g.how << " " << g.ms << " ms; " << c.how << " " << c.ms << " ms\n";
    EXPECT_NE(g.how.find("NVDEC"), std::string::npos) << g.how;
    EXPECT_EQ(c.how.find("NVDEC"), std::string::npos) << c.how;
    ASSERT_EQ(g.series.size(), std::size_t(n));
    ASSERT_EQ(c.series.size(), std::size_t(n));
    for (int k = 0; k < n; ++k)
        EXPECT_NEAR(g.series[std::size_t(k)], c.series[std::size_t(k)], 1e-4 * (1 + std::abs(c.series[std::size_t(k)])))
            << "frame " << k;
    ASSERT_EQ(g.rgba.size(), c.rgba.size());
    std::size_t far = 0;
    for (std::size_t i = 0; i < g.rgba.size(); ++i)
        for (int sh = 0; sh < 24; sh += 8)
            far += std::abs(int((g.rgba[i] >> sh) & 255) - int((c.rgba[i] >> sh) & 255)) > 1;
    EXPECT_EQ(far, 0u) << "mean power spectrum pictures differ by more than a level";
}

// Damaged videos through the in-process GPU decoder: refused at open (InputError or, where NVDEC will not take
// it, GpuDecodeUnavailable) or a frame's InputError, never a crash or a hang; frames that decode have their size.
TEST_F(Nvdec, DamagedVideosAreErrorsNotCrashes) {
    const int w = 320, h = 192, n = 24;
    TempDir dir;
    const std::string ok = dir.file("ok.mp4");
    if (!grating_video(ok, w, h, n, "libx264", 25)) GTEST_SKIP() << skip;
    std::ifstream in(ok, std::ios::binary);
    const std::vector<unsigned char> good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::mt19937 rng(7);
    int refused = 0, frame_errors = 0, decoded = 0;
    for (int c = 0; c < 12; ++c) {
        std::vector<unsigned char> b = good;
        if (c < 3)
            b.resize(b.size() * std::size_t(3 + 3 * c) / 10);  // truncated at 30%, 60%, 90%
        else if (c < 9) {
            for (int i = 0; i < 8 * (c - 2); ++i)
                b[std::uniform_int_distribution<std::size_t>(b.size() / 4, b.size() - 1)(rng)] ^= 0xA5;
        } else {
            for (int i = 0; i < 64; ++i)
                b[std::uniform_int_distribution<std::size_t>(0, std::min<std::size_t>(b.size() - 1, 4096))(rng)] = 0xFF;
        }
        const std::string path = dir.file("bad" + std::to_string(c) + ".mp4");
        fixtures::write_file(path, b);
        try {
            auto v = open_gpu_video(path, LoadLimits{});
            for (int k = 0; k < v->frames(); ++k) try {
                    const Image img = v->decode(k, {});
                    EXPECT_EQ(img.width, w);
                    EXPECT_EQ(img.height, h);
                    ++decoded;
                } catch (const InputError&) {
                    ++frame_errors;
                }
        } catch (const InputError&) {
            ++refused;
        } catch (const GpuDecodeUnavailable&) {
            ++refused;
        }
    }
    std::cout << "[ nvdec    ] damaged videos: " << refused << " refused, " << frame_errors << " frame errors, "
              << decoded << " frames decoded\n";
    EXPECT_GT(refused + frame_errors, 0) << "some damage must show";
    CUDA_CHECK(cudaDeviceSynchronize());  // and the device is fine afterwards
}

// A caller holding kGpuVideoFramesHeld frames (a queue between the decoder and the transforms) does not starve
// the decoder of surfaces; every held frame keeps its own samples.
TEST_F(Nvdec, HeldFramesKeepTheirSamplesWhileDecodingGoesOn) {
    const int w = 256, h = 144, n = 30;
    TempDir dir;
    const std::string path = dir.file("g.mp4");
    std::unique_ptr<GpuVideo> v = grating_video(path, w, h, n, "libx264", 25);
    if (!v) GTEST_SKIP() << skip;
    std::vector<Image> held;
    for (int k = 0; k < n; ++k) {
        held.push_back(v->decode(k, {}));
        if (int(held.size()) > kGpuVideoFramesHeld) held.erase(held.begin());
        // The oldest held frame still holds its grating (its strongest column frequency is its own).
        const Image& old = held.front();
        const std::vector<std::uint8_t> px = download(old);
        double best = 0;
        int peak = 0;
        for (int u = 1; u <= w / 2; ++u) {
            double re = 0, im = 0;
            for (int x = 0; x < w; ++x) {
                re += px[std::size_t(x)] * std::cos(2 * M_PI * u * x / w);
                im -= px[std::size_t(x)] * std::sin(2 * M_PI * u * x / w);
            }
            if (std::hypot(re, im) > best) best = std::hypot(re, im), peak = u;
        }
        EXPECT_EQ(peak, old.frame + 2) << "held frame " << old.frame << " changed under the decoder (at frame " << k
                                       << ")";
    }
}

}  // namespace
}  // namespace specview::test
