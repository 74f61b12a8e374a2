#include "app/io/load/gif_decode.h"

#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
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

// What the walk over the file found of a frame: where its image descriptor starts, its rectangle, and the
// graphics control block that came before it (transparency, disposal, delay).
struct GifFrame {
    std::size_t pos = 0;  // just after the image separator (',')
    int left = 0, top = 0, width = 0, height = 0;
    GraphicsControlBlock gcb{};
};

GraphicsControlBlock no_control() {
    GraphicsControlBlock g{};
    g.DisposalMode = DISPOSAL_UNSPECIFIED;
    g.TransparentColor = NO_TRANSPARENT_COLOR;
    return g;
}
}  // namespace

struct GifStack::Impl {
    std::string name;
    Source src{};
    GifFileType* gif = nullptr;
    int w = 0, h = 0;
    double rate = 0;
    std::vector<GifFrame> frames;
    // The canvas after the last frame made, and which frame that was (frames are made in order).
    std::vector<std::uint32_t> canvas, before;  // RGBA8, R in the low byte; `before`: for DISPOSE_PREVIOUS
    std::vector<GifPixelType> indices;          // the frame being made: one byte a pixel
    int made = -1;
    // Canvases kept on the way (after every `spacing`-th frame, within kCheckpointBytes), so that a step back or a
    // jump starts from the nearest one instead of from the first frame.
    struct Checkpoint {
        std::vector<std::uint32_t> canvas, before;
    };
    std::map<int, Checkpoint> checkpoints;
    int spacing = 16;
    ~Impl() {
        int err = 0;
        if (gif) DGifCloseFile(gif, &err);
    }
    [[noreturn]] void fail(const std::string& what, int err) const {
        throw InputError(name,
                         "cannot decode gif: " + what + (err ? std::string(" (") + GifErrorString(err) + ")" : ""));
    }
    // giflib keeps a record of every image descriptor it reads (with a copy of its colour table); nothing here
    // needs them, and a long play would pile them up.
    void forget_descriptors() {
        GifFreeSavedImages(gif);
        gif->SavedImages = nullptr;
        gif->ImageCount = 0;
    }
    // Decodes frame i's indices (de-interlaced) into `indices`.
    void read_indices(int i) {
        const GifFrame& f = frames[std::size_t(i)];
        src.pos = f.pos;
        const std::string which = "frame " + std::to_string(i + 1);
        if (DGifGetImageDesc(gif) == GIF_ERROR) fail(which + ": bad image descriptor", gif->Error);
        indices.resize(std::size_t(f.width) * f.height);
        auto line = [&](int y) {
            if (DGifGetLine(gif, indices.data() + std::size_t(y) * f.width, f.width) == GIF_ERROR)
                fail(which + ": corrupt or truncated pixels", gif->Error);
        };
        if (gif->Image.Interlace) {  // rows 0, 8, 16, ...; 4, 12, ...; 2, 6, ...; 1, 3, ...
            const int start[] = {0, 4, 2, 1}, step[] = {8, 8, 4, 2};
            for (int pass = 0; pass < 4; ++pass)
                for (int y = start[pass]; y < f.height; y += step[pass]) line(y);
        } else {
            for (int y = 0; y < f.height; ++y) line(y);
        }
    }
    // Draws frame i over the canvas (after the previous frame's disposal).
    void draw(int i) {
        read_indices(i);
        const GifFrame& f = frames[std::size_t(i)];
        const ColorMapObject* cm = gif->Image.ColorMap ? gif->Image.ColorMap : gif->SColorMap;
        if (!cm) fail("frame " + std::to_string(i + 1) + " has no colour table", 0);
        if (f.gcb.DisposalMode == DISPOSE_PREVIOUS) before = canvas;
        for (int y = 0; y < f.height; ++y) {
            const int cy = f.top + y;
            if (cy < 0 || cy >= h) continue;
            for (int x = 0; x < f.width; ++x) {
                const int cx = f.left + x;
                if (cx < 0 || cx >= w) continue;
                const int idx = indices[std::size_t(y) * f.width + x];
                if (idx == f.gcb.TransparentColor) continue;
                if (idx >= cm->ColorCount) continue;  // outside the table: left as it was
                const GifColorType c = cm->Colors[idx];
                canvas[std::size_t(cy) * w + cx] =
                    std::uint32_t(c.Red) | (std::uint32_t(c.Green) << 8) | (std::uint32_t(c.Blue) << 16) | 0xFF000000u;
            }
        }
        forget_descriptors();
    }
    // What frame i leaves for the next one.
    void dispose(int i) {
        const GifFrame& f = frames[std::size_t(i)];
        if (f.gcb.DisposalMode == DISPOSE_BACKGROUND) {
            for (int y = std::max(0, f.top); y < std::min(h, f.top + f.height); ++y)
                for (int x = std::max(0, f.left); x < std::min(w, f.left + f.width); ++x)
                    canvas[std::size_t(y) * w + x] = 0;  // transparent, as browsers do
        } else if (f.gcb.DisposalMode == DISPOSE_PREVIOUS && !before.empty()) {
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
    // One walk over the records: each frame's place, rectangle and control block. Its pixels are skipped as the
    // compressed blocks they are (decoded only when the frame is asked for), so memory stays one frame's.
    GraphicsControlBlock pending = no_control();
    double delays = 0;
    for (bool done = false; !done;) {
        if (m.src.pos == m.src.size && !m.frames.empty()) break;  // no trailer: what came is the file
        GifRecordType type = UNDEFINED_RECORD_TYPE;
        if (DGifGetRecordType(m.gif, &type) == GIF_ERROR) m.fail("corrupt or truncated", m.gif->Error);
        switch (type) {
            case IMAGE_DESC_RECORD_TYPE: {
                const int i = int(m.frames.size());
                if (i >= kMaxGifFrames) m.fail("over " + std::to_string(kMaxGifFrames) + " frames", 0);
                GifFrame f;
                f.pos = m.src.pos;
                if (DGifGetImageDesc(m.gif) == GIF_ERROR)
                    m.fail("frame " + std::to_string(i + 1) + ": bad image descriptor", m.gif->Error);
                const GifImageDesc& d = m.gif->Image;
                if (d.Width <= 0 || d.Height <= 0 || std::uint64_t(d.Width) * std::uint64_t(d.Height) > max_pixels)
                    m.fail("frame " + std::to_string(i + 1) + " is " + std::to_string(d.Width) + "x" +
                               std::to_string(d.Height),
                           0);
                if (!d.ColorMap && !m.gif->SColorMap)
                    m.fail("frame " + std::to_string(i + 1) + " has no colour table", 0);
                f.left = d.Left, f.top = d.Top, f.width = d.Width, f.height = d.Height;
                f.gcb = pending;
                pending = no_control();
                int code_size = 0;
                GifByteType* block = nullptr;
                if (DGifGetCode(m.gif, &code_size, &block) == GIF_ERROR)
                    m.fail("frame " + std::to_string(i + 1) + ": truncated", m.gif->Error);
                while (block)
                    if (DGifGetCodeNext(m.gif, &block) == GIF_ERROR)
                        m.fail("frame " + std::to_string(i + 1) + ": truncated", m.gif->Error);
                delays += f.gcb.DelayTime;
                m.frames.push_back(f);
                m.forget_descriptors();
                break;
            }
            case EXTENSION_RECORD_TYPE: {
                int code = 0;
                GifByteType* ext = nullptr;
                if (DGifGetExtension(m.gif, &code, &ext) == GIF_ERROR)
                    m.fail("corrupt or truncated extension", m.gif->Error);
                if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] >= 4 &&
                    DGifExtensionToGCB(ext[0], ext + 1, &pending) == GIF_ERROR)
                    pending = no_control();
                while (ext)
                    if (DGifGetExtensionNext(m.gif, &ext) == GIF_ERROR)
                        m.fail("corrupt or truncated extension", m.gif->Error);
                break;
            }
            case TERMINATE_RECORD_TYPE:
                done = true;
                break;
            default:
                m.fail("unknown record", m.gif->Error);
        }
    }
    if (m.frames.empty()) m.fail("no frames", 0);
    m.rate = delays > 0 ? 100.0 * double(m.frames.size()) / delays : 0.0;
    const std::size_t most = std::max<std::size_t>(1, kCheckpointBytes / (std::size_t(m.w) * m.h * 8));
    m.spacing = std::max<int>(16, int((m.frames.size() + most - 1) / most));
}

GifStack::~GifStack() = default;
int GifStack::frames() const { return int(impl_->frames.size()); }
double GifStack::frame_rate() const { return impl_->rate; }

Image GifStack::decode(int frame, const std::function<void(const ImageHeader&)>& check) {
    Impl& m = *impl_;
    const int count = frames();
    if (frame < 0 || frame >= count)
        throw InputError(
            m.name, "no frame " + std::to_string(frame + 1) + ": the GIF has " + std::to_string(count) + " frames");
    check(ImageHeader{m.w, m.h, 4, 8, "gif"});
    // Start from the canvas at hand when it is on the way, else from the nearest kept one, else from nothing.
    auto kept = m.checkpoints.upper_bound(frame);
    const int from = kept == m.checkpoints.begin() ? -1 : std::prev(kept)->first;
    if (m.made > frame || m.made < from || m.made < 0) {
        if (from >= 0) {
            m.canvas = std::prev(kept)->second.canvas;
            m.before = std::prev(kept)->second.before;
        } else {
            m.canvas.assign(std::size_t(m.w) * m.h, 0u);
            m.before.clear();
        }
        m.made = from;
    }
    while (m.made < frame) {
        if (m.made >= 0) m.dispose(m.made);
        m.draw(m.made + 1);
        ++m.made;
        if (m.made % m.spacing == 0 && !m.checkpoints.count(m.made)) {
            // `before` only matters to the next frame when this one's disposal restores it.
            const bool restores = m.frames[std::size_t(m.made)].gcb.DisposalMode == DISPOSE_PREVIOUS;
            m.checkpoints[m.made] = {m.canvas, restores ? m.before : std::vector<std::uint32_t>{}};
        }
    }
    Image img = Image::allocate(m.w, m.h, 4, 8, "gif");
    std::memcpy(img.writable(), m.canvas.data(), m.canvas.size() * 4);
    return img;
}

}  // namespace specview
