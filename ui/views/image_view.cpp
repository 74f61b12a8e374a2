#include "ui/views/image_view.h"

#include <algorithm>
#include <cmath>

namespace specview::ui {

DrawnImage draw_image_view(const char* id, const GlTexture& tex, ViewTransform& vt, ImVec2 size, Hover& hover,
                           bool left_pans, const DrawnInstead* instead) {
    DrawnImage out;
    hover.active = false;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)),
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 end(origin.x + size.x, origin.y + size.y);
    dl->AddRectFilled(origin, end, IM_COL32(20, 20, 24, 255));
    out.clip0 = origin;
    out.clip1 = end;
    if (!tex.valid() || tex.width() == 0) return out;

    const float tw = float(tex.width()), th = float(tex.height());
    const float ar = vt.aspect > 0 ? vt.aspect : 1.0f;  // a texel is zoom wide and zoom * ar high
    if (vt.fit) {
        vt.zoom = std::min(size.x / tw, size.y / (th * ar));
        vt.cx = tw / 2;
        vt.cy = th / 2;
    }
    const ImVec2 centre(origin.x + size.x / 2, origin.y + size.y / 2);
    ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsItemHovered()) {
        if (io.MouseWheel != 0.0f) {
            // Keep the texel under the cursor where it is.
            const float px = vt.cx + (io.MousePos.x - centre.x) / vt.zoom;
            const float py = vt.cy + (io.MousePos.y - centre.y) / (vt.zoom * ar);
            vt.zoom = std::clamp(vt.zoom * std::pow(1.2f, io.MouseWheel), 0.01f, 256.0f);
            vt.cx = px - (io.MousePos.x - centre.x) / vt.zoom;
            vt.cy = py - (io.MousePos.y - centre.y) / (vt.zoom * ar);
            vt.fit = false;
            out.changed = true;
        }
    }
    if (ImGui::IsItemActive() &&
        ImGui::IsMouseDragging(left_pans ? ImGuiMouseButton_Left : ImGuiMouseButton_Right, 0.0f)) {
        vt.cx -= io.MouseDelta.x / vt.zoom;
        vt.cy -= io.MouseDelta.y / (vt.zoom * ar);
        vt.fit = false;
        out.changed = true;
    }
    out.p0 = ImVec2(centre.x - vt.cx * vt.zoom, centre.y - vt.cy * vt.zoom * ar);
    out.p1 = ImVec2(out.p0.x + tw * vt.zoom, out.p0.y + th * vt.zoom * ar);
    dl->PushClipRect(origin, end, true);
    if (instead && instead->tex && instead->tex->valid())
        dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(instead->tex->id())), out.p0, out.p1,
                     instead->uv0, instead->uv1);
    else
        dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(tex.id())), out.p0, out.p1);
    dl->PopClipRect();

    if (ImGui::IsItemHovered()) {
        const float fx = (io.MousePos.x - out.p0.x) / vt.zoom, fy = (io.MousePos.y - out.p0.y) / (vt.zoom * ar);
        if (fx >= 0 && fy >= 0 && fx < tw && fy < th) {
            hover.active = true;
            hover.x = int(fx);
            hover.y = int(fy);
            hover.fx = fx;
            hover.fy = fy;
            if (vt.zoom >= 8.0f) {  // outline the texel when it is big enough to see
                const ImVec2 a(out.p0.x + hover.x * vt.zoom, out.p0.y + hover.y * vt.zoom * ar);
                dl->AddRect(a, ImVec2(a.x + vt.zoom, a.y + vt.zoom * ar), IM_COL32(255, 255, 0, 200));
            }
        }
    }
    return out;
}

void sync_transform(const ViewTransform& from, int fw, int fh, ViewTransform& to, int tw, int th) {
    to.fit = from.fit;
    if (fw <= 0 || tw <= 0) return;
    to.zoom = from.zoom * float(fw) / float(tw);
    to.cx = from.cx / float(fw) * float(tw);
    to.cy = fh > 0 ? from.cy / float(fh) * float(th) : to.cy;
}

}  // namespace specview::ui
