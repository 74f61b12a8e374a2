// Scientific formats: TIFF through libtiff (every sample format, strips and tiles, contiguous and separate planes,
// compressions, byte orders, multi-page, min-is-white, palette) and .npy arrays (every dtype, both byte orders,
// C and Fortran order, 2D and 3D stacks), against the values the fixtures wrote and, where Debian's tifffile is
// there, against what numpy reads; NaN/Inf replaced by the mean with a count; bad files refused by name; the
// isolated decoder passes the frame through; --frame on the command line.
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

#include "app/io/decoder_pool.h"
#include "app/io/load/load.h"
#include "app/io/load/npy_decode.h"
#include "tests/fixtures/image_writers.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

using fixtures::TiffOptions;
using fixtures::TiffSample;

LoadLimits no_memory_check(int frame = 0) {
    LoadLimits l;
    l.check_available_memory = false;
    l.frame = frame;
    return l;
}

// Raw values in the type's range (integers as integers), and what the image keeps for them.
std::vector<double> raw_values(std::mt19937& rng, TiffSample s, std::size_t n) {
    std::vector<double> v(n);
    for (double& x : v) {
        const double u = std::uniform_real_distribution<double>(0, 1)(rng);
        switch (s) {
            case TiffSample::U8:
                x = std::floor(u * 255.999);
                break;
            case TiffSample::U16:
                x = std::floor(u * 65535.999);
                break;
            case TiffSample::U32:
                x = std::floor(u * 4294967295.0);
                break;
            case TiffSample::I8:
                x = std::floor(u * 255.999) - 128;
                break;
            case TiffSample::I16:
                x = std::floor(u * 65535.999) - 32768;
                break;
            case TiffSample::I32:
                x = std::floor(u * 2000000.0) - 1000000;
                break;  // exact in float
            case TiffSample::F32:
                x = double(float((u - 0.3) * 1e3));
                break;
            case TiffSample::F64:
                x = (u - 0.3) * 1e-3;
                break;
        }
    }
    return v;
}
double kept(TiffSample s, double raw) {
    switch (s) {
        case TiffSample::U8:
            return raw / 255.0;
        case TiffSample::U16:
            return raw / 65535.0;
        case TiffSample::U32:
            return double(float(raw / 4294967295.0));
        case TiffSample::F64:
            return double(float(raw));
        default:
            return raw;
    }
}
const char* sample_name(TiffSample s) {
    static const char* n[] = {"u8", "u16", "u32", "i8", "i16", "i32", "f32", "f64"};
    return n[int(s)];
}

TEST(Tiff, EverySampleFormatLayoutAndCompressionDecodesToItsValues) {
    std::mt19937 rng(std::random_device{}());
    const int w = 37, h = 21;  // not a multiple of the tile or the strip
    int cases = 0;
    for (TiffSample s : {TiffSample::U8, TiffSample::U16, TiffSample::U32, TiffSample::I8, TiffSample::I16,
                         TiffSample::I32, TiffSample::F32, TiffSample::F64})
        for (int channels : {1, 3, 4})
            for (bool tiled : {false, true})
                for (bool separate : {false, true})
                    for (int compression : {1, 5, 8}) {
                        if (separate && channels == 1) continue;
                        TiffOptions o;
                        o.sample = s;
                        o.tiled = tiled;
                        o.separate = separate;
                        o.compression = compression;
                        o.alpha = channels == 4;
                        o.big_endian = (cases % 2) == 1;
                        const std::vector<double> v = raw_values(rng, s, std::size_t(w) * h * channels);
                        const std::string what = std::string(sample_name(s)) + " x" + std::to_string(channels) +
                                                 (tiled ? " tiled" : " striped") +
                                                 (separate ? " separate" : " contig") + " compression " +
                                                 std::to_string(compression) + (o.big_endian ? " BE" : " LE");
                        const Image img = decode_image(fixtures::tiff(w, h, channels, {v}, o), what, no_memory_check());
                        ASSERT_EQ(img.width, w) << what;
                        ASSERT_EQ(img.height, h) << what;
                        ASSERT_EQ(img.channels, channels) << what;
                        EXPECT_EQ(img.bit_depth, s == TiffSample::U8 ? 8 : s == TiffSample::U16 ? 16 : 32) << what;
                        double worst = 0;
                        for (std::size_t i = 0; i < v.size(); ++i)
                            worst = std::max(
                                worst, std::abs(double(img.sample(i)) - kept(s, v[i])) / (1 + std::abs(kept(s, v[i]))));
                        EXPECT_LE(worst, 1e-7) << what;
                        ++cases;
                    }
    EXPECT_GT(cases, 200);
}

TEST(Tiff, PagesAreFramesAndAMissingPageIsNamed) {
    std::mt19937 rng(7);
    std::vector<std::vector<double>> pages;
    for (int p = 0; p < 3; ++p) pages.push_back(raw_values(rng, TiffSample::F32, 20 * 10));
    TiffOptions o;
    o.sample = TiffSample::F32;
    const std::vector<unsigned char> file = fixtures::tiff(20, 10, 1, pages, o);
    for (int p = 0; p < 3; ++p) {
        const Image img = decode_image(file, "stack.tif", no_memory_check(p));
        EXPECT_EQ(img.frames, 3);
        EXPECT_EQ(img.frame, p);
        EXPECT_EQ(img.at(4, 5, 0), float(pages[std::size_t(p)][5 * 20 + 4])) << "page " << p;
    }
    try {
        decode_image(file, "stack.tif", no_memory_check(3));
        FAIL() << "page 4 of 3 decoded";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no page 4: the file has 3 pages"), std::string::npos) << e.what();
    }
    // A single-image format has no frame 2.
    try {
        decode_image(fixtures::png(fixtures::pattern(4, 4, 1), 8), "one.png", no_memory_check(1));
        FAIL() << "frame 2 of a PNG";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("a png file holds one image"), std::string::npos) << e.what();
    }
}

TEST(Tiff, NonFiniteSamplesAreReplacedByTheMeanAndCounted) {
    std::vector<double> v(8 * 4, 2.0);
    v[3] = std::numeric_limits<double>::quiet_NaN();
    v[9] = std::numeric_limits<double>::infinity();
    v[10] = -std::numeric_limits<double>::infinity();
    v[11] = 6.0;  // finite mean: (28 * 2 + 6) / 29
    TiffOptions o;
    o.sample = TiffSample::F32;
    const Image img = decode_image(fixtures::tiff(8, 4, 1, {v}, o), "nan.tif", no_memory_check());
    EXPECT_EQ(img.nonfinite, 3u);
    const float mean = float((28 * 2.0 + 6.0) / 29.0);
    EXPECT_FLOAT_EQ(img.nonfinite_fill, mean);
    EXPECT_FLOAT_EQ(img.sample(3), mean);
    EXPECT_FLOAT_EQ(img.sample(9), mean);
    EXPECT_FLOAT_EQ(img.sample(11), 6.0f);
    EXPECT_NE(nonfinite_note(img).find("3 NaN/Inf samples replaced by the mean of the finite ones"), std::string::npos);
    // All non-finite: 0.
    const Image all =
        decode_image(fixtures::tiff(2, 2, 1, {std::vector<double>(4, std::nan(""))}, o), "all.tif", no_memory_check());
    EXPECT_EQ(all.nonfinite, 4u);
    EXPECT_EQ(all.sample(0), 0.0f);
}

TEST(Tiff, MinIsWhitePaletteAndCorruptFiles) {
    TiffOptions o;
    o.min_is_white = true;
    const Image inv = decode_image(fixtures::tiff(3, 1, 1, {{0, 100, 255}}, o), "miw.tif", no_memory_check());
    EXPECT_EQ(inv.at(0, 0, 0), 1.0f);
    EXPECT_EQ(inv.at(2, 0, 0), 0.0f);
    std::vector<std::uint8_t> pal = {255, 0, 0, 0, 255, 0, 0, 0, 255}, idx = {0, 1, 2, 1, 0, 2};
    const Image p = decode_image(fixtures::tiff_palette(3, 2, idx, pal), "pal.tif", no_memory_check());
    ASSERT_EQ(p.channels, 3);
    EXPECT_EQ(p.at(1, 0, 1), 1.0f);  // index 1: green
    EXPECT_EQ(p.at(2, 0, 2), 1.0f);  // index 2: blue
    // Truncated anywhere, and bytes flipped in the IFD: an error naming the file, never a crash.
    std::mt19937 rng(3);
    TiffOptions z;
    z.compression = 8;
    z.sample = TiffSample::U16;
    const std::vector<unsigned char> good =
        fixtures::tiff(40, 30, 3, {raw_values(rng, TiffSample::U16, 40 * 30 * 3)}, z);
    int refused = 0;
    for (std::size_t cut : {std::size_t(8), std::size_t(50), good.size() / 2, good.size() - 20}) {
        std::vector<unsigned char> bad(good.begin(), good.begin() + std::ptrdiff_t(cut));
        try {
            decode_image(bad, "cut.tif", no_memory_check());
        } catch (const InputError& e) {
            ++refused;
            EXPECT_EQ(std::string(e.what()).rfind("cut.tif: ", 0), 0u) << e.what();
        }
    }
    EXPECT_GE(refused, 3);
    for (int k = 0; k < 200; ++k) {
        std::vector<unsigned char> bad = good;
        for (int j = 0; j < 4; ++j) bad[8 + rng() % (bad.size() - 8)] = std::uint8_t(rng());
        try {
            const Image img = decode_image(bad, "flipped.tif", no_memory_check());
            EXPECT_EQ(img.sample_count(), std::size_t(img.width) * img.height * img.channels);
        } catch (const InputError&) {}
    }
}

// numpy (through Debian's tifffile) reads the same values from the same files.
TEST(Tiff, NumpyReadsWhatWeRead) {
    if (std::system("/usr/bin/python3 -c 'import numpy, tifffile' >/dev/null 2>&1") != 0)
        GTEST_SKIP()
            << "/usr/bin/python3 with numpy and tifffile (Debian python3-numpy, python3-tifffile) is not installed";
    TempDir dir;
    std::mt19937 rng(11);
    int checked = 0;
    for (TiffSample s : {TiffSample::U8, TiffSample::U16, TiffSample::U32, TiffSample::I16, TiffSample::I32,
                         TiffSample::F32, TiffSample::F64})
        for (bool tiled : {false, true}) {
            TiffOptions o;
            o.sample = s;
            o.tiled = tiled;
            o.compression = tiled ? 8 : 1;  // tifffile reads LZW only with imagecodecs, which Debian does not have
            o.big_endian = tiled;
            const int w = 33, h = 19, c = 3;
            std::vector<std::vector<double>> pages = {raw_values(rng, s, std::size_t(w) * h * c),
                                                      raw_values(rng, s, std::size_t(w) * h * c)};
            const std::string path = dir.file(std::string(sample_name(s)) + (tiled ? "-t" : "-s") + ".tif"),
                              out = path + ".f64";
            fixtures::write_file(path, fixtures::tiff(w, h, c, pages, o));
            const std::string cmd =
                "/usr/bin/python3 -c \"import numpy, tifffile; "
                "tifffile.imread('" +
                path + "', key=1).astype('<f8').tofile('" + out + "')\"";
            ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
            std::ifstream in(out, std::ios::binary);
            std::vector<double> np(std::size_t(w) * h * c);
            in.read(reinterpret_cast<char*>(np.data()), std::streamsize(np.size() * 8));
            ASSERT_TRUE(in) << "numpy wrote less than " << np.size() << " values";
            const Image img = decode_image(fixtures::tiff(w, h, c, pages, o), path, no_memory_check(1));
            double worst = 0;
            for (std::size_t i = 0; i < np.size(); ++i)
                worst =
                    std::max(worst, std::abs(double(img.sample(i)) - kept(s, np[i])) / (1 + std::abs(kept(s, np[i]))));
            EXPECT_LE(worst, 1e-7) << sample_name(s) << (tiled ? " tiled" : " striped");
            ++checked;
        }
    EXPECT_EQ(checked, 14);
}

TEST(Npy, EveryDtypeOrderAndByteOrderDecodesAndStacksAreFrames) {
    std::mt19937 rng(std::random_device{}());
    struct T {
        std::string code;
        double lo, hi, scale;  // values drawn in [lo, hi]; the image keeps value * scale
        int depth;
    };
    const std::vector<T> types = {{"u1", 0, 255, 1.0 / 255, 8},
                                  {"u2", 0, 65535, 1.0 / 65535, 16},
                                  {"u4", 0, 4294967295.0, 1.0 / 4294967295.0, 32},
                                  {"i1", -128, 127, 1, 32},
                                  {"i2", -32768, 32767, 1, 32},
                                  {"i4", -1000000, 1000000, 1, 32},
                                  {"i8", -1000000, 1000000, 1, 32},
                                  {"f4", -1e3, 1e3, 1, 32},
                                  {"f8", -1e-3, 1e-3, 1, 32}};
    int cases = 0;
    for (const T& t : types)
        for (const char* order : {"<", ">"})
            for (bool fortran : {false, true})
                for (int frames : {1, 3}) {
                    const int w = 11, h = 7;
                    std::vector<double> v(std::size_t(frames) * w * h);
                    for (double& x : v) {
                        x = std::uniform_real_distribution<double>(t.lo, t.hi)(rng);
                        if (t.code[0] != 'f') x = std::floor(x);
                        if (t.code == "f4") x = double(float(x));
                    }
                    const std::string descr =
                        (t.code == "u1" || t.code == "i1" ? std::string("|") : std::string(order)) + t.code;
                    std::vector<std::uint64_t> shape = {std::uint64_t(h), std::uint64_t(w)};
                    if (frames > 1) shape.insert(shape.begin(), std::uint64_t(frames));
                    const std::vector<unsigned char> file = fixtures::npy(descr, shape, fortran, v);
                    const std::string what = descr + (fortran ? " F" : " C") + " frames " + std::to_string(frames);
                    for (int f = 0; f < frames; ++f) {
                        const Image img = decode_image(file, what, no_memory_check(f));
                        ASSERT_EQ(img.width, w) << what;
                        ASSERT_EQ(img.height, h) << what;
                        ASSERT_EQ(img.channels, 1) << what;
                        EXPECT_EQ(img.bit_depth, t.depth) << what;
                        EXPECT_EQ(img.frames, frames) << what;
                        double worst = 0;
                        for (int y = 0; y < h; ++y)
                            for (int x = 0; x < w; ++x) {
                                const double want = double(float(v[(std::size_t(f) * h + y) * w + x] * t.scale));
                                worst = std::max(worst, std::abs(img.at(x, y, 0) - want) / (1 + std::abs(want)));
                            }
                        EXPECT_LE(worst, 1e-7) << what << " frame " << f;
                    }
                    ++cases;
                }
    EXPECT_EQ(cases, 9 * 2 * 2 * 2);
}

TEST(Npy, SpectraBadHeadersAndShapesAreRefusedByName) {
    auto refused = [](const std::vector<unsigned char>& bytes, const std::string& why) {
        try {
            decode_image(bytes, "a.npy", no_memory_check());
            ADD_FAILURE() << "decoded; expected: " << why;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).rfind("a.npy: ", 0), 0u) << e.what();
        }
    };
    refused(fixtures::npy("<c8", {2, 2}, false, {1, 2, 3, 4}), "is a spectrum, not an image");
    refused(fixtures::npy("<f4", {4}, false, {1, 2, 3, 4}), "of 1 dimensions");
    refused(fixtures::npy("<f4", {0, 4}, false, {}), "zero width or height");
    std::vector<unsigned char> cut = fixtures::npy("<f4", {3, 3}, false, std::vector<double>(9, 1.0));
    cut.resize(cut.size() - 5);
    refused(cut, "(truncated)");
    std::vector<unsigned char> bad = fixtures::npy("<f4", {2, 2}, false, {1, 2, 3, 4});
    const std::string text(bad.begin(), bad.end());
    const std::size_t at = text.find("'shape'");
    bad[at + 1] = 'x';  // 'xhape'
    refused(bad, "unknown key");
    std::vector<unsigned char> v9 = fixtures::npy("<f4", {2, 2}, false, {1, 2, 3, 4});
    v9[6] = 9;
    refused(v9, "version 9");
}

// Through the sandboxed decoder process: the frame goes there and the count and replaced samples come back.
TEST(DecoderPoolFormats, TiffAndNpyStacksDecodeInTheIsolatedDecoder) {
    TempDir dir;
    std::vector<double> a(6 * 5, 1.0), b(6 * 5, 3.0);
    b[7] = std::nan("");
    TiffOptions o;
    o.sample = TiffSample::F32;
    o.compression = 8;
    fixtures::write_file(dir.file("s.tif"), fixtures::tiff(6, 5, 1, {a, b}, o));
    DecoderPool pool;
    LoadLimits l;
    l.frame = 1;
    const Image img = pool.load(dir.file("s.tif"), l);
    EXPECT_EQ(img.frames, 2);
    EXPECT_EQ(img.frame, 1);
    EXPECT_EQ(img.nonfinite, 1u);
    EXPECT_FLOAT_EQ(img.at(1, 1, 0), 3.0f);
    fixtures::write_file(dir.file("s.npy"), fixtures::npy(">i2", {3, 5, 6}, true, std::vector<double>(90, -7.0)));
    l.frame = 2;
    const Image n = pool.load(dir.file("s.npy"), l);
    EXPECT_EQ(n.frames, 3);
    EXPECT_EQ(n.at(5, 4, 0), -7.0f);
    l.frame = 5;
    EXPECT_THROW(pool.load(dir.file("s.npy"), l), InputError);
}

// An animated GIF is a stack through giflib: every frame composited (here full-frame replacements), its rate
// from the delays (5 cs: 20 frames/s), forwards and backwards; a single-image GIF stays stb's one image; stb's
// use-after-free input (tests/fuzz/regression/) is refused or decoded cleanly on every frame.
TEST(Gif, AnimatedFramesAreAStackWithTheirRate) {
    std::vector<std::uint8_t> pal(256 * 3);
    for (int i = 0; i < 256; ++i)
        pal[std::size_t(i) * 3] = pal[std::size_t(i) * 3 + 1] = pal[std::size_t(i) * 3 + 2] = std::uint8_t(i);
    std::vector<std::vector<std::uint8_t>> frames;
    for (int k = 0; k < 4; ++k) {
        std::vector<std::uint8_t> f(10 * 6, std::uint8_t(40 * (k + 1)));
        f[std::size_t(k)] = 7;  // a mark that moves
        frames.push_back(f);
    }
    const std::vector<unsigned char> file = fixtures::gif_animated(10, 6, frames, pal, 5);
    FrameReader r(file, "a.gif", no_memory_check());
    for (int k : {0, 1, 3, 2, 0}) {
        const Image img = r.decode(k);
        EXPECT_EQ(img.frames, 4);
        EXPECT_EQ(img.frame, k);
        ASSERT_EQ(img.channels, 4);
        EXPECT_NEAR(img.frame_rate, 20.0, 1e-9);
        EXPECT_NEAR(img.at(5, 3, 0) * 255.0, 40.0 * (k + 1), 1e-3) << "frame " << k;
        EXPECT_NEAR(img.at(k, 0, 0) * 255.0, 7.0, 1e-3) << "frame " << k << "'s mark";
        EXPECT_EQ(img.at(5, 3, 3), 1.0f) << "opaque";
    }
    EXPECT_THROW(r.decode(4), InputError);
    const Image one = decode_image(fixtures::gif(10, 6, frames[0], pal), "one.gif", no_memory_check());
    EXPECT_EQ(one.frames, 1);
    std::ifstream in(std::string(SPECVIEW_REGRESSION_DIR) + "/stb-gif-load-next-use-after-free.gif", std::ios::binary);
    const std::vector<unsigned char> uaf((std::istreambuf_iterator<char>(in)), {});
    ASSERT_FALSE(uaf.empty());
    try {
        FrameReader u(uaf, "uaf.gif", no_memory_check());
        const Image first = u.decode(0);
        for (int k = 1; k < std::min(first.frames, 16); ++k) EXPECT_EQ(u.decode(k).width, first.width);
    } catch (const InputError&) {}
}

// A crafted TIFF's tiles or strips cannot ask for more memory than its pixels need (CI's fuzz smoke found a
// 65536^2 tile on a 16^2 image: 4 GiB; and 60000 samples a pixel: 1.9 GiB): refused by name, before allocating.
TEST(Tiff, TileAndStripBuffersAreBoundedByThePixels) {
    for (const char* f : {"tiff-huge-tile.tif", "tiff-60000-samples-a-pixel.tif"}) {
        std::ifstream in(std::string(SPECVIEW_REGRESSION_DIR) + "/" + f, std::ios::binary);
        const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), {});
        ASSERT_FALSE(bytes.empty()) << f;
        try {
            decode_image(bytes, f, no_memory_check());
            ADD_FAILURE() << f << " decoded";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("more than its pixels need"), std::string::npos) << e.what();
        }
    }
}

// Compositing as viewers do: an interlaced first frame, sub-rectangles, a local colour table, a transparent index,
// and the three disposals (none, previous, background), in any order of request; values from the spec of each
// frame, not from a second decoder.
TEST(Gif, FramesCompositeWithTransparencyDisposalInterlaceAndLocalTables) {
    std::vector<std::uint8_t> gray(256 * 3), inverted(256 * 3);
    for (int i = 0; i < 256; ++i)
        for (int c = 0; c < 3; ++c) {
            gray[std::size_t(i) * 3 + c] = std::uint8_t(i);
            inverted[std::size_t(i) * 3 + c] = std::uint8_t(255 - i);
        }
    const int W = 8, H = 19;  // 19 rows: every interlace pass has rows, the last ones short
    std::vector<fixtures::GifFrameSpec> f(4);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) f[0].indices.push_back(std::uint8_t(10 + y));  // row y: 10 + y
    f[0].interlace = true;
    f[0].delay_cs = 4;
    f[1] = {2, 1, 3, 2, std::vector<std::uint8_t>(6, 50), true, 3, 51, 4, false, inverted};  // restores what was before
    f[1].indices[0] = 51;                                                              // transparent: frame 0 shows
    f[2] = {0, 0, 2, 2, std::vector<std::uint8_t>(4, 90), true, 2, -1, 4, false, {}};  // then cleared to transparent
    f[3] = {6, 4, 2, 2, std::vector<std::uint8_t>(4, 120), true, 1, -1, 8, false, {}};
    // Gray value (or -1: transparent) of (x, y) in frame k.
    auto want = [&](int k, int x, int y) {
        const bool in1 = x >= 2 && x < 5 && y >= 1 && y < 3, in2 = x < 2 && y < 2, in3 = x >= 6 && y >= 4 && y < 6;
        if (k == 1 && in1 && !(x == 2 && y == 1)) return 255 - 50;
        if (k == 2 && in2) return 90;
        if (k == 3 && in3) return 120;
        if (k == 3 && in2) return -1;
        return 10 + y;
    };
    for (bool trailer : {true, false}) {
        const std::vector<unsigned char> file = fixtures::gif_frames(W, H, gray, f, trailer);
        FrameReader r(file, "c.gif", no_memory_check());
        for (int k : {0, 1, 2, 3, 3, 1, 0, 2, 3}) {
            const Image img = r.decode(k);
            EXPECT_EQ(img.frames, 4);
            EXPECT_NEAR(img.frame_rate, 20.0, 1e-9);  // 4 frames in 20 cs
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    const int g = want(k, x, y);
                    if (g < 0) {
                        EXPECT_EQ(img.at(x, y, 3), 0.0f) << "frame " << k << " (" << x << "," << y << ") transparent";
                    } else {
                        EXPECT_NEAR(img.at(x, y, 0) * 255.0, g, 1e-3) << "frame " << k << " (" << x << "," << y << ")";
                        EXPECT_EQ(img.at(x, y, 3), 1.0f) << "frame " << k << " (" << x << "," << y << ")";
                    }
                }
        }
    }
    // Cut inside the last frame's pixels: refused at open, by name.
    std::vector<unsigned char> cut = fixtures::gif_frames(W, H, gray, f);
    cut.resize(cut.size() - 6);
    try {
        FrameReader r(cut, "cut.gif", no_memory_check());
        r.decode(0);
        ADD_FAILURE() << "a GIF cut inside a frame was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("cut.gif: cannot decode gif: frame 4"), std::string::npos) << e.what();
    }
}

// Frames are made one at a time from the file (a byte a pixel for the frame being made, not for all of them):
// a 600-frame 256^2 GIF plays through, and the last frame is as written.
TEST(Gif, ManyFramesPlayThroughInOrder) {
    std::vector<std::uint8_t> gray(256 * 3);
    for (int i = 0; i < 256 * 3; ++i) gray[std::size_t(i)] = std::uint8_t(i / 3);
    std::vector<std::vector<std::uint8_t>> frames;
    for (int k = 0; k < 600; ++k) frames.push_back(std::vector<std::uint8_t>(256 * 256, std::uint8_t(k % 251)));
    const std::vector<unsigned char> file = fixtures::gif_animated(256, 256, frames, gray, 2);
    FrameReader r(file, "long.gif", no_memory_check());
    for (int k = 0; k < 600; ++k) {
        const Image img = r.decode(k);
        ASSERT_NEAR(img.at(100, 200, 0) * 255.0, k % 251, 1e-3) << k;
    }
    EXPECT_NEAR(r.decode(599).frame_rate, 50.0, 1e-9);
}

// Steps back and jumps start from the canvases kept on the way, which must carry everything the frames after
// them depend on: here each frame adds a mark to what was there, and every 16th (where canvases are kept) draws a
// block that it takes away again (disposal "previous"), so a canvas kept without what came before that block
// would show in the next frame.
TEST(Gif, StepsBackAndJumpsGiveTheFramesAPlayThroughGives) {
    std::vector<std::uint8_t> gray(256 * 3);
    for (int i = 0; i < 256 * 3; ++i) gray[std::size_t(i)] = std::uint8_t(i / 3);
    const int n = 600;
    std::vector<fixtures::GifFrameSpec> f(n);
    for (int k = 0; k < n; ++k) {
        if (k % 16 == 0) {
            f[std::size_t(k)] = {56, 56, 8, 8, std::vector<std::uint8_t>(64, 255), true, 3, -1, 2, false, {}};
        } else {
            f[std::size_t(k)] = {k % 64, k / 64, 1, 1, {std::uint8_t(100 + k % 100)}, true, 1, -1, 2, false, {}};
        }
    }
    auto check = [&](const Image& img, int k) {
        for (int y = 0; y < 64; ++y)
            for (int x = 0; x < 64; ++x) {
                int want = -1;
                const int j = y * 64 + x;
                if (y < 10 && j <= k && j % 16 != 0) want = 100 + j % 100;
                if (k % 16 == 0 && x >= 56 && y >= 56) want = 255;
                if (want < 0) {
                    ASSERT_EQ(img.at(x, y, 3), 0.0f) << "frame " << k << " (" << x << "," << y << ")";
                } else {
                    ASSERT_NEAR(img.at(x, y, 0) * 255.0, want, 1e-3) << "frame " << k << " (" << x << "," << y << ")";
                }
            }
    };
    const std::vector<unsigned char> file = fixtures::gif_frames(64, 64, gray, f);
    FrameReader r(file, "marks.gif", no_memory_check());
    for (int k = 0; k < n; ++k) check(r.decode(k), k);
    for (int k : {599, 32, 33, 31, 300, 16, 17, 0, 598, 256, 257, 1, 599, 599, 100}) check(r.decode(k), k);
}

// Through the isolated decoder, under its memory limit: a 1024^2 animation whose every frame keeps a canvas for
// its "previous" disposal streams frame by frame (the canvases kept for steps back within their budget), and a
// single frame comes back on its own.
TEST(DecoderPoolFormats, AnimatedGifsStreamWithinTheDecodersMemoryLimit) {
    std::vector<std::uint8_t> gray(256 * 3);
    for (int i = 0; i < 256 * 3; ++i) gray[std::size_t(i)] = std::uint8_t(i / 3);
    const int n = 40, side = 1024;
    std::vector<fixtures::GifFrameSpec> f(n);
    for (int k = 0; k < n; ++k)
        f[std::size_t(k)] = {
            0,  0, side,  side, std::vector<std::uint8_t>(std::size_t(side) * side, std::uint8_t(3 * k + 1)), true, 3,
            -1, 4, false, {}};
    TempDir dir;
    fixtures::write_file(dir.file("big.gif"), fixtures::gif_frames(side, side, gray, f));
    DecoderPool pool(DecoderOptions{1});
    std::vector<int> seen;
    const int got = pool.load_frames(dir.file("big.gif"), LoadLimits{}, 0, n, {}, [&](Image img) {
        EXPECT_NEAR(img.at(side / 2, side / 3, 0) * 255.0, 3 * img.frame + 1, 1e-3) << img.frame;
        seen.push_back(img.frame);
        return true;
    });
    EXPECT_EQ(got, n);
    EXPECT_EQ(int(seen.size()), n);
    LoadLimits l;
    l.frame = 37;
    const Image one = pool.load(dir.file("big.gif"), l);
    EXPECT_EQ(one.frame, 37);
    EXPECT_NEAR(one.at(5, 5, 0) * 255.0, 3 * 37 + 1, 1e-3);
}

// A 16-bit TIFF of `n` pages of w x h, page p holding step * p + offset everywhere.
void write_flat_u16_stack(const std::string& path, int w, int h, int n, double step, double offset) {
    std::vector<std::vector<double>> pages;
    for (int p = 0; p < n; ++p) pages.push_back(std::vector<double>(std::size_t(w) * h, step * p + offset));
    TiffOptions o;
    o.sample = TiffSample::U16;
    fixtures::write_file(path, fixtures::tiff(w, h, 1, pages, o));
}

// A stack streams through one decoder request: the file read once, each page checked and handed over as it
// comes; the consumer can stop early, and the decoder serves the next request as usual.
TEST(DecoderPoolFormats, StacksStreamFrameByFrameAndStopEarly) {
    TempDir dir;
    write_flat_u16_stack(dir.file("s.tif"), 8, 6, 6, 100.0, 0.0);
    DecoderPool pool(DecoderOptions{1});
    std::vector<int> seen;
    int headers = 0;
    const int n = pool.load_frames(
        dir.file("s.tif"), LoadLimits{}, 1, 4, [&](const ImageHeader&) { ++headers; },
        [&](Image img) {
            EXPECT_EQ(img.frames, 6);
            EXPECT_NEAR(img.at(3, 3, 0) * 65535.0, 100.0 * img.frame, 1e-3);
            seen.push_back(img.frame);
            return true;
        });
    EXPECT_EQ(n, 4);
    EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4}));
    EXPECT_EQ(headers, 4);
    seen.clear();
    const int m = pool.load_frames(dir.file("s.tif"), LoadLimits{}, 0, 6, {}, [&](Image img) {
        seen.push_back(img.frame);
        return seen.size() < 2;  // enough after two
    });
    EXPECT_EQ(m, 2);
    EXPECT_EQ(seen, (std::vector<int>{0, 1}));
    // The same child goes on serving.
    LoadLimits l;
    l.frame = 5;
    EXPECT_EQ(pool.load(dir.file("s.tif"), l).frame, 5);
    EXPECT_EQ(pool.started(), 1) << "a stopped stream cost the child";
    // Frames are pipelined (the child decodes the next while the consumer has this one): a stop one frame before the
    // last drops the frame under way and says nothing more; a header refused ahead comes after the frame before it.
    seen.clear();
    EXPECT_EQ(pool.load_frames(dir.file("s.tif"), LoadLimits{}, 0, 3, {},
                               [&](Image img) {
                                   seen.push_back(img.frame);
                                   return seen.size() < 2;
                               }),
              2);
    EXPECT_EQ(seen, (std::vector<int>{0, 1}));
    EXPECT_EQ(pool.load(dir.file("s.tif"), l).frame, 5);
    seen.clear();
    int asked = 0;
    try {
        pool.load_frames(
            dir.file("s.tif"), LoadLimits{}, 0, 6,
            [&](const ImageHeader&) {
                if (++asked == 3) throw InputError("", "refused at the third header");
            },
            [&](Image img) {
                seen.push_back(img.frame);
                return true;
            });
        FAIL() << "the third header was refused";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("refused at the third header"), std::string::npos) << e.what();
    }
    EXPECT_EQ(seen, (std::vector<int>{0, 1}));
    EXPECT_EQ(pool.load(dir.file("s.tif"), l).frame, 5);
    EXPECT_EQ(pool.started(), 1) << "a stop or a refusal mid-stream cost the child";
    // Past the end: the frames there were, then the error naming the count.
    seen.clear();
    try {
        pool.load_frames(dir.file("s.tif"), LoadLimits{}, 4, 5, {}, [&](Image img) {
            seen.push_back(img.frame);
            return true;
        });
        FAIL() << "frames 5..9 of 6";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no page 7: the file has 6 pages"), std::string::npos) << e.what();
    }
    EXPECT_EQ(seen, (std::vector<int>{4, 5}));
}

// Several children decode one stack at once; the frames still arrive in order, each once, with their values;
// a consumer slower than the decoders and one that stops early both work, and nothing waits forever.
TEST(DecoderPoolFormats, StacksDecodeInParallelAndArriveInOrder) {
    TempDir dir;
    const int pages_n = 60;
    write_flat_u16_stack(dir.file("s.tif"), 16, 12, pages_n, 1000.0, 7.0);
    DecoderPool pool(DecoderOptions{3});
    std::vector<int> seen;
    int headers = 0;
    const int n = pool.load_frames_parallel(
        dir.file("s.tif"), LoadLimits{}, 2, INT_MAX, [&](const ImageHeader&) { ++headers; },
        [&](Image img) {
            EXPECT_EQ(img.frames, pages_n);
            EXPECT_NEAR(img.at(5, 4, 0) * 65535.0, 1000.0 * img.frame + 7.0, 1e-2);
            seen.push_back(img.frame);
            if (seen.size() % 7 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
            return true;
        },
        3);
    std::vector<int> want;
    for (int k = 2; k < pages_n; ++k) want.push_back(k);
    EXPECT_EQ(n, pages_n - 2);
    EXPECT_EQ(seen, want);
    EXPECT_EQ(headers, pages_n - 2);
    EXPECT_LE(pool.started(), 3);
    // A count within the stack, and a consumer that stops after 11 frames.
    seen.clear();
    EXPECT_EQ(pool.load_frames_parallel(
                  dir.file("s.tif"), LoadLimits{}, 10, 30, {},
                  [&](Image img) {
                      seen.push_back(img.frame);
                      return seen.size() < 11;
                  },
                  3),
              11);
    want.clear();
    for (int k = 10; k < 21; ++k) want.push_back(k);
    EXPECT_EQ(seen, want);
    // Past the end: the frames there are, in order, then load_frames' error naming the count.
    seen.clear();
    try {
        pool.load_frames_parallel(
            dir.file("s.tif"), LoadLimits{}, 40, 40, {},
            [&](Image img) {
                seen.push_back(img.frame);
                return true;
            },
            3);
        FAIL() << "frames 41..80 of 60";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no page 61: the file has 60 pages"), std::string::npos) << e.what();
    }
    want.clear();
    for (int k = 40; k < pages_n; ++k) want.push_back(k);
    EXPECT_EQ(seen, want);
    // The pool serves on: the last page alone.
    LoadLimits l;
    l.frame = pages_n - 1;
    EXPECT_EQ(pool.load(dir.file("s.tif"), l).frame, pages_n - 1);
    EXPECT_LE(pool.started(), 3) << "a stopped stream cost a child";
}

}  // namespace
}  // namespace specview::test
