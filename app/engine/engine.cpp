#include "app/engine/engine.h"

#include <algorithm>
#include <utility>
#include <chrono>

#include "app/engine/backend.h"
#include "app/engine/preview.h"
#include "gpu/common/errors.h"
#include "gpu/runtime/device_info.h"

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
    float kaiser_beta = 0;
    WindowShape shape{};
    Level level{};
    PadMode pad{};
    PadFill fill{};
    bool operator==(const PlaneKey& o) const {
        return image_version == o.image_version && channel == o.channel && window == o.window &&
               tukey_alpha == o.tukey_alpha && kaiser_beta == o.kaiser_beta && shape == o.shape && level == o.level &&
               pad == o.pad && fill == o.fill;
    }
};
}  // namespace

struct Engine::Impl {
    int cuda_device = 0;  // the CUDA device of the GPU backends
    // The image given, and what is transformed: the same, or its ROI's copy (remade when the ROI changes).
    std::shared_ptr<const Image> full_ptr = std::make_shared<Image>();
    std::shared_ptr<const Image> image_ptr = full_ptr;
    Roi roi;
    SpectrumBackend* power_backend = nullptr;  // where runs with accumulate_power added their power
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

    double early_plan_ms = 0;  // plan_for's time, reported by the next run

    bool probed = false;
    gpu::DeviceInfo dev;
    std::unique_ptr<SpectrumBackend> cpu, gpu, opencl, gl;
    std::shared_ptr<gpu::GlSharedContext> gl_shared;  // set_gl_context's
    std::string gl_share_refused;                     // why it was dropped
    int opencl_platform = -2, opencl_device = -2;  // the device `opencl` was made for
    std::unique_ptr<SpectrumPreview> preview;
    // Why the GPU can no longer be used in this process (a sticky CUDA error: GpuContextLost); empty while it can.
    std::string gpu_lost;

    SpectrumBackend& backend_for(const Settings& s) {
        if (s.backend == Backend::Cpu) {
            if (!cpu) cpu = make_cpu_backend();
            return *cpu;
        }
        if (s.backend == Backend::OpenCl) {  // throws GpuUnavailable (no OpenCL, no such device) with the reason
            if (!opencl || opencl_platform != s.opencl_platform || opencl_device != s.opencl_device) {
                opencl.reset();
                opencl = make_opencl_backend(s.opencl_platform, s.opencl_device);
                opencl_platform = s.opencl_platform;
                opencl_device = s.opencl_device;
            }
            return *opencl;
        }
        if (s.backend == Backend::Gl) {  // throws GpuUnavailable (no EGL, no 4.3 context) with the reason
            if (!gl && gl_shared) {
                try {
                    gl = make_gl_backend(gl_shared);
                } catch (const gpu::GpuUnavailable& e) {  // the viewer's share group refused: a context of its own
                    gl_shared.reset();
                    gl_share_refused = e.what();
                }
            }
            if (!gl) gl = make_gl_backend();
            return *gl;
        }
        if (!gpu_lost.empty()) throw gpu::GpuContextLost("the GPU stopped working earlier in this process: " + gpu_lost);
        if (!gpu) gpu = make_gpu_backend(device());
        return *gpu;
    }
    // Runs f; a GpuContextLost on the way marks the GPU lost for good (the backend object is kept, never used again:
    // frames may still name its device buffers) and goes on to the caller.
    template <class F>
    decltype(auto) guarded(F&& f) {
        try {
            return f();
        } catch (const gpu::GpuContextLost& e) {
            if (gpu_lost.empty()) gpu_lost = e.what();
            dev.available = false;
            dev.why_unavailable = "the GPU stopped working (" + gpu_lost + "); restart specview to use it again";
            probed = true;
            if (power_backend == gpu.get()) power_backend = nullptr;
            throw;
        }
    }
    // Points image_ptr at the settings' region of the image (a new image version when it changed).
    void use_region(const Settings& s) {
        if (!has_image) throw InputError("(none)", "no image loaded");
        if (s.roi == roi) return;
        image_ptr = s.roi.whole() ? full_ptr
                                  : std::make_shared<const Image>(
                                        crop_image(*full_ptr, s.roi.x, s.roi.y, s.roi.w, s.roi.h, name));
        roi = s.roi;
        ++image_version;
    }
    // The plane's version for these settings (a new one when they changed since the last call).
    std::uint64_t plane_for(const Settings& s) {
        use_region(s);
        if (s.channel == Channel::A && !(image_ptr->channels == 2 || image_ptr->channels == 4))
            throw InputError(name, "has no alpha channel (--channel a)");
        const PlaneKey key{image_version,  s.channel, s.window, s.tukey_alpha, s.kaiser_beta,
                           s.window_shape, s.level,   s.pad,    s.pad_fill};
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
        require_host_samples(*image_ptr, name);
        const auto t0 = Clock::now();
        prepared = prepare_plane(*image_ptr, s, name);
        host_key = plane_key;
        host_valid = true;
        return std::max(ms_since(t0), 1e-6);
    }
    PlaneContext context(const Settings& s) {
        PlaneContext c;
        c.image = image_ptr.get();
        c.image_version = image_version;
        c.plane_version = plane_for(s);
        c.host_plane_cached = host_valid && host_key == plane_key;
        c.name = name;
        c.host_plane = [this, s](double* ms) -> const PreparedPlane& {
            *ms = prepare(s);
            return prepared;
        };
        return c;
    }
    const gpu::DeviceInfo& device() {
        if (!probed) {
            dev = gpu::probe_device(cuda_device);
            probed = true;
        }
        return dev;
    }
};

Engine::Engine(int cuda_device) : impl_(new Impl) { impl_->cuda_device = cuda_device; }
Engine::~Engine() = default;

void Engine::set_gl_context(std::shared_ptr<gpu::GlSharedContext> shared) {
    impl_->gl_share_refused.clear();  // (a refused share is no longer held: any share given is tried again)
    if (shared == impl_->gl_shared) return;
    impl_->gl.reset();  // made again in the new context at its next use
    impl_->gl_shared = std::move(shared);
}

bool Engine::gl_shares_context() const { return impl_->gl_shared != nullptr; }
const std::string& Engine::gl_share_refused() const { return impl_->gl_share_refused; }

void Engine::set_image(Image img, std::string name) {
    set_image(std::make_shared<const Image>(std::move(img)), std::move(name));
}
void Engine::set_image(std::shared_ptr<const Image> img, std::string name) {
    impl_->full_ptr = std::move(img);
    impl_->image_ptr = impl_->full_ptr;
    impl_->roi = Roi{};
    impl_->name = std::move(name);
    impl_->has_image = true;
    ++impl_->image_version;
}
bool Engine::has_image() const { return impl_->has_image; }
const gpu::DeviceInfo& Engine::device_info() { return impl_->device(); }
const std::string& Engine::gpu_lost() const { return impl_->gpu_lost; }

void picture_size(const Settings& s, int image_w, int image_h, int* w, int* h) {
    using K = gpu::StopPoint::Kind;
    region_size(s, image_w, image_h, &image_w, &image_h);
    transform_size(s.pad, image_w, image_h, w, h);
    const bool transposed = s.stop.kind == K::Transpose1 || s.stop.kind == K::RowPass2;
    if (transposed && (s.backend == Backend::Custom || !cuda_backend(s.backend))) std::swap(*w, *h);
}

std::complex<double> Engine::read_value(const Settings& s, int x, int y) {
    return impl_->guarded([&] { return impl_->backend_for(s).read_value(s, x, y); });
}

int Engine::take_power_sum(std::vector<double>& sum, int* width, int* height) {
    Impl& m = *impl_;
    if (!m.power_backend) return 0;
    SpectrumBackend* b = m.power_backend;
    return m.guarded([&] {
        m.power_backend = nullptr;
        return b->take_power_sum(sum, width, height);
    });
}

PowerProfiles Engine::power_profiles(const Settings& s) {
    if (s.stop.kind != gpu::StopPoint::Kind::Done) throw gpu::ConfigError("no power profiles at a classroom stop");
    return impl_->guarded([&] { return impl_->backend_for(s).power_profiles(s); });
}

std::vector<std::complex<float>> Engine::spectrum_bins(const Settings& s, const std::vector<int>& kx,
                                                       const std::vector<int>& ky) {
    if (kx.size() != ky.size()) throw gpu::ConfigError("spectrum_bins: as many kx as ky");
    if (s.stop.kind != gpu::StopPoint::Kind::Done) throw gpu::ConfigError("no spectrum at a classroom stop");
    return impl_->guarded([&] { return impl_->backend_for(s).spectrum_bins(s, kx, ky); });
}

const PreparedPlane& Engine::prepared(const Settings& s) {
    impl_->prepare(s);
    return impl_->prepared;
}

bool Engine::preview(const Settings& s, int max_side, int threads, Preview& out) {
    Impl& m = *impl_;
    m.plane_for(s);  // the region, and the channel's check
    if (!m.preview) m.preview = std::make_unique<SpectrumPreview>();
    return m.preview->make(*m.image_ptr, s, max_side, threads, out, m.name);
}

std::vector<gpu::KernelResources> Engine::custom_resources(const Settings& s) {
    Impl& m = *impl_;
    if (!m.has_image || !m.device().available) return {};
    int w = 0, h = 0;
    region_size(s, m.full_ptr->width, m.full_ptr->height, &w, &h);
    transform_size(s.pad, w, h, &w, &h);
    try {
        Settings g = s;
        g.backend = Backend::Custom;
        return m.guarded([&] { return gpu_custom_resources(m.backend_for(g), w, h, s.custom); });
    } catch (const gpu::ConfigError&) {
        return {};  // a configuration the device cannot run has no resources to show (its run says why)
    }
}

double Engine::plan_for(const Settings& s, int image_w, int image_h) {
    int w = 0, h = 0;
    region_size(s, image_w, image_h, &image_w, &image_h);
    transform_size(s.pad, image_w, image_h, &w, &h);
    const double ms = impl_->guarded([&] { return impl_->backend_for(s).plan_size(s, w, h); });
    if (ms > 0) impl_->early_plan_ms += ms;
    return ms;
}

Frame Engine::run(const Settings& s, const RunOptions& o) {
    Impl& m = *impl_;
    m.use_region(s);
    SpectrumBackend& b = m.guarded([&]() -> SpectrumBackend& { return m.backend_for(s); });
    const PlaneContext ctx = m.context(s);
    // The plan apart from the run: its time is its own line, never inside a kernel's or the total.
    const double plan_ms = m.guarded([&] { return b.plan(ctx, s); });
    Frame f = m.guarded([&] { return b.run(ctx, s, o); });
    if (o.accumulate_power) m.power_backend = &b;
    f.image_width = m.image_ptr->width;
    f.image_height = m.image_ptr->height;
    if (plan_ms > 0)
        f.timings.insert(f.timings.begin(), {"plan (first run at this size and configuration) [host]", plan_ms, 0.0});
    if (m.early_plan_ms > 0)
        f.timings.insert(f.timings.begin(), {"plan (while the image was decoded) [host]", m.early_plan_ms, 0.0});
    m.early_plan_ms = 0;
    return f;
}

}  // namespace specview
