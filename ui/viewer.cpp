// Index of this file (grep "[SECTION]"):
// - Messages, recent files, the panels' open
// - The viewer's clock, changes and their runs
// - Taking the worker's results: decoded images, frames, uploads, interop copies
// - Drawing: the readout, the lab's outlines and brush, the views, the status line
// - The frame's window, screenshots, the machine's probe, teardown
// - run_viewer: start, the frame loop, the end
#include "ui/viewer.h"

#include "app/engine/auto_backend.h"
#include "app/engine/devices.h"
#include "app/io/memory_need.h"

#include <glad/gl.h>
#include <imgui.h>

#include <algorithm>
#ifdef __GLIBC__
#include <malloc.h>  // malloc_trim
#endif
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "app/lab/filter.h"
#include "app/io/load/load.h"
#include "gpu/runtime/device_info.h"
#include "gpu/common/errors.h"
#include "ui/views/analysis_view.h"
#include "ui/views/volume_view.h"
#include "ui/views/axes.h"
#include "ui/views/colorbar.h"
#include "ui/views/image_view.h"
#include "ui/platform/screenshot.h"
#include "ui/script/script.h"
#include "ui/viewer_state.h"
#include "ui/platform/window.h"

namespace specview::ui {
namespace fs = std::filesystem;

// ---- State helpers shared by the panels ----

// [SECTION] Messages, recent files, the panels' open
void Messages::error(const std::string& t) {
    text = t;
    is_error = true;
    lasting = false;
    std::fprintf(stderr, "specview: %s\n", t.c_str());
}

void Messages::lasting_error(const std::string& t) {
    error(t);
    lasting = true;
}

void Messages::info(const std::string& t) {
    text = t;
    is_error = false;
    lasting = false;
}

void PanelContext::picture_dims(const Settings& s, int* w, int* h) const {
    *w = *h = 0;
    if (shown.image) picture_size(s, shown.image->width, shown.image->height, w, h);
}

namespace {
std::uint64_t open_in(Worker& worker, const std::string& path, int frame, const Settings& settings, double max_memory,
                      std::optional<Worker::RunAfterOpen> run_after = {}) {
    LoadLimits limits;
    limits.check_available_memory = false;  // the need of the chosen path instead of the rough estimate
    limits.frame = frame;
    MemoryBudget budget;
    budget.host = max_memory;
    // The host's need at the header; the device's when the image first runs (the worker): checking it here would
    // make the decoder wait for the CUDA context.
    return worker.open(path, limits, memory_check(settings, false, true, budget, false), settings,
                       std::move(run_after));
}
}  // namespace

void PanelContext::open(const std::string& path, int frame) {
    open_in(worker, path, frame, settings, max_memory);
    if (!(shown.image && path == shown.image_path))
        messages.info("opening " + path + " ...");  // not for a stack's next frame
}

bool gpu_backend(const Settings& s) { return cuda_backend(s.backend); }

namespace {

std::string config_dir() {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    if (xdg && *xdg) return std::string(xdg) + "/specview";
    if (home && *home) return std::string(home) + "/.config/specview";
    return {};
}

void load_recent(ViewerState& st) {
    const std::string dir = config_dir();
    if (dir.empty()) return;
    std::ifstream in(dir + "/recent.txt");
    std::string line;
    while (std::getline(in, line) && st.file.recent.size() < 10)
        if (!line.empty()) st.file.recent.push_back(line);
}

void save_recent(const ViewerState& st) {
    const std::string dir = config_dir();
    if (dir.empty()) return;
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::ofstream out(dir + "/recent.txt", std::ios::trunc);
    for (const auto& r : st.file.recent) out << r << "\n";  // best effort: a read-only home just loses the list
}

// The window's size at the last interactive close (config_dir()/geometry.txt, "W H"), else 1500 x 920.
void load_geometry(int* w, int* h) {
    *w = 1500;
    *h = 920;
    const std::string dir = config_dir();
    if (dir.empty()) return;
    std::ifstream in(dir + "/geometry.txt");
    int a = 0, b = 0;
    if (in >> a >> b && a >= 320 && b >= 240 && a <= 16384 && b <= 16384) {
        *w = a;
        *h = b;
    }
}

void save_geometry(int w, int h) {
    const std::string dir = config_dir();
    if (dir.empty() || w < 320 || h < 240) return;
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::ofstream out(dir + "/geometry.txt", std::ios::trunc);
    out << w << " " << h << "\n";  // best effort, as the recent files
}

}  // namespace

namespace {
// This process's resident memory (VmRSS), MiB; -1 where /proc does not say.
double resident_mib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return -1;
}
const std::chrono::steady_clock::time_point& viewer_epoch() {
    static const auto t0 = std::chrono::steady_clock::now();
    return t0;
}
}  // namespace

double viewer_clock() { return viewer_clock_of(std::chrono::steady_clock::now()); }
// [SECTION] The viewer's clock, changes and their runs
double viewer_clock_of(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(t - viewer_epoch()).count();
}

bool picture_current(const ViewerState& st) {
    if (!st.worker->idle() || st.worker->has_updates() || st.dirty || !volume_current(st)) return false;
    if (!(st.shown.image != nullptr)) return true;
    // The last run posted has ended (its picture in the texture, or failed with a message).
    const bool arrived = st.done_change >= st.change;
    return arrived && !st.copy_pending && !st.spectrum_tex.pending() && !st.image_tex.pending() &&
           !st.lab_tex.pending() && !st.corr_tex.pending() && !st.stack_tex.pending() &&
           !(st.analysis.open && !st.classroom.enabled && st.analysis.asked_change != st.frame_change);
}

namespace {
// Change st.change, just posted: its record, for the report and the wait for its picture.
void record_change(ViewerState& st) {
    st.change_index[st.change] = st.changes.size();
    ChangeRecord c;
    c.line = st.script_line;
    c.action = st.script_action;
    c.t_posted = viewer_clock();
    st.changes.push_back(std::move(c));
}
}  // namespace

void run_pipeline(ViewerState& st) {
    st.dirty = false;
    if (!st.shown.image) return;
    // A frame NVDEC decoded cannot go to the CPU backend or the host's levelling fit: the same frame again, which
    // the worker now decodes on the CPU; its run follows.
    if (st.shown.image->on_device() && !gpu_decode_excluded(VideoDecode::Auto, st.settings).empty()) {
        st.context().open(st.shown.image_path, st.shown.image->frame);
        return;
    }
    ++st.change;
    if (st.startup.posted < 0) st.startup.posted = viewer_clock() * 1e3;
    st.worker->run(st.settings, st.change, picture_on_device(st, st.settings));
    record_change(st);
}

bool picture_on_device(const ViewerState& st, const Settings& s) {
    return (st.machine.interop_ok && gpu_backend(s)) || (st.machine.gl_shared && s.backend == Backend::Gl);
}

void play_frame(ViewerState& st, int frame) {
    if (!st.shown.image) return;
    ++st.change;
    st.prerun_image_id =
        open_in(*st.worker, st.shown.image_path, frame, st.settings, st.max_memory,
                Worker::RunAfterOpen{st.settings, st.change, picture_on_device(st, st.settings)});
    record_change(st);
}

namespace {

#ifdef SPECVIEW_HAS_GL_INTEROP
// Registers `t` with CUDA through `reg` (a no-op when it is already, at its size), and has `t` give the
// registration up before its storage changes size (after `copier`'s last copy into it): respecifying a
// registered texture is a GL error, which had made every picture fail once a 64^2 image was followed by an 8192^2
// one on the GPU machine.
void register_with_cuda(GlTexture& t, gpu::GlInteropTexture& reg, gpu::GlInteropCopier& copier) {
    reg.register_texture(t.id(), t.width(), t.height());
    t.before_resize([&reg, &copier] {
        copier.wait();
        reg.reset();
    });
}
#endif

// [SECTION] Taking the worker's results: decoded images, frames, uploads, interop copies
// `written`: when the picture reached the textures (the device's copy, stamped as it ended; < 0: now, for
// pictures the host uploaded); the viewer notices it at the frame of this call.
void mark_ready(ViewerState& st, std::uint64_t change, double written = -1, bool failed = false) {
    const double now = viewer_clock();
    if (written < 0 || written > now) written = now;
    st.done_change = std::max(st.done_change, change);
    if (!failed && st.first_picture_ms < 0 && st.shown.image)
        st.first_picture_ms = st.startup.written = written * 1e3;  // since the viewer started
    if (!failed && !st.opens.empty() && st.opens.back().picture < 0 && change > st.opens.back().after_change) {
        st.opens.back().picture = written * 1e3;
        st.opens.back().rss_mib = resident_mib();
        if (gpu_backend(st.settings) && st.machine.gpu_ok)  // (its context exists: no new one made here)
            st.opens.back().gpu_mib = gpu::device_memory_used(0) / (1024.0 * 1024.0);
    }
    if (!failed && st.shown.image && st.shown.image->frames > 1 &&
        (st.stack_frames.empty() || st.stack_frames.back().first != st.shown.image->frame))
        st.stack_frames.emplace_back(st.shown.image->frame, written * 1e3);
    for (auto it = st.change_index.begin(); it != st.change_index.end();) {
        if (it->first > change) break;
        ChangeRecord& c = st.changes[it->second];
        if (it->first == change) {
            c.ready_ms = (written - c.t_posted) * 1e3;
            c.seen_ms = (now - c.t_posted) * 1e3;
        } else if (c.ready_ms < 0)
            c.superseded = true;  // a later change's picture came first: it never will
        it = st.change_index.erase(it);
    }
}

void take_decoded(ViewerState& st, DecodedImage& d) {
    // Another frame of the stack shown: the views, the analysis and its line stay where they are.
    const bool same_stack = st.shown.image && d.path == st.shown.image_path && d.image->frames > 1 &&
                            st.shown.image->frames == d.image->frames && st.shown.image->width == d.image->width &&
                            st.shown.image->height == d.image->height;
    st.shown.image = d.image;
    st.shown.image_range = d.range;
    st.shown.decoded_by = d.decoded_by;
    st.shown.image_id = d.image_id;
    auto at = [](std::chrono::steady_clock::time_point t) {
        return t.time_since_epoch().count() ? viewer_clock_of(t) * 1e3 : -1.0;
    };
    if (st.first_decode_ms < 0) {
        st.first_decode_ms = d.decode_ms;
        st.startup.decode_started = at(d.started);
        st.startup.header = at(d.header_at);
        st.startup.decoded = at(d.decoded_at);
        st.startup.prepared = at(d.prepared_at);
        st.startup.taken = viewer_clock() * 1e3;
    }
    if (!same_stack) {
        ViewerState::OpenRecord r;
        r.path = d.path;
        r.started = at(d.started);
        r.decoded = at(d.decoded_at);
        r.decode_ms = d.decode_ms;
        r.after_change = st.change;
        st.opens.push_back(std::move(r));
#ifdef __GLIBC__
        // The last image's buffers are free by now: give their pages back. glibc keeps a fragmented heap's free pages
        // otherwise - 500 opens of small images grew the viewer's resident memory 27% with the live heap flat
        // (heaptrack), the long path names' small allocations pinning the big ones' places; trimmed here, 1.7%.
        // (Once an open, not a frame: 0.11 ms median, 0.38 ms at most over 100 opens here.)
        malloc_trim(0);
#endif
    }
    st.shown.image_path = d.path;
    default_save_names(st.file, d.path);  // <name>_spectrum.png / .npy, unless a name was typed
    // A frame playback asked for comes with its run (Worker::open's run_after): no second one.
    if (!(same_stack && d.image_id == st.prerun_image_id)) st.dirty = true;
    if (same_stack) return;
    // An ROI drawn on the last image that does not lie within this one is let go (the whole image is shown).
    const Roi& roi = st.settings.roi;
    if (!roi.whole() && (roi.x + roi.w > d.image->width || roi.y + roi.h > d.image->height)) {
        st.roi_let_go = ("ROI " + roi_string(roi) + " let go: it does not lie within this " +
                         std::to_string(d.image->width) + "x" + std::to_string(d.image->height) + " image");
        st.settings.roi = Roi{};
        st.dirty = true;
    }
    if (d.image->frame_rate > 0)
        st.file.fps = float(std::clamp(d.image->frame_rate, 1.0, 60.0));  // a video plays at its rate
    st.image_view = ViewTransform{};
    st.spectrum_view = ViewTransform{};
    st.timings.comparison.reset();
    st.preview_change = 0;
    st.timings.sweep.reset();
    st.timings.sweep_running = false;
    st.timings.history.clear();
    st.device_ui.resources_key.clear();
    st.classroom.plane_row_key = 0;
    st.analysis.result.reset();
    st.analysis.correlation.reset();
    st.analysis.have_line = false;
    st.analysis.radial.fit = st.analysis.angular.fit = st.analysis.line.fit = true;
    st.dirty = true;
    std::error_code ec;
    const std::string abs = fs::absolute(d.path, ec).string();
    st.file.recent.erase(std::remove(st.file.recent.begin(), st.file.recent.end(), abs), st.file.recent.end());
    st.file.recent.push_front(abs);
    while (st.file.recent.size() > 10) st.file.recent.pop_back();
    save_recent(st);
    st.file.path_input = d.path;
}

void show_frame(ViewerState& st, RunResult& r);

void take_frame(ViewerState& st, RunResult& r) {
    Frame& f = r.frame;
    const int slot = f.picture_slot;
    if (auto it = st.change_index.find(r.change);
        it != st.change_index.end() && r.finished.time_since_epoch().count()) {
        ChangeRecord& c = st.changes[it->second];
        c.frame_wait_ms = std::max(0.0, (viewer_clock() - viewer_clock_of(r.finished)) * 1e3);
        auto ms = [](std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
            return a.time_since_epoch().count() && b.time_since_epoch().count()
                       ? std::chrono::duration<double, std::milli>(b - a).count()
                       : -1.0;
        };
        c.pickup_ms = r.picked.time_since_epoch().count() ? (viewer_clock_of(r.picked) - c.t_posted) * 1e3 : -1.0;
        c.slot_wait_ms = ms(r.picked, r.engine_started);
        c.engine_ms = ms(r.engine_started, r.engine_ended);
        c.after_engine_ms = ms(r.engine_ended, r.finished);
    }
    if (st.startup.run_taken < 0 && r.ok && r.image_id == st.shown.image_id) {
        st.startup.run_taken = viewer_clock() * 1e3;
        if (r.engine_started.time_since_epoch().count())
            st.startup.engine_started = viewer_clock_of(r.engine_started) * 1e3;
        if (r.engine_ended.time_since_epoch().count()) st.startup.engine_ended = viewer_clock_of(r.engine_ended) * 1e3;
        for (const auto& t : r.frame.timings) st.first_run_timings.emplace_back(t.name, t.ms);
    }
    if (!r.gl_share_refused.empty() && st.machine.gl_shared) {  // the Pipeline panel and its layout line say so
        st.machine.gl_shared = false;
        st.machine.gl_shared_why = r.gl_share_refused;
    }
    if (!r.gpu_lost.empty() && st.machine.gpu_ok) {
        // A sticky CUDA error: the GPU is gone for this process. The worker ran the request again on the CPU; from
        // now on everything does (the Pipeline panel greys the GPU backends out with this reason), and no interop.
        st.machine.gpu_ok = false;
        st.machine.gpu_why = "the GPU stopped working (" + r.gpu_lost + "); restart specview to use it again";
        st.machine.device.available = false;
        st.machine.device.why_unavailable = st.machine.gpu_why;
        st.machine.interop_ok = false;
        st.machine.interop_why = "the GPU stopped working";
        st.settings.backend = Backend::Cpu;
        // Said after this poll's other messages (an "opened ..." arriving with it must not hide it).
        st.gpu_lost_message = "the GPU stopped working (" + r.gpu_lost + "); switched to the CPU backend";
    }
    try {
        if (r.image_id != st.shown.image_id) {  // computed for an image since replaced
            if (f.gl_ready) glDeleteSync(reinterpret_cast<GLsync>(f.gl_ready));  // (its slot is not read)
            if (slot >= 0) st.worker->release_slot(slot);
            return;
        }
        st.shown.spectrum_image_id = r.image_id;  // this frame of a stack is done with: playing may go on
        if (!r.ok) {
            if (r.change >= st.preview_change) st.preview_change = 0;  // no preview of settings that cannot run
            st.messages.error(r.error + (st.shown.have_frame ? " (the previous picture stays)" : ""));
            mark_ready(st, r.change, -1, true);
            return;
        }
        if (!r.lab_rgba.empty()) {  // the lab's third view: staged like a host picture
            st.lab.shown_lo = r.lab_lo;
            st.lab.shown_hi = r.lab_hi;
            st.lab_tex.begin(std::move(r.lab_rgba), r.lab_width, r.lab_height);
        }
        if (f.gl_texture) {
            // The GL backend's picture in a slot texture of the share group: the view's texture gets it by a copy on
            // the GPU once the worker's fence is passed (a wait on the device: this frame does not block), and the
            // slot goes back with a fence after that copy, which the next GL run into it waits for.
            st.spectrum_tex.begin({}, 0, 0);  // a host picture still on its way is superseded
            st.staged_frame.reset();
            GlTexture& tex = st.spectrum_tex.texture(st.spectrum_tex.front_index());
            tex.ensure(f.width, f.height);
            GLsync ready = reinterpret_cast<GLsync>(f.gl_ready);
            glWaitSync(ready, 0, GL_TIMEOUT_IGNORED);
            glDeleteSync(ready);
            f.gl_ready = 0;
            glCopyImageSubData(GLuint(f.gl_texture), GL_TEXTURE_2D, 0, 0, 0, 0, tex.id(), GL_TEXTURE_2D, 0, 0, 0, 0,
                               f.width, f.height, 1);
            check_gl("copying the GL backend's picture into the view");
            GLsync read = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
            if (st.gl_copy_done) glDeleteSync(reinterpret_cast<GLsync>(st.gl_copy_done));
            st.gl_copy_done = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
            glFlush();  // the worker's context waits on `read`
            st.worker->release_slot(slot, reinterpret_cast<std::uint64_t>(read));
            st.copy_pending = true;
            st.copy_change = r.change;
        } else
#ifdef SPECVIEW_HAS_GL_INTEROP
        if (f.device_rgba) {
            // Device to device into the texture; the worker may write the slot again once the copy is done.
            // Into the front texture (the map orders the copy after GL's use of it; copying into the back and
            // swapping was measured no faster on the H100 machine: the map waits for all of GL's earlier work).
            // One registration per texture of the pair: a host picture may have made the other one the front.
            st.spectrum_tex.begin({}, 0, 0);  // a host picture still on its way is superseded
            st.staged_frame.reset();
            const int ti = st.spectrum_tex.front_index();
            GlTexture& tex = st.spectrum_tex.texture(ti);
            tex.ensure(f.width, f.height);
            register_with_cuda(tex, st.interop[ti], st.copier);
            gpu::GlInteropCopier::Target copies[2] = {
                {&st.interop[ti], f.device_rgba, f.width, f.height, f.slot_consumed_event}, {}};
            int n = 1;
            if (f.device_lab_rgba) {  // the lab's third view, made next to it in the same slot
                st.lab.shown_lo = f.lab_lo;
                st.lab.shown_hi = f.lab_hi;
                st.lab_tex.begin({}, 0, 0);  // a host picture still on its way is superseded
                const int li = st.lab_tex.front_index();
                GlTexture& lt = st.lab_tex.texture(li);
                lt.ensure(f.lab_width, f.lab_height);
                register_with_cuda(lt, st.lab_interop[li], st.copier);
                copies[n++] = {&st.lab_interop[li], f.device_lab_rgba, f.lab_width, f.lab_height,
                               f.slot_lab_consumed_event};
            }
            st.copier.copy(copies, n);
            st.worker->release_slot(slot);
            st.copy_pending = true;
            st.copy_change = r.change;
        } else
#endif
        {
            if (f.rgba.size() != std::size_t(f.width) * f.height)
                throw std::runtime_error("internal: a picture of " + std::to_string(f.rgba.size()) + " texels for " +
                                         std::to_string(f.width) + "x" + std::to_string(f.height));
            // Staged: a band a frame into the back texture; shown (with its frame data) when complete.
            if (slot >= 0) st.worker->release_slot(slot);  // (a slot the run could not fill)
            st.spectrum_tex.begin(std::move(f.rgba), f.width, f.height);
            st.staged_frame = std::move(r);
            return;
        }
        show_frame(st, r);
    } catch (const std::exception& e) {
        if (slot >= 0) st.worker->release_slot(slot);
        st.messages.error(e.what());
        mark_ready(st, r.change, -1, true);
    }
}

void show_frame(ViewerState& st, RunResult& r) {
    {
        Frame& f = r.frame;
        st.shown.frame = std::move(f);
        st.shown.settings = r.settings;
        st.frame_change = r.change;
        st.shown.have_frame = true;
        st.value_asked = false;
        st.timings.history.push_back(float(st.shown.frame.total_ms));
        if (st.timings.history.size() > 240) st.timings.history.erase(st.timings.history.begin());
        if (st.messages.is_error && !st.messages.lasting) st.messages.text.clear();
    }
}

// Host pictures and the image: one band a frame, so no frame stalls on a large upload.
constexpr std::size_t kUploadBytesPerFrame = 16u << 20;

// Through CUDA interop: ~4x the bytes a frame (the driver stages pageable memory at several GB/s, where
// glTexSubImage2D of RGBA bytes took ~10 ms for 16 MB on the H100 machine, so an 8192^2 image took 16 frames).
constexpr std::size_t kDeviceUploadBytesPerFrame = 64u << 20;

bool step_image_upload(ViewerState& st) {
#ifdef SPECVIEW_HAS_GL_INTEROP
    if (st.machine.interop_ok && !st.image_upload_gl) {
        return st.image_tex.step(kDeviceUploadBytesPerFrame,
                                 [&](GlTexture& t, int i, const std::uint32_t* px, int y0, int rows) {
                                     try {
                                         register_with_cuda(t, st.image_interop[i], st.image_copier);
                                         st.image_copier.upload_rows(st.image_interop[i], px, y0, rows);
                                     } catch (const std::exception& e) {
                                         st.image_upload_gl = true;
                                         st.messages.error(std::string("image upload through CUDA failed (") +
                                                           e.what() + "); using OpenGL uploads");
                                         t.upload_rows(px, y0, rows);
                                     }
                                 });
    }
#endif
    return st.image_tex.step(kUploadBytesPerFrame);
}

void step_uploads(ViewerState& st) {
    if (step_image_upload(st) && st.startup.image_shown < 0) st.startup.image_shown = viewer_clock() * 1e3;
    st.lab_tex.step(kUploadBytesPerFrame);
    st.corr_tex.step(kUploadBytesPerFrame);
    st.stack_tex.step(kUploadBytesPerFrame);
    volume_step_uploads(st, kUploadBytesPerFrame);
    if (st.spectrum_tex.step(kUploadBytesPerFrame) && st.staged_frame) {
        const std::uint64_t change = st.staged_frame->change;
        show_frame(st, *st.staged_frame);
        st.staged_frame.reset();
        mark_ready(st, change);
    }
}

}  // namespace

namespace {
// A video frame NVDEC decoded, written into the image view's back texture on the device (no host copy) and
// shown at once (GL's drawing waits for the copy); the frame is held until the copy is done. The worker sends
// such frames only when interop works here.
void show_device_image(ViewerState& st, const std::shared_ptr<const Image>& img) {
#ifdef SPECVIEW_HAS_GL_INTEROP
    try {
        const int back = 1 - st.image_tex.front_index();
        GlTexture& t = st.image_tex.texture(back);
        t.ensure(img->width, img->height);
        register_with_cuda(t, st.image_interop[back], st.image_copier);
        gpu::GlInteropCopier::Target target{&st.image_interop[back], nullptr, img->width, img->height, 0};
        target.gray = img->device->data;
        target.gray_pitch = img->device->pitch;
        target.gray_depth = img->bit_depth;
        target.gray_significant_bits = img->device->significant_bits;
        st.image_copier.copy(&target, 1);
        st.image_tex.show(back);
        st.image_copy_source = img;
        if (st.startup.image_shown < 0) st.startup.image_shown = viewer_clock() * 1e3;
    } catch (const std::exception& e) {
        st.messages.error(std::string("the frame's picture through CUDA failed (") + e.what() + ")");
    }
#else
    (void)img;
    st.messages.error("internal: a device frame without CUDA-OpenGL interop");
#endif
}
}  // namespace

void poll_copy(ViewerState& st) {
    if (st.gl_copy_done) {  // a GL slot's copy into the view: ready once its fence is passed (never waited for here)
        const GLenum r = glClientWaitSync(reinterpret_cast<GLsync>(st.gl_copy_done), 0, 0);
        if (r == GL_TIMEOUT_EXPIRED) return;
        glDeleteSync(reinterpret_cast<GLsync>(st.gl_copy_done));
        st.gl_copy_done = nullptr;
        st.copy_pending = false;
        if (r == GL_WAIT_FAILED) {
            st.messages.error("the GL backend's picture could not be copied into the view");
            mark_ready(st, st.copy_change, -1, true);
        } else {
            mark_ready(st, st.copy_change, viewer_clock());
        }
        return;
    }
#ifdef SPECVIEW_HAS_GL_INTEROP
    try {
        if (st.image_copy_source && st.image_copier.done()) st.image_copy_source.reset();  // the decoder's frame back
        if (!st.copy_pending || !st.copier.done()) return;
    } catch (const gpu::GpuError& e) {
        // The copy's stream failed (the GPU stopped working mid-copy): that picture never arrives. The run that
        // meets the same error says so and falls back to the CPU (take_frame); no more interop until then.
        st.image_copy_source.reset();
        st.machine.interop_ok = false;
        if (st.copy_pending) {
            st.copy_pending = false;
            mark_ready(st, st.copy_change, -1, true);
        }
        st.messages.error(std::string("a copy into the texture failed: ") + e.what());
        return;
    }
    st.copy_pending = false;
    if (auto it = st.change_index.find(st.copy_change); it != st.change_index.end()) {
        gpu::GlInteropCopier::Split x;
        if (st.copier.last_split(&x)) st.changes[it->second].copy = {x.issue_ms, x.map_ms, x.copy_ms, x.unmap_ms};
    }
    mark_ready(st, st.copy_change, viewer_clock_of(st.copier.written_at()));
#endif
}

// A live preview of a change newer than the picture shown (and than one on its way): into its texture at once
// (~4 MB), drawn in the spectrum's place until a picture of that change or a later one is shown.
void take_preview(ViewerState& st, PreviewResult& p) {
    if (p.image_id != st.shown.image_id || p.change <= st.frame_change) return;
    if (st.staged_frame && st.staged_frame->change >= p.change) return;
    st.preview_tex.ensure(p.preview.width, p.preview.height);
    st.preview_tex.upload(p.preview.rgba.data());
    std::vector<std::uint32_t>().swap(p.preview.rgba);
    st.preview = std::move(p.preview);
    st.preview_change = p.change;
    if (auto it = st.change_index.find(p.change); it != st.change_index.end()) {
        ChangeRecord& c = st.changes[it->second];
        c.preview_ms = (viewer_clock() - c.t_posted) * 1e3;
    }
}

// Every backend's devices, listed on a thread of their own once the first picture is shown (or a first image failed:
// OpenCL's platforms and a GL context take a while, and nothing of the first picture waits for them).
void poll_device_listing(ViewerState& st) {
    if (st.machine.devices_listed) return;
    if (!st.device_listing.valid()) {
        if (st.first_picture_ms >= 0 || !st.messages.text.empty())
            st.device_listing = std::async(std::launch::async, [] { return list_devices(); });
        return;
    }
    if (st.device_listing.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    try {
        st.machine.devices = st.device_listing.get();
    } catch (const std::exception& e) {
        st.machine.devices = {{"cpu", "", "(the device listing failed: " + std::string(e.what()) + ")", true, ""}};
    }
    st.machine.devices_listed = true;
}

void apply_worker_updates(ViewerState& st) {
    poll_copy(st);
    poll_device_listing(st);
    WorkerUpdates u = st.worker->poll();
    for (std::uint64_t fence : u.stale_gl_fences) glDeleteSync(reinterpret_cast<GLsync>(fence));
    if (u.decoded) take_decoded(st, *u.decoded);
    if (u.display && u.display->image_id == st.shown.image_id) {  // the image view's picture, made after the image came
        if (u.display->device_image)
            show_device_image(st, u.display->device_image);
        else
            st.image_tex.begin(std::move(u.display->rgba), u.display->width, u.display->height);
    }
    for (const auto& [error, text] : u.messages) error ? st.messages.error(text) : st.messages.info(text);  // in order
    if (!st.roi_let_go.empty()) st.messages.info(std::exchange(st.roi_let_go, std::string()));
    if (u.run) take_frame(st, *u.run);
    if (u.preview) take_preview(st, *u.preview);
    if (u.value) {
        st.value = *u.value;
        st.value_asked = false;
    }
    if (u.sweep) {
        st.timings.sweep = *u.sweep;
        st.timings.sweep_running = !u.sweep->finished;
    }
    if (u.comparison) st.timings.comparison = *u.comparison;
    if (u.plane_row) st.classroom.plane_row = *u.plane_row;
    if (u.resources) st.device_ui.resources_cache = *u.resources;
    if (u.analysis) take_analysis(st, *u.analysis);
    if (u.correlation) take_correlation(st, *u.correlation);
    if (u.stack) take_stack(st, *u.stack);
    if (u.volume) take_volume(st, *u.volume);
    // (lasting: the CPU's picture, uploaded in bands over the next frames, must not clear it when it arrives)
    if (!st.gpu_lost_message.empty()) st.messages.lasting_error(std::exchange(st.gpu_lost_message, std::string()));
    step_uploads(st);
    request_analysis(st);
}

namespace {

// [SECTION] Drawing: the readout, the lab's outlines and brush, the views, the status line
// Records where something was drawn, in framebuffer pixels, for the GUI tests.
void record(ViewerState& st, const std::string& what, ImVec2 a, ImVec2 b) {
    const ImVec2 s = ImGui::GetIO().DisplayFramebufferScale;
    char line[256];
    std::snprintf(line, sizeof line, "%s %.1f %.1f %.1f %.1f", what.c_str(), a.x * s.x, a.y * s.y, b.x * s.x,
                  b.y * s.y);
    st.layout.push_back(line);
}

// Signed frequency of unshifted bin k of n: 0 .. ceil(n/2)-1, then negative.
int signed_bin(int k, int n) { return k < (n + 1) / 2 ? k : k - n; }

// The calibration the readout and the axes use: --pixel-size, else what the shown image's file says.
PixelSize shown_pixel_size(const ViewerState& st) {
    if (st.calibration.pixel_size.calibrated()) return st.calibration.pixel_size;
    return st.shown.image ? st.shown.image->pixel_size : PixelSize{};
}

void draw_readout(ViewerState& st) {
    if (st.image_hover.active && st.shown.image) {
        const Image& img = *st.shown.image;
        const int x = st.image_hover.x, y = st.image_hover.y;
        std::string line = "image (" + std::to_string(x) + ", " + std::to_string(y) + "):";
        if (img.on_device()) line += " a frame decoded on the GPU (values: --video-decode cpu)";
        for (int c = 0; c < (img.on_device() ? 0 : img.channels); ++c) {
            char v[32];
            std::snprintf(v, sizeof v, " %.4f", img.at(x, y, c));
            line += v;
        }
        ImGui::TextWrapped("%s", line.c_str());
    } else {
        ImGui::TextDisabled("image: hover for pixel values");
    }
    const Frame& f = st.shown.frame;
    const bool hovering = st.script_hover || st.spectrum_hover.active;
    if (!(hovering && st.shown.have_frame)) {
        ImGui::TextDisabled("spectrum: hover for frequency, magnitude and phase");
        return;
    }
    const int x = st.script_hover ? st.script_hover_x : st.spectrum_hover.x;
    const int y = st.script_hover ? st.script_hover_y : st.spectrum_hover.y;
    const int W = f.width, H = f.height;
    if (x < 0 || y < 0 || x >= W || y >= H) return;
    const Settings& fs_ = st.shown.settings;  // what the picture shown was computed with
    const bool shifted = fs_.view.shift;
    const int ux = shifted ? shift_source(x, W) : x, uy = shifted ? shift_source(y, H) : y;
    // A stack: T over the spectrum measures this bin's time series over the frames (with the mean spectrum).
    bool t_pressed = false;  // ImGui 1.86 names no letter keys but A, C, V, X, Y, Z: the typed characters
    for (const ImWchar ch : ImGui::GetIO().InputQueueCharacters) t_pressed |= ch == 't' || ch == 'T';
    if (st.shown.image && st.shown.image->frames > 1 && !st.classroom.enabled && st.spectrum_hover.active &&
        t_pressed && !ImGui::GetIO().WantTextInput) {
        st.analysis.open = true;
        st.analysis.stack_u = signed_bin(ux, W);
        st.analysis.stack_v = signed_bin(uy, H);
        st.worker->stack_analysis(st.shown.settings, st.shown.image_path, st.analysis.stack_u, st.analysis.stack_v);
        st.messages.info("measuring bin (" + std::to_string(st.analysis.stack_u) + ", " +
                         std::to_string(st.analysis.stack_v) + ") over the stack's " +
                         std::to_string(st.shown.image->frames) + " frames ...");
    }
    std::complex<double> F;
    bool known = false;
    if (f.host_data) {
        const std::size_t i = std::size_t(uy) * W + ux;
        if (i < f.host_data->size()) {
            F = (*f.host_data)[i];
            known = true;
        }
    } else if (st.value.ok && st.value.frame_change == st.frame_change && st.value.x == ux && st.value.y == uy) {
        F = st.value.value;
        known = true;
    } else if (!st.value_asked || st.value_change != st.frame_change || st.value_x != ux || st.value_y != uy) {
        // The GPU keeps the data on the device: ask for this one value (a direct DFT of the plane's bin).
        st.worker->read_value(fs_, st.frame_change, ux, uy);
        st.value_asked = true;
        st.value_change = st.frame_change;
        st.value_x = ux;
        st.value_y = uy;
    }
    const double mag = std::abs(F), ph = std::arg(F) * 180.0 / M_PI;
    if (fs_.stop.kind != gpu::StopPoint::Kind::Done) {
        if (known)
            ImGui::TextWrapped("data at row %d, element %d: %.4g %+.4gi   |.| %.4g   phase %.1f deg", uy, ux, F.real(),
                        F.imag(), mag, ph);
        else
            ImGui::TextDisabled("data at row %d, element %d: reading ...", uy, ux);
        return;
    }
    const int kx = signed_bin(ux, W), ky = signed_bin(uy, H);
    const double u = double(kx) / W, v = double(ky) / H;
    // The image's own size beside the transform's, where it was padded (the bins count cycles per the padded size).
    char own[64] = "";
    if (f.image_width > 0 && (f.image_width != W || f.image_height != H))
        std::snprintf(own, sizeof own, ", the %dx%d %s padded", f.image_width, f.image_height,
                      fs_.roi.whole() ? "image" : "ROI");
    ImGui::TextWrapped("spectrum bin (%d, %d): u = %+.4f, v = %+.4f cycles/pixel (%+d, %+d cycles per %dx%d%s)", kx, ky, u, v,
                kx, ky, W, H, own);
    // The period (ImageJ's "p/c"), and both in physical units where calibrated (--pixel-size, or the file's own).
    const double radius = std::hypot(u, v);
    const PixelSize px = shown_pixel_size(st);
    if (radius > 0) {
        if (px.calibrated())
            ImGui::TextWrapped("period %.4g pixels/cycle = %.4g %s;  radius %.4g /%s", 1.0 / radius, px.value / radius,
                        px.unit.c_str(), radius / px.value, px.unit.c_str());
        else
            ImGui::TextWrapped("period %.4g pixels/cycle", 1.0 / radius);
        char line[160];
        std::snprintf(line, sizeof line, "readout_period %d %d %.9g %.9g %s", kx, ky, 1.0 / radius,
                      px.calibrated() ? px.value / radius : 0.0, px.calibrated() ? px.unit.c_str() : "px");
        st.layout.push_back(line);
    }
    // The angle as the wedge and stripe filters and the angular profile take it (counter-clockwise, up positive).
    const double angle = bin_angle_degrees(u, v);
    if (known) {
        ImGui::TextWrapped("radius %.4f cycles/pixel, angle %.1f deg   |F| %.5g (%.1f dB)   phase %.1f deg", std::hypot(u, v),
                    angle, mag, 20.0 * std::log10(std::max(mag, 1e-30)), ph);
        char line[160];
        std::snprintf(line, sizeof line, "readout %d %d %.6g %.6g", kx, ky, F.real(), F.imag());
        st.layout.push_back(line);
    } else {
        ImGui::TextWrapped("radius %.4f cycles/pixel, angle %.1f deg   |F| reading ...", std::hypot(u, v), angle);
    }
    st.layout.push_back("readout_angle " + std::to_string(kx) + " " + std::to_string(ky) + " " + std::to_string(angle));
}

// The filters' cut-offs drawn over the spectrum: rings at their radii (ellipses when the picture is not square:
// R cycles/pixel is R width texels across and R height texels down), notch discs at (U, V) and (-U, -V).
void draw_filter_outlines(ViewerState& st, const DrawnImage& d) {
    const GlTexture& tex = st.spectrum_tex.front();
    const int w = tex.width(), h = tex.height();
    const float sx = (d.p1.x - d.p0.x) / float(w), sy = (d.p1.y - d.p0.y) / float(h);
    const bool shift = st.shown.settings.view.shift;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(d.clip0, d.clip1, true);
    auto ellipse = [&](double u, double v, double r, ImU32 colour) {
        // Centred on frequency (u, v): shifted, DC sits at texel (w/2, h/2); unshifted, at the corners (drawn at
        // all four so the ring wraps as the spectrum does).
        std::vector<std::pair<double, double>> centres;
        if (shift)
            centres.push_back({w / 2 + u * w, h / 2 + v * h});
        else
            for (int cy : {0, h})
                for (int cx : {0, w}) centres.push_back({cx + u * w, cy + v * h});
        for (const auto& [cx, cy] : centres) {
            ImVec2 pts[72];
            for (int i = 0; i < 72; ++i) {
                const double a = 2 * M_PI * i / 72;
                pts[i] = ImVec2(d.p0.x + float((cx + 0.5 + r * w * std::cos(a)) * sx),
                                d.p0.y + float((cy + 0.5 + r * h * std::sin(a)) * sy));
            }
            dl->AddPolyline(pts, 72, colour, ImDrawFlags_Closed, 1.5f);
        }
    };
    int i = 0;
    for (const FilterSpec& f : st.settings.filters) {
        const ImU32 colour = i++ == st.lab.selected ? IM_COL32(255, 220, 0, 230) : IM_COL32(0, 200, 255, 200);
        switch (f.kind) {
            case FilterKind::LowPass:
            case FilterKind::HighPass:
                ellipse(0, 0, f.r, colour);
                break;
            case FilterKind::BandPass:
            case FilterKind::BandStop:
                ellipse(0, 0, f.r1, colour);
                ellipse(0, 0, f.r2, colour);
                break;
            case FilterKind::Notch:
                ellipse(f.u, f.v, f.r, colour);
                ellipse(-f.u, -f.v, f.r, colour);
                break;
            case FilterKind::Wedge:
            case FilterKind::Stripe: {
                if (!shift) break;  // lines through DC: drawn on the shifted spectrum only
                // A direction a (degrees, up positive) is (cos a, -sin a) in (u, v); the lines run across the
                // spectrum through DC (a wedge's edges at a +- half-width), or at +- width/2 beside it (a stripe).
                auto line = [&](double a_deg, double off) {
                    const double a = a_deg * M_PI / 180.0, du = std::cos(a), dv = -std::sin(a);
                    const double nu = -dv, nv = du;  // the normal
                    const double u0 = off * nu, v0 = off * nv;
                    auto at = [&](double t) {
                        return ImVec2(d.p0.x + float((w / 2 + 0.5 + (u0 + t * du) * w) * sx),
                                      d.p0.y + float((h / 2 + 0.5 + (v0 + t * dv) * h) * sy));
                    };
                    dl->AddLine(at(-1.0), at(1.0), colour, 1.5f);
                };
                if (f.kind == FilterKind::Wedge) {
                    line(f.angle - f.r, 0.0);
                    line(f.angle + f.r, 0.0);
                } else {
                    line(f.angle, -0.5 * f.r);
                    line(f.angle, 0.5 * f.r);
                }
                if (f.r1 > 0) ellipse(0, 0, f.r1, colour);
                break;
            }
        }
    }
    dl->PopClipRect();
    st.layout.push_back("filter-outlines " + std::to_string(st.settings.filters.size()));
}

// The lab's brush on the spectrum view: a circle (and its mirror) under the cursor; dragging with the left
// button adds a dab (paint or erase, in whole bins) every half radius. Called right after the view's button.
void brush_on_spectrum(ViewerState& st, const DrawnImage& d) {
    LabUi& lab = st.lab;
    const bool down = ImGui::IsItemActive() && ImGui::IsMouseDown(ImGuiMouseButton_Left);
    if (!down) lab.painting = false;
    const GlTexture& tex = st.spectrum_tex.front();
    if (!lab.brush || st.classroom.enabled || !tex.valid() || !st.spectrum_hover.active) return;
    const int w = tex.width(), h = tex.height();
    const bool shift = st.shown.settings.view.shift;
    const int tx = st.spectrum_hover.x, ty = st.spectrum_hover.y;
    // The texel's signed bin: shifted, texel i shows bin i - n/2; unshifted, bin i (negative above n/2).
    const int u = shift ? tx - w / 2 : (tx < (w + 1) / 2 ? tx : tx - w);
    const int v = shift ? ty - h / 2 : (ty < (h + 1) / 2 ? ty : ty - h);
    const float sx = (d.p1.x - d.p0.x) / float(w), sy = (d.p1.y - d.p0.y) / float(h);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(d.clip0, d.clip1, true);
    const ImU32 colour = lab.brush == 1 ? IM_COL32(255, 80, 80, 230) : IM_COL32(80, 255, 120, 230);
    for (int m = 0; m < 2 && lab.brush != 3; ++m) {
        const int bu = m ? -u : u, bv = m ? -v : v;
        if (!shift && m) break;  // unshifted, the mirror is far away at the other corner
        const float cx = d.p0.x + (float(shift ? bu + w / 2 : tx) + 0.5f) * sx;
        const float cy = d.p0.y + (float(shift ? bv + h / 2 : ty) + 0.5f) * sy;
        ImVec2 pts[48];
        for (int i = 0; i < 48; ++i) {
            const float a = 2.0f * float(M_PI) * float(i) / 48.0f;
            pts[i] = ImVec2(cx + lab.brush_radius * sx * std::cos(a), cy + lab.brush_radius * sy * std::sin(a));
        }
        dl->AddPolyline(pts, 48, colour, ImDrawFlags_Closed, 1.5f);
    }
    dl->PopClipRect();
    if (lab.brush == 3) {  // the line profile's line: from where the drag started to the cursor
        AnalysisUi& an = st.analysis;
        if (down && !lab.painting) {
            an.u0 = u, an.v0 = v;
            lab.painting = true;
        }
        if (down && (an.u1 != u || an.v1 != v || !an.have_line)) {
            an.u1 = u, an.v1 = v;
            an.have_line = true;
            an.open = true;
            an.ask = true;
        }
        return;
    }
    if (!down) return;
    const float step = std::max(1.0f, lab.brush_radius * 0.5f);
    if (lab.painting && std::hypot(float(u) - lab.last_u, float(v) - lab.last_v) < step) return;
    if (st.settings.strokes.size() >= kMaxStrokes) {
        st.messages.error("at most " + std::to_string(kMaxStrokes) + " brush dabs: undo or clear some");
        return;
    }
    st.settings.strokes.push_back(BrushStroke{double(u), double(v), double(lab.brush_radius), lab.brush == 2 ? 1 : 0});
    lab.painting = true;
    lab.last_u = float(u);
    lab.last_v = float(v);
    st.dirty = true;
}

// The line profile's line over the spectrum (shifted pictures: signed bin (u, v) sits at texel (w/2 + u, h/2 + v)).
void draw_profile_line(ViewerState& st, const DrawnImage& d) {
    const AnalysisUi& a = st.analysis;
    const GlTexture& tex = st.spectrum_tex.front();
    if (!a.have_line || !tex.valid() || !st.shown.settings.view.shift || st.classroom.enabled) return;
    const int w = tex.width(), h = tex.height();
    const float sx = (d.p1.x - d.p0.x) / float(w), sy = (d.p1.y - d.p0.y) / float(h);
    auto at = [&](double u, double v) {
        return ImVec2(d.p0.x + float(w / 2 + u + 0.5) * sx, d.p0.y + float(h / 2 + v + 0.5) * sy);
    };
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(d.clip0, d.clip1, true);
    dl->AddLine(at(a.u0, a.v0), at(a.u1, a.v1), IM_COL32(230, 180, 255, 255), 2.0f);
    dl->AddCircleFilled(at(a.u0, a.v0), 3.5f, IM_COL32(230, 180, 255, 255));
    dl->PopClipRect();
}

// The ROI on the image view: Shift + left drag draws one (released: the spectrum is of that rectangle only); the
// one in use drawn as a yellow frame. Called right after the view's button.
void roi_on_image(ViewerState& st, const DrawnImage& d) {
    const GlTexture& tex = st.image_tex.front();
    if (!tex.valid() || !st.shown.image) return;
    const int w = st.shown.image->width, h = st.shown.image->height;
    const float sx = (d.p1.x - d.p0.x) / float(tex.width()), sy = (d.p1.y - d.p0.y) / float(tex.height());
    ImGuiIO& io = ImGui::GetIO();
    auto texel_at = [&](ImVec2 m) {
        return ImVec2(std::clamp((m.x - d.p0.x) / sx, 0.0f, float(w)), std::clamp((m.y - d.p0.y) / sy, 0.0f, float(h)));
    };
    ViewerState::RoiDrag& r = st.roi_drag;
    if (ImGui::IsItemActivated() && io.KeyShift && ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
        const ImVec2 t = texel_at(io.MousePos);
        r = {true, t.x, t.y, t.x, t.y};
    }
    if (r.active) {
        const ImVec2 t = texel_at(io.MousePos);
        r.x1 = t.x;
        r.y1 = t.y;
        if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
            r.active = false;
            const int x0 = int(std::floor(std::min(r.x0, r.x1))), y0 = int(std::floor(std::min(r.y0, r.y1)));
            const int x1 = int(std::ceil(std::max(r.x0, r.x1))), y1 = int(std::ceil(std::max(r.y0, r.y1)));
            if (x1 - x0 >= 2 && y1 - y0 >= 2) {  // (a click is no rectangle)
                st.settings.roi = Roi{x0, y0, std::min(x1, w) - x0, std::min(y1, h) - y0};
                st.dirty = true;
            }
        }
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(d.clip0, d.clip1, true);
    auto frame = [&](float x0, float y0, float x1, float y1, ImU32 colour) {
        dl->AddRect(ImVec2(d.p0.x + x0 * sx, d.p0.y + y0 * sy), ImVec2(d.p0.x + x1 * sx, d.p0.y + y1 * sy), colour, 0,
                    0, 2.0f);
    };
    if (r.active) frame(std::min(r.x0, r.x1), std::min(r.y0, r.y1), std::max(r.x0, r.x1), std::max(r.y0, r.y1),
                        IM_COL32(255, 255, 255, 220));
    const Roi& roi = st.settings.roi;
    if (!roi.whole()) {
        frame(float(roi.x), float(roi.y), float(roi.x + roi.w), float(roi.y + roi.h), IM_COL32(255, 220, 0, 240));
        char line[96];
        std::snprintf(line, sizeof line, "roi-frame %s", roi_string(roi).c_str());
        st.layout.push_back(line);
    }
    dl->PopClipRect();
}

void draw_views(ViewerState& st, ImVec2 avail) {
    // A stack's frames as one volume: the six linked views instead of the image and its spectrum.
    if (st.shown.image && (st.shown.image->frames > 1 || st.volume.enabled) && !st.classroom.enabled) {
        if (ImGui::Checkbox("As a volume (3D spectrum of all frames)", &st.volume.enabled) && !st.volume.enabled)
            st.volume.path.clear();
        avail.y -= ImGui::GetFrameHeightWithSpacing();
        if (st.volume.enabled) {
            draw_volume_views(st, avail);
            return;
        }
    }
    // image, bin, period, radius lines (more where they wrap: last frame's height)
    const float readout_h = std::max(ImGui::GetTextLineHeightWithSpacing() * 4.3f, st.readout_h + 4.0f);
    const bool analysis = st.analysis.open && !st.classroom.enabled;
    const float overlay_h = st.classroom.enabled ? std::max(avail.y * 0.42f, 260.0f * ImGui::GetIO().FontGlobalScale)
                            : analysis           ? std::max(avail.y * 0.36f, 230.0f * ImGui::GetIO().FontGlobalScale)
                                                 : 0.0f;
    const float views_h = std::max(avail.y - readout_h - overlay_h, 50.0f);
    const bool lab = has_mask(st.settings) && !st.classroom.enabled;
    const int views = lab ? 3 : 2;
    const bool stacked = views_h > avail.x * (lab ? 1.4f : 0.9f);
    const float header_h = ImGui::GetFrameHeightWithSpacing();
    ImVec2 each =
        stacked ? ImVec2(avail.x, views_h / views - header_h) : ImVec2(avail.x / views - 4, views_h - header_h);
    each.y = std::max(each.y, 20.0f);

    auto view_header = [&](const char* title, ViewTransform& vt, const GlTexture& tex, const char* id,
                           const std::string& range = std::string()) {
        ImGui::PushID(id);
        ImGui::TextUnformatted(title);
        ImGui::SameLine();
        if (ImGui::SmallButton("Fit")) {  // synced: every view fits
            vt.fit = true;
            if (st.sync_views) st.image_view.fit = st.spectrum_view.fit = st.lab_view.fit = true;
        }
        ImGui::SameLine();
        if (ImGui::SmallButton("1:1")) {  // synced: the others follow this one (drawn below)
            vt.fit = false;
            vt.zoom = 1.0f / ImGui::GetIO().DisplayFramebufferScale.x;
            st.view_moved = &vt == &st.image_view ? 0 : &vt == &st.spectrum_view ? 1 : 2;
        }
        // The rest only while it fits the view's width (the header never wraps: the view stays where it is).
        bool room = true;
        auto fits = [&](float w) {
            if (!room) return false;
            ImGui::SameLine();
            if (ImGui::GetContentRegionAvail().x >= w) return true;
            ImGui::Dummy(ImVec2(0, ImGui::GetFrameHeight()));  // (the line as tall as with the checkbox)
            return room = false;
        };
        if (fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize("sync").x))
            ImGui::Checkbox("sync", &st.sync_views);
        char dims[32] = "";
        if (tex.valid()) std::snprintf(dims, sizeof dims, "%dx%d", tex.width(), tex.height());
        if (dims[0] && fits(ImGui::CalcTextSize(dims).x)) ImGui::TextDisabled("%s", dims);
        const float bw = 4.0f * ImGui::GetFontSize(), bh = ImGui::GetTextLineHeight();
        if (!range.empty() &&
            fits(bw + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(range.c_str()).x)) {
            // data shown over an automatic range: a small gray bar and its ends
            const ImVec2 p = ImGui::GetCursorScreenPos();
            ImGui::GetWindowDrawList()->AddRectFilledMultiColor(p, ImVec2(p.x + bw, p.y + bh), IM_COL32(0, 0, 0, 255),
                                                                IM_COL32(255, 255, 255, 255),
                                                                IM_COL32(255, 255, 255, 255), IM_COL32(0, 0, 0, 255));
            ImGui::Dummy(ImVec2(bw, bh));
            ImGui::SameLine();
            ImGui::TextDisabled("%s", range.c_str());
        }
        ImGui::PopID();
    };

    // Each view in a child of its own size: a header wider than the view is clipped there, never pushing the next
    // view off the window.
    const ImVec2 cell(each.x, each.y + header_h);
    constexpr ImGuiWindowFlags kCell = ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;
    ImGui::BeginChild("view-image", cell, false, kCell);
    const char* spectrum_title = st.classroom.enabled ? "Data at this step" : "Spectrum";
    std::string image_range;
    if (st.shown.image && st.shown.image_range.mode == DisplayRange::Mode::Values) {
        char r[96];
        std::snprintf(r, sizeof r, "%.4g .. %.4g", double(st.shown.image_range.lo), double(st.shown.image_range.hi));
        image_range = r;
        st.layout.push_back(std::string("image-range ") + r);
    }
    view_header((st.shown.image != nullptr) ? fs::path(st.shown.image_path).filename().string().c_str() : "Image",
                st.image_view, st.image_tex.front(), "imgv", image_range);
    // Shift + left drag draws an ROI (the right button pans meanwhile).
    const bool shift_held = ImGui::GetIO().KeyShift || st.roi_drag.active;
    const DrawnImage a =
        draw_image_view("##image", st.image_tex.front(), st.image_view, each, st.image_hover, !shift_held);
    roi_on_image(st, a);
    record(st, "image_image", a.p0, a.p1);
    const PixelSize px = shown_pixel_size(st);
    if (st.image_tex.front().valid())
        draw_image_axes(a, st.image_tex.front().width(), st.image_tex.front().height(), px, st.layout);
    ImGui::EndChild();
    if (!stacked) ImGui::SameLine();
    ImGui::BeginChild("view-spectrum", cell, false, kCell);
    // The live preview while a CPU run is on its way (every fx-th bin, each preview pixel on the bin it shows).
    DrawnInstead preview;
    {
        const GlTexture& sp = st.spectrum_tex.front();
        const Preview& p = st.preview;
        if (st.preview_change > st.frame_change && !st.classroom.enabled && st.preview_tex.valid() && sp.valid() &&
            sp.width() == p.plane_width && sp.height() == p.plane_height) {
            preview.tex = &st.preview_tex;
            const float u0 = (0.5f - (0.5f + float(p.offset_x)) / float(p.fx)) / float(p.width);
            const float v0 = (0.5f - (0.5f + float(p.offset_y)) / float(p.fy)) / float(p.height);
            preview.uv0 = ImVec2(u0, v0);
            preview.uv1 = ImVec2(u0 + 1.0f, v0 + 1.0f);
            spectrum_title = "Spectrum (preview)";
            st.layout.push_back("spectrum-preview " + std::to_string(p.fx) + "x" + std::to_string(p.fy));
        }
    }
    view_header(spectrum_title, st.spectrum_view, st.spectrum_tex.front(), "specv");
    const bool brush = st.lab.brush != 0 && !st.classroom.enabled;
    // A spectrum's bins at their true aspect (a W x H spectrum covers -0.5 .. 0.5 cycles/pixel both ways, so it is
    // shown square); the classroom's data at a step are rows of numbers, one square texel each.
    {
        const GlTexture& sp = st.spectrum_tex.front();
        const bool spectrum = !st.classroom.enabled && st.shown.have_frame &&
                              st.shown.settings.stop.kind == gpu::StopPoint::Kind::Done && sp.valid() && sp.height() > 0;
        st.spectrum_view.aspect = spectrum ? float(sp.width()) / float(sp.height()) : 1.0f;
        st.layout.push_back("spectrum-aspect " + std::to_string(st.spectrum_view.aspect));
    }
    const DrawnImage b =
        draw_image_view("##spectrum", st.spectrum_tex.front(), st.spectrum_view, each, st.spectrum_hover, !brush,
                        preview.tex ? &preview : nullptr);
    brush_on_spectrum(st, b);
    draw_profile_line(st, b);
    record(st, "spectrum_image", b.p0, b.p1);
    if (st.spectrum_tex.front().valid() && st.shown.have_frame && !st.classroom.enabled) {
        draw_spectrum_axes(b, st.spectrum_tex.front().width(), st.spectrum_tex.front().height(),
                           st.shown.settings.view.shift, px, st.layout);
        draw_view_colorbar(b, st.shown.settings.view.colormap,
                           preview.tex ? st.preview.range_lo : st.shown.frame.range_lo,
                           preview.tex ? st.preview.range_hi : st.shown.frame.range_hi,
                           view_unit(st.shown.settings.view.view), st.layout);
    }
    if (lab && st.spectrum_tex.front().valid()) draw_filter_outlines(st, b);
    if (lab)
        st.layout.push_back("mask " + mask_summary(st.settings.filters, st.settings.strokes, st.settings.mask_invert));
    ImGui::EndChild();
    if (lab) {
        if (!stacked) ImGui::SameLine();
        ImGui::BeginChild("view-lab", cell, false, kCell);
        const char* title = st.settings.lab_view == LabView::Filtered  ? "Filtered image"
                            : st.settings.lab_view == LabView::Removed ? "Removed by the filters"
                                                                       : "|original - filtered|";
        view_header(title, st.lab_view, st.lab_tex.front(), "labv");
        const DrawnImage c = draw_image_view("##lab", st.lab_tex.front(), st.lab_view, each, st.lab_hover);
        record(st, "lab_image", c.p0, c.p1);
        if (c.changed && st.sync_views)
            sync_transform(st.lab_view, st.lab_tex.front().width(), st.lab_tex.front().height(), st.image_view,
                           st.image_tex.front().width(), st.image_tex.front().height());
        ImGui::EndChild();
    }
    if (st.sync_views) {
        const GlTexture &it = st.image_tex.front(), &sp = st.spectrum_tex.front();
        const GlTexture& lt0 = st.lab_tex.front();
        if (st.view_moved == 2 && lt0.valid())  // (the lab view moves with the image's)
            sync_transform(st.lab_view, lt0.width(), lt0.height(), st.image_view, it.width(), it.height());
        if (st.view_moved == 0 || st.view_moved == 2)
            sync_transform(st.image_view, it.width(), it.height(), st.spectrum_view, sp.width(), sp.height());
        if (st.view_moved == 1)
            sync_transform(st.spectrum_view, sp.width(), sp.height(), st.image_view, it.width(), it.height());
        if (a.changed)
            sync_transform(st.image_view, it.width(), it.height(), st.spectrum_view, sp.width(), sp.height());
        else if (b.changed)
            sync_transform(st.spectrum_view, sp.width(), sp.height(), st.image_view, it.width(), it.height());
        // The filtered image covers the image's own pixels: it moves with the image view.
        const GlTexture& lt = st.lab_tex.front();
        if (lab && lt.valid())
            sync_transform(st.image_view, it.width(), it.height(), st.lab_view, lt.width(), lt.height());
    }
    st.view_moved = -1;
    // The readout wraps (never cut, in presentation mode too); the views leave it the height it took last frame.
    const float readout_y0 = ImGui::GetCursorScreenPos().y;
    ImGui::PushTextWrapPos(0.0f);
    draw_readout(st);
    ImGui::PopTextWrapPos();
    st.readout_h = ImGui::GetCursorScreenPos().y - readout_y0;
    if (st.classroom.enabled) {
        PanelContext ctx = st.context();
        draw_classroom_overlay(ctx, st.classroom, ImVec2(avail.x, overlay_h));
    } else if (analysis) {
        draw_analysis_strip(st, ImVec2(avail.x, overlay_h));
    }
}

// What the worker is doing: a spinner and the settings it is for, so a slow run is visible, not a freeze.
void draw_status_line(ViewerState& st) {
    const WorkerStatus ws = st.worker->status();
    if (!ws.decoding && !ws.running && !st.timings.sweep_running && !ws.jobs) return;
    static const char* spin = "|/-\\";
    const char c = spin[int(ImGui::GetTime() * 8) % 4];
    std::string what;
    if (ws.decoding)
        what = "decoding " + fs::path(ws.decoding_path).filename().string();
    else if (ws.running) {
        const Settings& s = ws.running_settings;
        what = "running " + name_of(s.backend) + " (window " + name_of(s.window) +
               (s.window == specview::Window::Tukey ? " " + std::to_string(s.tukey_alpha).substr(0, 4) : "") +
               ", pad " + name_of(s.pad) + ", " + name_of(s.view.view) + ", " + name_of(s.view.colormap) +
               (s.backend == Backend::Custom ? ", " + std::to_string(s.custom.rows.threads_per_block) + " threads, H " +
                                                   std::to_string(s.custom.rows.block_height)
                                             : std::string()) +
               ")";
    } else if (st.timings.sweep_running)
        what = "sweeping threads x H";
    else
        what = "working";
    ImGui::TextDisabled("%c %s ...", c, what.c_str());
    st.layout.push_back("busy " + what);
}

}  // namespace

namespace {

// [SECTION] The frame's window, screenshots, the machine's probe, teardown
// The frame's one window: the panels on the left, the status line, the message and the views on the right.
// The keys outside the classroom (which has its own: arrows, Home, End, Space), where no text field has the keyboard.
// ImGui 1.86 names few letter keys: letters come as the typed characters. The script's `key K` takes the same path.
struct KeyHelp {
    const char* key;
    const char* what;
};
constexpr KeyHelp kKeys[] = {{"Page Down / Page Up", "the next / previous image (given, or in the folder)"},
                             {"f", "fit every view"},
                             {"1", "the spectrum at 1:1 (synced views follow)"},
                             {"c", "the next colormap"},
                             {"o or Ctrl+O", "open an image in a file dialog"},
                             {"s", "save the picture (File panel's name; an existing file needs s again)"},
                             {"Ctrl+S", "save the picture under a name chosen in a file dialog"},
                             {"Shift + drag on the image", "an ROI: the spectrum of that rectangle"},
                             {"p", "hide / show the side panel"},
                             {"k or ?", "this list of keys"},
                             {"classroom: arrows, Home, End, Space", "step through the FFT's stages"}};

}  // namespace

void press_key(ViewerState& st, const std::string& key) {
    PanelContext ctx = st.context();
    if (key == "pagedown") step_image(ctx, st.file, 1);
    if (key == "pageup") step_image(ctx, st.file, -1);
    if (key == "f") {
        st.image_view.fit = st.spectrum_view.fit = st.lab_view.fit = true;
        fit_volume_views(st.volume);
    }
    if (key == "1") {
        st.spectrum_view.fit = false;
        st.spectrum_view.zoom = 1.0f / ImGui::GetIO().DisplayFramebufferScale.x;
        st.view_moved = 1;
    }
    if (key == "c") {
        const auto& names = colormap_names();
        const int next = (int(st.settings.view.colormap) + 1) % int(names.size());
        st.settings.view.colormap = *parse_name<Colormap>(names[std::size_t(next)]);
        st.dirty = true;
    }
    if (key == "s") save_picture(ctx, st.file);
    if (key == "o") st.file.dialog_request = "image";
    if (key == "ctrl+s") st.file.dialog_request = "picture";
    if (key == "p") st.panels_hidden = !st.panels_hidden;
    if (key == "k" || key == "?") st.keys_shown = !st.keys_shown;
}

namespace {

void handle_keys(ViewerState& st) {
    if (ImGui::GetIO().WantTextInput) return;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageDown))) press_key(st, "pagedown");
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageUp))) press_key(st, "pageup");
    // Ctrl + a letter: ImGui 1.86 indexes keys by the platform's codes, GLFW's letters being their capitals.
    const ImGuiIO& io = ImGui::GetIO();
    if (io.KeyCtrl && ImGui::IsKeyPressed('O')) press_key(st, "o");
    if (io.KeyCtrl && ImGui::IsKeyPressed('S')) press_key(st, "ctrl+s");
    if (st.classroom.enabled) return;  // (its keys are its own)
    for (const ImWchar ch : io.InputQueueCharacters)
        if (ch == 'f' || ch == '1' || ch == 'c' || ch == 's' || ch == 'p' || ch == 'k' || ch == '?' || ch == 'o')
            press_key(st, std::string(1, char(ch)));
}

void draw_keys_list(ViewerState& st) {
    if (!st.keys_shown) return;
    ImGui::SetNextWindowSize(ImVec2(520 * ImGui::GetIO().FontGlobalScale, 0), ImGuiCond_Appearing);
    if (ImGui::Begin("Keys", &st.keys_shown, ImGuiWindowFlags_NoCollapse)) {
        for (const KeyHelp& k : kKeys) {
            ImGui::TextUnformatted(k.key);
            ImGui::SameLine(200 * ImGui::GetIO().FontGlobalScale);
            ImGui::TextWrapped("%s", k.what);
        }
    }
    ImGui::End();
    st.layout.push_back("keys-list shown");
}

// The file dialog: started when a panel or a key asked for one; its answer opens the image or saves under the name
// chosen (an existing file still needs a second Save: never a silent overwrite).
void run_file_dialog(ViewerState& st, PanelContext& ctx) {
    FileUi& file = st.file;
    if (!file.dialog_request.empty()) {
        const std::string what = std::exchange(file.dialog_request, std::string());
        const bool save = what != "image";
        const std::string start = what == "picture" ? file.save_png_path
                                  : what == "raw"   ? file.save_npy_path
                                  : st.shown.image_path.empty()
                                      ? std::string()
                                      : fs::path(st.shown.image_path).parent_path().string();
        const char* title = what == "picture" ? "Save the picture as" : what == "raw" ? "Save the raw spectrum as"
                                                                                       : "Open an image";
        if (!st.dialog.start(save ? FileDialog::Mode::Save : FileDialog::Mode::Open, what, start, title))
            st.messages.info("a file dialog is open already");
    }
    const std::optional<FileDialog::Answer> a = st.dialog.poll(st.layout);
    if (!a || a->path.empty()) return;  // (none yet, or cancelled)
    if (a->purpose == "image") {
        ctx.open(a->path);
    } else if (a->purpose == "picture") {
        file.save_png_path = a->path;
        save_picture(ctx, file);
    } else if (a->purpose == "raw") {
        file.save_npy_path = a->path;
        save_raw(ctx, file);
    }
}

void build_window(ViewerState& st, PanelContext& ctx) {
    handle_keys(st);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("specview", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus);
    if (!st.panels_hidden) {  // (p hides it: the views take the whole window)
        // As wide as the user dragged its edge (else 420 pixels at the font's scale), within 20%..70% of the window.
        const float scale = ImGui::GetIO().FontGlobalScale;
        const float lo = std::min(260.0f * scale, vp->WorkSize.x * 0.2f), hi = vp->WorkSize.x * 0.7f;
        const float panel_w = std::clamp(st.panel_w > 0 ? st.panel_w : std::min(420.0f * scale, vp->WorkSize.x * 0.45f),
                                         lo, std::max(lo, hi));
        ImGui::BeginChild("panels", ImVec2(panel_w, 0), true);
        draw_file_panel(ctx, st.file);
        draw_pipeline_panel(ctx);
        draw_display_panel(ctx, st.presentation, st.classroom, st.calibration);
        draw_classroom_panel(ctx, st.classroom);
        draw_lab_panel(ctx, st.lab);
        draw_analysis_panel(ctx, st.analysis);
        draw_timings_panel(ctx, st.timings);
        draw_device_panel(ctx, st.device_ui);
        ImGui::EndChild();
        // The edge between the panels and the views: drag it to resize the panels.
        ImGui::SameLine(0, 0);
        ImGui::InvisibleButton("panel-edge", ImVec2(6.0f, std::max(ImGui::GetContentRegionAvail().y, 1.0f)));
        if (ImGui::IsItemHovered() || ImGui::IsItemActive()) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
        if (ImGui::IsItemActive()) st.panel_w = std::clamp(panel_w + ImGui::GetIO().MouseDelta.x, lo, std::max(lo, hi));
        ImGui::SameLine(0, 2);
        char line[64];
        std::snprintf(line, sizeof line, "panel-width %.0f", panel_w);
        st.layout.push_back(line);
    }
    ImGui::BeginChild("main", ImVec2(0, 0), false);
    volume_post(st);  // (before run_pipeline, which clears st.dirty)
    // In volume mode the 2D picture is hidden: its run waits until the mode is left (it would only delay the volume's).
    const bool volume_mode = st.volume.enabled && st.shown.image;
    if (st.dirty && volume_mode) {
        st.volume.stale_2d = true;
        st.dirty = false;
    } else if (!volume_mode && st.volume.stale_2d) {
        st.volume.stale_2d = false;
        st.dirty = true;
    }
    if (st.dirty) run_pipeline(st);  // posted now; the picture arrives in a later frame
    draw_status_line(st);
    if (!st.messages.text.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text,
                              st.messages.is_error ? ImVec4(1.0f, 0.35f, 0.3f, 1) : ImVec4(0.6f, 0.9f, 0.6f, 1));
        ImGui::TextWrapped("%s", st.messages.text.c_str());
        ImGui::PopStyleColor();
        ImGui::SameLine();
        if (ImGui::SmallButton("x")) st.messages.text.clear();
        st.layout.push_back(std::string(st.messages.is_error ? "error " : "info ") + st.messages.text);
    }
    if (!(st.shown.image != nullptr))
        ImGui::TextWrapped("No image: drop one on the window, or open one from the File panel.");
    draw_views(st, ImGui::GetContentRegionAvail());
    ImGui::EndChild();
    ImGui::End();
    draw_keys_list(st);
    run_file_dialog(st, ctx);
}

// What the script asked this frame to save: the window (with its layout) and a view's texture. false: one failed.
bool take_script_shots(ScriptRunner& script, Window& win, ViewerState& st) {
    bool ok = true;
    const std::string shot = script.take_screenshot();
    if (!shot.empty()) {
        int fw = 0, fh = 0;
        win.framebuffer_size(&fw, &fh);
        try {
            win.bind_for_readback();
            save_framebuffer_png(shot, fw, fh);
            st.layout.push_back("platform " + win.platform());
            st.layout.push_back("backend " + st.shown.frame.backend);
            save_layout(shot + ".txt", st.layout);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "specview: screenshot: %s\n", e.what());
            ok = false;
        }
    }
    const auto [tex, which] = script.take_texture_shot();
    if (!tex.empty()) {
        try {
            save_texture_png(tex, which == "image" ? st.image_tex.front()
                                  : which == "lab" ? st.lab_tex.front()
                                                   : st.spectrum_tex.front());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "specview: save-texture: %s\n", e.what());
            ok = false;
        }
    }
    return ok;
}

// --frames N --screenshot PATH: the window as PNG, and its layout (with the startup's errors) beside it.
bool save_screenshot(const std::string& path, Window& win, ViewerState& st, const std::string& startup_errors) {
    int fw = 0, fh = 0;
    win.framebuffer_size(&fw, &fh);
    try {
        win.bind_for_readback();
        save_framebuffer_png(path, fw, fh);
        st.layout.push_back("window " + std::to_string(fw) + " " + std::to_string(fh));
        st.layout.push_back("backend " + st.shown.frame.backend);
        st.layout.push_back("frame " + std::to_string(st.shown.frame.width) + " " +
                            std::to_string(st.shown.frame.height));
        if (!startup_errors.empty()) st.layout.push_back("startup-error " + startup_errors);
        save_layout(path + ".txt", st.layout);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "specview: screenshot: %s\n", e.what());
        return false;
    }
    return true;
}

// What this machine offers the viewer: the GPU (probed beside the window's opening) and CUDA-OpenGL interop.
void probe_machine(ViewerState& st, gpu::DeviceInfo dev) {
    st.machine.device = std::move(dev);
    st.startup.probed = viewer_clock() * 1e3;
    st.machine.gpu_ok = st.machine.device.available;
    st.machine.gpu_why = st.machine.device.why_unavailable;
#ifdef SPECVIEW_HAS_GL_INTEROP
    if (st.machine.gpu_ok)
        st.machine.interop_ok = gpu::gl_interop_available(&st.machine.interop_why);
    else
        st.machine.interop_why = "no CUDA device";
    if (!st.machine.interop_ok) {
        const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
        st.machine.interop_why += std::string("; OpenGL renderer: ") + (renderer ? renderer : "unknown");
    }
#else
    st.machine.interop_why = "built without CUDA-OpenGL interop (no GL headers at configure time)";
#endif
    st.startup.interop = viewer_clock() * 1e3;
}

// Before the GL context goes: the worker's threads joined, the interop registrations and the textures released.
void tear_down(ViewerState& st) {
    st.worker.reset();  // joins its threads before the textures and the GL context go
#ifdef SPECVIEW_HAS_GL_INTEROP
    st.copier.wait();
    st.image_copier.wait();
    for (auto& i : st.image_interop) i.reset();
    for (auto& i : st.interop) i.reset();
    for (auto& i : st.lab_interop) i.reset();
#endif
    st.image_tex.release();
    st.spectrum_tex.release();
    st.preview_tex.release();
    st.lab_tex.release();
    st.logphi_tex.release();
    st.corr_tex.release();
    st.stack_tex.release();
}

}  // namespace

// [SECTION] run_viewer: start, the frame loop, the end
int run_viewer(const ViewerLaunch& launch) {
    viewer_clock();  // its epoch: the first picture's time counts from here
    // A script is read and checked whole before any window opens: a bad line is exit 2, naming it.
    std::optional<ScriptRunner> script;
    if (!launch.script.empty()) {
        try {
            script.emplace(parse_script(launch.script));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "specview: %s\n", e.what());
            return kExitUsage;
        }
    }
    // The file given is read and decoded (in the decoder process) while the window opens and the GPU is probed.
    // The CPU backend runs on every core: the UI thread draws a frame in a few ms and waits for the next, and on two
    // cores leaving it one halved every run (a 4096^2 window change: engine ~390 ms on one thread, ~340 on two, with
    // Xvfb's software GL drawing beside them).
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    auto worker = std::make_unique<Worker>(cores);
    const double open_ms = viewer_clock() * 1e3;
    worker->set_video_decode(launch.video_decode, false);  // the window's GL is not known to take CUDA's frames yet
    if (!launch.images.empty())
        open_in(*worker, launch.images.front(), launch.frame, launch.settings, launch.max_memory);
    // The CUDA context (a few hundred ms) is made while the window opens, too.
    auto probe = std::async(std::launch::async, [] { return gpu::probe_device(0); });
    std::unique_ptr<Window> win;
    double st_window_ms = -1;
    try {
        int w = launch.width, h = launch.height;
        if (w <= 0) load_geometry(&w, &h);
        win = open_window(w, h, "specview", launch.offscreen);
        st_window_ms = viewer_clock() * 1e3;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "specview: %s\n", e.what());
        return kExitUsage;
    }
    ViewerState st;
    st.startup.window = st_window_ms;
    st.settings = launch.settings;
    st.max_memory = launch.max_memory;
    st.presentation = launch.presentation;
    st.classroom.enabled = launch.classroom;
    st.volume.enabled = launch.volume;
    st.classroom.step = launch.classroom_step - 1;
    load_recent(st);
    st.file.given = launch.images;
    if (launch.pixel_size.calibrated()) {
        char text[64];
        std::snprintf(text, sizeof text, "%g%s", launch.pixel_size.value, launch.pixel_size.unit.c_str());
        st.calibration = Calibration{launch.pixel_size, text};
    }
    st.file.assets_dir = find_assets_dir();
    if (!st.file.assets_dir.empty()) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(st.file.assets_dir, ec))
            if (has_image_extension(e.path().string())) st.file.samples.push_back(e.path().string());
        std::sort(st.file.samples.begin(), st.file.samples.end());
    }

    probe_machine(st, probe.get());
    st.worker = std::move(worker);
    // A context sharing the viewer's for the worker's GL engine (a 4.3+ context: its picture straight into a texture).
    if (auto shared = win->shared_context(&st.machine.gl_shared_why)) {
        st.worker->set_gl_context(std::move(shared));
        st.machine.gl_shared = true;
    }
    st.worker->set_video_decode(launch.video_decode, st.machine.interop_ok);

    bool reopen = false;
    if (launch.auto_backend) {
        const AutoChoice c =
            choose_backend(AutoWork::Viewer, 0, st.machine.gpu_ok, st.machine.gpu_why, 0,
                           st.machine.gpu_ok || st.settings.pad == PadMode::None ? nullptr : &probe_gl());
        st.machine.auto_why = c.why;
        st.machine.auto_backend = c.backend;
        st.settings.backend = c.backend;  // (the file was opened under the CPU's check, the larger: no reopening)
    } else if (!st.machine.gpu_ok && gpu_backend(st.settings)) {
        st.messages.error("the " + name_of(st.settings.backend) + " backend needs a GPU (" + st.machine.gpu_why +
                          "); using the CPU");
        st.settings.backend = Backend::Cpu;
        // The file went to the decoder with the GPU path's memory check: again with the CPU path's larger need.
        reopen = !launch.images.empty();
    }
    // Errors until the first picture is current (a file that cannot be opened, a missing GPU) are the startup
    // messages the screenshot's layout names.
    std::string startup_errors = st.messages.is_error ? st.messages.text : "";
    bool started = false;
    st.startup.open = open_ms;
    if (reopen) {
        st.context().open(launch.images.front(), launch.frame);
    } else if (!launch.images.empty()) {
        st.messages.info("opening " + launch.images.front() + " ...");  // posted above, before the window
    } else {
        const std::string preferred = st.file.assets_dir + "/grating_16_8.png";
        if (std::find(st.file.samples.begin(), st.file.samples.end(), preferred) != st.file.samples.end())
            st.context().open(preferred);
        else if (!st.file.samples.empty())
            st.context().open(st.file.samples.front());
    }

    using Clock = std::chrono::steady_clock;
    std::vector<double> frame_ms;
    int frames = 0;
    int rc = kExitOk;
    bool script_running = script.has_value();
    const auto wait_started = Clock::now();
    while (!win->should_close()) {
        const auto t_frame = Clock::now();
        win->begin_frame();
        win->apply_style(st.presentation ? 1.6f : 1.0f, st.presentation);
        st.layout.clear();
        const std::string before = st.messages.text;
        const auto t_begun = Clock::now();
        apply_worker_updates(st);
        const auto t_updated = Clock::now();
        for (const auto& p : win->take_drops()) st.context().open(p);
        // A script starts once the image it was given is open (or failed to open).
        if (script_running && (started || launch.images.empty())) script_running = script->before_frame(st);
        PanelContext ctx = st.context();
        update_classroom(ctx, st.classroom);
        if (!started) {
            if (st.messages.is_error && st.messages.text != before &&
                startup_errors.find(st.messages.text) == std::string::npos)
                startup_errors += (startup_errors.empty() ? "" : "; ") + st.messages.text;
            started = picture_current(st) && !st.worker->status().decoding;
        }

        build_window(st, ctx);

        const ImGuiIO& io = ImGui::GetIO();
        if (st.classroom.enabled && !io.WantTextInput) classroom_keys(ctx, st.classroom);

        const auto t_built = Clock::now();
        win->end_frame();
        const auto t_rendered = Clock::now();
        poll_copy(st);  // a copy posted this frame is usually done by now: its change is ready
        const auto t_end = Clock::now();
        auto ms = [](Clock::time_point a, Clock::time_point b) {
            return std::chrono::duration<double, std::milli>(b - a).count();
        };
        frame_ms.push_back(ms(t_frame, t_end));
        if (frame_ms.back() > 20.0)
            st.slow_frames.push_back({frames, frame_ms.back(), ms(t_frame, t_begun), ms(t_begun, t_updated),
                                      ms(t_updated, t_built), ms(t_built, t_rendered), ms(t_rendered, t_end)});
        st.frame_lines.push_back(st.script_line);
        ++frames;
        if (script) {
            if (!take_script_shots(*script, *win, st)) rc = kExitOutput;
            if (script->timed_out()) {
                std::fprintf(stderr, "specview: %s\n", script->timeout_reason().c_str());
                rc = kExitInternal;
            }
            if (!script_running) break;
        }
        // --walk: one classroom step per frame, each once its picture is shown.
        if (launch.classroom_walk && picture_current(st)) st.classroom.step++;  // clamped by update_classroom
        // --frames N: at least N frames, then until the picture for the settings is on screen (the worker is
        // asynchronous), and with --walk until the last step.
        bool walk_done = true;
        if (launch.classroom_walk) {
            walk_done = false;
            for (const auto& l : st.layout)
                if (l.rfind("classroom-step ", 0) == 0) {
                    int a = 0, b = 0;
                    walk_done = std::sscanf(l.c_str(), "classroom-step %d %d", &a, &b) == 2 && a == b;
                }
        }
        const bool waited_long = std::chrono::duration<double>(Clock::now() - wait_started).count() > 120.0;
        if (!script && launch.frames > 0 && frames >= launch.frames &&
            ((picture_current(st) && walk_done && started) || waited_long)) {
            if (waited_long) std::fprintf(stderr, "specview: the picture was not ready after 120 s\n");
            if (!launch.screenshot.empty() && !save_screenshot(launch.screenshot, *win, st, startup_errors))
                rc = kExitOutput;
            break;
        }
        win->swap();
    }
    if (script && !launch.report.empty()) {
        try {
            write_script_report(launch.report, st, frame_ms);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "specview: report: %s\n", e.what());
            rc = kExitOutput;
        }
    }
    // An interactive session's last size is the next one's (scripts, --frames and offscreen runs leave it alone).
    if (launch.script.empty() && launch.frames <= 0 && !launch.offscreen) {
        int w = 0, h = 0;
        win->window_size(&w, &h);
        save_geometry(w, h);
    }
    tear_down(st);
    return rc;
}

}  // namespace specview::ui
