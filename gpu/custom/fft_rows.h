// Row FFTs on the GPU as the seeds describe them: radix-2 decimation in time, in-order input, bit-reversed
// output in shared memory, written back in natural order through __brev (seed 000 section 2.2 and 3.1); a
// thread block holds H rows (seed 000's block height); rows longer than one block holds first run global
// Cooley-Tukey stages, then the local constant-geometry kernel (seed 001, "Synchronization").
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "gpu/common/config.h"
#include "gpu/runtime/resources.h"

namespace specview::gpu {

constexpr int kMaxRowLog2 = 14;  // rows up to 16384 points
constexpr int kMaxRowLength = 1 << kMaxRowLog2;

// W_N^e = exp(-2 pi i e / N) for the longest row, computed in double on the host: W_N^e for a shorter N is
// entry e * (kMaxRowLength / N). Accurate to float rounding (no fast-math sines).
class TwiddleTable {
public:
    TwiddleTable();
    const float2* get() const { return table_.get(); }

private:
    DeviceBuffer<float2> table_;
};

// Throws ConfigError for what cannot run (n not a power of two or over 16384, threads per block outside
// 1..device max, shared memory or registers over the device's limits); clamps what merely wastes (more
// threads than butterflies, H over the rows there are) and says so in notes.
RowFftPlan plan_row_fft(int n, int rows, const RowFftConfig& cfg, const DeviceInfo& dev, bool real_input);

struct RowFftStop {
    int stages = -1;            // butterfly stages to run; -1 = all (log2 n)
    bool natural_order = true;  // after the last stage: natural order (else bit-reversed, as computed)
};

// A volume's pass in seed 000 section 5.1.1's form: `done_before` of its rows' stages ran in the pass before (the data
// is in the in-place order after them); `next`: its blocks' rows are positions of the next axis and the pass runs
// that axis's first next.stages stages across them (whole rows a block, H = 2^next.stages, at most 16).
struct RowFftCarry {
    int done_before = 0;
    NextAxisStages next;
};

// Transforms plan.rows rows of plan.n points. Input is real_in (float, imaginary parts zero) when not null,
// else in. Rows needing global stages pass through `scratch` (which may be `in`, never `out`). Returns where
// the result is: `out`, or `scratch` when a stop falls inside the global stages. Data stopped part-way is in
// the order of the in-place Cooley-Tukey algorithm after that many stages.
float2* run_row_fft(const RowFftPlan& plan, const float* real_in, const float2* in, float2* out, float2* scratch,
                    bool inverse, const RowFftStop& stop, const TwiddleTable& tw, cudaStream_t stream,
                    const RowFftCarry& carry = {});

// What the local kernel of this plan uses on this device.
KernelResources row_fft_resources(const RowFftPlan& plan, bool real_input, const DeviceInfo& dev);

}  // namespace specview::gpu
