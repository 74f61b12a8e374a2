// Where the viewer draws: an OpenGL 3.3 core context with Dear ImGui on it, behind one interface. Two
// platforms: a GLFW window (a desktop, or Xvfb), and an offscreen EGL context on the GPU's own device with a
// framebuffer object standing in for the window (a machine without X: scripts, tests, screenshots). Opening
// either succeeds completely or throws with the reason; the destructor shuts down in order.
#pragma once

#include <memory>
#include <string>
#include <vector>

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
    // Applies the UI scale (HiDPI content scale x presentation factor) and theme.
    void apply_style(float presentation_factor, bool high_contrast);

protected:
    float scale_ = 1.0f;

private:
    float applied_factor_ = 0.0f;
    bool applied_contrast_ = false;
};

// `offscreen`: the EGL device platform (throws where it is not built in or finds no GPU); otherwise a GLFW
// window, or the EGL platform in a build without GLFW.
std::unique_ptr<Window> open_window(int width, int height, const std::string& title, bool offscreen);

}  // namespace specview::ui
