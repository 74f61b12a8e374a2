#include "gpu/custom/pipeline_3d.h"

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
    return p;
}

float2* run_custom_3d(const Custom3DPlan& p, float2* a, float2* b, bool inverse, const TwiddleTable& tw,
                      cudaStream_t stream, StageTimer* timer) {
    const int W = p.width, H = p.height, D = p.depth;
    const double n = double(W) * H * D, bytes = 16.0 * n;  // one read and one write of the volume
    auto rows = [&](const RowFftPlan& plan, const char* name) {
        run_row_fft(plan, nullptr, a, b, a, inverse, RowFftStop{}, tw, stream);  // a -> b
        mark(timer, name, bytes * (1 + plan.global_stages));
    };
    auto transpose = [&](const float2* in, float2* out, const TransposeShape& t, const char* name) {
        run_transpose(in, out, t, p.transpose, stream);
        mark(timer, name, bytes);
    };
    const long long plane = (long long)W * H;

    // TransposeShape{rows, cols, in_ld, out_ld, batch, in_batch, out_batch} (gpu/custom/transpose.h).
    rows(p.rows_x, "row FFT along x");
    transpose(b, a, TransposeShape{H, W, W, H, D, plane, plane}, "transpose x-y (slabs)");  // y into the rows
    rows(p.rows_y, "row FFT along y");
    transpose(b, a, TransposeShape{D, int(plane), plane, D, 1, 0, 0}, "transpose z to the rows");  // (W H) x D
    rows(p.rows_z, "row FFT along z");
    if (p.merge_final_transposes) {  // (x H + y) D + z -> (z H + y) W + x: x against z per y, in one pass
        transpose(b, a, TransposeShape{W, D, (long long)H * D, plane, H, D, W}, "transpose back (one XYZ pass)");
        return a;
    }
    transpose(b, a, TransposeShape{int(plane), D, D, plane, 1, 0, 0}, "transpose z back");  // D x (W H)
    transpose(a, b, TransposeShape{W, H, H, W, D, plane, plane}, "transpose x-y back");      // per slab
    return b;
}

}  // namespace specview::gpu
