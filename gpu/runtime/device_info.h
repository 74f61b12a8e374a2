// What the device is and what it allows, and the occupancy arithmetic of seed 000's appendix.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "gpu/common/config.h"

namespace specview::gpu {

// Never throws: a missing driver or device gives available = false with the reason.
DeviceInfo probe_device(int device = 0);
// How many CUDA devices this process sees (0 with why set when there is no driver or device); never throws.
int cuda_device_count(std::string* why = nullptr);
// Bytes in use on the device (total - free, every process's), or -1 where it cannot be read. Only where this process
// already has a CUDA context: the first call of a process creates one.
double device_memory_used(int device = 0);

// Fills a KernelResources from cudaFuncGetAttributes and the occupancy calculator.
KernelResources kernel_resources(const void* func, const char* name, int threads, int dyn_smem, const DeviceInfo& dev);

}  // namespace specview::gpu
