// The sandboxed decoder processes: the same pixels as decoding in-process, for every seed of the fuzz corpus
// and every regression file; a crash, a hang, a memory blow-up or a forbidden system call in a child becomes a
// clear error naming the file, and the pool goes on decoding.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "app/io/decoder_pool.h"
#include "app/io/load/load.h"
#include "tests/fixtures/image_writers.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

namespace fs = std::filesystem;

LoadLimits test_limits() {
    LoadLimits l;
    l.check_available_memory = false;
    return l;
}

std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file()) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

// In-process and pool agree: both refuse (with the same reason) or both give the same samples.
void expect_same(DecoderPool& pool, const std::string& path) {
    std::string want_error, got_error;
    Image want, got;
    try {
        want = load_image(path, test_limits());
    } catch (const InputError& e) {
        want_error = e.reason();
    }
    try {
        got = pool.load(path, test_limits());
    } catch (const DecodeError& e) {
        ASSERT_EQ(e.kind(), DecodeFailure::BadInput) << path << ": " << e.what();
        got_error = e.reason();
    }
    EXPECT_EQ(got_error, want_error) << path;
    if (!want_error.empty()) return;
    ASSERT_EQ(got.width, want.width) << path;
    ASSERT_EQ(got.height, want.height) << path;
    ASSERT_EQ(got.channels, want.channels) << path;
    ASSERT_EQ(got.bit_depth, want.bit_depth) << path;
    EXPECT_EQ(got.format, want.format) << path;
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.sample_bytes()), 0) << path;
}

TEST(DecoderPool, SamePixelsAsInProcessForEverySeedAndRegressionFile) {
    DecoderPool pool;
    int n = 0;
    for (const char* dir : {SPECVIEW_SEED_DIR, SPECVIEW_REGRESSION_DIR})
        for (const std::string& f : files_in(dir)) {
            expect_same(pool, f);
            ++n;
        }
    EXPECT_GT(n, 20);
    // Every one of those went through the children the pool started at first: no process per image.
    EXPECT_LE(pool.started(), 4);
}

TEST(DecoderPool, SandboxIsInPlace) {
    DecoderPool pool;
    if (!pool.sandboxed())
        GTEST_SKIP() << "this kernel refused the seccomp filter; the decoder runs in a plain child process";
    SUCCEED();
}

TEST(DecoderPool, RefusedFilesAreInputErrorsNamingTheFile) {
    TempDir dir;
    DecoderPool pool;
    fixtures::write_file(dir.file("junk.png"), {1, 2, 3, 4, 5, 6, 7, 8, 9});
    fs::create_directory(dir.file("d.png"));
    for (const std::string& f : {dir.file("junk.png"), dir.file("none.png"), dir.file("d.png")}) {
        try {
            pool.load(f, test_limits());
            ADD_FAILURE() << f << " was accepted";
        } catch (const InputError& e) {
            EXPECT_EQ(e.path(), f);
            EXPECT_FALSE(e.reason().empty());
        }
    }
    // A file whose name claims a format its bytes do not have is told so (the decoder falls back to TGA).
    fixtures::write_file(dir.file("junk.tif"), {1, 2, 3, 4, 5, 6, 7, 8, 9});
    try {
        pool.load(dir.file("junk.tif"), test_limits());
        ADD_FAILURE() << "junk.tif was accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.reason().rfind("not a readable image (no known signature", 0), 0u) << e.what();
        EXPECT_NE(e.reason().find("not a TIFF file: it does not start as one does"), std::string::npos) << e.what();
    }
    LoadLimits small = test_limits();
    small.max_side = 16;
    small.max_pixels = 256;
    fixtures::write_file(dir.file("big.png"), fixtures::png(fixtures::pattern(64, 8, 1), 8));
    EXPECT_THROW(pool.load(dir.file("big.png"), small), InputError);
}

TEST(DecoderPool, HeaderCheckSeesTheHeaderBeforeDecodingAndCanRefuse) {
    TempDir dir;
    fixtures::write_file(dir.file("a.png"), fixtures::png(fixtures::pattern(40, 30, 3), 16));
    DecoderPool pool({1});
    ImageHeader seen;
    const Image ok = pool.load(dir.file("a.png"), test_limits(), [&](const ImageHeader& h) { seen = h; });
    EXPECT_EQ(seen.width, 40);
    EXPECT_EQ(seen.height, 30);
    EXPECT_EQ(seen.channels, 3);
    EXPECT_EQ(seen.bit_depth, 16);
    EXPECT_EQ(seen.format, "png");
    EXPECT_EQ(ok.bit_depth, 16);
    EXPECT_THROW(pool.load(dir.file("a.png"), test_limits(),
                           [](const ImageHeader&) { throw InputError("x", "needs 3 GiB, 1 GiB is available"); }),
                 InputError);
    // The refusal went through the protocol: the same child decodes the next file.
    EXPECT_NO_THROW(pool.load(dir.file("a.png"), test_limits()));
    EXPECT_EQ(pool.started(), 1);
}

class DecoderSelftest : public ::testing::Test {
protected:
    void SetUp() override { setenv("SPECVIEW_DECODER_SELFTEST", "1", 1); }
    void TearDown() override { unsetenv("SPECVIEW_DECODER_SELFTEST"); }
    std::string file(const std::string& what) {
        const std::string p = dir_.file(what + ".png");
        const std::string body = "SPECVIEW-SELFTEST:" + what;
        fixtures::write_file(p, std::vector<unsigned char>(body.begin(), body.end()));
        return p;
    }
    std::string good() {
        const std::string p = dir_.file("good.png");
        fixtures::write_file(p, fixtures::png(fixtures::pattern(20, 10, 1), 8));
        return p;
    }
    DecodeFailure failure(DecoderPool& pool, const std::string& path, std::string* message = nullptr) {
        try {
            pool.load(path, test_limits());
        } catch (const DecodeError& e) {
            EXPECT_EQ(e.path(), path);
            if (message) *message = e.what();
            return e.kind();
        }
        return DecodeFailure::None;
    }
    TempDir dir_;
};

TEST_F(DecoderSelftest, CrashIsAnErrorAndThePoolGoesOn) {
    DecoderPool pool({1});
    std::string msg;
    EXPECT_EQ(failure(pool, file("crash"), &msg), DecodeFailure::Crashed);
    EXPECT_NE(msg.find("SIGSEGV"), std::string::npos) << msg;
    EXPECT_EQ(pool.load(good(), test_limits()).width, 20);
    EXPECT_EQ(pool.started(), 2);  // the crashed child was replaced
}

TEST_F(DecoderSelftest, HangIsStoppedAtTheTimeLimit) {
    DecoderOptions o;
    o.processes = 1;
    o.header_seconds = 1;
    o.base_seconds = 1;
    o.ns_per_sample = 0;
    DecoderPool pool(o);
    for (const char* what : {"hang", "hang-header"}) {
        const auto t0 = std::chrono::steady_clock::now();
        EXPECT_EQ(failure(pool, file(what)), DecodeFailure::TimedOut) << what;
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_GT(s, 0.9) << what;
        EXPECT_LT(s, 4.0) << what;
    }
    EXPECT_EQ(pool.load(good(), test_limits()).height, 10);
}

TEST_F(DecoderSelftest, MemoryBlowUpHitsTheLimitFromTheHeader) {
    DecoderPool pool({1});
    std::string msg;
    EXPECT_EQ(failure(pool, file("oom"), &msg), DecodeFailure::OutOfMemory) << msg;
    EXPECT_EQ(pool.load(good(), test_limits()).width, 20);
}

TEST_F(DecoderSelftest, ForbiddenSystemCallKillsOnlyTheChild) {
    DecoderPool pool({1});
    if (!pool.sandboxed()) GTEST_SKIP() << "no seccomp filter on this kernel";
    std::string msg;
    EXPECT_EQ(failure(pool, file("syscall"), &msg), DecodeFailure::Forbidden) << msg;
    EXPECT_EQ(pool.load(good(), test_limits()).width, 20);
}

TEST(DecoderPool, ManyThreadsAtOnce) {
    TempDir dir;
    const auto p = fixtures::pattern(33, 17, 3);
    fixtures::write_file(dir.file("a.png"), fixtures::png(p, 8));
    fixtures::write_file(dir.file("b.jpg"), fixtures::jpeg(p, 90));
    const Image a = load_image(dir.file("a.png"), test_limits()), b = load_image(dir.file("b.jpg"), test_limits());
    DecoderPool pool({3});
    std::atomic<int> bad{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 15; ++i) {
                const bool png = (i + t) % 2 == 0;
                const Image got = pool.load(dir.file(png ? "a.png" : "b.jpg"), test_limits());
                const Image& want = png ? a : b;
                if (got.sample_bytes() != want.sample_bytes() ||
                    std::memcmp(got.data(), want.data(), want.sample_bytes()) != 0)
                    ++bad;
            }
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(bad.load(), 0);
    EXPECT_LE(pool.started(), 3);
}

}  // namespace
}  // namespace specview::test
