// CUDA-OpenGL interop on a headless EGL context on the GPU (no window needed): the engine's post kernel
// writes the spectrum picture straight into a GL texture, and GL reads back exactly the engine's RGBA.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <gtest/gtest.h>

#include "app/engine/engine.h"
#include "gpu/interop/gl_interop.h"
#include "tests/support/gpu_test.h"
#include "tests/support/oracle.h"

namespace specview::test {
namespace {

// A GL 3.3 core context on the first EGL device that initialises, made current with no surface.
class EglContext {
public:
    EglContext() {
        auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
        auto platform_display =
            reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
        if (!query_devices || !platform_display) {
            why_ = "EGL device enumeration unavailable";
            return;
        }
        EGLDeviceEXT devices[8];
        EGLint n = 0;
        query_devices(8, devices, &n);
        for (EGLint i = 0; i < n && display_ == EGL_NO_DISPLAY; ++i) {
            EGLDisplay d = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
            EGLint major, minor;
            if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) display_ = d;
        }
        if (display_ == EGL_NO_DISPLAY) {
            why_ = "no EGL device display (" + std::to_string(n) + " devices)";
            return;
        }
        const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
        EGLConfig cfg;
        EGLint nc = 0;
        if (!eglChooseConfig(display_, cfg_attr, &cfg, 1, &nc) || nc < 1) {
            why_ = "no EGL config";
            return;
        }
        eglBindAPI(EGL_OPENGL_API);
        const EGLint ctx_attr[] = {
            EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
        context_ = eglCreateContext(display_, cfg, EGL_NO_CONTEXT, ctx_attr);
        if (context_ == EGL_NO_CONTEXT || !eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_)) {
            why_ = "cannot create or make current a GL 3.3 context";
            return;
        }
        ok_ = true;
    }
    ~EglContext() {
        if (context_ != EGL_NO_CONTEXT) {
            eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            eglDestroyContext(display_, context_);
        }
        if (display_ != EGL_NO_DISPLAY) eglTerminate(display_);
    }
    bool ok() const { return ok_; }
    const std::string& why() const { return why_; }

private:
    EGLDisplay display_ = EGL_NO_DISPLAY;
    EGLContext context_ = EGL_NO_CONTEXT;
    bool ok_ = false;
    std::string why_;
};

class Interop : public GpuTest {};

TEST_F(Interop, PostKernelWritesTheGlTextureTheEngineDescribes) {
    EglContext egl;
    if (!egl.ok()) GTEST_SKIP() << "no headless EGL context on the GPU: " << egl.why();
    std::printf("[ interop  ] GL_RENDERER %s\n", reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
    std::string why;
    ASSERT_TRUE(gpu::gl_interop_available(&why)) << why;

    Rng rng;
    Engine engine;
    for (auto [w, h] : {std::pair{640, 480}, std::pair{256, 256}}) {
        Image img = Image::from_floats(w, h, 1, rng.real(std::size_t(w) * h));
        engine.set_image(img, "random");
        for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast}) {
            Settings s;
            s.backend = b;
            s.view.colormap = Colormap::Inferno;
            const Frame host = engine.run(s);  // the picture in host memory, for reference

            GLuint tex = 0;
            glGenTextures(1, &tex);
            glBindTexture(GL_TEXTURE_2D, tex);
            glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, host.width, host.height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
            ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
            {
                gpu::GlInteropTexture interop;
                interop.register_texture(tex, host.width, host.height);
                interop.register_texture(tex, host.width, host.height);  // same size: kept, not re-registered
                ASSERT_TRUE(interop.registered());
                {
                    auto mapping = interop.map();
                    RunOptions o;
                    o.want_rgba = false;
                    o.surface = mapping.surface();
                    const Frame f = engine.run(s, o);
                    EXPECT_TRUE(f.rgba_on_surface);
                    EXPECT_TRUE(f.rgba.empty()) << "no host copy on the interop path";
                }
                std::vector<std::uint32_t> px(std::size_t(host.width) * host.height, 0xDEADBEEFu);
                glBindTexture(GL_TEXTURE_2D, tex);
                glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
                ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
                std::size_t bad = 0;
                for (std::size_t i = 0; i < px.size(); ++i) bad += px[i] != host.rgba[i];
                EXPECT_EQ(bad, 0u) << name_of(b) << " " << w << "x" << h << ": texels differing from the engine's RGBA";
            }
            glDeleteTextures(1, &tex);
        }
    }
}

// The viewer's path: the worker leaves the picture in a device slot; the viewer copies it into the texture
// (map, device-to-device copy, unmap on its own stream) and hands the slot back.
TEST_F(Interop, PictureSlotCopiedIntoTheTextureEqualsTheEnginesRgba) {
    EglContext egl;
    if (!egl.ok()) GTEST_SKIP() << "no headless EGL context on the GPU: " << egl.why();
    Rng rng;
    Engine engine;
    Image img = Image::from_floats(300, 200, 3, rng.real(std::size_t(300) * 200 * 3));
    engine.set_image(img, "random");
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast}) {
        Settings s;
        s.backend = b;
        s.window = Window::Hann;
        s.view.colormap = Colormap::Viridis;
        const Frame host = engine.run(s);
        GLuint tex = 0;
        glGenTextures(1, &tex);
        glBindTexture(GL_TEXTURE_2D, tex);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, host.width, host.height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        {
            gpu::GlInteropTexture interop;
            gpu::GlInteropCopier copier;
            interop.register_texture(tex, host.width, host.height);
            RunOptions o;
            o.want_rgba = false;
            o.picture_slot = 2;
            const Frame f = engine.run(s, o);
            ASSERT_NE(f.device_rgba, nullptr);
            const gpu::GlInteropCopier::Target target{&interop, f.device_rgba, f.width, f.height,
                                                      f.slot_consumed_event};
            copier.copy(&target, 1);
            copier.wait();
            EXPECT_TRUE(copier.done());
            std::vector<std::uint32_t> px(std::size_t(host.width) * host.height, 0xDEADBEEFu);
            glBindTexture(GL_TEXTURE_2D, tex);
            glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
            ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
            EXPECT_EQ(px, host.rgba) << name_of(b);
            // The next run into the slot waits for the copy (the consumed event) on the device: still right.
            const Frame g = engine.run(s, o);
            EXPECT_EQ(g.device_rgba, f.device_rgba);
            // Two textures in one copy (one map): both hold the picture.
            GLuint tex2 = 0;
            glGenTextures(1, &tex2);
            glBindTexture(GL_TEXTURE_2D, tex2);
            glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, host.width, host.height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
            {
                gpu::GlInteropTexture interop2;
                interop2.register_texture(tex2, host.width, host.height);
                std::vector<std::uint32_t> blank(std::size_t(host.width) * host.height, 0x01020304u);
                glBindTexture(GL_TEXTURE_2D, tex);
                glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, host.width, host.height, GL_RGBA, GL_UNSIGNED_BYTE,
                                blank.data());
                glFinish();
                const gpu::GlInteropCopier::Target both[2] = {
                    {&interop, g.device_rgba, g.width, g.height, 0},
                    {&interop2, g.device_rgba, g.width, g.height, g.slot_consumed_event}};
                copier.copy(both, 2);
                copier.wait();
                for (GLuint t : {tex, tex2}) {
                    std::vector<std::uint32_t> got(blank.size(), 0xDEADBEEFu);
                    glBindTexture(GL_TEXTURE_2D, t);
                    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, got.data());
                    EXPECT_EQ(got, host.rgba)
                        << name_of(b) << ", texture " << (t == tex ? 1 : 2) << " of a copy into two";
                }
                gpu::GlInteropCopier::Split split;
                EXPECT_TRUE(copier.last_split(&split));
                EXPECT_GE(split.copy_ms, 0.0);
            }
            glDeleteTextures(1, &tex2);
        }
        glDeleteTextures(1, &tex);
    }
}

}  // namespace
}  // namespace specview::test
