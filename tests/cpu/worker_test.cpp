// The worker behind the viewer, on the CPU backend: decodes off the caller's thread, runs the latest settings
// (stale ones are dropped, never queued), keeps the previous image on a bad file, and serves the jobs the
// viewer used to do while drawing.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "app/engine/engine.h"
#include "app/io/npy.h"
#include "ui/worker/worker.h"
#include "tests/fixtures/image_writers.h"
#include "tests/support/oracle.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

std::string grating_file(const TempDir& dir, int n, int kx, int ky, const std::string& name = "g.png") {
    fixtures::Pixels p{n, n, 1, {}};
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            p.v.push_back(0.5 + 0.5 * std::cos(2 * M_PI * (double(kx) * x + double(ky) * y) / n));
    const std::string path = dir.file(name);
    fixtures::write_file(path, fixtures::png(p, 16));
    return path;
}

WorkerUpdates settle(Worker& w) {
    w.wait_idle();
    return w.poll();
}

// A stack stepped frame by frame (as playing does) arrives frame by frame, streamed from one decoder request;
// a jump elsewhere ends the stream and opens that frame; the last frame ends it too.
TEST(Worker, AStackSteppedFrameByFrameArrivesInOrderAndJumpsWork) {
    TempDir dir;
    std::vector<std::vector<double>> pages;
    for (int p = 0; p < 6; ++p) pages.push_back(std::vector<double>(8 * 8, double(p * 1000)));
    fixtures::TiffOptions o;
    o.sample = fixtures::TiffSample::U16;
    fixtures::write_file(dir.file("s.tif"), fixtures::tiff(8, 8, 1, pages, o));
    Worker worker(1);
    auto open_frame = [&](int f) {
        LoadLimits l;
        l.frame = f;
        worker.open(dir.file("s.tif"), l);
        WorkerUpdates u = settle(worker);
        EXPECT_TRUE(u.decoded.has_value()) << "frame " << f;
        if (!u.decoded) return -1;
        EXPECT_NEAR(u.decoded->image->at(2, 2, 0) * 65535.0, 1000.0 * f, 1e-3) << "frame " << f;
        return u.decoded->image->frame;
    };
    for (int f : {0, 1, 2, 3, 1, 2, 5, 0, 1, 2, 3, 4, 5, 0}) EXPECT_EQ(open_frame(f), f);
}

// The viewer asks the worker something every frame (poll, status, idle); none of that waits while a large
// image's display picture is made (it used to be made under the worker's lock: one frozen frame of 330-450 ms
// on the H100 for an 8192^2 16-bit TIFF).
TEST(Worker, AskingWhileALargeImageIsPreparedDoesNotWait) {
    TempDir dir;
    const int n = 4096;
    std::vector<float> v(std::size_t(n) * n);
    std::uint32_t x = 12345;
    for (auto& f : v) {
        x = x * 1664525u + 1013904223u;
        f = float(x >> 8) / 16777216.0f - 0.5f;  // negative values too: the display range is worked out
    }
    write_npy_float32(dir.file("big.npy"), v.data(), n, n);
    Worker worker(1);
    worker.open(dir.file("big.npy"));
    double slowest = 0;
    int asked = 0;
    bool decoded = false;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!decoded && std::chrono::steady_clock::now() < give_up) {
        const auto t0 = std::chrono::steady_clock::now();
        WorkerUpdates u = worker.poll();
        (void)worker.status();
        slowest =
            std::max(slowest, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        ++asked;
        decoded = u.decoded.has_value();
    }
    ASSERT_TRUE(decoded);
    std::printf("[ worker   ] slowest of %d polls while a 4096^2 float image was opened: %.2f ms\n", asked, slowest);
    EXPECT_LT(slowest, 60.0) << "the slowest of " << asked << " polls while the image was opened";
}

// The image view's picture, made through per-depth tables on several threads, equals the sample-by-sample
// mapping (value -> [0, 1] by the range -> 8 bits, alpha by itself) on every depth and channel count, on images
// large enough to be split into bands.
TEST(Worker, DisplayPictureEqualsTheSampleBySampleMapping) {
    std::mt19937 rng(std::random_device{}());
    struct Case {
        int channels, depth;
    };
    for (const Case c : {Case{1, 8}, Case{2, 8}, Case{3, 8}, Case{4, 8}, Case{1, 16}, Case{2, 16}, Case{4, 16},
                         Case{1, 32}, Case{4, 32}}) {
        const int w = 1031, h = 1100;  // odd sizes, over 2^20 pixels: the threaded path
        Image img = Image::allocate(w, h, c.channels, c.depth, "test");
        unsigned char* p = img.writable();
        for (std::size_t i = 0; i < img.sample_count(); ++i) {
            if (c.depth == 8)
                p[i] = std::uint8_t(rng());
            else if (c.depth == 16)
                reinterpret_cast<std::uint16_t*>(p)[i] = std::uint16_t(rng());
            else
                reinterpret_cast<float*>(p)[i] = std::uniform_real_distribution<float>(-3.0f, 5.0f)(rng);
        }
        const DisplayRange range = display_range(img);
        if (c.depth == 32) {
            EXPECT_EQ(range.mode, DisplayRange::Mode::Values);
        }
        const std::vector<std::uint32_t> got = display_rgba(img, range);
        ASSERT_EQ(got.size(), std::size_t(w) * h);
        auto q = [&](float v) {
            if (range.mode == DisplayRange::Mode::Values) v = (v - range.lo) / (range.hi - range.lo);
            return std::uint32_t(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f);
        };
        auto qa = [](float v) { return std::uint32_t(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };
        std::size_t wrong = 0, first_wrong = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            const std::size_t k = i * std::size_t(c.channels);
            std::uint32_t r, g, b, a = 255;
            if (c.channels >= 3) {
                r = q(img.sample(k)), g = q(img.sample(k + 1)), b = q(img.sample(k + 2));
                if (c.channels == 4) a = qa(img.sample(k + 3));
            } else {
                r = g = b = q(img.sample(k));
                if (c.channels == 2) a = qa(img.sample(k + 1));
            }
            if (got[i] != (r | (g << 8) | (b << 16) | (a << 24)) && wrong++ == 0) first_wrong = i;
        }
        EXPECT_EQ(wrong, 0u) << c.channels << " channels, " << c.depth << "-bit: first at pixel " << first_wrong;
    }
}

TEST(Worker, DecodesRunsAndGivesTheEnginesPicture) {
    TempDir dir;
    const std::string path = grating_file(dir, 64, 5, 3);
    Worker worker(1);
    const std::uint64_t id = worker.open(path);
    WorkerUpdates u = settle(worker);
    ASSERT_TRUE(u.decoded.has_value());
    EXPECT_EQ(u.decoded->image_id, id);
    EXPECT_EQ(u.decoded->image->width, 64);
    ASSERT_TRUE(u.display.has_value());
    EXPECT_EQ(u.display->image_id, id);
    EXPECT_EQ(u.display->rgba.size(), 64u * 64u);
    EXPECT_GT(u.decoded->decode_ms, 0.0);

    Settings s;
    s.view.colormap = Colormap::Magma;
    worker.run(s, 7, true);  // the CPU backend has no device picture: it comes back in host memory
    u = settle(worker);
    ASSERT_TRUE(u.run.has_value());
    ASSERT_TRUE(u.run->ok) << u.run->error;
    EXPECT_EQ(u.run->change, 7u);
    EXPECT_EQ(u.run->image_id, id);
    EXPECT_EQ(u.run->frame.device_rgba, nullptr);
    EXPECT_FALSE(u.run->frame.host_data)
        << "the readout asks the worker (the CPU keeps the half spectrum, not a whole copy)";

    Engine engine;
    engine.set_image(load_image(path), path);
    const Frame ref = engine.run(s);
    EXPECT_EQ(u.run->frame.rgba, ref.rgba);
    // The readout: the grating's bin holds n^2/4, its mirror the conjugate; a bin elsewhere next to nothing.
    auto value = [&](int x, int y) {
        worker.read_value(s, 7, x, y);
        WorkerUpdates v = settle(worker);
        EXPECT_TRUE(v.value && v.value->ok) << x << "," << y;
        return v.value ? v.value->value : std::complex<double>();
    };
    const std::complex<double> peak = value(5, 3), mirror = value(64 - 5, 64 - 3);
    EXPECT_NEAR(std::abs(peak), 64.0 * 64.0 / 4.0, 0.5);
    EXPECT_NEAR(std::abs(mirror - std::conj(peak)), 0.0, 1e-3);
    EXPECT_LT(std::abs(value(20, 7)), 1e-2);
}

// An open told the viewer's settings plans the transform at the header, while the samples decode: the first
// run reports the plan as made then, and makes none of its own.
TEST(Worker, AnOpenWithSettingsPlansWhileTheImageDecodes) {
    TempDir dir;
    const std::string path = grating_file(dir, 96, 5, 3);
    Settings s;
    Worker worker(1);
    worker.open(path, {}, {}, s);
    settle(worker);
    worker.run(s, 1, false);
    WorkerUpdates u = settle(worker);
    ASSERT_TRUE(u.run && u.run->ok) << (u.run ? u.run->error : "no run");
    bool early = false, own = false;
    for (const auto& t : u.run->frame.timings) {
        early |= t.name.find("while the image was decoded") != std::string::npos;
        own |= t.name.find("first run at this size") != std::string::npos;
    }
    EXPECT_TRUE(early);
    EXPECT_FALSE(own);
}

TEST(Worker, LatestSettingsWinAndStaleRunsAreDropped) {
    TempDir dir;
    Worker worker(1);
    worker.open(grating_file(dir, 256, 9, 4));
    settle(worker);
    const std::vector<std::string>& maps = colormap_names();
    int results = 0;
    std::uint64_t last_seen = 0;
    for (int i = 1; i <= 200; ++i) {
        Settings s;
        s.tukey_alpha = float(i) / 200;
        s.window = Window::Tukey;
        s.view.colormap = *parse_name<Colormap>(maps[std::size_t(i) % maps.size()]);
        worker.run(s, std::uint64_t(i), false);
        WorkerUpdates u = worker.poll();
        if (u.run) {
            ++results;
            EXPECT_GT(u.run->change, last_seen) << "results arrive in order, never an older one after a newer";
            last_seen = u.run->change;
        }
    }
    WorkerUpdates u = settle(worker);
    ASSERT_TRUE(u.run.has_value());
    EXPECT_EQ(u.run->change, 200u) << "the last settings posted are the last picture";
    EXPECT_FLOAT_EQ(u.run->settings.tukey_alpha, 1.0f);
    EXPECT_LT(results, 199) << "200 quick posts ran as far fewer runs";
}

TEST(Worker, ABadFileIsAMessageAndThePreviousImageStays) {
    TempDir dir;
    Worker worker(1);
    const std::string good = grating_file(dir, 32, 2, 1);
    worker.open(good);
    WorkerUpdates u = settle(worker);
    ASSERT_TRUE(u.decoded);
    const std::string bad = dir.file("broken.png");
    fixtures::write_file(bad, {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 1, 2, 3});
    worker.open(bad);
    u = settle(worker);
    EXPECT_FALSE(u.decoded.has_value());
    ASSERT_EQ(u.messages.size(), 1u);
    EXPECT_TRUE(u.messages[0].first);
    EXPECT_NE(u.messages[0].second.find("broken.png"), std::string::npos) << u.messages[0].second;
    worker.run(Settings{}, 1, false);
    u = settle(worker);
    ASSERT_TRUE(u.run && u.run->ok);
    EXPECT_EQ(u.run->frame.width, 32) << "the previous image is still the one transformed";
}

TEST(Worker, AnErrorInARunIsReportedWithItsChange) {
    TempDir dir;
    Worker worker(1);
    worker.open(grating_file(dir, 32, 2, 1));
    settle(worker);
    Settings s;
    s.channel = Channel::A;  // a gray image has no alpha
    worker.run(s, 3, false);
    WorkerUpdates u = settle(worker);
    ASSERT_TRUE(u.run.has_value());
    EXPECT_FALSE(u.run->ok);
    EXPECT_EQ(u.run->change, 3u);
    EXPECT_NE(u.run->error.find("alpha"), std::string::npos) << u.run->error;
}

TEST(Worker, SavesThePictureAndTheRawSpectrumAsJobs) {
    TempDir dir;
    Worker worker(1);
    worker.open(grating_file(dir, 64, 5, 3));
    settle(worker);
    Settings s;
    worker.save_npy(s, dir.file("f.npy"));
    worker.save_png(s, dir.file("f.png"));
    WorkerUpdates u = settle(worker);
    ASSERT_EQ(u.messages.size(), 2u);
    for (const auto& m : u.messages) EXPECT_FALSE(m.first) << m.second;
    const NpyComplex f = read_npy_complex64(dir.file("f.npy"));
    EXPECT_EQ(f.height, 64);
    EXPECT_NEAR(std::abs(f.data[3 * 64 + 5]), 64.0 * 64.0 / 4.0, 0.5);
    const Image png = load_image(dir.file("f.png"));
    EXPECT_EQ(png.width, 64);
    worker.save_npy(s, dir.path().string() + "/no/such/dir/f.npy");
    u = settle(worker);
    ASSERT_EQ(u.messages.size(), 1u);
    EXPECT_TRUE(u.messages[0].first);
}

// The classroom's butterfly diagram takes whole rows of what each row pass transforms: pass 1 a row of the plane,
// pass 2 a row after pass 1 and the transpose (bin k of every row's DFT). A 32x32 grating of 4 cycles across: every
// plane row is the cosine; pass 2's row 4 is 0.25 * 32 = 8 everywhere, its row 3 zero.
TEST(Worker, ServesTheClassroomRowsOfBothPasses) {
    TempDir dir;
    Worker worker(1);
    worker.open(grating_file(dir, 32, 4, 0));
    settle(worker);
    Settings s;
    worker.plane_row(s, 42, 1, 3);
    WorkerUpdates u = settle(worker);
    ASSERT_TRUE(u.plane_row.has_value());
    EXPECT_EQ(u.plane_row->key, 42u);
    EXPECT_EQ(u.plane_row->pass, 1);
    ASSERT_EQ(u.plane_row->values.size(), 32u);
    for (int i = 0; i < 32; ++i)
        EXPECT_NEAR(u.plane_row->values[i].real(), 0.5 + 0.5 * std::cos(2 * M_PI * 4.0 * i / 32), 1e-4) << i;
    for (const int k : {4, 3}) {
        worker.plane_row(s, 43, 2, k);
        u = settle(worker);
        ASSERT_TRUE(u.plane_row.has_value());
        EXPECT_EQ(u.plane_row->pass, 2);
        EXPECT_EQ(u.plane_row->row, k);
        ASSERT_EQ(u.plane_row->values.size(), 32u);
        for (int y = 0; y < 32; ++y) {
            EXPECT_NEAR(u.plane_row->values[y].real(), k == 4 ? 8.0 : 0.0, 1e-3) << y;
            EXPECT_NEAR(u.plane_row->values[y].imag(), 0.0, 1e-3) << y;
        }
    }
}

// A stack opened as one volume (issue 61): the six pictures have the slices' shapes, the spectrum's kx-ky slice through
// a plane wave's kz holds its peak at (kx, ky) from the centre (and no other slice there does); moving a slice makes
// pictures only, a window transforms again from the kept frames; a broken file is an error.
TEST(Worker, AVolumesSlicesShowThePlaneWaveWhereItIs) {
    TempDir dir;
    const int W = 16, H = 8, D = 6, kx = 3, ky = -2, kz = 2;
    const std::vector<std::vector<double>> pages = fixtures::plane_wave_pages(W, H, D, kx, ky, kz);
    fixtures::TiffOptions o;
    o.sample = fixtures::TiffSample::U16;
    fixtures::write_file(dir.file("v.tif"), fixtures::tiff(W, H, 1, pages, o));
    Settings s;
    s.pad = PadMode::None;
    s.level = Level::Mean;
    s.view.colormap = Colormap::Gray;
    Worker worker(2);
    VolumeViewRequest v;
    v.kz = kz;
    worker.open_volume(s, dir.file("v.tif"), v);
    WorkerUpdates u = settle(worker);
    ASSERT_TRUE(u.volume.has_value());
    ASSERT_TRUE(u.volume->ok) << u.volume->error;
    const VolumeResult& r = *u.volume;
    EXPECT_TRUE(r.transformed);
    EXPECT_EQ(r.backend, "CPU (FFTW 3D)");
    EXPECT_EQ(r.view.image_z, D / 2);
    const int shapes[6][2] = {{W, H}, {W, D}, {H, D}, {W, H}, {W, D}, {H, D}};
    for (int i = 0; i < 6; ++i) {
        const VolumePicture& p = i < 3 ? *r.image[i] : *r.spectrum[i - 3];
        EXPECT_EQ(p.width, shapes[i][0]) << p.label;
        EXPECT_EQ(p.height, shapes[i][1]) << p.label;
        EXPECT_EQ(p.rgba.size(), std::size_t(p.width) * p.height) << p.label;
    }
    EXPECT_EQ(r.spectrum[0]->label, "kx-ky at kz = 2");
    auto brightest = [](const VolumePicture& p) {
        return int(std::max_element(p.rgba.begin(), p.rgba.end(),
                                    [](std::uint32_t a, std::uint32_t b) { return (a & 0xFF) < (b & 0xFF); }) -
                   p.rgba.begin());
    };
    EXPECT_EQ(brightest(*r.spectrum[0]), (H / 2 + ky) * W + (W / 2 + kx));
    EXPECT_FALSE(r.shell.at.empty());
    const float peak_hi = r.spectrum[0]->hi;
    const std::shared_ptr<const VolumePicture> kxky = r.spectrum[0], kxkz = r.spectrum[1], xz = r.image[1];
    // Through DC instead: a view-only change; the peak is not in that slice (its brightest is far below the peak's).
    v.kz = 0;
    worker.volume_view(s, v);
    u = settle(worker);
    ASSERT_TRUE(u.volume && u.volume->ok) << (u.volume ? u.volume->error : "no result");
    EXPECT_FALSE(u.volume->transformed);
    EXPECT_EQ(u.volume->spectrum[0]->label, "kx-ky at kz = 0");
    // One range for every slice, the volume's: the slice without the peak is dark in it ...
    EXPECT_EQ(u.volume->spectrum[0]->hi, peak_hi);
    const VolumePicture& dc = *u.volume->spectrum[0];
    EXPECT_LT(int(dc.rgba[std::size_t(brightest(dc))] & 0xFF), 128) << "the kz = 0 slice is as bright as the peak's";
    // ... and the pictures that did not move are the same ones (the viewer uploads only the one that did).
    EXPECT_EQ(u.volume->spectrum[1], kxkz);
    EXPECT_EQ(u.volume->image[1], xz);
    EXPECT_NE(u.volume->spectrum[0], kxky);
    // Back at the peak's kz in another colormap: the same values over the same range in its colours (no new range,
    // no new transform), the spectrum's pictures coloured again, the image's left as they were.
    v.kz = kz;
    s.view.colormap = Colormap::Inferno;
    worker.volume_view(s, v);
    u = settle(worker);
    ASSERT_TRUE(u.volume && u.volume->ok) << (u.volume ? u.volume->error : "no result");
    EXPECT_FALSE(u.volume->transformed);
    EXPECT_EQ(u.volume->range_ms, 0.0) << "a colormap ranked the spectrum again";
    EXPECT_EQ(u.volume->image[1], xz);
    const ColormapLut inferno = make_colormap_lut(Colormap::Inferno);
    std::size_t recoloured = 0;  // (pixels whose colour is another in inferno than in gray)
    for (int i = 0; i < 2; ++i) {
        const VolumePicture &was = i == 0 ? *kxky : *kxkz, &now = *u.volume->spectrum[i];
        EXPECT_EQ(now.values, was.values) << now.label;
        EXPECT_EQ(now.lo, was.lo);
        EXPECT_EQ(now.hi, was.hi);
        ASSERT_EQ(now.rgba.size(), was.rgba.size());
        for (std::size_t j = 0; j < now.rgba.size(); ++j) {
            ASSERT_EQ(now.rgba[j], inferno.rgba[level_of(normalize_to_range(now.values[j], now.lo, now.hi))])
                << now.label << " pixel " << j;
            recoloured += now.rgba[j] != was.rgba[j];
        }
    }
    EXPECT_GT(recoloured, 0u);
    v.kz = 0;
    s.view.colormap = Colormap::Gray;
    // The image's yz slice at x: frame z's column x, gray over the volume's range.
    v.image_x = 5;
    s.window = Window::Hann;
    worker.volume_view(s, v);
    u = settle(worker);
    ASSERT_TRUE(u.volume && u.volume->ok);
    EXPECT_TRUE(u.volume->transformed);
    EXPECT_EQ(u.volume->image[2]->label, "yz at x = 5");
    const VolumePicture& yz = *u.volume->image[2];
    for (int z = 0; z < D; ++z)
        for (int y = 0; y < H; ++y) {
            const double want = (pages[std::size_t(z)][std::size_t(y) * W + 5] / 65535.0 - yz.lo) / (yz.hi - yz.lo) * 255.0;
            EXPECT_NEAR(double(yz.rgba[std::size_t(z) * H + y] & 0xFF), want, 1.01) << y << "," << z;
        }
    // An ROI: the same rectangle of every frame is the volume transformed (the image's views stay whole); one that
    // does not lie within the frames is an error naming the file.
    s.roi = Roi{2, 1, 8, 4};
    worker.volume_view(s, v);
    u = settle(worker);
    ASSERT_TRUE(u.volume && u.volume->ok) << (u.volume ? u.volume->error : "no result");
    EXPECT_TRUE(u.volume->transformed);
    EXPECT_EQ(u.volume->geometry.width, 8);
    EXPECT_EQ(u.volume->geometry.height, 4);
    EXPECT_EQ(u.volume->geometry.depth, D);
    EXPECT_EQ(u.volume->image[0]->width, W);
    s.roi = Roi{10, 0, 30, 4};
    worker.volume_view(s, v);
    u = settle(worker);
    ASSERT_TRUE(u.volume.has_value());
    EXPECT_FALSE(u.volume->ok);
    EXPECT_NE(u.volume->error.find("v.tif"), std::string::npos) << u.volume->error;
    s.roi = Roi{};
    // A broken file is an error naming it (and the open volume stays for the views).
    fixtures::write_file(dir.file("two.gif"), std::vector<unsigned char>{'G', 'I', 'F', '8', '9', 'a'});
    worker.open_volume(s, dir.file("two.gif"), v);
    u = settle(worker);
    ASSERT_TRUE(u.volume.has_value());
    EXPECT_FALSE(u.volume->ok);
    EXPECT_NE(u.volume->error.find("two.gif"), std::string::npos) << u.volume->error;
}

}  // namespace
}  // namespace specview::test
