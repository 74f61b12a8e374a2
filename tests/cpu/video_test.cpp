// Video through FFmpeg (builds with SPECVIEW_HAS_VIDEO): a moving grating written by the tests through the same
// libraries (lossless FFV1 in Matroska, lossy MPEG-4 and H.264 in MP4) decodes frame by frame to its luma, in
// this process and in the isolated video decoder (specview-video-decoder); each frame's spectral peak is where the grating's frequency puts it; damaged files are
// refused by name; the command line's --frame-range and --average take videos.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "app/io/decoder_pool.h"
#include "app/engine/engine.h"
#include "app/io/load/load.h"
#include "app/io/load/video_decode.h"
#include "tests/fixtures/image_writers.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

class Video : public ::testing::Test {
protected:
    void SetUp() override {
        if (!video_supported())
            GTEST_SKIP() << "this build has no video (FFmpeg's development packages were not found)";
    }
};

// Frame k: a vertical grating of (k + 2) cycles across, on mid gray.
std::vector<std::vector<std::uint8_t>> moving_grating(int w, int h, int frames) {
    return fixtures::moving_grating(w, h, frames, 90);
}

LoadLimits limits(int frame) {
    LoadLimits l;
    l.check_available_memory = false;
    l.frame = frame;
    return l;
}

// The strongest non-DC bin along u of row 0's frequency (v = 0) in the spectrum of the image.
int peak_u(const Image& img) {
    Engine e;
    e.set_image(img, "frame");
    Settings s;
    s.pad = PadMode::None;
    RunOptions o;
    o.want_spectrum = true;
    const Frame f = e.run(s, o);
    int best = 1;
    for (int k = 1; k <= f.width / 2; ++k)
        if (std::abs(f.spectrum[std::size_t(k)]) > std::abs(f.spectrum[std::size_t(best)])) best = k;
    return best;
}

TEST_F(Video, LosslessFramesDecodeExactlyAndThePeakMovesFrameByFrame) {
    const int w = 64, h = 48, n = 9;
    const auto frames = moving_grating(w, h, n);
    const std::vector<unsigned char> file = fixtures::video(w, h, frames, "ffv1", "matroska", 25);
    FrameReader reader(file, "g.mkv", limits(0));
    EXPECT_EQ(reader.format(), "video");
    for (int k : {0, 1, 2, 5, 5, 8, 3}) {  // forwards, the same frame again, then back (from the start again)
        const Image img = reader.decode(k);
        ASSERT_EQ(img.width, w);
        ASSERT_EQ(img.height, h);
        ASSERT_EQ(img.channels, 1);
        EXPECT_EQ(img.bit_depth, 8);
        EXPECT_EQ(img.frames, n);
        EXPECT_NEAR(img.frame_rate, 25.0, 1e-9);
        int wrong = 0;
        for (int i = 0; i < w * h; ++i)
            wrong += std::lround(img.sample(std::size_t(i)) * 255) != frames[std::size_t(k)][std::size_t(i)];
        EXPECT_EQ(wrong, 0) << "frame " << k << " is not the luma written";
        EXPECT_EQ(peak_u(img), k + 2) << "frame " << k;
    }
    EXPECT_THROW(reader.decode(n), InputError);
}

TEST_F(Video, LossyMp4FramesHaveTheirPeaksAndStreamThroughTheSandboxedDecoder) {
    const int w = 64, h = 64, n = 12;
    int codecs = 0;
    for (const char* codec : {"mpeg4", "libx264"}) {
        SCOPED_TRACE(codec);
        TempDir dir;
        try {
            fixtures::write_file(dir.file("g.mp4"), fixtures::video(w, h, moving_grating(w, h, n), codec, "mp4", 30));
        } catch (const std::runtime_error& e) {
            std::cout << "[ video    ] " << codec << " skipped: " << e.what() << "\n";
            continue;
        }
        ++codecs;
        DecoderPool pool(DecoderOptions{1});
        ASSERT_TRUE(pool.sandboxed());
        std::vector<int> peaks;
        const int got = pool.load_frames(dir.file("g.mp4"), LoadLimits{}, 0, n, {}, [&](Image img) {
            EXPECT_EQ(img.frames, n);
            EXPECT_NEAR(img.frame_rate, 30.0, 1e-6);
            peaks.push_back(peak_u(img));
            return true;
        });
        ASSERT_EQ(got, n);
        for (int k = 0; k < n; ++k) EXPECT_EQ(peaks[std::size_t(k)], k + 2) << "frame " << k;
        LoadLimits l;
        l.frame = 7;
        EXPECT_EQ(peak_u(pool.load(dir.file("g.mp4"), l)), 9);
        // One image helper (the sandbox probe) and one video helper, which served every request.
        EXPECT_EQ(pool.started(), 2) << "the video decoder died on " << codec;
    }
    EXPECT_GE(codecs, 1);
}

// 10-bit video (HEVC through libx265 where it takes 10-bit input): 16-bit samples, the 10-bit values widened to
// the full range (v << 6 | v >> 4), each frame's peak where its grating puts it.
TEST_F(Video, TenBitHevcDecodesToWidenedSixteenBitSamples) {
    const int w = 128, h = 64, n = 6;
    std::vector<unsigned char> file;
    try {
        file = fixtures::video(w, h, moving_grating(w, h, n), "libx265", "mp4", 24, 10);
    } catch (const std::runtime_error& e) {
        GTEST_SKIP() << "no 10-bit HEVC encoder: " << e.what();
    }
    VideoStack v(file, "g10.mp4");
    ASSERT_EQ(v.frames(), n);
    for (int k = 0; k < n; ++k) {
        const Image img = v.decode(k, [](const ImageHeader&) {});
        ASSERT_EQ(img.bit_depth, 16);
        const auto* p = reinterpret_cast<const std::uint16_t*>(img.data());
        std::size_t widened = 0;
        for (std::size_t i = 0; i < std::size_t(w) * h; ++i) widened += (p[i] & 63) == (p[i] >> 10);
        EXPECT_EQ(widened, std::size_t(w) * h) << "frame " << k << ": samples not widened from 10 bits";
        EXPECT_EQ(peak_u(img), k + 2) << "frame " << k;
    }
}

// A far frame is reached by a seek to the keyframe before it (then decoding forward), and is the same frame the
// decoder gives when it goes there from the start.
TEST_F(Video, FarFramesBySeekingEqualTheSequentialOnes) {
    const int w = 48, h = 32, n = 90;
    std::vector<std::vector<std::uint8_t>> frames;
    for (int k = 0; k < n; ++k) {
        std::vector<std::uint8_t> f(std::size_t(w) * h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) f[std::size_t(y) * w + x] = std::uint8_t((x * 5 + y * 3 + k * 7) % 256);
        frames.push_back(f);
    }
    for (const char* container : {"mp4", "matroska"}) {
        SCOPED_TRACE(container);
        const std::vector<unsigned char> file = fixtures::video(w, h, frames, "mpeg4", container, 25);
        FrameReader seq(file, "v", limits(0));
        std::vector<std::vector<float>> all;
        for (int k = 0; k < n; ++k) {
            const Image img = seq.decode(k);
            all.emplace_back();
            for (std::size_t i = 0; i < img.sample_count(); ++i) all.back().push_back(img.sample(i));
        }
        FrameReader jump(file, "v", limits(0));
        for (int k : {80, 3, 89, 45, 46, 10, 70}) {
            const Image img = jump.decode(k);
            ASSERT_EQ(img.sample_count(), all[std::size_t(k)].size());
            int diff = 0;
            for (std::size_t i = 0; i < img.sample_count(); ++i) diff += img.sample(i) != all[std::size_t(k)][i];
            EXPECT_EQ(diff, 0) << "frame " << k << " after a jump";
        }
    }
}

TEST_F(Video, DamagedFilesAreRefusedByName) {
    const std::vector<unsigned char> good = fixtures::video(32, 32, moving_grating(32, 32, 6), "mpeg4", "mp4", 25);
    int refused = 0;
    for (std::size_t cut : {std::size_t(16), good.size() / 3, good.size() / 2}) {
        try {
            FrameReader r(std::vector<unsigned char>(good.begin(), good.begin() + std::ptrdiff_t(cut)), "cut.mp4",
                          limits(0));
            (void)r;
        } catch (const InputError&) {}
        const std::vector<unsigned char> part(good.begin(), good.begin() + std::ptrdiff_t(cut));
        try {
            FrameReader r(part, "cut.mp4", limits(0));
            for (int k = 0; k < 6; ++k) r.decode(k);
        } catch (const InputError& e) {
            ++refused;
            EXPECT_EQ(std::string(e.what()).rfind("cut.mp4: ", 0), 0u) << e.what();
        }
    }
    EXPECT_GE(refused, 2);
    std::mt19937 rng(5);
    for (int k = 0; k < 60; ++k) {
        std::vector<unsigned char> bad = good;
        for (int j = 0; j < 6; ++j) bad[12 + rng() % (bad.size() - 12)] = std::uint8_t(rng());
        try {
            FrameReader r(bad, "flipped.mp4", limits(0));
            for (int f = 0; f < 6; ++f) {
                const Image img = r.decode(f);
                EXPECT_EQ(img.sample_count(), std::size_t(img.width) * img.height);
            }
        } catch (const InputError&) {}
    }
}

}  // namespace
}  // namespace specview::test
