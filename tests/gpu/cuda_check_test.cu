// gpu/runtime/cuda_check: which CUDA errors lose the context (GpuContextLost) and what every error says. Needs no GPU:
// the runtime names its errors without a device.
#include <gtest/gtest.h>

#include <string>

#include "gpu/runtime/cuda_check.h"

using specview::gpu::GpuContextLost;
using specview::gpu::GpuError;
namespace detail = specview::gpu::detail;

TEST(CudaCheck, StickyErrorsLoseTheContext) {
    for (cudaError_t e : {cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorIllegalInstruction,
                          cudaErrorMisalignedAddress, cudaErrorHardwareStackError, cudaErrorAssert,
                          cudaErrorECCUncorrectable}) {
        EXPECT_TRUE(detail::is_sticky(e)) << cudaGetErrorName(e);
        try {
            detail::throw_cuda(e, "cudaStreamSynchronize(s)", "x.cu", 12);
            ADD_FAILURE() << "no exception";
        } catch (const GpuContextLost& ex) {
            const std::string m = ex.what();
            EXPECT_NE(m.find(cudaGetErrorName(e)), std::string::npos) << m;
            EXPECT_NE(m.find("cudaStreamSynchronize(s)"), std::string::npos) << m;
            EXPECT_NE(m.find("x.cu:12"), std::string::npos) << m;
        }
    }
}

TEST(CudaCheck, OtherErrorsLeaveTheContextUsable) {
    for (cudaError_t e : {cudaErrorInvalidValue, cudaErrorMemoryAllocation, cudaErrorInvalidConfiguration,
                          cudaErrorLaunchOutOfResources}) {
        EXPECT_FALSE(detail::is_sticky(e)) << cudaGetErrorName(e);
        bool lost = false, plain = false, oom = false;
        try {
            detail::throw_cuda(e, "cudaMalloc(&p, n)", "y.cu", 3);
        } catch (const GpuContextLost&) {
            lost = true;
        } catch (const GpuError& ex) {
            plain = true;
            oom = ex.out_of_memory();
        }
        EXPECT_FALSE(lost) << cudaGetErrorName(e);
        EXPECT_TRUE(plain) << cudaGetErrorName(e);
        EXPECT_EQ(oom, e == cudaErrorMemoryAllocation) << cudaGetErrorName(e);
    }
}
