#include "ui/platform/window.h"

#include <imgui.h>

#include <stdexcept>

namespace specview::ui {

#ifdef SPECVIEW_HAS_GLFW
std::unique_ptr<Window> open_glfw_window(int width, int height, const std::string& title);
#endif
#ifdef SPECVIEW_HAS_EGL
std::unique_ptr<Window> open_egl_window(int width, int height);
#endif

std::shared_ptr<gpu::GlSharedContext> Window::shared_context(std::string* why) {
    if (!shared_tried_) {
        shared_tried_ = true;
        if (gl_version_ < 43)
            shared_why_ = "the viewer's OpenGL context is " + std::to_string(gl_version_ / 10) + "." +
                          std::to_string(gl_version_ % 10) + " (compute shaders need 4.3)";
        else
            shared_ = make_shared_context(&shared_why_);
    }
    if (why) *why = shared_why_;
    return shared_;
}

std::unique_ptr<Window> open_window(int width, int height, const std::string& title, bool offscreen) {
#ifdef SPECVIEW_HAS_EGL
    if (offscreen) return open_egl_window(width, height);
#endif
#ifdef SPECVIEW_HAS_GLFW
    if (!offscreen) return open_glfw_window(width, height, title);
#endif
#if defined(SPECVIEW_HAS_EGL) && !defined(SPECVIEW_HAS_GLFW)
    return open_egl_window(width, height);  // the only platform of this build
#else
    (void)width, (void)height, (void)title;
    throw std::runtime_error(offscreen ? "this build has no offscreen (EGL) platform"
                                       : "this build has no window platform (GLFW)");
#endif
}

void Window::apply_style(float factor, bool high_contrast) {
    if (factor == applied_factor_ && high_contrast == applied_contrast_) return;
    ImGuiStyle style;
    if (high_contrast) {
        ImGui::StyleColorsLight(&style);
        style.Colors[ImGuiCol_Text] = ImVec4(0, 0, 0, 1);
        style.Colors[ImGuiCol_WindowBg] = ImVec4(1, 1, 1, 1);
        style.Colors[ImGuiCol_ChildBg] = ImVec4(1, 1, 1, 1);
        style.Colors[ImGuiCol_Border] = ImVec4(0, 0, 0, 1);
        style.Colors[ImGuiCol_Header] = ImVec4(1.0f, 0.85f, 0.2f, 1);
        style.Colors[ImGuiCol_Button] = ImVec4(0.85f, 0.85f, 0.85f, 1);
        style.FrameBorderSize = 1.0f;
    } else {
        ImGui::StyleColorsDark(&style);
    }
    style.ScaleAllSizes(scale_ * factor);
    ImGui::GetStyle() = style;
    ImGui::GetIO().FontGlobalScale = scale_ * factor;
    applied_factor_ = factor;
    applied_contrast_ = high_contrast;
}

}  // namespace specview::ui
