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
        return e_->slice(run_, number(axis), k, view, shift, rows, cols, bins);
    }
    std::vector<float> projection(VolumeAxis axis, bool max, View view, bool shift, int rows, int cols) override {
        return e_->projection(run_, number(axis), max, view, shift, rows, cols);
    }
    std::vector<float> lattice(View view, int step, int nx, int ny, int nz) override {
        return e_->lattice(run_, view, step, nx, ny, nz);
    }
    void shell(double sx, double sy, double sz, double m, double norm, int bins, double* sums,
               long long* counts) override {
        e_->shell(run_, sx, sy, sz, m, norm, bins, sums, counts);
    }

private:
    static int number(VolumeAxis a) { return a == VolumeAxis::X ? 0 : a == VolumeAxis::Y ? 1 : 2; }
    std::shared_ptr<gpu::VolumeEngine> e_;  // (shared: it outlives the engine's other owners while a view needs it)
    std::uint64_t run_;
};

}  // namespace

std::shared_ptr<VolumeDevice> kept_on_device(const GpuVolumeFft& gpu) {
    const std::uint64_t run = gpu.engine()->kept();
    if (!run) return nullptr;
    return std::make_shared<KeptVolume>(gpu.engine(), run);
}

}  // namespace specview
