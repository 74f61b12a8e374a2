#include "ui/worker/volume_session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "app/core/parallel_bands.h"
#include "app/core/picture.h"
#include "app/core/plane.h"
#include "app/engine/volume_gpu.h"
#include "app/io/decoder_pool.h"
#include "app/io/load/load.h"
#include "gpu/common/errors.h"
#include "gpu/runtime/device_info.h"

namespace specview {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// What shapes the volume and its transform (a change of any of these transforms again; of anything else, the view
// alone, makes pictures only).
std::string transform_key(const Settings& s) {
    std::ostringstream k;
    k << int(s.backend) << ' ' << int(s.channel) << ' ' << int(s.window) << ' ' << s.tukey_alpha << ' '
      << s.kaiser_beta << ' ' << int(s.window_shape) << ' ' << int(s.level) << ' ' << int(s.pad) << ' '
      << int(s.pad_fill) << ' ' << int(s.cufft_mode) << ' ' << s.custom.rows.threads_per_block << ' '
      << s.custom.rows.block_height << ' ' << s.custom.rows.max_local_length << ' ' << s.custom.transpose.tile << ' '
      << s.custom.merge_final_transposes << ' ' << s.custom.rows.threads_twice_length << ' '
      << s.custom.rows.warp_shuffles << ' ' << s.custom.rows.next_axis_stages << ' ' << roi_string(s.roi);
    return k.str();
}

// Signed bin indices along an axis of n bins: -(n/2) .. (n-1)/2.
int clamp_bin(int k, int n) { return std::clamp(k, -(n / 2), (n - 1) / 2); }
}  // namespace

void VolumeSession::open(const std::string& path, const Settings& s, const VolumeViewRequest& v, int threads,
                         VolumeResult* out) {
    frames_.clear();
    static std::atomic<std::uint64_t> generations{0};
    frames_generation_ = ++generations;  // (new frames: whatever a GPU kept of the last ones is not them)
    spectrum_.reset();
    shaped_.clear();
    range_known_ = false;
    for (Cached& c : image_) c = Cached{};
    for (Cached& c : spectrum_cache_) c = Cached{};
    range_key_.clear();
    const auto t0 = Clock::now();
    // The frames stay in memory (a change of window or level transforms them again): refused past half of what is
    // available, with the transform's buffer to come.
    const double have = double(available_memory_bytes());
    double held = 0;
    DecoderPool::shared().load_frames_parallel(
        path, LoadLimits{}, 0, INT_MAX, {},
        [&](Image img) {
            if (!frames_.empty() && (img.width != frames_[0].width || img.height != frames_[0].height))
                throw InputError(path, "frame " + std::to_string(frames_.size() + 1) + " is " +
                                           std::to_string(img.width) + "x" + std::to_string(img.height) + ", the first " +
                                           std::to_string(frames_[0].width) + "x" + std::to_string(frames_[0].height) +
                                           ": a volume's frames must have one size");
            held += double(img.width) * img.height * (4.0 + img.channels * (img.bit_depth / 8.0));
            if (held > 0.5 * have)
                throw InputError(path, "as a volume needs more than " + human_bytes(held) + " of memory; " +
                                           human_bytes(have) + " is available (open fewer frames)");
            frames_.push_back(std::move(img));
            return true;
        },
        2);
    if (frames_.empty()) throw InputError(path, "no frames");
    for (const Image& f : frames_) require_host_samples(f, path);
    path_ = path;
    out->decode_ms = ms_since(t0);
    update(s, v, threads, out);
}

const std::vector<Image>& VolumeSession::transformed_frames(const Settings& s, std::vector<Image>& cropped) const {
    if (s.roi.whole()) return frames_;
    // --roi: the same rectangle of every frame (an InputError naming it where it does not lie within them)
    cropped.reserve(frames_.size());
    for (const Image& f : frames_) cropped.push_back(crop_image(f, s.roi.x, s.roi.y, s.roi.w, s.roi.h, path_));
    return cropped;
}

void VolumeSession::transform(const Settings& s, int threads, VolumeResult* out) {
    const auto t0 = Clock::now();
    std::vector<Image> cropped;
    const std::vector<Image>& frames = transformed_frames(s, cropped);
    const int W = frames[0].width, H = frames[0].height, D = int(frames.size());
    // The last spectrum's buffer and plan serve again at the same size (begin keeps them): no new pages to fault in.
    // It is overwritten: should this transform fail, no spectrum is left, and the next request transforms again.
    std::unique_ptr<VolumeSpectrum> vol = spectrum_ ? std::move(spectrum_) : std::make_unique<VolumeSpectrum>();
    const VolumeGeometry g = volume_geometry(s.pad, W, H, D);
    std::string backend = "CPU (FFTW 3D)";
    std::shared_ptr<VolumeInput> input;
    std::unique_ptr<gpu::MultiGpuVolumeFft> split;  // a volume no one GPU holds, over all of them (issue 64)
    if (!cuda_backend(s.backend)) {  // (OpenCL has no 3D pipeline yet: FFTW's, said)
        if (s.backend != Backend::Cpu) backend += " (" + name_of(s.backend) + " has no 3D pipeline yet)";
    } else {
        // One engine for the session (its cuFFT plan and buffers kept while the size stays); throws GpuUnavailable.
        if (gpu_)
            gpu_->configure(s);
        else
            gpu_ = std::make_unique<GpuVolumeFft>(s);
        GpuVolumeFft& gpu = *gpu_;
        gpu.check(g.width, g.height, g.depth);
        const double need = gpu.device_bytes(g.width, g.height, g.depth);
        if (need > double(gpu.device().free_memory)) {
            // Beyond the GPU: cuFFT's multi-GPU plan over every GPU of the machine where there are several (the
            // host holds the volume and makes the views, as the CPU backend does), else refused with need and limit.
            std::vector<int> all;
            for (int d = 0; d < gpu::cuda_device_count(); ++d) all.push_back(d);
            const std::string refused = s.backend == Backend::Cufft
                                            ? gpu::multi_gpu_refusal(all, g.width, g.height, g.depth)
                                            : name_of(s.backend) + " runs on one GPU (cufft splits)";
            if (!refused.empty())
                throw InputError(path_, "as a " + std::to_string(g.width) + "x" + std::to_string(g.height) + "x" +
                                            std::to_string(g.depth) + " volume needs about " + human_bytes(need) +
                                            " of GPU memory; " + human_bytes(double(gpu.device().free_memory)) +
                                            " free (try --pad crop or the CPU backend; not split over GPUs: " +
                                            refused + ")");
            split = std::make_unique<gpu::MultiGpuVolumeFft>(all, g.width, g.height, g.depth);
        } else {
            // The frames' samples go to the GPU, are shaped and transformed there, and the spectrum stays: the views
            // and the shells are made there (a 512^3 volume's float volume up and its spectrum down were ~100 ms
            // each). The same frames as the last transform (this open's, no --roi crop: those are copies made now)
            // are named by the open, so that a knob change takes them from the device instead of sending them again.
            input = frames_on_device(gpu, s.roi.whole() ? frames_generation_ : 0);
        }
    }
    const auto t_frames = Clock::now();
    vol->begin(s, W, H, D, threads, input);
    vol->add_frames(frames, path_);
    const double frames_ms = ms_since(t_frames);
    if (split) {
        vol->transform(&out->shape_ms, &out->fft_ms, [&](float* buffer) { split->forward(buffer); });
        backend = "cuFFT multi-GPU R2C; " + split->layout().text();  // which GPU held which planes
        while (!backend.empty() && backend.back() == '\n') backend.pop_back();
        out->copy_ms = split->upload_ms + split->download_ms;
    } else {
        vol->transform(&out->shape_ms, &out->fft_ms);
    }
    if (input) {
        backend = gpu_->last().what;
        out->copy_ms = gpu_->last().copy_ms;
        out->gpu_stages = gpu_->last().stages;
    }
    const auto t_shell = Clock::now();
    shell_ = vol->shell_profile(threads);
    out->shell_ms = ms_since(t_shell);
    out->shape_ms += frames_ms;
    out->frames_ms = frames_ms;
    out->frames_resident = input && gpu_ && gpu_->engine()->frames_resident();
    spectrum_ = std::move(vol);
    for (Cached& c : spectrum_cache_) c = Cached{};
    range_key_.clear();
    shaped_ = transform_key(s);
    backend_ = backend;
    out->transformed = true;
    out->transform_ms = ms_since(t0);
}

void VolumeSession::update(const Settings& s, const VolumeViewRequest& req, int threads, VolumeResult* out) {
    if (frames_.empty()) throw std::logic_error("no volume is open");
    if (!spectrum_ || shaped_ != transform_key(s)) transform(s, threads, out);
    const auto t0 = Clock::now();
    const int W = frames_[0].width, H = frames_[0].height, D = int(frames_.size());
    const VolumeGeometry& g = spectrum_->geometry();
    out->ok = true;
    out->path = path_;
    out->frames_w = W;
    out->frames_h = H;
    out->frames_d = D;
    out->geometry = g;
    out->shell = shell_;
    out->backend = backend_;
    out->spectrum_view = s.view;
    VolumeViewRequest v = req;
    v.image_x = std::clamp(v.image_x < 0 ? W / 2 : v.image_x, 0, W - 1);
    v.image_y = std::clamp(v.image_y < 0 ? H / 2 : v.image_y, 0, H - 1);
    v.image_z = std::clamp(v.image_z < 0 ? D / 2 : v.image_z, 0, D - 1);
    v.kx = clamp_bin(v.kx, g.width);
    v.ky = clamp_bin(v.ky, g.height);
    v.kz = clamp_bin(v.kz, g.depth);
    if (v.projection != "max" && v.projection != "sum") v.projection.clear();
    v.step = std::clamp(v.step, -1, kVolumeSteps);
    out->view = v;

    // The image volume: the channel shown, gray over the whole volume's range (the three slices compare).
    const Channel ch = s.channel;
    if (!range_known_ || range_channel_ != ch) {
        // (the frames over the threads: a 512^3 volume is 134 million samples)
        std::vector<double> lows(std::size_t(D), INFINITY), highs(lows.size(), -INFINITY);
        parallel_bands(D, threads, [&](int z0, int z1, int band) {
            float l = INFINITY, h = -INFINITY;
            for (int z = z0; z < z1; ++z) {
                float fl = 0, fh = 0;
                channel_range(frames_[std::size_t(z)], ch, &fl, &fh, path_);  // (integer samples scanned as such)
                l = std::min(l, fl);
                h = std::max(h, fh);
            }
            lows[std::size_t(band)] = l;
            highs[std::size_t(band)] = h;
        }, 1);
        const double lo = *std::min_element(lows.begin(), lows.end()), hi = *std::max_element(highs.begin(), highs.end());
        image_lo_ = lo;
        image_hi_ = hi > lo ? hi : lo + 1;
        range_channel_ = ch;
        range_known_ = true;
    }
    // Each picture is made again only when what it shows changed (a slice moved along z remakes xy and kx-ky alone).
    const std::string chs = std::to_string(int(ch)) + ":" + std::to_string(image_lo_) + ":" + std::to_string(image_hi_);
    const std::string image_key[3] = {chs + ":z" + std::to_string(v.image_z), chs + ":y" + std::to_string(v.image_y),
                                      chs + ":x" + std::to_string(v.image_x)};
    const char* image_axis[3] = {"xy at z = ", "xz at y = ", "yz at x = "};
    const int image_at[3] = {v.image_z, v.image_y, v.image_x};
    const int image_dims[3][2] = {{W, H}, {W, D}, {H, D}};
    for (int i = 0; i < 3; ++i) {
        if (image_[i].key != image_key[i]) {
            auto p = std::make_shared<VolumePicture>();
            p->width = image_dims[i][0];
            p->height = image_dims[i][1];
            p->values.assign(std::size_t(p->width) * p->height, 0.0f);
            float* vals = p->values.data();
            // xy: frame z's rows; xz: row y of every frame; yz: column x of every frame (the frames over the threads)
            parallel_bands(i == 0 ? H : D, threads, [&](int r0, int r1, int) {
                for (int r = r0; r < r1; ++r) {
                    if (i == 0) channel_values(frames_[std::size_t(v.image_z)], ch, r, 0, W, vals + std::size_t(r) * W, path_);
                    if (i == 1) channel_values(frames_[std::size_t(r)], ch, v.image_y, 0, W, vals + std::size_t(r) * W, path_);
                    if (i == 2)
                        for (int y = 0; y < H; ++y)
                            channel_values(frames_[std::size_t(r)], ch, y, v.image_x, 1, vals + std::size_t(r) * H + y, path_);
                }
            }, 16);
            p->lo = float(image_lo_);
            p->hi = float(image_hi_);
            p->label = image_axis[i] + std::to_string(image_at[i]);
            colorize(p->values, p->lo, p->hi, Colormap::Gray, p->rgba, threads);
            image_[i] = {image_key[i], std::move(p)};
        }
        out->image[i] = image_[i].pic;
    }

    if (v.step >= 0) {  // classroom: the step's data instead of the spectrum
        classroom_pictures(s, v.step, threads, out);
        out->pictures_ms = ms_since(t0);
        return;
    }
    // The spectrum: the three slices through (kx, ky, kz), or the projections (which no slice moves), over one range:
    // the volume's for slices (so that a slice moved keeps the others' colours and compares with them), the three
    // projections' for those.
    const VolumeAxis axes[3] = {VolumeAxis::Z, VolumeAxis::Y, VolumeAxis::X};
    const int at[3] = {v.kz, v.ky, v.kx};
    const char* names[3] = {"kx-ky", "kx-kz", "ky-kz"};
    const char* along[3] = {"kz", "ky", "kx"};
    const ViewParams& vp = s.view;
    const bool projecting = !v.projection.empty();
    std::ostringstream rk;
    rk << shaped_ << ':' << int(vp.view) << ' ' << int(vp.range) << ' ' << vp.pct_lo << ' ' << vp.pct_hi << ' '
       << vp.fixed_lo << ' ' << vp.fixed_hi << ' ' << vp.top_span << ' ' << vp.shift << ':'
       << (projecting ? v.projection : "slices");
    std::shared_ptr<VolumePicture> made[3];  // projections made for their range
    if (rk.str() != range_key_) {
        const auto t_range = Clock::now();
        range_key_ = rk.str();
        for (Cached& c : spectrum_cache_) c = Cached{};
        if (projecting) {
            std::vector<float> all;
            for (int i = 0; i < 3; ++i) {
                made[i] = std::make_shared<VolumePicture>();
                VolumePicture& p = *made[i];
                p.values = spectrum_->projection_values(axes[i], v.projection == "max", vp, &p.width, &p.height);
                p.label = v.projection + " along " + along[i];
                all.insert(all.end(), p.values.begin(), p.values.end());
            }
            compute_range(all, vp, &range_lo_, &range_hi_);
        } else {
            spectrum_->display_range(vp, &range_lo_, &range_hi_);  // (on the GPU where the spectrum is kept there)
        }
        out->range_ms = ms_since(t_range);
    }
    for (int i = 0; i < 3; ++i) {
        Cached& c = spectrum_cache_[i];
        const std::string key = projecting ? v.projection : "slice" + std::to_string(at[i]);
        if (c.key != key) {
            std::shared_ptr<VolumePicture> p = std::move(made[i]);
            if (!p) {  // (a projection is made with its range, above)
                p = std::make_shared<VolumePicture>();
                p->values = spectrum_->slice_values(axes[i], at[i], vp, &p->width, &p->height, &p->bins);
                p->label = std::string(names[i]) + " at " + along[i] + " = " + std::to_string(at[i]);
            }
            p->lo = range_lo_;
            p->hi = range_hi_;
            colorize(p->values, p->lo, p->hi, vp.colormap, p->rgba, threads);
            c = {key, std::move(p), vp.colormap};
        } else if (c.colormap != vp.colormap) {  // the same values and range in other colours
            auto p = std::make_shared<VolumePicture>(*c.pic);
            colorize(p->values, p->lo, p->hi, vp.colormap, p->rgba, threads);
            c = {key, std::move(p), vp.colormap};
        }
        out->spectrum[i] = c.pic;
    }
    out->pictures_ms = ms_since(t0);
}

void VolumeSession::classroom_pictures(const Settings& s, int step, int threads, VolumeResult* out) {
    // The volume as shaped for the transform (window, level, padding), captured from the shaping pass.
    if (shaped_volume_key_ != shaped_) {
        std::vector<Image> cropped;
        const std::vector<Image>& frames = transformed_frames(s, cropped);
        const int W = frames[0].width, H = frames[0].height, D = int(frames.size());
        VolumeSpectrum vol;
        vol.begin(s, W, H, D, threads);
        vol.add_frames(frames, path_);
        const VolumeGeometry g = vol.geometry();
        shaped_volume_.assign(std::size_t(g.width) * g.height * g.depth, 0.0f);
        const std::size_t stride = 2 * (std::size_t(g.width) / 2 + 1);
        vol.transform(nullptr, nullptr, [&](float* buffer) {  // copies the shaped rows; transforms nothing
            for (std::size_t r = 0; r < std::size_t(g.height) * g.depth; ++r)
                std::copy(buffer + r * stride, buffer + r * stride + g.width, &shaped_volume_[r * g.width]);
        });
        shaped_volume_key_ = shaped_;
        step_key_.clear();
    }
    const VolumeGeometry& g = spectrum_->geometry();
    const std::string key = shaped_ + ":" + std::to_string(step);
    if (step_key_ != key) {
        step_ = volume_step(shaped_volume_, g.width, g.height, g.depth, step, threads);
        step_key_ = key;
    }
    // The three central slices of the data as it lies in memory: across dimension 0, 1 and 2 in turn.
    const int n0 = step_.dims[0], n1 = step_.dims[1], n2 = step_.dims[2];
    const int m[3] = {n0 / 2, n1 / 2, n2 / 2};
    std::vector<float> all;
    auto value = [&](long long i) {
        const std::complex<float> c = step_.data[std::size_t(i)];
        return step == 0 ? c.real() : std::log1p(std::abs(c));  // the volume's values; then log(1 + |data|)
    };
    std::shared_ptr<VolumePicture> pics[3];
    for (int i = 0; i < 3; ++i) {
        pics[i] = std::make_shared<VolumePicture>();
        VolumePicture& p = *pics[i];
        const int rows = i == 0 ? n1 : n0, cols = i == 2 ? n1 : n2;
        p.values.resize(std::size_t(rows) * cols);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                const long long a0 = i == 0 ? m[0] : r, a1 = i == 0 ? r : i == 1 ? m[1] : c, a2 = i == 2 ? m[2] : c;
                p.values[std::size_t(r) * cols + c] = value((a0 * n1 + a1) * n2 + a2);
            }
        p.width = cols;
        p.height = rows;
        const char* down = step_.axes[i == 0 ? 1 : 0];
        const char* across = step_.axes[i == 2 ? 1 : 2];
        p.label = std::string(down) + " down, " + across + " across, at " + step_.axes[i] + " = " +
                  std::to_string(m[i]) + (i < 2 ? " (rows across)" : "");
        all.insert(all.end(), p.values.begin(), p.values.end());
    }
    float lo = 0, hi = 1;
    ViewParams vp = s.view;
    vp.range = RangeMode::Auto;
    compute_range(all, vp, &lo, &hi);
    for (int i = 0; i < 3; ++i) {
        pics[i]->lo = lo;
        pics[i]->hi = hi;
        colorize(pics[i]->values, lo, hi, s.view.colormap, pics[i]->rgba, threads);
        out->spectrum[i] = std::move(pics[i]);
    }
    out->step_title = step_.title;
    out->step_caption = step_.caption;
}

}  // namespace specview
