// The real viewer under X (Xvfb in CI): it renders frames, saves the window and where it drew what, and the
// tests check the picture. Run under xvfb-run (the README's test command does).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <iostream>
#include <map>
#include <sstream>

#include "app/engine/cpu_backend.h"
#include "app/io/load/load.h"
#include "app/lab/analysis.h"
#include "app/lab/filter.h"
#include "app/io/memory_need.h"
#include "app/core/settings.h"
#include "app/io/load/video_decode.h"
#include "gpu/runtime/device_info.h"
#include "tests/fixtures/image_writers.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

struct Layout {
    std::map<std::string, std::vector<float>> rects;
    std::vector<std::string> lines;
    bool has(const std::string& prefix) const {
        for (const auto& l : lines)
            if (l.rfind(prefix, 0) == 0) return true;
        return false;
    }
    std::string line(const std::string& prefix) const {
        for (const auto& l : lines)
            if (l.rfind(prefix, 0) == 0) return l;
        return {};
    }
};

// SPECVIEW_GUI_OFFSCREEN=1 runs every viewer of these tests on the offscreen EGL platform (the GPU machine,
// which has no X); otherwise they need a display (xvfb-run in CI).
bool offscreen() { return std::getenv("SPECVIEW_GUI_OFFSCREEN") != nullptr; }
std::string viewer_exe() { return std::string("'") + SPECVIEW_EXE + "'" + (offscreen() ? " --offscreen" : ""); }

// `specview --list-devices`: the first usable OpenCL device's P:D ("" when none).
struct CliRunLines {
    std::string opencl_usable;
    bool gl_usable = false;
    std::string opencl_sharing;  // the last OpenCL device offering cl_khr_gl_sharing ("" when none)
};
CliRunLines list_devices_lines() {
    CliRunLines r;
    FILE* f = popen((std::string("'") + SPECVIEW_EXE + "' --list-devices").c_str(), "r");
    if (!f) return r;
    char line[1024];
    while (std::fgets(line, sizeof line, f)) {
        const std::string l = line;
        if (r.opencl_usable.empty() && l.rfind("opencl ", 0) == 0 && l.find(": usable") != std::string::npos)
            r.opencl_usable = l.substr(7, l.find(' ', 7) - 7);
        if (l.rfind("gl  ", 0) == 0 && l.find(": usable") != std::string::npos) r.gl_usable = true;
        if (l.rfind("opencl ", 0) == 0 && l.find("cl_khr_gl_sharing") != std::string::npos)
            r.opencl_sharing = l.substr(7, l.find(' ', 7) - 7);
    }
    pclose(f);
    return r;
}

class Gui : public ::testing::Test {
protected:
    void SetUp() override {
        if (!offscreen() && !std::getenv("DISPLAY"))
            GTEST_SKIP()
                << "no X display: run the GUI tests under xvfb-run (as .ci/run does), or set SPECVIEW_GUI_OFFSCREEN=1";
    }
    // Runs the viewer for `frames` frames with the arguments; returns its exit code.
    int run(const std::vector<std::string>& args, int frames, const std::string& shot) {
        std::string cmd = viewer_exe();
        for (const auto& a : args) cmd += " '" + a + "'";
        cmd +=
            " --frames " + std::to_string(frames) + " --screenshot '" + shot + "' >'" + dir.file("out.txt") + "' 2>&1";
        const int status = std::system(cmd.c_str());
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::string read_out() {
        std::ifstream in(dir.file("out.txt"));
        return std::string((std::istreambuf_iterator<char>(in)), {});
    }
    Layout layout(const std::string& shot) {
        Layout l;
        std::ifstream in(shot + ".txt");
        std::string line;
        while (std::getline(in, line)) {
            l.lines.push_back(line);
            std::istringstream s(line);
            std::string key;
            s >> key;
            std::vector<float> v;
            float x;
            while (s >> x) v.push_back(x);
            if (v.size() == 4) l.rects[key] = v;
        }
        return l;
    }
    std::string grating(int n, int kx, int ky) {
        fixtures::Pixels p{n, n, 1, {}};
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                p.v.push_back(0.5 + 0.5 * std::cos(2 * M_PI * (double(kx) * x + double(ky) * y) / n));
        const std::string path = dir.file("grating.png");
        fixtures::write_file(path, fixtures::png(p, 16));
        return path;
    }
    TempDir dir;
};

// --geometry WxH sets the window's size (issue 59: nothing cut at 1280 x 800); without a GPU the GPU kernels' knobs
// are folded away behind one line of why; the default backend (auto) is named with its reason; a bad geometry is exit 2.
TEST_F(Gui, GeometrySetsTheWindowAndNoGpuFoldsTheGpuKnobs) {
    const std::string shot = dir.file("shot.png");
    ASSERT_EQ(run({grating(64, 3, 2), "--geometry", "1280x800"}, 4, shot), 0);
    const Image img = load_image(shot);
    EXPECT_EQ(img.width, 1280);
    EXPECT_EQ(img.height, 800);
    const bool gpu = gpu::probe_device(0).available;
    const Layout l = layout(shot);
    EXPECT_EQ(l.has("gpu-knobs folded"), !gpu);
    // --backend auto, the default: custom-fast where CUDA is usable, else the CPU; the Pipeline panel says which, why.
    EXPECT_TRUE(l.has(gpu ? "backend-why auto: custom-fast" : "backend-why auto: the CPU, no usable CUDA device"));
    EXPECT_EQ(l.line("backend ").rfind(gpu ? "backend custom-fast" : "backend CPU (FFTW)", 0), 0u) << l.line("backend ");
    EXPECT_EQ(run({grating(64, 3, 2), "--geometry", "1280"}, 2, shot), 2);
    EXPECT_TRUE(l.has("panel-width 420")) << "the side panel's default width";
}


// Every backend's devices are listed once the first picture is shown (issue 62): a backend with no usable device is
// disabled in the Pipeline panel with why (here: no OpenCL ICD and no EGL, hidden by the loaders' variables); with
// them, --opencl-device P:D is the OpenCL device the panel shows.
TEST_F(Gui, BackendsWithoutADeviceSayWhyAndTheOpenClDeviceIsShown) {
    const std::string shot = dir.file("shot.png");
    setenv("OCL_ICD_VENDORS", "/nonexistent", 1);
    // (the offscreen viewer draws through EGL itself: EGL stays there)
    if (!offscreen()) setenv("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent", 1);
    const int rc = run({grating(64, 3, 2), "--backend", "cpu"}, 90, shot);
    unsetenv("OCL_ICD_VENDORS");
    unsetenv("__EGL_VENDOR_LIBRARY_FILENAMES");
    ASSERT_EQ(rc, 0) << read_out();
    Layout l = layout(shot);
    ASSERT_TRUE(l.has("devices-listed ")) << "the devices were not listed within 90 frames";
    EXPECT_TRUE(l.has("backend-unavailable opencl: no OpenCL platform")) << l.line("backend-unavailable opencl");
    if (!offscreen()) {
        EXPECT_TRUE(l.has("backend-unavailable gl: OpenGL compute: ")) << l.line("backend-unavailable gl");
    }
    EXPECT_FALSE(l.has("opencl-device ")) << "no OpenCL choice while the CPU backend runs";
    const CliRunLines list = list_devices_lines();
    if (list.opencl_usable.empty()) GTEST_SKIP() << "no usable OpenCL device here";
    ASSERT_EQ(run({grating(64, 3, 2), "--backend", "opencl", "--opencl-device", list.opencl_usable}, 90, shot), 0)
        << read_out();
    l = layout(shot);
    EXPECT_EQ(l.line("opencl-device "), "opencl-device " + list.opencl_usable);
    EXPECT_FALSE(l.has("backend-unavailable opencl")) << l.line("backend-unavailable opencl");
    // Where OpenCL's picture goes: through the host, saying whether any device here could share GL textures.
    EXPECT_EQ(l.line("cl-picture "),
              list.opencl_sharing.empty()
                  ? "cl-picture host: no OpenCL device here offers cl_khr_gl_sharing"
                  : "cl-picture host: device " + list.opencl_sharing +
                        " offers cl_khr_gl_sharing; specview does not use it yet");
}

// A driver without OpenGL 4.3 (Mesa told to offer 3.3): the viewer opens on a 3.3 context, quietly; the GL backend's
// picture would come through the host and says why, and the GL backend (no 4.3 context headless either) is unavailable
// with the reason, the previous picture path untouched.
TEST_F(Gui, WithoutOpenGl43TheViewerKeeps33AndSaysWhyGlCannotWriteItsTexture) {
    if (offscreen()) GTEST_SKIP() << "MESA_GL_VERSION_OVERRIDE acts on Mesa's GLX, not the GPU's EGL";
    const std::string shot = dir.file("shot.png");
    setenv("MESA_GL_VERSION_OVERRIDE", "3.3", 1);
    const int rc = run({grating(64, 3, 2), "--backend", "gl"}, 30, shot);
    unsetenv("MESA_GL_VERSION_OVERRIDE");
    ASSERT_EQ(rc, 0) << read_out();
    const Layout l = layout(shot);
    EXPECT_EQ(l.line("gl-picture "), "gl-picture host: the viewer's OpenGL context is 3.3 (compute shaders need 4.3)");
    EXPECT_TRUE(l.has("startup-error OpenGL compute: ")) << l.line("startup-error");
    EXPECT_EQ(read_out().find("GLXBadFBConfig"), std::string::npos) << "the 4.3 try's failure printed: " << read_out();
}

TEST_F(Gui, SpectrumViewShowsTheGratingPeaksAndThePanelsAreDrawn) {
    const int n = 128, kx = 12, ky = -7;
    const std::string shot = dir.file("shot.png");
    // (the raw picture: no window, min..max; the defaults' Hann window and percentile range are GUI tests' too)
    ASSERT_EQ(run({grating(n, kx, ky), "--colormap", "gray", "--window", "none", "--range", "auto"}, 6, shot), 0);
    const Layout l = layout(shot);
    for (const char* p :
         {"panel File", "panel Pipeline", "panel Display", "panel Timings", "panel Device", "panel Classroom"})
        EXPECT_TRUE(l.has(p)) << p;
    EXPECT_EQ(l.line("frame"), "frame 128 128");
    ASSERT_EQ(l.rects.count("spectrum_image"), 1u);
    const Image img = load_image(shot);
    const auto& r = l.rects.at("spectrum_image");
    const float sx = (r[2] - r[0]) / n, sy = (r[3] - r[1]) / n;
    ASSERT_GT(sx, 1.5f) << "the spectrum view is too small to check";
    auto brightness = [&](float texel_x, float texel_y) {
        const int x = int(r[0] + (texel_x + 0.5f) * sx), y = int(r[1] + (texel_y + 0.5f) * sy);
        return img.at(x, y, 0);
    };
    // The two peaks sit at the centre +- (kx, ky); between them and around them the log-magnitude is ~0.
    EXPECT_GT(brightness(n / 2 + kx, n / 2 + ky), 0.8f);
    EXPECT_GT(brightness(n / 2 - kx, n / 2 - ky), 0.8f);
    EXPECT_LT(brightness(n / 2 + kx + 5, n / 2 + ky + 3), 0.2f);
    EXPECT_LT(brightness(n / 2 - 20, n / 2 + 30), 0.2f);
    // The brightest texel away from DC is one of the two peaks.
    float best = -1;
    int bx = 0, by = 0;
    for (int ty = 0; ty < n; ++ty)
        for (int tx = 0; tx < n; ++tx) {
            if (std::abs(tx - n / 2) <= 1 && std::abs(ty - n / 2) <= 1) continue;
            const float b = brightness(float(tx), float(ty));
            if (b > best) {
                best = b;
                bx = tx;
                by = ty;
            }
        }
    EXPECT_TRUE((bx == n / 2 + kx && by == n / 2 + ky) || (bx == n / 2 - kx && by == n / 2 - ky)) << bx << "," << by;
    // The panel column is drawn: plenty of distinct colours left of the views.
    std::map<int, int> colours;
    for (int y = 0; y < img.height; y += 3)
        for (int x = 0; x < int(l.rects.at("image_image")[0]) - 10; x += 3)
            colours[int(img.at(x, y, 0) * 255) * 65536 + int(img.at(x, y, 1) * 255) * 256 +
                    int(img.at(x, y, 2) * 255)]++;
    EXPECT_GT(colours.size(), 20u);
}

TEST_F(Gui, CorruptFileShowsAMessageAndTheViewerKeepsRunning) {
    const std::string bad = dir.file("broken.png");
    fixtures::write_file(bad, {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 1, 2, 3});
    const std::string shot = dir.file("shot.png");
    ASSERT_EQ(run({bad}, 4, shot), 0) << "the viewer must not exit on a bad file";
    const Layout l = layout(shot);
    const std::string err = l.line("startup-error");
    EXPECT_NE(err.find("broken.png"), std::string::npos) << err;
    EXPECT_TRUE(l.has("error ")) << "the message is on screen";
    EXPECT_NO_THROW(load_image(shot));
}

// The classroom's butterfly diagram shows the data of the stage and pass its caption names (issue 59): a 64x64
// grating at the Nyquist frequency across and 3 cycles down, no window. At "Row pass 2, stage 1" the diagram's row is
// the middle one after pass 1 and the transpose — bin 32 of every plane row, 32 cos(2 pi 3 y / 64) — through stages
// 1..3, points y = 8 k; at "Row pass 1, stage 1" it is plane row 32 itself (0 at even x). The thread mapping has the
// planner's launch shape without a GPU run of the custom pipeline.
TEST_F(Gui, ClassroomDiagramShowsTheStageAndPassItNames) {
    const std::string img = grating(64, 32, 3), shot = dir.file("shot.png");
    ASSERT_EQ(run({img, "--classroom", "--step", "9", "--window", "none"}, 40, shot), 0) << read_out();
    Layout l = layout(shot);
    EXPECT_EQ(l.line("classroom-step"), "classroom-step 9 16 Row pass 2, stage 1/6");
    EXPECT_EQ(l.line("butterfly "), "butterfly pass 2 stages 1 3 row 32 base 0 stride 8");
    std::istringstream in(l.line("butterfly-in").substr(std::string("butterfly-in").size()));
    std::vector<double> got;
    for (double v; in >> v;) got.push_back(v);
    ASSERT_EQ(got.size(), 8u) << l.line("butterfly-in");
    for (int k = 0; k < 8; ++k) EXPECT_NEAR(got[k], std::abs(32.0 * std::cos(2 * M_PI * 3.0 * 8 * k / 64)), 0.05) << k;
    EXPECT_TRUE(l.has("thread-mapping 64 ")) << "the planner's shape for 64-point rows";
    int placed = 0, skipped = 0;
    ASSERT_EQ(std::sscanf(l.line("butterfly-labels").c_str(), "butterfly-labels %d skipped %d", &placed, &skipped), 2);
    EXPECT_GT(placed, 16) << "the points' values and indices";

    ASSERT_EQ(run({img, "--classroom", "--step", "2", "--window", "none"}, 40, shot), 0) << read_out();
    l = layout(shot);
    EXPECT_EQ(l.line("butterfly "), "butterfly pass 1 stages 1 3 row 32 base 0 stride 8");
    EXPECT_EQ(l.line("butterfly-in"), "butterfly-in 0 0 0 0 0 0 0 0");
}

TEST_F(Gui, ClassroomStepsThroughEveryStageOfA64x64Image) {
    const std::string shot = dir.file("shot.png");
    // 1 input + 6 + transpose + 6 + transpose + shift = 16 steps; one per frame.
    ASSERT_EQ(run({grating(64, 5, 3), "--classroom", "--walk"}, 20, shot), 0);
    const Layout l = layout(shot);
    EXPECT_EQ(l.line("classroom-step"), "classroom-step 16 16 Shift: DC to the centre");
    EXPECT_FALSE(l.has("error ")) << l.line("error ");
    EXPECT_EQ(l.line("frame"), "frame 64 64");
    std::ifstream out(dir.file("out.txt"));
    const std::string text((std::istreambuf_iterator<char>(out)), {});
    EXPECT_EQ(text.find("specview:"), std::string::npos) << text;
}

TEST_F(Gui, GpuBackendWithoutAGpuFallsBackToTheCpuAndSaysWhy) {
    if (gpu::probe_device(0).available) GTEST_SKIP() << "this machine has a GPU";
    const std::string shot = dir.file("shot.png");
    ASSERT_EQ(run({grating(32, 3, 1), "--backend", "custom"}, 3, shot), 0);
    const Layout l = layout(shot);
    EXPECT_NE(l.line("startup-error").find("needs a GPU"), std::string::npos);
    EXPECT_EQ(l.line("backend"), "backend CPU (FFTW)");
}

// The file is sent to the decoder before the GPU is probed, with the asked backend's memory check; when that
// backend falls back to the CPU, the image is opened again under the CPU path's check: a --max-memory between
// the two paths' needs decides by the path that runs.
TEST_F(Gui, AFallbackToTheCpuChecksTheCpuPathsMemoryNeed) {
    if (gpu::probe_device(0).available) GTEST_SKIP() << "this machine has a GPU";
    fixtures::Pixels p = fixtures::pattern(1024, 1024, 1);
    const std::string img = dir.file("p.png");
    fixtures::write_file(img, fixtures::png(p, 8));
    const ImageHeader h{1024, 1024, 1, 8, "png"};
    Settings cpu, gpu_s;
    gpu_s.backend = Backend::Custom;
    const double need_cpu = memory_need(h, cpu, false, true).host, need_gpu = memory_need(h, gpu_s, false, true).host;
    ASSERT_NE(need_cpu, need_gpu);
    // Allowed: between the two, so that exactly one of the paths fits.
    const double allowed = 0.5 * (need_cpu + need_gpu);
    const std::string shot = dir.file("shot.png");
    // (the settings memory_need was asked about: Settings{}'s window and range, not the viewer's defaults)
    ASSERT_EQ(run({img, "--backend", "custom", "--max-memory", std::to_string(std::llround(allowed)), "--window",
                   "none", "--range", "auto"},
                  3, shot),
              0);
    const Layout l = layout(shot);
    EXPECT_NE(l.line("startup-error").find("needs a GPU"), std::string::npos) << l.line("startup-error");
    const bool cpu_fits = need_cpu <= allowed;
    EXPECT_EQ(l.line("error ").find("needs about") == std::string::npos, cpu_fits)
        << "CPU path " << need_cpu << " B, GPU path " << need_gpu << " B, allowed " << allowed << ": "
        << l.line("error ");
}

// The scripted viewer: the normal frame loop driven from a file, with a JSON report.
class Script : public Gui {
protected:
    int run_script(const std::string& text, const std::vector<std::string>& args) {
        fixtures::write_file(dir.file("s.txt"), std::vector<unsigned char>(text.begin(), text.end()));
        std::string cmd = viewer_exe() + " --script '" + dir.file("s.txt") + "' --report '" + dir.file("r.json") + "'";
        for (const auto& a : args) cmd += " '" + a + "'";
        cmd += " >'" + dir.file("out.txt") + "' 2>&1";
        const int status = std::system(cmd.c_str());
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::string read(const std::string& name) {
        std::ifstream in(dir.file(name));
        return std::string((std::istreambuf_iterator<char>(in)), {});
    }
    // The report, parsed (a report that is not JSON fails the test here).
    nlohmann::json report() {
        const std::string text = read("r.json");
        nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << "the report is not JSON: " << text;
        return j.is_discarded() ? nlohmann::json::object() : j;
    }
    // The report's "changes" whose action is `action`.
    std::vector<nlohmann::json> changes_of(const nlohmann::json& r, const std::string& action) {
        std::vector<nlohmann::json> out;
        for (const auto& c : r.value("changes", nlohmann::json::array()))
            if (c.value("action", "") == action) out.push_back(c);
        return out;
    }
    std::vector<int> image_size() {
        const nlohmann::json r = report();
        return r.contains("image") ? r["image"].get<std::vector<int>>() : std::vector<int>{};
    }
};

TEST_F(Script, DrivesTheViewerAndReportsEveryChange) {
    const std::string img = grating(128, 6, -4);
    const std::string shot = dir.file("shot.png");
    ASSERT_EQ(run_script("# a comment line\n"
                         "set colormap inferno   # trailing comment\n"
                         "wait-ready\n"
                         "drag tukey-alpha 0 1 5\n"
                         "set window tukey\n"
                         "wait-ready\n"
                         "hover 6 -4\n"
                         "wait 3\n"
                         "screenshot " +
                             shot +
                             "\n"
                             "quit\n",
                         {img}),
              0)
        << read("out.txt");
    const nlohmann::json r = report();
    // (auto: custom-fast where CUDA is usable)
    EXPECT_EQ(r.value("backend", "").rfind(gpu::probe_device(0).available ? "custom-fast" : "CPU (FFTW)", 0), 0u) << r;
    EXPECT_EQ(image_size(), (std::vector<int>{128, 128})) << r;
    ASSERT_TRUE(r.contains("frame_ms") && r["frame_ms"].is_array() && !r["frame_ms"].empty()) << r;
    EXPECT_EQ(r["frame_line"].size(), r["frame_ms"].size()) << "a script line for every frame";
    // One change for the colormap, five drag steps, one for the window (the picture of the image given on the
    // command line comes before the script starts and is not a change).
    ASSERT_EQ(r["changes"].size(), 7u) << r;
    const auto window = changes_of(r, "set window tukey");
    ASSERT_EQ(window.size(), 1u) << r;
    EXPECT_EQ(window[0]["line"], 5) << r;
    EXPECT_TRUE(window[0]["ready_ms"].is_number()) << "the last change before a wait-ready is never null: " << r;
    for (const char* key : {"seen_ms", "frame_wait_ms", "pickup_ms", "slot_wait_ms", "engine_ms", "after_engine_ms"})
        EXPECT_TRUE(window[0].contains(key)) << key << ": " << r;
    // The readout shows the grating's bin: |F| = 128^2 / 4 (the window takes some: Tukey 1 is Hann, 1/4 of it).
    const Layout l = layout(shot);
    const std::string ro = l.line("readout 6 -4 ");
    ASSERT_FALSE(ro.empty()) << "no readout line";
    double re = 0, im = 0;
    ASSERT_EQ(std::sscanf(ro.c_str(), "readout 6 -4 %lf %lf", &re, &im), 2) << ro;
    EXPECT_NEAR(std::hypot(re, im), 128.0 * 128.0 / 4.0 / 4.0, 128.0 * 128.0 / 4.0 * 0.05) << ro;
}

// A directory opens as the CLI takes it (issue 59): its images in natural order (a2 before a10), the first shown;
// Page Down / Page Up (the script's next-image / prev-image) step through them, wrapping around. With one file given,
// they step through its folder.
TEST_F(Script, ADirectoryOpensItsImagesInNaturalOrderAndPageKeysStepThem) {
    const std::string folder = dir.file("shots");
    std::filesystem::create_directory(folder);
    const std::vector<std::pair<std::string, int>> files = {{"a1.png", 64}, {"a2.png", 96}, {"a10.png", 128}};
    for (const auto& [name, n] : files) std::filesystem::copy_file(grating(n, 3, 2), folder + "/" + name);
    const std::string steps =
        "wait-ready\nnext-image\nwait-ready\nnext-image\nwait-ready\nnext-image\nwait-ready\n"
        "prev-image\nwait-ready\n";
    ASSERT_EQ(run_script(steps, {folder}), 0) << read("out.txt");
    std::vector<std::string> opened;
    const nlohmann::json r1 = report();  // (kept: a range-for over a temporary's member dangles)
    for (const auto& o : r1["opens"]) opened.push_back(std::filesystem::path(o.value("path", "")).filename());
    EXPECT_EQ(opened, (std::vector<std::string>{"a1.png", "a2.png", "a10.png", "a1.png", "a10.png"}));
    EXPECT_EQ(image_size(), (std::vector<int>{128, 128}));
    ASSERT_EQ(run_script("wait-ready\nnext-image\nwait-ready\n", {folder + "/a2.png"}), 0) << read("out.txt");
    opened.clear();
    const nlohmann::json r2 = report();
    for (const auto& o : r2["opens"]) opened.push_back(std::filesystem::path(o.value("path", "")).filename());
    EXPECT_EQ(opened, (std::vector<std::string>{"a2.png", "a10.png"})) << "the folder of the one file given";
}

// The readout's period (issue 59): bin (8, 0) of a 96 x 80 image padded to 128 x 128 is 8/128 cycles/pixel, a period
// of 16 pixels; with --pixel-size 0.5nm, 8 nm; without, in pixels alone.
TEST_F(Script, TheReadoutGivesThePeriodInPixelsAndInTheCalibratedUnit) {
    fixtures::Pixels p{96, 80, 1, {}};
    for (int y = 0; y < 80; ++y)
        for (int x = 0; x < 96; ++x) p.v.push_back(0.5 + 0.4 * std::cos(2 * M_PI * x / 16.0));
    const std::string img = dir.file("p.png"), shot = dir.file("shot.png");
    fixtures::write_file(img, fixtures::png(p, 16));
    for (const bool calibrated : {true, false}) {
        std::vector<std::string> args = {img};
        if (calibrated) args.insert(args.end(), {"--pixel-size", "0.5nm"});
        ASSERT_EQ(run_script("wait-ready\nhover 8 0\nwait 3\nscreenshot " + shot + "\nquit\n", args), 0)
            << read("out.txt");
        const std::string line = layout(shot).line("readout_period 8 0 ");
        double period = 0, physical = 0;
        char unit[16] = {};
        ASSERT_EQ(std::sscanf(line.c_str(), "readout_period 8 0 %lf %lf %15s", &period, &physical, unit), 3) << line;
        EXPECT_NEAR(period, 16.0, 1e-9);
        if (calibrated) {
            EXPECT_NEAR(physical, 8.0, 1e-9);
            EXPECT_STREQ(unit, "nm");
        } else {
            EXPECT_STREQ(unit, "px");
        }
    }
}

// Script actions zoom F, pan DX DY and fit (issue 59) move the spectrum view as the wheel and a drag do, and the synced
// image view follows: twice as large after zoom 2, 30 screen pixels to the right after pan 30 0, as at first after fit.
TEST_F(Script, ZoomPanAndFitMoveTheSyncedViewsTogether) {
    const std::string img = grating(128, 5, 3);
    std::string script = "wait-ready\nwait 2\nscreenshot " + dir.file("a.png") + "\nzoom 2\nwait 3\nscreenshot " +
                         dir.file("b.png") + "\npan 30 0\nwait 3\nscreenshot " + dir.file("c.png") +
                         "\nfit\nwait 3\nscreenshot " + dir.file("d.png") + "\nquit\n";
    ASSERT_EQ(run_script(script, {img}), 0) << read("out.txt");
    const Layout a = layout(dir.file("a.png")), b = layout(dir.file("b.png")), c = layout(dir.file("c.png")),
                 d = layout(dir.file("d.png"));
    for (const char* view : {"spectrum_image", "image_image"}) {
        ASSERT_TRUE(a.rects.count(view) && b.rects.count(view) && c.rects.count(view) && d.rects.count(view)) << view;
        const auto &ra = a.rects.at(view), &rb = b.rects.at(view), &rc = c.rects.at(view), &rd = d.rects.at(view);
        EXPECT_NEAR(rb[2] - rb[0], 2 * (ra[2] - ra[0]), 1.0) << view << ": zoom 2";
        EXPECT_NEAR(rc[0] - rb[0], 30.0, 1.0) << view << ": pan 30 0";
        EXPECT_NEAR(rc[1], rb[1], 1.0) << view;
        for (int k = 0; k < 4; ++k) EXPECT_NEAR(rd[std::size_t(k)], ra[std::size_t(k)], 1.0) << view << ": fit";
    }
}

// Saving (issue 59): the names default to <name>_spectrum.png / .npy; a file that exists is refused once, saying
// so, and the same save again overwrites it: never a silent overwrite.
TEST_F(Script, SavesDefaultToTheImagesNameAndNeverOverwriteSilently) {
    const std::string img = grating(64, 3, 2), out = dir.file("p.png");
    const std::string s1 = dir.file("s1.png"), s2 = dir.file("s2.png"), s3 = dir.file("s3.png");
    const std::string script = "wait-ready\nwait 2\nscreenshot " + s1 + "\nsave-picture " + out + "\nwait 20\n" +
                               "save-picture " + out + "\nwait 2\nscreenshot " + s2 + "\nsave-picture " + out +
                               "\nwait 2\nscreenshot " + s3 + "\nwait 20\nquit\n";
    ASSERT_EQ(run_script(script, {img}), 0) << read("out.txt");
    EXPECT_TRUE(layout(s1).has("save-names grating_spectrum.png grating_spectrum.npy")) << "the defaults";
    EXPECT_TRUE(std::filesystem::exists(out));
    const std::string refused = layout(s2).line("error ");
    EXPECT_NE(refused.find("exists: Save again to overwrite it"), std::string::npos) << refused;
    const Layout l3 = layout(s3);  // "saving ..." or, done already, "saved ... to ..."
    EXPECT_NE(l3.line("info ").find(out), std::string::npos) << "the second asking overwrites: " << l3.line("error ");
}

// Axes and units (issue 59): the spectrum view's ticks sit where their frequency is (u = 0 on the DC texel's centre,
// u = 0.25 a quarter of the texture's width right of it), in cycles/pixel, or in cycles/nm with --pixel-size 0.5nm
// (the same places for values twice as large); the image view's in pixels; a colour bar with the range's ends.
TEST_F(Script, TheViewsHaveAxesInTheirUnitsAndTheSpectrumAColourBar) {
    const int n = 128;
    const std::string img = grating(n, 5, 3), shot = dir.file("shot.png");
    for (const bool calibrated : {false, true}) {
        std::vector<std::string> args = {img};
        if (calibrated) args.insert(args.end(), {"--pixel-size", "0.5nm"});
        ASSERT_EQ(run_script("wait-ready\nwait 2\nscreenshot " + shot + "\nquit\n", args), 0) << read("out.txt");
        const Layout l = layout(shot);
        ASSERT_EQ(l.rects.count("spectrum_image"), 1u);
        const auto& r = l.rects.at("spectrum_image");
        const double sx = (r[2] - r[0]) / n, dc_x = r[0] + (n / 2 + 0.5) * sx;
        int ticks = 0;
        bool zero = false;
        for (const auto& line : l.lines) {
            double value = 0, screen = 0;
            if (std::sscanf(line.c_str(), "axis spectrum-u %lf %lf", &value, &screen) != 2) continue;
            ++ticks;
            zero = zero || value == 0;
            const double u = (screen - dc_x) / (sx * n);  // cycles/pixel at that place
            EXPECT_NEAR(u, calibrated ? value * 0.5 : value, 0.6 / n) << line;
        }
        EXPECT_GE(ticks, 3) << "ticks along the spectrum's bottom";
        EXPECT_TRUE(zero) << "a tick at DC";
        EXPECT_TRUE(l.has("axis image-x 0 ")) << "the image's pixel ticks";
        double lo = 0, hi = 0;
        ASSERT_EQ(std::sscanf(l.line("colorbar ").c_str(), "colorbar %lf %lf", &lo, &hi), 2);
        EXPECT_LT(lo, hi);
        double dlo = 0, dhi = 0;  // the Display panel's bar: the same range
        char what[16] = "";
        ASSERT_EQ(std::sscanf(l.line("display-colorbar ").c_str(), "display-colorbar %lf %lf %15s", &dlo, &dhi, what), 3);
        EXPECT_STREQ(what, "picture");
        EXPECT_EQ(dlo, lo);
        EXPECT_EQ(dhi, hi);
    }
}

// True aspect (issue 59): a 600x400 photo padded to 1024x512 is shown with its bins' true aspect (1/1024 by 1/512
// cycles/pixel): the spectrum view is square, u = 0.25 and v = 0.25 lie equally far from DC, a low-pass circle is
// drawn round; a square image keeps square texels, as do the image view and the classroom's data.
TEST_F(Script, APaddedNonSquareSpectrumKeepsItsTrueAspect) {
    fixtures::Pixels p{600, 400, 1, {}};
    for (int y = 0; y < 400; ++y)
        for (int x = 0; x < 600; ++x) p.v.push_back(0.5 + 0.5 * std::cos(2 * M_PI * (0.1 * x + 0.05 * y)));
    const std::string img = dir.file("wide.png"), shot = dir.file("shot.png");
    fixtures::write_file(img, fixtures::png(p, 8));
    ASSERT_EQ(run_script("wait-ready\nhover 10 5\nwait 2\nscreenshot " + shot + "\nquit\n",
                         {img, "--pad", "pow2", "--filter", "lowpass:0.2"}),
              0)
        << read("out.txt");
    const Layout l = layout(shot);
    EXPECT_EQ(l.line("spectrum-aspect"), "spectrum-aspect 2.000000") << "1024x512 bins";
    ASSERT_EQ(l.rects.count("spectrum_image"), 1u);
    const auto& r = l.rects.at("spectrum_image");
    EXPECT_NEAR(r[2] - r[0], r[3] - r[1], 1.5) << "the spectrum of a 1024x512 padding is shown square";
    const auto& im = l.rects.at("image_image");
    EXPECT_NEAR((im[2] - im[0]) / (im[3] - im[1]), 1.5, 0.01) << "the image keeps its pixels square";
    // The ticks: a value on both axes (say -0.5 cycles/pixel) lies as far left of DC as it lies above it.
    const double dc_x = r[0] + (512 + 0.5) * (r[2] - r[0]) / 1024, dc_y = r[1] + (256 + 0.5) * (r[3] - r[1]) / 512;
    std::map<double, double> u_at, v_at;
    for (const auto& line : l.lines) {
        double value = 0, screen = 0;
        if (std::sscanf(line.c_str(), "axis spectrum-u %lf %lf", &value, &screen) == 2) u_at[value] = screen - dc_x;
        if (std::sscanf(line.c_str(), "axis spectrum-v %lf %lf", &value, &screen) == 2) v_at[value] = screen - dc_y;
    }
    int both = 0;
    for (const auto& [value, du] : u_at) {
        if (value == 0 || !v_at.count(value)) continue;
        ++both;
        EXPECT_GT(std::abs(du), 20) << value;
        EXPECT_NEAR(du, v_at[value], 1.0) << value << " cycles/pixel is as far across as it is down";
    }
    EXPECT_GE(both, 1) << "a tick value on both axes";
    // A square image: square texels.
    ASSERT_EQ(run_script("wait-ready\nwait 2\nscreenshot " + shot + "\nquit\n", {grating(64, 3, 2)}), 0);
    EXPECT_EQ(layout(shot).line("spectrum-aspect"), "spectrum-aspect 1.000000");
}

// A rectangular ROI (issue 59): the script's `roi X Y W H` shows the spectrum of that rectangle (a 200x100 ROI of a
// 600x400 photo padded to 256x128), framed on the image view; `roi none` the whole image again; an ROI that does not
// lie within the next image opened is let go with a message.
TEST_F(Script, ARoiShowsThatRectanglesSpectrumAndIsFramedOnTheImage) {
    fixtures::Pixels p{600, 400, 1, {}};
    for (int y = 0; y < 400; ++y)
        for (int x = 0; x < 600; ++x) p.v.push_back(0.5 + 0.5 * std::cos(2 * M_PI * (0.1 * x + 0.05 * y)));
    const std::string img = dir.file("wide.png"), small = grating(64, 3, 2);
    fixtures::write_file(img, fixtures::png(p, 8));
    const std::string a = dir.file("a.png"), b = dir.file("b.png"), c = dir.file("c.png");
    ASSERT_EQ(run_script("wait-ready\nroi 100 50 200 100\nwait-ready\nwait 2\nscreenshot " + a +
                             "\nroi none\nwait-ready\nwait 2\nscreenshot " + b + "\nroi 100 50 200 100\nopen " + small +
                             "\nwait-ready\nwait 2\nscreenshot " + c + "\nquit\n",
                         {img}),
              0)
        << read("out.txt");
    const Layout la = layout(a), lb = layout(b), lc = layout(c);
    EXPECT_TRUE(la.has("roi-frame 100:50:200:100"));
    EXPECT_TRUE(la.has("spectrum-aspect 2.000000"));
    EXPECT_TRUE(la.has("save-names wide_spectrum.png"));
    // The spectrum's texture is the ROI's padding, 256x128 (the header's size line is not in the layout: the report's).
    const auto& r = la.rects.at("spectrum_image");
    EXPECT_NEAR(r[2] - r[0], r[3] - r[1], 1.5);
    EXPECT_FALSE(lb.has("roi-frame"));
    EXPECT_FALSE(lc.has("roi-frame")) << "the 64x64 image cannot hold the ROI";
    bool let_go = false;
    for (const auto& line : lc.lines) let_go |= line.find("ROI 100:50:200:100 let go") != std::string::npos;
    EXPECT_TRUE(let_go) << "a message says the ROI was let go";
    EXPECT_EQ(run_script("roi 1 2 3\n", {img}), 2) << "a malformed roi is a script error";
}

// A file dialog (issue 59): o (and Ctrl+O) asks the desktop's dialog — zenity here, a stand-in on PATH that answers
// with a path, as the real one prints the file chosen — and opens its answer; Ctrl+S saves the picture where the
// dialog says. Without zenity or kdialog (SPECVIEW_FILE_DIALOG=builtin) an in-window browser lists the folder's
// images and subfolders.
TEST_F(Script, AFileDialogOpensAndSavesWhereTheUserChose) {
    const std::string img = grating(64, 3, 2), other = dir.file("other.png"), out = dir.file("chosen.png");
    fixtures::write_file(other, fixtures::png(fixtures::pattern(48, 40, 1), 8));
    std::filesystem::create_directories(dir.file("bin"));
    const std::string fake = dir.file("bin/zenity");
    {
        std::ofstream z(fake);
        z << "#!/bin/sh\necho \"$@\" >> '" << dir.file("zenity-args.txt") << "'\n"
          << "case \"$*\" in *--save*) echo '" << out << "' ;; *) echo '" << other << "' ;; esac\n";
    }
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
    setenv("PATH", (dir.file("bin") + ":" + old_path).c_str(), 1);
    setenv("SPECVIEW_FILE_DIALOG", "zenity", 1);
    const std::string a = dir.file("a.png"), b = dir.file("b.png");
    const int rc = run_script("wait-ready\nkey o\nwait 20\nwait-ready\nwait 2\nscreenshot " + a +
                                  "\nkey ctrl+s\nwait 30\nscreenshot " + b + "\nquit\n",
                              {img});
    setenv("PATH", old_path.c_str(), 1);
    unsetenv("SPECVIEW_FILE_DIALOG");
    ASSERT_EQ(rc, 0) << read("out.txt");
    EXPECT_TRUE(layout(a).has("save-names other_spectrum.png")) << "the image the dialog chose is shown";
    EXPECT_TRUE(std::filesystem::exists(out)) << "the picture saved where the save dialog said";
    const std::string args = read("zenity-args.txt");
    EXPECT_NE(args.find("--file-selection"), std::string::npos) << args;
    EXPECT_NE(args.find("--save"), std::string::npos) << args;

    setenv("SPECVIEW_FILE_DIALOG", "builtin", 1);
    const int rc2 = run_script("wait-ready\nkey o\nwait 3\nscreenshot " + a + "\nquit\n", {img});
    unsetenv("SPECVIEW_FILE_DIALOG");
    ASSERT_EQ(rc2, 0) << read("out.txt");
    const Layout l = layout(a);
    EXPECT_TRUE(l.has("file-dialog builtin open " + std::filesystem::path(img).parent_path().string()));
    // The folder: grating.png, other.png, a.png (the screenshot), b.png, chosen.png and bin/ — images and folders only.
    int entries = -1;
    std::sscanf(l.line("file-dialog-entries").c_str(), "file-dialog-entries %d", &entries);
    int want = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(img).parent_path()))
        want += e.is_directory() || e.path().extension() == ".png";
    EXPECT_EQ(entries, want);
}

// The calibration typed in the Display panel (issue 59; the script's `pixel-size` takes the same path): the readout's
// period in the unit, and back to pixels with none; a bad size is a script error.
TEST_F(Script, APixelSizeTypedInTheViewerCalibratesTheReadout) {
    const std::string img = grating(64, 8, 0), a = dir.file("a.png"), b = dir.file("b.png");
    ASSERT_EQ(run_script("wait-ready\npixel-size 2um\nhover 8 0\nwait 3\nscreenshot " + a +
                             "\npixel-size none\nwait 3\nscreenshot " + b + "\nquit\n",
                         {img}),
              0)
        << read("out.txt");
    double period = 0, physical = 0;
    char unit[16] = "";
    ASSERT_EQ(std::sscanf(layout(a).line("readout_period").c_str(), "readout_period 8 0 %lf %lf %15s", &period,
                          &physical, unit),
              3)
        << layout(a).line("readout_period");
    EXPECT_NEAR(period, 8.0, 1e-6) << "64 / 8 pixels a cycle";
    EXPECT_NEAR(physical, 16.0, 1e-6) << "at 2 um a pixel";
    EXPECT_STREQ(unit, "um");
    EXPECT_NE(layout(b).line("readout_period").find(" px"), std::string::npos) << layout(b).line("readout_period");
    EXPECT_EQ(run_script("pixel-size 3parsecs\n", {img}), 2);
}

// The side panel resizes (issue 59) by its edge; the script's panel-width takes the same path, kept within 20%..70%
// of the window.
TEST_F(Script, TheSidePanelResizes) {
    const std::string img = grating(64, 3, 2), a = dir.file("a.png"), b = dir.file("b.png");
    ASSERT_EQ(run_script("wait-ready\npanel-width 600\nwait 2\nscreenshot " + a + "\npanel-width 5000\nwait 2\nscreenshot " +
                             b + "\nquit\n",
                         {img, "--geometry", "1280x800"}),
              0)
        << read("out.txt");
    EXPECT_TRUE(layout(a).has("panel-width 600"));
    EXPECT_TRUE(layout(b).has("panel-width 896")) << "70% of 1280";
    EXPECT_LT(layout(a).rects.at("image_image")[0], layout(b).rects.at("image_image")[0]) << "the views moved right";
}

// Keys a desktop user expects (issue 59), pressed through the script's `key`: c the next colormap (inferno, the
// viewer's default, then magma), p hides the side panel, ? lists the keys, f fits; an unknown key is a script error.
TEST_F(Script, KeysCycleTheColormapHideThePanelAndListThemselves) {
    const std::string img = grating(64, 3, 2);
    const std::string a = dir.file("a.png"), b = dir.file("b.png"), c = dir.file("c.png");
    ASSERT_EQ(run_script("wait-ready\nkey c\nwait-ready\nwait 2\nscreenshot " + a + "\nkey p\nwait 2\nscreenshot " + b +
                             "\nkey ?\nkey f\nwait 2\nscreenshot " + c + "\nquit\n",
                         {img}),
              0)
        << read("out.txt");
    const Layout la = layout(a), lb = layout(b), lc = layout(c);
    EXPECT_NE(la.line("colorbar ").find(" magma"), std::string::npos) << la.line("colorbar ");
    EXPECT_TRUE(la.has("panel File"));
    EXPECT_FALSE(lb.has("panel File")) << "p hides the side panel";
    EXPECT_TRUE(lc.has("keys-list shown"));
    EXPECT_EQ(run_script("key x\n", {img}), 2) << "an unknown key";
}

// One angle convention (issue 59): the readout's angle of a bin is the angle the wedge filter and the angular profile
// take for it. A grating at bin (30, -10) of 128^2 (up and to the right: +18.4 degrees counter-clockwise); a wedge
// made at the readout's angle takes that bin (a wedge removes around its direction) and leaves its mirror (30, +10);
// the angular profile of the grating peaks in the readout's 1-degree bin.
TEST_F(Script, TheReadoutsAngleIsTheWedgesAndTheAngularProfiles) {
    const int n = 128, kx = 30, ky = -10;
    const std::string img = grating(n, kx, ky);
    const std::string shot = dir.file("shot.png");
    ASSERT_EQ(run_script("wait-ready\nhover 30 -10\nwait 3\nscreenshot " + shot + "\nquit\n", {img}), 0)
        << read("out.txt");
    const std::string line = layout(shot).line("readout_angle 30 -10 ");
    double angle = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "readout_angle 30 -10 %lf", &angle), 1) << "no readout angle: " << line;
    EXPECT_NEAR(angle, std::atan2(10.0, 30.0) * 180.0 / M_PI, 1e-3) << "counter-clockwise, up positive";
    FilterSpec wedge;
    wedge.kind = FilterKind::Wedge;
    wedge.r = 2.0;  // half-width, degrees
    wedge.angle = angle;
    EXPECT_LT(filter_value(wedge, double(kx) / n, double(ky) / n), 1e-6)
        << "the wedge at the readout's angle takes the bin";
    EXPECT_GT(filter_value(wedge, double(kx) / n, double(-ky) / n), 1.0 - 1e-6) << "and leaves its mirror";
    Plane p(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) p.at(x, y) = float(std::cos(2 * M_PI * (double(kx) * x + double(ky) * y) / n));
    CpuFft fft;
    std::vector<std::complex<float>> F;
    fft.forward(p, F);
    EXPECT_EQ(dominant_angle(angular_profile(F.data(), n, n)), std::floor(angle)) << "the angular profile's bin";
}

// The frequency lab in the viewer: a low-pass filter by script draws its ring on the spectrum and a third view
// with the filtered image, which has far less fine detail than the image; clearing the filters removes it.
// Fine detail: the mean step between horizontal neighbours over the middle half of a view, in screen pixels.
double mean_step(const Image& s, const std::vector<float>& r) {
    double sum = 0;
    int count = 0;
    const int x0 = int(r[0] + (r[2] - r[0]) * 0.25f), x1 = int(r[0] + (r[2] - r[0]) * 0.75f);
    const int y0 = int(r[1] + (r[3] - r[1]) * 0.25f), y1 = int(r[1] + (r[3] - r[1]) * 0.75f);
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            sum += std::abs(s.at(x + 1, y, 0) - s.at(x, y, 0));
            ++count;
        }
    return count ? sum / count : 0.0;
}

TEST_F(Script, ALowPassFilterShowsTheBlurredImageInAThirdView) {
    const int n = 128;
    fixtures::Pixels p{n, n, 1, {}};
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)  // fine checks on a slow ramp
            p.v.push_back(0.25 + 0.25 * double(x) / n + (((x / 2) + (y / 2)) % 2 ? 0.4 : 0.0));
    const std::string img = dir.file("checks.png");
    fixtures::write_file(img, fixtures::png(p, 8));
    std::vector<std::string> backends{"cpu"};
    if (gpu::probe_device(0).available) backends.insert(backends.end(), {"cufft", "custom-fast", "custom"});
    for (const std::string& backend : backends) {
        SCOPED_TRACE(backend);
        const std::string shot = dir.file("lab-" + backend + ".png"), shot2 = dir.file("nolab-" + backend + ".png");
        ASSERT_EQ(run_script("filter lowpass:0.06,gauss\n"
                             "wait-ready\n"
                             "wait 2\n"
                             "screenshot " +
                                 shot +
                                 "\n"
                                 "clear-filters\n"
                                 "wait-ready\n"
                                 "screenshot " +
                                 shot2 +
                                 "\n"
                                 "quit\n",
                             {img, "--colormap", "gray", "--backend", backend}),
                  0)
            << read("out.txt");
        const Layout l = layout(shot);
        EXPECT_NE(l.line("backend").find(backend == "cpu"     ? "CPU"
                                         : backend == "cufft" ? "cuFFT"
                                                              : backend),
                  std::string::npos)
            << l.line("backend");
        ASSERT_EQ(l.rects.count("lab_image"), 1u) << "no third view";
        ASSERT_EQ(l.rects.count("image_image"), 1u);
        EXPECT_EQ(l.line("filter-outlines"), "filter-outlines 1");
        const Image s = load_image(shot);
        auto detail = [&](const std::vector<float>& r) { return mean_step(s, r); };
        const double image_detail = detail(l.rects.at("image_image")), lab_detail = detail(l.rects.at("lab_image"));
        EXPECT_GT(image_detail, 0.05) << "the checks are not visible in the image view";
        EXPECT_LT(lab_detail, 0.25 * image_detail) << "the low-pass did not remove the fine checks";
        const Layout l2 = layout(shot2);
        EXPECT_EQ(l2.rects.count("lab_image"), 0u) << "the third view stayed after clear-filters";
        EXPECT_FALSE(l2.has("filter-outlines"));
    }
}

// The brush by script: painting the bins of a grating removes it from the filtered view (the image's slow
// ramp stays), erasing them brings it back, and save-mask writes the mask with the dab where it was painted.
TEST_F(Script, PaintingAGratingsBinsRemovesItFromTheFilteredView) {
    const int n = 128;
    fixtures::Pixels p{n, n, 1, {}};
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)  // a grating of 16 cycles across (bin u = 16) on a slow vertical ramp
            p.v.push_back(0.3 + 0.3 * double(y) / n + 0.3 * std::cos(2 * M_PI * 16 * x / n));
    const std::string img = dir.file("grating.png");
    fixtures::write_file(img, fixtures::png(p, 8));
    std::vector<std::string> backends{"cpu"};
    if (gpu::probe_device(0).available) backends.insert(backends.end(), {"cufft", "custom-fast", "custom"});
    for (const std::string& backend : backends) {
        SCOPED_TRACE(backend);
        const std::string painted = dir.file("painted-" + backend + ".png"),
                          erased = dir.file("erased-" + backend + ".png"), mask = dir.file("mask-" + backend + ".png");
        ASSERT_EQ(run_script("paint 16 0 2.5\n"
                             "wait-ready\n"
                             "wait 2\n"
                             "screenshot " +
                                 painted +
                                 "\n"
                                 "save-mask " +
                                 mask +
                                 "\n"
                                 "erase 16 0 3\n"
                                 "wait-ready\n"
                                 "wait 2\n"
                                 "screenshot " +
                                 erased +
                                 "\n"
                                 "quit\n",
                             {img, "--colormap", "gray", "--backend", backend}),
                  0)
            << read("out.txt");
        auto detail = [](const Image& s, const std::vector<float>& r) { return mean_step(s, r); };
        const Layout l = layout(painted);
        ASSERT_EQ(l.rects.count("lab_image"), 1u) << "no third view for a brushed mask";
        EXPECT_EQ(l.line("mask"), "mask 1 brush dab");
        const Image a = load_image(painted);
        const double image_detail = detail(a, l.rects.at("image_image")),
                     lab_detail = detail(a, l.rects.at("lab_image"));
        EXPECT_GT(image_detail, 0.05) << "the grating is not visible in the image view";
        EXPECT_LT(lab_detail, 0.2 * image_detail) << "painting its bins did not remove the grating";
        const Layout l2 = layout(erased);
        EXPECT_EQ(l2.line("mask"), "mask 2 brush dabs");
        const Image b = load_image(erased);
        EXPECT_GT(detail(b, l2.rects.at("lab_image")), 0.7 * detail(b, l2.rects.at("image_image")))
            << "erasing did not bring the grating back";
        const Image m = load_image(mask);
        ASSERT_EQ(m.width, n);
        EXPECT_EQ(m.at(n / 2 + 16, n / 2, 0), 0.0f) << "the dab";
        EXPECT_EQ(m.at(n / 2 - 16, n / 2, 0), 0.0f) << "its mirror";
        EXPECT_EQ(m.at(n / 2, n / 2, 0), 1.0f) << "DC";
    }
}

// The analysis strip by script: the radial PSD with a fitted slope, the angular profile's dominant direction
// (a grating's), a line profile through DC, the log-phi view, and the phase correlation with a moved copy of the
// image (its shift found, the heat map shown); the profiles export as CSV.
TEST_F(Script, TheAnalysisStripMeasuresTheSpectrumAndCorrelates) {
    const int n = 128;
    fixtures::Pixels p{n, n, 1, {}}, moved{n, n, 1, {}};
    std::uint32_t h = 12345;
    std::vector<double> noise(std::size_t(n) * n);
    for (double& v : noise) {
        h = h * 1664525u + 1013904223u;
        v = double(h >> 8) / double(1u << 24);
    }
    auto value = [&](int x, int y) {  // a grating of wave vector (16, 8) bins over noise
        return 0.35 + 0.25 * std::cos(2 * M_PI * (16.0 * x + 8.0 * y) / n) + 0.3 * noise[std::size_t(y) * n + x];
    };
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            p.v.push_back(value(x, y));
            moved.v.push_back(value((x - 5 + n) % n, (y + 3) % n));  // the content moved 5 right and 3 up
        }
    const std::string img = dir.file("g.png"), other = dir.file("moved.png"), shot = dir.file("analysis.png");
    fixtures::write_file(img, fixtures::png(p, 16));
    fixtures::write_file(other, fixtures::png(moved, 16));
    std::vector<std::string> backends{"cpu"};
    if (gpu::probe_device(0).available) backends.insert(backends.end(), {"cufft", "custom-fast", "custom"});
    for (const std::string& backend : backends) {
        SCOPED_TRACE(backend);
        ASSERT_EQ(run_script("analysis on\n"
                             "line -20 0 20 0\n"
                             "wait-ready\n"
                             "correlate " +
                                 other +
                                 "\n"
                                 "wait-ready\n"
                                 "wait 2\n"
                                 "screenshot " +
                                 shot +
                                 "\n"
                                 "export-analysis " +
                                 dir.file("a-" + backend) +
                                 "\n"
                                 "quit\n",
                             {img, "--backend", backend, "--window", "none"}),  // (a window's DC leak is angle 0)
                  0)
            << read("out.txt");
        const Layout l = layout(shot);
        EXPECT_EQ(l.line("angular dominant"), "angular dominant 153") << "the grating's direction: atan2(-8, 16) + 180";
        EXPECT_TRUE(l.has("radial-psd bins 91 slope ")) << l.line("radial-psd");
        EXPECT_EQ(l.line("line points"), "line points 41");
        EXPECT_EQ(l.line("log-phi"), "log-phi 360x256");
        EXPECT_EQ(l.line("correlation shift"), "correlation shift 5.00 -3.00");
        for (const char* r : {"radial_plot", "angular_plot", "line_plot", "log_phi", "correlation_map"})
            EXPECT_EQ(l.rects.count(r), 1u) << r;
        std::ifstream radial(dir.file("a-" + backend + "_radial.csv")), line(dir.file("a-" + backend + "_line.csv"));
        std::string first;
        std::getline(radial, first);
        EXPECT_EQ(first, "f_cycles_per_pixel,mean_power,count");
        std::getline(line, first);
        EXPECT_EQ(first, "distance_cycles_per_pixel,value");
        int rows = 0;
        while (std::getline(line, first)) ++rows;
        EXPECT_EQ(rows, 41);
    }
}

// A float TIFF stack: the image view shows its values over an automatic range (negative ones too), the File
// panel's frame slider says which frame, a script steps to another, and a page's NaN is replaced with a note.
TEST_F(Script, AFloatTiffStackStepsFramesAndShowsItsValueRange) {
    const int n = 64;
    std::vector<std::vector<double>> pages;
    for (int p = 0; p < 3; ++p) {
        std::vector<double> v;
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) v.push_back(-40.0 + 25.0 * std::cos(2 * M_PI * (4.0 * (p + 1) * x) / n));
        pages.push_back(v);
    }
    pages[1][5] = std::nan("");
    fixtures::TiffOptions o;
    o.sample = fixtures::TiffSample::F32;
    const std::string img = dir.file("stack.tif"), one = dir.file("one.png"), two = dir.file("two.png");
    fixtures::write_file(img, fixtures::tiff(n, n, 1, pages, o));
    const std::string three = dir.file("three.png");
    const std::string four = dir.file("four.png");
    ASSERT_EQ(run_script("wait-ready\nscreenshot " + one + "\nframe 2\nwait-ready\nwait 2\nscreenshot " + two +
                             "\nplay 1\nwait 3\npause\nwait-ready\nscreenshot " + three +
                             "\nstack-analysis 8 0\nwait-ready\nwait 2\nscreenshot " + four + "\nquit\n",
                         {img, "--colormap", "gray"}),
              0)
        << read("out.txt");
    // Over the stack: the mean spectrum, and bin (8, 0) over the frames: frame 2's grating (8 cycles) is there.
    const Layout d = layout(four);
    EXPECT_EQ(d.line("stack frames"), "stack frames 3 series 3 top 2");
    EXPECT_EQ(d.rects.count("stack_mean"), 1u);
    EXPECT_EQ(d.rects.count("stack_series"), 1u);
    const Layout a = layout(one), b = layout(two);
    EXPECT_EQ(a.line("frame "), "frame 1 of 3");
    EXPECT_EQ(b.line("frame "), "frame 2 of 3");
    EXPECT_EQ(a.line("image-range"), "image-range -65 .. -15") << "the values' own range, not [0, 1]";
    // Playing at 1 frame/s: one step at once (2 -> 3), the next not before a second has passed. (Three frames between
    // play and pause, not twenty: on a loaded two-core machine twenty software-rendered frames took over a second, a
    // second step came and the stack wrapped to frame 1.)
    EXPECT_EQ(layout(three).line("frame "), "frame 3 of 3") << "playing steps to the next frame";
    EXPECT_NE(b.line("info").find("1 NaN/Inf sample replaced by the mean"), std::string::npos) << b.line("info");
    // The image view is not black: the values are mapped over their range.
    const Image s = load_image(one);
    const std::vector<float>& r = a.rects.at("image_image");
    double sum = 0;
    int count = 0;
    for (int y = int(r[1] + 10); y < int(r[3] - 10); y += 3)
        for (int x = int(r[0] + 10); x < int(r[2] - 10); x += 3) {
            sum += s.at(x, y, 0);
            ++count;
        }
    EXPECT_GT(sum / count, 0.2) << "the negative data shows, not clamped to black";
}

// A video in the viewer: decoded by the video helper, it plays (the frames stream from one decoder request)
// and a jump back with the slider's script action lands on the frame asked for.
TEST_F(Script, AVideoPlaysAndJumps) {
    if (!video_supported()) GTEST_SKIP() << "this build has no video (FFmpeg's development packages were not found)";
    const int n = 64, frames = 20;
    std::vector<std::vector<std::uint8_t>> f;
    for (int k = 0; k < frames; ++k) {
        std::vector<std::uint8_t> px;
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                px.push_back(std::uint8_t(std::lround(128 + 90 * std::cos(2 * M_PI * (k + 1) * x / n))));
        f.push_back(px);
    }
    const std::string video = dir.file("v.mkv"), a = dir.file("a.png"), b = dir.file("b.png");
    fixtures::write_file(video, fixtures::video(n, n, f, "ffv1", "matroska", 25));
    ASSERT_EQ(run_script("wait-ready\nplay 60\nwait 30\npause\nwait-ready\nscreenshot " + a +
                             "\nframe 3\nwait-ready\nscreenshot " + b + "\nquit\n",
                         {video}),
              0)
        << read("out.txt");
    const Layout la = layout(a), lb = layout(b);
    EXPECT_NE(la.line("frame "), "frame 1 of 20")
        << "playing moved on; the viewer said: " << read("out.txt") << "\nreport: " << read("r.json");
    EXPECT_EQ(la.line("frame ").rfind("frame ", 0), 0u) << "a video is a stack: " << la.line("frame ");
    EXPECT_EQ(lb.line("frame "), "frame 3 of 20");
    // The report lists the frames whose spectra reached the textures, in time order: the first, some played, and
    // the one jumped to last.
    const nlohmann::json r = report();
    ASSERT_TRUE(r.contains("stack_frames")) << r;
    std::vector<std::pair<int, double>> shown;
    for (const auto& e : r["stack_frames"]) shown.emplace_back(e.at(0).get<int>(), e.at(1).get<double>());
    ASSERT_GE(shown.size(), 3u) << r["stack_frames"];
    EXPECT_EQ(shown.front().first, 0);
    EXPECT_EQ(shown.back().first, 2) << "frame 3, 0-based";
    for (std::size_t i = 1; i < shown.size(); ++i) EXPECT_GE(shown[i].second, shown[i - 1].second) << "in time order";
}

// A video with a GPU backend is decoded by NVDEC where it can be (--video-decode auto), its frames written into the
// image texture on the device: the texture holds the luma the CPU decoder gives (H.264 decodes exactly), and the
// spectrum texture is the one of the same frame decoded on the CPU. SPECVIEW_EXPECT_NVDEC=1 (the GPU machine's
// run) requires that NVDEC ran; elsewhere it may not, and the pictures must agree all the same.
TEST_F(Script, AVideoFrameDecodedOnTheGpuShowsTheSamePixelsAndSpectrum) {
    if (!video_supported()) GTEST_SKIP() << "this build has no video (FFmpeg's development packages were not found)";
    const int w = 320, h = 192, frames = 12;
    std::vector<std::vector<std::uint8_t>> f;
    for (int k = 0; k < frames; ++k) {
        std::vector<std::uint8_t> px;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                px.push_back(std::uint8_t(std::lround(128 + 60 * std::cos(2 * M_PI * (k + 2) * x / w) +
                                                      30 * std::sin(2 * M_PI * 5 * y / h))));
        f.push_back(px);
    }
    const std::string video = dir.file("v.mp4");
    try {
        fixtures::write_file(video, fixtures::video(w, h, f, "libx264", "mp4", 30));
    } catch (const std::runtime_error& e) {
        GTEST_SKIP() << "no H.264 encoder for the fixture: " << e.what();
    }
    std::map<std::string, std::string> out;
    for (const char* how : {"auto", "cpu"}) {
        const std::string img = dir.file(std::string("image-") + how + ".png"),
                          spec = dir.file(std::string("spec-") + how + ".png");
        const std::string shot = dir.file(std::string("shot-") + how + ".png");
        ASSERT_EQ(run_script("wait-ready\nframe 5\nwait-ready\nsave-texture " + img + " image\nsave-texture " + spec +
                                 " spectrum\nscreenshot " + shot + "\nquit\n",
                             {"--backend", "cufft", "--video-decode", how, video}),
                  0)
            << read("out.txt");
        out[how] = layout(shot).line("decoder ");
        std::cout << "[ nvdec    ] --video-decode " << how << ": " << out[how] << "\n";
    }
    const bool nvdec = out["auto"].find("NVDEC") != std::string::npos;
    std::cout << "[ nvdec    ] " << (nvdec ? "the viewer decoded on the GPU" : "the viewer decoded on the CPU") << "\n";
    if (std::getenv("SPECVIEW_EXPECT_NVDEC")) {
        EXPECT_TRUE(nvdec) << out["auto"];
    }
    EXPECT_EQ(out["cpu"], "decoder the CPU (isolated decoder)");
    // The CPU decoder's frame 5 (0-based 4), in this process.
    std::ifstream in(video, std::ios::binary);
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), {});
    VideoStack stack(bytes, "v.mp4");
    const Image want = stack.decode(4, [](const ImageHeader&) {});
    const Image a = load_image(dir.file("image-auto.png")), c = load_image(dir.file("image-cpu.png"));
    ASSERT_EQ(a.width, w);
    ASSERT_EQ(a.height, h);
    std::size_t bad = 0, bad_cpu = 0;
    for (std::size_t i = 0; i < std::size_t(w) * h; ++i) {
        const long v = std::lround(want.sample(i) * 255.0f);
        for (int k = 0; k < 3; ++k) {
            bad += std::lround(a.sample(i * 4 + std::size_t(k)) * 255.0f) != v;
            bad_cpu += std::lround(c.sample(i * 4 + std::size_t(k)) * 255.0f) != v;
        }
    }
    EXPECT_EQ(bad, 0u) << "image texture texels differing from the decoded luma (auto)";
    EXPECT_EQ(bad_cpu, 0u) << "image texture texels differing from the decoded luma (cpu)";
    const Image sa = load_image(dir.file("spec-auto.png")), sc = load_image(dir.file("spec-cpu.png"));
    ASSERT_EQ(sa.sample_bytes(), sc.sample_bytes());
    EXPECT_EQ(std::memcmp(sa.data(), sc.data(), sa.sample_bytes()), 0)
        << "the spectrum of the frame differs by decoder";
}

TEST_F(Script, EveryFrameOfADragIsAChangeAndTheLastArrives) {
    ASSERT_EQ(run_script("drag threads-per-block 32 1024 10\nwait-ready\ndrag window none hann 3\nwait-ready\n",
                         {grating(64, 3, 2)}),
              0)
        << read("out.txt");
    const nlohmann::json r = report();
    EXPECT_EQ(changes_of(r, "drag threads-per-block 32 1024 10").size(), 10u) << r;
    const auto window = changes_of(r, "drag window none hann 3");
    ASSERT_EQ(window.size(), 3u) << r;
    EXPECT_TRUE(window.back()["ready_ms"].is_number()) << "the last step's picture arrives: " << r;
}

// The report's "opens": one record per image shown (the one the viewer started with, then each opened in it), in
// order, each decoded after its open was taken up and pictured after it was decoded: what "first picture <=
// decode + 80 ms" is measured from when a file is opened in a running viewer (tests/device/run.sh tiff16).
TEST_F(Script, ReportsWhenEachOpenedImageWasDecodedAndPictured) {
    const std::string a = grating(64, 3, 2), b = grating(96, 5, -1);
    ASSERT_EQ(run_script("wait-ready\nopen " + b + "\nwait-ready\nset colormap magma\nwait-ready\nquit\n", {a}), 0)
        << read("out.txt");
    const nlohmann::json r = report();
    ASSERT_TRUE(r.contains("opens")) << r;
    const nlohmann::json& opens = r["opens"];
    ASSERT_EQ(opens.size(), 2u) << "the first image and the one opened; a colormap change is no open: " << opens;
    EXPECT_EQ(opens[0].value("path", ""), a);
    EXPECT_EQ(opens[1].value("path", ""), b);
    for (const auto& rec : opens) {
        ASSERT_TRUE(rec["picture"].is_number()) << opens;
        const double started = rec["started"], decoded = rec["decoded"], picture = rec["picture"];
        const double decode_ms = rec["decode_ms"];
        EXPECT_LE(started, decoded) << opens;
        EXPECT_LT(decoded, picture) << opens;
        EXPECT_GT(decode_ms, 0.0) << opens;
        EXPECT_LE(decode_ms, decoded - started + 1.0) << "the read + decode lies within the open: " << opens;
    }
    EXPECT_LT(opens[0]["picture"].get<double>(), opens[1]["started"].get<double>())
        << "the second open came after the first picture";
}

// A malformed file never takes the viewer down: every input that once broke a decoder is opened in turn, and the
// window keeps rendering (the previous image stays, the script goes on).
TEST_F(Script, EveryRegressionCorpusFileIsOpenedAndTheViewerKeepsRendering) {
    std::string script;
    int files = 0;
    // What the viewer should show at the end: the last file that decodes (some regression files are valid images
    // that once tripped a decoder), else the good image it started with.
    std::vector<int> expect{64, 64};
    for (const auto& e : std::filesystem::directory_iterator(SPECVIEW_REGRESSION_DIR)) {
        script += "open " + e.path().string() + "\nwait-ready\nwait 2\n";
        ++files;
        try {
            const Image img = load_image(e.path().string());
            expect = {img.width, img.height};
        } catch (const InputError&) {}
    }
    ASSERT_GE(files, 3);
    const std::string shot = dir.file("shot.png");
    script += "set colormap viridis\nwait-ready\nscreenshot " + shot + "\n";
    ASSERT_EQ(run_script(script, {grating(64, 3, 2)}), 0) << read("out.txt");
    const nlohmann::json r = report();
    EXPECT_EQ(image_size(), expect) << "the last good image stays: " << r;
    EXPECT_GT(r["frame_ms"].size(), std::size_t(3 * files)) << "frames kept coming";
    EXPECT_NO_THROW(load_image(shot));
}

// Opening 500 images one after another keeps the viewer's memory flat: its resident memory when the last picture
// arrived within 10% of its level after the first 20 (the report's opens[].rss_mib). It grew 27% (143 -> 182 MiB
// here, 2026-12-07) with the live heap flat under heaptrack: glibc's main arena fragmented (the path names' small
// allocations pinning the freed image buffers' places, so each open took fresh pages); the viewer now trims the heap
// after each open (1.7%). (Paths in /tmp/ho/ had shown nothing: the names' lengths decide the pattern.) On a GPU
// backend, the GPU's memory in use likewise (opens[].gpu_mib).
TEST_F(Script, FiveHundredOpensKeepTheViewersMemoryFlat) {
    std::vector<std::string> images;
    for (int k = 0; k < 4; ++k) {  // four images (grating() writes one file: each copied away)
        images.push_back(dir.file("distinct" + std::to_string(k) + ".png"));
        std::filesystem::copy_file(grating(96 + 32 * k, 3 + k, 2), images.back());
    }
    std::string script;
    for (int k = 0; k < 500; ++k) {
        const std::string link = dir.file("open" + std::to_string(k) + ".png");
        std::filesystem::create_symlink(images[std::size_t(k % 4)], link);
        script += "open " + link + "\nwait-ready\n";
    }
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(run_script(script, {images[0]}), 0) << read("out.txt");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const nlohmann::json r = report();
    const auto& opens = r["opens"];
    ASSERT_EQ(opens.size(), 501u) << "the first image and 500 opens";
    const double after20 = opens[20].value("rss_mib", 0.0), last = opens[500].value("rss_mib", 0.0);
    std::cout << "  500 opens in " << seconds << " s; resident after 20: " << after20 << " MiB, after 500: " << last
              << " MiB\n";
    ASSERT_GT(after20, 0.0);
    EXPECT_LE(last, 1.10 * after20) << "the viewer's memory grew over the opens";
    // On a CUDA backend (auto on a machine with a GPU) the GPU's memory in use too (issue 63).
    if (!opens[500]["gpu_mib"].is_null()) {
        const double gpu20 = opens[20].value("gpu_mib", 0.0), gpu500 = opens[500].value("gpu_mib", 0.0);
        std::cout << "  GPU memory in use after 20: " << gpu20 << " MiB, after 500: " << gpu500 << " MiB\n";
        ASSERT_GT(gpu20, 0.0);
        EXPECT_LE(gpu500, 1.10 * gpu20) << "the GPU's memory grew over the opens";
    }
}

// A sticky CUDA error in the viewer (the test-only SPECVIEW_TEST_GPU_FAULT=1 makes the first GPU run write far
// outside its buffer): the viewer says on screen that the GPU stopped working, switches to the CPU backend, shows
// that picture and goes on; later changes run on the CPU. On every GPU backend.
TEST_F(Script, ALostGpuContextIsAMessageAndTheViewerGoesOnOnTheCpu) {
    if (!gpu::probe_device(0).available) GTEST_SKIP() << "no GPU: " << gpu::probe_device(0).why_unavailable;
    for (const char* backend : {"cufft", "custom-fast", "custom"}) {
        const std::string shot = dir.file(std::string("shot-") + backend + ".png");
        setenv("SPECVIEW_TEST_GPU_FAULT", "1", 1);
        const int rc = run_script("wait-ready\nwait 2\nscreenshot " + shot + "\nset colormap magma\nwait-ready\n",
                                  {"--backend", backend, grating(64, 3, 2)});
        unsetenv("SPECVIEW_TEST_GPU_FAULT");
        ASSERT_EQ(rc, 0) << backend << ": " << read("out.txt");
        const Layout l = layout(shot);
        std::string all;  // (what the status line and the rest said, where it fails)
        for (const auto& line : l.lines) all += "\n  " + line;
        EXPECT_NE(l.line("error ").find("the GPU stopped working"), std::string::npos)
            << backend << ": " << l.line("error ") << "; the layout:" << all << "\nout.txt: " << read("out.txt");
        EXPECT_NE(l.line("error ").find("switched to the CPU backend"), std::string::npos) << l.line("error ");
        const nlohmann::json r = report();
        EXPECT_EQ(r.value("backend", ""), "CPU (FFTW)") << backend << ": " << r;
        EXPECT_EQ(image_size(), (std::vector<int>{64, 64})) << r;
        const auto c = changes_of(r, "set colormap magma");
        ASSERT_EQ(c.size(), 1u) << r;
        EXPECT_TRUE(c[0]["ready_ms"].is_number()) << "a change after the loss arrives: " << r;
    }
}

// A decoder process that crashes or hangs on a file costs that process: the viewer says so on screen, keeps
// rendering and keeps the image it had (the decoders' self-test files, SPECVIEW_DECODER_SELFTEST=1).
TEST_F(Script, ADecoderCrashIsAMessageAndTheViewerGoesOn) {
    const std::string crash = dir.file("crash.png");
    const std::string body = "SPECVIEW-SELFTEST:crash";
    fixtures::write_file(crash, std::vector<unsigned char>(body.begin(), body.end()));
    const std::string shot = dir.file("shot.png");
    setenv("SPECVIEW_DECODER_SELFTEST", "1", 1);
    const int rc = run_script("open " + crash + "\nwait 20\nscreenshot " + shot + "\nset colormap magma\nwait-ready\n",
                              {grating(64, 3, 2)});
    unsetenv("SPECVIEW_DECODER_SELFTEST");
    ASSERT_EQ(rc, 0) << read("out.txt");
    const Layout l = layout(shot);
    EXPECT_NE(l.line("error ").find("crashed"), std::string::npos) << "on-screen message: " << l.line("error ");
    EXPECT_NE(l.line("error ").find("crash.png"), std::string::npos) << l.line("error ");
    EXPECT_EQ(image_size(), (std::vector<int>{64, 64})) << read("r.json");
}

// --max-memory in the viewer: an image whose need exceeds it is refused before decoding, on screen, naming the
// need and the limit; a small one opens.
TEST_F(Script, MaxMemoryRefusesAnImageOnScreen) {
    const std::string big = dir.file("big.png");
    fixtures::write_file(big, fixtures::png(fixtures::pattern(2048, 2048, 1), 8));
    const std::string shot = dir.file("shot.png");
    ASSERT_EQ(
        run_script("open " + big + "\nwait 20\nscreenshot " + shot + "\n", {"--max-memory", "60M", grating(64, 3, 2)}),
        0)
        << read("out.txt");
    const Layout l = layout(shot);
    EXPECT_NE(l.line("error ").find("needs about"), std::string::npos) << l.line("error ");
    EXPECT_NE(l.line("error ").find("allowed (--max-memory)"), std::string::npos) << l.line("error ");
    EXPECT_EQ(image_size(), (std::vector<int>{64, 64})) << read("r.json");
}

TEST_F(Script, ABadLineStopsWithExit2NamingTheLine) {
    EXPECT_EQ(run_script("set colormap inferno\nset threads-per-block 300\n", {grating(32, 1, 1)}), 2);
    const std::string out = read("out.txt");
    EXPECT_NE(out.find("line 2"), std::string::npos) << out;
    EXPECT_NE(out.find("threads-per-block"), std::string::npos) << out;
    EXPECT_EQ(run_script("fly away\n", {}), 2);
    EXPECT_NE(read("out.txt").find("line 1: unknown action 'fly'"), std::string::npos) << read("out.txt");
}

TEST_F(Script, AnUnreadableImageIsAMessageAndTheScriptGoesOn) {
    const std::string bad = dir.file("broken.png");
    fixtures::write_file(bad, {0x89, 'P', 'N', 'G', 0, 0});
    const std::string shot = dir.file("shot.png");
    ASSERT_EQ(run_script("open " + bad + "\nwait-ready\nscreenshot " + shot + "\nset colormap viridis\nwait-ready\n",
                         {grating(64, 3, 2)}),
              0)
        << read("out.txt");
    const Layout l = layout(shot);
    EXPECT_TRUE(l.has("error ")) << "the message stays on screen";
    EXPECT_NE(l.line("error ").find("broken.png"), std::string::npos);
    EXPECT_EQ(image_size(), (std::vector<int>{64, 64})) << "the previous image stays";
}

// What the views show is the engine's picture, texel for texel, on every backend this machine has: the worker's
// hand-over (a device slot copied into the GL texture through interop, or a host upload) loses nothing.
TEST_F(Script, TheSpectrumTextureEqualsTheHeadlessPictureOnEveryBackend) {
    fixtures::Pixels p = fixtures::pattern(300, 200, 3);
    const std::string img = dir.file("p.png");
    fixtures::write_file(img, fixtures::png(p, 8));
    std::vector<std::string> backends{"cpu"};
    if (gpu::probe_device(0).available) backends = {"cpu", "custom", "cufft", "custom-fast"};
    // GL (issue 62): its shaders write the picture into a texture of the viewer's share group (a 4.3 context: Mesa's
    // here, NVIDIA's on the GPU machine), copied on the GPU into the view's; the headless picture is the same shaders'.
    if (list_devices_lines().gl_usable) backends.push_back("gl");
    for (const std::string& b : backends) {
        const std::string tex = dir.file("tex-" + b + ".png"), ref = dir.file("ref-" + b + ".png");
        ASSERT_EQ(run_script("set backend " + b + "\nset window hann\nset colormap viridis\nwait-ready\nsave-texture " +
                                 tex + "\nscreenshot " + dir.file("shot.png") + "\n",
                             {img}),
                  0)
            << b << ": " << read("out.txt");
        const std::string cmd = std::string("'") + SPECVIEW_EXE + "' --headless '" + img + "' -o '" + ref +
                                "' --backend " + b + " --window hann --colormap viridis >/dev/null 2>&1";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        const Image a = load_image(tex), r = load_image(ref);
        ASSERT_EQ(a.width, r.width);
        ASSERT_EQ(a.height, r.height);
        ASSERT_EQ(a.channels, 4);  // the texture's texels, RGBA
        ASSERT_EQ(r.channels, 3);  // the headless PNG: RGB, no unused alpha
        std::size_t bad = 0;
        for (std::size_t i = 0; i < std::size_t(a.width) * a.height; ++i)
            for (int c = 0; c < 4; ++c) bad += a.sample(i * 4 + c) != (c < 3 ? r.sample(i * 3 + c) : 1.0f);
        EXPECT_EQ(bad, 0u) << b << ": texture values differing from the headless picture";
        const Layout l = layout(dir.file("shot.png"));
        if (b == "gl") {
            EXPECT_TRUE(l.has("gl-picture texture")) << l.line("gl-picture");
        } else if (b != "cpu") {
            EXPECT_NE(l.line("backend ").find("on "), std::string::npos) << l.line("backend ");
        }
        std::printf("[ texture  ] %s: %s, %dx%d identical\n", b.c_str(), l.line("platform ").c_str(), a.width,
                    a.height);
    }
}

// The image view's texture holds the image's pixels exactly (alpha 255), however it was uploaded: through CUDA
// interop on the GPU machine (in bands of 64 MiB a frame), glTexSubImage2D elsewhere (16 MiB); 16-bit samples
// shown as their 8-bit rounding.
TEST_F(Script, TheImageTextureHoldsTheImagesPixels) {
    struct Case {
        int w, h, channels, bits;
    };
    // The large one is over one 64 MiB band (two through CUDA, five through GL).
    for (const Case c : {Case{300, 200, 3, 8}, Case{517, 389, 1, 16}, Case{4100, 4097, 1, 8}}) {
        fixtures::Pixels p = fixtures::pattern(c.w, c.h, c.channels);
        const std::string img = dir.file("p.png"), tex = dir.file("image.png");
        fixtures::write_file(img, fixtures::png(p, c.bits));
        ASSERT_EQ(run_script("wait-ready\nsave-texture " + tex + " image\n", {img}), 0) << read("out.txt");
        const Image a = load_image(tex), r = load_image(img);
        ASSERT_EQ(a.width, c.w);
        ASSERT_EQ(a.height, c.h);
        ASSERT_EQ(a.channels, 4);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < std::size_t(c.w) * c.h; ++i)
            for (int k = 0; k < 4; ++k) {
                const float want =
                    k == 3 ? 1.0f : r.sample(i * std::size_t(c.channels) + std::size_t(c.channels == 1 ? 0 : k));
                bad += std::lround(a.sample(i * 4 + std::size_t(k)) * 255.0f) != std::lround(want * 255.0f);
            }
        EXPECT_EQ(bad, 0u) << c.w << "x" << c.h << " " << c.bits << "-bit: texels differing from the image";
    }
}

}  // namespace
}  // namespace specview::test

namespace specview::test {
namespace {
// Issue 60: a slider dragged over a big image on the CPU shows a live preview of each change (every fx-th bin of
// its spectrum) before its full picture, and the last change's full picture still comes. Every change of the
// report has preview_ms beside ready_ms; a preview is never later than its own picture.
TEST_F(Script, DraggingASliderOnTheCpuShowsAPreviewBeforeThePicture) {
    const int w = 3000, h = 2000;  // a 4096 x 2048 plane: folds 4 x 2, a 1024 x 1024 preview
    std::vector<double> v(std::size_t(w) * h);
    std::mt19937 gen(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (double& x : v) x = u(gen);
    const std::string img = dir.file("noise.npy");
    fixtures::write_file(img, fixtures::npy("<f4", {std::uint64_t(h), std::uint64_t(w)}, false, v));
    ASSERT_EQ(run_script("set window tukey\nwait-ready\ndrag tukey-alpha 0.1 0.9 12\nwait-ready\n",
                         {img, "--backend", "cpu"}),
              0)
        << read("out.txt");
    const nlohmann::json r = report();
    const auto drag = changes_of(r, "drag tukey-alpha 0.1 0.9 12");
    ASSERT_EQ(drag.size(), 12u) << r;
    int previews = 0;
    for (const auto& c : drag) {
        ASSERT_TRUE(c.contains("preview_ms")) << c;
        if (!c["preview_ms"].is_number()) continue;
        ++previews;
        EXPECT_GT(c["preview_ms"].get<double>(), 0.0) << c;
        if (c["ready_ms"].is_number()) {
            EXPECT_LT(c["preview_ms"].get<double>(), c["ready_ms"].get<double>()) << c;
        }
    }
    EXPECT_GE(previews, 1) << r;
    // The last step was posted within the burst of the others: previewed, then run to the end.
    EXPECT_TRUE(drag.back()["preview_ms"].is_number()) << drag.back();
    EXPECT_TRUE(drag.back()["ready_ms"].is_number()) << drag.back();
    EXPECT_EQ(r.value("backend", ""), "CPU (FFTW)") << r;
}
// Seed 001's comparison, live (issue 62): `compare` (the Timings panel's button) runs the image through every backend
// there is; each row is the CPU's spectrum within float rounding and its picture within a level, or says why it
// could not run; the CUDA backends are there exactly where a GPU is.
TEST_F(Script, CompareRunsEveryBackendAgainstTheCpus) {
    fixtures::Pixels p = fixtures::pattern(96, 64, 3);
    const std::string img = dir.file("p.png");
    fixtures::write_file(img, fixtures::png(p, 8));
    ASSERT_EQ(run_script("wait-ready\ncompare\nwait-ready\nquit\n", {img}), 0) << read("out.txt");
    const nlohmann::json r = report();
    ASSERT_TRUE(r.contains("comparison")) << r.dump();
    const auto& rows = r["comparison"];
    const bool gpu = gpu::probe_device(0).available;
    ASSERT_EQ(rows.size(), gpu ? 6u : 3u) << rows.dump();
    EXPECT_EQ(rows[0].value("backend", ""), "cpu");
    EXPECT_EQ(rows[0].value("error", "x"), "");
    for (const auto& row : rows) {
        const std::string b = row.value("backend", "");
        if (!row.value("error", "").empty()) {
            EXPECT_TRUE(b == "opencl" || b == "gl") << "only OpenCL and GL may be missing: " << row.dump();
            continue;
        }
        EXPECT_GT(row.value("ms", 0.0), 0.0) << row.dump();
        EXPECT_LT(row.value("max_rel_diff", 1.0), 1e-5) << row.dump();
        EXPECT_LE(row.value("max_level_diff", 256), 1) << row.dump();
    }
}

// A stack as one volume (issue 61, --volume and the script's volume actions): the six views, the spectrum's kx-ky slice
// through a plane wave's kz showing its peak at (kx, ky) from the centre; each request in the report's
// "volume_changes", slices and projections making pictures only, a window transforming again; the classroom's steps.
// The six views zoom and pan (issue 61): the script's zoom F and pan DX DY act on the volume's three spectrum views (the
// wheel and a right drag on any one), the peak stays where its bin is drawn, fit shows the whole slices again.
TEST_F(Script, TheVolumesSpectrumViewsZoomAroundTheirCentreAndFitBack) {
    const int W = 16, H = 16, D = 4, kx = 1, ky = -1, kz = 1;  // (its bin inside the middle quarter)
    fixtures::TiffOptions o;
    o.sample = fixtures::TiffSample::U16;
    const std::string img = dir.file("v.tif"), a = dir.file("a.png"), b = dir.file("b.png"), c = dir.file("c.png");
    fixtures::write_file(img, fixtures::tiff(W, H, 1, fixtures::plane_wave_pages(W, H, D, kx, ky, kz), o));
    ASSERT_EQ(run_script("set volume true\nwait-ready\nslice z 1\nwait-ready\nwait 2\nscreenshot " + a +
                             "\nzoom 4\nwait 2\nscreenshot " + b + "\npan 10 0\nfit\nwait 2\nscreenshot " + c + "\nquit\n",
                         {img, "--pad", "none", "--level", "mean", "--window", "none", "--colormap", "gray"}),
              0)
        << read("out.txt");
    const Layout la = layout(a), lb = layout(b), lc = layout(c);
    ASSERT_EQ(la.rects.count("volume-spectrum-kxky"), 1u);
    ASSERT_EQ(lb.rects.count("volume-spectrum-kxky"), 1u);
    const std::vector<float> q = la.rects.at("volume-spectrum-kxky"), z = lb.rects.at("volume-spectrum-kxky");
    EXPECT_NEAR(z[2] - z[0], 4 * (q[2] - q[0]), 1.0f) << "the slice drawn 4x as wide";
    EXPECT_NEAR((z[0] + z[2]) / 2, (q[0] + q[2]) / 2, 1.0f) << "zoomed around the view's centre";
    EXPECT_EQ(lb.line("volume-zoom volume-spectrum-kxky"), "volume-zoom volume-spectrum-kxky 4 0.500 0.500");
    EXPECT_EQ(lb.line("volume-zoom volume-image-xy"), "volume-zoom volume-image-xy 1 0.500 0.500") << "images unzoomed";
    // The peak at bin (W/2 + kx, H/2 + ky) is drawn where the zoomed slice puts it.
    const Image pic = load_image(b);
    const int px = int(z[0] + (W / 2 + kx + 0.5f) * (z[2] - z[0]) / W), py = int(z[1] + (H / 2 + ky + 0.5f) * (z[3] - z[1]) / H);
    EXPECT_GT(pic.at(px, py, 0) * 255.0f, 200.0f) << px << "," << py;
    EXPECT_EQ(lc.line("volume-zoom volume-spectrum-kxky"), "volume-zoom volume-spectrum-kxky 1 0.500 0.500") << "fit";
    ASSERT_EQ(lc.rects.count("volume-spectrum-kxky"), 1u);
    EXPECT_NEAR(lc.rects.at("volume-spectrum-kxky")[2] - lc.rects.at("volume-spectrum-kxky")[0], q[2] - q[0], 1.0f);
}

TEST_F(Script, AVolumeShowsSixLinkedViewsAndTheReportTimesEachRequest) {
    const int W = 16, H = 8, D = 6, kx = 3, ky = -2, kz = 2;
    const std::vector<std::vector<double>> pages = fixtures::plane_wave_pages(W, H, D, kx, ky, kz);
    fixtures::TiffOptions o;
    o.sample = fixtures::TiffSample::U16;
    const std::string img = dir.file("v.tif"), shot = dir.file("v.png"), step_shot = dir.file("step.png");
    fixtures::write_file(img, fixtures::tiff(W, H, 1, pages, o));
    ASSERT_EQ(run_script("set volume true\nwait-ready\nslice z 2\nwait-ready\nwait 2\nscreenshot " + shot +
                             "\nimage-slice x 3\nwait-ready\nprojection sum\nwait-ready\nset window hann\nwait-ready\n"
                             "volume-step 4\nwait-ready\nwait 2\nscreenshot " + step_shot +
                             "\nvolume-step off\nprojection none\nset volume false\nwait-ready\nquit\n",
                         {img, "--pad", "none", "--level", "mean", "--window", "none", "--colormap", "gray"}),
              0)
        << read("out.txt");
    const Layout l = layout(shot);
    // FFTW without a GPU; with one the default (auto: custom-fast, whose 3D FFT takes powers of two) on cuFFT
    const std::string vline = l.line("volume ");
    EXPECT_TRUE(vline == "volume 16x8x6 CPU (FFTW 3D)" || vline.rfind("volume 16x8x6 cuFFT R2C 3D", 0) == 0) << vline;
    for (const char* v : {"volume-image-xy", "volume-image-xz", "volume-image-yz", "volume-spectrum-kxky",
                          "volume-spectrum-kxkz", "volume-spectrum-kykz"})
        EXPECT_EQ(l.rects.count(v), 1u) << v;
    EXPECT_TRUE(l.has("volume-shell bins ")) << "no shell power spectrum";
    {  // the Timings panel times the volume's stages (the last transform's, kept by the view-only slice move)
        double dec = -1, fft = -1, shell = -1, pics = -1;
        ASSERT_EQ(std::sscanf(l.line("volume-timings ").c_str(), "volume-timings decode %lf fft %lf shell %lf pictures %lf",
                              &dec, &fft, &shell, &pics),
                  4)
            << l.line("volume-timings ");
        EXPECT_GT(dec, 0.0);
        EXPECT_GT(fft, 0.0);
        EXPECT_GE(shell, 0.0);
        EXPECT_GT(pics, 0.0);
    }
    {  // the spectrum views' one range as a colour bar, in their colormap and unit
        float lo = 0, hi = 0;
        char cm[32] = "", unit[32] = "";
        ASSERT_EQ(std::sscanf(l.line("volume-colorbar ").c_str(), "volume-colorbar %f %f %31s %31s", &lo, &hi, cm, unit), 4)
            << l.line("volume-colorbar ");
        EXPECT_LT(lo, hi);
        EXPECT_STREQ(cm, "gray");
        EXPECT_STREQ(unit, "log(1+|F|)");
        // The Display panel's colour bar is that range too (not frame 1's 2D spectrum's, which is not shown).
        float dlo = 0, dhi = 0;
        char what[32] = "";
        ASSERT_EQ(std::sscanf(l.line("display-colorbar ").c_str(), "display-colorbar %f %f %31s", &dlo, &dhi, what), 3)
            << l.line("display-colorbar ");
        EXPECT_STREQ(what, "volume");
        EXPECT_FLOAT_EQ(dlo, lo);
        EXPECT_FLOAT_EQ(dhi, hi);
    }
    EXPECT_EQ(l.rects.count("volume_shell_plot"), 1u);
    ASSERT_EQ(l.rects.count("volume-spectrum-kxky"), 1u);
    const std::vector<float> q = l.rects.at("volume-spectrum-kxky");
    const Image pic = load_image(shot);
    auto level = [&](int bx, int by) {  // the red level at bin (bx, by)'s centre
        const int x = int(q[0] + (bx + 0.5f) * (q[2] - q[0]) / W), y = int(q[1] + (by + 0.5f) * (q[3] - q[1]) / H);
        return pic.at(x, y, 0) * 255.0f;
    };
    EXPECT_GT(level(W / 2 + kx, H / 2 + ky), 200.0f);  // the peak, shifted: DC at (W/2, H/2)
    EXPECT_LT(level(2, 6), 60.0f);                     // elsewhere in that slice: nothing
    const nlohmann::json r = report();
    const auto& vc = r.value("volume_changes", nlohmann::json::array());
    std::vector<std::string> actions;
    for (const auto& c : vc) actions.push_back(c.value("action", ""));
    ASSERT_GE(vc.size(), 5u) << r.dump();
    EXPECT_EQ(actions[0], "set volume true");
    EXPECT_TRUE(vc[0].value("transformed", false));
    EXPECT_GT(vc[0].value("decode_ms", 0.0), 0.0);
    for (const auto& c : vc) {
        const std::string a = c.value("action", "");
        if (a == "slice z 2" || a == "projection sum" || a == "set window hann") {
            EXPECT_TRUE(c["ready_ms"].is_number()) << a;
            EXPECT_EQ(c.value("transformed", true), a == "set window hann") << a;
        }
    }
    EXPECT_NE(std::find(actions.begin(), actions.end(), "set window hann"), actions.end()) << r.dump();
    // The hidden 2D picture is not made beside the volume's transform, but once the volume mode is left.
    std::vector<std::string> runs;
    for (const auto& c : r.value("changes", nlohmann::json::array())) runs.push_back(c.value("action", ""));
    EXPECT_EQ(std::find(runs.begin(), runs.end(), "set window hann"), runs.end()) << r.dump();
    EXPECT_NE(std::find(runs.begin(), runs.end(), "set volume false"), runs.end()) << r.dump();
    // Classroom in 3D: step 4 lays the volume out with z in the rows (W x H x D), said in its caption.
    const Layout ls = layout(step_shot);
    EXPECT_EQ(ls.line("volume-step "), "volume-step 4: transpose z to the rows");
    EXPECT_NE(std::find(actions.begin(), actions.end(), "volume-step 4"), actions.end()) << r.dump();
}

}  // namespace
}  // namespace specview::test
