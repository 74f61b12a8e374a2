// Out-of-place transpose of a rows x cols complex matrix, tiled through shared memory: the CUDA samples'
// optimised transpose (coalesced reads and writes, a padded tile against bank conflicts), which seed 000
// section 3.3 adapted for its 3D FFT. Any shape; tile 8, 16, 32 or 64.
#pragma once

#include <cuda_runtime.h>

#include "gpu/common/config.h"

namespace specview::gpu {

void check_transpose_config(const TransposeConfig& cfg);  // throws ConfigError
void run_transpose(const float2* in, float2* out, int rows, int cols, const TransposeConfig& cfg, cudaStream_t stream);
KernelResources transpose_resources(const TransposeConfig& cfg, const DeviceInfo& dev);

}  // namespace specview::gpu
