// Animated GIFs through giflib (Debian's libgif7, fuzzed continuously upstream): every frame composited onto
// the logical screen as a viewer shows it (transparency, the disposal methods), RGBA; the frame rate from the
// delays. stb still reads single-image GIFs; its decoder of later frames reads freed memory on a crafted file
// (tests/fuzz/regression/stb-gif-load-next-use-after-free.gif), so it is not used for animations.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "app/core/image.h"

namespace specview {

// More frames than any animation has (a crafted file of empty frames would otherwise grow the frame list).
constexpr int kMaxGifFrames = 1000000;
// Memory for the canvases kept on the way through an animation (see GifStack::decode), counting each at twice a
// canvas (with the one a "previous" disposal restores). Small beside the isolated decoder's slack over the frame
// it makes (app/io/decoder_pool.cpp: 256 MiB over three times the samples), which they must fit in.
constexpr std::size_t kCheckpointBytes = std::size_t(64) << 20;

class GifStack {
public:
    // Walks the file's records once (each frame's place, rectangle and control block; no pixels decoded) and
    // makes frames on request, going on from the last one made or from the nearest canvas kept on the way (one
    // every 16 frames or more, within kCheckpointBytes): memory is bounded however many frames there are.
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
