#include "ui/views/volume_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/lab/analysis.h"
#include "ui/viewer_state.h"
#include "ui/views/colorbar.h"
#include "ui/views/plot.h"

namespace specview::ui {

namespace {
void record(ViewerState& st, const std::string& what, ImVec2 a, ImVec2 b) {
    const ImVec2 s = ImGui::GetIO().DisplayFramebufferScale;
    char line[256];
    std::snprintf(line, sizeof line, " %.1f %.1f %.1f %.1f", a.x * s.x, a.y * s.y, b.x * s.x, b.y * s.y);
    st.layout.push_back(what + line);
}

void record_request(ViewerState& st) {
    VolumeUi::Change c;
    c.id = st.volume.posted;
    c.line = st.script_line;
    c.action = st.script_action;
    c.t_posted = viewer_clock();
    st.volume.changes.push_back(std::move(c));
}
}  // namespace

void volume_post(ViewerState& st) {
    VolumeUi& v = st.volume;
    if (!v.enabled || !st.shown.image) return;
    if (v.path != st.shown.image_path) {  // turned on, or another file shown: its frames as a volume
        v.path = st.shown.image_path;
        v.shown.reset();
        v.view_dirty = false;
        v.posted = st.worker->open_volume(st.settings, v.path, v.view);
        record_request(st);
        return;
    }
    if (v.view_dirty || st.dirty) {
        v.view_dirty = false;
        v.posted = st.worker->volume_view(st.settings, v.view);
        record_request(st);
    }
}

bool volume_current(const ViewerState& st) {
    const VolumeUi& v = st.volume;
    if (!v.enabled || !st.shown.image) return true;
    return v.path == st.shown.image_path && !v.view_dirty && v.arrived >= v.posted && v.uploading == 0;
}

void volume_step_uploads(ViewerState& st, std::size_t max_bytes) {
    VolumeUi& v = st.volume;
    if (v.uploading == 0) return;
    bool pending = false;
    for (StagedTexture& t : v.tex) {
        t.step(max_bytes / 6);
        pending |= t.pending();
    }
    if (pending) return;
    for (VolumeUi::Change& c : v.changes)
        if (c.id == v.uploading) c.ready_ms = (viewer_clock() - c.t_posted) * 1e3;
    v.uploading = 0;
}

void take_volume(ViewerState& st, VolumeResult& r) {
    VolumeUi& v = st.volume;
    if (r.id < v.arrived) return;
    v.arrived = r.id;
    for (VolumeUi::Change& c : v.changes)
        if (c.id == r.id) {
            if (!r.ok) c.ready_ms = (viewer_clock() - c.t_posted) * 1e3;  // (else when its pictures are all shown)
            c.transformed = r.transformed;
            c.decode_ms = r.decode_ms;
            c.transform_ms = r.transform_ms;
            c.pictures_ms = r.pictures_ms;
            c.shape_ms = r.shape_ms;
            c.fft_ms = r.fft_ms;
            c.shell_ms = r.shell_ms;
            c.copy_ms = r.copy_ms;
            c.frames_ms = r.frames_ms;
            c.frames_resident = r.frames_resident;
            c.range_ms = r.range_ms;
            c.queue_ms = r.queue_ms;
            c.work_ms = r.work_ms;
            c.taken_ms = (viewer_clock() - c.t_posted) * 1e3;
        }
    if (r.ok && r.transformed)
        v.times = VolumeTimes{r.backend,   r.geometry.width, r.geometry.height, r.geometry.depth,
                              r.decode_ms, r.shape_ms,       r.fft_ms,          r.copy_ms,
                              r.shell_ms,  r.transform_ms,   r.pictures_ms,     r.gpu_stages,
                              r.frames_ms, r.frames_resident};
    if (r.ok) v.times.pictures_ms = r.pictures_ms;
    if (!r.ok) {
        st.messages.error("volume: " + r.error);
        if (!v.shown) v.enabled = false;  // the open failed: back to the 2D views
        return;
    }
    // The pictures that changed (the session hands the same object for one that did not: a slice moved is one
    // picture), a band a frame (a 1024^3 volume's six pictures are 24 MiB), shown when complete.
    const std::shared_ptr<const VolumePicture> pics[6] = {r.image[0],    r.image[1],    r.image[2],
                                                          r.spectrum[0], r.spectrum[1], r.spectrum[2]};
    for (int i = 0; i < 6; ++i) {
        const std::shared_ptr<const VolumePicture>& was = !v.shown ? nullptr
                                                          : i < 3  ? v.shown->image[i]
                                                                   : v.shown->spectrum[i - 3];
        if (pics[i] && (pics[i] != was || !v.tex[i].front().valid()))
            v.tex[i].begin(pics[i]->rgba, pics[i]->width, pics[i]->height);
    }
    v.uploading = r.id;
    if (r.id == v.posted) v.view = r.view;  // the middles and bounds filled in (no newer request to overwrite)
    if (r.transformed) {
        char t[256];
        std::snprintf(t, sizeof t, "%dx%dx%d volume: %s, transformed in %.0f ms%s", r.geometry.width,
                      r.geometry.height, r.geometry.depth, r.backend.c_str(), r.transform_ms,
                      r.decode_ms > 0 ? (", decoded in " + std::to_string(int(r.decode_ms)) + " ms").c_str() : "");
        st.messages.info(t);
    }
    v.shown = std::move(r);
}

std::string set_volume_slice(VolumeUi& v, bool image, const std::string& axis, int index) {
    if (axis != "x" && axis != "y" && axis != "z") return "the axis is x, y or z, not " + axis;
    int* at = image ? (axis == "x" ? &v.view.image_x : axis == "y" ? &v.view.image_y : &v.view.image_z)
                    : (axis == "x" ? &v.view.kx : axis == "y" ? &v.view.ky : &v.view.kz);
    if (image && index < 0) return "an image slice is 0-based";
    *at = index;  // clamped to the volume by the worker (the view shows where it went)
    v.view_dirty = true;
    return "";
}

std::string set_volume_step(VolumeUi& v, const std::string& step) {
    if (step == "off") {
        v.view.step = -1;
    } else {
        char tail = 0;
        int k = 0;
        if (std::sscanf(step.c_str(), "%d%c", &k, &tail) != 1 || k < 0 || k > kVolumeSteps)
            return "volume-step takes 0 to 7 or off";
        v.view.step = k;
    }
    v.view_dirty = true;
    return "";
}

void fit_volume_views(VolumeUi& v) {
    for (VolumeUi::Zoom& z : v.zoom) z = {};
}

void zoom_volume_spectrum(VolumeUi& v, float factor, float dx, float dy) {
    for (int i = 3; i < 6; ++i) {
        VolumeUi::Zoom& z = v.zoom[i];
        z.zoom = std::clamp(z.zoom * factor, 1.0f, 64.0f);
        z.u += dx / z.zoom;
        z.v += dy / z.zoom;
    }
}

std::string set_volume_projection(VolumeUi& v, const std::string& mode) {
    if (mode != "max" && mode != "sum" && mode != "none") return "projection takes max, sum or none";
    v.view.projection = mode == "none" ? "" : mode;
    v.view_dirty = true;
    return "";
}

void draw_volume_views(ViewerState& st, ImVec2 size) {
    VolumeUi& v = st.volume;
    if (!v.shown) {
        ImGui::TextDisabled("Opening %s as a volume ...", v.path.c_str());
        return;
    }
    const VolumeResult& r = *v.shown;
    const VolumeGeometry& g = r.geometry;
    // The controls: the image's slices (0-based), the spectrum's (signed bins), projections.
    const float w3 = (size.x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3.0f;
    auto slider = [&](const char* label, int* value, int lo, int hi) {
        ImGui::SetNextItemWidth(std::max(w3 - ImGui::CalcTextSize(label).x - 8.0f, 40.0f));
        if (ImGui::SliderInt(label, value, lo, hi)) v.view_dirty = true;
    };
    slider("z##imz", &v.view.image_z, 0, r.frames_d - 1);
    ImGui::SameLine();
    slider("y##imy", &v.view.image_y, 0, r.frames_h - 1);
    ImGui::SameLine();
    slider("x##imx", &v.view.image_x, 0, r.frames_w - 1);
    slider("kz", &v.view.kz, -(g.depth / 2), (g.depth - 1) / 2);
    ImGui::SameLine();
    slider("ky", &v.view.ky, -(g.height / 2), (g.height - 1) / 2);
    ImGui::SameLine();
    slider("kx", &v.view.kx, -(g.width / 2), (g.width - 1) / 2);
    int proj = v.view.projection == "max" ? 1 : v.view.projection == "sum" ? 2 : 0;
    ImGui::SetNextItemWidth(8.0f * ImGui::GetFontSize());
    if (ImGui::Combo("spectrum views", &proj, "slices\0max projection\0sum projection\0")) {
        v.view.projection = proj == 1 ? "max" : proj == 2 ? "sum" : "";
        v.view_dirty = true;
    }
    ImGui::SameLine();
    bool steps = v.view.step >= 0;
    if (ImGui::Checkbox("Classroom: the seed's 3D steps", &steps)) {
        v.view.step = steps ? kVolumeSteps : -1;
        v.view_dirty = true;
    }
    if (steps) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(8.0f * ImGui::GetFontSize());
        if (ImGui::SliderInt("step", &v.view.step, 0, kVolumeSteps)) v.view_dirty = true;
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("Fit views")) fit_volume_views(v);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the wheel zooms a view around the cursor, a right drag pans it");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", r.backend.c_str());
    if (r.view.step >= 0) {  // what the step did, and why the transposes are there
        ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.4f, 1.0f), "%s", r.step_title.c_str());
        ImGui::SameLine();
        ImGui::TextWrapped("%s", r.step_caption.c_str());
        st.layout.push_back("volume-step " + r.step_title);
    }
    st.layout.push_back("volume " + std::to_string(g.width) + "x" + std::to_string(g.height) + "x" +
                        std::to_string(g.depth) + " " + r.backend);

    // Two rows of three: the image's slices over the spectrum's; under them the cursor's readout and the shell power.
    const float label_h = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float plot_h = std::max(avail.y * 0.26f, 150.0f * ImGui::GetIO().FontGlobalScale);
    const float bar_h = 0.6f * ImGui::GetFontSize(), bar_total = bar_h + label_h + ImGui::GetStyle().ItemSpacing.y;
    const ImVec2 cell(std::max((avail.x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3.0f, 20.0f),
                      std::max((avail.y - plot_h - bar_total - 2 * label_h - 2 * ImGui::GetStyle().ItemSpacing.y) / 2.0f -
                                   label_h,
                               20.0f));
    std::string readout;
    const VolumePicture* pics[6] = {r.image[0].get(),    r.image[1].get(),    r.image[2].get(),
                                    r.spectrum[0].get(), r.spectrum[1].get(), r.spectrum[2].get()};
    const char* names[6] = {"volume-image-xy", "volume-image-xz", "volume-image-yz",
                            "volume-spectrum-kxky", "volume-spectrum-kxkz", "volume-spectrum-kykz"};
    for (int i = 0; i < 6; ++i) {
        const GlTexture& t = v.tex[i].front();
        if (i % 3) ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::TextUnformatted(pics[i]->label.c_str());
        const bool spectrum = i >= 3;
        // Image slices at one texel a voxel; a spectrum slice spans -0.5 .. 0.5 cycles/voxel both ways: square.
        const float tw = float(std::max(t.width(), 1)), th = float(std::max(t.height(), 1));
        const float aspect = spectrum ? 1.0f : th / tw;
        float w = cell.x, h = cell.x * aspect;
        if (h > cell.y) h = cell.y, w = cell.y / aspect;
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        ImGui::InvisibleButton(names[i], ImVec2(cell.x, cell.y),
                               ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const ImVec2 q0(p0.x + (cell.x - w) / 2, p0.y + (cell.y - h) / 2), q1(q0.x + w, q0.y + h);
        // Zoom and pan: the wheel around the cursor, a right drag; the shown part is uv0..uv1 of the texture.
        VolumeUi::Zoom& z = v.zoom[i];
        if (ImGui::IsItemHovered() && ImGui::GetIO().MouseWheel != 0.0f) {
            const ImVec2 m = ImGui::GetIO().MousePos;
            const float fx = std::clamp((m.x - q0.x) / w, 0.0f, 1.0f), fy = std::clamp((m.y - q0.y) / h, 0.0f, 1.0f);
            const float half = 0.5f / z.zoom, nu = z.u + (fx - 0.5f) * 2 * half, nv = z.v + (fy - 0.5f) * 2 * half;
            z.zoom = std::clamp(z.zoom * std::pow(1.25f, ImGui::GetIO().MouseWheel), 1.0f, 64.0f);
            z.u = nu - (fx - 0.5f) / z.zoom;  // the point under the cursor stays there
            z.v = nv - (fy - 0.5f) / z.zoom;
        }
        if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
            z.u -= ImGui::GetIO().MouseDelta.x / w / z.zoom;
            z.v -= ImGui::GetIO().MouseDelta.y / h / z.zoom;
        }
        if (spectrum) v.view_w = w, v.view_h = h;
        const float half = 0.5f / z.zoom;
        z.u = std::clamp(z.u, half, 1.0f - half);
        z.v = std::clamp(z.v, half, 1.0f - half);
        const ImVec2 uv0(z.u - half, z.v - half), uv1(z.u + half, z.v + half);
        if (t.valid())
            dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(t.id())), q0, q1, uv0, uv1);
        // Where the whole slice lies on screen (beyond the view when zoomed), as the 2D views record theirs.
        const float sw = w * z.zoom, sh = h * z.zoom;
        record(st, names[i], ImVec2(q0.x - uv0.x * sw, q0.y - uv0.y * sh),
               ImVec2(q0.x + (1.0f - uv0.x) * sw, q0.y + (1.0f - uv0.y) * sh));
        char zl[96];
        std::snprintf(zl, sizeof zl, "volume-zoom %s %.3g %.3f %.3f", names[i], double(z.zoom), double(z.u), double(z.v));
        st.layout.push_back(zl);
        // Screen <-> texel: texel column c of tw lies at q0.x + (c / tw - uv0.x) * sw.
        auto texel_at = [&](ImVec2 m, float* c, float* r) {
            *c = (uv0.x + (m.x - q0.x) / sw) * tw;
            *r = (uv0.y + (m.y - q0.y) / sh) * th;
        };
        // Where the other two slices cut this one (texel centres), and a click there moves them.
        int* col = nullptr;
        int* row = nullptr;
        int col_off = 0, row_off = 0;
        switch (i) {
            case 0: col = &v.view.image_x, row = &v.view.image_y; break;
            case 1: col = &v.view.image_x, row = &v.view.image_z; break;
            case 2: col = &v.view.image_y, row = &v.view.image_z; break;
            case 3: col = &v.view.kx, row = &v.view.ky, col_off = g.width / 2, row_off = g.height / 2; break;
            case 4: col = &v.view.kx, row = &v.view.kz, col_off = g.width / 2, row_off = g.depth / 2; break;
            default: col = &v.view.ky, row = &v.view.kz, col_off = g.height / 2, row_off = g.depth / 2; break;
        }
        if (ImGui::IsItemHovered() && t.valid()) {  // the readout of the voxel or bin under the cursor
            float fc = 0, fr = 0;
            texel_at(ImGui::GetIO().MousePos, &fc, &fr);
            const int c = int(std::floor(fc)), rr = int(std::floor(fr));
            if (c >= 0 && rr >= 0 && c < int(tw) && rr < int(th)) {
                const std::size_t k = std::size_t(rr) * std::size_t(tw) + std::size_t(c);
                char b[256];
                if (!spectrum) {
                    const int xyz[3][3] = {{c, rr, r.view.image_z}, {c, r.view.image_y, rr}, {r.view.image_x, c, rr}};
                    std::snprintf(b, sizeof b, "voxel (x, y, z) = (%d, %d, %d): %.5g", xyz[i][0], xyz[i][1], xyz[i][2],
                                  k < pics[i]->values.size() ? double(pics[i]->values[k]) : 0.0);
                } else if (k < pics[i]->bins.size()) {
                    const int a = c - col_off, bb = rr - row_off;
                    const int kxyz[3][3] = {{a, bb, r.view.kz}, {a, r.view.ky, bb}, {r.view.kx, a, bb}};
                    const int* K = kxyz[i - 3];
                    const std::complex<float> z = pics[i]->bins[k];
                    const double f = std::sqrt(std::pow(double(K[0]) / g.width, 2) +
                                               std::pow(double(K[1]) / g.height, 2) + std::pow(double(K[2]) / g.depth, 2));
                    char period[48] = "DC";
                    if (f > 0) std::snprintf(period, sizeof period, "period %.4g voxels", 1.0 / f);
                    std::snprintf(b, sizeof b, "bin (kx, ky, kz) = (%d, %d, %d): |F| %.5g, phase %.1f deg, f %.4g "
                                  "cycles/voxel, %s", K[0], K[1], K[2], double(std::abs(z)),
                                  double(std::arg(z)) * 180.0 / M_PI, f, period);
                } else if (k < pics[i]->values.size()) {  // a projection (or a classroom step): its view value
                    std::snprintf(b, sizeof b, "%s: %.5g", pics[i]->label.c_str(), double(pics[i]->values[k]));
                } else {
                    std::snprintf(b, sizeof b, "%s", pics[i]->label.c_str());
                }
                readout = b;
            }
        }
        if (!(spectrum && (!r.view.projection.empty() || r.view.step >= 0))) {
            const float cx = q0.x + ((float(*col + col_off) + 0.5f) / tw - uv0.x) * sw;
            const float cy = q0.y + ((float(*row + row_off) + 0.5f) / th - uv0.y) * sh;
            const ImU32 c = spectrum ? IM_COL32(80, 220, 255, 150) : IM_COL32(255, 200, 60, 150);
            dl->PushClipRect(q0, q1, true);
            dl->AddLine(ImVec2(cx, q0.y), ImVec2(cx, q1.y), c);
            dl->AddLine(ImVec2(q0.x, cy), ImVec2(q1.x, cy), c);
            dl->PopClipRect();
            if (ImGui::IsItemActive() && ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
                float fc = 0, fr = 0;
                texel_at(ImGui::GetIO().MousePos, &fc, &fr);
                const int nc = std::clamp(int(std::floor(fc)), 0, int(tw) - 1) - col_off;
                const int nr = std::clamp(int(std::floor(fr)), 0, int(th) - 1) - row_off;
                if (nc != *col || nr != *row) {
                    *col = nc;
                    *row = nr;
                    v.view_dirty = true;
                }
            }
        }
        ImGui::EndGroup();
    }
    // The spectrum views' one range (the volume's for slices, the projections' for those) as a colour bar.
    if (r.spectrum[0]) {
        const ViewParams& sv = r.spectrum_view;
        const char* unit = r.view.step > 0 ? "log(1+|data|)" : r.view.step == 0 ? "" : view_unit(sv.view);
        draw_colorbar(sv.colormap, r.spectrum[0]->lo, r.spectrum[0]->hi, unit, avail.x, bar_h);
        char l[160];
        std::snprintf(l, sizeof l, "volume-colorbar %.6g %.6g %s %s", r.spectrum[0]->lo, r.spectrum[0]->hi,
                      name_of(sv.colormap).c_str(), unit);
        st.layout.push_back(l);
    }
    ImGui::TextUnformatted(readout.empty() ? "(the cursor over a view: its voxel or bin)" : readout.c_str());
    if (!readout.empty()) st.layout.push_back("volume-readout " + readout);
    // The spherically averaged power, log-log, a power law fitted over the analysis panel's range.
    const Profile& sh = r.shell;
    std::vector<PlotSegment> fit_line;
    char title[160] = "Shell power spectrum";
    try {
        const double lo = st.analysis.fit_lo, hi = st.analysis.fit_hi;
        const PowerLawFit fit = fit_power_law(sh, lo, hi);
        fit_line.push_back({lo, std::pow(10.0, fit.intercept + fit.slope * std::log10(lo)), hi,
                            std::pow(10.0, fit.intercept + fit.slope * std::log10(hi))});
        std::snprintf(title, sizeof title, "Shell power spectrum: slope %.3f (%d shells, f %.3g-%.3g)", fit.slope,
                      fit.points, lo, hi);
        char l[96];
        std::snprintf(l, sizeof l, "volume-shell bins %zu slope %.3f", sh.at.size(), fit.slope);
        st.layout.push_back(l);
    } catch (const std::exception&) {
        st.layout.push_back("volume-shell bins " + std::to_string(sh.at.size()) + " slope none");
    }
    ImGui::TextUnformatted(title);
    v.shell_axes.log_x = v.shell_axes.log_y = true;
    const ImVec2 p0 = ImGui::GetCursorScreenPos(), size(avail.x, std::max(ImGui::GetContentRegionAvail().y, 40.0f));
    draw_plot("volume-shell", size, v.shell_axes, {{&sh.at, &sh.mean_power}}, fit_line, {}, "f (cycles/voxel)",
              "power");
    record(st, "volume_shell_plot", p0, ImVec2(p0.x + size.x, p0.y + size.y));
}

}  // namespace specview::ui
