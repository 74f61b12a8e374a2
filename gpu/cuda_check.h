// One way to check errors: every runtime call through CUDA_CHECK, every launch followed by
// CUDA_CHECK_LAUNCH, every cuFFT call through CUFFT_CHECK. Each throws GpuError naming the call, file, line.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <string>

#include "gpu/errors.h"

namespace specview::gpu::detail {

[[noreturn]] void throw_cuda(cudaError_t e, const char* call, const char* file, int line);
[[noreturn]] void throw_cufft(cufftResult r, const char* call, const char* file, int line);
const char* cufft_result_name(cufftResult r);

}  // namespace specview::gpu::detail

#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t sv_err_ = (call);                                                      \
        if (sv_err_ != cudaSuccess)                                                        \
            ::specview::gpu::detail::throw_cuda(sv_err_, #call, __FILE__, __LINE__);      \
    } while (0)

// After a <<<...>>> launch: catches bad configurations (cudaErrorInvalidConfiguration, too much shared
// memory, ...) at once; faults inside the kernel surface at the next synchronising call's CUDA_CHECK.
#define CUDA_CHECK_LAUNCH(name)                                                            \
    do {                                                                                   \
        cudaError_t sv_err_ = cudaGetLastError();                                          \
        if (sv_err_ != cudaSuccess)                                                        \
            ::specview::gpu::detail::throw_cuda(sv_err_, "launch of " name, __FILE__, __LINE__); \
    } while (0)

#define CUFFT_CHECK(call)                                                                  \
    do {                                                                                   \
        cufftResult sv_res_ = (call);                                                      \
        if (sv_res_ != CUFFT_SUCCESS)                                                      \
            ::specview::gpu::detail::throw_cufft(sv_res_, #call, __FILE__, __LINE__);     \
    } while (0)
