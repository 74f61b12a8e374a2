#include "gpu/runtime/device_info.h"

#include <algorithm>
#include <string>

#include "gpu/runtime/cuda_check.h"

namespace specview::gpu {

namespace {
// A kernel of this build: if it has no code for the device, neither has anything else.
__global__ void probe_kernel() {}
}  // namespace

int cuda_device_count(std::string* why) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        if (why) *why = std::string("no usable CUDA driver or device (") + cudaGetErrorString(e) + ")";
        return 0;
    }
    if (count == 0 && why) *why = "no CUDA device found";
    return count;
}

double device_memory_used(int device) {
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess || cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    std::size_t free_b = 0, total_b = 0;
    const cudaError_t e = cudaMemGetInfo(&free_b, &total_b);
    cudaSetDevice(current);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return double(total_b - free_b);
}

DeviceInfo probe_device(int device) {
    DeviceInfo d;
    d.device = device;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        d.why_unavailable = std::string("no usable CUDA driver or device (") + cudaGetErrorString(e) + ")";
        return d;
    }
    if (count <= device) {
        d.why_unavailable =
            count == 0 ? "no CUDA device found" : "CUDA device " + std::to_string(device) + " does not exist";
        return d;
    }
    cudaDeviceProp p{};
    if ((e = cudaGetDeviceProperties(&p, device)) != cudaSuccess) {
        cudaGetLastError();
        d.why_unavailable = std::string("cannot query the CUDA device (") + cudaGetErrorString(e) + ")";
        return d;
    }
    d.name = p.name;
    d.sm_count = p.multiProcessorCount;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.total_memory = p.totalGlobalMem;
    d.max_threads_per_block = p.maxThreadsPerBlock;
    d.max_smem_per_block = int(p.sharedMemPerBlock);
    d.max_smem_per_block_optin = int(std::max(p.sharedMemPerBlockOptin, p.sharedMemPerBlock));
    d.max_smem_per_sm = int(p.sharedMemPerMultiprocessor);
    d.regs_per_sm = p.regsPerMultiprocessor;
    d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    d.warp_size = p.warpSize;
    int clock = 0, width = 0;
    cudaDeviceGetAttribute(&clock, cudaDevAttrMemoryClockRate, device);
    cudaDeviceGetAttribute(&width, cudaDevAttrGlobalMemoryBusWidth, device);
    d.mem_clock_khz = clock;
    d.bus_width_bits = width;
    if ((e = cudaSetDevice(device)) != cudaSuccess) {
        cudaGetLastError();
        d.why_unavailable = std::string("cannot use CUDA device (") + cudaGetErrorString(e) + ")";
        return d;
    }
    std::size_t free_b = 0, total_b = 0;
    if ((e = cudaMemGetInfo(&free_b, &total_b)) != cudaSuccess) {
        cudaGetLastError();
        d.why_unavailable = std::string("cannot create a CUDA context (") + cudaGetErrorString(e) + ")";
        return d;
    }
    d.free_memory = free_b;
    // Our kernels are built for the architectures CMake was given; check one of them loads here.
    cudaFuncAttributes fa{};
    if ((e = cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(&probe_kernel))) != cudaSuccess) {
        cudaGetLastError();
        d.why_unavailable = std::string("this build has no code for ") + p.name + " (compute capability " +
                            std::to_string(p.major) + "." + std::to_string(p.minor) + "): " + cudaGetErrorString(e) +
                            "; rebuild with CMAKE_CUDA_ARCHITECTURES including it";
        return d;
    }
    d.available = true;
    return d;
}

KernelResources kernel_resources(const void* func, const char* name, int threads, int dyn_smem, const DeviceInfo& dev) {
    KernelResources r;
    r.kernel = name;
    r.threads_per_block = threads;
    r.dynamic_smem_bytes = dyn_smem;
    cudaFuncAttributes fa{};
    CUDA_CHECK(cudaFuncGetAttributes(&fa, func));
    r.registers_per_thread = fa.numRegs;
    r.static_smem_bytes = int(fa.sharedSizeBytes);
    detail::ensure_dynamic_smem(func, dyn_smem);
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, threads, dyn_smem));
    r.active_blocks_per_sm = blocks;
    const int warps_per_block = (threads + dev.warp_size - 1) / dev.warp_size;
    const int max_warps = dev.max_threads_per_sm / dev.warp_size;
    r.occupancy = max_warps ? double(blocks * warps_per_block) / max_warps : 0.0;
    // Which resource bounds the block count (the first that reaches the found count).
    const int regs_per_block = ((fa.numRegs * dev.warp_size + 255) / 256 * 256) * warps_per_block;
    const int by_regs = regs_per_block ? dev.regs_per_sm / regs_per_block : 1 << 20;
    const int smem = r.static_smem_bytes + dyn_smem + 1024;  // 1 KiB per block reserved by the driver
    const int by_smem = smem ? dev.max_smem_per_sm / smem : 1 << 20;
    const int by_threads = dev.max_threads_per_sm / (warps_per_block * dev.warp_size);
    const int by_blocks = dev.max_blocks_per_sm;
    const int m = std::min({by_regs, by_smem, by_threads, by_blocks});
    r.limiter = m == by_smem      ? "shared memory"
                : m == by_regs    ? "registers"
                : m == by_threads ? "threads"
                                  : "blocks per SM";
    return r;
}

}  // namespace specview::gpu
