#include "app/engine/preview.h"

#include <algorithm>
#include <chrono>

#include "app/core/picture.h"
#include "app/core/plane.h"

namespace specview {

namespace {
int fold_for(int n, int max_side) {
    for (int f = 1; f <= n; ++f)
        if (n % f == 0 && n / f <= max_side) return n / f >= max_side / 4 ? f : 1;
    return 1;
}
// Where a shifted picture of n bins puts DC, and so where preview pixel 0 of a fold f lands: n/2 - f (n/f)/2.
int shifted_offset(int n, int f, bool shift) { return shift ? n / 2 - f * ((n / f) / 2) : 0; }
}  // namespace

void preview_folds(int plane_w, int plane_h, int max_side, int* fx, int* fy) {
    *fx = fold_for(plane_w, max_side);
    *fy = fold_for(plane_h, max_side);
}

bool SpectrumPreview::make(const Image& img, const Settings& s, int max_side, int threads, Preview& out,
                           const std::string& name) {
    const auto t0 = std::chrono::steady_clock::now();
    require_host_samples(img, name);
    const PlaneGeometry g = plane_geometry(s, img.width, img.height);
    int fx = 1, fy = 1;
    preview_folds(g.width, g.height, max_side, &fx, &fy);
    if (fx * fy < 4) return false;  // hardly smaller than the full run
    const int w = g.width / fx, h = g.height / fy;
    float* in = fft_.input(w, h);  // planned once per size (the FFTW planner's lock is shared with the engine's)
    prepare_folded_plane_into(img, s, fx, fy, in, fft_.stride(), name, threads);
    fft_.execute();
    out.fx = fx;
    out.fy = fy;
    out.width = w;
    out.height = h;
    out.plane_width = g.width;
    out.plane_height = g.height;
    out.offset_x = shifted_offset(g.width, fx, s.view.shift);
    out.offset_y = shifted_offset(g.height, fy, s.view.shift);
    picture_from_half(fft_.half(), w, h, s.view, threads, out.rgba, &out.range_lo, &out.range_hi);
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return true;
}

}  // namespace specview
