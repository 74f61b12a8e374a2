// Our own 2D FFT: row FFT -> transpose -> row FFT -> transpose, each its own kernel (seed 000 section 3.3,
// seed 001 "FFT 2D implementation"), with a stop point for classroom mode.
#pragma once

#include <cuda_runtime.h>

#include "gpu/common/config.h"
#include "gpu/custom/fft_rows.h"
#include "gpu/runtime/timing.h"
#include "gpu/custom/transpose.h"

namespace specview::gpu {

struct Custom2DPlan {
    int width = 0, height = 0;
    RowFftPlan rows1;  // height rows of width points
    RowFftPlan rows2;  // width rows of height points (after the transpose)
    TransposeConfig transpose;
};

Custom2DPlan plan_custom_2d(int width, int height, const CustomConfig& cfg, const DeviceInfo& dev, bool real_input);

struct Custom2DResult {
    float2* data = nullptr;  // a or b
    int rows = 0, cols = 0;  // layout of the data at the stop: height x width, or width x height after one transpose
};

// Input: real_in (a width x height real plane) or the complex data already in `a`. a and b each hold
// width x height complex values and are both overwritten; the full transform ends in `a`.
Custom2DResult run_custom_2d(const Custom2DPlan& plan, const float* real_in, float2* a, float2* b, bool inverse,
                             const StopPoint& stop, const TwiddleTable& tw, cudaStream_t stream, StageTimer* timer);

}  // namespace specview::gpu
