// The exceptions the GPU layer throws. CUDA-free, so the app can catch them without CUDA headers.
#pragma once

#include <stdexcept>
#include <string>

namespace specview::gpu {

// A CUDA or cuFFT call failed (out of memory, launch failure, ...). The message carries the call, the
// error's name and text, and the file and line.
class GpuError : public std::runtime_error {
public:
    explicit GpuError(const std::string& m, bool out_of_memory = false) : std::runtime_error(m), oom_(out_of_memory) {}
    bool out_of_memory() const { return oom_; }

private:
    bool oom_;
};

// A sticky CUDA error (an illegal address, a kernel that faulted or trapped, an uncorrectable ECC error, a launch
// timeout): the process's CUDA context is dead, every later call on it fails, and device memory is gone. Whoever
// catches it stops using the GPU in this process (the engine refuses GPU backends from then on; the viewer and the
// batch fall back to the CPU backend, saying so).
class GpuContextLost : public GpuError {
public:
    explicit GpuContextLost(const std::string& m) : GpuError(m) {}
};

// No usable CUDA device (no driver, no GPU, or a device that cannot run our sm_90 code).
class GpuUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A configuration this device cannot run (threads per block over the limit, shared memory over the
// limit, a size the custom kernels do not support); thrown before any launch.
class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace specview::gpu
