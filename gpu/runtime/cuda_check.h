// One way to check errors: every runtime call through CUDA_CHECK, every launch followed by
// CUDA_CHECK_LAUNCH, every cuFFT call through CUFFT_CHECK. Each throws GpuError naming the call, file, line;
// GpuContextLost (a GpuError) where the error is sticky and the process's CUDA context is dead.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <string>

#include "gpu/common/errors.h"

namespace specview::gpu::detail {

[[noreturn]] void throw_cuda(cudaError_t e, const char* call, const char* file, int line);
// Whether an error leaves the context unusable (every later call returns it): then throw_cuda throws GpuContextLost.
bool is_sticky(cudaError_t e);
[[noreturn]] void throw_cufft(cufftResult r, const char* call, const char* file, int line);
const char* cufft_result_name(cufftResult r);

// A kernel launched with over 48 KiB of dynamic shared memory must first be allowed it
// (cudaFuncAttributeMaxDynamicSharedMemorySize). That limit is the function's, shared by every host thread and stream,
// so it is only ever raised here: once per kernel and device to the largest size asked for, under a lock. Set on every
// launch to that launch's size, as before, a smaller launch could lower it under a larger one from another thread,
// and each launch paid a driver call (PERF_NOTES.md m77). Nothing here calls cudaDeviceReset, which would forget it.
void ensure_dynamic_smem(const void* func, int bytes);

}  // namespace specview::gpu::detail

#define CUDA_CHECK(call)                                                                                     \
    do {                                                                                                     \
        cudaError_t sv_err_ = (call);                                                                        \
        if (sv_err_ != cudaSuccess) ::specview::gpu::detail::throw_cuda(sv_err_, #call, __FILE__, __LINE__); \
    } while (0)

// After a <<<...>>> launch: catches bad configurations (cudaErrorInvalidConfiguration, too much shared
// memory, ...) at once; faults inside the kernel surface at the next synchronising call's CUDA_CHECK.
#define CUDA_CHECK_LAUNCH(name)                                                                  \
    do {                                                                                         \
        cudaError_t sv_err_ = cudaGetLastError();                                                \
        if (sv_err_ != cudaSuccess)                                                              \
            ::specview::gpu::detail::throw_cuda(sv_err_, "launch of " name, __FILE__, __LINE__); \
    } while (0)

#define CUFFT_CHECK(call)                                                                                       \
    do {                                                                                                        \
        cufftResult sv_res_ = (call);                                                                           \
        if (sv_res_ != CUFFT_SUCCESS) ::specview::gpu::detail::throw_cufft(sv_res_, #call, __FILE__, __LINE__); \
    } while (0)
