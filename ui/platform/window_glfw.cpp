// The GLFW platform: a desktop window (or one on Xvfb) with a 4.3 core context (3.3 where the driver offers no more),
// vsync, HiDPI scale, drops; a hidden window sharing its context for the worker's GL engine.
// glad first: it provides the GL declarations GLFW would otherwise pull in.
#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cstdio>
#include <stdexcept>
#include <utility>

#include "ui/platform/window.h"

namespace specview::ui {
namespace {
std::string g_last_error;
bool g_quiet = false;  // a try that may fail (a 4.3 context where the driver offers 3.3): its error is not news

void on_glfw_error(int code, const char* text) {
    g_last_error = "GLFW error " + std::to_string(code) + ": " + (text ? text : "");
    if (!g_quiet) std::fprintf(stderr, "specview: %s\n", g_last_error.c_str());
}

class GlfwWindow : public Window {
public:
    GlfwWindow(int width, int height, const std::string& title) {
        glfwSetErrorCallback(on_glfw_error);
        if (!glfwInit())
            throw std::runtime_error("cannot open a window (" +
                                     (g_last_error.empty() ? std::string("no display?") : g_last_error) +
                                     "); run with --headless to write spectra without one, or --offscreen on a GPU");
        // 4.3 (compute shaders: the GL backend's picture straight into the textures) where the driver offers it.
        for (const int version : {43, 33}) {
            glfwDefaultWindowHints();
            glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, version / 10);
            glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, version % 10);
            glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
            glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
            glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
            g_quiet = version > 33;
            window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
            g_quiet = false;
            if (window_) break;
        }
        if (!window_) {
            glfwTerminate();
            throw std::runtime_error("cannot create an OpenGL 3.3 core window (" + g_last_error + ")");
        }
        glfwMakeContextCurrent(window_);
        const int loaded = gladLoadGL(glfwGetProcAddress);
        if (!loaded) {
            glfwDestroyWindow(window_);
            glfwTerminate();
            throw std::runtime_error("cannot load OpenGL 3.3 functions");
        }
        gl_version_ = GLAD_VERSION_MAJOR(loaded) * 10 + GLAD_VERSION_MINOR(loaded);
        glfwSwapInterval(1);  // vsync
        float sx = 1.0f, sy = 1.0f;
        glfwGetWindowContentScale(window_, &sx, &sy);
        scale_ = sx > 0 ? sx : 1.0f;
        glfwSetWindowUserPointer(window_, this);
        glfwSetDropCallback(window_, [](GLFWwindow* w, int count, const char** paths) {
            auto* self = static_cast<GlfwWindow*>(glfwGetWindowUserPointer(w));
            if (self && count > 0) self->drops_.emplace_back(paths[0]);  // the first file of a multi-file drop
        });

        IMGUI_CHECKVERSION();
        ImGui::CreateContext();
        ImGui::GetIO().IniFilename = nullptr;  // the layout is computed, nothing to persist
        ImGui_ImplGlfw_InitForOpenGL(window_, true);
        ImGui_ImplOpenGL3_Init("#version 330 core");
        imgui_ = true;
        apply_style(1.0f, false);
    }
    ~GlfwWindow() override {
        if (imgui_) {
            ImGui_ImplOpenGL3_Shutdown();
            ImGui_ImplGlfw_Shutdown();
            ImGui::DestroyContext();
        }
        if (hidden_) glfwDestroyWindow(hidden_);
        if (window_) glfwDestroyWindow(window_);
        glfwTerminate();
    }
    bool should_close() const override { return glfwWindowShouldClose(window_); }
    void begin_frame() override {
        glfwPollEvents();
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
    }
    void end_frame() override {
        ImGui::Render();
        int w = 0, h = 0;
        glfwGetFramebufferSize(window_, &w, &h);
        glViewport(0, 0, w, h);
        glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    }
    void swap() override { glfwSwapBuffers(window_); }
    void framebuffer_size(int* w, int* h) const override { glfwGetFramebufferSize(window_, w, h); }
    void window_size(int* w, int* h) const override { glfwGetWindowSize(window_, w, h); }
    std::vector<std::string> take_drops() override { return std::exchange(drops_, {}); }
    void bind_for_readback() override { glReadBuffer(GL_BACK); }
    std::string platform() const override { return "GLFW"; }

protected:
    // A hidden 1 x 1 window whose context shares the viewer's (GLFW makes windows on the main thread only; the worker
    // makes its context current on its own thread).
    std::shared_ptr<gpu::GlSharedContext> make_shared_context(std::string* why) override {
        glfwDefaultWindowHints();
        glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, gl_version_ / 10);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, gl_version_ % 10);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
        hidden_ = glfwCreateWindow(1, 1, "specview worker", nullptr, window_);
        glfwDefaultWindowHints();
        if (!hidden_) {
            *why = "no context sharing the window's (" + g_last_error + ")";
            return nullptr;
        }
        auto c = std::make_shared<gpu::GlSharedContext>();
        GLFWwindow* h = hidden_;
        c->make_current = [h] {
            if (glfwGetCurrentContext() != h) glfwMakeContextCurrent(h);
            return glfwGetCurrentContext() == h;
        };
        c->release = [] { glfwMakeContextCurrent(nullptr); };
        c->proc_address = [](const char* name) { return reinterpret_cast<void*>(glfwGetProcAddress(name)); };
        c->version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
        return c;
    }

private:
    GLFWwindow* window_ = nullptr;
    GLFWwindow* hidden_ = nullptr;
    bool imgui_ = false;
    std::vector<std::string> drops_;
};
}  // namespace

std::unique_ptr<Window> open_glfw_window(int width, int height, const std::string& title) {
    return std::make_unique<GlfwWindow>(width, height, title);
}

}  // namespace specview::ui
