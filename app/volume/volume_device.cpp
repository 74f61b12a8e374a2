// VolumeDevice over the GPU engine's kept spectrum (gpu/engine/volume_engine.h): app/volume's views of a volume made
// where cuFFT or the seed pipeline left it.
#include <memory>
#include <stdexcept>

#include "app/engine/volume_gpu.h"
#include "app/volume/volume.h"

namespace specview {

namespace {

class KeptVolume final : public VolumeDevice {
public:
    KeptVolume(std::shared_ptr<gpu::VolumeEngine> e, std::uint64_t run) : e_(std::move(e)), run_(run) {}
    void download_half(std::complex<float>* host) override { e_->download_half(run_, host); }
    std::vector<float> slice(VolumeAxis axis, int k, View view, bool shift, int rows, int cols,
                             std::vector<std::complex<float>>* bins) override {
        return e_->slice(run_, axis_number(axis), k, view, shift, rows, cols, bins);
    }
    std::vector<float> projection(VolumeAxis axis, bool max, View view, bool shift, int rows, int cols) override {
        return e_->projection(run_, axis_number(axis), max, view, shift, rows, cols);
    }
    std::vector<float> lattice(View view, int step, int nx, int ny, int nz) override {
        return e_->lattice(run_, view, step, nx, ny, nz);
    }
    void sample_range(const ViewParams& vp, int step, int nx, int ny, int nz, bool planes, float* lo,
                      float* hi) override {
        e_->sample_range(run_, vp, step, nx, ny, nz, planes, lo, hi);
    }
    void shell(double sx, double sy, double sz, double m, double norm, int bins, double* sums,
               long long* counts) override {
        e_->shell(run_, sx, sy, sz, m, norm, bins, sums, counts);
    }

private:
    std::shared_ptr<gpu::VolumeEngine> e_;  // (shared: it outlives the engine's other owners while a view needs it)
    std::uint64_t run_;
};

// The GPU engine's frames path behind VolumeInput: each frame's samples go up as they are added.
class FramesOnDevice final : public VolumeInput {
public:
    FramesOnDevice(GpuVolumeFft& gpu, std::uint64_t frames_key) : gpu_(gpu), key_(frames_key) {}
    void begin(const VolumeGeometry& g) override {
        gpu::VolumeContent c;
        c.W = g.width, c.H = g.height, c.D = g.depth;
        c.cw = g.content_w, c.ch = g.content_h, c.cd = g.content_d;
        c.crop_x = g.crop_x, c.crop_y = g.crop_y;
        gpu_.frames_begin(c, key_);
    }
    void frame(const Image& f, int channel, int z) override {
        gpu::VolumeFrame v;
        v.samples = f.data();
        v.bit_depth = f.bit_depth;
        v.width = f.width;
        v.height = f.height;
        v.channels = f.channels;
        gpu_.frame(v, channel, z);
    }
    void sums(double* sum, double* sum_x, double* sum_y) override { gpu_.frame_sums(sum, sum_x, sum_y); }
    std::shared_ptr<VolumeDevice> shape_and_transform(const Shape& s, double* frames_ms, double* shape_ms,
                                                      double* fft_ms) override {
        gpu::VolumeShapeParams p;
        p.a = s.a, p.bx = s.bx, p.by = s.by, p.bz = s.bz, p.radial = s.radial;
        p.wx = s.wx, p.wy = s.wy, p.wz = s.wz, p.table = s.table, p.fill_mean = s.fill_mean;
        gpu_.shape_and_transform(p);
        const gpu::VolumeRun& run = gpu_.last();
        *frames_ms = run.frames_ms;
        *fft_ms = run.transform_ms;
        *shape_ms = 0;
        for (const gpu::KernelTiming& k : run.stages)
            if (k.name.rfind("shape", 0) == 0) *shape_ms += k.ms;
        return kept_on_device(gpu_);
    }

private:
    GpuVolumeFft& gpu_;
    std::uint64_t key_;
};

}  // namespace

std::shared_ptr<VolumeInput> frames_on_device(GpuVolumeFft& gpu, std::uint64_t frames_key) {
    return std::make_shared<FramesOnDevice>(gpu, frames_key);
}

std::shared_ptr<VolumeDevice> kept_on_device(const GpuVolumeFft& gpu) {
    const std::uint64_t run = gpu.engine()->kept();
    if (!run) return nullptr;
    return std::make_shared<KeptVolume>(gpu.engine(), run);
}

}  // namespace specview
