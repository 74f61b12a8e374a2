// What the seed pipeline's portable engines (gpu/opencl, gpu/glsl) share: what they refuse before any launch (sides
// that are not powers of two: the kernels are radix 2; knobs out of range; a classroom stop outside its pass) and
// the order of the 2D pipeline's steps up to a stop. Plain C++.
#pragma once

#include <string>

#include "gpu/common/config.h"
#include "gpu/common/pow2.h"

namespace specview::gpu {

// The portable engines' knobs, as the CUDA seed pipeline's (gpu/common/config.h): a work-group transforms
// `rows_per_group` (H) rows in blocks of `local_length` values in local/shared memory, local_length / 2 work-items a row
// (one butterfly each); longer rows first run global stages; `tile` is the transpose's T (T x T work-items, a
// T x (T + 1) tile). 512 fits every device seen (NVIDIA's OpenCL allows 256 work-items for the local kernel).
// The GL engine also takes `threads` (work-items a row, each looping over local_length / 2 / threads butterflies a
// stage; 0: local_length / 2, the seed's one butterfly each) and a local_length of 0: the longest power of two its
// shared memory holds for H rows (at most the row).
struct SeedConfig {
    int local_length = 512;
    int rows_per_group = 1;
    int tile = 16;
    int threads = 0;
};


// "" or why: `kernels` names them in the message ("the OpenCL kernels").
inline std::string seed_knobs_error(int width, int height, int local_length, int rows_per_group, int tile,
                                    const std::string& kernels) {
    if (!is_pow2(width) || !is_pow2(height))
        return kernels + " are radix 2: " + std::to_string(width) + "x" + std::to_string(height) +
               " is not a power of two each way (--pad pow2 or crop, or another backend)";
    if (!is_pow2(local_length) || local_length < 2) return "the local length must be a power of two from 2";
    if (rows_per_group < 1) return "rows per work-group (H) must be at least 1";
    if (tile < 1) return "the transpose tile must be at least 1";
    return "";
}

// "" or why a row pass's stop (stage 0, nothing yet, to log2 of its length) is outside the pass.
inline std::string seed_stop_error(const StopPoint* stop, int width, int height) {
    if (!stop || (stop->kind != StopPoint::Kind::RowPass1 && stop->kind != StopPoint::Kind::RowPass2)) return "";
    const int n = stop->kind == StopPoint::Kind::RowPass1 ? width : height;
    if (stop->stage >= 0 && stop->stage <= ilog2(n)) return "";
    return "stage " + std::to_string(stop->stage) + " of a " + std::to_string(n) +
           "-point row pass: it has stages 0 (none yet) to " + std::to_string(ilog2(n));
}

// The seed 2D pipeline's steps up to a stop, for an engine with two buffers A and B: the row pass along x (A -> B),
// the transpose (B -> A), the row pass along y (A -> B), the transpose back (B -> A). row(n, rows, stages, natural,
// what) runs a row pass (stages -1: all; natural: the last stage's rows in natural order); transpose(rows, cols,
// what) transposes rows x cols. Returns where the data is at the stop and its layout.
struct SeedStop {
    bool in_b = false;
    int rows = 0, cols = 0;
};
template <class Row, class Transpose>
SeedStop run_seed_pipeline(const StopPoint* stop, int width, int height, Row&& row, Transpose&& transpose) {
    using Kind = StopPoint::Kind;
    const Kind kind = stop ? stop->kind : Kind::Done;
    const bool reversed = stop && stop->bit_reversed;  // (a row pass's own stop only)
    row(width, height, kind == Kind::RowPass1 ? stop->stage : -1, !(kind == Kind::RowPass1 && reversed),
        "row FFT (along x)");
    if (kind == Kind::RowPass1) return {true, height, width};
    transpose(height, width, "transpose");
    if (kind == Kind::Transpose1) return {false, width, height};
    row(height, width, kind == Kind::RowPass2 ? stop->stage : -1, !(kind == Kind::RowPass2 && reversed),
        "row FFT (along y)");
    if (kind == Kind::RowPass2) return {true, width, height};
    transpose(width, height, "transpose back");
    return {false, height, width};
}

}  // namespace specview::gpu
