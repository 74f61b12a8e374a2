// The viewer's live preview of a big spectrum on the CPU: while a slider moves, every fx-th, fy-th bin of the
// spectrum the full run will show, made in tens of milliseconds from the plane folded into one tile
// (prepare_folded_plane_into), for the viewer to stretch over the picture until the full one arrives.
#pragma once

#include <cstdint>
#include <vector>

#include "app/core/image.h"
#include "app/core/settings.h"
#include "app/engine/cpu_backend.h"

namespace specview {

struct Preview {
    int fx = 1, fy = 1;                     // bins of the full spectrum per preview pixel, across and down
    int width = 0, height = 0;              // the preview picture (the plane's size / the folds)
    int plane_width = 0, plane_height = 0;  // the full run's picture
    // Preview pixel q shows full picture pixel fx q + offset_x (shifted pictures put DC at n/2 in both): what the
    // viewer adds to its texture coordinates (in full pixels: offset - (fx - 1) / 2) so that each preview pixel sits
    // on the bin it shows.
    int offset_x = 0, offset_y = 0;
    std::vector<std::uint32_t> rgba;  // width x height, through the settings' view, range and colormap
    float range_lo = 0, range_hi = 0;
    double ms = 0;
};

// The folds for a plane_w x plane_h spectrum previewed at about max_side pixels a side: per axis the smallest
// divisor f of the size with size / f <= max_side, 1 where that would leave fewer than max_side / 4 (a prime
// size). Both 1: no preview is worth making (*fx, *fy).
void preview_folds(int plane_w, int plane_h, int max_side, int* fx, int* fy);

class SpectrumPreview {
public:
    // The preview of `img` (the region the engine transforms) under `s` (a run to the end, no mask), on `threads`
    // threads; false (and `out` untouched) when the plane is too small to fold. Throws InputError as a run would.
    bool make(const Image& img, const Settings& s, int max_side, int threads, Preview& out,
              const std::string& name = "image");

private:
    CpuFft fft_;
};

}  // namespace specview
