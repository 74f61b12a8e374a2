// The seed's 3D FFT (seed 000 section 3: "the 1D FFT kernel is called thrice interspersed with 4 transpose
// kernels"): the row FFT along x; each slab transposed so that y is in the rows; the row FFT; the volume transposed
// so that z is in the rows; the row FFT; two transposes back — or, switched on, the one XYZ transpose of the
// paper's section 5.1.2. Complex in and out, powers of two from 2 to 16384 a side, the knobs of the 2D pipeline.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "gpu/common/config.h"
#include "gpu/custom/fft_rows.h"
#include "gpu/custom/transpose.h"
#include "gpu/runtime/timing.h"

namespace specview::gpu {

struct Custom3DPlan {
    int width = 0, height = 0, depth = 0;
    RowFftPlan rows_x;  // depth * height rows of width points
    RowFftPlan rows_y;  // depth * width rows of height points (after the slabs' transpose)
    RowFftPlan rows_z;  // width * height rows of depth points (after the volume's transpose)
    TransposeConfig transpose;
    bool merge_final_transposes = false;
    // Seed 000 section 5.1.1 (cfg.rows.next_axis_stages): the x pass runs y's first next_x.stages stages, the y pass
    // z's first next_y.stages (0: that pass cannot: rows longer than a block holds, or fewer than two rows a block).
    NextAxisStages next_x, next_y;
    std::vector<std::string> notes;
};

// Throws ConfigError for a side that is not a power of two from 2 to 16384, or a configuration the device cannot run.
Custom3DPlan plan_custom_3d(int width, int height, int depth, const CustomConfig& cfg, const DeviceInfo& dev,
                            bool merge_final_transposes);

// `a` holds the volume (depth x height x width complex, x fastest); `b` as large, overwritten. Returns where the
// transform ends (a or b), in the same layout, natural order, unnormalised.
float2* run_custom_3d(const Custom3DPlan& plan, float2* a, float2* b, bool inverse, const TwiddleTable& tw,
                      cudaStream_t stream, StageTimer* timer);

}  // namespace specview::gpu
