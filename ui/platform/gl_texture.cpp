#include "ui/platform/gl_texture.h"

#include <algorithm>
#include <utility>

#include <stdexcept>
#include <string>

namespace specview::ui {

void check_gl(const char* what) {
    GLenum e = glGetError();
    if (e == GL_NO_ERROR) return;
    std::string codes;
    while (e != GL_NO_ERROR) {
        codes += (codes.empty() ? "0x" : ", 0x");
        char buf[16];
        std::snprintf(buf, sizeof buf, "%04X", unsigned(e));
        codes += buf;
        e = glGetError();
    }
    throw std::runtime_error(std::string("OpenGL error ") + codes + " in " + what);
}

bool GlTexture::ensure(int width, int height) {
    if (id_ && width == w_ && height == h_) return false;
    if (before_resize_) std::exchange(before_resize_, nullptr)();
    if (!id_) glGenTextures(1, &id_);
    glBindTexture(GL_TEXTURE_2D, id_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);  // crisp pixels when zoomed in
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    check_gl("texture allocation");
    w_ = width;
    h_ = height;
    return true;
}

void GlTexture::upload(const std::uint32_t* rgba) {
    glBindTexture(GL_TEXTURE_2D, id_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w_, h_, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    check_gl("texture upload");
}

void GlTexture::upload_rows(const std::uint32_t* rgba, int y0, int rows) {
    glBindTexture(GL_TEXTURE_2D, id_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, y0, w_, rows, GL_RGBA, GL_UNSIGNED_BYTE, rgba + std::size_t(y0) * w_);
    check_gl("texture upload");
}

void StagedTexture::begin(std::vector<std::uint32_t> rgba, int width, int height) {
    data_ = std::move(rgba);
    w_ = width;
    h_ = height;
    row_ = 0;
}

bool StagedTexture::step(std::size_t max_bytes, const RowUpload& upload) {
    if (data_.empty()) return false;
    GlTexture& back = tex_[1 - front_];
    if (row_ == 0) back.ensure(w_, h_);
    const int rows = std::max(1, int(std::min<std::size_t>(std::size_t(h_ - row_), max_bytes / (std::size_t(w_) * 4))));
    if (upload)
        upload(back, 1 - front_, data_.data(), row_, rows);
    else
        back.upload_rows(data_.data(), row_, rows);
    row_ += rows;
    if (row_ < h_) return false;
    front_ = 1 - front_;
    data_.clear();
    data_.shrink_to_fit();
    return true;
}

std::vector<std::uint32_t> GlTexture::read() const {
    std::vector<std::uint32_t> px(std::size_t(w_) * h_);
    glBindTexture(GL_TEXTURE_2D, id_);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    check_gl("texture read-back");
    return px;
}

void GlTexture::release() noexcept {
    if (id_) glDeleteTextures(1, &id_);
    id_ = 0;
    w_ = h_ = 0;
}

}  // namespace specview::ui
