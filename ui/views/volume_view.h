// A stack shown as one volume (issue 61): the image volume's xy, xz and yz slices over its spectrum's kx–ky, kx–kz
// and ky–kz slices (or projections), linked — each view's crosshair is where the other two cut it, and a click in a
// view moves the two slices in its plane. Moving a slice asks the worker for pictures only (no transform).
#pragma once

#include <imgui.h>

#include <string>

namespace specview {
struct VolumeResult;
}

namespace specview::ui {

struct ViewerState;
struct VolumeUi;

// What the volume needs this frame (call before run_pipeline, which clears st.dirty): the open when it was turned on
// or another file is shown, the pictures when a slice or a setting changed.
void volume_post(ViewerState& st);
// A worker's volume result: its pictures into the six textures (a failed open turns volume mode off, saying why).
void take_volume(ViewerState& st, VolumeResult& r);
// Uploads the pictures taken a band a frame (`max_bytes` in all); a request is ready when its six are shown.
void volume_step_uploads(ViewerState& st, std::size_t max_bytes);
// Whether the last volume request's pictures are in the textures (or it failed); true when volume mode is off.
bool volume_current(const ViewerState& st);
// The six views and their controls in `size`.
void draw_volume_views(ViewerState& st, ImVec2 size);
// The script's `slice AXIS INDEX` (the spectrum's: a signed bin) and `image-slice AXIS INDEX` (0-based); AXIS x, y
// or z. Returns "" or what is wrong.
std::string set_volume_slice(VolumeUi& v, bool image, const std::string& axis, int index);
// `volume-step N|off`: classroom's step 0..7 of the seed's 3D pipeline in the spectrum's place, or off.
std::string set_volume_step(VolumeUi& v, const std::string& step);
// Every view back to its whole slice (the Fit views button, the script's fit, the f key in volume mode).
void fit_volume_views(VolumeUi& v);
// The spectrum's three views zoomed by `factor` about their centres and moved by (dx, dy) of the shown part's width
// and height (the script's zoom F and pan DX DY in volume mode: DX, DY in screen pixels / the view's side).
void zoom_volume_spectrum(VolumeUi& v, float factor, float dx, float dy);
// `projection max|sum|none`: "" or what is wrong.
std::string set_volume_projection(VolumeUi& v, const std::string& mode);

}  // namespace specview::ui
