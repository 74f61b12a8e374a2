#include "gpu/runtime/cuda_check.h"

#include <map>
#include <mutex>
#include <sstream>
#include <utility>

namespace specview::gpu::detail {

bool is_sticky(cudaError_t e) {
    switch (e) {
        // The runtime's documentation of each: "the process is left in an inconsistent state and any further CUDA
        // work will return the same error. To continue using CUDA, the process must be terminated and relaunched."
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorHardwareStackError:
        case cudaErrorIllegalInstruction:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorAssert:
        case cudaErrorLaunchTimeout:
        case cudaErrorECCUncorrectable:
        case cudaErrorContextIsDestroyed:
            return true;
        default:
            return false;
    }
}

void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
    std::ostringstream m;
    m << "CUDA error " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e) << ") in " << call << " at " << file
      << ":" << line;
    if (is_sticky(e)) throw GpuContextLost(m.str());
    cudaGetLastError();  // not sticky: clear it so the next call starts clean
    throw GpuError(m.str(), e == cudaErrorMemoryAllocation);
}

const char* cufft_result_name(cufftResult r) {
    switch (r) {
        case CUFFT_SUCCESS:
            return "CUFFT_SUCCESS";
        case CUFFT_INVALID_PLAN:
            return "CUFFT_INVALID_PLAN";
        case CUFFT_ALLOC_FAILED:
            return "CUFFT_ALLOC_FAILED";
        case CUFFT_INVALID_TYPE:
            return "CUFFT_INVALID_TYPE";
        case CUFFT_INVALID_VALUE:
            return "CUFFT_INVALID_VALUE";
        case CUFFT_INTERNAL_ERROR:
            return "CUFFT_INTERNAL_ERROR";
        case CUFFT_EXEC_FAILED:
            return "CUFFT_EXEC_FAILED";
        case CUFFT_SETUP_FAILED:
            return "CUFFT_SETUP_FAILED";
        case CUFFT_INVALID_SIZE:
            return "CUFFT_INVALID_SIZE";
        case CUFFT_INVALID_DEVICE:
            return "CUFFT_INVALID_DEVICE";
        case CUFFT_NO_WORKSPACE:
            return "CUFFT_NO_WORKSPACE";
        case CUFFT_NOT_IMPLEMENTED:
            return "CUFFT_NOT_IMPLEMENTED";
        case CUFFT_NOT_SUPPORTED:
            return "CUFFT_NOT_SUPPORTED";
        default:
            return "CUFFT_UNKNOWN_ERROR";
    }
}

void ensure_dynamic_smem(const void* func, int bytes) {
    if (bytes <= 48 * 1024) return;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    static std::mutex mu;
    static std::map<std::pair<const void*, int>, int> limits;  // (kernel, device) -> the limit set
    const std::lock_guard<std::mutex> lock(mu);
    int& have = limits[{func, device}];
    if (have >= bytes) return;
    CUDA_CHECK(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    have = bytes;
}

void throw_cufft(cufftResult r, const char* call, const char* file, int line) {
    std::ostringstream m;
    m << "cuFFT error " << cufft_result_name(r) << " in " << call << " at " << file << ":" << line;
    // A cuFFT call on a dead context fails with its own code; the runtime's sticky error says why.
    if (const cudaError_t e = cudaPeekAtLastError(); is_sticky(e)) {
        m << " (CUDA " << cudaGetErrorName(e) << ": " << cudaGetErrorString(e) << ")";
        throw GpuContextLost(m.str());
    }
    throw GpuError(m.str(), r == CUFFT_ALLOC_FAILED);
}

}  // namespace specview::gpu::detail
