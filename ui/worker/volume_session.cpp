#include "ui/worker/volume_session.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "app/core/picture.h"
#include "app/core/plane.h"
#include "app/engine/volume_gpu.h"
#include "app/io/decoder_pool.h"
#include "app/io/load/load.h"
#include "gpu/common/errors.h"

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
      << s.custom.merge_final_transposes;
    return k.str();
}

// Signed bin indices along an axis of n bins: -(n/2) .. (n-1)/2.
int clamp_bin(int k, int n) { return std::clamp(k, -(n / 2), (n - 1) / 2); }
}  // namespace

void VolumeSession::open(const std::string& path, const Settings& s, const VolumeViewRequest& v, int threads,
                         VolumeResult* out) {
    frames_.clear();
    spectrum_.reset();
    shaped_.clear();
    range_known_ = false;
    for (Cached& c : image_) c = Cached{};
    for (Cached& c : spectrum_cache_) c = Cached{};
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

void VolumeSession::transform(const Settings& s, int threads, VolumeResult* out) {
    const auto t0 = Clock::now();
    const int W = frames_[0].width, H = frames_[0].height, D = int(frames_.size());
    auto vol = std::make_unique<VolumeSpectrum>();
    vol->begin(s, W, H, D, threads);
    for (int k = 0; k < D; ++k) vol->add_frame(frames_[std::size_t(k)], k, path_);
    const VolumeGeometry& g = vol->geometry();
    std::string backend = "CPU (FFTW 3D)";
    if (s.backend == Backend::Cpu) {
        vol->transform();
    } else {
        // custom-fast has no 3D pipeline yet: cuFFT's, the fastest there is.
        Settings gs = s;
        if (gs.backend == Backend::CustomFast) gs.backend = Backend::Cufft;
        // One engine for the session (its cuFFT plan and buffers kept while the size stays); throws GpuUnavailable.
        if (gpu_)
            gpu_->configure(gs);
        else
            gpu_ = std::make_unique<GpuVolumeFft>(gs);
        GpuVolumeFft& gpu = *gpu_;
        gpu.check(g.width, g.height, g.depth);
        if (gpu.device_bytes(g.width, g.height, g.depth) > double(gpu.device().free_memory))
            throw InputError(path_, "as a " + std::to_string(g.width) + "x" + std::to_string(g.height) + "x" +
                                        std::to_string(g.depth) + " volume needs about " +
                                        human_bytes(gpu.device_bytes(g.width, g.height, g.depth)) +
                                        " of GPU memory; " + human_bytes(double(gpu.device().free_memory)) +
                                        " free (try --pad crop or the CPU backend)");
        vol->transform(nullptr, nullptr, [&](float* buffer) { gpu.run(buffer, g.width, g.height, g.depth); });
        backend = gpu.last().what + (s.backend == Backend::CustomFast ? " (custom-fast has no 3D pipeline yet)" : "");
    }
    shell_ = vol->shell_profile(threads);
    spectrum_ = std::move(vol);
    for (Cached& c : spectrum_cache_) c = Cached{};
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
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        std::vector<float> row(static_cast<std::size_t>(W));
        for (const Image& f : frames_)
            for (int y = 0; y < H; ++y) {
                channel_values(f, ch, y, 0, W, row.data(), path_);
                for (float x : row) {
                    lo = std::min(lo, double(x));
                    hi = std::max(hi, double(x));
                }
            }
        image_lo_ = lo;
        image_hi_ = hi > lo ? hi : lo + 1;
        range_channel_ = ch;
        range_known_ = true;
    }
    // Each picture is made again only when what it shows changed (a slice moved along z remakes xy and kx-ky alone);
    // the spectrum's three share one range, found again over the values kept.
    auto gray = [&](VolumePicture& p, std::vector<float>& values, int w, int h, std::string label) {
        p.width = w;
        p.height = h;
        p.lo = float(image_lo_);
        p.hi = float(image_hi_);
        p.label = std::move(label);
        colorize(values, p.lo, p.hi, Colormap::Gray, p.rgba);
        p.values = values;
    };
    const std::string chs = std::to_string(int(ch)) + ":" + std::to_string(image_lo_) + ":" + std::to_string(image_hi_);
    const std::string image_key[3] = {chs + ":z" + std::to_string(v.image_z), chs + ":y" + std::to_string(v.image_y),
                                      chs + ":x" + std::to_string(v.image_x)};
    std::vector<float> vals;
    if (image_[0].key != image_key[0]) {
        vals.assign(std::size_t(W) * H, 0.0f);
        for (int y = 0; y < H; ++y)
            channel_values(frames_[std::size_t(v.image_z)], ch, y, 0, W, &vals[std::size_t(y) * W], path_);
        gray(image_[0].pic, vals, W, H, "xy at z = " + std::to_string(v.image_z));
    }
    if (image_[1].key != image_key[1]) {
        vals.assign(std::size_t(W) * D, 0.0f);
        for (int z = 0; z < D; ++z)
            channel_values(frames_[std::size_t(z)], ch, v.image_y, 0, W, &vals[std::size_t(z) * W], path_);
        gray(image_[1].pic, vals, W, D, "xz at y = " + std::to_string(v.image_y));
    }
    if (image_[2].key != image_key[2]) {
        vals.assign(std::size_t(H) * D, 0.0f);
        for (int z = 0; z < D; ++z)
            for (int y = 0; y < H; ++y)
                channel_values(frames_[std::size_t(z)], ch, y, v.image_x, 1, &vals[std::size_t(z) * H + y], path_);
        gray(image_[2].pic, vals, H, D, "yz at x = " + std::to_string(v.image_x));
    }
    for (int i = 0; i < 3; ++i) {
        image_[i].key = image_key[i];
        out->image[i] = image_[i].pic;
    }

    if (v.step >= 0) {  // classroom: the step's data instead of the spectrum
        classroom_pictures(s, v.step, threads, out);
        out->pictures_ms = ms_since(t0);
        return;
    }
    // The spectrum: the three slices through (kx, ky, kz), or the projections (which no slice moves), over one range.
    const VolumeAxis axes[3] = {VolumeAxis::Z, VolumeAxis::Y, VolumeAxis::X};
    const int at[3] = {v.kz, v.ky, v.kx};
    const char* names[3] = {"kx-ky", "kx-kz", "ky-kz"};
    const char* along[3] = {"kz", "ky", "kx"};
    std::size_t total = 0;
    for (int i = 0; i < 3; ++i) {
        const std::string key = shaped_ + ":" + std::to_string(int(s.view.view)) + ":" +
                                (v.projection.empty() ? "slice" + std::to_string(at[i]) : v.projection);
        Cached& c = spectrum_cache_[i];
        if (c.key != key) {
            VolumePicture& p = c.pic;
            c.values = v.projection.empty()
                           ? spectrum_->slice_values(axes[i], at[i], s.view, &p.width, &p.height)
                           : spectrum_->projection_values(axes[i], v.projection == "max", s.view, &p.width, &p.height);
            p.label = v.projection.empty() ? std::string(names[i]) + " at " + along[i] + " = " + std::to_string(at[i])
                                           : v.projection + " along " + along[i];
            p.bins.clear();
            if (v.projection.empty()) {  // the complex bins under the picture (DC at the centre), for the readout
                p.bins.resize(std::size_t(p.width) * p.height);
                auto bin = [](int k, int n) { return ((k - n / 2) % n + n) % n; };  // shifted index -> unshifted bin
                for (int row = 0; row < p.height; ++row)
                    for (int col = 0; col < p.width; ++col) {
                        int x = 0, y = 0, z = 0;
                        if (i == 0) x = bin(col, g.width), y = bin(row, g.height), z = bin(at[i] + g.depth / 2, g.depth);
                        if (i == 1) x = bin(col, g.width), z = bin(row, g.depth), y = bin(at[i] + g.height / 2, g.height);
                        if (i == 2) y = bin(col, g.height), z = bin(row, g.depth), x = bin(at[i] + g.width / 2, g.width);
                        p.bins[std::size_t(row) * p.width + col] = spectrum_->at(x, y, z);
                    }
            }
            c.key = key;
        }
        total += c.values.size();
    }
    std::vector<float> all;
    all.reserve(total);
    for (const Cached& c : spectrum_cache_) all.insert(all.end(), c.values.begin(), c.values.end());
    float lo = 0, hi = 1;
    compute_range(all, s.view, &lo, &hi);
    for (int i = 0; i < 3; ++i) {
        out->spectrum[i] = spectrum_cache_[i].pic;
        out->spectrum[i].lo = lo;
        out->spectrum[i].hi = hi;
        colorize(spectrum_cache_[i].values, lo, hi, s.view.colormap, out->spectrum[i].rgba);
    }
    out->pictures_ms = ms_since(t0);
}

void VolumeSession::classroom_pictures(const Settings& s, int step, int threads, VolumeResult* out) {
    // The volume as shaped for the transform (window, level, padding), captured from the shaping pass.
    if (shaped_volume_key_ != shaped_) {
        const int W = frames_[0].width, H = frames_[0].height, D = int(frames_.size());
        VolumeSpectrum vol;
        vol.begin(s, W, H, D, threads);
        for (int k = 0; k < D; ++k) vol.add_frame(frames_[std::size_t(k)], k, path_);
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
    std::vector<float> vals[3];
    std::vector<float> all;
    auto value = [&](long long i) {
        const std::complex<float> c = step_.data[std::size_t(i)];
        return step == 0 ? c.real() : std::log1p(std::abs(c));  // the volume's values; then log(1 + |data|)
    };
    for (int i = 0; i < 3; ++i) {
        VolumePicture& p = out->spectrum[i];
        const int rows = i == 0 ? n1 : n0, cols = i == 2 ? n1 : n2;
        vals[i].resize(std::size_t(rows) * cols);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                const long long a0 = i == 0 ? m[0] : r, a1 = i == 0 ? r : i == 1 ? m[1] : c, a2 = i == 2 ? m[2] : c;
                vals[i][std::size_t(r) * cols + c] = value((a0 * n1 + a1) * n2 + a2);
            }
        p.width = cols;
        p.height = rows;
        p.bins.clear();
        const char* down = step_.axes[i == 0 ? 1 : 0];
        const char* across = step_.axes[i == 2 ? 1 : 2];
        p.label = std::string(down) + " down, " + across + " across, at " + step_.axes[i] + " = " +
                  std::to_string(m[i]) + (i < 2 ? " (rows across)" : "");
        all.insert(all.end(), vals[i].begin(), vals[i].end());
    }
    float lo = 0, hi = 1;
    ViewParams vp = s.view;
    vp.range = RangeMode::Auto;
    compute_range(all, vp, &lo, &hi);
    for (int i = 0; i < 3; ++i) {
        out->spectrum[i].lo = lo;
        out->spectrum[i].hi = hi;
        colorize(vals[i], lo, hi, s.view.colormap, out->spectrum[i].rgba);
    }
    out->step_title = step_.title;
    out->step_caption = step_.caption;
}

}  // namespace specview
