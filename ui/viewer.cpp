#include "ui/viewer.h"

#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/image.h"
#include "gpu/errors.h"
#include "ui/colorbar.h"
#include "ui/image_view.h"
#include "ui/screenshot.h"
#include "ui/viewer_state.h"
#include "ui/window.h"

namespace specview::ui {
namespace fs = std::filesystem;

// ---- State helpers shared by the panels ----

void show_error(ViewerState& st, const std::string& text) {
    st.message = text;
    st.message_is_error = true;
    std::fprintf(stderr, "specview: %s\n", text.c_str());
}

void show_info(ViewerState& st, const std::string& text) {
    st.message = text;
    st.message_is_error = false;
}

bool gpu_backend(const Settings& s) { return s.backend != Backend::Cpu; }

namespace {

std::string config_dir() {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    if (xdg && *xdg) return std::string(xdg) + "/specview";
    if (home && *home) return std::string(home) + "/.config/specview";
    return {};
}

void load_recent(ViewerState& st) {
    const std::string dir = config_dir();
    if (dir.empty()) return;
    std::ifstream in(dir + "/recent.txt");
    std::string line;
    while (std::getline(in, line) && st.recent.size() < 10)
        if (!line.empty()) st.recent.push_back(line);
}

void save_recent(const ViewerState& st) {
    const std::string dir = config_dir();
    if (dir.empty()) return;
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::ofstream out(dir + "/recent.txt", std::ios::trunc);
    for (const auto& r : st.recent) out << r << "\n";  // best effort: a read-only home just loses the list
}

// The image as the viewer shows it: gray replicated, HDR tone-mapped (v / (1 + v)), alpha kept.
std::vector<std::uint32_t> display_rgba(const Image& img) {
    std::vector<std::uint32_t> out(std::size_t(img.width) * img.height);
    auto q = [&](float v) {
        if (img.bit_depth == 32) v = v / (1.0f + v);
        return std::uint32_t(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f);
    };
    for (std::size_t i = 0; i < out.size(); ++i) {
        const float* p = &img.pixels[i * img.channels];
        std::uint32_t r, g, b, a = 255;
        if (img.channels >= 3) {
            r = q(p[0]);
            g = q(p[1]);
            b = q(p[2]);
            if (img.channels == 4) a = q(p[3]);
        } else {
            r = g = b = q(p[0]);
            if (img.channels == 2) a = q(p[1]);
        }
        out[i] = r | (g << 8) | (b << 16) | (a << 24);
    }
    return out;
}

}  // namespace

bool open_image(ViewerState& st, const std::string& path) {
    try {
        Image img = load_image(path);
        const std::vector<std::uint32_t> rgba = display_rgba(img);
        st.engine.set_image(std::move(img), path);
        const Image& im = st.engine.image();
        st.image_tex.ensure(im.width, im.height);
        st.image_tex.upload(rgba.data());
        st.image_path = path;
        st.image_view = ViewTransform{};
        st.spectrum_view = ViewTransform{};
        st.comparison = Comparison{};
        st.sweep = Sweep{};
        st.history.clear();
        st.dirty = true;
        std::error_code ec;
        const std::string abs = fs::absolute(path, ec).string();
        st.recent.erase(std::remove(st.recent.begin(), st.recent.end(), abs), st.recent.end());
        st.recent.push_front(abs);
        while (st.recent.size() > 10) st.recent.pop_back();
        save_recent(st);
        st.path_input = path;
        show_info(st, "opened " + path);
        return true;
    } catch (const std::exception& e) {
        show_error(st, std::string("cannot open ") + e.what() + (st.engine.has_image() ? " (the previous image stays)" : ""));
        return false;
    }
}

void run_pipeline(ViewerState& st) {
    st.dirty = false;
    if (!st.engine.has_image()) return;
    try {
        RunOptions o;
        o.want_spectrum = true;  // the cursor readout shows the complex value under the cursor
        Frame f;
        int w = 0, h = 0;
        st.engine.output_size(st.settings, &w, &h);
        const bool resized = st.spectrum_tex.ensure(w, h);
#ifdef SPECVIEW_HAS_GL_INTEROP
        if (gpu_backend(st.settings) && st.interop_ok) {
            // The post kernel writes the texture itself; registered again only when its size changed.
            if (resized || !st.interop.registered()) st.interop.register_texture(st.spectrum_tex.id(), w, h);
            auto mapping = st.interop.map();
            o.want_rgba = false;
            o.surface = mapping.surface();
            f = st.engine.run(st.settings, o);
        } else
#endif
        {
            (void)resized;
            f = st.engine.run(st.settings, o);
            st.spectrum_tex.upload(f.rgba.data());
        }
        if (f.width != w || f.height != h)
            throw std::runtime_error("internal: picture is " + std::to_string(f.width) + "x" + std::to_string(f.height) +
                                     ", expected " + std::to_string(w) + "x" + std::to_string(h));
        st.frame = std::move(f);
        st.have_frame = true;
        st.history.push_back(float(st.frame.total_ms));
        if (st.history.size() > 240) st.history.erase(st.history.begin());
        if (st.message_is_error) st.message.clear();
    } catch (const std::exception& e) {
        show_error(st, e.what());
    }
}

namespace {

// Records where something was drawn, in framebuffer pixels, for the GUI tests.
void record(ViewerState& st, const std::string& what, ImVec2 a, ImVec2 b) {
    const ImVec2 s = ImGui::GetIO().DisplayFramebufferScale;
    char line[256];
    std::snprintf(line, sizeof line, "%s %.1f %.1f %.1f %.1f", what.c_str(), a.x * s.x, a.y * s.y, b.x * s.x, b.y * s.y);
    st.layout.push_back(line);
}

// Signed frequency of unshifted bin k of n: 0 .. ceil(n/2)-1, then negative.
int signed_bin(int k, int n) { return k < (n + 1) / 2 ? k : k - n; }

void draw_readout(ViewerState& st) {
    const Image& img = st.engine.image();
    if (st.image_hover.active && st.engine.has_image()) {
        const int x = st.image_hover.x, y = st.image_hover.y;
        ImGui::Text("image (%d, %d):", x, y);
        for (int c = 0; c < img.channels; ++c) {
            ImGui::SameLine();
            ImGui::Text("%s%.4f", c == 0 ? "" : " ", img.at(x, y, c));
        }
    } else {
        ImGui::TextDisabled("image: hover for pixel values");
    }
    const Frame& f = st.frame;
    if (!(st.spectrum_hover.active && st.have_frame)) {
        ImGui::TextDisabled("spectrum: hover for frequency, magnitude and phase");
        return;
    }
    const int x = st.spectrum_hover.x, y = st.spectrum_hover.y, W = f.width, H = f.height;
    const bool shifted = st.settings.view.shift;
    const int ux = shifted ? shift_source(x, W) : x, uy = shifted ? shift_source(y, H) : y;
    const std::size_t i = std::size_t(uy) * W + ux;
    if (i >= f.spectrum.size()) return;
    const std::complex<float> F = f.spectrum[i];
    const double mag = std::abs(F), ph = std::arg(F) * 180.0 / M_PI;
    if (st.settings.stop.kind != gpu::StopPoint::Kind::Done) {
        ImGui::Text("data at row %d, element %d: %.4g %+.4gi   |.| %.4g   phase %.1f deg", uy, ux, F.real(), F.imag(),
                    mag, ph);
        return;
    }
    const int kx = signed_bin(ux, W), ky = signed_bin(uy, H);
    const double u = double(kx) / W, v = double(ky) / H;
    ImGui::Text("spectrum bin (%d, %d): u = %+.4f, v = %+.4f cycles/pixel (%+d, %+d cycles per %dx%d)", kx, ky, u, v, kx,
                ky, W, H);
    ImGui::Text("radius %.4f cycles/pixel, angle %.1f deg   |F| %.5g (%.1f dB)   phase %.1f deg", std::hypot(u, v),
                std::atan2(v, u) * 180.0 / M_PI, mag, 20.0 * std::log10(std::max(mag, 1e-30)), ph);
}

void draw_views(ViewerState& st, ImVec2 avail) {
    const float readout_h = ImGui::GetTextLineHeightWithSpacing() * 3.2f;
    const float overlay_h = st.classroom.enabled ? std::max(avail.y * 0.42f, 260.0f * ImGui::GetIO().FontGlobalScale) : 0.0f;
    const float views_h = std::max(avail.y - readout_h - overlay_h, 50.0f);
    const bool stacked = views_h > avail.x * 0.9f;
    const float header_h = ImGui::GetFrameHeightWithSpacing();
    ImVec2 each = stacked ? ImVec2(avail.x, views_h / 2 - header_h) : ImVec2(avail.x / 2 - 4, views_h - header_h);
    each.y = std::max(each.y, 20.0f);

    auto view_header = [&](const char* title, ViewTransform& vt, const GlTexture& tex, const char* id) {
        ImGui::PushID(id);
        ImGui::TextUnformatted(title);
        ImGui::SameLine();
        if (ImGui::SmallButton("Fit")) vt.fit = true;
        ImGui::SameLine();
        if (ImGui::SmallButton("1:1")) {
            vt.fit = false;
            vt.zoom = 1.0f / ImGui::GetIO().DisplayFramebufferScale.x;
        }
        ImGui::SameLine();
        ImGui::Checkbox("sync", &st.sync_views);
        if (tex.valid()) {
            ImGui::SameLine();
            ImGui::TextDisabled("%dx%d", tex.width(), tex.height());
        }
        ImGui::PopID();
    };

    ImGui::BeginGroup();
    const char* spectrum_title = st.classroom.enabled ? "Data at this step" : "Spectrum";
    view_header(st.engine.has_image() ? fs::path(st.image_path).filename().string().c_str() : "Image", st.image_view,
                st.image_tex, "imgv");
    const DrawnImage a = draw_image_view("##image", st.image_tex, st.image_view, each, st.image_hover);
    record(st, "image_image", a.p0, a.p1);
    ImGui::EndGroup();
    if (!stacked) ImGui::SameLine();
    ImGui::BeginGroup();
    view_header(spectrum_title, st.spectrum_view, st.spectrum_tex, "specv");
    const DrawnImage b = draw_image_view("##spectrum", st.spectrum_tex, st.spectrum_view, each, st.spectrum_hover);
    record(st, "spectrum_image", b.p0, b.p1);
    ImGui::EndGroup();
    if (st.sync_views) {
        if (a.changed) sync_transform(st.image_view, st.image_tex.width(), st.image_tex.height(), st.spectrum_view,
                                      st.spectrum_tex.width(), st.spectrum_tex.height());
        else if (b.changed) sync_transform(st.spectrum_view, st.spectrum_tex.width(), st.spectrum_tex.height(),
                                           st.image_view, st.image_tex.width(), st.image_tex.height());
    }
    draw_readout(st);
    if (st.classroom.enabled) draw_classroom_overlay(st, ImVec2(avail.x, overlay_h));
}

struct DropQueue {
    std::vector<std::string> paths;
};

void on_drop(GLFWwindow* w, int count, const char** paths) {
    auto* q = static_cast<DropQueue*>(glfwGetWindowUserPointer(w));
    if (q && count > 0) q->paths.emplace_back(paths[0]);  // the first file of a multi-file drop
}

}  // namespace

int run_viewer(const ViewerLaunch& launch) {
    std::unique_ptr<Window> win;
    try {
        win = std::make_unique<Window>(1500, 920, "specview");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "specview: %s\n", e.what());
        return kExitUsage;
    }
    ViewerState st;
    st.settings = launch.settings;
    st.presentation = launch.presentation;
    st.classroom.enabled = launch.classroom;
    st.classroom.step = launch.classroom_step - 1;
    load_recent(st);
    st.assets_dir = find_assets_dir();
    if (!st.assets_dir.empty()) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(st.assets_dir, ec))
            if (has_image_extension(e.path().string())) st.samples.push_back(e.path().string());
        std::sort(st.samples.begin(), st.samples.end());
    }

    const gpu::DeviceInfo& dev = st.engine.device_info();
    st.gpu_ok = dev.available;
    st.gpu_why = dev.why_unavailable;
#ifdef SPECVIEW_HAS_GL_INTEROP
    if (st.gpu_ok) st.interop_ok = gpu::gl_interop_available(&st.interop_why);
    else st.interop_why = "no CUDA device";
    if (!st.interop_ok) {
        const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
        st.interop_why += std::string("; OpenGL renderer: ") + (renderer ? renderer : "unknown");
    }
#else
    st.interop_why = "built without CUDA-OpenGL interop (no GL headers at configure time)";
#endif

    if (!launch.images.empty()) {
        open_image(st, launch.images.front());
    } else {
        const std::string preferred = st.assets_dir + "/grating_16_8.png";
        if (std::find(st.samples.begin(), st.samples.end(), preferred) != st.samples.end()) open_image(st, preferred);
        else if (!st.samples.empty()) open_image(st, st.samples.front());
    }
    if (!st.gpu_ok && gpu_backend(st.settings)) {
        const std::string earlier = st.message_is_error ? "; " + st.message : "";
        show_error(st, "the " + name_of(st.settings.backend) + " backend needs a GPU (" + st.gpu_why + "); using the CPU" +
                           earlier);
        st.settings.backend = Backend::Cpu;
    }
    const std::string startup_message = st.message;
    const bool startup_error = st.message_is_error;

    DropQueue drops;
    glfwSetWindowUserPointer(win->handle(), &drops);
    glfwSetDropCallback(win->handle(), on_drop);

    int frames = 0;
    int rc = kExitOk;
    while (!win->should_close()) {
        win->begin_frame();
        win->apply_style(st.presentation ? 1.6f : 1.0f, st.presentation);
        st.layout.clear();
        for (const auto& p : drops.paths) open_image(st, p);
        drops.paths.clear();
        update_classroom(st);

        const ImGuiViewport* vp = ImGui::GetMainViewport();
        ImGui::SetNextWindowPos(vp->WorkPos);
        ImGui::SetNextWindowSize(vp->WorkSize);
        ImGui::Begin("specview", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                         ImGuiWindowFlags_NoBringToFrontOnFocus);
        const float panel_w = std::min(420.0f * ImGui::GetIO().FontGlobalScale, vp->WorkSize.x * 0.45f);
        ImGui::BeginChild("panels", ImVec2(panel_w, 0), true);
        draw_file_panel(st);
        draw_pipeline_panel(st);
        draw_display_panel(st);
        draw_classroom_panel(st);
        draw_timings_panel(st);
        draw_device_panel(st);
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginChild("main", ImVec2(0, 0), false);
        if (st.dirty) run_pipeline(st);  // before the views: a changed knob shows in this very frame
        if (!st.message.empty()) {
            ImGui::PushStyleColor(ImGuiCol_Text, st.message_is_error ? ImVec4(1.0f, 0.35f, 0.3f, 1) : ImVec4(0.6f, 0.9f, 0.6f, 1));
            ImGui::TextWrapped("%s", st.message.c_str());
            ImGui::PopStyleColor();
            ImGui::SameLine();
            if (ImGui::SmallButton("x")) st.message.clear();
            st.layout.push_back(std::string(st.message_is_error ? "error " : "info ") + st.message);
        }
        if (!st.engine.has_image()) ImGui::TextWrapped("No image: drop one on the window, or open one from the File panel.");
        draw_views(st, ImGui::GetContentRegionAvail());
        ImGui::EndChild();
        ImGui::End();

        // One step of a running sweep per frame: the window stays live while it measures.
        if (st.sweep.running) sweep_step(st);

        const ImGuiIO& io = ImGui::GetIO();
        if (st.classroom.enabled && !io.WantTextInput) classroom_keys(st);

        win->end_frame();
        ++frames;
        if (launch.classroom_walk) st.classroom.step++;  // clamped to the last step by update_classroom
        if (launch.frames > 0 && frames >= launch.frames) {
            if (!launch.screenshot.empty()) {
                int fw = 0, fh = 0;
                glfwGetFramebufferSize(win->handle(), &fw, &fh);
                try {
                    save_framebuffer_png(launch.screenshot, fw, fh);
                    st.layout.push_back("window " + std::to_string(fw) + " " + std::to_string(fh));
                    st.layout.push_back("backend " + st.frame.backend);
                    st.layout.push_back("frame " + std::to_string(st.frame.width) + " " + std::to_string(st.frame.height));
                    if (!startup_message.empty())
                        st.layout.push_back(std::string(startup_error ? "startup-error " : "startup-info ") + startup_message);
                    save_layout(launch.screenshot + ".txt", st.layout);
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "specview: screenshot: %s\n", e.what());
                    rc = kExitOutput;
                }
            }
            break;
        }
        win->swap();
    }
#ifdef SPECVIEW_HAS_GL_INTEROP
    st.interop.reset();  // before the GL context goes
#endif
    st.image_tex.release();
    st.spectrum_tex.release();
    return rc;
}

}  // namespace specview::ui
