// The window as a PNG (for tests and the README), and the layout written next to it.
#pragma once

#include <string>
#include <vector>

namespace specview::ui {

// Reads the back buffer (call after rendering, before swapping) and writes a PNG, top row first.
void save_framebuffer_png(const std::string& path, int width, int height);
void save_layout(const std::string& path, const std::vector<std::string>& lines);

}  // namespace specview::ui
