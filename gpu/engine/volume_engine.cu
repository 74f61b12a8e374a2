#include "gpu/engine/volume_engine.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "gpu/common/volume_math.h"
#include "gpu/custom/pipeline_3d.h"
#include "gpu/fast/fft_fast.h"
#include "gpu/plane/volume_prep.h"
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

// The path that runs: custom-fast's where it takes the size, else cuFFT's R2C in its place.
VolumeRequest effective(const VolumeRequest& r, int W, int H, int D) {
    if (r.path != VolumePath::Fast || FastFft::c2c_3d_supported(W, H, D)) return r;
    VolumeRequest c = r;
    c.path = VolumePath::Cufft;
    c.cufft_mode = CufftMode::R2C;
    return c;
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
    std::unique_ptr<FastFft> fast;  // custom-fast's 3D R2C (made at its first run)
    struct Key {
        int w = 0, h = 0, d = 0;
        cufftType type{};
        bool operator==(const Key& o) const { return w == o.w && h == o.h && d == o.d && type == o.type; }
    } planned;
    // The spectrum a run with `keep` left on the device (in a, b or staging), and which run that was.
    HalfVolume kept;
    std::uint64_t runs = 0, kept_run = 0;
    // The frames' path (frames_begin .. shape_and_transform): where the real volume is made, its content, the frames'
    // levelling sums (3 a frame) and rows' (2 a row), the upload buffer, the window's values, shaped row sums.
    float* frames_real = nullptr;
    VolumeContent content;
    VolumeRequest frames_req;
    double frames_ms = 0;
    DeviceBuffer<double> frame_sums, row_scratch, window, row_sums;
    DeviceBuffer<unsigned char> frame_up;
    // The frames' samples kept on the device (frames_begin's key): cd frames of resident_frame bytes.
    DeviceBuffer<unsigned char> resident;
    std::uint64_t resident_key = 0, frames_key = 0;
    VolumeContent resident_content;
    std::size_t resident_frame = 0;   // one frame's bytes there
    bool reuse = false;               // this round's frames come from `resident`
    bool filling = false, fill_tried = false;
    int filled = 0;                   // frames this round put into `resident`
    // Kept frames asked for and not yet made into their slabs: frames z0 .. z0 + count - 1 in one set of launches
    // (512 frames of a 512^3 volume one by one were ~18 ms of a knob change's 27 ms shaping on the H100).
    struct Pending {
        int z0 = 0, count = 0, bit_depth = 0, width = 0, channels = 0, channel = 0;
    } pending;
    void flush_pending();
    VolumeViewScratch views;  // the kept spectrum's views write here
    explicit Impl(const DeviceInfo& d) : dev(d) {}
    float* real_for(const VolumeRequest& r, int W, int H, int D);
    VolumeRun transform(const VolumeRequest& r, int W, int H, int D, float* real, float* host, bool keep);
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

double VolumeEngine::device_bytes(const VolumeRequest& request, int W, int H, int D) {
    const VolumeRequest r = effective(request, W, H, D);
    const double voxels = double(W) * H * D, half = (double(W) / 2 + 1) * H * D;
    if (r.path == VolumePath::Custom) return 16.0 * voxels;  // a and b, complex (the real volume goes up into b)
    if (r.path == VolumePath::Fast) return 8.0 * half;       // in place, no workspace
    const bool c2c = r.cufft_mode == CufftMode::C2C;
    std::size_t work = 0;
    if (cufftEstimate3d(D, H, W, c2c ? CUFFT_C2C : CUFFT_R2C, &work) != CUFFT_SUCCESS) work = 0;
    // R2C in place: the padded real volume is the half spectrum's bytes. C2C: the complex volume and the real one.
    return (c2c ? 8.0 * voxels + 8.0 * half : 8.0 * half) + double(work);
}

// The buffers and plan the request's path needs at W x H x D, kept while they serve; where the padded real volume
// (depth x height rows of 2 (W/2 + 1) floats) goes: cuFFT's staging (R2C transforms it in place; C2C expands it), or
// b's bytes for the seed pipeline (expanded into a).
float* VolumeEngine::Impl::real_for(const VolumeRequest& request, int W, int H, int D) {
    const VolumeRequest r = effective(request, W, H, D);
    const int stride = 2 * (W / 2 + 1);
    const long long rows = (long long)H * D, voxels = rows * W;
    cudaStream_t s = stream.get();
    if (r.path == VolumePath::Fast) {  // in place in the padded real volume
        plan.reset();
        a.release();
        b.release();
        staging.resize(std::size_t(rows) * stride);
        return staging.get();
    }
    if (r.path == VolumePath::Custom) {
        plan.reset();  // its workspace is not needed
        staging.release();
        a.resize(std::size_t(voxels));
        b.resize(std::size_t(voxels));
        return reinterpret_cast<float*>(b.get());  // (the real volume is smaller than b)
    }
    const Key key{W, H, D, r.cufft_mode == CufftMode::R2C ? CUFFT_R2C : CUFFT_C2C};
    if (!plan.valid() || !(planned == key)) {
        plan.reset();
        b.release();
        if (key.type == CUFFT_R2C) a.release();
        plan.make_3d(D, H, W, key.type, s);
        planned = key;
    }
    if (key.type == CUFFT_C2C) a.resize(std::size_t(voxels));
    staging.resize(std::size_t(rows) * stride);
    return staging.get();
}

// The transform of the padded real volume at `real` (real_for's), timed into the running timer; the half spectrum
// downloaded into `host` (null: none) and/or kept on the device.
VolumeRun VolumeEngine::Impl::transform(const VolumeRequest& request, int W, int H, int D, float* real, float* host,
                                        bool keep) {
    const VolumeRequest r = effective(request, W, H, D);
    cudaStream_t s = stream.get();
    const int hw = W / 2 + 1, stride = 2 * hw;
    const long long rows = (long long)H * D, voxels = rows * W;
    VolumeRun run;
    std::size_t first_pass = 0, last_pass = 0;  // the transform's marks
    auto expand = [&](const float* in, float2* out) {
        const int blocks = int(std::min<long long>((voxels + 255) / 256, 32LL * dev.sm_count));
        expand_rows_kernel<<<blocks, 256, 0, s>>>(in, out, W, stride, voxels);
        CUDA_CHECK_LAUNCH("expand_rows_kernel");
        timer.mark("real to complex", 12.0 * double(voxels));
    };
    const float2* result = nullptr;  // where the half spectrum is, rows `pitch` bins apart
    std::size_t pitch = std::size_t(W);
    if (r.path == VolumePath::Custom) {
        const Custom3DPlan p = plan_custom_3d(W, H, D, r.custom, dev, r.custom.merge_final_transposes);
        expand(real, a.get());
        first_pass = timer.marks();
        result = run_custom_3d(p, a.get(), b.get(), false, twiddles, s, &timer);
        last_pass = timer.marks();
        run.what = std::string("custom CUDA 3D (row FFT x3, ") +
                   (r.custom.merge_final_transposes ? "3 transposes: the final two merged" : "4 transposes") + ") on " +
                   dev.name;
    } else if (r.path == VolumePath::Fast) {
        if (!fast) fast = std::make_unique<FastFft>();
        first_pass = timer.marks();
        fast->r2c_3d(real, W, H, D, s, &timer);
        last_pass = timer.marks();
        result = reinterpret_cast<const float2*>(real);
        pitch = std::size_t(hw);
        run.what = "custom-fast CUDA 3D R2C (3 passes, in place) on " + dev.name;
    } else if (r.cufft_mode == CufftMode::R2C) {
        first_pass = timer.marks();
        CUFFT_CHECK(cufftExecR2C(plan.get(), real, reinterpret_cast<cufftComplex*>(real)));
        timer.mark("cuFFT R2C 3D (in place)", 12.0 * double(voxels));
        last_pass = timer.marks();
        result = reinterpret_cast<const float2*>(real);
        pitch = std::size_t(hw);
        run.what = "cuFFT R2C 3D (in place) on " + dev.name;
        if (request.path == VolumePath::Fast)
            run.what += " (custom-fast's 3D FFT takes powers of two, 2 to 4096 a side: cuFFT's ran)";
    } else {
        expand(real, a.get());
        first_pass = timer.marks();
        auto* c = reinterpret_cast<cufftComplex*>(a.get());
        CUFFT_CHECK(cufftExecC2C(plan.get(), c, c, CUFFT_FORWARD));
        timer.mark("cuFFT C2C 3D (in place)", 16.0 * double(voxels) * 3);
        last_pass = timer.marks();
        result = a.get();
        run.what = "cuFFT C2C 3D (in place) on " + dev.name;
    }
    if (host) {  // the first W/2 + 1 bins of each row
        CUDA_CHECK(cudaMemcpy2DAsync(host, hw * sizeof(float2), result, pitch * sizeof(float2), hw * sizeof(float2),
                                     std::size_t(rows), cudaMemcpyDeviceToHost, s));
        timer.mark("download (half spectrum)", double(rows) * hw * 8.0);
    }
    run.stages = timer.collect();
    CUDA_CHECK(cudaStreamSynchronize(s));
    run.transform_ms = sum_ms(run.stages, first_pass, last_pass);
    run.copy_ms = sum_ms(run.stages, 0, run.stages.size()) - run.transform_ms;
    if (keep) {
        kept = HalfVolume{result, W, H, D, pitch};
        kept_run = ++runs;
    }
    return run;
}

VolumeRun VolumeEngine::r2c_in_place(float* host, int W, int H, int D, const VolumeRequest& r, bool keep) {
    Impl& m = *impl_;
    m.kept_run = 0;  // (whatever was kept is about to be overwritten)
    m.frames_real = nullptr;
    check(r, W, H, D);
    CUDA_CHECK(cudaSetDevice(m.dev.device));
    cudaStream_t s = m.stream.get();
    const std::size_t padded_bytes = std::size_t(H) * std::size_t(D) * std::size_t(2 * (W / 2 + 1)) * sizeof(float);
    float* real = m.real_for(r, W, H, D);
    m.timer.start(s);
    CUDA_CHECK(cudaMemcpyAsync(real, host, padded_bytes, cudaMemcpyHostToDevice, s));
    m.timer.mark("upload (real volume)", double(padded_bytes));
    return m.transform(r, W, H, D, real, keep ? nullptr : host, keep);
}

void VolumeEngine::frames_begin(const VolumeRequest& r, const VolumeContent& c, std::uint64_t frames_key) {
    Impl& m = *impl_;
    m.kept_run = 0;
    check(r, c.W, c.H, c.D);
    if (c.cw < 1 || c.ch < 1 || c.cd < 1 || c.cw > c.W || c.ch > c.H || c.cd > c.D)
        throw ConfigError("inconsistent volume content");
    CUDA_CHECK(cudaSetDevice(m.dev.device));
    const VolumeContent& k = m.resident_content;
    m.reuse = frames_key != 0 && frames_key == m.resident_key && k.cw == c.cw && k.ch == c.ch && k.cd == c.cd &&
              k.crop_x == c.crop_x && k.crop_y == c.crop_y;
    if (!m.reuse && m.resident_key != 0) {  // other frames now: the kept ones go (before this run's buffers are had)
        m.resident.release();
        m.resident_key = 0;
    }
    m.frames_real = m.real_for(r, c.W, c.H, c.D);
    m.frame_sums.resize(3 * std::size_t(c.cd));
    CUDA_CHECK(cudaMemsetAsync(m.frame_sums.get(), 0, 3 * std::size_t(c.cd) * sizeof(double), m.stream.get()));
    m.row_scratch.resize(2 * std::size_t(c.ch) * std::size_t(c.cd));
    m.content = c;
    m.frames_req = r;
    m.frames_ms = 0;
    m.frames_key = frames_key;
    m.filling = m.fill_tried = false;
    m.filled = 0;
    m.pending = Impl::Pending{};
}

bool VolumeEngine::frames_resident() const { return impl_->reuse; }

void VolumeEngine::Impl::flush_pending() {
    Pending& p = pending;
    if (p.count == 0) return;
    const VolumeContent& c = content;
    const int stride = 2 * (c.W / 2 + 1);
    const long long slab_floats = (long long)c.H * stride;
    launch_volume_frames(resident.get() + std::size_t(p.z0) * resident_frame, (long long)resident_frame, p.count,
                         p.bit_depth, p.width, p.channels, p.channel, c.crop_x, c.crop_y, c.cw, c.ch,
                         frames_real + p.z0 * slab_floats, slab_floats, stride,
                         row_scratch.get() + 2 * std::size_t(p.z0) * std::size_t(c.ch),
                         frame_sums.get() + 3 * std::size_t(p.z0), stream.get());
    p = Pending{};
}

void VolumeEngine::frame(const VolumeFrame& f, int channel, int z) {
    Impl& m = *impl_;
    const VolumeContent& c = m.content;
    if (!m.frames_real) throw std::logic_error("VolumeEngine::frame before frames_begin");
    if (z < 0 || z >= c.cd || !f.samples || (f.bit_depth != 8 && f.bit_depth != 16 && f.bit_depth != 32) ||
        f.channels < 1 || c.crop_x + c.cw > f.width || c.crop_y + c.ch > f.height)
        throw ConfigError("inconsistent volume frame");
    CUDA_CHECK(cudaSetDevice(m.dev.device));
    cudaStream_t s = m.stream.get();
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t bytes = std::size_t(f.width) * f.height * f.channels * std::size_t(f.bit_depth / 8);
    if (m.reuse && bytes != m.resident_frame) {  // (not the kept frames after all: sent again)
        m.flush_pending();
        m.reuse = false;
    }
    const unsigned char* samples = nullptr;
    if (m.reuse) {  // made into its slab with its neighbours (flush_pending), no launch of its own
        Impl::Pending& p = m.pending;
        const bool joins = p.count > 0 && z == p.z0 + p.count && f.bit_depth == p.bit_depth && f.width == p.width &&
                           f.channels == p.channels && channel == p.channel;
        if (!joins) {
            m.flush_pending();
            p = Impl::Pending{z, 0, f.bit_depth, f.width, f.channels, channel};
        }
        ++p.count;
        m.frames_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return;
    } else {
        if (m.frames_key != 0 && !m.fill_tried) {  // keep this round's frames where the device has room to spare
            m.fill_tried = true;
            const std::size_t need = bytes * std::size_t(c.cd);
            std::size_t free_b = 0, total_b = 0;
            if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && free_b > need + (std::size_t(1) << 30)) {
                try {
                    m.resident.resize(need);
                    m.filling = true;
                    m.resident_frame = bytes;
                } catch (const GpuError&) {
                    (void)cudaGetLastError();  // (a refused allocation is not an error of the frames' path)
                }
            }
        }
        unsigned char* dst = nullptr;
        if (m.filling && bytes == m.resident_frame) {
            dst = m.resident.get() + std::size_t(z) * bytes;  // a slot of its own: no wait for the last frame's kernel
            ++m.filled;
        } else {
            // (in stream order: the copy into the buffer waits for the last frame's kernels that read it)
            m.frame_up.resize(bytes);
            dst = m.frame_up.get();
        }
        CUDA_CHECK(cudaMemcpyAsync(dst, f.samples, bytes, cudaMemcpyHostToDevice, s));
        samples = dst;
    }
    const int stride = 2 * (c.W / 2 + 1);
    float* slab = m.frames_real + std::size_t(z) * std::size_t(c.H) * std::size_t(stride);
    launch_volume_frame(samples, f.bit_depth, f.width, f.channels, channel, c.crop_x, c.crop_y, c.cw, c.ch, slab,
                        stride, m.row_scratch.get() + 2 * std::size_t(z) * std::size_t(c.ch),
                        m.frame_sums.get() + 3 * std::size_t(z), s);
    m.frames_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void VolumeEngine::frame_sums(double* sum, double* sum_x, double* sum_y) {
    Impl& m = *impl_;
    if (!m.frames_real) throw std::logic_error("VolumeEngine::frame_sums before frames_begin");
    CUDA_CHECK(cudaSetDevice(m.dev.device));
    m.flush_pending();
    const int cd = m.content.cd;
    std::vector<double> all(3 * std::size_t(cd));
    cudaStream_t s = m.stream.get();
    CUDA_CHECK(cudaMemcpyAsync(all.data(), m.frame_sums.get(), all.size() * sizeof(double), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int z = 0; z < cd; ++z) {
        sum[z] = all[3 * std::size_t(z)];
        sum_x[z] = all[3 * std::size_t(z) + 1];
        sum_y[z] = all[3 * std::size_t(z) + 2];
    }
}

VolumeRun VolumeEngine::shape_and_transform(const VolumeShapeParams& p, bool keep) {
    Impl& m = *impl_;
    if (!m.frames_real) throw std::logic_error("VolumeEngine::shape_and_transform before frames_begin");
    const VolumeContent& c = m.content;
    const bool radial = p.radial;
    if ((!radial && (int(p.wx.size()) != c.cw || int(p.wy.size()) != c.ch || int(p.wz.size()) != c.cd)) ||
        (radial && int(p.table.size()) != kVolumeSphereTable))
        throw ConfigError("inconsistent volume window");
    CUDA_CHECK(cudaSetDevice(m.dev.device));
    m.flush_pending();
    cudaStream_t s = m.stream.get();
    m.timer.start(s);
    // The window's values (separable: wx, wy, wz; spherical: the table), and a sum a content row for a mean fill.
    std::vector<double> w(p.wx);
    w.insert(w.end(), p.wy.begin(), p.wy.end());
    w.insert(w.end(), p.wz.begin(), p.wz.end());
    w.insert(w.end(), p.table.begin(), p.table.end());
    m.window.resize(std::max<std::size_t>(w.size(), 1));
    CUDA_CHECK(cudaMemcpyAsync(m.window.get(), w.data(), w.size() * sizeof(double), cudaMemcpyHostToDevice, s));
    const std::size_t content_rows = std::size_t(c.ch) * std::size_t(c.cd);
    m.row_sums.resize(content_rows);
    const int stride = 2 * (c.W / 2 + 1);
    VolumeShape sh;
    sh.cw = c.cw, sh.ch = c.ch, sh.cd = c.cd, sh.W = c.W, sh.H = c.H, sh.D = c.D, sh.stride = stride;
    sh.a = p.a, sh.bx = p.bx, sh.by = p.by, sh.bz = p.bz, sh.radial = radial;
    const double* wd = m.window.get();
    sh.wx = wd, sh.wy = wd + p.wx.size(), sh.wz = wd + p.wx.size() + p.wy.size(), sh.table = radial ? wd : nullptr;
    launch_volume_shape(sh, m.frames_real, m.row_sums.get(), s);
    float fill = 0.0f;
    if (p.fill_mean) {  // the shaped content's mean, its row sums added in row order as the host adds them
        std::vector<double> rs(content_rows);
        CUDA_CHECK(cudaMemcpyAsync(rs.data(), m.row_sums.get(), rs.size() * sizeof(double), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        double t = 0;
        for (double v : rs) t += v;
        fill = float(t / (double(c.cw) * c.ch * c.cd));
    }
    launch_volume_fill(sh, fill, m.frames_real, s);
    m.timer.mark("shape (level, window, pad) [GPU]", 8.0 * double(c.W) * c.H * c.D);
    VolumeRun run = m.transform(m.frames_req, c.W, c.H, c.D, m.frames_real, nullptr, keep);
    run.frames_ms = m.frames_ms;
    if (m.filling && m.filled == c.cd) {  // every content frame is on the device now: the next round may take them
        m.resident_key = m.frames_key;
        m.resident_content = c;
    } else if (!m.reuse) {
        m.resident_key = 0;
        m.resident.release();
    }
    m.frames_real = nullptr;  // (the transform overwrote it)
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
    return volume_slice(impl_->kept_of(run), axis, k, view, shift, rows, cols, impl_->views, impl_->stream.get(),
                        bins);
}

std::vector<float> VolumeEngine::projection(std::uint64_t run, int axis, bool max, View view, bool shift, int rows,
                                            int cols) {
    return volume_projection(impl_->kept_of(run), axis, max, view, shift, rows, cols, impl_->views, impl_->stream.get());
}

std::vector<float> VolumeEngine::lattice(std::uint64_t run, View view, int step, int nx, int ny, int nz) {
    return volume_lattice(impl_->kept_of(run), view, step, nx, ny, nz, impl_->views, impl_->stream.get());
}

void VolumeEngine::sample_range(std::uint64_t run, const ViewParams& vp, int step, int nx, int ny, int nz, bool planes,
                                float* lo, float* hi) {
    volume_sample_range(impl_->kept_of(run), vp, step, nx, ny, nz, planes, impl_->views, impl_->stream.get(), lo, hi);
}

void VolumeEngine::shell(std::uint64_t run, double sx, double sy, double sz, double m, double norm, int bins,
                         double* sums, long long* counts) {
    volume_shell_sums(impl_->kept_of(run), sx, sy, sz, m, norm, bins, sums, counts, impl_->stream.get());
}

}  // namespace specview::gpu
