// The GLFW window with an OpenGL 3.3 core context (glad) and Dear ImGui on it. Construction either succeeds
// completely or throws with the reason (no display, no GL 3.3, ...); the destructor shuts down in order.
#pragma once

#include <string>

struct GLFWwindow;

namespace specview::ui {

class Window {
public:
    Window(int width, int height, const std::string& title);
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    GLFWwindow* handle() const { return window_; }
    bool should_close() const;
    void begin_frame();  // poll events, start an ImGui frame
    void end_frame();    // render ImGui into the back buffer
    void swap();         // present it
    float content_scale() const { return scale_; }
    // The most recent GLFW error (errors are also written to stderr as they happen).
    static const std::string& last_error();
    // Applies the UI scale (HiDPI content scale x presentation factor) and theme.
    void apply_style(float presentation_factor, bool high_contrast);

private:
    GLFWwindow* window_ = nullptr;
    float scale_ = 1.0f;
    float applied_factor_ = 0.0f;
    bool applied_contrast_ = false;
    bool imgui_ = false;
};

}  // namespace specview::ui
