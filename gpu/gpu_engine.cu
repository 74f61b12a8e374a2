#include "gpu/gpu_engine.h"

#include "gpu/cufft_backend.h"
#include "gpu/cuda_check.h"
#include "gpu/device_info.h"
#include "gpu/fft_fast.h"
#include "gpu/pipeline.h"
#include "gpu/resources.h"
#include "gpu/spectrum_view.h"
#include "gpu/timing.h"

namespace specview::gpu {

struct GpuEngine::Impl {
    DeviceInfo dev;
    Stream stream;
    TwiddleTable twiddles;
    CufftBackend cufft;
    FastFft fast;
    SpectrumViewer viewer;
    StageTimer timer;
    DeviceBuffer<float> plane;
    DeviceBuffer<float2> a, b, full;
    DeviceBuffer<std::uint32_t> rgba;
    std::uint64_t plane_version = 0;
    int plane_w = 0, plane_h = 0;
};

namespace {
DeviceInfo usable_device(int device) {
    DeviceInfo d = probe_device(device);
    if (!d.available) throw GpuUnavailable(d.why_unavailable);
    return d;
}
}  // namespace

GpuEngine::GpuEngine(int device) : impl_(nullptr) {
    DeviceInfo d = usable_device(device);
    impl_.reset(new Impl{d, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, 0, 0, 0});
}

GpuEngine::~GpuEngine() = default;

const DeviceInfo& GpuEngine::info() const { return impl_->dev; }

std::vector<KernelResources> GpuEngine::resources(int width, int height, const CustomConfig& cfg) {
    const Custom2DPlan p = plan_custom_2d(width, height, cfg, impl_->dev, true);
    return {row_fft_resources(p.rows1, true, impl_->dev), transpose_resources(p.transpose, impl_->dev),
            row_fft_resources(p.rows2, false, impl_->dev)};
}

GpuResult GpuEngine::run(const GpuRequest& req) {
    Impl& m = *impl_;
    cudaStream_t s = m.stream.get();
    const int w = req.width, h = req.height;
    const long long n = (long long)w * h;
    if (w < 1 || h < 1 || !req.plane) throw ConfigError("empty plane");
    GpuResult out;

    // Plan first: a configuration the device cannot run fails here, before any allocation or launch.
    Custom2DPlan plan;
    if (req.path == Path::Custom) {
        plan = plan_custom_2d(w, h, req.custom, m.dev, true);
        out.notes = plan.rows1.notes;
        for (const auto& note : plan.rows2.notes) out.notes.push_back("second pass: " + note);
    }

    m.timer.start(s);
    if (req.plane_version == 0 || req.plane_version != m.plane_version || w != m.plane_w || h != m.plane_h) {
        m.plane.resize(n);
        CUDA_CHECK(cudaMemcpyAsync(m.plane.get(), req.plane, n * sizeof(float), cudaMemcpyHostToDevice, s));
        m.plane_version = req.plane_version;
        m.plane_w = w;
        m.plane_h = h;
        m.timer.mark("upload plane (host -> device)", double(n) * 4.0);
    }

    // The picture, through the chosen path; `full` is where the complex spectrum can be read, on request.
    const std::size_t first = m.timer.marks();
    if (req.want_rgba) m.rgba.resize(n);
    std::uint32_t* rgba = req.want_rgba ? m.rgba.get() : nullptr;
    const float2* full = nullptr;
    if (req.path == Path::CustomFast) {
        // Two passes; the picture straight from the second one's epilogue.
        out.width = w;
        out.height = h;
        out.range_reused = m.fast.picture(m.plane.get(), w, h, req.plane_version, req.view, rgba, req.surface, s,
                                          &m.timer).range_reused;
        if (out.range_reused) out.notes.push_back("range reused from an identical earlier run (same plane and view)");
    } else {
        SpectrumSource src;
        if (req.path == Path::Custom) {
            m.a.resize(n);
            m.b.resize(n);
            Custom2DResult r = run_custom_2d(plan, m.plane.get(), m.a.get(), m.b.get(), false, req.stop, m.twiddles, s,
                                             &m.timer);
            src = {r.data, r.cols, r.rows, r.cols, false};
            out.resources = {row_fft_resources(plan.rows1, true, m.dev), transpose_resources(plan.transpose, m.dev),
                             row_fft_resources(plan.rows2, false, m.dev)};
            out.row_plans = {plan.rows1, plan.rows2};
        } else {
            src = m.cufft.forward_real(m.plane.get(), w, h, req.cufft_mode, s, &m.timer);
        }
        out.width = src.width;
        out.height = src.height;
        m.viewer.run(src, req.view, rgba, req.surface, s, &m.timer);
        full = src.data;
        if (req.want_spectrum && src.half) {
            m.full.resize(n);
            expand_half_spectrum(src.data, w, h, m.full.get(), s);
            full = m.full.get();
        }
    }
    const std::size_t last = m.timer.marks();  // total_ms covers the marks in [first, last)

    if (req.want_spectrum) {
        if (req.path == Path::CustomFast) {  // the picture never held the complex spectrum: compute it
            m.full.resize(n);
            m.fast.real_spectrum(m.plane.get(), w, h, m.full.get(), s, &m.timer);
            full = m.full.get();
        }
        out.spectrum.resize(n);
        CUDA_CHECK(cudaMemcpyAsync(out.spectrum.data(), full, n * sizeof(float2), cudaMemcpyDeviceToHost, s));
        m.timer.mark("download spectrum (device -> host)", double(n) * 8.0);
    }
    if (req.want_rgba) {
        out.rgba.resize(n);
        CUDA_CHECK(cudaMemcpyAsync(out.rgba.data(), rgba, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, s));
        m.timer.mark("download picture (device -> host)", double(n) * 4.0);
    }
    if (req.path == Path::CustomFast) m.fast.range(&out.range_lo, &out.range_hi, s);
    else m.viewer.range(&out.range_lo, &out.range_hi, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    out.timings = m.timer.collect();
    for (std::size_t i = first; i < last; ++i) out.total_ms += out.timings[i].ms;
    return out;
}

}  // namespace specview::gpu
