#include "gpu/engine/volume_engine.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include <stdexcept>
#include <string>

#include "gpu/custom/pipeline_3d.h"
#include "gpu/picture/volume_view.h"
#include "gpu/runtime/device_info.h"
#include "gpu/runtime/resources.h"
#include "gpu/runtime/timing.h"

namespace specview::gpu {

namespace {

// Rows of `stride` floats (the first `width` real) -> dense complex rows of `width`, imaginary parts zero.
__global__ void expand_rows_kernel(const float* __restrict__ in, float2* __restrict__ out, int width, int stride,
                                   long long total) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        const long long r = i / width, x = i - r * width;
        out[i] = make_float2(in[r * stride + x], 0.0f);
    }
}

double sum_ms(const std::vector<KernelTiming>& t, std::size_t from, std::size_t to) {
    double ms = 0;
    for (std::size_t i = from; i < to && i < t.size(); ++i) ms += t[i].ms;
    return ms;
}

}  // namespace

struct VolumeEngine::Impl {
    DeviceInfo dev;
    Stream stream;
    StageTimer timer;
    TwiddleTable twiddles;
    DeviceBuffer<float2> a, b;
    DeviceBuffer<float> staging;
    CufftPlan plan;
    struct Key {
        int w = 0, h = 0, d = 0;
        cufftType type{};
        bool operator==(const Key& o) const { return w == o.w && h == o.h && d == o.d && type == o.type; }
    } planned;
    // The spectrum a run with `keep` left on the device (in a, b or staging), and which run that was.
    HalfVolume kept;
    std::uint64_t runs = 0, kept_run = 0;
    explicit Impl(const DeviceInfo& d) : dev(d) {}
    const HalfVolume& kept_of(std::uint64_t run) const {
        if (run == 0 || run != kept_run)
            throw std::logic_error("the GPU's volume buffer no longer holds that spectrum (another transform ran)");
        CUDA_CHECK(cudaSetDevice(dev.device));
        return kept;
    }
};

namespace {
DeviceInfo usable(int device) {
    DeviceInfo d = probe_device(device);
    if (!d.available) throw GpuUnavailable(d.why_unavailable);
    CUDA_CHECK(cudaSetDevice(d.device));
    return d;
}
}  // namespace

VolumeEngine::VolumeEngine(int device) : impl_(new Impl(usable(device))) {}
VolumeEngine::~VolumeEngine() = default;

const DeviceInfo& VolumeEngine::device() const { return impl_->dev; }

void VolumeEngine::check(const VolumeRequest& r, int W, int H, int D) const {
    if (W < 1 || H < 1 || D < 1) throw ConfigError("a volume needs at least one voxel");
    if (r.path == VolumePath::Custom) plan_custom_3d(W, H, D, r.custom, impl_->dev, r.custom.merge_final_transposes);
}

double VolumeEngine::device_bytes(const VolumeRequest& r, int W, int H, int D) {
    const double voxels = double(W) * H * D, half = (double(W) / 2 + 1) * H * D;
    if (r.path == VolumePath::Custom) return 16.0 * voxels;  // a and b, complex (the real volume goes up into b)
    const bool c2c = r.cufft_mode == CufftMode::C2C;
    std::size_t work = 0;
    if (cufftEstimate3d(D, H, W, c2c ? CUFFT_C2C : CUFFT_R2C, &work) != CUFFT_SUCCESS) work = 0;
    // R2C in place: the padded real volume is the half spectrum's bytes. C2C: the complex volume and the real one.
    return (c2c ? 8.0 * voxels + 8.0 * half : 8.0 * half) + double(work);
}

VolumeRun VolumeEngine::r2c_in_place(float* host, int W, int H, int D, const VolumeRequest& r, bool keep) {
    Impl& m = *impl_;
    m.kept_run = 0;  // (whatever was kept is about to be overwritten)
    check(r, W, H, D);
    CUDA_CHECK(cudaSetDevice(m.dev.device));
    cudaStream_t s = m.stream.get();
    const int hw = W / 2 + 1, stride = 2 * hw;
    const long long rows = (long long)H * D, voxels = rows * W;
    const std::size_t padded_bytes = std::size_t(rows) * stride * sizeof(float);
    VolumeRun run;
    m.timer.start(s);
    std::size_t first_pass = 0, last_pass = 0;  // the transform's marks
    auto expand = [&](const float* in, float2* out) {
        const int blocks = int(std::min<long long>((voxels + 255) / 256, 32LL * m.dev.sm_count));
        expand_rows_kernel<<<blocks, 256, 0, s>>>(in, out, W, stride, voxels);
        CUDA_CHECK_LAUNCH("expand_rows_kernel");
        m.timer.mark("real to complex", 12.0 * double(voxels));
    };
    const float2* result = nullptr;  // where the half spectrum is, rows `pitch` bins apart
    std::size_t pitch = 0;
    auto download_half = [&](const float2* from) {  // the first W/2 + 1 bins of each row
        result = from;
        pitch = std::size_t(W);
        if (keep) return;
        CUDA_CHECK(cudaMemcpy2DAsync(host, hw * sizeof(float2), from, std::size_t(W) * sizeof(float2),
                                     hw * sizeof(float2), std::size_t(rows), cudaMemcpyDeviceToHost, s));
        m.timer.mark("download (half spectrum)", double(rows) * hw * 8.0);
    };
    if (r.path == VolumePath::Custom) {
        const Custom3DPlan plan = plan_custom_3d(W, H, D, r.custom, m.dev, r.custom.merge_final_transposes);
        m.plan.reset();  // its workspace is not needed
        m.staging.release();
        m.a.resize(std::size_t(voxels));
        m.b.resize(std::size_t(voxels));
        // The real volume goes up into b's bytes (it is smaller), then is expanded into a.
        float* real = reinterpret_cast<float*>(m.b.get());
        CUDA_CHECK(cudaMemcpyAsync(real, host, padded_bytes, cudaMemcpyHostToDevice, s));
        m.timer.mark("upload (real volume)", double(padded_bytes));
        expand(real, m.a.get());
        first_pass = m.timer.marks();
        const float2* out = run_custom_3d(plan, m.a.get(), m.b.get(), false, m.twiddles, s, &m.timer);
        last_pass = m.timer.marks();
        download_half(out);
        run.what = std::string("custom CUDA 3D (row FFT x3, ") +
                   (r.custom.merge_final_transposes ? "3 transposes: the final two merged" : "4 transposes") + ") on " +
                   m.dev.name;
    } else if (r.cufft_mode == CufftMode::R2C) {
        const Impl::Key key{W, H, D, CUFFT_R2C};
        if (!m.plan.valid() || !(m.planned == key)) {
            m.plan.reset();
            m.a.release();
            m.b.release();
            m.plan.make_3d(D, H, W, CUFFT_R2C, s);
            m.planned = key;
        }
        m.staging.resize(std::size_t(rows) * stride);
        CUDA_CHECK(cudaMemcpyAsync(m.staging.get(), host, padded_bytes, cudaMemcpyHostToDevice, s));
        m.timer.mark("upload (real volume)", double(padded_bytes));
        first_pass = m.timer.marks();
        CUFFT_CHECK(cufftExecR2C(m.plan.get(), m.staging.get(), reinterpret_cast<cufftComplex*>(m.staging.get())));
        m.timer.mark("cuFFT R2C 3D (in place)", 12.0 * double(voxels));
        last_pass = m.timer.marks();
        result = reinterpret_cast<const float2*>(m.staging.get());
        pitch = std::size_t(hw);
        if (!keep) {
            CUDA_CHECK(cudaMemcpyAsync(host, m.staging.get(), padded_bytes, cudaMemcpyDeviceToHost, s));
            m.timer.mark("download (half spectrum)", double(padded_bytes));
        }
        run.what = "cuFFT R2C 3D (in place) on " + m.dev.name;
    } else {
        const Impl::Key key{W, H, D, CUFFT_C2C};
        if (!m.plan.valid() || !(m.planned == key)) {
            m.plan.reset();
            m.b.release();
            m.plan.make_3d(D, H, W, CUFFT_C2C, s);
            m.planned = key;
        }
        m.a.resize(std::size_t(voxels));
        m.staging.resize(std::size_t(rows) * stride);
        CUDA_CHECK(cudaMemcpyAsync(m.staging.get(), host, padded_bytes, cudaMemcpyHostToDevice, s));
        m.timer.mark("upload (real volume)", double(padded_bytes));
        expand(m.staging.get(), m.a.get());
        first_pass = m.timer.marks();
        auto* c = reinterpret_cast<cufftComplex*>(m.a.get());
        CUFFT_CHECK(cufftExecC2C(m.plan.get(), c, c, CUFFT_FORWARD));
        m.timer.mark("cuFFT C2C 3D (in place)", 16.0 * double(voxels) * 3);
        last_pass = m.timer.marks();
        download_half(m.a.get());
        run.what = "cuFFT C2C 3D (in place) on " + m.dev.name;
    }
    run.stages = m.timer.collect();
    CUDA_CHECK(cudaStreamSynchronize(s));
    run.transform_ms = sum_ms(run.stages, first_pass, last_pass);
    run.copy_ms = sum_ms(run.stages, 0, run.stages.size()) - run.transform_ms;
    if (keep) {
        m.kept = HalfVolume{result, W, H, D, pitch};
        m.kept_run = ++m.runs;
    }
    return run;
}

std::uint64_t VolumeEngine::kept() const { return impl_->kept_run; }

void VolumeEngine::download_half(std::uint64_t run, std::complex<float>* host) {
    const HalfVolume& v = impl_->kept_of(run);
    cudaStream_t s = impl_->stream.get();
    const std::size_t hw = std::size_t(v.W) / 2 + 1;
    CUDA_CHECK(cudaMemcpy2DAsync(host, hw * sizeof(float2), v.data, v.pitch * sizeof(float2), hw * sizeof(float2),
                                 std::size_t(v.H) * std::size_t(v.D), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
}

std::vector<float> VolumeEngine::slice(std::uint64_t run, int axis, int k, View view, bool shift, int rows, int cols,
                                       std::vector<std::complex<float>>* bins) {
    std::vector<float2> b;
    std::vector<float> v =
        volume_slice(impl_->kept_of(run), axis, k, view, shift, rows, cols, impl_->stream.get(), bins ? &b : nullptr);
    if (bins) {
        bins->resize(b.size());
        for (std::size_t i = 0; i < b.size(); ++i) (*bins)[i] = std::complex<float>(b[i].x, b[i].y);
    }
    return v;
}

std::vector<float> VolumeEngine::projection(std::uint64_t run, int axis, bool max, View view, bool shift, int rows,
                                            int cols) {
    return volume_projection(impl_->kept_of(run), axis, max, view, shift, rows, cols, impl_->stream.get());
}

std::vector<float> VolumeEngine::lattice(std::uint64_t run, View view, int step, int nx, int ny, int nz) {
    return volume_lattice(impl_->kept_of(run), view, step, nx, ny, nz, impl_->stream.get());
}

void VolumeEngine::shell(std::uint64_t run, double sx, double sy, double sz, double m, double norm, int bins,
                         double* sums, long long* counts) {
    volume_shell_sums(impl_->kept_of(run), sx, sy, sz, m, norm, bins, sums, counts, impl_->stream.get());
}

}  // namespace specview::gpu
