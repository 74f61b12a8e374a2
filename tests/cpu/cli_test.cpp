// The CLI end to end: run the real binary, read back what it wrote, check exit codes and messages.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <algorithm>
#include <sstream>
#include <iostream>

#include "app/cli/cli.h"
#include "app/engine/auto_backend.h"
#include "app/engine/devices.h"
#include "app/engine/cpu_backend.h"
#include "app/engine/engine.h"
#include "app/lab/filter.h"
#include "app/io/load/load.h"
#include "app/lab/mask_io.h"
#include "app/io/memory_need.h"
#include "app/io/npy.h"
#include "app/core/plane.h"
#include "app/io/load/video_decode.h"
#include "gpu/runtime/device_info.h"
#include "tests/fixtures/image_writers.h"
#include "tests/support/oracle.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

// The strongest of bins 1..last along the first row (step 1) or the first column (step = width) of a spectrum.
int strongest_bin(const NpyComplex& f, int last, std::size_t step = 1) {
    int peak = 1;
    for (int k = 1; k <= last; ++k)
        if (std::abs(f.data[std::size_t(k) * step]) > std::abs(f.data[std::size_t(peak) * step])) peak = k;
    return peak;
}

struct CliRun {
    int code = -1;
    std::string out, err;
};

// Runs specview with the arguments (each shell-quoted), capturing stdout and stderr; in_dir: from `dir` as its current
// directory (where the default outputs go).
std::string read_text(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

CliRun specview(const std::vector<std::string>& args, const TempDir& dir, bool in_dir = false) {
    std::string cmd = (in_dir ? "cd '" + dir.file("") + "' && '" : std::string("'")) + SPECVIEW_EXE + "'";
    for (const auto& a : args) cmd += " '" + a + "'";
    const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
    cmd += " >'" + out + "' 2>'" + err + "'";
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
}

// The same with the plain picture where the arguments do not say otherwise: no window, the min..max range (the
// defaults' Hann window and percentile range are for a first look; these tests check values against the engine's).
CliRun specview_plain(std::vector<std::string> args, const TempDir& dir, bool in_dir = false) {
    auto has = [&](const char* o) { return std::find(args.begin(), args.end(), o) != args.end(); };
    if (!has("--window")) args.insert(args.end(), {"--window", "none"});
    if (!has("--range")) args.insert(args.end(), {"--range", "auto"});
    return specview(args, dir, in_dir);
}

std::string grating(const TempDir& dir, int w, int h, int kx, int ky) {
    fixtures::Pixels p{w, h, 1, {}};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            p.v.push_back(0.5 + 0.5 * std::cos(2 * M_PI * (double(kx) * x / w + double(ky) * y / h)));
    const std::string path = dir.file("grating.png");
    fixtures::write_file(path, fixtures::png(p, 16));
    return path;
}

// Outputs only when asked (issue 59): --profile, --correlate, --raw alone write only what they name, so asking again
// under another name (or the same correlation again) succeeds; a bare run still writes <name>_spectrum.png, and an
// output that exists is still not overwritten without --force.
TEST(Cli, OnlyTheOutputsAskedForAreWritten) {
    TempDir dir;
    const std::string in = grating(dir, 64, 48, 5, 3);
    const std::string picture = dir.file("grating_spectrum.png");
    for (const char* csv : {"r.csv", "r2.csv"}) {
        const CliRun r = specview({"--headless", in, "--profile", "radial", csv}, dir, true);
        EXPECT_EQ(r.code, 0) << csv << ": " << r.err;
        EXPECT_TRUE(std::filesystem::exists(dir.file(csv))) << csv;
        EXPECT_FALSE(std::filesystem::exists(picture)) << "--profile alone wrote the picture";
    }
    for (int k = 0; k < 2; ++k) {
        const CliRun c = specview({"--headless", in, "--pad", "none", "--correlate", in}, dir, true);
        EXPECT_EQ(c.code, 0) << c.err;
        EXPECT_NE(c.out.find("shift: 0.00 0.00"), std::string::npos) << c.out;
        EXPECT_EQ(c.out.find("wrote"), std::string::npos) << "--correlate alone writes nothing: " << c.out;
        EXPECT_FALSE(std::filesystem::exists(picture));
    }
    const CliRun raw = specview({"--headless", in, "--raw", "s.npy"}, dir, true);
    EXPECT_EQ(raw.code, 0) << raw.err;
    EXPECT_TRUE(std::filesystem::exists(dir.file("s.npy")));
    EXPECT_FALSE(std::filesystem::exists(picture)) << "--raw alone wrote the picture";
    // -o with them: both
    const CliRun both = specview({"--headless", in, "-o", "p.png", "--profile", "radial", "r3.csv"}, dir, true);
    EXPECT_EQ(both.code, 0) << both.err;
    EXPECT_TRUE(std::filesystem::exists(dir.file("p.png")) && std::filesystem::exists(dir.file("r3.csv")));
    // A bare run: the picture under its default name; again: refused without --force, which overwrites
    const CliRun bare = specview({"--headless", in}, dir, true);
    EXPECT_EQ(bare.code, 0) << bare.err;
    EXPECT_TRUE(std::filesystem::exists(picture)) << bare.out;
    EXPECT_EQ(specview({"--headless", in}, dir, true).code, kExitOutput) << "an existing output, no --force";
    EXPECT_EQ(specview({"--headless", in, "--force"}, dir, true).code, 0);
    EXPECT_EQ(specview({"--headless", in, "--profile", "radial", "r.csv"}, dir, true).code, kExitOutput)
        << "the profile's CSV exists";
}

// Calibration (issue 59): --pixel-size VALUE[UNIT] adds the radial profile's f_per_<unit> column after
// f_cycles_per_pixel (the others unchanged) and the PSD fit's range in it; a TIFF's resolution with ImageJ's unit=, a
// TIFF in centimetres and a PNG's pHYs calibrate the same way; the option wins over the file; bad sizes are exit 2.
TEST(Cli, APixelSizeGivesTheRadialProfileInCyclesPerUnit) {
    TempDir dir;
    const std::string in = grating(dir, 64, 64, 5, 3);
    auto header_and_first = [&](const std::string& csv, std::vector<double>* first) {
        std::ifstream f(dir.file(csv));
        std::string header, line;
        std::getline(f, header);
        for (int k = 0; k < 3; ++k) std::getline(f, line);  // the third bin: f = 2/64
        first->clear();
        std::istringstream cells(line);
        for (std::string c; std::getline(cells, c, ',');) first->push_back(std::stod(c));
        return header;
    };
    std::vector<double> row;
    const CliRun a = specview({"--headless", in, "--profile", "radial", "a.csv", "--pixel-size", "0.5nm"}, dir, true);
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_EQ(header_and_first("a.csv", &row), "f_cycles_per_pixel,f_per_nm,mean_power,count");
    ASSERT_EQ(row.size(), 4u);
    EXPECT_NEAR(row[1], row[0] / 0.5, 1e-9);
    EXPECT_NE(a.out.find("/nm at 0.5000 nm a pixel"), std::string::npos) << a.out;
    const CliRun b = specview({"--headless", in, "--profile", "radial", "b.csv"}, dir, true);
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(header_and_first("b.csv", &row), "f_cycles_per_pixel,mean_power,count") << "not calibrated: as before";
    // Files that say their pixel size: ImageJ's TIFF (2 pixels a micron), a TIFF in centimetres, a PNG's pHYs.
    std::vector<double> values(64 * 64);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = double(i % 7) / 7.0;
    fixtures::TiffOptions ij;
    ij.x_resolution = 2.0f;
    ij.description = "ImageJ=1.53t\nunit=micron\n";
    fixtures::write_file(dir.file("ij.tif"), fixtures::tiff(64, 64, 1, {values}, ij));
    fixtures::TiffOptions cm;
    cm.x_resolution = 100.0f;
    cm.resolution_unit = 3;
    fixtures::write_file(dir.file("cm.tif"), fixtures::tiff(64, 64, 1, {values}, cm));
    std::vector<unsigned char> rows;
    for (int y = 0; y < 32; ++y)
        for (int x = 0; x < 32; ++x) rows.push_back(std::uint8_t((x * 7 + y * 3) % 256));
    const std::vector<unsigned char> phys = {0, 0, 0x27, 0x10, 0, 0, 0x27, 0x10, 1};  // 10000 pixels a metre
    fixtures::write_file(dir.file("phys.png"), fixtures::png_custom(32, 32, 8, 0, rows, {{"pHYs", phys}}));
    for (const auto& [file, unit, per] :
         {std::tuple{"ij.tif", "um", 0.5}, std::tuple{"cm.tif", "cm", 0.01}, std::tuple{"phys.png", "um", 100.0}}) {
        const std::string csv = std::string(file) + ".csv";
        const CliRun r = specview({"--headless", dir.file(file), "--profile", "radial", csv}, dir, true);
        ASSERT_EQ(r.code, 0) << file << ": " << r.err;
        EXPECT_EQ(header_and_first(csv, &row), std::string("f_cycles_per_pixel,f_per_") + unit + ",mean_power,count")
            << file;
        ASSERT_GE(row.size(), 2u) << file;
        EXPECT_NEAR(row[1], row[0] / per, 1e-6 * row[1] + 1e-12) << file;
    }
    // A photo's print resolution (300 dpi: 11811 pixels a metre in pHYs, 300 an inch in a TIFF) is no calibration.
    const std::vector<unsigned char> dpi300 = {0, 0, 0x2e, 0x23, 0, 0, 0x2e, 0x23, 1};
    fixtures::write_file(dir.file("print.png"), fixtures::png_custom(32, 32, 8, 0, rows, {{"pHYs", dpi300}}));
    fixtures::TiffOptions print_tif;
    print_tif.x_resolution = 300.0f;
    print_tif.resolution_unit = 2;
    fixtures::write_file(dir.file("print.tif"), fixtures::tiff(64, 64, 1, {values}, print_tif));
    for (const char* file : {"print.png", "print.tif"}) {
        const std::string csv = std::string(file) + ".csv";
        const CliRun r = specview({"--headless", dir.file(file), "--profile", "radial", csv}, dir, true);
        ASSERT_EQ(r.code, 0) << file << ": " << r.err;
        EXPECT_EQ(header_and_first(csv, &row), "f_cycles_per_pixel,mean_power,count") << file << ": print dpi";
    }
    const CliRun over =
        specview({"--headless", dir.file("ij.tif"), "--profile", "radial", "o.csv", "--pixel-size", "3A"}, dir, true);
    ASSERT_EQ(over.code, 0) << over.err;
    EXPECT_EQ(header_and_first("o.csv", &row), "f_cycles_per_pixel,f_per_A,mean_power,count") << "the option wins";
    for (const char* bad : {"0nm", "-1um", "2parsecs", "nm", "abc"}) {
        const CliRun r = specview({"--headless", in, "--pixel-size", bad}, dir, true);
        EXPECT_EQ(r.code, kExitUsage) << bad;
        EXPECT_EQ(r.err.rfind("specview: --pixel-size", 0), 0u) << r.err;
    }
}

// A rectangular ROI (issue 59): --roi X:Y:W:H transforms that rectangle only, exactly as if it had been cut out into
// a file of its own (the raw spectra equal, RGB 16-bit samples, an odd size); one not within the image is an input
// error naming the image's size (exit 3), a malformed one a usage error (exit 2).
TEST(Cli, ARoiIsTheSpectrumOfThatRectangleAlone) {
    TempDir dir;
    std::mt19937 rng(59);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const int W = 70, H = 45, X = 11, Y = 7, RW = 33, RH = 21;
    fixtures::Pixels whole{W, H, 3, {}}, part{RW, RH, 3, {}};
    for (int i = 0; i < W * H * 3; ++i) whole.v.push_back(u(rng));
    for (int y = Y; y < Y + RH; ++y)
        for (int x = X; x < X + RW; ++x)
            for (int c = 0; c < 3; ++c) part.v.push_back(whole.v[(std::size_t(y) * W + x) * 3 + c]);
    fixtures::write_file(dir.file("whole.png"), fixtures::png(whole, 16));
    fixtures::write_file(dir.file("part.png"), fixtures::png(part, 16));
    const std::string roi = std::to_string(X) + ":" + std::to_string(Y) + ":" + std::to_string(RW) + ":" +
                            std::to_string(RH);
    const CliRun a = specview({"--headless", "whole.png", "--roi", roi, "--pad", "none", "--raw", "a.npy"}, dir, true);
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_NE(a.out.find("33x21 (the ROI at 11,7) -> 33x21"), std::string::npos) << a.out;
    const CliRun b = specview({"--headless", "part.png", "--pad", "none", "--raw", "b.npy"}, dir, true);
    ASSERT_EQ(b.code, 0) << b.err;
    const NpyComplex A = read_npy_complex64(dir.file("a.npy")), B = read_npy_complex64(dir.file("b.npy"));
    ASSERT_EQ(A.width, RW);
    ASSERT_EQ(A.height, RH);
    ASSERT_EQ(A.data.size(), B.data.size());
    double worst = 0;
    for (std::size_t i = 0; i < A.data.size(); ++i) worst = std::max(worst, double(std::abs(A.data[i] - B.data[i])));
    EXPECT_EQ(worst, 0.0) << "the ROI's spectrum is the cut-out's";
    const CliRun outside = specview({"--headless", "whole.png", "--roi", "40:0:31:10"}, dir, true);
    EXPECT_EQ(outside.code, kExitInput) << outside.err;
    EXPECT_NE(outside.err.find("does not lie within the 70x45 image"), std::string::npos) << outside.err;
    for (const char* bad : {"1:2:3", "a:b:c:d", "0:0:0:5", "-1:0:4:4", "1:2:3:4:5"}) {
        const CliRun r = specview({"--headless", "whole.png", "--roi", bad}, dir, true);
        EXPECT_EQ(r.code, kExitUsage) << bad;
        EXPECT_EQ(r.err.rfind("specview: --roi", 0), 0u) << r.err;
    }
}

// --backend auto (issue 59), the default: the rule (app/engine/auto_backend.h) — the viewer, batches and stacks on the
// GPU where one is usable, one image only from kAutoGpuMinPixels — and the CLI saying which backend ran and why: one
// image on its summary line, a batch once on stderr.
TEST(Cli, BackendAutoChoosesByTheWorkAndSaysWhy) {
    EXPECT_EQ(choose_backend(AutoWork::Viewer, 0, true, "").backend, Backend::CustomFast);
    EXPECT_EQ(choose_backend(AutoWork::Viewer, 0, false, "no driver").backend, Backend::Cpu);
    EXPECT_NE(choose_backend(AutoWork::Viewer, 0, false, "no driver").why.find("no driver"), std::string::npos);
    EXPECT_EQ(choose_backend(AutoWork::Batch, 0, true, "", 200).backend, Backend::CustomFast);
    EXPECT_EQ(choose_backend(AutoWork::Frames, 0, true, "").backend, Backend::CustomFast);
    EXPECT_EQ(choose_backend(AutoWork::OneImage, 3072.0 * 3072.0, true, "").backend, Backend::Cpu);
    EXPECT_EQ(choose_backend(AutoWork::OneImage, 4096.0 * 4096.0, true, "").backend, Backend::CustomFast);
    EXPECT_EQ(choose_backend(AutoWork::OneImage, 8192.0 * 8192.0, true, "").backend, Backend::CustomFast);
    EXPECT_EQ(choose_backend(AutoWork::OneImage, 8192.0 * 8192.0, false, "x").backend, Backend::Cpu);
    EXPECT_FALSE(auto_wants_gpu(AutoWork::OneImage, kAutoGpuMinPixels - 1));
    // Without CUDA (issue 62): gl where its context is on a hardware GPU, the CPU where it is a software renderer;
    // CUDA first where there is one.
    GlProbe hw, sw;
    hw.usable = hw.hardware = true;
    hw.renderer = "AMD Radeon RX 7900";
    sw.usable = true;
    sw.renderer = "llvmpipe";
    EXPECT_EQ(choose_backend(AutoWork::Viewer, 0, false, "no driver", 0, &hw).backend, Backend::Gl);
    EXPECT_NE(choose_backend(AutoWork::Viewer, 0, false, "no driver", 0, &hw).why.find("Radeon"), std::string::npos);
    EXPECT_EQ(choose_backend(AutoWork::Batch, 0, false, "no driver", 20, &hw).backend, Backend::Gl);
    EXPECT_EQ(choose_backend(AutoWork::Viewer, 0, false, "no driver", 0, &sw).backend, Backend::Cpu);
    EXPECT_NE(choose_backend(AutoWork::Viewer, 0, false, "no driver", 0, &sw).why.find("software"), std::string::npos);
    EXPECT_EQ(choose_backend(AutoWork::Viewer, 0, true, "", 0, &hw).backend, Backend::CustomFast);
    EXPECT_EQ(choose_backend(AutoWork::OneImage, 1024.0 * 1024.0, false, "x", 0, &hw).backend, Backend::Cpu);
    EXPECT_TRUE(auto_wants_gpu(AutoWork::OneImage, kAutoGpuMinPixels));

    TempDir dir;
    const std::string in = grating(dir, 64, 48, 5, 3);
    const CliRun one = specview({"--headless", in, "-o", "one.png"}, dir, true);
    ASSERT_EQ(one.code, 0) << one.err;
    EXPECT_NE(one.out.find("(CPU (FFTW); auto: one image under 16 megapixels runs sooner on the CPU"), std::string::npos)
        << one.out;
    const CliRun named = specview({"--headless", in, "-o", "named.png", "--backend", "cpu"}, dir, true);
    ASSERT_EQ(named.code, 0) << named.err;
    EXPECT_EQ(named.out.find("auto:"), std::string::npos) << "a backend named is not auto's: " << named.out;
    std::filesystem::create_directories(dir.file("in"));
    std::filesystem::copy_file(in, dir.file("in/a.png"));
    std::filesystem::copy_file(in, dir.file("in/b.png"));
    const CliRun batch = specview({"--headless", "in", "-o", "out/"}, dir, true);
    ASSERT_EQ(batch.code, 0) << batch.err;
    const bool gpu = gpu::probe_device(0).available;
    EXPECT_NE(batch.err.find(gpu ? "specview: backend custom-fast (auto: custom-fast, a batch of 2 images"
                                 : "specview: backend cpu (auto: the CPU, no usable CUDA device ("),
              std::string::npos)
        << batch.err;
    EXPECT_NE(batch.out.find(gpu ? "custom-fast" : "(CPU (FFTW))"), std::string::npos) << batch.out;
}

// Options with values never swallow the image after them: a SPEC each --filter, two values for --percentiles and
// --fixed-range, two each --profile (repeatable), however the line is ordered.
TEST(Cli, OptionValuesStopBeforeTheImage) {
    TempDir dir;
    const std::string in = grating(dir, 32, 32, 3, 1);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--headless", "--filter", "lowpass:0.2", "--filter", "highpass:0.01", in, "-o", "a.png"},
          std::vector<std::string>{"--headless", "--percentiles", "1", "99", in, "-o", "b.png"},
          std::vector<std::string>{"--headless", "--range", "fixed", "--fixed-range", "0", "3", in, "-o", "c.png"},
          std::vector<std::string>{"--headless", "--profile", "radial", "r.csv", "--profile", "angular", "d.csv", in}}) {
        const CliRun r = specview(args, dir, true);
        EXPECT_EQ(r.code, 0) << args[1] << ": " << r.err;
    }
    EXPECT_TRUE(std::filesystem::exists(dir.file("r.csv")) && std::filesystem::exists(dir.file("d.csv")));
}

// Huge pages for the big buffers (issue 60, app/core/huge_pages.h): where the kernel gives them on request, a run on
// a big enough input starts itself again with glibc told to ask, and takes fewer page faults than with
// SPECVIEW_NO_HUGE_PAGES=1; --timings says which.
TEST(Cli, BigRunsTakeHugePagesAndFarFewerPageFaults) {
    std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string mode;
    std::getline(thp, mode);
    if (mode.find("[madvise]") == std::string::npos) GTEST_SKIP() << "transparent huge pages here: " << mode;
    TempDir dir;
    std::mt19937 rng(60);
    fixtures::Pixels p{2048, 2048, 1, {}};
    for (int i = 0; i < 2048 * 2048; ++i) p.v.push_back(double(rng() % 4096) / 4095.0);
    fixtures::write_file(dir.file("big.png"), fixtures::png(p, 16));  // ~8 MB: worth starting again for
    auto faults = [&](bool off, std::string* state) {
        if (off) setenv("SPECVIEW_NO_HUGE_PAGES", "1", 1);
        const CliRun r = specview({"--headless", "big.png", "-o", "out.png", "--force", "--backend", "cpu", "--timings"},
                                  dir, true);
        unsetenv("SPECVIEW_NO_HUGE_PAGES");
        EXPECT_EQ(r.code, 0) << r.err;
        const std::size_t at = r.out.find("page faults: ");
        if (at == std::string::npos) return -1L;
        *state = r.out.substr(at, r.out.find('\n', at) - at);
        return std::stol(r.out.substr(at + 13));
    };
    std::string on_state, off_state;
    const long off = faults(true, &off_state), on = faults(false, &on_state);
    EXPECT_NE(off_state.find("huge pages off (SPECVIEW_NO_HUGE_PAGES)"), std::string::npos) << off_state;
    EXPECT_NE(on_state.find("huge pages on (glibc.malloc.hugetlb=1)"), std::string::npos) << on_state;
    ASSERT_GT(off, 0);
    // (2048^2 here: ~13,300 faults without, ~7,000 with; the program's own loading takes ~5,000 of them either way)
    EXPECT_LT(on, off * 3 / 4) << on_state << " vs " << off_state;
}

TEST(Cli, HelpDocumentsOptionsAndExitCodes) {
    TempDir dir;
    const CliRun r = specview({"--help"}, dir);
    EXPECT_EQ(r.code, 0);
    for (const char* s : {"--headless", "--backend", "--raw", "--view", "--window", "--pad", "--channel", "--colormap",
                          "--timings", "Exit codes", "GPU unavailable", "--script", "--report", "--offscreen"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

// --help as a reader wants it (issue 59): every line within 100 columns, the options grouped by task, every format
// listed; a misspelt option is exit 2 naming the closest one; every usage error is one "specview:" line on stderr.
TEST(Cli, HelpFitsAHundredColumnsAndAMisspeltOptionNamesTheClosest) {
    TempDir dir;
    const CliRun h = specview({"--help"}, dir);
    ASSERT_EQ(h.code, 0);
    std::istringstream lines(h.out);
    int count = 0;
    for (std::string line; std::getline(lines, line); ++count) EXPECT_LE(line.size(), 100u) << line;
    EXPECT_LE(count, 150) << "short enough to read";
    for (const char* s : {"TIFF", ".npy", "video", "GIF", "PNG", "JPEG", "Outputs (--headless):", "Stacks and video:",
                          "Batches and many machines:", "Frequency lab:", "Viewer:"})
        EXPECT_NE(h.out.find(s), std::string::npos) << s;
    const CliRun m = specview({"--headless", "x.png", "--colourmap", "inferno"}, dir);
    EXPECT_EQ(m.code, kExitUsage);
    EXPECT_EQ(m.err, "specview: unknown option --colourmap; did you mean --colormap?\n");
    const CliRun far = specview({"--zzzzzzzzzz"}, dir);
    EXPECT_EQ(far.code, kExitUsage);
    EXPECT_EQ(far.err.rfind("specview: unknown option --zzzzzzzzzz", 0), 0u) << far.err;
    EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << "nothing is close: " << far.err;
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"--window", "foo", "x.png"}, {"--jobs", "0", "x.png"}, {"--frame"}}) {
        const CliRun b = specview(bad, dir);
        EXPECT_EQ(b.code, kExitUsage) << bad[0];
        EXPECT_EQ(b.err.rfind("specview: ", 0), 0u) << b.err;
        EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << "one line: " << b.err;
    }
    const CliRun v = specview({"--version"}, dir);
    EXPECT_EQ(v.code, 0);
    EXPECT_EQ(v.out.rfind("specview ", 0), 0u) << v.out;
}

TEST(Cli, ViewerOnlyOptionsThatCannotWorkAreUsageErrors) {
    TempDir dir;
    // --offscreen has no window to close by hand; --report needs a script to report on.
    EXPECT_EQ(specview({"--offscreen", SPECVIEW_ASSETS_DIR "/disc.png"}, dir).code, 2);
    EXPECT_EQ(specview({"--report", dir.file("r.json"), SPECVIEW_ASSETS_DIR "/disc.png"}, dir).code, 2);
}

TEST(Cli, WritesAPictureWithThePeaksWhereTheGratingPutsThem) {
    TempDir dir;
    const std::string in = grating(dir, 128, 64, 9, 5);
    const std::string out = dir.file("spec.png");
    const CliRun r = specview_plain({"--headless", in, "-o", out, "--timings"}, dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("FFTW"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("total"), std::string::npos) << "timings printed";
    const Image img = load_image(out);
    ASSERT_EQ(img.width, 128);
    ASSERT_EQ(img.height, 64);
    // Brightest pixels other than DC: +-(9, 5) around the centre (64, 32).
    std::vector<std::pair<float, int>> px;
    for (int i = 0; i < 128 * 64; ++i)
        if (i != 32 * 128 + 64) px.push_back({img.sample(i * img.channels), i});
    std::sort(px.rbegin(), px.rend());
    std::set<int> top{px[0].second, px[1].second}, want{(32 + 5) * 128 + 64 + 9, (32 - 5) * 128 + 64 - 9};
    EXPECT_EQ(top, want);
    EXPECT_GT(px[1].first, px[2].first);
}

// --raw of the 20x12 pattern `in` with --window hann --channel g: our own expectation, channel G, Hann over the
// content, zero padding to 32x16, FFT in double, within 1e-5.
void expect_hann_g_spectrum(const std::string& raw, const std::string& in) {
    const NpyComplex F = read_npy_complex64(raw);
    ASSERT_EQ(F.height, 16);
    ASSERT_EQ(F.width, 32);
    Settings s;
    s.window = Window::Hann;
    const PreparedPlane pp = prepare_plane(extract_channel(load_image(in), Channel::G), s);
    EXPECT_LT(rel_l2(F.data, dft2d(widen(pp.plane.v), 16, 32)), 1e-5);
}

TEST(Cli, RawNpyHoldsTheSpectrumAsTransformed) {
    TempDir dir;
    fixtures::Pixels p = fixtures::pattern(20, 12, 3);
    const std::string in = dir.file("rgb.png");
    fixtures::write_file(in, fixtures::png(p, 8));
    const std::string raw = dir.file("F.npy");
    const CliRun r =
        specview({"--headless", in, "-o", dir.file("s.png"), "--raw", raw, "--window", "hann", "--channel", "g"}, dir);
    ASSERT_EQ(r.code, 0) << r.err;
    expect_hann_g_spectrum(raw, in);
}

// --backend opencl (issue 62): the seed's kernels on an OpenCL device give the spectrum FFTW does (--raw within 1e-5 of
// the double DFT of the plane, the picture equal within a level); a size the radix-2 kernels cannot run is exit 2 saying
// so; a device that is not there is exit 4 naming it; --list-devices names every backend's devices.
// Two 8-bit pictures of one size whose samples differ by a level at most.
void expect_pictures_within_a_level(const std::string& got, const std::string& want) {
    const Image a = load_image(got), b = load_image(want);
    ASSERT_EQ(a.width, b.width);
    ASSERT_EQ(a.height, b.height);
    const auto* pa = static_cast<const unsigned char*>(a.data());
    const auto* pb = static_cast<const unsigned char*>(b.data());
    for (std::size_t i = 0; i < std::size_t(a.width) * a.height * a.channels; ++i)
        ASSERT_NEAR(int(pa[i]), int(pb[i]), 1) << got << " sample " << i;
}

TEST(Cli, OpenClBackendGivesTheSpectrumAndSaysWhatItCannotDo) {
    TempDir dir;
    const CliRun list = specview({"--list-devices"}, dir);
    ASSERT_EQ(list.code, 0) << list.err;
    EXPECT_NE(list.out.find("cuda "), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("opencl"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("cpu  "), std::string::npos) << list.out;
    fixtures::Pixels p = fixtures::pattern(20, 12, 3);
    const std::string in = dir.file("rgb.png");
    fixtures::write_file(in, fixtures::png(p, 8));
    CliRun r = specview({"--headless", in, "--backend", "opencl", "--opencl-device", "9:9", "-o", dir.file("x.png")}, dir);
    EXPECT_EQ(r.code, kExitGpu) << r.err;
    EXPECT_NE(r.err.find("9:9"), std::string::npos) << r.err;
    r = specview({"--headless", in, "--opencl-device", "one", "-o", dir.file("x.png")}, dir);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    if (list.out.find("opencl 0:0") == std::string::npos || list.out.find(": usable", list.out.find("opencl")) ==
                                                                 std::string::npos) {
        r = specview({"--headless", in, "--backend", "opencl", "-o", dir.file("x.png")}, dir);
        EXPECT_EQ(r.code, kExitGpu) << r.err;
        GTEST_SKIP() << "no usable OpenCL device: " << list.out;
    }
    r = specview({"--headless", in, "--backend", "opencl", "-o", dir.file("cl.png"), "--raw", dir.file("cl.npy"),
                  "--window", "hann", "--channel", "g", "--tile", "8", "--timings"},
                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("OpenCL row FFT"), std::string::npos) << r.out;
    // The picture is made on a GPU device; on a CPU device (PoCL) the host's is the faster.
    bool gpu_device = false;  // (the default device is the first usable GPU, else the first usable one)
    std::istringstream lines(list.out);
    for (std::string l; std::getline(lines, l);)
        gpu_device |= l.rfind("opencl ", 0) == 0 && l.find(", GPU,") != std::string::npos &&
                      l.find(": usable") != std::string::npos;
    EXPECT_EQ(r.out.find("OpenCL view (shift + value") != std::string::npos, gpu_device) << r.out;
    expect_hann_g_spectrum(dir.file("cl.npy"), in);
    ASSERT_EQ(specview({"--headless", in, "--backend", "cpu", "-o", dir.file("cpu.png"), "--window", "hann", "--channel",
                        "g"},
                       dir)
                  .code,
              0);
    expect_pictures_within_a_level(dir.file("cl.png"), dir.file("cpu.png"));
    r = specview({"--headless", in, "--backend", "opencl", "--pad", "none", "-o", dir.file("n.png")}, dir);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    EXPECT_NE(r.err.find("radix 2"), std::string::npos) << r.err;
    r = specview({"--headless", in, "--backend", "opencl", "--volume", "--raw", dir.file("v.npy")}, dir);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    EXPECT_NE(r.err.find("no opencl 3D pipeline"), std::string::npos) << r.err;
}

// --backend gl (issue 62): the seed's kernels in OpenGL compute shaders on a headless context give FFTW's spectrum;
// what the radix-2 shaders cannot run is exit 2; a volume says there is no gl 3D pipeline.
TEST(Cli, GlBackendGivesTheSpectrumAndSaysWhatItCannotDo) {
    TempDir dir;
    const CliRun list = specview({"--list-devices"}, dir);
    ASSERT_EQ(list.code, 0) << list.err;
    const std::size_t at = list.out.find("\ngl  ");
    ASSERT_NE(at, std::string::npos) << list.out;
    fixtures::Pixels p = fixtures::pattern(20, 12, 3);
    const std::string in = dir.file("rgb.png");
    fixtures::write_file(in, fixtures::png(p, 8));
    if (list.out.substr(at, list.out.find('\n', at + 1) - at).find(": usable") == std::string::npos) {
        const CliRun r = specview({"--headless", in, "--backend", "gl", "-o", dir.file("x.png")}, dir);
        EXPECT_EQ(r.code, kExitGpu) << r.err;
        GTEST_SKIP() << "no OpenGL compute context: " << list.out;
    }
    CliRun r = specview({"--headless", in, "--backend", "gl", "--raw", dir.file("gl.npy"), "--window", "hann",
                         "--channel", "g", "--timings", "-o", dir.file("gl.png"), "--profile", "radial",
                         dir.file("gl.csv")},
                        dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("GL row FFT"), std::string::npos) << r.out;
    expect_hann_g_spectrum(dir.file("gl.npy"), in);
    // On a GPU the picture is made in shaders (the spectrum stays on the device; the profile reads it back); on a
    // software renderer the host's is the faster. Either way the CPU's picture.
    const bool software = list.out.substr(at, list.out.find('\n', at + 1) - at).find("(software)") != std::string::npos;
    EXPECT_EQ(r.out.find("GL view (shift + value") != std::string::npos, !software) << r.out;
    ASSERT_EQ(specview({"--headless", in, "--backend", "cpu", "-o", dir.file("cpu.png"), "--window", "hann", "--channel",
                        "g", "--profile", "radial", dir.file("cpu.csv")},
                       dir)
                  .code,
              0);
    expect_pictures_within_a_level(dir.file("gl.png"), dir.file("cpu.png"));
    const std::string gl_csv = read_text(dir.file("gl.csv")), cpu_csv = read_text(dir.file("cpu.csv"));
    EXPECT_EQ(std::count(gl_csv.begin(), gl_csv.end(), '\n'), std::count(cpu_csv.begin(), cpu_csv.end(), '\n'));
    EXPECT_EQ(gl_csv.substr(0, gl_csv.find('\n')), cpu_csv.substr(0, cpu_csv.find('\n')));
    r = specview({"--headless", in, "--backend", "gl", "--pad", "none", "-o", dir.file("n.png")}, dir);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    EXPECT_NE(r.err.find("radix 2"), std::string::npos) << r.err;
    r = specview({"--headless", in, "--backend", "gl", "--volume", "--raw", dir.file("v.npy")}, dir);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    EXPECT_NE(r.err.find("no gl 3D pipeline"), std::string::npos) << r.err;
}

TEST(Cli, BadInputsGiveDocumentedExitCodesAndNameTheFile) {
    TempDir dir;
    CliRun r = specview({"--headless", dir.file("nope.png")}, dir);
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("nope.png"), std::string::npos);
    EXPECT_NE(r.err.find("no such file"), std::string::npos);
    const std::string junk = dir.file("junk.jpg");
    fixtures::write_file(junk, {0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3});
    r = specview({"--headless", junk, "-o", dir.file("o.png")}, dir);
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("junk.jpg"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("o.png")));
    r = specview({"--headless"}, dir);
    EXPECT_EQ(r.code, 2);
    r = specview({"--headless", junk, "--view", "sideways"}, dir);
    EXPECT_EQ(r.code, 2);
    r = specview({"--headless", junk, "--percentiles", "50,10"}, dir);
    EXPECT_EQ(r.code, 2);
}

TEST(Cli, ADirectoryWithoutImagesIsAnInputError) {
    TempDir dir;
    std::filesystem::create_directories(dir.file("empty"));
    CliRun r = specview({"--headless", dir.file("empty")}, dir);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("no images in"), std::string::npos) << r.err;
    // Among good inputs it is reported, the others are still processed, and the exit code says so.
    std::filesystem::create_directories(dir.file("good"));
    fixtures::write_file(dir.file("good/a.png"), fixtures::png(fixtures::pattern(16, 16, 1), 8));
    r = specview({"--headless", dir.file("good"), dir.file("empty"), "-o", dir.file("out")}, dir);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir.file("out/a_spectrum.png")));
}

TEST(Cli, NeverOverwritesWithoutForceAndNeverTheInput) {
    TempDir dir;
    const std::string in = grating(dir, 16, 16, 1, 2), out = dir.file("o.png");
    fixtures::write_file(out, {'o', 'l', 'd'});
    CliRun r = specview({"--headless", in, "-o", out}, dir);
    EXPECT_EQ(r.code, 5);
    EXPECT_NE(r.err.find("--force"), std::string::npos);
    EXPECT_EQ(std::filesystem::file_size(out), 3u);
    r = specview({"--headless", in, "-o", out, "--force"}, dir);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_GT(std::filesystem::file_size(out), 3u);
    r = specview({"--headless", in, "-o", in, "--force"}, dir);
    EXPECT_EQ(r.code, 5);
    EXPECT_NE(r.err.find("input"), std::string::npos);
}

TEST(Cli, BatchProcessesEveryFileReportsEachFailureAndGoesOn) {
    TempDir dir;
    std::filesystem::create_directory(dir.file("in"));
    for (int i = 0; i < 3; ++i)
        fixtures::write_file(dir.file("in/ok" + std::to_string(i) + ".png"),
                             fixtures::png(fixtures::pattern(10 + i, 7, 1), 8));
    fixtures::write_file(dir.file("in/broken.png"), {0x89, 'P', 'N', 'G'});
    const CliRun r = specview({"--headless", dir.file("in"), "-o", dir.file("out"), "--raw", dir.file("raw")}, dir);
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("broken.png"), std::string::npos);
    EXPECT_NE(r.err.find("[4/4]"), std::string::npos) << "progress lines";
    EXPECT_NE(r.err.find("3 of 4 images done, 1 failed"), std::string::npos) << r.err;
    for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(std::filesystem::exists(dir.file("out/ok" + std::to_string(i) + "_spectrum.png")));
        EXPECT_EQ(read_npy_complex64(dir.file("raw/ok" + std::to_string(i) + "_spectrum.npy")).width, 16);
    }
}

TEST(Cli, GpuBackendsWorkOrSayTheGpuIsUnavailable) {
    TempDir dir;
    const std::string in = grating(dir, 64, 64, 3, 4);
    const bool gpu = gpu::probe_device(0).available;
    for (const char* b : {"custom", "cufft", "custom-fast"}) {
        const CliRun r = specview({"--headless", in, "-o", dir.file(std::string(b) + ".png"), "--backend", b}, dir);
        if (gpu) {
            EXPECT_EQ(r.code, 0) << r.err;
        } else {
            EXPECT_EQ(r.code, 4) << r.err;
            EXPECT_NE(r.err.find("unavailable"), std::string::npos) << r.err;
        }
    }
    // A batch on a GPU backend runs two transform threads: the same outcome, said once.
    fixtures::write_file(dir.file("second.png"), fixtures::png(fixtures::pattern(48, 40, 1), 8));
    const CliRun r =
        specview({"--headless", in, dir.file("second.png"), "-o", dir.file("batch"), "--backend", "cufft"}, dir);
    if (gpu) {
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(std::filesystem::exists(dir.file("batch/second_spectrum.png")));
    } else {
        EXPECT_EQ(r.code, 4) << r.err;
        const std::size_t first = r.err.find("unavailable");
        EXPECT_NE(first, std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("unavailable", first + 1), std::string::npos) << "said once: " << r.err;
    }
}

TEST(Cli, ViewsColormapsAndPaddingModesAllRun) {
    TempDir dir;
    const std::string in = grating(dir, 30, 20, 3, 2);
    for (const char* v : {"logmag", "power", "phase", "real", "imag"})
        for (const char* pad : {"pow2", "crop", "none"}) {
            const CliRun r = specview({"--headless", in, "-o", dir.file("x.png"), "--force", "--view", v, "--pad", pad,
                                       "--colormap", "turbo", "--range", "percentile"},
                                      dir);
            EXPECT_EQ(r.code, 0) << v << " " << pad << ": " << r.err;
            const Image img = load_image(dir.file("x.png"));
            EXPECT_EQ(img.width, std::string(pad) == "pow2" ? 32 : std::string(pad) == "crop" ? 16 : 30);
        }
}

// Peak resident memory (bytes) of one run of the CLI, as it reports it (--timings: its VmHWM; rusage from wait4
// would carry this test process's own peak, inherited at exec).
double peak_rss(const std::vector<std::string>& args, const TempDir& dir) {
    std::vector<std::string> all(args);
    all.push_back("--timings");
    const CliRun r = specview(all, dir);
    EXPECT_EQ(r.code, 0) << r.err;
    const std::string key = "peak resident memory: ";
    const std::size_t at = r.out.find(key);
    if (at == std::string::npos) {
        ADD_FAILURE() << "no peak memory line in: " << r.out;
        return 0;
    }
    return std::stod(r.out.substr(at + key.size())) * 1024.0 * 1024.0;
}

// The memory model of the CPU path against the measured peak of the real program: never below it (a refusal
// would come too late), and not so far above that images that fit are refused.
TEST(Cli, MemoryNeedModelCoversTheMeasuredPeakOfTheCpuPath) {
    TempDir dir;
    struct Case {
        int w, h, channels;
        bool raw;
        std::string range;
    };
    for (const Case& c : {Case{1024, 1024, 1, false, "auto"}, Case{700, 500, 3, false, "percentile"},
                          Case{2048, 2048, 1, true, "auto"}, Case{2048, 1024, 3, false, "auto"}}) {
        const std::string in = dir.file("m.png");
        fixtures::write_file(in, fixtures::png(fixtures::pattern(c.w, c.h, c.channels), 8));
        std::vector<std::string> args{"--headless", in, "-o", dir.file("m_out.png"), "--force", "--range", c.range};
        if (c.raw) args.insert(args.end(), {"--raw", dir.file("m.npy")});
        const double peak = peak_rss(args, dir);
        Settings s;
        s.view.range = *parse_name<RangeMode>(c.range);
        const double model = memory_need(ImageHeader{c.w, c.h, c.channels, 8, "png"}, s, c.raw, false).host;
        const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + "x" + std::to_string(c.channels) +
                                 (c.raw ? " raw " : " ") + c.range + ": model " + human_bytes(model) + ", peak " +
                                 human_bytes(peak);
        std::cout << "  " << what << "\n";
        EXPECT_GE(model, peak) << what;
        EXPECT_LE(model, 1.6 * peak + 48.0 * 1024 * 1024) << what;
    }
}

// The GPU backends' host-memory model against the CLI's measured peak (on a machine with a GPU).
TEST(Cli, MemoryNeedModelCoversTheMeasuredPeakOfTheGpuPaths) {
    if (!gpu::probe_device(0).available) GTEST_SKIP() << "no GPU: " << gpu::probe_device(0).why_unavailable;
    TempDir dir;
    const std::string in = dir.file("m.png");
    fixtures::write_file(in, fixtures::png(fixtures::pattern(4096, 4096, 1), 8));
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast})
        for (bool raw : {false, true}) {
            std::vector<std::string> args{"--headless", in,          "-o",      dir.file("m_out.png"),
                                          "--force",    "--backend", name_of(b)};
            if (raw) args.insert(args.end(), {"--raw", dir.file("m.npy")});
            const double peak = peak_rss(args, dir);
            Settings s;
            s.backend = b;
            const double model = memory_need(ImageHeader{4096, 4096, 1, 8, "png"}, s, raw, false).host;
            const std::string what =
                name_of(b) + (raw ? " raw" : "") + ": model " + human_bytes(model) + ", peak " + human_bytes(peak);
            std::cout << "  " << what << "\n";
            EXPECT_GE(model, peak) << what;
            EXPECT_LE(model, 1.6 * peak + 128.0 * 1024 * 1024) << what;
        }
}

// Gray pictures are 8-bit gray PNGs, coloured ones RGB, with the picture's exact levels at every PNG level.
TEST(Cli, PngOutputIsGrayOrRgbWithTheSameLevelsAtEveryCompressionLevel) {
    TempDir dir;
    const std::string in = grating(dir, 96, 64, 5, 3);
    Engine engine;
    engine.set_image(load_image(in), in);
    for (const char* cm : {"gray", "viridis"}) {
        Settings s;
        s.view.colormap = *parse_name<Colormap>(cm);
        const Frame f = engine.run(s);
        std::size_t last_size = 0;
        for (const char* level : {"0", "2", "9"}) {
            const std::string out = dir.file(std::string(cm) + level + ".png");
            const CliRun r = specview_plain({"--headless", in, "-o", out, "--colormap", cm, "--png-level", level}, dir);
            ASSERT_EQ(r.code, 0) << r.err;
            const Image img = load_image(out);
            ASSERT_EQ(img.width, f.width);
            ASSERT_EQ(img.height, f.height);
            ASSERT_EQ(img.bit_depth, 8);
            ASSERT_EQ(img.channels, std::string(cm) == "gray" ? 1 : 3) << cm;
            std::size_t bad = 0;
            const auto* px = static_cast<const std::uint8_t*>(img.data());
            for (std::size_t i = 0; i < f.rgba.size(); ++i)
                for (int c = 0; c < img.channels; ++c)
                    bad += px[i * img.channels + c] != ((f.rgba[i] >> (8 * c)) & 0xFF);
            EXPECT_EQ(bad, 0u) << cm << " level " << level;
            const std::size_t size = std::filesystem::file_size(out);
            if (last_size) {
                EXPECT_LT(size, last_size) << cm << " level " << level << " should be smaller";
            }
            last_size = size;
        }
    }
    EXPECT_EQ(specview_plain({"--headless", in, "-o", dir.file("x.png"), "--png-level", "10"}, dir).code, kExitUsage);
}

// A decoder process that crashes on one file of a batch: that file is an input error naming it, the rest is done.
TEST(Cli, ADecoderCrashFailsThatFileAndTheBatchGoesOn) {
    TempDir dir;
    const std::string body = "SPECVIEW-SELFTEST:crash";
    fixtures::write_file(dir.file("a_crash.png"), std::vector<unsigned char>(body.begin(), body.end()));
    fixtures::write_file(dir.file("b_good.png"), fixtures::png(fixtures::pattern(32, 32, 1), 8));
    setenv("SPECVIEW_DECODER_SELFTEST", "1", 1);
    const CliRun r =
        specview({"--headless", dir.file("a_crash.png"), dir.file("b_good.png"), "-o", dir.file("out")}, dir);
    unsetenv("SPECVIEW_DECODER_SELFTEST");
    EXPECT_EQ(r.code, kExitInput) << r.err;
    EXPECT_NE(r.err.find("a_crash.png: the decoder crashed on this file (SIGSEGV)"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir.file("out/b_good_spectrum.png"))) << r.err;
}

// The pipelined batch: many inputs of different sizes on several threads give one stdout line per good input,
// in input order, the same files a one-image run writes, and every bad input reported; --list reads paths from a
// file or standard input.
// --gpus (issue 64): the batch's engines over the named CUDA devices, the same bytes as on one; a list that is not
// one is exit 2, a device that does not exist exit 4, both named.
TEST(Cli, GpusDealsABatchOverTheNamedDevicesOrSaysWhyNot) {
    TempDir dir;
    std::filesystem::create_directories(dir.file("in"));
    for (int i = 0; i < 6; ++i)
        fixtures::write_file(dir.file("in/im" + std::to_string(i) + ".png"),
                             fixtures::png(fixtures::pattern(40 + 8 * i, 32 + 4 * i, 1 + i % 3), 8));
    for (const char* bad : {"0,0", "x", "0,", "-1", ",1"}) {
        const CliRun r = specview({"--headless", "--gpus", bad, dir.file("in"), "-o", dir.file("bad")}, dir);
        EXPECT_EQ(r.code, kExitUsage) << bad << ": " << r.err;
        EXPECT_NE(r.err.find("--gpus"), std::string::npos) << r.err;
    }
    CliRun r = specview({"--headless", "--backend", "cpu", "--gpus", "0", dir.file("in"), "-o", dir.file("o")}, dir);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    r = specview({"--headless", "--split-volume", dir.file("in/im0.png")}, dir);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    std::string why;
    const int count = gpu::cuda_device_count(&why);
    r = specview({"--headless", "--gpus", std::to_string(count), dir.file("in"), "-o", dir.file("none")}, dir);
    EXPECT_EQ(r.code, kExitGpu) << r.err;
    EXPECT_NE(r.err.find("CUDA device " + std::to_string(count) + " does not exist"), std::string::npos) << r.err;
    if (count == 0 || !gpu::probe_device(0).available) {
        r = specview({"--headless", "--gpus", "all", dir.file("in"), "-o", dir.file("none")}, dir);
        EXPECT_EQ(r.code, kExitGpu) << r.err;
        return;
    }
    const CliRun one = specview({"--headless", "--backend", "cufft", dir.file("in"), "-o", dir.file("one")}, dir);
    ASSERT_EQ(one.code, 0) << one.err;
    r = specview({"--headless", "--backend", "cufft", "--gpus", "all", "--timings", dir.file("in"), "-o",
                  dir.file("all")},
                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("bound by: "), std::string::npos) << r.out;
    if (count > 1) {
        EXPECT_NE(r.out.find("GPU 1: "), std::string::npos) << r.out;
    }
    for (int i = 0; i < 6; ++i) {
        const std::string name = "im" + std::to_string(i) + "_spectrum.png";
        EXPECT_EQ(read_text(dir.file("all/" + name)), read_text(dir.file("one/" + name))) << name;
    }
}

TEST(Cli, PipelinedBatchKeepsInputOrderAndWritesWhatSingleRunsWrite) {
    TempDir dir;
    std::filesystem::create_directories(dir.file("in"));
    std::vector<std::string> names;
    for (int i = 0; i < 24; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "im%02d.png", i);
        names.push_back(name);
        const std::string path = dir.file(std::string("in/") + name);
        if (i % 7 == 3) {  // not an image
            fixtures::write_file(path, {1, 2, 3});
            continue;
        }
        const int side = 16 << (i % 5);  // 16 .. 256: decode and encode times differ, so threads finish out of order
        fixtures::write_file(path, fixtures::png(fixtures::pattern(side + i, side, 1 + i % 3), 8));
    }
    for (const char* jobs : {"6", "1"}) {
        const std::string out = dir.file(std::string("out") + jobs);
        // (the CPU backend named: a batch under auto goes to the GPU where there is one, and one image stays on the CPU)
        const CliRun r = specview({"--headless", dir.file("in"), "-o", out, "--jobs", jobs, "--backend", "cpu"}, dir);
        EXPECT_EQ(r.code, kExitInput) << r.err;
        std::istringstream lines(r.out);
        std::vector<std::string> got;
        for (std::string line; std::getline(lines, line);)
            if (line.find(": ") != std::string::npos && line.find("spectrum") != std::string::npos) got.push_back(line);
        std::vector<std::string> want;
        for (int i = 0; i < 24; ++i)
            if (i % 7 != 3) want.push_back(dir.file("in/" + names[std::size_t(i)]));
        ASSERT_EQ(got.size(), want.size()) << r.out;
        for (std::size_t k = 0; k < want.size(); ++k)
            EXPECT_EQ(got[k].rfind(want[k] + ": ", 0), 0u) << k << ": " << got[k];
        for (int i = 3; i < 24; i += 7) {
            EXPECT_NE(r.err.find(names[std::size_t(i)] + ": "), std::string::npos) << r.err;
        }
        EXPECT_NE(r.err.find("21 of 24 images done, 3 failed"), std::string::npos) << r.err;
    }
    // The same bytes as one-image runs, whatever the threads.
    for (int i : {0, 5, 9, 23}) {
        const std::string stem = names[std::size_t(i)].substr(0, 4);
        const std::string single = dir.file(stem + "_single.png");
        ASSERT_EQ(specview({"--headless", dir.file("in/" + names[std::size_t(i)]), "-o", single}, dir).code, 0);
        auto bytes = [](const std::string& p) {
            std::ifstream in(p, std::ios::binary);
            return std::string(std::istreambuf_iterator<char>(in), {});
        };
        EXPECT_EQ(bytes(dir.file("out6/" + stem + "_spectrum.png")), bytes(single)) << stem;
        EXPECT_EQ(bytes(dir.file("out1/" + stem + "_spectrum.png")), bytes(single)) << stem;
    }
    // --list: a file of paths, and standard input.
    {
        std::ofstream list(dir.file("list.txt"));
        list << dir.file("in/im00.png") << "\n\n" << dir.file("in/im01.png") << "\r\n";
    }
    CliRun r = specview({"--headless", "--list", dir.file("list.txt"), "-o", dir.file("listed")}, dir);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir.file("listed/im01_spectrum.png"))) << r.err;
    const std::string cmd = "printf '%s\\n' '" + dir.file("in/im02.png") + "' | '" + SPECVIEW_EXE +
                            "' --headless --list - -o '" + dir.file("stdin_out.png") + "' > /dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    EXPECT_TRUE(std::filesystem::exists(dir.file("stdin_out.png")));
}

// --depth 16: a 16-bit gray PNG of the view values mapped from the range to 0..65535; its top byte is the 8-bit
// picture's level (within one), and it resolves far more than 256 values. On every backend (the GPU ones when
// there is a GPU: without one they fail as GPU backends do). Other colormaps are usage errors.
TEST(Cli, Depth16WritesTheViewValuesAsSixteenBitGray) {
    TempDir dir;
    const std::string in = dir.file("p.png");
    fixtures::write_file(in, fixtures::png(fixtures::pattern(200, 120, 3), 8));
    const bool gpu_ok = gpu::probe_device(0).available;
    for (const std::string backend : {"cpu", "cufft", "custom-fast", "custom"}) {
        SCOPED_TRACE(backend);
        const std::string p8 = dir.file(backend + "8.png"), p16 = dir.file(backend + "16.png");
        const CliRun r8 = specview({"--headless", in, "-o", p8, "--backend", backend}, dir);
        const CliRun r = specview({"--headless", in, "-o", p16, "--depth", "16", "--backend", backend}, dir);
        if (backend != "cpu" && !gpu_ok) {
            EXPECT_EQ(r.code, kExitGpu) << r.err;
            continue;
        }
        ASSERT_EQ(r8.code, 0) << r8.err;
        ASSERT_EQ(r.code, 0) << r.err;
        const Image a = load_image(p8), b = load_image(p16);
        ASSERT_EQ(b.bit_depth, 16);
        ASSERT_EQ(b.channels, 1);
        ASSERT_EQ(a.channels, 1);
        ASSERT_EQ(a.width, b.width);
        const auto* v8 = static_cast<const std::uint8_t*>(a.data());
        const auto* v16 = static_cast<const std::uint16_t*>(b.data());
        std::set<int> distinct;
        int worst = 0, top = 0;
        for (std::size_t i = 0; i < b.sample_count(); ++i) {
            worst = std::max(worst, std::abs(int(std::lround(v16[i] / 257.0)) - int(v8[i])));
            distinct.insert(v16[i]);
            top = std::max(top, int(v16[i]));
        }
        EXPECT_LE(worst, 1);
        EXPECT_GT(distinct.size(), 2000u);
        EXPECT_EQ(top, 65535);  // the range's high end (auto range: the maximum)
    }
    EXPECT_EQ(specview({"--headless", in, "-o", dir.file("x.png"), "--depth", "16", "--colormap", "viridis"}, dir).code,
              kExitUsage);
    EXPECT_EQ(specview({"--headless", in, "-o", dir.file("x.png"), "--depth", "12"}, dir).code, kExitUsage);
}

// --fftw-measure saves FFTW wisdom under the cache folder; the next process plans that size from it.
TEST(Cli, FftwMeasureSavesWisdomTheNextRunUses) {
    TempDir dir;
    const std::string in = grating(dir, 96, 48, 3, 2);
    setenv("XDG_CACHE_HOME", dir.file("cache").c_str(), 1);
    const CliRun first = specview({"--headless", in, "-o", dir.file("a.png"), "--timings", "--fftw-measure"}, dir);
    const CliRun second = specview({"--headless", in, "-o", dir.file("b.png"), "--timings"}, dir);
    unsetenv("XDG_CACHE_HOME");
    const CliRun plain = specview({"--headless", in, "-o", dir.file("c.png"), "--timings"}, dir);
    EXPECT_EQ(first.code, 0) << first.err;
    EXPECT_NE(first.out.find("measured plan"), std::string::npos) << first.out;
    EXPECT_TRUE(std::filesystem::exists(dir.file("cache/specview/fftwf-wisdom")));
    EXPECT_NE(second.out.find("measured plan"), std::string::npos) << "the saved wisdom was not used: " << second.out;
    EXPECT_EQ(plain.code, 0);
}

// A CPU batch big enough for measuring to pay (400 images) measures its plans and saves the wisdom; a smaller
// one estimates and leaves the cache alone.
TEST(Cli, ABigCpuBatchMeasuresItsPlansASmallOneDoesNot) {
    TempDir dir;
    const auto png = fixtures::png(fixtures::pattern(24, 20, 1), 8);
    std::ofstream all(dir.file("all.txt")), fewer(dir.file("fewer.txt"));
    std::filesystem::create_directories(dir.file("in"));
    for (int i = 0; i < 400; ++i) {
        const std::string f = dir.file("in/i" + std::to_string(i) + ".png");
        fixtures::write_file(f, png);
        all << f << "\n";
        if (i < 399) fewer << f << "\n";
    }
    all.close();
    fewer.close();
    setenv("XDG_CACHE_HOME", dir.file("small").c_str(), 1);
    const CliRun small =
        specview({"--headless", "--list", dir.file("fewer.txt"), "-o", dir.file("a"), "--timings", "--backend", "cpu"}, dir);
    setenv("XDG_CACHE_HOME", dir.file("big").c_str(), 1);
    const CliRun big = specview(
        {"--headless", "--list", dir.file("all.txt"), "-o", dir.file("b"), "--timings", "--backend", "cpu"}, dir);
    unsetenv("XDG_CACHE_HOME");
    ASSERT_EQ(small.code, 0) << small.err;
    ASSERT_EQ(big.code, 0) << big.err;
    EXPECT_EQ(small.out.find("measured plan"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(dir.file("small/specview/fftwf-wisdom")));
    EXPECT_NE(big.out.find("measured plan"), std::string::npos);
    EXPECT_TRUE(std::filesystem::exists(dir.file("big/specview/fftwf-wisdom")));
}

// Reads a little-endian float32 C-order 2D .npy (what --inverse writes).
std::vector<float> read_npy_float32(const std::string& path, int* h, int* w) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    if (bytes.size() < 10) return {};
    const std::size_t hl = std::uint8_t(bytes[8]) | (std::size_t(std::uint8_t(bytes[9])) << 8);
    const std::string header = bytes.substr(10, hl);
    if (header.find("'<f4'") == std::string::npos || header.find("False") == std::string::npos) return {};
    std::sscanf(header.c_str() + header.find("(") + 1, "%d, %d", h, w);
    std::vector<float> v(std::size_t(*h) * *w);
    if (bytes.size() != 10 + hl + v.size() * 4) return {};
    std::memcpy(v.data(), bytes.data() + 10 + hl, v.size() * 4);
    return v;
}

// The frequency lab from the command line: --filter masks the picture, --inverse writes the filtered image
// (.npy: the engine's values exactly; .png: the image's region), --profile writes CSVs and prints the slope,
// --correlate prints the shift; bad specs and sizes are usage errors naming what is wrong.
TEST(Cli, LabFiltersInverseProfilesAndCorrelation) {
    TempDir dir;
    const std::string in = dir.file("p.png");
    const fixtures::Pixels pat = fixtures::pattern(96, 60, 1);
    fixtures::write_file(in, fixtures::png(pat, 16));
    const CliRun r = specview_plain({"--headless", in, "-o", dir.file("s.png"), "--filter", "lowpass:0.1,gauss",
                                     "--filter", "notch:0.25:0.125:0.02", "--inverse", dir.file("inv.npy"), "--profile",
                                     "radial", dir.file("r.csv"), "--profile", "angular", dir.file("a.csv")},
                                    dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("radial PSD slope: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("of the masked spectrum"), std::string::npos) << r.out;
    int h = 0, w = 0;
    const std::vector<float> inv = read_npy_float32(dir.file("inv.npy"), &h, &w);
    ASSERT_EQ(h, 64);
    ASSERT_EQ(w, 128);
    Engine engine;
    engine.set_image(load_image(in), in);
    Settings s;
    for (const char* spec : {"lowpass:0.1,gauss", "notch:0.25:0.125:0.02"}) {
        FilterSpec f;
        ASSERT_EQ(parse_filter(spec, &f), "");
        s.filters.push_back(f);
    }
    RunOptions o;
    o.want_inverse = true;
    const Frame f = engine.run(s, o);
    ASSERT_EQ(inv.size(), f.inverse.size());
    double worst = 0;
    for (std::size_t i = 0; i < inv.size(); ++i) worst = std::max(worst, double(std::abs(inv[i] - f.inverse[i])));
    EXPECT_LE(worst, 1e-6);
    std::ifstream radial(dir.file("r.csv")), angular(dir.file("a.csv"));
    std::string line;
    std::getline(radial, line);
    EXPECT_EQ(line, "f_cycles_per_pixel,mean_power,count");
    std::getline(radial, line);
    EXPECT_EQ(line.rfind("0.0078125,", 0), 0u) << line;  // the first ring: 1/max(128, 64)
    std::getline(angular, line);
    EXPECT_EQ(line, "angle_deg,mean_power,count");
    // The PNG form: the image's own 96x60 region, stretched to 0..255.
    ASSERT_EQ(specview_plain({"--headless", in, "-o", dir.file("s2.png"), "--filter", "highpass:0.05", "--inverse",
                              dir.file("inv.png")},
                             dir)
                  .code,
              0);
    const Image ip = load_image(dir.file("inv.png"));
    EXPECT_EQ(ip.width, 96);
    EXPECT_EQ(ip.height, 60);
    EXPECT_EQ(ip.channels, 1);
    // Usage errors.
    for (const std::vector<std::string>& bad :
         std::vector<std::vector<std::string>>{{"--filter", "lowpass:0.9"},
                                               {"--filter", "bandpass:0.2:0.1"},
                                               {"--inverse", dir.file("x.txt")},
                                               {"--profile", "spiral", dir.file("x.csv")},
                                               {"--psd-fit", "0.3:0.1"}}) {
        std::vector<std::string> args = {"--headless", in, "-o", dir.file("x.png"), "--force"};
        args.insert(args.end(), bad.begin(), bad.end());
        const CliRun b = specview_plain(args, dir);
        EXPECT_EQ(b.code, kExitUsage) << bad[0] << " " << bad[1] << ": " << b.err;
        EXPECT_NE(b.err.find(bad[0]), std::string::npos) << b.err;
    }
    // --correlate: B is the image moved 7 right and 4 up (circularly); exact sizes.
    fixtures::Pixels moved = pat;
    for (int y = 0; y < pat.height; ++y)
        for (int x = 0; x < pat.width; ++x)
            moved.v[std::size_t(y) * pat.width + x] = pat.at((x - 7 + pat.width) % pat.width, (y + 4) % pat.height, 0);
    fixtures::write_file(dir.file("moved.png"), fixtures::png(moved, 16));
    const CliRun c = specview_plain(
        {"--headless", in, "-o", dir.file("c.png"), "--pad", "none", "--correlate", dir.file("moved.png")}, dir);
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.out.find("shift: 7.00 -4.00"), std::string::npos) << c.out;
    // Plain cross-correlation finds it too; the heat map is brightest at the shift from the centre.
    const CliRun x =
        specview_plain({"--headless", in, "-o", dir.file("c2.png"), "--pad", "none", "--correlate",
                        dir.file("moved.png"), "--correlation", "cross", "--correlation-map", dir.file("map.png")},
                       dir);
    ASSERT_EQ(x.code, 0) << x.err;
    EXPECT_NE(x.out.find("shift: 7.00 -4.00"), std::string::npos) << x.out;
    EXPECT_NE(x.out.find("cross correlation peak: "), std::string::npos) << x.out;
    const Image map = load_image(dir.file("map.png"));
    ASSERT_EQ(map.width, pat.width);
    ASSERT_EQ(map.height, pat.height);
    const ColormapLut lut = make_colormap_lut(Colormap::Inferno);
    auto level = [&](int x, int y) {  // the heat map's level at (x, y), through the colormap's table
        const std::uint32_t px = std::uint32_t(std::lround(map.at(x, y, 0) * 255)) |
                                 (std::uint32_t(std::lround(map.at(x, y, 1) * 255)) << 8) |
                                 (std::uint32_t(std::lround(map.at(x, y, 2) * 255)) << 16) | 0xFF000000u;
        return level_of_pixel(lut, px);
    };
    EXPECT_EQ(level(pat.width / 2 + 7, pat.height / 2 - 4), 255) << "the peak at the shift, from the centre";
    EXPECT_LT(level(pat.width / 2, pat.height / 2), 255) << "no peak at no shift";
    EXPECT_EQ(
        specview_plain({"--headless", in, "-o", dir.file("c3.png"), "--correlation-map", dir.file("m.png")}, dir).code,
        kExitUsage);
    fixtures::write_file(dir.file("small.png"), fixtures::png(fixtures::pattern(50, 60, 1), 8));
    const CliRun d =
        specview_plain({"--headless", in, "-o", dir.file("d.png"), "--correlate", dir.file("small.png")}, dir);
    EXPECT_EQ(d.code, kExitUsage) << d.err;
    EXPECT_NE(d.err.find("same size"), std::string::npos) << d.err;
}

// Masks in files: --mask reads a description (brush dabs and filters), --save-mask writes the mask's picture
// (DC at the centre, 0 where removed) and its description, which reads back as the same mask; a bad
// description is a usage error naming its line.
TEST(Cli, MasksLoadAndSaveWithTheirDescription) {
    TempDir dir;
    const std::string in = dir.file("p.png");
    fixtures::write_file(in, fixtures::png(fixtures::pattern(64, 64, 1), 8));
    std::ofstream(dir.file("m.txt")) << "# a dab and a stripe\npaint 10 -6 3\nfilter stripe:0:0.05:0.1\n";
    const CliRun r = specview({"--headless", in, "-o", dir.file("s.png"), "--mask", dir.file("m.txt"), "--save-mask",
                               dir.file("saved.png"), "--inverse", dir.file("inv.npy")},
                              dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const Image m = load_image(dir.file("saved.png"));
    ASSERT_EQ(m.width, 64);
    ASSERT_EQ(m.height, 64);
    EXPECT_EQ(m.channels, 1);
    EXPECT_EQ(m.at(32 + 10, 32 - 6, 0), 0.0f) << "the dab";
    EXPECT_EQ(m.at(32 - 10, 32 + 6, 0), 0.0f) << "its mirror";
    EXPECT_EQ(m.at(32, 32, 0), 1.0f) << "DC is kept";
    EXPECT_EQ(m.at(32 + 20, 32, 0), 0.0f) << "the stripe along +u";
    EXPECT_EQ(m.at(32, 32 + 20, 0), 1.0f) << "off the stripe";
    std::vector<FilterSpec> f;
    std::vector<BrushStroke> b;
    bool inv = true;
    ASSERT_EQ(load_mask(dir.file("saved.png"), &f, &b, &inv), "");
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0], (BrushStroke{10, -6, 3, 0}));
    ASSERT_EQ(f.size(), 1u);
    EXPECT_FALSE(inv);
    // --invert-mask: the saved picture is the complement.
    ASSERT_EQ(specview({"--headless", in, "-o", dir.file("s2.png"), "--mask", dir.file("saved.png"), "--invert-mask",
                        "--save-mask", dir.file("inv.png")},
                       dir)
                  .code,
              0);
    const Image mi = load_image(dir.file("inv.png"));
    EXPECT_EQ(mi.at(32 + 10, 32 - 6, 0), 1.0f);
    EXPECT_EQ(mi.at(32, 32 + 20, 0), 0.0f);
    std::ofstream(dir.file("bad.txt")) << "paint 1 2 3\npaint 1 2\n";
    const CliRun bad = specview({"--headless", in, "-o", dir.file("x.png"), "--mask", dir.file("bad.txt")}, dir);
    EXPECT_EQ(bad.code, kExitUsage);
    EXPECT_NE(bad.err.find("line 2: paint: takes U V R"), std::string::npos) << bad.err;
    const CliRun missing = specview({"--headless", in, "-o", dir.file("x.png"), "--mask", dir.file("none.txt")}, dir);
    EXPECT_EQ(missing.code, kExitUsage);
    EXPECT_NE(missing.err.find("cannot read the mask description"), std::string::npos) << missing.err;
    EXPECT_EQ(specview({"--headless", in, "-o", dir.file("x.png"), "--save-mask", dir.file("m.jpg")}, dir).code,
              kExitUsage);
}

// Scientific data from the command line: --frame picks a page of a float TIFF stack (noted in the output), its
// values are kept (the raw spectrum's DC is the page's sum, negative), a NaN is replaced with a note; a 3D
// .npy is a stack too; a frame past the end is exit 3 naming the count; a spectrum .npy is refused.
TEST(Cli, FrameOfAFloatStackKeepsItsValues) {
    TempDir dir;
    const int w = 16, h = 8;
    std::vector<std::vector<double>> pages;
    for (int p = 0; p < 3; ++p) pages.push_back(std::vector<double>(std::size_t(w) * h, -2.5 * (p + 1)));
    pages[1][3] = std::nan("");
    fixtures::TiffOptions o;
    o.sample = fixtures::TiffSample::F64;
    fixtures::write_file(dir.file("s.tif"), fixtures::tiff(w, h, 1, pages, o));
    const CliRun r = specview_plain({"--headless", dir.file("s.tif"), "--frame", "2", "--pad", "none", "-o",
                                     dir.file("s.png"), "--raw", dir.file("s.npy")},
                                    dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("note: frame 2 of 3 (--frame)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("note: 1 NaN/Inf sample replaced by the mean of the finite ones (-5)"), std::string::npos)
        << r.out;
    const NpyComplex raw = read_npy_complex64(dir.file("s.npy"));
    ASSERT_EQ(raw.width, w);
    EXPECT_NEAR(raw.data[0].real(), -5.0 * w * h, 1e-3) << "DC: the page's values, kept";
    fixtures::write_file(dir.file("c.npy"),
                         fixtures::npy("<f4", {4, h, w}, false, std::vector<double>(std::size_t(4) * w * h, 1.5)));
    const CliRun n = specview_plain({"--headless", dir.file("c.npy"), "--frame", "4", "-o", dir.file("c.png")}, dir);
    EXPECT_EQ(n.code, 0) << n.err;
    EXPECT_NE(n.out.find("note: frame 4 of 4 (--frame)"), std::string::npos) << n.out;
    const CliRun past = specview_plain({"--headless", dir.file("s.tif"), "--frame", "4", "-o", dir.file("p.png")}, dir);
    EXPECT_EQ(past.code, kExitInput) << past.err;
    EXPECT_NE(past.err.find("no page 4: the file has 3 pages"), std::string::npos) << past.err;
    const CliRun spec = specview_plain({"--headless", dir.file("s.npy"), "-o", dir.file("q.png")}, dir);
    EXPECT_EQ(spec.code, kExitInput) << spec.err;
    EXPECT_NE(spec.err.find("is a spectrum, not an image"), std::string::npos) << spec.err;
}

// Relative L2 distance of a written mean power spectrum from |DFT|^2 of the float32 pages, averaged in double.
double mean_power_error(const std::vector<float>& mean, const std::vector<std::vector<double>>& pages, int w, int h) {
    std::vector<double> want(std::size_t(w) * h, 0.0);
    for (const auto& p : pages) {
        std::vector<cd> in(p.size());
        for (std::size_t i = 0; i < p.size(); ++i) in[i] = double(float(p[i]));
        const std::vector<cd> F = dft2d(in, h, w);
        for (std::size_t i = 0; i < F.size(); ++i) want[i] += std::norm(F[i]) / double(pages.size());
    }
    double err = 0, norm = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        err += (mean[i] - want[i]) * (mean[i] - want[i]);
        norm += want[i] * want[i];
    }
    return std::sqrt(err / norm);
}

// Stacks from the command line: --frame-range writes one spectrum a frame into directories, --average the mean
// power spectrum (its --raw the mean power, against numpy-style |fft2|^2 averaged in double); the frames
// stream from the decoder. A range past the end names the count; a bad range is a usage error.
TEST(Cli, FrameRangesAndTheAveragePowerSpectrumOfAStack) {
    TempDir dir;
    const int w = 32, h = 16, n = 5;
    std::vector<std::vector<double>> pages;
    for (int p = 0; p < n; ++p) {
        std::vector<double> v;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                v.push_back(std::cos(2 * M_PI * (p + 1) * x / w) + 0.1 * ((x * 7 + y * 3 + p) % 5));
        pages.push_back(v);
    }
    fixtures::TiffOptions o;
    o.sample = fixtures::TiffSample::F32;
    fixtures::write_file(dir.file("g.tif"), fixtures::tiff(w, h, 1, pages, o));
    const CliRun r = specview_plain({"--headless", dir.file("g.tif"), "--frame-range", "2:4", "--pad", "none", "-o",
                                     dir.file("out"), "--raw", dir.file("raw")},
                                    dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("frames 2-4 of 5"), std::string::npos) << r.out;
    for (int f = 1; f <= n; ++f) {
        char name[32];
        std::snprintf(name, sizeof name, "g_f%04d", f);
        const bool in = f >= 2 && f <= 4;
        EXPECT_EQ(std::filesystem::exists(dir.file(std::string("out/") + name + "_spectrum.png")), in) << name;
        EXPECT_EQ(std::filesystem::exists(dir.file(std::string("raw/") + name + ".npy")), in) << name;
    }
    // Frame 3's spectrum has its grating's peak at u = 3.
    const NpyComplex f3 = read_npy_complex64(dir.file("raw/g_f0003.npy"));
    ASSERT_EQ(f3.width, w);
    EXPECT_EQ(strongest_bin(f3, w / 2 - 1), 3);
    // The mean power over every frame, against |DFT|^2 in double averaged.
    const CliRun a = specview_plain({"--headless", dir.file("g.tif"), "--average", "--pad", "none", "-o",
                                     dir.file("avg.png"), "--raw", dir.file("avg.npy")},
                                    dir);
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_NE(a.out.find("frames 1-5 of 5"), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("mean power spectrum of 5 frames"), std::string::npos) << a.out;
    int hh = 0, ww = 0;
    const std::vector<float> mean = read_npy_float32(dir.file("avg.npy"), &hh, &ww);
    ASSERT_EQ(hh, h);
    ASSERT_EQ(ww, w);
    EXPECT_LE(mean_power_error(mean, pages, w, h), 1e-5);
    const Image pic = load_image(dir.file("avg.png"));
    EXPECT_EQ(pic.width, w);
    // A range: the mean of frames 2 and 3 only.
    ASSERT_EQ(specview_plain({"--headless", dir.file("g.tif"), "--average", "--frame-range", "2:3", "--pad", "none",
                              "-o", dir.file("avg2.png"), "--raw", dir.file("avg2.npy")},
                             dir)
                  .code,
              0);
    const std::vector<float> two = read_npy_float32(dir.file("avg2.npy"), &hh, &ww);
    EXPECT_GT(two[2], 10 * two[5]) << "frame 2's grating (u = 2) is in the mean";
    EXPECT_GT(two[3], 10 * two[5]) << "frame 3's (u = 3) too";
    EXPECT_LT(two[4], 0.01 * two[2]) << "frame 4's (u = 4) is not";
    const CliRun past = specview_plain(
        {"--headless", dir.file("g.tif"), "--frame-range", "4:9", "-o", dir.file("past"), "--force"}, dir);
    EXPECT_EQ(past.code, kExitInput) << past.err;
    EXPECT_NE(past.err.find("no page 6: the file has 5 pages"), std::string::npos) << past.err;
    EXPECT_EQ(specview_plain({"--headless", dir.file("g.tif"), "--frame-range", "3:2"}, dir).code, kExitUsage);
    EXPECT_EQ(specview_plain({"--headless", dir.file("g.tif"), dir.file("g.tif"), "--average"}, dir).code, kExitUsage);
}

// The mean power spectrum at odd and mixed sizes, where the half spectrum's mirror has no Nyquist column or row:
// the CPU backend keeps the sum as the half spectrum and mirrors it once at the end.
TEST(Cli, TheAveragePowerSpectrumAtOddSizesMatchesTheDft) {
    TempDir dir;
    for (auto [w, h] : {std::pair{15, 9}, std::pair{15, 8}, std::pair{14, 9}}) {
        const int n = 3;
        std::vector<std::vector<double>> pages;
        for (int p = 0; p < n; ++p) {
            std::vector<double> v;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    v.push_back(std::sin(0.7 * x * (p + 1) + 0.3 * y) + 0.05 * ((x * 5 + y * 11 + p) % 7));
            pages.push_back(v);
        }
        fixtures::TiffOptions o;
        o.sample = fixtures::TiffSample::F32;
        const std::string tif = dir.file("odd" + std::to_string(w) + "x" + std::to_string(h) + ".tif");
        fixtures::write_file(tif, fixtures::tiff(w, h, 1, pages, o));
        const CliRun a = specview_plain({"--headless", tif, "--average", "--pad", "none", "--backend", "cpu", "-o",
                                         dir.file("a.png"), "--raw", dir.file("a.npy"), "--force"},
                                        dir);
        ASSERT_EQ(a.code, 0) << a.err;
        int hh = 0, ww = 0;
        const std::vector<float> mean = read_npy_float32(dir.file("a.npy"), &hh, &ww);
        ASSERT_EQ(hh, h);
        ASSERT_EQ(ww, w);
        EXPECT_LE(mean_power_error(mean, pages, w, h), 1e-5) << w << "x" << h;
    }
}

// --stack: a directory's images (or a glob's) in natural order are one stack; a frame of another size is exit 3
// naming that file.
TEST(Cli, AStackOfFilesInNaturalOrder) {
    TempDir dir;
    std::filesystem::create_directories(dir.file("seq"));
    for (int k : {1, 2, 10}) {  // natural order: 1, 2, 10 (not 1, 10, 2)
        fixtures::Pixels p{16, 16, 1, {}};
        for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 16; ++x) p.v.push_back(0.5 + 0.4 * std::cos(2 * M_PI * k * x / 16.0));
        fixtures::write_file(dir.file("seq/frame" + std::to_string(k) + ".png"), fixtures::png(p, 16));
    }
    const CliRun r = specview_plain({"--headless", "--stack", dir.file("seq"), "--frame-range", "2:3", "-o",
                                     dir.file("out"), "--raw", dir.file("raw")},
                                    dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("frames 2-3 of 3"), std::string::npos) << r.out;
    // Frame 3 is frame10.png: its peak at u = 10 mod 16 -> bin 10 (|u| = 6 from the other side).
    const NpyComplex f3 = read_npy_complex64(dir.file("raw/seq_stack_f0003.npy"));
    const int peak = strongest_bin(f3, 15);
    EXPECT_TRUE(peak == 10 || peak == 6) << peak;
    const NpyComplex f2 = read_npy_complex64(dir.file("raw/seq_stack_f0002.npy"));
    EXPECT_GT(std::abs(f2.data[2]), 10 * std::abs(f2.data[5])) << "frame 2 is frame2.png";
    const CliRun g = specview_plain(
        {"--headless", "--stack", dir.file("seq") + "/frame*.png", "--average", "-o", dir.file("avg.png")}, dir);
    ASSERT_EQ(g.code, 0) << g.err;
    EXPECT_NE(g.out.find("mean power spectrum of 3 frames"), std::string::npos) << g.out;
    fixtures::write_file(dir.file("seq/frame3.png"), fixtures::png(fixtures::pattern(8, 16, 1), 8));
    const CliRun bad =
        specview_plain({"--headless", "--stack", dir.file("seq"), "--average", "-o", dir.file("avg2.png")}, dir);
    EXPECT_EQ(bad.code, kExitInput) << bad.err;
    EXPECT_NE(bad.err.find("frame3.png: is 8x16, the stack's first frame"), std::string::npos) << bad.err;
    EXPECT_EQ(specview_plain({"--headless", "--stack", dir.file("none*.png")}, dir).code, kExitInput);
}

// A longer sequence is decoded by several children at once: every frame still lands under its own number (its
// grating's peak where that file put it); a range past the end and a frame of another size in the middle are
// exit 3 naming the frame or the file.
TEST(Cli, ALongSequenceKeepsItsOrderWhenDecodedInParallel) {
    TempDir dir;
    std::filesystem::create_directories(dir.file("seq"));
    const int n = 24;
    for (int k = 1; k <= n; ++k) {
        fixtures::Pixels p{32, 8, 1, {}};
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 32; ++x) p.v.push_back(0.5 + 0.4 * std::cos(2 * M_PI * (k % 15 + 1) * x / 32.0));
        fixtures::write_file(dir.file("seq/f" + std::to_string(k) + ".png"), fixtures::png(p, 16));
    }
    const CliRun r = specview_plain({"--headless", "--stack", dir.file("seq"), "--frame-range", "1:24", "-o",
                                     dir.file("out"), "--raw", dir.file("raw")},
                                    dir);
    ASSERT_EQ(r.code, 0) << r.err;
    for (int k = 1; k <= n; ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "raw/seq_stack_f%04d.npy", k);
        const NpyComplex f = read_npy_complex64(dir.file(name));
        EXPECT_EQ(strongest_bin(f, 16), k % 15 + 1) << "frame " << k;
    }
    const CliRun past = specview_plain(
        {"--headless", "--stack", dir.file("seq"), "--frame-range", "20:30", "--average", "-o", dir.file("a.png")},
        dir);
    EXPECT_EQ(past.code, kExitInput) << past.err;
    EXPECT_NE(past.err.find("no frame 25: the stack has 24 files"), std::string::npos) << past.err;
    fixtures::write_file(dir.file("seq/f13.png"), fixtures::png(fixtures::pattern(8, 16, 1), 8));
    const CliRun bad =
        specview_plain({"--headless", "--stack", dir.file("seq"), "--average", "-o", dir.file("b.png")}, dir);
    EXPECT_EQ(bad.code, kExitInput) << bad.err;
    EXPECT_NE(bad.err.find("f13.png: is 8x16, the stack's first frame"), std::string::npos) << bad.err;
}

// A video from the command line: --frame picks a frame (presentation order), --average averages its frames.
TEST(Cli, VideoFramesAndTheirAverage) {
    if (!video_supported()) GTEST_SKIP() << "this build has no video (FFmpeg's development packages were not found)";
    TempDir dir;
    const int w = 32, h = 32, n = 6;
    std::vector<std::vector<std::uint8_t>> frames;
    for (int k = 0; k < n; ++k) {
        std::vector<std::uint8_t> f;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                f.push_back(std::uint8_t(std::lround(128 + 100 * std::cos(2 * M_PI * (k + 1) * y / h))));
        frames.push_back(f);
    }
    fixtures::write_file(dir.file("v.mkv"), fixtures::video(w, h, frames, "ffv1", "matroska", 24));
    const CliRun one = specview_plain(
        {"--headless", dir.file("v.mkv"), "--frame", "4", "-o", dir.file("f4.png"), "--raw", dir.file("f4.npy")}, dir);
    ASSERT_EQ(one.code, 0) << one.err;
    EXPECT_NE(one.out.find("note: frame 4 of 6 (--frame)"), std::string::npos) << one.out;
    const NpyComplex f4 = read_npy_complex64(dir.file("f4.npy"));
    EXPECT_EQ(strongest_bin(f4, h / 2, std::size_t(w)), 4) << "frame 4's grating: 4 cycles down";
    const CliRun avg = specview_plain({"--headless", dir.file("v.mkv"), "--average", "-o", dir.file("avg.png")}, dir);
    ASSERT_EQ(avg.code, 0) << avg.err;
    EXPECT_NE(avg.out.find("frames 1-6 of 6"), std::string::npos) << avg.out;
    // --export-video: every frame's spectrum as a video; read back, frame k's peak sits k + 1 rows below DC.
    const CliRun ex = specview_plain(
        {"--headless", dir.file("v.mkv"), "--export-video", dir.file("spectra.mp4"), "--colormap", "gray"}, dir);
    ASSERT_EQ(ex.code, 0) << ex.err;
    std::ifstream in(dir.file("spectra.mp4"), std::ios::binary);
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), {});
    FrameReader reader(bytes, "spectra.mp4", LoadLimits{});
    for (int k = 0; k < n; ++k) {
        const Image f = reader.decode(k);
        ASSERT_EQ(f.frames, n);
        ASSERT_EQ(f.width, w);
        const float peak_px = f.at(w / 2, h / 2 + k + 1, 0), off = f.at(w / 2 + 7, h / 2 + k + 4, 0);
        EXPECT_GT(peak_px, 0.6f) << "frame " << k;
        EXPECT_LT(off, 0.35f) << "frame " << k;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("v_f0001_spectrum.png"))) << "no PNGs without -o";
}

TEST(Cli, MaxMemoryRefusesWhatWouldNotFitNamingNeedAndLimitAndTheBatchGoesOn) {
    TempDir dir;
    fixtures::write_file(dir.file("big.png"), fixtures::png(fixtures::pattern(2048, 2048, 1), 8));
    fixtures::write_file(dir.file("small.png"), fixtures::png(fixtures::pattern(64, 64, 1), 8));
    const CliRun r = specview(
        {"--headless", dir.file("big.png"), dir.file("small.png"), "-o", dir.file("out"), "--max-memory", "50M",
         "--backend", "cpu"},
        dir);
    EXPECT_EQ(r.code, kExitInput) << r.err;
    EXPECT_NE(r.err.find("big.png: image is 2048x2048 and needs about"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("50.0 MiB allowed (--max-memory)"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir.file("out/small_spectrum.png"))) << r.err;
    EXPECT_EQ(specview({"--headless", dir.file("small.png"), "--max-memory", "lots"}, dir).code, kExitUsage);
}

// A sticky CUDA error (the test-only SPECVIEW_TEST_GPU_FAULT=1 makes the first GPU run write far outside its buffer):
// the image that met it fails with exit 4 and says the GPU stopped working; the batch goes on with the CPU backend,
// says so once, and writes every other image's spectrum. On every GPU backend.
TEST(Cli, ALostGpuContextFailsThatImageAndTheBatchGoesOnOnTheCpu) {
    if (!gpu::probe_device(0).available) GTEST_SKIP() << "no GPU: " << gpu::probe_device(0).why_unavailable;
    for (Backend b : {Backend::Custom, Backend::CustomFast, Backend::Cufft}) {
        TempDir dir;
        std::vector<std::string> inputs;
        for (int k = 0; k < 4; ++k) {
            const std::string p = dir.file("in" + std::to_string(k) + ".png");
            fixtures::write_file(p, fixtures::png(fixtures::pattern(256 + 64 * k, 192, 1), 8));
            inputs.push_back(p);
        }
        const std::string out = dir.file("out");
        std::vector<std::string> args{"--headless", "--backend", name_of(b), "-o", out};
        args.insert(args.end(), inputs.begin(), inputs.end());
        setenv("SPECVIEW_TEST_GPU_FAULT", "1", 1);
        const CliRun r = specview(args, dir);
        unsetenv("SPECVIEW_TEST_GPU_FAULT");
        EXPECT_EQ(r.code, 4) << name_of(b) << ": " << r.err;
        EXPECT_NE(r.err.find("the GPU stopped working"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("the rest of the batch runs on the CPU backend"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("cudaErrorIllegalAddress"), std::string::npos) << "the sticky error is named: " << r.err;
        int written = 0, failed_lines = 0;
        for (int k = 0; k < 4; ++k)
            written += std::filesystem::exists(out + "/in" + std::to_string(k) + "_spectrum.png");
        for (std::size_t p = 0; (p = r.err.find(": the GPU stopped working: ", p)) != std::string::npos; ++p)
            ++failed_lines;
        // Two transform threads: the one that met the fault fails its image; an image the other had in flight is
        // done again on the CPU. So exactly one image fails and three are written.
        EXPECT_EQ(failed_lines, 1) << r.err;
        EXPECT_EQ(written, 3) << name_of(b) << ": " << r.out << r.err;
        EXPECT_NE(r.out.find("CPU"), std::string::npos) << "the rest ran on the CPU backend: " << r.out;
    }
}

// One image, no batch: the lost context is exit 4 with the same message, never a crash or a hang.
TEST(Cli, ALostGpuContextOnASingleImageIsExit4) {
    if (!gpu::probe_device(0).available) GTEST_SKIP() << "no GPU: " << gpu::probe_device(0).why_unavailable;
    TempDir dir;
    const std::string in = grating(dir, 128, 128, 3, 2);
    setenv("SPECVIEW_TEST_GPU_FAULT", "1", 1);
    const CliRun r = specview({"--headless", "--backend", "cufft", in, "-o", dir.file("s.png")}, dir);
    unsetenv("SPECVIEW_TEST_GPU_FAULT");
    EXPECT_EQ(r.code, 4) << r.err;
    EXPECT_NE(r.err.find("the GPU stopped working"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("s.png")));
}

// --shard K/N: N processes cover every input exactly once, whatever order the inputs are listed in; auto and auto/N
// read the index from Slurm's or Kubernetes' variables; bad specs and missing variables are exit 2 naming them.
std::set<std::string> shard_outputs(const TempDir& dir, const std::vector<std::string>& inputs,
                                    const std::string& shard, const std::string& out, int* code) {
    std::vector<std::string> args{"--headless", "--shard", shard, "-o", out, "--force"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    const CliRun r = specview(args, dir);
    *code = r.code;
    std::set<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(out, ec)) names.insert(e.path().filename().string());
    return names;
}

TEST(Cli, ShardsCoverEveryInputOnceWhateverTheOrder) {
    TempDir dir;
    const std::string in = dir.file("in");
    std::filesystem::create_directories(in);
    std::vector<std::string> list;
    for (int k = 0; k < 24; ++k) {
        const std::string p = in + "/img" + std::to_string(k) + ".png";
        fixtures::write_file(p, fixtures::png(fixtures::pattern(16, 16, 1), 8));
        list.push_back(p);
    }
    std::set<std::string> all;
    std::size_t total = 0;
    for (int k = 0; k < 4; ++k) {
        int code = -1;
        const auto got = shard_outputs(dir, {in}, std::to_string(k) + "/4", dir.file("out" + std::to_string(k)), &code);
        EXPECT_EQ(code, 0) << k;
        EXPECT_FALSE(got.empty()) << "shard " << k << " of 24 inputs is empty";
        total += got.size();
        all.insert(got.begin(), got.end());
    }
    EXPECT_EQ(total, 24u) << "no input in two shards";
    EXPECT_EQ(all.size(), 24u) << "every input in one";
    // The files one by one, in two orders: the same shard.
    int c1 = -1, c2 = -1;
    std::vector<std::string> reversed(list.rbegin(), list.rend());
    EXPECT_EQ(shard_outputs(dir, list, "1/3", dir.file("fwd"), &c1),
              shard_outputs(dir, reversed, "1/3", dir.file("rev"), &c2));
    EXPECT_EQ(c1, 0);
    // The environment's index: Slurm's array (with its count, or min and max), Kubernetes' completion index.
    int ce = -1;
    setenv("SLURM_ARRAY_TASK_ID", "2", 1);
    setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
    const auto slurm = shard_outputs(dir, {in}, "auto", dir.file("slurm"), &ce);
    unsetenv("SLURM_ARRAY_TASK_COUNT");
    setenv("SLURM_ARRAY_TASK_MIN", "1", 1);
    setenv("SLURM_ARRAY_TASK_MAX", "4", 1);
    setenv("SLURM_ARRAY_TASK_ID", "3", 1);  // ids 1..4: the third task is shard 2
    const auto minmax = shard_outputs(dir, {in}, "auto", dir.file("minmax"), &ce);
    unsetenv("SLURM_ARRAY_TASK_MIN");
    unsetenv("SLURM_ARRAY_TASK_MAX");
    unsetenv("SLURM_ARRAY_TASK_ID");
    setenv("JOB_COMPLETION_INDEX", "2", 1);
    const auto k8s = shard_outputs(dir, {in}, "auto/4", dir.file("k8s"), &ce);
    unsetenv("JOB_COMPLETION_INDEX");
    const auto two = shard_outputs(dir, {in}, "2/4", dir.file("two"), &ce);
    EXPECT_EQ(slurm, two);
    EXPECT_EQ(minmax, two);
    EXPECT_EQ(k8s, two);
}

TEST(Cli, BadShardsAreUsageErrorsNamingWhatIsMissing) {
    TempDir dir;
    const std::string img = grating(dir, 16, 16, 1, 1);
    for (const char* bad : {"4/4", "1/0", "x", "-1/3", "2"}) {
        const CliRun r = specview({"--headless", "--shard", bad, img, "-o", dir.file("o")}, dir);
        EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
        EXPECT_NE(r.err.find("--shard"), std::string::npos) << r.err;
    }
    unsetenv("SLURM_ARRAY_TASK_ID");
    unsetenv("JOB_COMPLETION_INDEX");
    CliRun r = specview({"--headless", "--shard", "auto", img, "-o", dir.file("o")}, dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("SLURM_ARRAY_TASK_ID"), std::string::npos) << r.err;
    r = specview({"--headless", "--shard", "auto/3", img, "-o", dir.file("o")}, dir);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("JOB_COMPLETION_INDEX"), std::string::npos) << r.err;
}

// --manifest: one JSON line per input as it is finished; --resume skips what it records ok (no second ok line) and
// redoes the rest, overwriting what a killed run left; a torn last line is ignored; --skip-existing skips inputs
// whose outputs exist.
std::vector<nlohmann::json> manifest_lines(const std::string& path) {
    std::vector<nlohmann::json> out;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded()) out.push_back(j);
    }
    return out;
}

TEST(Cli, AManifestRecordsEachInputAndResumeRedoesOnlyWhatItLacks) {
    TempDir dir;
    const std::string in = dir.file("in"), out = dir.file("out"), manifest = dir.file("m.jsonl");
    std::filesystem::create_directories(in);
    for (int k = 0; k < 6; ++k)
        fixtures::write_file(in + "/img" + std::to_string(k) + ".png",
                             fixtures::png(fixtures::pattern(24 + k, 16, 1), 8));
    CliRun r = specview({"--headless", in, "-o", out, "--manifest", manifest}, dir);
    ASSERT_EQ(r.code, 0) << r.err;
    std::vector<nlohmann::json> lines = manifest_lines(manifest);
    ASSERT_EQ(lines.size(), 6u);
    for (const auto& j : lines) {
        EXPECT_EQ(j.value("status", ""), "ok") << j;
        EXPECT_TRUE(j["error"].is_null()) << j;
        EXPECT_EQ(j.value("height", 0), 16) << j;
        EXPECT_GE(j.value("width", 0), 24) << j;
        EXPECT_FALSE(j.value("backend", "").empty()) << j;
        EXPECT_GT(j.value("ms", 0.0), 0.0) << j;
        EXPECT_TRUE(j["shard"].is_null()) << j;
        ASSERT_EQ(j["outputs"].size(), 1u) << j;
        EXPECT_TRUE(std::filesystem::exists(j["outputs"][0].get<std::string>())) << j;
    }
    // A run killed after two inputs' outputs were renamed into place but before their lines: four lines kept, the
    // last of them torn in half.
    {
        std::ofstream m(manifest, std::ios::trunc);
        for (int k = 0; k < 4; ++k) m << lines[std::size_t(k)].dump() << "\n";
        m << lines[4].dump().substr(0, 20);
    }
    const std::string redone = lines[5]["outputs"][0].get<std::string>();
    const auto before = std::filesystem::last_write_time(redone);
    r = specview({"--headless", in, "-o", out, "--manifest", manifest, "--resume"}, dir);
    ASSERT_EQ(r.code, 0) << "the left outputs are overwritten, not 'exists': " << r.err;
    std::map<std::string, int> ok, skipped;
    for (const auto& j : manifest_lines(manifest)) {
        if (j.value("status", "") == "ok") ++ok[j.value("path", "")];
        if (j.value("status", "") == "skipped") ++skipped[j.value("path", "")];
    }
    EXPECT_EQ(ok.size(), 6u) << "every input recorded ok";
    for (const auto& [path, count] : ok) EXPECT_EQ(count, 1) << path << ": recorded ok once";
    EXPECT_EQ(skipped.size(), 4u) << "the four recorded ok were skipped";
    EXPECT_GE(std::filesystem::last_write_time(redone), before) << "redone";
    // --skip-existing: everything exists now.
    r = specview({"--headless", in, "-o", out, "--skip-existing"}, dir);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("skipped (its outputs exist)"), std::string::npos) << r.out;
    // Contradictions.
    EXPECT_EQ(specview({"--headless", in, "-o", out, "--resume"}, dir).code, 2);
    EXPECT_EQ(specview({"--headless", in, "-o", out, "--skip-existing", "--force"}, dir).code, 2);
    // A shard's lines name it.
    const std::string m2 = dir.file("m2.jsonl");
    r = specview({"--headless", in, "-o", dir.file("out2"), "--shard", "0/1", "--manifest", m2}, dir);
    ASSERT_EQ(r.code, 0) << r.err;
    for (const auto& j : manifest_lines(m2)) EXPECT_EQ(j.value("shard", ""), "0/1") << j;
}

// Memory that stays flat over a long batch: 5,000 small images (links to one 256^2 PNG), the peak resident memory
// at the end within 10% of the peak after the first 1,000 (--timings says both).
TEST(Cli, MemoryStaysFlatOverFiveThousandImages) {
    TempDir dir;
    const std::string one = dir.file("one.png"), in = dir.file("in"), out = dir.file("out");
    fixtures::Pixels p{256, 256, 1, {}};
    for (int y = 0; y < 256; ++y)
        for (int x = 0; x < 256; ++x) p.v.push_back(((x / 32 + y / 32) % 2) ? 0.75 : 0.25);  // compresses well
    fixtures::write_file(one, fixtures::png(p, 8));
    std::filesystem::create_directories(in);
    for (int k = 0; k < 5000; ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "/img%05d.png", k);
        std::filesystem::create_symlink(one, in + name);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const CliRun r = specview({"--headless", in, "-o", out, "--timings"}, dir);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(r.code, 0) << r.err.substr(0, 2000);
    double first = 0, end = 0;
    const std::size_t a = r.out.find("peak resident memory after the first 1000 images: ");
    const std::size_t b = r.out.rfind("peak resident memory: ");
    ASSERT_NE(a, std::string::npos) << r.out.substr(r.out.size() > 2000 ? r.out.size() - 2000 : 0);
    ASSERT_NE(b, std::string::npos);
    first = std::stod(r.out.substr(a + std::strlen("peak resident memory after the first 1000 images: ")));
    end = std::stod(r.out.substr(b + std::strlen("peak resident memory: ")));
    std::cout << "  5000 images in " << seconds << " s; peak after 1000: " << first << " MiB, at the end: " << end
              << " MiB\n";
    EXPECT_GT(first, 0.0);
    EXPECT_LE(end, 1.10 * first) << "memory grew over the batch";
}

}  // namespace
}  // namespace specview::test

namespace specview::test {
namespace {

// The data of a C-order little-endian .npy of element type `descr` and its shape (empty when it is not one).
std::string npy_data(const std::string& path, const char* descr, std::vector<int>* shape) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    shape->clear();
    if (bytes.size() < 10) return {};
    const std::size_t hl = std::uint8_t(bytes[8]) | (std::size_t(std::uint8_t(bytes[9])) << 8);
    const std::string header = bytes.substr(10, hl);
    const std::size_t at = header.find("'shape': (");
    if (header.find(std::string("'") + descr + "'") == std::string::npos || at == std::string::npos) return {};
    std::stringstream dims(header.substr(at + 10, header.find(')', at) - at - 10));
    for (std::string d; std::getline(dims, d, ',');)
        if (d.find_first_of("0123456789") != std::string::npos) shape->push_back(std::stoi(d));
    return bytes.substr(10 + hl);
}

// A .npy of element type T (`descr`) with `dims` dimensions, its shape in *shape; empty when it is not one.
template <class T>
std::vector<T> read_npy(const std::string& path, const char* descr, std::size_t dims, std::vector<int>* shape) {
    const std::string data = npy_data(path, descr, shape);
    if (shape->size() != dims) return {};
    std::size_t n = 1;
    for (int d : *shape) n *= std::size_t(d);
    std::vector<T> out(n);
    if (data.size() != n * sizeof(T)) return {};
    std::memcpy(out.data(), data.data(), data.size());
    return out;
}

// A (d, h, w) random float32 volume as a 3D .npy in dir (its values in *v).
std::string random_volume_npy(const TempDir& dir, Rng& rng, int w, int h, int d, std::vector<double>* v) {
    v->assign(std::size_t(w) * h * d, 0.0);
    for (double& x : *v) x = std::uniform_real_distribution<double>(0.0, 1.0)(rng.engine());
    const std::string in = dir.file("vol.npy");
    fixtures::write_file(in, fixtures::npy("<f4", {std::uint64_t(d), std::uint64_t(h), std::uint64_t(w)}, false, *v));
    return in;
}

// --volume (issue 61): a 3D .npy's frames as one volume; --raw is numpy's fftn over the three axes (shape (depth,
// height, width), unshifted, unnormalised), checked against FFTW in double on the same values; the shell profile and
// the slice picture come with it.
TEST(Cli, AVolumesRawSpectrumIsTheThreeAxisDft) {
    TempDir dir;
    Rng rng;
    const int w = 10, h = 6, d = 5;
    std::vector<double> v;
    const std::string in = random_volume_npy(dir, rng, w, h, d, &v);
    const CliRun r = specview_plain({"--headless", in, "--volume", "--pad", "none", "--raw", dir.file("F.npy"),
                                     "--profile", "shell", dir.file("shell.csv"), "-o", dir.file("slice.png")},
                                    dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("10x6x5 volume spectrum"), std::string::npos) << r.out;
    std::vector<int> shape;
    const std::vector<cf> F = read_npy<cf>(dir.file("F.npy"), "<c8", 3, &shape);
    ASSERT_EQ(shape, std::vector<int>({d, h, w}));
    // FFTW in double: the rows' 2D DFT of each frame, then the 1D DFT along the frames.
    std::vector<cd> planes;
    for (int z = 0; z < d; ++z) {
        std::vector<cd> p(v.begin() + std::ptrdiff_t(z) * w * h, v.begin() + std::ptrdiff_t(z + 1) * w * h);
        for (cd& c : p) c = cd(float(c.real()));  // the file's float32 values
        const std::vector<cd> f = dft2d(p, h, w);
        planes.insert(planes.end(), f.begin(), f.end());
    }
    std::vector<cd> columns(planes.size());  // (h w) columns of d points each
    for (int z = 0; z < d; ++z)
        for (int i = 0; i < h * w; ++i) columns[std::size_t(i) * d + z] = planes[std::size_t(z) * h * w + i];
    const std::vector<cd> along = dft_rows(columns, d, h * w);
    std::vector<cd> want(planes.size());
    for (int z = 0; z < d; ++z)
        for (int i = 0; i < h * w; ++i) want[std::size_t(z) * h * w + i] = along[std::size_t(i) * d + z];
    EXPECT_LT(rel_l2(F, want), 1e-5) << "seed " << rng.seed();
    std::ifstream csv(dir.file("shell.csv"));
    std::string head;
    std::getline(csv, head);
    EXPECT_EQ(head, "f_cycles_per_voxel,mean_power,count");
    ASSERT_EQ(specview({"--headless", in, "--volume", "--voxel-size", "0.1:0.1:0.4um", "--profile", "shell",
                        dir.file("um.csv")},
                       dir)
                  .code,
              0);
    std::ifstream um(dir.file("um.csv"));
    std::getline(um, head);
    EXPECT_EQ(head, "f_cycles_per_voxel,f_per_um,mean_power,count");
    const Image pic = load_image(dir.file("slice.png"));
    EXPECT_EQ(pic.width, w);  // the kx-ky slice through DC
    EXPECT_EQ(pic.height, h);
    // --slice x:2: kz down, ky across; a projection along y: kz down, kx across.
    ASSERT_EQ(specview({"--headless", in, "--volume", "--pad", "none", "--slice", "x:2", "-o", dir.file("x.png")}, dir)
                  .code,
              0);
    EXPECT_EQ(load_image(dir.file("x.png")).width, h);
    EXPECT_EQ(load_image(dir.file("x.png")).height, d);
    ASSERT_EQ(specview({"--headless", in, "--volume", "--slice", "y", "--projection", "max", "-o", dir.file("p.png")},
                       dir)
                  .code,
              0);
    EXPECT_EQ(load_image(dir.file("p.png")).width, 16);  // --pad pow2 (the default) per axis
    EXPECT_EQ(load_image(dir.file("p.png")).height, 8);
}

// --orthoslices: the three slices side by side under a label strip (kx-ky W x H, kx-kz W x D, ky-kz H x D, 8 columns
// apart); --values holds exactly what each panel shows (the single slice's values where kx-ky is) and NaN elsewhere.
TEST(Cli, OrthoslicesPutTheThreeSlicesSideBySideAndValuesHoldThem) {
    TempDir dir;
    Rng rng;
    const int w = 16, h = 8, d = 4;
    std::vector<double> v;
    const std::string in = random_volume_npy(dir, rng, w, h, d, &v);
    ASSERT_EQ(specview({"--headless", in, "--volume", "--orthoslices", "-o", dir.file("o.png"), "--values",
                        dir.file("o.npy")},
                       dir)
                  .code,
              0);
    ASSERT_EQ(specview({"--headless", in, "--volume", "--values", dir.file("z.npy")}, dir).code, 0);
    std::vector<int> os, zs;
    const std::vector<float> o = read_npy<float>(dir.file("o.npy"), "<f4", 2, &os);
    const std::vector<float> z = read_npy<float>(dir.file("z.npy"), "<f4", 2, &zs);
    ASSERT_EQ(os.size(), 2u);
    ASSERT_EQ(zs.size(), 2u);
    const int oh = os[0], ow = os[1], zh = zs[0], zw = zs[1];
    ASSERT_EQ(ow, w + 8 + w + 8 + h);
    ASSERT_EQ(oh, 14 + h);
    ASSERT_EQ(zw, w);
    ASSERT_EQ(zh, h);
    const Image pic = load_image(dir.file("o.png"));
    EXPECT_EQ(pic.width, ow);
    EXPECT_EQ(pic.height, oh);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) ASSERT_EQ(o[std::size_t(14 + y) * ow + x], z[std::size_t(y) * w + x]) << x << "," << y;
    std::size_t nan = 0;
    for (float x : o) nan += std::isnan(x);
    EXPECT_EQ(nan, o.size() - std::size_t(w * h + w * d + h * d));
}

// An ImageJ z-stack says its voxel (unit=, XResolution, spacing=): --volume's shell profile is then per unit too, and
// the summary says the voxel came from the file; --voxel-size wins over it.
TEST(Cli, AVolumesVoxelComesFromAnImageJStack) {
    TempDir dir;
    std::vector<std::vector<double>> pages;
    for (int z = 0; z < 4; ++z) {
        pages.emplace_back();
        for (int i = 0; i < 16 * 8; ++i) pages.back().push_back(0.5 + 0.4 * std::cos(0.7 * i + z));
    }
    fixtures::TiffOptions t;
    t.x_resolution = 10.0f;  // 0.1 um pixels
    t.description = "ImageJ=1.53t\nimages=4\nslices=4\nunit=micron\nspacing=0.5\n";
    const std::string in = dir.file("z.tif");
    fixtures::write_file(in, fixtures::tiff(16, 8, 1, pages, t));
    CliRun r = specview({"--headless", in, "--volume", "--profile", "shell", dir.file("s.csv")}, dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("voxel 0.1x0.1x0.5 um (from the file)"), std::string::npos) << r.out;
    std::ifstream csv(dir.file("s.csv"));
    std::string head;
    std::getline(csv, head);
    EXPECT_EQ(head, "f_cycles_per_voxel,f_per_um,mean_power,count");
    r = specview({"--headless", in, "--volume", "--voxel-size", "2nm", "--profile", "shell", dir.file("n.csv"), "--force"},
                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find("from the file"), std::string::npos) << r.out;
    std::ifstream nm(dir.file("n.csv"));
    std::getline(nm, head);
    EXPECT_EQ(head, "f_cycles_per_voxel,f_per_nm,mean_power,count");
}

// --volume on --stack's files and --frame-range; what it goes without is a usage error, a volume beyond the memory
// allowed an input error, a slice outside the spectrum a usage error naming the range.
TEST(Cli, AVolumeFromAStacksFilesAndItsErrors) {
    TempDir dir;
    const std::string folder = dir.file("frames");
    std::filesystem::create_directory(folder);
    for (int k = 1; k <= 4; ++k) {
        fixtures::Pixels p{12, 8, 1, {}};
        for (int i = 0; i < 12 * 8; ++i) p.v.push_back(0.5 + 0.4 * std::sin(0.3 * i + k));
        fixtures::write_file(folder + "/f" + std::to_string(k) + ".png", fixtures::png(p, 8));
    }
    CliRun r = specview({"--headless", "--stack", folder, "--volume", "--frame-range", "2:4", "--pad", "none", "--raw",
                         dir.file("F.npy")},
                        dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("frames 2-4 of 4 -> 12x8x3 volume spectrum"), std::string::npos) << r.out;
    std::vector<int> shape;
    EXPECT_EQ(read_npy<cf>(dir.file("F.npy"), "<c8", 3, &shape).size(), std::size_t(12 * 8 * 3));
    // --roi: the same rectangle of every frame.
    r = specview({"--headless", "--stack", folder, "--volume", "--roi", "2:1:6:5", "--pad", "none", "--raw",
                  dir.file("R.npy")},
                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("6x5x4 volume spectrum"), std::string::npos) << r.out;
    const std::string stack = folder;
    struct Bad {
        std::vector<std::string> args;
        int code;
        const char* says;
    };
    const Bad bad[] = {
        {{"--volume", "--average"}, kExitUsage, "--average"},
        {{"--volume", "--backend", "gl"}, kExitUsage, "no gl 3D pipeline yet"},
        {{"--volume", "--backend", "opencl"}, kExitUsage, "no opencl 3D pipeline yet"},
        {{"--volume", "--profile", "radial", dir.file("r.csv")}, kExitUsage, "--profile shell"},
        {{"--volume", "--slice", "z:2", "-o", dir.file("s.png")}, kExitUsage, "from -2 to 1"},
        {{"--volume", "--slice", "w"}, kExitUsage, "--slice w"},
        {{"--profile", "shell", dir.file("s.csv")}, kExitUsage, "for --volume"},
        {{"--projection", "max", "-o", dir.file("p.png")}, kExitUsage, "for --volume"},
        {{"--orthoslices", "-o", dir.file("o.png")}, kExitUsage, "for --volume"},
        {{"--volume", "--voxel-size", "0.1:0.1", "-o", dir.file("v.png")}, kExitUsage, "--voxel-size 0.1:0.1"},
        {{"--volume", "--max-memory", "1K", "-o", dir.file("m.png")}, kExitInput, "needs about"},
        {{"--volume", "--roi", "8:0:8:8", "-o", dir.file("r.png")}, kExitInput, "does not lie within"},
    };
    for (const Bad& b : bad) {
        std::vector<std::string> args{"--headless", "--stack", stack, "--force"};
        args.insert(args.end(), b.args.begin(), b.args.end());
        const CliRun e = specview(args, dir);
        EXPECT_EQ(e.code, b.code) << b.args[0] << " " << b.args[1] << ": " << e.err;
        EXPECT_NE(e.err.find(b.says), std::string::npos) << e.err;
    }
}

// --volume on the GPU backends: cuFFT's 3D plans (R2C, C2C), custom-fast's 3D R2C (cuFFT's in its place at an exact
// size that is not a power of two, said) and the seed's 3D pipeline (both final-transpose forms are the unit tests'
// business) give the CPU's spectrum; the seed pipeline refuses an exact size that is not a power of two (exit 2,
// saying why); a GPU backend without a GPU is exit 4.
TEST(Cli, AVolumeOnTheGpuBackendsIsTheCpusSpectrum) {
    TempDir dir;
    Rng rng;
    std::vector<double> v;
    const std::string odd = random_volume_npy(dir, rng, 15, 9, 7, &v);
    if (!gpu::probe_device(0).available) {
        const CliRun r = specview({"--headless", odd, "--volume", "--backend", "cufft", "--raw", dir.file("F.npy")}, dir);
        EXPECT_EQ(r.code, kExitGpu) << r.err;
        EXPECT_NE(r.err.find("no usable GPU"), std::string::npos) << r.err;
        GTEST_SKIP() << "no GPU: " << gpu::probe_device(0).why_unavailable;
    }
    struct Case {
        std::vector<std::string> args;
        bool pow2;
        const char* ran;  // what --timings says ran
    };
    const char* seed = "custom CUDA 3D";
    const Case cases[] = {{{"--backend", "cufft"}, false, "cuFFT R2C 3D"},
                          {{"--backend", "cufft", "--cufft-mode", "c2c"}, false, "cuFFT C2C 3D"},
                          {{"--backend", "custom-fast"}, false, "powers of two, 2 to 4096 a side: cuFFT's ran"},
                          {{"--backend", "custom-fast"}, true, "custom-fast CUDA 3D R2C"},
                          {{"--backend", "custom"}, true, seed},
                          {{"--backend", "custom", "--tile", "8", "--threads-per-block", "64"}, true, seed},
                          {{"--backend", "custom", "--merge-transposes", "--tile", "16"}, true, seed},
                          {{"--backend", "custom", "--warp-shuffles", "--threads-per-block", "100"}, true, seed},
                          {{"--backend", "custom", "--next-axis-stages", "--block-height", "8"}, true, seed}};
    for (const bool pow2 : {false, true}) {
        std::vector<std::string> base{"--headless", odd, "--volume", "--pad", pow2 ? "pow2" : "none", "--force"};
        std::vector<std::string> cpu = base;
        cpu.insert(cpu.end(), {"--backend", "cpu", "--raw", dir.file("cpu.npy")});
        ASSERT_EQ(specview(cpu, dir).code, 0);
        std::vector<int> shape;
        const std::vector<cf> want = read_npy<cf>(dir.file("cpu.npy"), "<c8", 3, &shape);
        const std::vector<cd> ref(want.begin(), want.end());
        for (const Case& c : cases) {
            if (c.pow2 != pow2) continue;
            std::vector<std::string> args = base;
            args.insert(args.end(), c.args.begin(), c.args.end());
            args.insert(args.end(), {"--raw", dir.file("gpu.npy"), "--timings"});
            const CliRun r = specview(args, dir);
            ASSERT_EQ(r.code, 0) << c.args[1] << ": " << r.err;
            EXPECT_NE(r.out.find(c.ran), std::string::npos) << r.out;
            if (c.args.size() > 2 && c.args[2] == "--merge-transposes") {
                EXPECT_NE(r.out.find("final two merged"), std::string::npos) << r.out;
            }
            std::vector<int> gs;
            const std::vector<cf> got = read_npy<cf>(dir.file("gpu.npy"), "<c8", 3, &gs);
            ASSERT_EQ(gs, shape);
            EXPECT_LT(rel_l2(got, ref), 1e-5)
                << c.args[1] << (c.args.size() > 3 ? " " + c.args[2] + " " + c.args[3] : "") << " seed " << rng.seed();
        }
    }
    const CliRun r = specview({"--headless", odd, "--volume", "--pad", "none", "--backend", "custom", "-o",
                               dir.file("s.png")},
                              dir);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    EXPECT_NE(r.err.find("radix 2"), std::string::npos) << r.err;
}

// --split-volume and --dry-run (issue 64): the plan of a split over GPUs this machine may not have (depth planes dealt
// as cuFFT deals them, the first depth % n GPUs one more), its refusals; on a host of two GPUs or more, the split
// spectrum is the CPU's.
TEST(Cli, AVolumeSplitOverGpusIsPlannedAndIsTheCpusSpectrum) {
    TempDir dir;
    Rng rng;
    std::vector<double> v;
    const std::string in = random_volume_npy(dir, rng, 64, 40, 35, &v);
    CliRun r = specview({"--headless", in, "--volume", "--pad", "none", "--gpus", "0,1,2,3", "--split-volume",
                         "--backend", "cufft", "--dry-run"},
                        dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("64x40x35 -> 64x40x35 volume"), std::string::npos) << r.out;
    for (const char* share : {"GPU 0: z 0-8 (9 planes)", "GPU 2: z 18-26 (9 planes)", "GPU 3: z 27-34 (8 planes)"})
        EXPECT_NE(r.out.find(share), std::string::npos) << share << "\n" << r.out;
    r = specview({"--headless", in, "--volume", "--pad", "none", "--gpus", "0,1", "--split-volume", "--dry-run",
                  "--frame-range", "1:20"},
                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("refused: cuFFT's multi-GPU plans need every side at least 32"), std::string::npos) << r.out;
    r = specview({"--headless", in, "--volume", "--gpus", "0,1", "--split-volume", "--backend", "custom"}, dir);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    EXPECT_NE(r.err.find("cuFFT's multi-GPU plans"), std::string::npos) << r.err;
    r = specview({"--headless", in, "--dry-run"}, dir);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    if (gpu::cuda_device_count() < 2 || !gpu::probe_device(1).available)
        GTEST_SKIP() << "fewer than two GPUs: the split itself runs in the GPU tests (VolumeFft.TheSplitOverGpus...)";
    ASSERT_EQ(specview({"--headless", in, "--volume", "--pad", "none", "--backend", "cpu", "--raw", dir.file("c.npy")},
                       dir)
                  .code,
              0);
    r = specview({"--headless", in, "--volume", "--pad", "none", "--gpus", "0,1", "--split-volume", "--raw",
                  dir.file("g.npy"), "--timings"},
                 dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("cuFFT multi-GPU R2C over GPUs 0,1"), std::string::npos) << r.out;
    std::vector<int> cs, gs;
    const std::vector<cf> want = read_npy<cf>(dir.file("c.npy"), "<c8", 3, &cs);
    const std::vector<cf> got = read_npy<cf>(dir.file("g.npy"), "<c8", 3, &gs);
    ASSERT_EQ(gs, cs);
    EXPECT_LT(rel_l2(got, std::vector<cd>(want.begin(), want.end())), 1e-5) << " seed " << rng.seed();
}

}  // namespace
}  // namespace specview::test
