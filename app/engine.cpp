#include "app/engine.h"

#include <algorithm>
#include <chrono>

#include "app/cpu_backend.h"
#include "app/staged_fft.h"
#include "gpu/device_info.h"
#include "gpu/gpu_engine.h"
#include "gpu/plane_prep.h"

namespace specview {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The settings that change the plane fed to the FFT; anything else re-runs from the prepared plane.
struct PlaneKey {
    std::uint64_t image_version = 0;
    Channel channel{};
    Window window{};
    float tukey_alpha = 0;
    PadMode pad{};
    PadFill fill{};
    bool operator==(const PlaneKey& o) const {
        return image_version == o.image_version && channel == o.channel && window == o.window &&
               tukey_alpha == o.tukey_alpha && pad == o.pad && fill == o.fill;
    }
};
}  // namespace

struct Engine::Impl {
    std::shared_ptr<const Image> image_ptr = std::make_shared<Image>();
    std::string name;
    std::uint64_t image_version = 0;
    bool has_image = false;

    // The plane's identity: its settings, and a version that bumps when they change (the GPU re-makes it then).
    PlaneKey plane_key;
    std::uint64_t plane_version = 0;
    // The host plane (CPU backend, classroom diagram), made on demand.
    PlaneKey host_key;
    bool host_valid = false;
    PreparedPlane prepared;
    std::uint64_t gpu_plane_version = 0;  // the plane the GPU engine holds

    CpuFft cpu_fft;
    std::shared_ptr<std::vector<std::complex<float>>> cpu_spectrum = std::make_shared<std::vector<std::complex<float>>>();
    std::vector<float> cpu_values;

    bool probed = false;
    gpu::DeviceInfo dev;
    std::unique_ptr<gpu::GpuEngine> gpu;

    gpu::GpuEngine& gpu_engine() {
        if (!gpu) {
            const gpu::DeviceInfo& d = device();
            if (!d.available) throw gpu::GpuUnavailable(d.why_unavailable);
            gpu = std::make_unique<gpu::GpuEngine>(d.device);
        }
        return *gpu;
    }
    // The plane's version for these settings (a new one when they changed since the last call).
    std::uint64_t plane_for(const Settings& s) {
        if (!has_image) throw InputError("(none)", "no image loaded");
        if (s.channel == Channel::A && !(image_ptr->channels == 2 || image_ptr->channels == 4))
            throw InputError(name, "has no alpha channel (--channel a)");
        const PlaneKey key{image_version, s.channel, s.window, s.tukey_alpha, s.pad, s.pad_fill};
        if (!(key == plane_key && plane_version != 0)) {
            plane_key = key;
            ++plane_version;
        }
        return plane_version;
    }
    // Prepares the host plane when the settings that shape it changed; returns the milliseconds it took (0: cached).
    double prepare(const Settings& s) {
        plane_for(s);
        if (host_valid && host_key == plane_key) return 0.0;
        const auto t0 = Clock::now();
        prepared = prepare_plane(extract_channel(*image_ptr, s.channel, name), s);
        host_key = plane_key;
        host_valid = true;
        return std::max(ms_since(t0), 1e-6);
    }
    const gpu::DeviceInfo& device() {
        if (!probed) {
            dev = gpu::probe_device(0);
            probed = true;
        }
        return dev;
    }
};

Engine::Engine() : impl_(new Impl) {}
Engine::~Engine() = default;

void Engine::set_image(Image img, std::string name) {
    set_image(std::make_shared<const Image>(std::move(img)), std::move(name));
}
void Engine::set_image(std::shared_ptr<const Image> img, std::string name) {
    impl_->image_ptr = std::move(img);
    impl_->name = std::move(name);
    impl_->has_image = true;
    ++impl_->image_version;
}
bool Engine::has_image() const { return impl_->has_image; }
const Image& Engine::image() const { return *impl_->image_ptr; }
const std::string& Engine::image_name() const { return impl_->name; }
const gpu::DeviceInfo& Engine::device_info() { return impl_->device(); }

void picture_size(const Settings& s, int image_w, int image_h, int* w, int* h) {
    using K = gpu::StopPoint::Kind;
    transform_size(s.pad, image_w, image_h, w, h);
    const bool transposed = s.stop.kind == K::Transpose1 || s.stop.kind == K::RowPass2;
    if (transposed && (s.backend == Backend::Custom || s.backend == Backend::Cpu)) std::swap(*w, *h);
}

void Engine::output_size(const Settings& s, int* w, int* h) const {
    picture_size(s, impl_->image_ptr->width, impl_->image_ptr->height, w, h);
}

std::complex<double> Engine::read_value(const Settings& s, int x, int y) {
    Impl& m = *impl_;
    if (s.backend == Backend::Cpu) {
        const auto& d = *m.cpu_spectrum;
        int w = 0, h = 0;
        output_size(s, &w, &h);
        if (x < 0 || y < 0 || x >= w || y >= h || d.size() != std::size_t(w) * h)
            throw gpu::ConfigError("no value at (" + std::to_string(x) + ", " + std::to_string(y) + ")");
        return d[std::size_t(y) * w + x];
    }
    if (s.backend == Backend::Custom && s.stop.kind != gpu::StopPoint::Kind::Done)
        return m.gpu_engine().stopped_element(x, y);
    return m.gpu_engine().plane_dft_bin(x, y);
}

const PreparedPlane& Engine::prepared(const Settings& s) {
    impl_->prepare(s);
    return impl_->prepared;
}

std::vector<gpu::KernelResources> Engine::custom_resources(const Settings& s) {
    Impl& m = *impl_;
    if (!m.has_image || !m.device().available) return {};
    int w = 0, h = 0;
    transform_size(s.pad, m.image_ptr->width, m.image_ptr->height, &w, &h);
    try {
        return m.gpu_engine().resources(w, h, s.custom);
    } catch (const std::exception&) {
        return {};
    }
}

Frame Engine::run(const Settings& s, const RunOptions& o) {
    Impl& m = *impl_;
    if (!m.has_image) throw InputError("(none)", "no image loaded");
    Frame f;
    f.image_width = m.image_ptr->width;
    f.image_height = m.image_ptr->height;

    if (s.backend == Backend::Cpu) {
    const double prepare_ms = m.prepare(s);
    const PreparedPlane& pp = m.prepared;
    f.content_x = pp.content_x;
    f.content_y = pp.content_y;
    f.content_w = pp.content_w;
    f.content_h = pp.content_h;
    f.crop_x = pp.crop_x;
    f.crop_y = pp.crop_y;
    const int w = pp.plane.width, h = pp.plane.height;
    if (prepare_ms > 0) f.timings.push_back({"prepare plane (channel, window, pad) [CPU]", prepare_ms, 0.0});

        f.width = w;
        f.height = h;
        auto t0 = Clock::now();
        const bool staged = s.stop.kind != gpu::StopPoint::Kind::Done;
        // The previous run's data may still be shown (Frame::host_data): write into a fresh buffer then.
        if (m.cpu_spectrum.use_count() > 1) m.cpu_spectrum = std::make_shared<std::vector<std::complex<float>>>();
        if (staged) {
            StagedResult r = run_staged_2d(pp.plane, s.stop);
            *m.cpu_spectrum = std::move(r.data);
            f.width = r.cols;
            f.height = r.rows;
            f.timings.push_back({"staged radix-2 model", ms_since(t0), 0.0});
            f.backend = "CPU (staged radix-2 model)";
            // The launch shapes the GPU would use, for classroom mode's thread mapping (H100 limits).
            f.row_plans = {gpu::plan_row_fft_shape(w, h, s.custom.rows, 1024, 227 * 1024, "an H100"),
                           gpu::plan_row_fft_shape(h, w, s.custom.rows, 1024, 227 * 1024, "an H100")};
        } else {
            m.cpu_fft.forward(pp.plane, *m.cpu_spectrum);
            f.timings.push_back({"FFTW r2c 2D + Hermitian fill", ms_since(t0), double(w) * h * 12.0});
            f.backend = "CPU (FFTW)";
        }
        t0 = Clock::now();
        compute_view_values(m.cpu_spectrum->data(), f.width, f.height, s.view, m.cpu_values);
        f.timings.push_back({"view (shift + value)", ms_since(t0), double(w) * h * 12.0});
        t0 = Clock::now();
        compute_range(m.cpu_values, s.view, &f.range_lo, &f.range_hi);
        f.timings.push_back({"range", ms_since(t0), double(w) * h * 4.0});
        t0 = Clock::now();
        colorize(m.cpu_values, f.range_lo, f.range_hi, s.view.colormap, f.rgba);
        f.timings.push_back({"colormap -> RGBA8", ms_since(t0), double(w) * h * 8.0});
        if (o.want_spectrum) f.spectrum = *m.cpu_spectrum;
        f.host_data = m.cpu_spectrum;
        for (std::size_t i = prepare_ms > 0 ? 1 : 0; i < f.timings.size(); ++i) f.total_ms += f.timings[i].ms;
        return f;
    }

    // GPU backends: the plane is made on the device from the image (uploaded once per image).
    const Image& img = *m.image_ptr;
    const PlaneGeometry g = plane_geometry(s, img.width, img.height);
    const int w = g.width, h = g.height;
    f.content_x = 0;
    f.content_y = 0;
    f.content_w = g.content_w;
    f.content_h = g.content_h;
    f.crop_x = g.crop_x;
    f.crop_y = g.crop_y;
    gpu::PlaneRecipe recipe;
    recipe.pixels = img.pixels.data();
    recipe.image_width = img.width;
    recipe.image_height = img.height;
    recipe.channels = img.channels;
    recipe.image_version = m.image_version;
    recipe.channel = int(s.channel);
    recipe.plane_width = w;
    recipe.plane_height = h;
    recipe.crop_x = g.crop_x;
    recipe.crop_y = g.crop_y;
    recipe.content_width = g.content_w;
    recipe.content_height = g.content_h;
    recipe.fill_mean = s.pad_fill == PadFill::Mean;
    const std::uint64_t version = m.plane_for(s);
    if (version != m.gpu_plane_version) {  // the device makes a new plane: it needs the window values
        recipe.window_x.resize(g.content_w);
        recipe.window_y.resize(g.content_h);
        for (int x = 0; x < g.content_w; ++x) recipe.window_x[x] = window_value(s.window, x, g.content_w, s.tukey_alpha);
        for (int y = 0; y < g.content_h; ++y) recipe.window_y[y] = window_value(s.window, y, g.content_h, s.tukey_alpha);
    }

    gpu::GpuRequest req;
    req.recipe = &recipe;
    req.width = w;
    req.height = h;
    req.plane_version = version;
    req.path = s.backend == Backend::Custom ? gpu::Path::Custom
               : s.backend == Backend::CustomFast ? gpu::Path::CustomFast
                                                   : gpu::Path::Cufft;
    req.custom = s.custom;
    req.cufft_mode = s.cufft_mode;
    req.stop = s.backend == Backend::Custom ? s.stop : gpu::StopPoint{};
    req.view = s.view;
    req.want_spectrum = o.want_spectrum;
    req.want_rgba = o.want_rgba;
    req.surface = o.surface;
    req.picture_slot = o.picture_slot;
    m.gpu_plane_version = 0;  // unknown while the run is under way
    gpu::GpuResult r = m.gpu_engine().run(req);
    m.gpu_plane_version = version;
    f.width = r.width;
    f.height = r.height;
    f.spectrum = std::move(r.spectrum);
    f.rgba = std::move(r.rgba);
    f.rgba_on_surface = o.surface != 0;
    f.device_rgba = r.device_rgba;
    f.picture_slot = o.picture_slot;
    if (o.picture_slot >= 0) f.slot_consumed_event = m.gpu->slot_consumed_event(o.picture_slot);
    f.range_lo = r.range_lo;
    f.range_hi = r.range_hi;
    f.timings.insert(f.timings.end(), r.timings.begin(), r.timings.end());
    f.total_ms = r.total_ms;
    f.notes = std::move(r.notes);
    f.resources = std::move(r.resources);
    f.row_plans = std::move(r.row_plans);
    f.backend = s.backend == Backend::Custom       ? "custom CUDA (row FFT / transpose) on " + m.dev.name
                : s.backend == Backend::CustomFast ? "custom-fast CUDA (two fused passes) on " + m.dev.name
                : std::string("cuFFT ") + (s.cufft_mode == gpu::CufftMode::R2C ? "R2C" : "C2C") + " on " + m.dev.name;
    return f;
}

}  // namespace specview
