#include "ui/window.h"

// glad first: it provides the GL declarations GLFW would otherwise pull in.
#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cstdio>
#include <stdexcept>

namespace specview::ui {
namespace {
std::string g_last_error;

void on_glfw_error(int code, const char* text) {
    g_last_error = "GLFW error " + std::to_string(code) + ": " + (text ? text : "");
    std::fprintf(stderr, "specview: %s\n", g_last_error.c_str());
}
}  // namespace

const std::string& Window::last_error() { return g_last_error; }

Window::Window(int width, int height, const std::string& title) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit())
        throw std::runtime_error("cannot open a window (" + (g_last_error.empty() ? std::string("no display?") : g_last_error) +
                                 "); run with --headless to write spectra without one");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
    if (!window_) {
        glfwTerminate();
        throw std::runtime_error("cannot create an OpenGL 3.3 core window (" + g_last_error + ")");
    }
    glfwMakeContextCurrent(window_);
    if (!gladLoadGL(glfwGetProcAddress)) {
        glfwDestroyWindow(window_);
        glfwTerminate();
        throw std::runtime_error("cannot load OpenGL 3.3 functions");
    }
    glfwSwapInterval(1);  // vsync
    float sx = 1.0f, sy = 1.0f;
    glfwGetWindowContentScale(window_, &sx, &sy);
    scale_ = sx > 0 ? sx : 1.0f;

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is computed, nothing to persist
    ImGui_ImplGlfw_InitForOpenGL(window_, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    imgui_ = true;
    apply_style(1.0f, false);
}

Window::~Window() {
    if (imgui_) {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
    }
    if (window_) glfwDestroyWindow(window_);
    glfwTerminate();
}

bool Window::should_close() const { return glfwWindowShouldClose(window_); }

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

void Window::begin_frame() {
    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
}

void Window::end_frame() {
    ImGui::Render();
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    glViewport(0, 0, w, h);
    glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace specview::ui

namespace specview::ui {
void Window::swap() { glfwSwapBuffers(window_); }
}  // namespace specview::ui
