#include "app/engine/auto_backend.h"

#include <cstdio>

#include "app/engine/devices.h"

namespace specview {

bool auto_wants_gpu(AutoWork work, double pixels) {
    return work != AutoWork::OneImage || pixels >= kAutoGpuMinPixels;
}

AutoChoice choose_backend(AutoWork work, double pixels, bool gpu_ok, const std::string& gpu_why, std::size_t images,
                          const GlProbe* gl) {
    AutoChoice c;
    if (!auto_wants_gpu(work, pixels)) {
        char mp[64];
        std::snprintf(mp, sizeof mp, "%.0f", kAutoGpuMinPixels / 1e6);
        c.why = std::string("auto: one image under ") + mp + " megapixels runs sooner on the CPU than CUDA starts";
        return c;
    }
    if (!gpu_ok && gl && gl->usable && gl->hardware) {
        c.backend = Backend::Gl;
        c.why = "auto: gl, the seed's compute shaders on " + gl->renderer + " (no usable CUDA device: " + gpu_why + ")";
        return c;
    }
    if (!gpu_ok) {
        c.why = "auto: the CPU, no usable CUDA device (" + gpu_why + ")" +
                (gl && gl->usable && !gl->hardware ? "; OpenGL compute only on a software renderer" : "");
        return c;
    }
    c.backend = Backend::CustomFast;
    switch (work) {
        case AutoWork::Viewer:
            c.why = "auto: custom-fast on the CUDA device (its start paid once, while the window opened)";
            break;
        case AutoWork::Batch:
            c.why = "auto: custom-fast, a batch" + (images ? " of " + std::to_string(images) + " images" : std::string()) +
                    " repays CUDA's start";
            break;
        case AutoWork::Frames:
            c.why = "auto: custom-fast, a stack's frames repay CUDA's start";
            break;
        case AutoWork::OneImage:
            c.why = "auto: custom-fast, an image this large runs sooner on the GPU, CUDA's start included";
            break;
    }
    return c;
}

}  // namespace specview
