// The GPU backends (custom, custom-fast, cuFFT) behind SpectrumBackend: the plane is made on the device from
// the image (uploaded once per image), the picture stays on the device in a slot or comes back on request.
#include <algorithm>

#include "app/engine/backend.h"
#include "gpu/common/errors.h"
#include "gpu/engine/gpu_engine.h"
#include "gpu/plane/plane_prep.h"
#include "gpu/runtime/device_info.h"

namespace specview {

namespace {

class GpuSpectrumBackend : public SpectrumBackend {
public:
    explicit GpuSpectrumBackend(const gpu::DeviceInfo& dev)
        : dev_(dev),
          engine_(dev.device),
          // (which of several GPUs, in the words of each run: a batch with --gpus runs on each)
          on_(gpu::cuda_device_count() > 1 ? dev.name + " (GPU " + std::to_string(dev.device) + ")" : dev.name) {}

    double plan(const PlaneContext& ctx, const Settings& s) override {
        return engine_.plan(request(ctx, s, RunOptions{}));
    }

    double plan_size(const Settings& s, int plane_w, int plane_h) override {
        if (s.stop.kind != gpu::StopPoint::Kind::Done) return 0.0;
        gpu::GpuRequest req;
        fill(req, s, RunOptions{});
        req.width = plane_w;
        req.height = plane_h;
        req.plane_version = 0;  // no plane yet
        return engine_.plan(req);
    }

    Frame run(const PlaneContext& ctx, const Settings& s, const RunOptions& o) override {
        gpu::GpuRequest req = request(ctx, s, o);
        const PlaneGeometry g = plane_geometry(s, ctx.image->width, ctx.image->height);
        req.lab_x = 0;  // the content sits at the plane's top left on the device
        req.lab_y = 0;
        req.lab_w = g.content_w;
        req.lab_h = g.content_h;
        sent_version_ = 0;  // unknown while the run is under way
        Frame f;
        static_cast<gpu::RunResult&>(f) = engine_.run(req);
        sent_version_ = ctx.plane_version;
        f.content_w = g.content_w;
        f.content_h = g.content_h;
        f.crop_x = g.crop_x;
        f.crop_y = g.crop_y;
        f.rgba_on_surface = o.surface != 0;
        f.picture_slot = o.picture_slot;
        if (o.picture_slot >= 0) f.slot_consumed_event = engine_.slot_consumed_event(o.picture_slot);
        if (f.device_lab_rgba) f.slot_lab_consumed_event = engine_.slot_lab_consumed_event(o.picture_slot);
        f.backend =
            s.backend == Backend::Custom ? "custom CUDA (row FFT / transpose) on " + on_
            : s.backend == Backend::CustomFast
                ? "custom-fast CUDA (two fused passes) on " + on_
                : std::string("cuFFT ") + (s.cufft_mode == gpu::CufftMode::R2C ? "R2C" : "C2C") + " on " + on_;
        return f;
    }

    std::complex<double> read_value(const Settings& s, int x, int y) override {
        if (s.backend == Backend::Custom && s.stop.kind != gpu::StopPoint::Kind::Done)
            return engine_.stopped_element(x, y);
        return engine_.plane_dft_bin(x, y);
    }

    PowerProfiles power_profiles(const Settings&) override {
        const gpu::PowerSums g = engine_.power_sums();
        PowerProfiles p;
        p.radial = profile_from_sums(g.radial_sum, g.radial_count, true, g.width, g.height);
        p.angular = profile_from_sums(g.angular_sum, g.angular_count, false, g.width, g.height);
        p.ms = g.ms;
        p.where = "GPU (" + dev_.name + ", device time)";
        return p;
    }

    int take_power_sum(std::vector<double>& sum, int* width, int* height) override {
        return engine_.take_power_sum(sum, width, height);
    }

    std::vector<std::complex<float>> spectrum_bins(const Settings&, const std::vector<int>& kx,
                                                   const std::vector<int>& ky) override {
        return engine_.spectrum_bins(kx, ky);
    }

    gpu::GpuEngine& engine() { return engine_; }

private:
    // The request for these settings, with the plane's recipe (recipe()).
    gpu::GpuRequest request(const PlaneContext& ctx, const Settings& s, const RunOptions& o) {
        const PlaneGeometry g = plane_geometry(s, ctx.image->width, ctx.image->height);
        gpu::GpuRequest req;
        req.recipe = &recipe(ctx, s);
        req.width = g.width;
        req.height = g.height;
        req.plane_version = ctx.plane_version;
        fill(req, s, o);
        return req;
    }
    // How the device makes this plane, computed once per plane version (a plan and the run after it share it): the
    // window tables and the levelling fit (over every pixel with --level) only where the device does not hold the
    // plane yet.
    const gpu::PlaneRecipe& recipe(const PlaneContext& ctx, const Settings& s) {
        const bool device_has_it = ctx.plane_version != 0 && ctx.plane_version == sent_version_;
        if (ctx.plane_version == 0 || ctx.plane_version != recipe_version_ || (!device_has_it && !recipe_shaped_)) {
            recipe_ = plane_recipe(*ctx.image, s, ctx.image_version, !device_has_it);
            recipe_version_ = ctx.plane_version;
            recipe_shaped_ = !device_has_it;
        }
        return recipe_;
    }
    // The request's path, transform and view settings.
    static void fill(gpu::GpuRequest& req, const Settings& s, const RunOptions& o) {
        req.path = s.backend == Backend::Custom       ? gpu::Path::Custom
                   : s.backend == Backend::CustomFast ? gpu::Path::CustomFast
                                                      : gpu::Path::Cufft;
        req.custom = s.custom;
        req.cufft_mode = s.cufft_mode;
        req.stop = s.backend == Backend::Custom ? s.stop : gpu::StopPoint{};
        req.view = s.view;
        req.want_spectrum = o.want_spectrum;
        req.want_rgba = o.want_rgba;
        req.picture = o.picture;
        req.filters = s.filters;
        req.strokes = s.strokes;
        req.mask_invert = s.mask_invert;
        req.want_inverse = o.want_inverse;
        req.lab_on_device = o.want_inverse && o.lab_on_device && o.picture_slot >= 0;
        req.lab_kind = int(s.lab_view);
        req.accumulate_power = o.accumulate_power;
        req.surface = o.surface;
        req.picture_slot = o.picture_slot;
    }

    gpu::DeviceInfo dev_;
    gpu::GpuEngine engine_;
    std::string on_;  // the device in words
    std::uint64_t sent_version_ = 0;  // the plane the device holds
    gpu::PlaneRecipe recipe_;         // recipe()'s, for the plane recipe_version_
    std::uint64_t recipe_version_ = 0;
    bool recipe_shaped_ = false;  // it holds the window tables and the levelling fit
};

}  // namespace

gpu::PlaneRecipe plane_recipe(const Image& img, const Settings& s, std::uint64_t image_version, bool with_window) {
    const PlaneGeometry g = plane_geometry(s, img.width, img.height);
    gpu::PlaneRecipe r;
    r.samples = img.data();
    if (img.on_device()) {  // a video frame NVDEC decoded: its samples stay on the device
        if (s.level != Level::None)
            throw gpu::ConfigError(
                "levelling a plane (--level) needs the frame on the host: decode the video on the "
                "CPU (--video-decode cpu)");
        r.device_samples = img.device->data;
        r.device_pitch = img.device->pitch;
        r.significant_bits = img.device->significant_bits;
    }
    r.bit_depth = img.bit_depth;
    r.image_width = img.width;
    r.image_height = img.height;
    r.channels = img.channels;
    r.image_version = image_version;
    r.channel = int(s.channel);
    r.plane_width = g.width;
    r.plane_height = g.height;
    r.crop_x = g.crop_x;
    r.crop_y = g.crop_y;
    r.content_width = g.content_w;
    r.content_height = g.content_h;
    // (with a window the mean goes before it and the padding is 0, as on the CPU: effective_level; not for a frame
    // kept on the device, whose mean the host cannot take)
    r.fill_mean = s.pad_fill == PadFill::Mean && (img.on_device() || effective_level(s, g) == s.level);
    if (with_window) {  // the window and the levelling plane (fitted on the host: the same numbers as the CPU's)
        PlaneShaping sh = plane_shaping(img, s, g);
        r.shape = sh.shape;
        r.window_x = std::move(sh.wx);
        r.window_y = std::move(sh.wy);
        r.radial_table = std::move(sh.table);
    }
    return r;
}

std::unique_ptr<SpectrumBackend> make_gpu_backend(const gpu::DeviceInfo& dev) {
    if (!dev.available) throw gpu::GpuUnavailable(dev.why_unavailable);
    return std::make_unique<GpuSpectrumBackend>(dev);
}

std::vector<gpu::KernelResources> gpu_custom_resources(SpectrumBackend& b, int w, int h, const gpu::CustomConfig& c) {
    auto* g = dynamic_cast<GpuSpectrumBackend*>(&b);
    if (!g) return {};
    return g->engine().resources(w, h, c);
}

}  // namespace specview
