// The window as a PNG (for tests and the README), and the layout written next to it.
#pragma once

#include <string>
#include <vector>

namespace specview::ui {

class GlTexture;

// Reads what the window's last frame was drawn into (call after rendering and Window::bind_for_readback, before
// swapping) and writes a PNG, top row first.
void save_framebuffer_png(const std::string& path, int width, int height);
// The texture's texels exactly (RGBA8, its first row first), e.g. the spectrum picture the views sample.
void save_texture_png(const std::string& path, const GlTexture& tex);
void save_layout(const std::string& path, const std::vector<std::string>& lines);

}  // namespace specview::ui
