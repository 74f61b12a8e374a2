// A zoomable, pannable view of a texture: wheel zooms around the cursor, dragging pans, Fit and 1:1 reset.
#pragma once

#include <imgui.h>

#include "ui/viewer_state.h"

namespace specview::ui {

struct DrawnImage {
    ImVec2 p0, p1;  // where the whole texture lies on screen (may extend past the view)
    ImVec2 clip0, clip1;
    bool changed = false;  // the user zoomed or panned this frame
};

// A texture drawn in another's place and geometry (the live preview over the spectrum's): its uv0..uv1 cover tex.
struct DrawnInstead {
    const GlTexture* tex = nullptr;
    ImVec2 uv0{0, 0}, uv1{1, 1};
};

// Draws the view in a region of `size`; fills hover with the texel under the cursor (hover.fx, fy: where in
// it). `left_pans` false: the left button is the caller's (the lab's brush) and the right one pans. `instead`:
// that texture is drawn where tex would be (tex still gives the geometry, the zoom and the hover).
DrawnImage draw_image_view(const char* id, const GlTexture& tex, ViewTransform& vt, ImVec2 size, Hover& hover,
                           bool left_pans = true, const DrawnInstead* instead = nullptr);

// Copies one view's transform to another of a different size (normalised position, same relative zoom).
void sync_transform(const ViewTransform& from, int from_w, int from_h, ViewTransform& to, int to_w, int to_h);

}  // namespace specview::ui
