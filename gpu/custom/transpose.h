// Out-of-place transpose of a rows x cols complex matrix, tiled through shared memory: the CUDA samples'
// optimised transpose (coalesced reads and writes, a padded tile against bank conflicts), which seed 000
// section 3.3 adapted for its 3D FFT. Any shape, batched and strided; tile 8, 16, 32 or 64.
#pragma once

#include <cuda_runtime.h>

#include "gpu/common/config.h"

namespace specview::gpu {

void check_transpose_config(const TransposeConfig& cfg);  // throws ConfigError
void run_transpose(const float2* in, float2* out, int rows, int cols, const TransposeConfig& cfg, cudaStream_t stream);

// A batch of rows x cols matrices with leading dimensions: element (r, c) of matrix b at
// in[b * in_batch + r * in_ld + c] goes to out[b * out_batch + c * out_ld + r]. The 3D pipeline's transposes are
// all of this form (a slab's plane, the volume's z against the rest, x against z with y kept).
struct TransposeShape {
    int rows = 0, cols = 0;
    long long in_ld = 0, out_ld = 0;
    int batch = 1;
    long long in_batch = 0, out_batch = 0;
};
void run_transpose(const float2* in, float2* out, const TransposeShape& t, const TransposeConfig& cfg,
                   cudaStream_t stream);
KernelResources transpose_resources(const TransposeConfig& cfg, const DeviceInfo& dev);

}  // namespace specview::gpu
