// --backend auto, the default of the CLI and the viewer: which backend runs, and a sentence saying why.
//
// The rule, from whole-process measurements (README, "Which backend runs"):
// - the viewer: custom-fast where a usable CUDA device exists (CUDA's start, a few hundred ms, is paid once while
//   the window opens, and every later change runs in a millisecond or two); else the CPU (FFTW);
// - the CLI: the GPU only where it repays CUDA's start. A batch (several inputs or a directory), a stack or a video
//   go to the GPU; one image goes to the GPU from kAutoGpuMinPixels pixels (what is transformed: the ROI where one is
//   set), and below that stays on the CPU without even probing the GPU. With no usable CUDA device: the CPU.
#pragma once

#include <string>

#include "app/core/settings.h"

namespace specview {

// One image's size from which the GPU's whole run beats the CPU's on the H100 machine (16 cores): 4096^2 took
// 0.53 s on the CPU and 0.63 s on custom-fast, 8192^2 1.93 and 1.65 s; the lines cross near 5400^2 (the README
// has the measurement). Fewer cores only move the crossing down, so this is the cautious side.
constexpr double kAutoGpuMinPixels = 5400.0 * 5400.0;

struct AutoChoice {
    Backend backend = Backend::Cpu;
    std::string why;  // "auto: ..." for the summary line and the Pipeline panel
};

// What the work is, for the rule above.
enum class AutoWork { Viewer, Batch, Frames, OneImage };

// Whether the rule would go to the GPU for this work if a device were there (pixels: OneImage's). Used to skip the
// probe where the answer is the CPU anyway.
bool auto_wants_gpu(AutoWork work, double pixels);

// The choice, given whether a usable CUDA device is there (and why not, when not). images: a batch's count.
AutoChoice choose_backend(AutoWork work, double pixels, bool gpu_ok, const std::string& gpu_why, std::size_t images = 0);

}  // namespace specview
