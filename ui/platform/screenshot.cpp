#include "ui/platform/screenshot.h"

#include <glad/gl.h>
#include <stb_image_write.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "app/io/npy.h"
#include "ui/platform/gl_texture.h"

namespace specview::ui {

void save_framebuffer_png(const std::string& path, int w, int h) {
    std::vector<unsigned char> px(std::size_t(w) * h * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    check_gl("framebuffer read-back");
    for (std::size_t i = 3; i < px.size(); i += 4) px[i] = 255;
    std::string bytes;
    auto append = [](void* ctx, void* data, int size) {
        static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), std::size_t(size));
    };
    // GL's rows run bottom-up: write them top-down.
    std::vector<unsigned char> flipped(px.size());
    const std::size_t row = std::size_t(w) * 4;
    for (int y = 0; y < h; ++y)
        std::copy_n(px.data() + std::size_t(h - 1 - y) * row, row, flipped.data() + std::size_t(y) * row);
    if (!stbi_write_png_to_func(append, &bytes, w, h, 4, flipped.data(), int(row)))
        throw std::runtime_error(path + ": PNG encoding failed");
    write_file_atomically(path, bytes);
}

void save_texture_png(const std::string& path, const GlTexture& tex) {
    if (!tex.valid()) throw std::runtime_error(path + ": no picture yet");
    const std::vector<std::uint32_t> px = tex.read();
    std::string bytes;
    auto append = [](void* ctx, void* data, int size) {
        static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), std::size_t(size));
    };
    if (!stbi_write_png_to_func(append, &bytes, tex.width(), tex.height(), 4, px.data(), tex.width() * 4))
        throw std::runtime_error(path + ": PNG encoding failed");
    write_file_atomically(path, bytes);
}

void save_layout(const std::string& path, const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& l : lines) text += l + "\n";
    write_file_atomically(path, text);
}

}  // namespace specview::ui
