#include "app/gif_decode.h"

#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace specview {

namespace {
struct Source {
    const unsigned char* data;
    std::size_t size, pos;
};
int read_gif(GifFileType* g, GifByteType* buf, int n) {
    Source* s = static_cast<Source*>(g->UserData);
    const std::size_t k = std::min<std::size_t>(std::size_t(std::max(n, 0)), s->size - s->pos);
    std::memcpy(buf, s->data + s->pos, k);
    s->pos += k;
    return int(k);
}
}  // namespace

struct GifStack::Impl {
    std::string name;
    Source src{};
    GifFileType* gif = nullptr;
    int w = 0, h = 0;
    double rate = 0;
    // The canvas after the last frame made, and which frame that was (frames are made in order).
    std::vector<std::uint32_t> canvas, before;  // RGBA8, R in the low byte; `before`: for DISPOSE_PREVIOUS
    int made = -1;
    ~Impl() {
        int err = 0;
        if (gif) DGifCloseFile(gif, &err);
    }
    [[noreturn]] void fail(const std::string& what, int err) const {
        throw InputError(name, "cannot decode gif: " + what + (err ? std::string(" (") + GifErrorString(err) + ")" : ""));
    }
    // Draws frame i over the canvas (after the previous frame's disposal).
    void draw(int i) {
        const SavedImage& im = gif->SavedImages[i];
        GraphicsControlBlock gcb{};
        gcb.TransparentColor = NO_TRANSPARENT_COLOR;
        if (DGifSavedExtensionToGCB(gif, i, &gcb) != GIF_OK) gcb.TransparentColor = NO_TRANSPARENT_COLOR;
        const ColorMapObject* cm = im.ImageDesc.ColorMap ? im.ImageDesc.ColorMap : gif->SColorMap;
        if (!cm) fail("frame " + std::to_string(i + 1) + " has no colour table", 0);
        if (gcb.DisposalMode == DISPOSE_PREVIOUS) before = canvas;
        const int x0 = im.ImageDesc.Left, y0 = im.ImageDesc.Top, fw = im.ImageDesc.Width, fh = im.ImageDesc.Height;
        for (int y = 0; y < fh; ++y) {
            const int cy = y0 + y;
            if (cy < 0 || cy >= h) continue;
            for (int x = 0; x < fw; ++x) {
                const int cx = x0 + x;
                if (cx < 0 || cx >= w) continue;
                const int idx = im.RasterBits[std::size_t(y) * fw + x];
                if (idx == gcb.TransparentColor) continue;
                if (idx >= cm->ColorCount) continue;  // outside the table: left as it was
                const GifColorType c = cm->Colors[idx];
                canvas[std::size_t(cy) * w + cx] = std::uint32_t(c.Red) | (std::uint32_t(c.Green) << 8) |
                                                   (std::uint32_t(c.Blue) << 16) | 0xFF000000u;
            }
        }
    }
    // What frame i leaves for the next one.
    void dispose(int i) {
        const SavedImage& im = gif->SavedImages[i];
        GraphicsControlBlock gcb{};
        if (DGifSavedExtensionToGCB(gif, i, &gcb) != GIF_OK) return;
        if (gcb.DisposalMode == DISPOSE_BACKGROUND) {
            for (int y = std::max(0, im.ImageDesc.Top); y < std::min(h, im.ImageDesc.Top + im.ImageDesc.Height); ++y)
                for (int x = std::max(0, im.ImageDesc.Left); x < std::min(w, im.ImageDesc.Left + im.ImageDesc.Width); ++x)
                    canvas[std::size_t(y) * w + x] = 0;  // transparent, as browsers do
        } else if (gcb.DisposalMode == DISPOSE_PREVIOUS && !before.empty()) {
            canvas = before;
        }
    }
};

GifStack::GifStack(ByteView bytes, std::string name, std::uint64_t max_pixels) : impl_(new Impl) {
    Impl& m = *impl_;
    m.name = std::move(name);
    m.src = Source{bytes.data(), bytes.size(), 0};
    int err = 0;
    m.gif = DGifOpen(&m.src, read_gif, &err);
    if (!m.gif) m.fail("not a readable GIF", err);
    m.w = m.gif->SWidth;
    m.h = m.gif->SHeight;
    if (m.w <= 0 || m.h <= 0) throw InputError(m.name, "image has zero width or height");
    if (std::uint64_t(m.w) * std::uint64_t(m.h) > max_pixels)
        throw InputError(m.name, "image is " + std::to_string(m.w) + "x" + std::to_string(m.h) + ", over the limit");
    if (DGifSlurp(m.gif) != GIF_OK) m.fail("corrupt or truncated", m.gif->Error);
    if (m.gif->ImageCount < 1) m.fail("no frames", 0);
    double delays = 0;
    for (int i = 0; i < m.gif->ImageCount; ++i) {
        const GifImageDesc& d = m.gif->SavedImages[i].ImageDesc;
        if (d.Width <= 0 || d.Height <= 0 || std::uint64_t(d.Width) * std::uint64_t(d.Height) > max_pixels || !m.gif->SavedImages[i].RasterBits)
            m.fail("frame " + std::to_string(i + 1) + " is " + std::to_string(d.Width) + "x" + std::to_string(d.Height), 0);
        GraphicsControlBlock gcb{};
        if (DGifSavedExtensionToGCB(m.gif, i, &gcb) == GIF_OK) delays += gcb.DelayTime;
    }
    m.rate = delays > 0 ? 100.0 * m.gif->ImageCount / delays : 0.0;
}

GifStack::~GifStack() = default;
int GifStack::frames() const { return impl_->gif->ImageCount; }
double GifStack::frame_rate() const { return impl_->rate; }

Image GifStack::decode(int frame, const std::function<void(const ImageHeader&)>& check) {
    Impl& m = *impl_;
    if (frame < 0 || frame >= m.gif->ImageCount)
        throw InputError(m.name, "no frame " + std::to_string(frame + 1) + ": the GIF has " + std::to_string(m.gif->ImageCount) + " frames");
    check(ImageHeader{m.w, m.h, 4, 8, "gif"});
    if (frame <= m.made || m.made < 0) {  // from the first frame
        m.canvas.assign(std::size_t(m.w) * m.h, 0u);
        m.before.clear();
        m.made = -1;
    }
    while (m.made < frame) {
        if (m.made >= 0) m.dispose(m.made);
        m.draw(++m.made);
    }
    Image img = Image::allocate(m.w, m.h, 4, 8, "gif");
    std::memcpy(img.writable(), m.canvas.data(), m.canvas.size() * 4);
    return img;
}

}  // namespace specview
