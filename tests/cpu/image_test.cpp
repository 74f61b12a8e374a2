// Image loading: every format and bit depth the loader claims, generated as fixtures; every kind of bad input.
#include <gtest/gtest.h>
#include <png.h>
#include <stb_image.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <filesystem>
#include <tuple>

#include "app/io/load/load.h"
#include "app/io/png_write.h"
#include "gpu/common/spectrum_math.h"
#include "app/core/plane.h"
#include "tests/fixtures/image_writers.h"
#include "tests/support/random_image.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

using fixtures::Pixels;

LoadLimits test_limits() {
    LoadLimits l;
    l.check_available_memory = false;
    return l;
}

// Loaded values equal the source quantised to the file's bit depth.
void expect_exact(const Image& img, const Pixels& p, int bit_depth, const std::string& what) {
    ASSERT_EQ(img.width, p.width) << what;
    ASSERT_EQ(img.height, p.height) << what;
    ASSERT_EQ(img.channels, p.channels) << what;
    EXPECT_EQ(img.bit_depth, bit_depth) << what;
    const double maxval = bit_depth == 16 ? 65535.0 : 255.0;
    double worst = 0;
    for (std::size_t i = 0; i < p.v.size(); ++i) {
        const double want = std::round(std::clamp(p.v[i], 0.0, 1.0) * maxval) / maxval;
        worst = std::max(worst, std::abs(double(img.sample(i)) - want));
    }
    EXPECT_LT(worst, 1e-6) << what;
}

TEST(ImageLoad, PngEveryColourTypeAndBitDepth) {
    TempDir dir;
    for (int ch : {1, 2, 3, 4})
        for (int depth : {8, 16}) {
            const Pixels p = fixtures::pattern(13, 7, ch);
            const std::string path = dir.file("p" + std::to_string(ch) + "_" + std::to_string(depth) + ".png");
            fixtures::write_file(path, fixtures::png(p, depth));
            const Image img = load_image(path, test_limits());
            EXPECT_EQ(img.format, "png");
            expect_exact(img, p, depth, path);
        }
}

// PNG image data as encoders write it: every row filter (none, sub, up, average, Paeth, by row), a real deflate
// stream split over several IDAT chunks, every colour type without a palette at 8 and 16 bits, odd widths. The
// samples come back exactly (16-bit ones in host order); damaged image data is an error, not a picture.
TEST(ImageLoad, PngRowFiltersAndSplitImageDataDecodeExactly) {
    std::mt19937 gen(7);
    for (int depth : {8, 16})
        for (int color_type : {0, 2, 4, 6})
            for (auto [w, h, chunks] : {std::tuple{37, 23, 3}, std::tuple{64, 10, 1}, std::tuple{1, 9, 2}}) {
                const int channels = color_type == 2 ? 3 : color_type == 4 ? 2 : color_type == 6 ? 4 : 1;
                const std::size_t n = std::size_t(w) * h * channels * (depth / 8);
                std::vector<unsigned char> raw(n);
                for (std::size_t i = 0; i < n; ++i)  // smooth with noise, so every filter has work to do
                    raw[i] = (unsigned char)((i * 7 / 5) + (gen() % 13));
                const std::vector<unsigned char> png = fixtures::png_filtered(w, h, depth, color_type, raw, chunks);
                const std::string what = std::to_string(depth) + "-bit colour type " + std::to_string(color_type) +
                                         " " + std::to_string(w) + "x" + std::to_string(h) + " in " +
                                         std::to_string(chunks) + " IDAT";
                const Image img = decode_image(ByteView(png.data(), png.size()), "f.png");
                ASSERT_EQ(img.width, w) << what;
                ASSERT_EQ(img.channels, channels) << what;
                ASSERT_EQ(img.bit_depth, depth) << what;
                const auto* got = static_cast<const unsigned char*>(img.data());
                std::size_t bad = 0;
                for (std::size_t i = 0; i < n; i += depth / 8) {
                    const unsigned want = depth == 8 ? raw[i] : (unsigned(raw[i]) << 8) | raw[i + 1];
                    unsigned v = got[i];
                    if (depth == 16) {
                        std::uint16_t u;
                        std::memcpy(&u, got + i, 2);
                        v = u;
                    }
                    bad += v != want;
                }
                EXPECT_EQ(bad, 0u) << what;
                // A byte of the image data damaged (its chunk's CRC then fails too): refused with a reason.
                std::vector<unsigned char> broken = png;
                const std::size_t first_idat = 8 + 25 + 8;  // signature, IHDR chunk, the IDAT's length and type
                broken[first_idat + 2] ^= 0x5A;
                EXPECT_THROW(decode_image(ByteView(broken.data(), broken.size()), "f.png"), InputError) << what;
            }
}

TEST(ImageLoad, SixteenBitKeepsItsPrecision) {
    TempDir dir;
    Pixels p{4, 1, 1, {0.5, 0.5 + 1.0 / 65535, 0.5 + 2.0 / 65535, 0.5 + 3.0 / 65535}};
    fixtures::write_file(dir.file("fine.png"), fixtures::png(p, 16));
    const Image img = load_image(dir.file("fine.png"), test_limits());
    // Four distinct values one 16-bit step apart: an 8-bit path would merge them.
    for (int i = 1; i < 4; ++i) EXPECT_NEAR(img.sample(i) - img.sample(i - 1), 1.0 / 65535, 1e-7);
}

TEST(ImageLoad, PalettePngIsExpandedToItsColours) {
    TempDir dir;
    const std::vector<std::uint8_t> pal{255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30};
    std::vector<std::uint8_t> idx;
    for (int i = 0; i < 6 * 5; ++i) idx.push_back(std::uint8_t(i % 4));
    fixtures::write_file(dir.file("pal.png"), fixtures::png_palette(6, 5, idx, pal));
    const Image img = load_image(dir.file("pal.png"), test_limits());
    ASSERT_EQ(img.channels, 3);
    for (int i = 0; i < 30; ++i)
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(img.sample(i * 3 + c), pal[idx[i] * 3 + c] / 255.0f, 1e-6);
}

TEST(ImageLoad, PnmAndPsdAtEightAndSixteenBits) {
    TempDir dir;
    for (int depth : {8, 16}) {
        for (int ch : {1, 3}) {
            const Pixels p = fixtures::pattern(9, 6, ch);
            const std::string path = dir.file("p" + std::to_string(ch) + std::to_string(depth) + ".pnm");
            fixtures::write_file(path, fixtures::pnm(p, depth));
            const Image img = load_image(path, test_limits());
            EXPECT_EQ(img.format, "pnm");
            expect_exact(img, p, depth, path);
        }
        for (int ch : {3, 4}) {
            Pixels p = fixtures::pattern(9, 6, ch);
            // Opaque alpha: stb removes Photoshop's white matte from translucent pixels, changing their colour.
            if (ch == 4)
                for (std::size_t i = 3; i < p.v.size(); i += 4) p.v[i] = 1.0;
            const std::string path = dir.file("p" + std::to_string(ch) + std::to_string(depth) + ".psd");
            fixtures::write_file(path, fixtures::psd(p, depth));
            const Image img = load_image(path, test_limits());
            EXPECT_EQ(img.format, "psd");
            // stb returns PSD as RGBA always.
            ASSERT_EQ(img.channels, 4);
            for (int i = 0; i < 9 * 6; ++i)
                for (int c = 0; c < ch; ++c) {
                    const double want =
                        std::round(p.v[i * ch + c] * (depth == 16 ? 65535 : 255)) / (depth == 16 ? 65535.0 : 255.0);
                    EXPECT_NEAR(img.sample(i * 4 + c), want, 1e-6) << path;
                }
        }
    }
}

TEST(ImageLoad, GifFirstFrame) {
    TempDir dir;
    std::vector<std::uint8_t> pal(256 * 3), idx;
    for (int i = 0; i < 256; ++i) {
        pal[i * 3] = std::uint8_t(i);
        pal[i * 3 + 1] = std::uint8_t(255 - i);
        pal[i * 3 + 2] = std::uint8_t(i / 2);
    }
    for (int i = 0; i < 40 * 30; ++i) idx.push_back(std::uint8_t((i * 7) % 256));
    fixtures::write_file(dir.file("a.gif"), fixtures::gif(40, 30, idx, pal));
    const Image img = load_image(dir.file("a.gif"), test_limits());
    EXPECT_EQ(img.format, "gif");
    ASSERT_EQ(img.width, 40);
    ASSERT_EQ(img.height, 30);
    ASSERT_GE(img.channels, 3);
    for (int i = 0; i < 40 * 30; ++i)
        for (int c = 0; c < 3; ++c)
            ASSERT_NEAR(img.sample(i * img.channels + c), pal[idx[i] * 3 + c] / 255.0f, 1e-6) << "pixel " << i;
}

TEST(ImageLoad, BmpTgaJpegHdr) {
    TempDir dir;
    for (int ch : {3, 4}) {
        const Pixels p = fixtures::pattern(11, 9, ch);
        fixtures::write_file(dir.file("a.bmp"), fixtures::bmp(p));
        const Image b = load_image(dir.file("a.bmp"), test_limits());
        EXPECT_EQ(b.format, "bmp");
        expect_exact(b, p, 8, "bmp");
        for (bool rle : {false, true}) {
            fixtures::write_file(dir.file("a.tga"), fixtures::tga(p, rle));
            const Image t = load_image(dir.file("a.tga"), test_limits());
            EXPECT_EQ(t.format, "tga");
            expect_exact(t, p, 8, rle ? "tga rle" : "tga");
        }
    }
    for (int ch : {1, 3}) {
        const Pixels p = fixtures::pattern(32, 24, ch);
        fixtures::write_file(dir.file("a.jpg"), fixtures::jpeg(p, 95));
        const Image j = load_image(dir.file("a.jpg"), test_limits());
        EXPECT_EQ(j.format, "jpeg");
        ASSERT_EQ(j.channels, 3);  // stb_image_write stores gray JPEGs as YCbCr too
        double err = 0;
        for (std::size_t i = 0; i < p.v.size(); ++i) err += std::abs(j.sample((i / ch) * 3 + i % ch) - p.v[i]);
        EXPECT_LT(err / p.v.size(), 0.03) << "JPEG is lossy, but not this lossy";
    }
    Pixels h = fixtures::pattern(8, 8, 3);
    for (auto& v : h.v) v *= 7.5;  // HDR keeps values over 1
    fixtures::write_file(dir.file("a.hdr"), fixtures::hdr(h));
    const Image img = load_image(dir.file("a.hdr"), test_limits());
    EXPECT_EQ(img.format, "hdr");
    EXPECT_EQ(img.bit_depth, 32);
    // RGBE shares one exponent per pixel: each channel is exact to about 1/128 of the pixel's largest one.
    for (std::size_t i = 0; i < h.v.size(); ++i) {
        const std::size_t px = i / 3 * 3;
        const double peak = std::max({h.v[px], h.v[px + 1], h.v[px + 2]});
        EXPECT_NEAR(img.sample(i), h.v[i], peak / 100.0) << i;
    }
}

TEST(ImageLoad, ChannelsAndLuma) {
    Image img = Image::from_floats(2, 1, 4, {1.0f, 0.0f, 0.0f, 0.25f, 0.2f, 0.4f, 0.6f, 1.0f});
    const Plane y = extract_channel(img, Channel::Luma);
    EXPECT_NEAR(y.v[0], 0.2126f, 1e-6);  // alpha ignored
    EXPECT_NEAR(y.v[1], 0.2126f * 0.2f + 0.7152f * 0.4f + 0.0722f * 0.6f, 1e-6);
    EXPECT_FLOAT_EQ(extract_channel(img, Channel::G).v[1], 0.4f);
    EXPECT_FLOAT_EQ(extract_channel(img, Channel::A).v[0], 0.25f);
    Image gray = Image::from_floats(1, 1, 1, {0.7f});
    EXPECT_FLOAT_EQ(extract_channel(gray, Channel::Luma).v[0], 0.7f);
    EXPECT_FLOAT_EQ(extract_channel(gray, Channel::B).v[0], 0.7f);
    EXPECT_THROW(extract_channel(gray, Channel::A), InputError);
}

// A channel's range over the image (the volume viewer's gray scale) is the least and greatest of its channel values,
// at every depth, channel count and channel: integer samples are scanned as integers, luma of colour per pixel.
TEST(ImageLoad, AChannelsRangeIsItsValuesLeastAndGreatest) {
    Rng rng;
    for (int depth : {8, 16, 32})
        for (int channels : {1, 2, 3, 4})
            for (Channel ch : {Channel::Luma, Channel::R, Channel::G, Channel::B, Channel::A}) {
                if (ch == Channel::A && channels % 2) continue;
                const Image img = random_image(rng, 37, 23, channels, depth);
                const Plane p = extract_channel(img, ch);
                float lo = 0, hi = 0;
                channel_range(img, ch, &lo, &hi);
                EXPECT_EQ(lo, *std::min_element(p.v.begin(), p.v.end())) << depth << " bits, " << channels << " channels";
                EXPECT_EQ(hi, *std::max_element(p.v.begin(), p.v.end())) << depth << " bits, " << channels << " channels";
            }
    float lo = 0, hi = 0;
    Image nan = Image::from_floats(3, 1, 1, {NAN, 0.5f, -2.0f});
    channel_range(nan, Channel::Luma, &lo, &hi);
    EXPECT_EQ(lo, -2.0f);
    EXPECT_EQ(hi, 0.5f);
    EXPECT_THROW(channel_range(Image::from_floats(1, 1, 1, {0.0f}), Channel::A, &lo, &hi), InputError);
}

// Every bad input gives an InputError naming the file; none crashes or hangs.
void expect_input_error(const std::string& path, const std::string& fragment, const LoadLimits& lim = test_limits()) {
    try {
        load_image(path, lim);
        ADD_FAILURE() << path << ": loaded, expected an error containing '" << fragment << "'";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(ImageLoad, BadInputsGiveClearErrors) {
    TempDir dir;
    expect_input_error(dir.file("missing.png"), "no such file");
    fixtures::write_file(dir.file("empty.png"), {});
    expect_input_error(dir.file("empty.png"), "empty file");
    expect_input_error(dir.path().string(), "is a directory");
    const std::string text = "this is not an image at all\n";
    fixtures::write_file(dir.file("notes.png"), std::vector<unsigned char>(text.begin(), text.end()));
    expect_input_error(dir.file("notes.png"), "not a readable image");
    // What the name claims comes first when the bytes are no such file (only TGA has no signature to check).
    for (const auto& [file, claim] :
         {std::pair{"notes.png", "not a PNG file: it does not start as one does"},
          std::pair{"notes.tif", "not a TIFF file"}, std::pair{"notes.npy", "not a .npy file"}}) {
        fixtures::write_file(dir.file(file), std::vector<unsigned char>(text.begin(), text.end()));
        expect_input_error(dir.file(file), claim);
    }
    fixtures::write_file(dir.file("notes.xyz"), std::vector<unsigned char>(text.begin(), text.end()));
    try {
        load_image(dir.file("notes.xyz"), test_limits());
        ADD_FAILURE() << "notes.xyz loaded";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()).find("not a "), std::string(e.what()).find("not a readable image")) << e.what();
    }
    // A file that matches no format says so, not stb's reading of it as a TGA header (issue 59).
    for (const char* file : {"notes.png", "notes.xyz", "notes.dat", "notes"}) {
        fixtures::write_file(dir.file(file), std::vector<unsigned char>(text.begin(), text.end()));
        try {
            load_image(dir.file(file), test_limits());
            ADD_FAILURE() << file << " loaded";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("not a readable image (no known signature"), std::string::npos)
                << e.what();
            EXPECT_EQ(std::string(e.what()).find("TGA header"), std::string::npos) << e.what();
        }
    }
    ASSERT_EQ(mkfifo(dir.file("fifo.png").c_str(), 0600), 0);
    expect_input_error(dir.file("fifo.png"), "not a regular file");
    // Corrupt PNG: scribble over the compressed data.
    auto png = fixtures::png(fixtures::pattern(16, 16, 3), 8);
    for (std::size_t i = 60; i < 120 && i < png.size(); ++i) png[i] ^= 0x5A;
    fixtures::write_file(dir.file("corrupt.png"), png);
    expect_input_error(dir.file("corrupt.png"), "");
    if (geteuid() != 0) {  // root reads anything
        fixtures::write_file(dir.file("locked.png"), fixtures::png(fixtures::pattern(4, 4, 1), 8));
        chmod(dir.file("locked.png").c_str(), 0);
        expect_input_error(dir.file("locked.png"), "cannot open");
    }
}

TEST(ImageLoad, JpegThroughLibjpegTurboProgressiveGrayAndCmyk) {
    TempDir dir;
    for (int ch : {1, 3}) {
        const Pixels p = fixtures::pattern(40, 24, ch);
        fixtures::write_file(dir.file("p.jpg"), fixtures::jpeg_progressive(p, 95));
        const Image j = load_image(dir.file("p.jpg"), test_limits());
        EXPECT_EQ(j.format, "jpeg");
        ASSERT_EQ(j.channels, ch) << "a gray JPEG stays one channel";
        EXPECT_EQ(j.bit_depth, 8);
        double err = 0;
        for (std::size_t i = 0; i < p.v.size(); ++i) err += std::abs(j.sample(i) - p.v[i]);
        EXPECT_LT(err / p.v.size(), 0.03) << "progressive, " << ch << " channel(s)";
        // Truncated progressive JPEGs: libjpeg would fill the rest with gray; they are refused.
        const auto bytes = fixtures::jpeg_progressive(p, 95);
        for (double keep : {0.3, 0.6, 0.9}) {
            std::vector<unsigned char> t(bytes.begin(), bytes.begin() + long(bytes.size() * keep));
            fixtures::write_file(dir.file("t.jpg"), t);
            EXPECT_THROW(load_image(dir.file("t.jpg"), test_limits()), InputError) << keep;
        }
    }
    const Pixels rgb = fixtures::pattern(32, 16, 3);
    fixtures::write_file(dir.file("c.jpg"), fixtures::jpeg_cmyk(rgb, 95));
    const Image c = load_image(dir.file("c.jpg"), test_limits());
    ASSERT_EQ(c.channels, 3) << "CMYK arrives as RGB";
    double err = 0;
    for (std::size_t i = 0; i < rgb.v.size(); ++i) err += std::abs(c.sample(i) - rgb.v[i]);
    EXPECT_LT(err / rgb.v.size(), 0.03) << "Adobe CMYK to RGB";
}

// A PSD written here: RGB colour mode, planes given as big-endian sample bytes, raw or PackBits (literal runs
// of at most 128 bytes and, where a byte repeats, repeat runs), as Photoshop lays it out.
std::vector<unsigned char> psd_bytes(int w, int h, int depth, const std::vector<std::vector<unsigned char>>& planes,
                                     bool rle) {
    std::vector<unsigned char> b{'8', 'B', 'P', 'S', 0, 1, 0, 0, 0, 0, 0, 0};
    auto be16 = [&](unsigned v) {
        b.push_back(v >> 8);
        b.push_back(v & 0xFF);
    };
    auto be32 = [&](unsigned v) {
        be16(v >> 16);
        be16(v & 0xFFFF);
    };
    be16(unsigned(planes.size()));
    be32(unsigned(h));
    be32(unsigned(w));
    be16(unsigned(depth));
    be16(3);
    be32(0), be32(0), be32(0);
    be16(rle ? 1 : 0);
    if (!rle) {
        for (const auto& p : planes) b.insert(b.end(), p.begin(), p.end());
        return b;
    }
    const std::size_t row = std::size_t(w) * (depth / 8);
    std::vector<std::vector<unsigned char>> packed;
    for (const auto& p : planes)
        for (int y = 0; y < h; ++y) {
            std::vector<unsigned char> out;
            std::size_t i = y * row;
            const std::size_t end = i + row;
            while (i < end) {
                std::size_t run = 1;
                while (i + run < end && run < 128 && p[i + run] == p[i]) ++run;
                if (run >= 3) {
                    out.push_back(static_cast<unsigned char>(1 - int(run)));
                    out.push_back(p[i]);
                    i += run;
                } else {
                    const std::size_t n = std::min<std::size_t>(128, end - i);
                    out.push_back(static_cast<unsigned char>(n - 1));
                    out.insert(out.end(), p.begin() + long(i), p.begin() + long(i + n));
                    i += n;
                }
            }
            packed.push_back(out);
        }
    for (const auto& r : packed) be16(unsigned(r.size()));
    for (const auto& r : packed) b.insert(b.end(), r.begin(), r.end());
    return b;
}

TEST(ImageLoad, PsdRawAndRunLengthAt8And16BitsWithTheMatteRemovedAndClamped) {
    TempDir dir;
    const int w = 37, h = 5;
    for (int depth : {8, 16})
        for (bool rle : {false, true})
            for (int channels : {3, 4}) {
                std::vector<std::vector<unsigned char>> planes(channels);
                std::vector<std::vector<unsigned>> values(channels);
                for (int c = 0; c < channels; ++c)
                    for (int i = 0; i < w * h; ++i) {
                        const unsigned max = depth == 8 ? 255 : 65535;
                        // Runs and noise; alpha opaque, transparent and translucent; colours both above the matte
                        // (as Photoshop writes them) and below it (crafted: stb's conversion overflowed there).
                        unsigned v = (i / 7 % 2) ? (i * 37u + c * 101u) % (max + 1) : max / 3;
                        if (c == 3) v = i % 3 == 0 ? max : i % 3 == 1 ? max / 2 : 0;
                        values[c].push_back(v);
                        if (depth == 16) planes[c].push_back(static_cast<unsigned char>(v >> 8));
                        planes[c].push_back(static_cast<unsigned char>(v & 0xFF));
                    }
                const std::string path = dir.file("t.psd");
                fixtures::write_file(path, psd_bytes(w, h, depth, planes, rle));
                const Image img = load_image(path, test_limits());
                const std::string what = std::to_string(depth) + (rle ? " rle " : " raw ") + std::to_string(channels);
                ASSERT_EQ(img.width, w) << what;
                ASSERT_EQ(img.channels, 4) << what;
                ASSERT_EQ(img.bit_depth, depth) << what;
                const float max = depth == 8 ? 255.0f : 65535.0f;
                for (int i = 0; i < w * h; ++i) {
                    const unsigned a = channels == 4 ? values[3][i] : unsigned(max);
                    for (int c = 0; c < 3; ++c) {
                        double want = values[c][i];
                        if (channels == 4 && a != 0 && a != unsigned(max)) {  // stb's formula, clamped, truncated
                            const float af = float(a) / max, ra = 1.0f / af;
                            want = std::floor(std::clamp(float(values[c][i]) * ra + max * (1.0f - ra), 0.0f, max));
                        }
                        ASSERT_EQ(img.sample(std::size_t(i) * 4 + c), float(want) / max)
                            << what << " pixel " << i << " c " << c;
                    }
                    ASSERT_EQ(img.sample(std::size_t(i) * 4 + 3), float(a) / max) << what;
                }
            }
}

// PNG is decoded by libspng (app/io/load/png_decode.h) with stb's output conventions: for every colour type, bit depth
// (1, 2, 4, 8, 16), tRNS chunk and palette, the samples equal what stb_image gives for the same file.
TEST(ImageLoad, PngThroughLibspngEqualsStbForEveryKind) {
    TempDir dir;
    std::mt19937 rng(5);
    auto bytes = [&](std::size_t n, int mod) {
        std::vector<unsigned char> v(n);
        for (auto& b : v) b = static_cast<unsigned char>(rng() % mod);
        return v;
    };
    const int w = 13, h = 7;
    struct Case {
        std::string name;
        int depth, type, samples, mod;
        std::vector<std::pair<std::string, std::vector<unsigned char>>> chunks;
    };
    std::vector<unsigned char> plte = bytes(48, 256);
    std::vector<Case> cases = {
        {"g1", 1, 0, 1, 256, {}},
        {"g2", 2, 0, 1, 256, {}},
        {"g4", 4, 0, 1, 256, {}},
        {"g8", 8, 0, 1, 256, {}},
        {"g16", 16, 0, 1, 256, {}},
        {"ga8", 8, 4, 2, 256, {}},
        {"ga16", 16, 4, 2, 256, {}},
        {"rgb8", 8, 2, 3, 256, {}},
        {"rgb16", 16, 2, 3, 256, {}},
        {"rgba8", 8, 6, 4, 256, {}},
        {"rgba16", 16, 6, 4, 256, {}},
        {"g8-trns", 8, 0, 1, 4, {{"tRNS", {0, 2}}}},
        {"g16-trns", 16, 0, 1, 2, {{"tRNS", {0, 1}}}},
        {"rgb8-trns", 8, 2, 3, 2, {{"tRNS", {0, 1, 0, 0, 0, 1}}}},
        {"rgb16-trns", 16, 2, 3, 2, {{"tRNS", {0, 1, 0, 0, 0, 1}}}},
        {"pal8", 8, 3, 1, 16, {{"PLTE", plte}}},
        {"pal2", 2, 3, 1, 256, {{"PLTE", std::vector<unsigned char>(plte.begin(), plte.begin() + 12)}}},
        {"pal8-trns", 8, 3, 1, 16, {{"PLTE", plte}, {"tRNS", {0, 128, 255, 7}}}},
    };
    for (const Case& c : cases) {
        const std::size_t row = (std::size_t(w) * c.depth * c.samples + 7) / 8;
        const std::string path = dir.file(c.name + ".png");
        fixtures::write_file(path, fixtures::png_custom(w, h, c.depth, c.type, bytes(row * h, c.mod), c.chunks));
        const Image img = load_image(path, test_limits());
        int sw = 0, sh = 0, sc = 0;
        const bool deep = stbi_is_16_bit(path.c_str());
        void* ref = deep ? static_cast<void*>(stbi_load_16(path.c_str(), &sw, &sh, &sc, 0))
                         : static_cast<void*>(stbi_load(path.c_str(), &sw, &sh, &sc, 0));
        ASSERT_TRUE(ref) << c.name << ": stb: " << stbi_failure_reason();
        EXPECT_EQ(img.width, sw) << c.name;
        EXPECT_EQ(img.channels, sc) << c.name;
        EXPECT_EQ(img.bit_depth, deep ? 16 : 8) << c.name;
        if (img.channels == sc && img.width == sw && img.height == sh) {
            EXPECT_EQ(std::memcmp(img.data(), ref, img.sample_bytes()), 0) << c.name;
        }
        stbi_image_free(ref);
    }
}

// The PNG writer: libpng's single-threaded path and the banded parallel one (levels 1-3, pictures over 4 MiB)
// write files that libspng, stb and libpng itself read back to exactly the picture, for gray, RGB and 16-bit
// gray, widths that are odd and heights that are not a multiple of a band.
TEST(PngWrite, EveryPathReadsBackExactlyInThreeDecoders) {
    TempDir dir;
    std::mt19937 rng(9);
    for (auto [w, h] : {std::pair{1531, 2900}, std::pair{64, 40}})
        for (PngColor color : {PngColor::Gray, PngColor::Rgb, PngColor::Gray16}) {
            std::vector<std::uint32_t> px(std::size_t(w) * h);
            for (std::size_t i = 0; i < px.size(); ++i)  // runs and noise, as spectra have
                px[i] = (i / 97) % 3 == 0 ? 0xFF102030u : std::uint32_t(rng());
            if (color == PngColor::Gray16)
                for (auto& v : px) v &= 0xFFFF;
            for (int level : {0, 1, 6})
                for (int threads : {1, 4}) {
                    const std::string path = dir.file("w.png");
                    write_picture_png(path, px.data(), w, h, color, level, threads);
                    const std::string what = std::to_string(w) + "x" + std::to_string(h) + " colour " +
                                             std::to_string(int(color)) + " level " + std::to_string(level) +
                                             " threads " + std::to_string(threads);
                    const Image img = load_image(path, test_limits());  // libspng
                    const int ch = color == PngColor::Rgb ? 3 : 1;
                    ASSERT_EQ(img.channels, ch) << what;
                    ASSERT_EQ(img.bit_depth, color == PngColor::Gray16 ? 16 : 8) << what;
                    std::size_t bad = 0;
                    for (std::size_t i = 0; i < px.size(); ++i)
                        for (int c = 0; c < ch; ++c) {
                            const unsigned want = color == PngColor::Gray16 ? px[i] : (px[i] >> (8 * c)) & 0xFF;
                            const unsigned got = color == PngColor::Gray16
                                                     ? static_cast<const std::uint16_t*>(img.data())[i]
                                                     : static_cast<const std::uint8_t*>(img.data())[i * ch + c];
                            bad += want != got;
                        }
                    EXPECT_EQ(bad, 0u) << what;
                    // stb and libpng read the same bytes.
                    int sw = 0, sh = 0, sc = 0;
                    unsigned char* sp = stbi_load(path.c_str(), &sw, &sh, &sc, 0);
                    ASSERT_TRUE(sp) << what << ": " << stbi_failure_reason();
                    stbi_image_free(sp);
                    png_image pi{};
                    pi.version = PNG_IMAGE_VERSION;
                    ASSERT_TRUE(png_image_begin_read_from_file(&pi, path.c_str())) << what << ": " << pi.message;
                    std::vector<unsigned char> buf(PNG_IMAGE_SIZE(pi));
                    EXPECT_TRUE(png_image_finish_read(&pi, nullptr, buf.data(), 0, nullptr))
                        << what << ": " << pi.message;
                }
        }
}

// Pictures given as levels (what the CLI writes): 8-bit levels as gray or, through the colormap, as RGB, and
// 16-bit levels, read back as the same pixels as the RGBA picture they stand for.
TEST(PngWrite, LevelsWriteTheSamePngAsTheirColours) {
    TempDir dir;
    std::mt19937 rng(4);
    const ColormapLut lut = make_colormap_lut(Colormap::Inferno);
    for (auto [w, h] : {std::pair{1531, 2900}, std::pair{64, 40}}) {
        const std::size_t n = std::size_t(w) * h;
        std::vector<unsigned char> l8(n), l16(2 * n);
        std::vector<std::uint32_t> gray(n), colour(n), wide(n);
        for (std::size_t i = 0; i < n; ++i) {
            l8[i] = (i / 97) % 3 == 0 ? 7 : static_cast<unsigned char>(rng());
            gray[i] = l8[i];
            colour[i] = lut.rgba[l8[i]];
            const std::uint16_t v = static_cast<std::uint16_t>(rng());
            std::memcpy(&l16[2 * i], &v, 2);
            wide[i] = v;
        }
        for (int threads : {1, 4}) {
            struct Case {
                PngColor color;
                PicturePixels px;
                const std::vector<std::uint32_t>* same;
            };
            PicturePixels p8, p8c, p16;
            p8.levels = l8.data();
            p8.level_bytes = 1;
            p8c = p8;
            p8c.lut = lut.rgba;
            p16.levels = l16.data();
            p16.level_bytes = 2;
            for (const Case& c : {Case{PngColor::Gray, p8, &gray}, Case{PngColor::Rgb, p8c, &colour},
                                  Case{PngColor::Gray16, p16, &wide}}) {
                const std::string what = std::to_string(w) + " colour " + std::to_string(int(c.color)) + " threads " +
                                         std::to_string(threads);
                write_picture_png(dir.file("l.png"), c.px, w, h, c.color, 1, threads);
                write_picture_png(dir.file("c.png"), c.same->data(), w, h, c.color, 1, threads);
                const Image a = load_image(dir.file("l.png"), test_limits()),
                            b = load_image(dir.file("c.png"), test_limits());
                ASSERT_EQ(a.sample_count(), b.sample_count()) << what;
                ASSERT_EQ(a.bit_depth, b.bit_depth) << what;
                EXPECT_EQ(std::memcmp(a.data(), b.data(), a.sample_count() * (a.bit_depth / 8)), 0) << what;
            }
        }
    }
    // Levels that do not fit the colour type are refused, never read out of bounds.
    std::vector<unsigned char> l(16);
    PicturePixels bad;
    bad.levels = l.data();
    bad.level_bytes = 1;
    EXPECT_THROW(write_picture_png(dir.file("x.png"), bad, 4, 4, PngColor::Rgb), std::runtime_error);  // no lut
    EXPECT_THROW(write_picture_png(dir.file("x.png"), bad, 4, 4, PngColor::Gray16), std::runtime_error);
}

// Files that once broke a decoder (tests/fuzz/regression): each decodes into a consistent image or is refused
// with a readable reason, never a crash; the crafted JPEGs are refused by the JPEG decoder.
TEST(ImageLoad, RegressionCorpusIsDecodedOrRefusedCleanly) {
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(SPECVIEW_REGRESSION_DIR)) {
        ++files;
        const std::string path = e.path().string();
        try {
            const Image img = load_image(path, test_limits());
            EXPECT_EQ(img.sample_count(), std::size_t(img.width) * img.height * img.channels) << path;
            EXPECT_NE(e.path().extension(), ".jpg") << path << " decoded";
        } catch (const InputError& err) {
            EXPECT_EQ(err.reason().find("bad png sig"), std::string::npos) << err.what();
            for (char c : err.reason()) EXPECT_TRUE(c >= 0x20 && c <= 0x7E) << "unreadable reason: " << err.what();
            if (e.path().extension() == ".jpg") {
                EXPECT_NE(err.reason().find("JPEG"), std::string::npos) << err.what();
            }
        }
    }
    EXPECT_GE(files, 3);
}

TEST(ImageLoad, TruncatedFilesOfEveryFormatAreRefused) {
    TempDir dir;
    const Pixels rgb = fixtures::pattern(24, 16, 3), rgba = fixtures::pattern(24, 16, 4),
                 g = fixtures::pattern(24, 16, 1);
    std::vector<std::uint8_t> pal(768), idx(24 * 16);
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = std::uint8_t(i % 200);
    const std::pair<std::string, std::vector<unsigned char>> files[] = {
        {"png8", fixtures::png(rgb, 8)},
        {"png16", fixtures::png(rgba, 16)},
        {"pnm8", fixtures::pnm(g, 8)},
        {"pnm16", fixtures::pnm(rgb, 16)},
        {"psd8", fixtures::psd(rgb, 8)},
        {"psd16", fixtures::psd(rgba, 16)},
        {"gif", fixtures::gif(24, 16, idx, pal)},
        {"bmp", fixtures::bmp(rgb)},
        {"tga", fixtures::tga(rgba, false)},
        {"tga-rle", fixtures::tga(rgb, true)},
        {"jpeg", fixtures::jpeg(rgb, 90)},
        {"hdr", fixtures::hdr(rgb)},
    };
    for (const auto& [name, bytes] : files) {
        ASSERT_NO_THROW(load_image((fixtures::write_file(dir.file(name), bytes), dir.file(name)), test_limits()))
            << name;
        for (double keep : {0.3, 0.6, 0.9}) {
            const std::size_t cut = std::size_t(bytes.size() * keep);
            std::vector<unsigned char> t(bytes.begin(), bytes.begin() + long(cut));
            const std::string path = dir.file(name + "-cut" + std::to_string(cut));
            fixtures::write_file(path, t);
            EXPECT_THROW(load_image(path, test_limits()), InputError)
                << name << " cut to " << cut << " of " << bytes.size();
        }
    }
}

TEST(ImageLoad, DimensionCapIsCheckedBeforeDecoding) {
    TempDir dir;
    // A PNG whose header claims 20000 x 20000 and holds almost nothing.
    auto png = fixtures::png(fixtures::pattern(2, 2, 1), 8);
    const unsigned char big[4] = {0x00, 0x00, 0x4E, 0x20};  // 20000
    std::copy(big, big + 4, png.begin() + 16);
    std::copy(big, big + 4, png.begin() + 20);
    fixtures::write_file(dir.file("huge.png"), png);
    expect_input_error(dir.file("huge.png"), "20000x20000, over the limit of 16384");
    // A real image over a lowered cap.
    fixtures::write_file(dir.file("wide.png"), fixtures::png(fixtures::pattern(65, 3, 1), 8));
    LoadLimits lim = test_limits();
    lim.max_side = 64;
    lim.max_pixels = 64 * 64;
    expect_input_error(dir.file("wide.png"), "over the limit of 64", lim);
    lim.max_side = 65;
    lim.max_pixels = 65 * 65;
    EXPECT_NO_THROW(load_image(dir.file("wide.png"), lim));
    // A file-size cap.
    lim.max_file_bytes = 10;
    expect_input_error(dir.file("wide.png"), "over the limit", lim);
}

TEST(ImageLoad, OddAndTinySizes) {
    TempDir dir;
    for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 7}, std::pair{7, 1}, std::pair{3, 5}}) {
        const Pixels p = fixtures::pattern(w, h, 1);
        fixtures::write_file(dir.file("t.png"), fixtures::png(p, 8));
        expect_exact(load_image(dir.file("t.png"), test_limits()), p, 8, "tiny");
    }
}

}  // namespace
}  // namespace specview::test
