#include "app/engine/volume_gpu.h"

#include <stdexcept>

namespace specview {

namespace {
gpu::VolumeRequest request(const Settings& s) {
    if (s.backend != Backend::Cufft && s.backend != Backend::Custom && s.backend != Backend::CustomFast)
        throw std::invalid_argument("--volume has no " + name_of(s.backend) +
                                    " 3D pipeline yet; --backend custom-fast, cufft, custom or cpu");
    gpu::VolumeRequest r;
    r.path = s.backend == Backend::Custom       ? gpu::VolumePath::Custom
             : s.backend == Backend::CustomFast ? gpu::VolumePath::Fast
                                                : gpu::VolumePath::Cufft;
    r.cufft_mode = s.cufft_mode;
    r.custom = s.custom;
    return r;
}
}  // namespace

GpuVolumeFft::GpuVolumeFft(const Settings& s, int device)
    : req_(request(s)), engine_(std::make_shared<gpu::VolumeEngine>(device)) {}

void GpuVolumeFft::configure(const Settings& s) { req_ = request(s); }

double GpuVolumeFft::device_bytes(const Settings& s, int W, int H, int D) {
    return gpu::VolumeEngine::device_bytes(request(s), W, H, D);
}

}  // namespace specview
