// A volume's 3D FFT on a GPU backend (issue 61), for app/volume's VolumeSpectrum::transform: the settings' backend
// (cufft: cuFFT's 3D R2C or C2C plan; custom: the seed's 3D pipeline with its knobs) over gpu/engine/volume_engine.h,
// which transforms FFTW's in-place buffer on the device and leaves the half spectrum in it.
#pragma once

#include <memory>
#include <string>

#include "app/core/settings.h"
#include "gpu/common/config.h"
#include "gpu/engine/multi_gpu_volume.h"  // (--split-volume: cuFFT over several GPUs, used as it is)
#include "gpu/engine/volume_engine.h"

namespace specview {

class GpuVolumeFft {
public:
    // Throws std::invalid_argument for a backend without a 3D pipeline (cpu, gl, opencl), gpu::GpuUnavailable
    // where there is no usable device.
    // On CUDA device `device` (--gpus's first).
    explicit GpuVolumeFft(const Settings& s, int device = 0);
    // Another backend or knobs for the next runs, on the same engine (its plans and buffers kept where they fit).
    void configure(const Settings& s);
    const gpu::DeviceInfo& device() const { return engine_->device(); }
    // gpu::ConfigError where the backend cannot run W x H x D (the seed pipeline: not powers of two; a knob refused).
    void check(int W, int H, int D) const { engine_->check(req_, W, H, D); }
    // Device bytes a run needs at W x H x D (the second: under settings s, without an engine).
    double device_bytes(int W, int H, int D) const { return gpu::VolumeEngine::device_bytes(req_, W, H, D); }
    static double device_bytes(const Settings& s, int W, int H, int D);
    // The transform of a shaped buffer (VolumeSpectrum::Fft3d's contract); its passes' timings in last(). With
    // `keep` the spectrum stays on the device (app/volume's kept_on_device hands it to VolumeSpectrum).
    void run(float* buffer, int W, int H, int D, bool keep = false) {
        last_ = engine_->r2c_in_place(buffer, W, H, D, req_, keep);
    }
    const gpu::VolumeRun& last() const { return last_; }
    // The volume made on the device from its frames (gpu::VolumeEngine's frames path, with these settings' request);
    // shape_and_transform keeps the spectrum there and its passes' timings in last().
    void frames_begin(const gpu::VolumeContent& c, std::uint64_t frames_key = 0) {
        engine_->frames_begin(req_, c, frames_key);
    }
    void frame(const gpu::VolumeFrame& f, int channel, int z) { engine_->frame(f, channel, z); }
    void frame_sums(double* sum, double* sum_x, double* sum_y) { engine_->frame_sums(sum, sum_x, sum_y); }
    void shape_and_transform(const gpu::VolumeShapeParams& p) { last_ = engine_->shape_and_transform(p, true); }
    // The engine, shared with what holds a spectrum it kept (gpu::VolumeEngine::kept).
    const std::shared_ptr<gpu::VolumeEngine>& engine() const { return engine_; }

private:
    gpu::VolumeRequest req_;
    std::shared_ptr<gpu::VolumeEngine> engine_;
    gpu::VolumeRun last_;
};

}  // namespace specview
