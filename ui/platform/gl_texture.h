// An RGBA8 OpenGL texture with one owner.
#pragma once

#include <glad/gl.h>

#include <cstdint>
#include <functional>
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
    // What must happen before ensure() gives the texture storage of another size: a texture registered with CUDA
    // cannot be respecified (glTexImage2D fails with GL_INVALID_OPERATION on the NVIDIA driver), so whoever
    // registers it says here how to give the registration up. Runs once, then is forgotten.
    void before_resize(std::function<void()> f) { before_resize_ = std::move(f); }
    void upload(const std::uint32_t* rgba);                         // width x height texels
    void upload_rows(const std::uint32_t* rgba, int y0, int rows);  // rows y0.. of a width-wide picture
    std::vector<std::uint32_t> read() const;                        // glGetTexImage
    void release() noexcept;
    GLuint id() const { return id_; }
    int width() const { return w_; }
    int height() const { return h_; }
    bool valid() const { return id_ != 0; }

private:
    GLuint id_ = 0;
    int w_ = 0, h_ = 0;
    std::function<void()> before_resize_;
};

// A picture from host memory shown without stalling a frame or tearing: it goes into a back texture a band of
// rows a frame, and becomes the front (the one drawn) only when complete.
class StagedTexture {
public:
    // Starts uploading `rgba` (width x height); a picture still on its way is dropped.
    void begin(std::vector<std::uint32_t> rgba, int width, int height);
    // Uploads up to `max_bytes` more; returns true when the picture just became the front texture. `upload`, when
    // given, writes the band instead of glTexSubImage (e.g. through CUDA interop): it gets the texture, its index
    // (0 or 1), the whole picture and the band's first row and row count.
    using RowUpload = std::function<void(GlTexture& texture, int index, const std::uint32_t* rgba, int y0, int rows)>;
    bool step(std::size_t max_bytes, const RowUpload& upload = {});
    bool pending() const { return !data_.empty(); }
    GlTexture& front() { return tex_[front_]; }
    const GlTexture& front() const { return tex_[front_]; }
    int front_index() const { return front_; }  // which of the two the front is (device copies write it)
    GlTexture& texture(int i) { return tex_[i]; }
    // Texture i, written by other means (a device copy), becomes the front; a host picture on its way is dropped.
    void show(int i) {
        front_ = i;
        data_.clear();
    }
    void release() noexcept {
        tex_[0].release();
        tex_[1].release();
        data_.clear();
    }

private:
    GlTexture tex_[2];
    int front_ = 0;
    std::vector<std::uint32_t> data_;
    int w_ = 0, h_ = 0, row_ = 0;
};

// Throws std::runtime_error naming `what` if GL reported an error.
void check_gl(const char* what);

}  // namespace specview::ui
