// Animated GIFs through giflib (Debian's libgif7, fuzzed continuously upstream): every frame composited onto
// the logical screen as a viewer shows it (transparency, the disposal methods), RGBA; the frame rate from the
// delays. stb still reads single-image GIFs; its decoder of later frames reads freed memory on a crafted file
// (tests/fuzz/regression/stb-gif-load-next-use-after-free.gif), so it is not used for animations.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "app/image.h"

namespace specview {

class GifStack {
public:
    // Reads the whole file (giflib keeps every frame's indices, a byte a pixel); frames are made on request.
    // Throws InputError naming `name`. `max_pixels`: the most pixels any one frame (and the screen) may have.
    GifStack(ByteView bytes, std::string name, std::uint64_t max_pixels);
    ~GifStack();
    GifStack(const GifStack&) = delete;
    GifStack& operator=(const GifStack&) = delete;
    int frames() const;
    double frame_rate() const;  // 0: no delays given
    // Frame `frame` (0-based) composited, as 8-bit RGBA of the logical screen's size.
    Image decode(int frame, const std::function<void(const ImageHeader&)>& check);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace specview
