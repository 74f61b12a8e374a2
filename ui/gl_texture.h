// An RGBA8 OpenGL texture with one owner.
#pragma once

#include <glad/gl.h>

#include <cstdint>
#include <vector>

namespace specview::ui {

class GlTexture {
public:
    GlTexture() = default;
    ~GlTexture() { release(); }
    GlTexture(const GlTexture&) = delete;
    GlTexture& operator=(const GlTexture&) = delete;

    // (Re)allocates storage when the size changes; returns true if it did (interop must re-register then).
    bool ensure(int width, int height);
    void upload(const std::uint32_t* rgba);  // width x height texels
    std::vector<std::uint32_t> read() const; // glGetTexImage
    void release() noexcept;
    GLuint id() const { return id_; }
    int width() const { return w_; }
    int height() const { return h_; }
    bool valid() const { return id_ != 0; }

private:
    GLuint id_ = 0;
    int w_ = 0, h_ = 0;
};

// Throws std::runtime_error naming `what` if GL reported an error.
void check_gl(const char* what);

}  // namespace specview::ui
