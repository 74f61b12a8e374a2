// The offscreen platform: a headless EGL context on the NVIDIA device (EGL_EXT_platform_device, no X, no
// surface) with a framebuffer object the size of a window. The viewer's frame loop, panels, worker and CUDA-GL
// interop run unchanged; there is no input and nothing to present, so it serves scripts, tests and
// screenshots on a GPU machine without a display.
#include <glad/gl.h>
// EGL after glad: eglext.h must not pull in another GL header.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "ui/platform/window.h"

namespace specview::ui {
namespace {

class EglWindow : public Window {
public:
    EglWindow(int width, int height) : w_(width), h_(height) {
        auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
        auto platform_display =
            reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
        EGLDeviceEXT devices[8];
        EGLint count = 0;
        if (!query_devices || !platform_display || !query_devices(8, devices, &count) || count == 0)
            throw std::runtime_error("offscreen: no EGL device (EGL_EXT_device_enumeration missing or no GPU driver)");
        for (EGLint i = 0; i < count && display_ == EGL_NO_DISPLAY; ++i) {
            EGLDisplay d = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
            EGLint major = 0, minor = 0;
            if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) display_ = d;
        }
        if (display_ == EGL_NO_DISPLAY)
            throw std::runtime_error("offscreen: no EGL device display could be initialised");
        const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
        EGLConfig cfg = nullptr;
        EGLint n = 0;
        if (!eglChooseConfig(display_, cfg_attr, &cfg, 1, &n) || n < 1) fail("no OpenGL-capable EGL config");
        if (!eglBindAPI(EGL_OPENGL_API)) fail("eglBindAPI(EGL_OPENGL_API) failed");
        // 4.3 (compute shaders: the GL backend's picture straight into the textures) where the driver offers it.
        for (const int version : {43, 33}) {
            const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION,           version / 10,
                                       EGL_CONTEXT_MINOR_VERSION,           version % 10,
                                       EGL_CONTEXT_OPENGL_PROFILE_MASK,     EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                       EGL_NONE};
            context_ = eglCreateContext(display_, cfg, EGL_NO_CONTEXT, ctx_attr);
            if (context_ != EGL_NO_CONTEXT) {
                std::copy(ctx_attr, ctx_attr + 7, ctx_attr_);
                break;
            }
        }
        config_ = cfg;
        if (context_ == EGL_NO_CONTEXT || !eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_))
            fail("cannot make a 3.3 core context current");
        const int loaded = gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress));
        if (!loaded) fail("cannot load OpenGL 3.3 functions");
        gl_version_ = GLAD_VERSION_MAJOR(loaded) * 10 + GLAD_VERSION_MINOR(loaded);
        if (const char* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER))) renderer_ = r;
        glGenTextures(1, &color_);
        glBindTexture(GL_TEXTURE_2D, color_);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w_, h_, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        glGenFramebuffers(1, &fbo_);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color_, 0);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) fail("framebuffer object incomplete");

        IMGUI_CHECKVERSION();
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(float(w_), float(h_));
        if (!ImGui_ImplOpenGL3_Init("#version 330 core")) fail("Dear ImGui's OpenGL 3 backend did not start");
        imgui_ = true;
        apply_style(1.0f, false);
        last_ = std::chrono::steady_clock::now();
    }
    ~EglWindow() override { shutdown(); }
    bool should_close() const override { return false; }
    void begin_frame() override {
        ImGuiIO& io = ImGui::GetIO();
        const auto now = std::chrono::steady_clock::now();
        io.DeltaTime = std::max(1e-4f, std::chrono::duration<float>(now - last_).count());
        last_ = now;
        io.DisplaySize = ImVec2(float(w_), float(h_));
        io.DisplayFramebufferScale = ImVec2(1, 1);
        ImGui_ImplOpenGL3_NewFrame();
        ImGui::NewFrame();
    }
    void end_frame() override {
        ImGui::Render();
        glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
        glViewport(0, 0, w_, h_);
        glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    }
    // No display to wait for: pace frames as a 60 Hz vsync would, so the GL work does not crowd the GPU
    // (a frame loop at thousands of frames a second time-slices the device against the CUDA work).
    void swap() override {
        glFlush();
        const auto period = std::chrono::microseconds(16667);
        next_ = std::max(next_ + period, std::chrono::steady_clock::now());
        std::this_thread::sleep_until(next_);
    }
    void framebuffer_size(int* w, int* h) const override {
        *w = w_;
        *h = h_;
    }
    void bind_for_readback() override {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
        glReadBuffer(GL_COLOR_ATTACHMENT0);
    }
    std::string platform() const override { return "EGL offscreen (" + renderer_ + ")"; }

protected:
    // A context sharing the viewer's on the same display, current without a surface on the worker's thread.
    std::shared_ptr<gpu::GlSharedContext> make_shared_context(std::string* why) override {
        shared_ = eglCreateContext(display_, config_, context_, ctx_attr_);
        if (shared_ == EGL_NO_CONTEXT) {
            *why = "no context sharing the viewer's (EGL error " + std::to_string(eglGetError()) + ")";
            return nullptr;
        }
        auto c = std::make_shared<gpu::GlSharedContext>();
        EGLDisplay d = display_;
        EGLContext x = shared_;
        // EGL's bound API is the calling thread's (OpenGL ES until it says otherwise): the worker's thread binds
        // OpenGL before it makes an OpenGL context current. (Mesa took it without; NVIDIA's EGL refused, and the GL
        // engine quietly used a context of its own, its pictures through the host: seen on the H100, 2026-12-07.)
        c->make_current = [d, x] {
            if (eglGetCurrentContext() == x) return true;
            return eglBindAPI(EGL_OPENGL_API) == EGL_TRUE &&
                   eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, x) == EGL_TRUE;
        };
        c->release = [d] {
            eglBindAPI(EGL_OPENGL_API);
            eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        };
        c->proc_address = [](const char* name) { return reinterpret_cast<void*>(eglGetProcAddress(name)); };
        c->version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
        return c;
    }

private:
    [[noreturn]] void fail(const std::string& what) {
        const EGLint e = eglGetError();
        shutdown();
        throw std::runtime_error("offscreen: " + what + " (EGL error 0x" + [&] {
            char b[16];
            std::snprintf(b, sizeof b, "%x", unsigned(e));
            return std::string(b);
        }() + ")");
    }
    void shutdown() {
        if (imgui_) {
            ImGui_ImplOpenGL3_Shutdown();
            ImGui::DestroyContext();
            imgui_ = false;
        }
        if (context_ != EGL_NO_CONTEXT) {
            if (fbo_) glDeleteFramebuffers(1, &fbo_);
            if (color_) glDeleteTextures(1, &color_);
            fbo_ = color_ = 0;
            eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            if (shared_ != EGL_NO_CONTEXT) eglDestroyContext(display_, shared_);
            shared_ = EGL_NO_CONTEXT;
            eglDestroyContext(display_, context_);
            context_ = EGL_NO_CONTEXT;
        }
        if (display_ != EGL_NO_DISPLAY) eglTerminate(display_);
        display_ = EGL_NO_DISPLAY;
    }
    int w_, h_;
    EGLDisplay display_ = EGL_NO_DISPLAY;
    EGLContext context_ = EGL_NO_CONTEXT;
    EGLContext shared_ = EGL_NO_CONTEXT;  // make_shared_context's
    EGLConfig config_ = nullptr;
    EGLint ctx_attr_[7] = {EGL_NONE};
    std::string renderer_ = "unknown renderer";
    GLuint fbo_ = 0, color_ = 0;
    bool imgui_ = false;
    std::chrono::steady_clock::time_point last_, next_;
};

}  // namespace

std::unique_ptr<Window> open_egl_window(int width, int height) { return std::make_unique<EglWindow>(width, height); }

}  // namespace specview::ui
