#include "ui/platform/screenshot.h"

#include <glad/gl.h>
#include <stb_image_write.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "app/io/npy.h"
#include "app/io/png_write.h"
#include "ui/platform/gl_texture.h"

namespace specview::ui {

void save_framebuffer_png(const std::string& path, int w, int h) {
    std::vector<std::uint32_t> px(std::size_t(w) * h);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    check_gl("framebuffer read-back");
    // GL's rows run bottom-up: written top-down, as RGB (the window has no alpha worth keeping) at zlib's smallest
    // (a screenshot for the README stays under a few hundred KB; a second's encoding is nothing here).
    std::vector<std::uint32_t> flipped(px.size());
    for (int y = 0; y < h; ++y)
        std::copy_n(px.data() + std::size_t(h - 1 - y) * w, std::size_t(w), flipped.data() + std::size_t(y) * w);
    write_picture_png(path, flipped.data(), w, h, PngColor::Rgb, 9);
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
