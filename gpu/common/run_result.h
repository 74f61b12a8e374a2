// What one run of any backend produces, CUDA-free: the picture (RGBA8 or colormap levels, on the host or left on the
// device), the complex spectrum and the filtered image on request, the range used, per-stage timings and the notes
// a planner made. The GPU engine returns one; app/engine's Frame is one with what the app adds (sizes of the
// content, the slot's events, the backend's name), so a GPU result becomes a Frame in one assignment.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/common/config.h"
#include "gpu/common/spectrum_math.h"

namespace specview::gpu {

struct RunResult {
    int width = 0, height = 0;  // of the data shown: width x height, or transposed at a classroom stop
    std::vector<std::complex<float>> spectrum;
    std::vector<std::uint32_t> rgba;
    std::vector<unsigned char> levels;             // with PictureFormat::Level8/Level16: 1 or 2 bytes a pixel
    std::vector<float> inverse;                    // want_inverse: the filtered plane, width x height, normalised
    PictureFormat picture = PictureFormat::Rgba8;  // what the picture came back as
    float range_lo = 0, range_hi = 0;
    std::vector<KernelTiming> timings;  // device stages; upload and download are listed but not in total_ms
    double total_ms = 0;
    std::vector<std::string> notes;                  // clamps the planner made
    std::vector<KernelResources> resources;          // custom path: the kernels at this configuration
    std::vector<RowFftPlan> row_plans;               // custom path: the two row passes' launch shapes
    bool range_reused = false;                       // custom-fast: the range of an identical earlier run was reused
    const std::uint32_t* device_rgba = nullptr;      // the picture in its slot, when the request named one
    const std::uint32_t* device_lab_rgba = nullptr;  // lab_on_device: the third view in the slot
    int lab_width = 0, lab_height = 0;
    float lab_lo = 0, lab_hi = 0;  // the values at its darkest and brightest
};

}  // namespace specview::gpu
