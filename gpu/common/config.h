// Plain descriptions of the GPU pipeline's knobs and what a run reports. No CUDA types here: the app and the
// UI include this without the CUDA headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace specview::gpu {

// The seed pipeline's row-FFT launch shape (seed 000 section 3.1, seed 001 "thread and block scheme").
struct RowFftConfig {
    int threads_per_block = 256;
    // Rows of data one thread block holds in shared memory (seed 000's block height H). 0 = automatic:
    // enough rows that every thread has at least one butterfly per stage (at least 1, at most 64).
    int block_height = 0;
    // Longest sub-sequence one block transforms in shared memory; longer rows first run global
    // Cooley-Tukey stages (seed 001's global kernel). 0 = automatic: what fits in 48 KiB per block.
    int max_local_length = 0;
    // Seed 000 section 4.1's untested hypothesis: twice the local length in threads a block (at most the device's),
    // in place of threads_per_block, "will deliver better performance". A switch, measured.
    bool threads_twice_length = false;
    // Seed 000 section 5.2.2's: warp shuffles in place of shared memory for the stages within a warp (spans 16 .. 1,
    // a row's last five) - "shared memory usage would go down". A switch, measured.
    bool warp_shuffles = false;
    // Seed 000 section 5.1.1's (a volume's passes): a pass's blocks hold rows along the next axis and run its first
    // log2 H stages in registers, so that the next pass starts that many stages later. A switch, measured.
    bool next_axis_stages = false;
};

// A row pass's share of section 5.1.1 (gpu/custom/pipeline_3d.cu): `stages` = log2 of the block's rows, each a
// position of the next axis (2^log2n long, `inner` rows between positions); 0: none.
struct NextAxisStages {
    int stages = 0;
    int log2n = 0;
    long long inner = 1;
};
constexpr int kMaxNextRowsLog2 = 4;  // at most 16 rows a block carry the next axis's stages (registers)
constexpr int kMaxNextRows = 1 << kMaxNextRowsLog2;

// The launch shape the row-FFT planner settled on for one row pass (gpu/custom/fft_rows.cu).
struct RowFftPlan {
    int n = 0, log2n = 0;  // row length
    int rows = 0;
    int local_len = 0, log2l = 0;  // sub-sequence one block transforms in shared memory
    int global_stages = 0;         // Cooley-Tukey stages run in global memory first (log2n - log2l)
    int threads = 0;               // threads per block, effective
    int block_height = 0;          // segments (rows, or parts of a row) per block, effective
    int per_thread = 0;            // butterflies per thread per stage (1, 2, 4, 8 or 16)
    int shuffle_stages = 0;        // the last stages run through warp shuffles (warp_shuffles: up to 5), else 0
    // Launched with section 5.1.1's next-axis stages (next_axis_stages): the kernel variant that holds a position's
    // 16 rows in registers, its own register budget checked.
    bool next_axis = false;
    int blocks = 0;
    int smem_bytes = 0;              // dynamic shared memory per block
    std::vector<std::string> notes;  // every clamp the planner made, in words
};

// The planner's shape without a device: the clamps that do not depend on the compiled kernel (registers are
// checked by plan_row_fft on the device). Throws ConfigError. Classroom mode uses it on machines without a GPU.
RowFftPlan plan_row_fft_shape(int n, int rows, const RowFftConfig& cfg, int max_threads_per_block,
                              int max_smem_per_block_optin, const std::string& device_name);

struct TransposeConfig {
    int tile = 32;  // 8, 16, 32 or 64
};

struct CustomConfig {
    RowFftConfig rows;
    TransposeConfig transpose;
    // A volume's 3D pipeline only: the two final transposes as one XYZ transpose (seed 000 section 5.1.2; measured
    // 6-7% faster on the H100: tests/bench/README.md).
    bool merge_final_transposes = false;
};

enum class CufftMode : int { R2C = 0, C2C };

// Where in the custom pipeline to stop (classroom mode). A full run is Stage{Kind::Done}.
struct StopPoint {
    enum class Kind : int {
        RowPass1,    // after `stage` butterfly stages of the first row pass (1..log2 W)
        Transpose1,  // after the first transpose
        RowPass2,    // after `stage` butterfly stages of the second row pass (1..log2 H)
        Transpose2,  // after the second transpose: the complete 2D FFT
        Done,        // the complete FFT (the shift is applied by the view)
    };
    Kind kind = Kind::Done;
    int stage = 0;
    // For a row pass stopped after its last stage: leave rows in the order the butterflies produce them
    // (bit-reversed, as they sit in shared memory) instead of writing them back in natural order.
    bool bit_reversed = false;
};

// The radial and angular power profiles reduced on the device (gpu/lab/analysis.h): per-bin sums of |F|^2 / (w h)
// and counts, binned as app/lab/analysis.cpp bins them (radial: ceil(sqrt(0.5) max(w, h)) + 2 bins; 180 angles).
struct PowerSums {
    std::vector<double> radial_sum, angular_sum;
    std::vector<long long> radial_count, angular_count;
    double ms = 0;  // the device's time for the reduction (events)
    int width = 0, height = 0;
};

struct KernelTiming {
    std::string name;
    double ms = 0.0;
    double bytes = 0.0;  // bytes read + written in device memory, for GB/s
};

// What the compiler and the occupancy calculator say about one kernel at the current configuration
// (seed 000's appendix A, for this GPU).
struct KernelResources {
    std::string kernel;
    int threads_per_block = 0;
    int registers_per_thread = 0;
    int static_smem_bytes = 0;
    int dynamic_smem_bytes = 0;
    int active_blocks_per_sm = 0;
    double occupancy = 0.0;  // active warps / max warps per SM
    std::string limiter;     // what bounds the active blocks: registers, shared memory, threads, blocks
};

struct DeviceInfo {
    bool available = false;
    std::string why_unavailable;
    std::string name;
    int device = 0;
    int sm_count = 0;
    int cc_major = 0, cc_minor = 0;
    std::size_t total_memory = 0;
    std::size_t free_memory = 0;
    int max_threads_per_block = 0;
    int max_smem_per_block = 0;        // without opt-in
    int max_smem_per_block_optin = 0;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
    int max_smem_per_sm = 0;
    int regs_per_sm = 0;
    int max_threads_per_sm = 0;
    int max_blocks_per_sm = 0;
    int warp_size = 32;
    double mem_clock_khz = 0, bus_width_bits = 0;
};

}  // namespace specview::gpu
