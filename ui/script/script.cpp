#include "ui/script/script.h"
#include "ui/views/volume_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "app/io/npy.h"
#include "gpu/common/spectrum_math.h"
#include "ui/viewer_state.h"

namespace specview::ui {

namespace {

std::vector<std::string> split_words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> w;
    std::string x;
    while (in >> x) w.push_back(x);
    return w;
}

bool parse_number(const std::string& w, double* v) {
    try {
        std::size_t used = 0;
        *v = std::stod(w, &used);
        return used == w.size() && std::isfinite(*v);
    } catch (const std::exception&) {
        return false;
    }
}

bool parse_count(const std::string& w, int* v, int lo, int hi) {
    double d = 0;
    if (!parse_number(w, &d) || d != std::floor(d) || d < lo || d > hi) return false;
    *v = int(d);
    return true;
}

std::string fmt(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

// The values of a drag, one a frame.
std::vector<std::string> drag_steps(int line, const std::string& option, const std::string& from, const std::string& to,
                                    int frames) {
    const std::vector<std::string> list = option_steps(option);
    std::vector<std::string> steps;
    if (!list.empty()) {
        const auto a = std::find(list.begin(), list.end(), from), b = std::find(list.begin(), list.end(), to);
        if (a == list.end() || b == list.end())
            throw ScriptError(line, "drag " + option + ": FROM and TO must be values it takes");
        const int ia = int(a - list.begin()), ib = int(b - list.begin());
        for (int k = 0; k < frames; ++k) {
            const double t = frames > 1 ? double(k) / (frames - 1) : 1.0;
            steps.push_back(list[std::size_t(std::lround(ia + (ib - ia) * t))]);
        }
        return steps;
    }
    double a = 0, b = 0;
    if (!parse_number(from, &a) || !parse_number(to, &b))
        throw ScriptError(line, "drag " + option + ": FROM and TO must be numbers");
    for (int k = 0; k < frames; ++k) steps.push_back(fmt(frames > 1 ? a + (b - a) * double(k) / (frames - 1) : b));
    return steps;
}

}  // namespace

std::vector<ScriptAction> parse_script(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": cannot read the script");
    std::vector<ScriptAction> out;
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
        ++line;
        const std::size_t hash = raw.find('#');
        if (hash != std::string::npos) raw.erase(hash);
        std::vector<std::string> w = split_words(raw);
        if (w.empty()) continue;
        ScriptAction a;
        a.line = line;
        a.verb = w[0];
        a.args.assign(w.begin() + 1, w.end());
        for (const auto& x : w) a.text += (a.text.empty() ? "" : " ") + x;
        const std::size_t n = a.args.size();
        const std::string& v = a.verb;
        if (v == "save-texture") {
            if (n < 1 || n > 2 || (n == 2 && a.args[1] != "spectrum" && a.args[1] != "image" && a.args[1] != "lab"))
                throw ScriptError(line, "save-texture takes a path (no spaces) and optionally spectrum, image or lab");
        } else if (v == "open" || v == "screenshot") {
            if (n != 1) throw ScriptError(line, v + " takes one path (no spaces)");
        } else if (v == "set" && n >= 1 && a.args[0] == "volume") {
            if (n != 2 || (a.args[1] != "true" && a.args[1] != "false"))
                throw ScriptError(line, "set volume takes true or false");
        } else if (v == "slice" || v == "image-slice") {
            int k = 0;
            if (n != 2 || (a.args[0] != "x" && a.args[0] != "y" && a.args[0] != "z") ||
                !parse_count(a.args[1], &k, v == "slice" ? -1048576 : 0, 1048576))
                throw ScriptError(line, v == "slice" ? "slice takes AXIS INDEX (x, y or z; a signed frequency index)"
                                                     : "image-slice takes AXIS INDEX (x, y or z; 0-based)");
        } else if (v == "volume-step") {
            VolumeUi probe;
            const std::string err = n == 1 ? set_volume_step(probe, a.args[0]) : "volume-step takes 0 to 7 or off";
            if (!err.empty()) throw ScriptError(line, err);
        } else if (v == "projection") {
            if (n != 1 || (a.args[0] != "max" && a.args[0] != "sum" && a.args[0] != "none"))
                throw ScriptError(line, "projection takes max, sum or none");
        } else if (v == "set") {
            if (n < 2) throw ScriptError(line, "set takes OPTION VALUE...");
            Settings probe;
            const std::string err = set_option(probe, a.args[0], {a.args.begin() + 1, a.args.end()});
            if (!err.empty()) throw ScriptError(line, err);
        } else if (v == "panel-width") {
            int w = 0;
            if (n != 1 || !parse_count(a.args[0], &w, 1, 100000))
                throw ScriptError(line, "panel-width takes screen pixels (as dragging the panels' edge)");
        } else if (v == "pixel-size") {
            Calibration probe;
            const std::string err = n == 1 ? set_calibration(probe, a.args[0]) : "pixel-size takes VALUE[UNIT] or none";
            if (!err.empty()) throw ScriptError(line, err);
        } else if (v == "roi") {
            Settings probe;
            const std::string err = n == 4 || (n == 1 && a.args[0] == "none") ? set_option(probe, "roi", a.args)
                                                                                : "roi takes X Y W H (image pixels) or none";
            if (!err.empty()) throw ScriptError(line, err);
        } else if (v == "filter") {
            if (n != 1) throw ScriptError(line, "filter takes one SPEC (as --filter: lowpass:R, notch:U:V:R, ...)");
            Settings probe;
            const std::string err = set_option(probe, "filter", {a.args[0]});
            if (!err.empty()) throw ScriptError(line, err);
        } else if (v == "paint" || v == "erase") {
            Settings probe;
            const std::string err = set_option(probe, v, a.args);
            if (!err.empty()) throw ScriptError(line, err);
        } else if (v == "correlate") {
            if (n < 1 || n > 2 || (n == 2 && a.args[1] != "cross" && a.args[1] != "phase"))
                throw ScriptError(line, "correlate takes a path (no spaces) and optionally phase or cross");
        } else if (v == "save-mask" || v == "load-mask" || v == "export-analysis" || v == "save-picture" ||
                   v == "save-raw") {
            if (n != 1) throw ScriptError(line, v + " takes one path (no spaces)");
        } else if (v == "stack-analysis") {
            int u = 0;
            if (n != 2 || !parse_count(a.args[0], &u, -1048576, 1048576) ||
                !parse_count(a.args[1], &u, -1048576, 1048576))
                throw ScriptError(line, "stack-analysis takes a bin U V (signed, from DC)");
        } else if (v == "play") {
            double fps = 0;
            if (n != 1 || !parse_number(a.args[0], &fps) || fps < 1 || fps > 60)
                throw ScriptError(line, "play takes frames/s (1 to 60)");
        } else if (v == "pause") {
            if (n != 0) throw ScriptError(line, "pause takes no arguments");
        } else if (v == "frame") {
            int f = 0;
            if (n != 1 || !parse_count(a.args[0], &f, 1, 1000000))
                throw ScriptError(line, "frame takes a frame number (1 = the first)");
        } else if (v == "analysis") {
            if (n != 1 || (a.args[0] != "on" && a.args[0] != "off"))
                throw ScriptError(line, "analysis takes on or off");
        } else if (v == "line") {
            double x = 0;
            if (n != 4) throw ScriptError(line, "line takes U0 V0 U1 V1 (signed bins from DC, v down)");
            for (const auto& w : a.args)
                if (!parse_number(w, &x) || std::abs(x) > 1e6)
                    throw ScriptError(line, "line: '" + w + "' is not a bin offset");
        } else if (v == "drag") {
            int frames = 0;
            if (n != 4) throw ScriptError(line, "drag takes OPTION FROM TO FRAMES");
            if (!parse_count(a.args[3], &frames, 1, 100000))
                throw ScriptError(line, "drag: FRAMES must be a whole number >= 1");
            a.steps = drag_steps(line, a.args[0], a.args[1], a.args[2], frames);
            for (const auto& s : a.steps) {
                Settings probe;
                const std::string err = set_option(probe, a.args[0], {s});
                if (!err.empty()) throw ScriptError(line, err);
            }
        } else if (v == "hover") {
            int u = 0;
            if (n != 2 || !parse_count(a.args[0], &u, -1048576, 1048576) ||
                !parse_count(a.args[1], &u, -1048576, 1048576))
                throw ScriptError(line, "hover takes two whole numbers U V (signed bin indices, DC = 0 0)");
        } else if (v == "next" || v == "prev" || v == "wait-ready" || v == "quit" || v == "clear-filters" ||
                   v == "clear-brush" || v == "next-image" || v == "prev-image" || v == "compare") {
            if (n != 0) throw ScriptError(line, v + " takes no arguments");
        } else if (v == "zoom") {
            double f = 0;
            if (n != 1 || !parse_number(a.args[0], &f) || !(f >= 0.01 && f <= 100))
                throw ScriptError(line, "zoom takes a factor on the current zoom (0.01 to 100)");
        } else if (v == "pan") {
            double d = 0;
            if (n != 2 || !parse_number(a.args[0], &d) || !parse_number(a.args[1], &d))
                throw ScriptError(line, "pan takes DX DY in screen pixels");
        } else if (v == "key") {
            static const char* const kKeyNames[] = {"pagedown", "pageup", "f", "1", "c", "s", "p", "k", "?", "o", "ctrl+s"};
            bool ok = n == 1;
            if (ok) ok = std::find(std::begin(kKeyNames), std::end(kKeyNames), a.args[0]) != std::end(kKeyNames);
            if (!ok) throw ScriptError(line, "key takes one of pagedown, pageup, f, 1, c, s, p, k, ?, o, ctrl+s");
        } else if (v == "fit") {
            if (n != 0) throw ScriptError(line, "fit takes no arguments");
        } else if (v == "wait") {
            int f = 0;
            if (n != 1 || !parse_count(a.args[0], &f, 0, 10000000))
                throw ScriptError(line, "wait takes a number of frames");
        } else {
            throw ScriptError(
                line,
                "unknown action '" + v +
                    "' (open, next-image, prev-image, save-picture, save-raw, key, set, drag, hover, zoom, pan, fit, roi, pixel-size, panel-width, next, prev, wait, wait-ready, "
                    "filter, clear-filters, paint, erase, clear-brush, save-mask, load-mask, analysis, slice, image-slice, "
                    "projection, volume-step, compare, "
                    "line, correlate, export-analysis, frame, play, pause, stack-analysis, screenshot, "
                    "save-texture, quit)");
        }
        out.push_back(std::move(a));
    }
    return out;
}

bool ScriptRunner::before_frame(ViewerState& st) {
    constexpr double kReadyTimeout = 300.0;  // seconds a wait-ready may take before the run gives up
    while (next_ < actions_.size()) {
        const ScriptAction& a = actions_[next_];
        st.script_line = a.line;
        st.script_action = a.text;
        if (a.verb == "wait") {
            if (wait_frames_ == 0) wait_frames_ = std::stoi(a.args[0]) + 1;
            if (--wait_frames_ > 0) return true;
            ++next_;
            continue;
        }
        if (a.verb == "wait-ready") {
            if (!waiting_ready_) {
                waiting_ready_ = true;
                wait_started_ = viewer_clock();
            }
            if (!picture_current(st)) {
                if (viewer_clock() - wait_started_ > kReadyTimeout) {
                    timed_out_ = true;
                    timeout_reason_ = "script line " + std::to_string(a.line) + ": wait-ready waited " +
                                      std::to_string(int(kReadyTimeout)) + " s";
                    return false;
                }
                return true;
            }
            waiting_ready_ = false;
            ++next_;
            continue;
        }
        if (a.verb == "drag") {
            // Every step is a change, as every frame of a hand on a slider is (a list option may repeat a value
            // when FRAMES is longer than the list: that step re-runs it).
            set_option(st.settings, a.args[0], {a.steps[drag_step_]});
            st.dirty = true;
            if (++drag_step_ >= a.steps.size()) {
                drag_step_ = 0;
                ++next_;
            }
            return true;  // one step a frame
        }
        ++next_;
        if (a.verb == "quit") return false;
        if (a.verb == "open") {
            st.context().open(a.args[0]);
            return true;
        }
        // The spectrum view as the wheel and a drag move it (the others follow where synced); fit: every view.
        if ((a.verb == "zoom" || a.verb == "pan") && st.volume.enabled) {  // the volume's three spectrum views
            VolumeUi& v = st.volume;
            if (a.verb == "zoom")
                zoom_volume_spectrum(v, std::stof(a.args[0]), 0, 0);
            else
                zoom_volume_spectrum(v, 1.0f, -std::stof(a.args[0]) / v.view_w, -std::stof(a.args[1]) / v.view_h);
            return true;
        }
        if (a.verb == "zoom" || a.verb == "pan") {
            ViewTransform& vt = st.spectrum_view;
            vt.fit = false;  // (a fitted view's zoom is the fit's, from the last frame drawn)
            if (a.verb == "zoom") {
                vt.zoom = std::clamp(vt.zoom * std::stof(a.args[0]), 0.01f, 256.0f);
            } else {
                vt.cx -= std::stof(a.args[0]) / vt.zoom;
                vt.cy -= std::stof(a.args[1]) / (vt.zoom * vt.aspect);
            }
            st.view_moved = 1;
            return true;
        }
        if (a.verb == "key") {
            press_key(st, a.args[0]);
            return true;
        }
        if (a.verb == "fit") {  // as the f key
            press_key(st, "f");
            return true;
        }
        if (a.verb == "next-image" || a.verb == "prev-image") {  // as Page Down / Page Up
            auto ctx = st.context();
            step_image(ctx, st.file, a.verb == "next-image" ? 1 : -1);
            return true;
        }
        if (a.verb == "set" && a.args[0] == "volume") {  // the stack's frames as one volume, or back to 2D
            st.volume.enabled = a.args[1] == "true";
            if (!st.volume.enabled) st.volume.path.clear();
            return true;
        }
        if (a.verb == "slice" || a.verb == "image-slice") {
            set_volume_slice(st.volume, a.verb == "image-slice", a.args[0], std::stoi(a.args[1]));
            return true;
        }
        if (a.verb == "projection") {
            set_volume_projection(st.volume, a.args[0]);
            return true;
        }
        if (a.verb == "volume-step") {
            set_volume_step(st.volume, a.args[0]);
            return true;
        }
        if (a.verb == "set") {
            set_option(st.settings, a.args[0], {a.args.begin() + 1, a.args.end()});
            st.dirty = true;
            return true;
        }
        if (a.verb == "panel-width") {  // as dragging the panels' edge (kept within 20%..70% of the window)
            st.panel_w = float(std::stoi(a.args[0]));
            return true;
        }
        if (a.verb == "pixel-size") {  // as typed in the Display panel
            set_calibration(st.calibration, a.args[0]);
            return true;
        }
        if (a.verb == "roi") {
            set_option(st.settings, "roi", a.args);
            st.dirty = true;
            return true;
        }
        if (a.verb == "filter" || a.verb == "clear-filters" || a.verb == "paint" || a.verb == "erase" ||
            a.verb == "clear-brush") {
            const std::string err = a.verb == "filter"          ? set_option(st.settings, "filter", {a.args[0]})
                                    : a.verb == "clear-filters" ? set_option(st.settings, "filters", {"none"})
                                    : a.verb == "clear-brush"   ? set_option(st.settings, "strokes", {"none"})
                                                                : set_option(st.settings, a.verb, a.args);
            if (!err.empty()) st.messages.error("script line " + std::to_string(a.line) + ": " + err);
            st.dirty = true;
            return true;
        }
        if (a.verb == "stack-analysis") {
            if (!st.shown.image || st.shown.image->frames < 2)
                throw ScriptError(a.line, "stack-analysis: the image is not a stack");
            st.analysis.open = true;
            st.analysis.stack_u = std::stoi(a.args[0]);
            st.analysis.stack_v = std::stoi(a.args[1]);
            st.worker->stack_analysis(st.settings, st.shown.image_path, st.analysis.stack_u, st.analysis.stack_v);
            continue;
        }
        if (a.verb == "play" || a.verb == "pause") {
            st.file.playing = a.verb == "play";
            if (st.file.playing) {
                st.file.fps = float(std::stod(a.args[0]));
                st.file.last_step = -1e9;  // the first step at once
            }
            continue;
        }
        if (a.verb == "frame") {
            if (!st.shown.image) throw ScriptError(a.line, "frame: no image");
            const int f = std::stoi(a.args[0]);
            if (f > st.shown.image->frames)
                throw ScriptError(a.line,
                                  "frame " + a.args[0] + ": the image has " + std::to_string(st.shown.image->frames));
            st.context().open(st.shown.image_path, f - 1);
            continue;
        }
        if (a.verb == "analysis") {
            st.analysis.open = a.args[0] == "on";
            st.analysis.ask = true;
            continue;
        }
        if (a.verb == "line") {
            AnalysisUi& an = st.analysis;
            an.u0 = std::stod(a.args[0]), an.v0 = std::stod(a.args[1]), an.u1 = std::stod(a.args[2]),
            an.v1 = std::stod(a.args[3]);
            an.have_line = true;
            an.open = true;
            an.ask = true;
            continue;
        }
        if (a.verb == "correlate") {
            if (!st.shown.image) throw ScriptError(a.line, "correlate: no image");
            st.worker->correlate(st.settings, a.args[0], a.args.size() < 2 || a.args[1] == "phase");
            continue;
        }
        if (a.verb == "export-analysis") {
            std::string wrote;
            const std::string err = export_analysis_csv(st.analysis, a.args[0], &wrote);
            if (!err.empty()) throw ScriptError(a.line, err);
            st.messages.info("wrote " + wrote);
            continue;
        }
        if (a.verb == "save-picture" || a.verb == "save-raw") {  // as the File panel's buttons, name typed in
            PanelContext ctx = st.context();
            (a.verb == "save-picture" ? st.file.save_png_path : st.file.save_npy_path) = a.args[0];
            a.verb == "save-picture" ? save_picture(ctx, st.file) : save_raw(ctx, st.file);
            return true;
        }
        if (a.verb == "save-mask" || a.verb == "load-mask") {
            PanelContext ctx = st.context();
            const std::string err =
                a.verb == "save-mask" ? save_mask_from(ctx, a.args[0]) : load_mask_into(ctx, a.args[0]);
            if (!err.empty()) throw ScriptError(a.line, err);
            continue;
        }
        if (a.verb == "hover") {
            const int u = std::stoi(a.args[0]), v = std::stoi(a.args[1]);
            int w = 0, h = 0;
            st.context().picture_dims(st.settings, &w, &h);
            if (w > 0 && h > 0) {
                const int ux = ((u % w) + w) % w, uy = ((v % h) + h) % h;
                st.script_hover = true;
                st.script_hover_x = st.settings.view.shift ? shift_dest(ux, w) : ux;
                st.script_hover_y = st.settings.view.shift ? shift_dest(uy, h) : uy;
            }
            continue;
        }
        if (a.verb == "compare") {  // as the Timings panel's button: every backend against the CPU's spectrum
            st.timings.comparison.reset();
            st.worker->compare(st.settings, st.machine.gpu_ok);
            return true;
        }
        if (a.verb == "next" || a.verb == "prev") {
            st.classroom.enabled = true;
            st.classroom.step += a.verb == "next" ? 1 : -1;
            st.classroom.step = std::max(st.classroom.step, 0);
            return true;
        }
        if (a.verb == "screenshot") {
            screenshot_ = a.args[0];
            return true;
        }
        if (a.verb == "save-texture") {
            texture_shot_ = a.args[0];
            texture_which_ = a.args.size() > 1 ? a.args[1] : "spectrum";
            return true;
        }
    }
    return false;
}

std::string ScriptRunner::take_screenshot() { return std::exchange(screenshot_, std::string()); }

namespace {
using Json = nlohmann::ordered_json;  // the keys in the order a reader expects them

// A time in ms to 6 significant digits (what the timers resolve), null when it is not a number.
Json ms(double v) {
    if (!std::isfinite(v)) return nullptr;
    return std::stod(fmt(v));
}
// A time that is null when it did not happen (negative).
Json ms_or_null(double v) { return v >= 0 ? ms(v) : Json(nullptr); }

Json startup_json(const ViewerState& st) {
    const auto& u = st.startup;
    return Json{{"window", ms(u.window)},
                {"probed", ms(u.probed)},
                {"interop", ms(u.interop)},
                {"open", ms(u.open)},
                {"decode_started", ms(u.decode_started)},
                {"header", ms(u.header)},
                {"decoded", ms(u.decoded)},
                {"prepared", ms(u.prepared)},
                {"taken", ms(u.taken)},
                {"posted", ms(u.posted)},
                {"engine_started", ms(u.engine_started)},
                {"engine_ended", ms(u.engine_ended)},
                {"run_taken", ms(u.run_taken)},
                {"written", ms(u.written)},
                {"image_shown", ms(u.image_shown)}};
}

Json change_json(const ChangeRecord& c) {
    Json j{{"line", c.line},
           {"action", c.action},
           {"preview_ms", ms_or_null(c.preview_ms)},
           {"ready_ms", ms_or_null(c.ready_ms)},
           {"seen_ms", ms_or_null(c.seen_ms)},
           {"frame_wait_ms", ms(c.frame_wait_ms)},
           {"pickup_ms", ms(c.pickup_ms)},
           {"slot_wait_ms", ms(c.slot_wait_ms)},
           {"engine_ms", ms(c.engine_ms)},
           {"after_engine_ms", ms(c.after_engine_ms)}};
    if (const auto& x = c.copy; x.issue_ms >= 0)
        j["copy"] = Json{{"issue_ms", ms(x.issue_ms)},
                         {"map_ms", ms(x.map_ms)},
                         {"copy_ms", ms(x.copy_ms)},
                         {"unmap_ms", ms(x.unmap_ms)}};
    return j;
}
}  // namespace

void write_script_report(const std::string& path, const ViewerState& st, const std::vector<double>& frame_ms) {
    Json r;
    r["backend"] = st.shown.have_frame ? st.shown.frame.backend : name_of(st.settings.backend);
    r["device"] =
        st.machine.device.available ? st.machine.device.name : "none (" + st.machine.device.why_unavailable + ")";
    r["image"] = {st.shown.image ? st.shown.image->width : 0, st.shown.image ? st.shown.image->height : 0};
    r["first_picture_ms"] = ms(st.first_picture_ms);
    r["first_decode_ms"] = ms(st.first_decode_ms);
    r["startup"] = startup_json(st);
    if (st.timings.comparison) {  // the last `compare`: a row per backend
        r["comparison"] = Json::array();
        for (const CompareRow& c : st.timings.comparison->rows)
            r["comparison"].push_back(Json{{"backend", c.backend},
                                           {"ran", c.ran},
                                           {"ms", ms(c.ms)},
                                           {"gbps", c.gbps},
                                           {"max_rel_diff", c.max_rel_diff},
                                           {"max_level_diff", c.max_level_diff},
                                           {"error", c.error}});
    }
    r["opens"] = Json::array();
    for (const auto& o : st.opens)
        r["opens"].push_back(Json{{"path", o.path},
                                  {"started", ms(o.started)},
                                  {"decoded", ms(o.decoded)},
                                  {"decode_ms", ms(o.decode_ms)},
                                  {"picture", ms(o.picture)},
                                  {"rss_mib", ms_or_null(o.rss_mib)},
                                  {"gpu_mib", ms_or_null(o.gpu_mib)}});
    r["stack_frames"] = Json::array();
    for (const auto& [frame, at] : st.stack_frames) r["stack_frames"].push_back({frame, ms(at)});
    r["first_run_timings"] = Json::array();
    for (const auto& [name, t] : st.first_run_timings) r["first_run_timings"].push_back({name, ms(t)});
    r["frame_ms"] = Json::array();
    for (double f : frame_ms) r["frame_ms"].push_back(ms(f));
    r["frame_line"] = st.frame_lines;
    r["slow_frames"] = Json::array();
    for (const auto& f : st.slow_frames)
        r["slow_frames"].push_back(Json{{"frame", f.frame},
                                        {"ms", ms(f.total_ms)},
                                        {"begin_ms", ms(f.begin_ms)},
                                        {"updates_ms", ms(f.updates_ms)},
                                        {"build_ms", ms(f.build_ms)},
                                        {"render_ms", ms(f.render_ms)},
                                        {"copy_ms", ms(f.copy_ms)}});
    r["changes"] = Json::array();
    for (const ChangeRecord& c : st.changes)
        if (c.line != 0) r["changes"].push_back(change_json(c));  // line 0: the command line's image, before the script
    r["volume_changes"] = Json::array();  // --volume: each request of the six views and when its pictures showed
    for (const VolumeUi::Change& c : st.volume.changes)
        r["volume_changes"].push_back(Json{{"line", c.line},
                                           {"action", c.action},
                                           {"ready_ms", ms_or_null(c.ready_ms)},
                                           {"transformed", c.transformed},
                                           {"decode_ms", ms(c.decode_ms)},
                                           {"transform_ms", ms(c.transform_ms)},
                                           {"pictures_ms", ms(c.pictures_ms)},
                                           {"range_ms", ms(c.range_ms)},
                                           {"shape_ms", ms(c.shape_ms)},
                                           {"fft_ms", ms(c.fft_ms)},
                                           {"shell_ms", ms(c.shell_ms)},
                                           {"copy_ms", ms(c.copy_ms)},
                                           {"frames_ms", ms(c.frames_ms)},
                                           {"frames_resident", c.frames_resident},
                                           {"queue_ms", ms(c.queue_ms)},
                                           {"work_ms", ms(c.work_ms)},
                                           {"taken_ms", ms_or_null(c.taken_ms)}});
    // Invalid UTF-8 in a path or an action becomes U+FFFD rather than an exception.
    write_file_atomically(path, r.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

}  // namespace specview::ui
