#include "gpu/custom/pipeline_3d.h"

#include <algorithm>
#include <string>

#include "gpu/common/errors.h"

namespace specview::gpu {

namespace {
void check_side(int n, const char* axis) {
    if (n < 2 || n > kMaxRowLength || (n & (n - 1)) != 0)
        throw ConfigError(std::string("the custom pipeline is radix 2: the volume's ") + axis + " side must be a power "
                          "of two from 2 to " + std::to_string(kMaxRowLength) + ", not " + std::to_string(n) +
                          " (--pad pow2, or --backend custom-fast/cufft for exact sizes)");
}
}  // namespace

Custom3DPlan plan_custom_3d(int width, int height, int depth, const CustomConfig& cfg, const DeviceInfo& dev,
                            bool merge_final_transposes) {
    check_side(width, "x");
    check_side(height, "y");
    check_side(depth, "z (frames)");
    Custom3DPlan p;
    p.width = width;
    p.height = height;
    p.depth = depth;
    p.rows_x = plan_row_fft(width, depth * height, cfg.rows, dev, false);
    p.rows_y = plan_row_fft(height, depth * width, cfg.rows, dev, false);
    p.rows_z = plan_row_fft(depth, width * height, cfg.rows, dev, false);
    check_transpose_config(cfg.transpose);
    p.transpose = cfg.transpose;
    p.merge_final_transposes = merge_final_transposes;
    if (cfg.rows.next_axis_stages) {  // seed 000 section 5.1.1
        // A pass's blocks take H rows along the next axis (H <= 16: registers) and run its first log2 H stages.
        auto carry = [&](RowFftPlan* plan, int n, int rows, int next_n, long long inner, const char* axis,
                         const char* next) {
            NextAxisStages c;
            if (plan->global_stages > 0) {
                p.notes.push_back(std::string("section 5.1.1: the ") + axis + " pass runs none of " + next +
                                  "'s stages (its rows are longer than one block holds)");
                return c;
            }
            const int h = std::min({plan->block_height, kMaxNextRows, next_n});
            if (h != plan->block_height) {
                RowFftConfig rc = cfg.rows;
                rc.block_height = h;
                *plan = plan_row_fft(n, rows, rc, dev, false);
            }
            if (plan->block_height < 2) return c;
            c.stages = 0;
            while ((2 << c.stages) <= plan->block_height) ++c.stages;
            c.log2n = 0;
            while ((1 << c.log2n) < next_n) ++c.log2n;
            c.inner = inner;
            p.notes.push_back(std::string("section 5.1.1: the ") + axis + " pass runs " + next + "'s first " +
                              std::to_string(c.stages) + " stages across its " + std::to_string(plan->block_height) +
                              " rows a block");
            return c;
        };
        p.next_x = carry(&p.rows_x, width, depth * height, height, 1, "x", "y");
        p.next_y = carry(&p.rows_y, height, depth * width, depth, width, "y", "z");
    }
    return p;
}

float2* run_custom_3d(const Custom3DPlan& p, float2* a, float2* b, bool inverse, const TwiddleTable& tw,
                      cudaStream_t stream, StageTimer* timer) {
    const int W = p.width, H = p.height, D = p.depth;
    const double n = double(W) * H * D, bytes = 16.0 * n;  // one read and one write of the volume
    auto rows = [&](const RowFftPlan& plan, const char* name, const RowFftCarry& carry) {
        run_row_fft(plan, nullptr, a, b, a, inverse, RowFftStop{}, tw, stream, carry);  // a -> b
        mark(timer, name, bytes * (1 + std::max(0, plan.global_stages - carry.done_before)));
    };
    auto transpose = [&](const float2* in, float2* out, const TransposeShape& t, const char* name) {
        run_transpose(in, out, t, p.transpose, stream);
        mark(timer, name, bytes);
    };
    const long long plane = (long long)W * H;

    // TransposeShape{rows, cols, in_ld, out_ld, batch, in_batch, out_batch} (gpu/custom/transpose.h).
    rows(p.rows_x, p.next_x.stages ? "row FFT along x (+ y's first stages)" : "row FFT along x", {0, p.next_x});
    transpose(b, a, TransposeShape{H, W, W, H, D, plane, plane}, "transpose x-y (slabs)");  // y into the rows
    rows(p.rows_y, p.next_y.stages ? "row FFT along y (+ z's first stages)" : "row FFT along y",
         {p.next_x.stages, p.next_y});
    transpose(b, a, TransposeShape{D, int(plane), plane, D, 1, 0, 0}, "transpose z to the rows");  // (W H) x D
    rows(p.rows_z, "row FFT along z", {p.next_y.stages, {}});
    if (p.merge_final_transposes) {  // (x H + y) D + z -> (z H + y) W + x: x against z per y, in one pass
        transpose(b, a, TransposeShape{W, D, (long long)H * D, plane, H, D, W}, "transpose back (one XYZ pass)");
        return a;
    }
    transpose(b, a, TransposeShape{int(plane), D, D, plane, 1, 0, 0}, "transpose z back");  // D x (W H)
    transpose(a, b, TransposeShape{W, H, H, W, D, plane, plane}, "transpose x-y back");      // per slab
    return b;
}

}  // namespace specview::gpu
