// Where the viewer draws: an OpenGL 4.3 core context (3.3 where the driver offers no more; then no GL backend in the
// viewer's texture) with Dear ImGui on it, behind one interface. Two
// platforms: a GLFW window (a desktop, or Xvfb), and an offscreen EGL context on the GPU's own device with a
// framebuffer object standing in for the window (a machine without X: scripts, tests, screenshots). Opening
// either succeeds completely or throws with the reason; the destructor shuts down in order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpu/common/gl_context.h"

namespace specview::ui {

class Window {
public:
    virtual ~Window() = default;
    virtual bool should_close() const = 0;
    virtual void begin_frame() = 0;  // poll events, start an ImGui frame
    virtual void end_frame() = 0;    // render ImGui into the back buffer
    virtual void swap() = 0;         // present it (the offscreen platform has nothing to present)
    virtual void framebuffer_size(int* w, int* h) const = 0;
    // The window's size in screen coordinates (what --geometry gives and the viewer remembers).
    virtual void window_size(int* w, int* h) const { framebuffer_size(w, h); }
    // Files dropped on the window since the last call.
    virtual std::vector<std::string> take_drops() { return {}; }
    // Binds what the last frame was drawn into for glReadPixels.
    virtual void bind_for_readback() = 0;
    virtual std::string platform() const = 0;
    // The context's GL version (major * 10 + minor: 43, 45, 33).
    int gl_version() const { return gl_version_; }
    // A context sharing this one's objects, for the worker's thread (the GL backend writes its picture into a texture
    // this context draws): made once, on this (the main) thread; null where the context is older than 4.3 or none can
    // be made (`why` says). It lives as long as the window; the worker must stop using it before the window goes.
    std::shared_ptr<gpu::GlSharedContext> shared_context(std::string* why);
    // Applies the UI scale (HiDPI content scale x presentation factor) and theme.
    void apply_style(float presentation_factor, bool high_contrast);

protected:
    float scale_ = 1.0f;
    int gl_version_ = 33;
    // The platform's shared context (called once by shared_context(), on the main thread).
    virtual std::shared_ptr<gpu::GlSharedContext> make_shared_context(std::string* why) = 0;

private:
    std::shared_ptr<gpu::GlSharedContext> shared_;
    std::string shared_why_;
    bool shared_tried_ = false;
    float applied_factor_ = 0.0f;
    bool applied_contrast_ = false;
};

// `offscreen`: the EGL device platform (throws where it is not built in or finds no GPU); otherwise a GLFW
// window, or the EGL platform in a build without GLFW.
std::unique_ptr<Window> open_window(int width, int height, const std::string& title, bool offscreen);

}  // namespace specview::ui
