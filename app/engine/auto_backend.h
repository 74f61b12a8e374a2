// --backend auto, the default of the CLI and the viewer: which backend runs, and a sentence saying why.
//
// The rule, from whole-process measurements (README, "Which backend runs"):
// - the viewer: custom-fast where a usable CUDA device exists (CUDA's start, a few hundred ms, is paid once while
//   the window opens, and every later change runs in a millisecond or two); else the CPU (FFTW);
// - without CUDA, gl where its context is on a hardware GPU (the seed's shaders, any vendor's); else the CPU;
// - the CLI: the GPU only where it repays CUDA's start. A batch (several inputs or a directory), a stack or a video
//   go to the GPU; one image goes to the GPU from kAutoGpuMinPixels pixels (16 megapixels) (what is transformed: the ROI where one is
//   set), and below that stays on the CPU without even probing the GPU. With no usable CUDA device: the CPU.
#pragma once

#include <string>

#include "app/core/settings.h"

namespace specview {

// One image's size (pixels transformed) from which the GPU's whole process beats the CPU's. Measured on the H100
// machine (16 cores) on 2026-12-06, best of 3 whole runs of a photo PNG to a spectrum PNG (tests/bench/cli_bench.sh
// with SIZES): 3072^2 cpu 0.58 s, custom-fast 0.61; 4096^2 0.67 / 0.61; 5120^2 1.64 / 0.98; 6144^2 1.87 / 1.21;
// 8192^2 2.33 / 1.64. The lines cross between 3072^2 and 4096^2 (an earlier run had 4096^2 still on the CPU's
// side, 0.53 / 0.63): 16 megapixels. Fewer cores move the crossing down, never up.
constexpr double kAutoGpuMinPixels = 16e6;

struct AutoChoice {
    Backend backend = Backend::Cpu;
    std::string why;  // "auto: ..." for the summary line and the Pipeline panel
};

// What the work is, for the rule above.
enum class AutoWork { Viewer, Batch, Frames, OneImage };

// Whether the rule would go to the GPU for this work if a device were there (pixels: OneImage's). Used to skip the
// probe where the answer is the CPU anyway.
bool auto_wants_gpu(AutoWork work, double pixels);

// The choice, given whether a usable CUDA device is there (and why not, when not). images: a batch's count. Without
// CUDA, `gl` (probed by the caller: app/engine/devices.h) where its context has compute shaders on a hardware GPU, not
// a software renderer (issue 62's rule; null where the work cannot take gl: a size that is not a power of two).
struct GlProbe;
AutoChoice choose_backend(AutoWork work, double pixels, bool gpu_ok, const std::string& gpu_why, std::size_t images = 0,
                          const GlProbe* gl = nullptr);

}  // namespace specview
