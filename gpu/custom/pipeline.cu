#include "gpu/custom/pipeline.h"

#include "gpu/common/errors.h"

namespace specview::gpu {

Custom2DPlan plan_custom_2d(int width, int height, const CustomConfig& cfg, const DeviceInfo& dev, bool real_input) {
    Custom2DPlan p;
    p.width = width;
    p.height = height;
    RowFftConfig rows = cfg.rows;
    rows.next_axis_stages = false;  // (section 5.1.1 is the 3D pipeline's: 2D plans the plain kernel)
    p.rows1 = plan_row_fft(width, height, rows, dev, real_input);
    p.rows2 = plan_row_fft(height, width, rows, dev, false);
    check_transpose_config(cfg.transpose);
    p.transpose = cfg.transpose;
    return p;
}

Custom2DResult run_custom_2d(const Custom2DPlan& p, const float* real_in, float2* a, float2* b, bool inverse,
                             const StopPoint& stop, const TwiddleTable& tw, cudaStream_t stream, StageTimer* timer) {
    using K = StopPoint::Kind;
    const double n = double(p.width) * p.height;
    const bool real = real_in != nullptr;

    RowFftStop s1;
    if (stop.kind == K::RowPass1) {
        s1.stages = stop.stage;
        s1.natural_order = !stop.bit_reversed;
    }
    float2* r1 = run_row_fft(p.rows1, real_in, a, b, a, inverse, s1, tw, stream);
    mark(timer, "row FFT 1", n * ((real ? 4.0 : 8.0) + 8.0) + n * 16.0 * p.rows1.global_stages);
    if (stop.kind == K::RowPass1) return {r1, p.height, p.width};

    run_transpose(b, a, p.height, p.width, p.transpose, stream);
    mark(timer, "transpose 1", n * 16.0);
    if (stop.kind == K::Transpose1) return {a, p.width, p.height};

    RowFftStop s2;
    if (stop.kind == K::RowPass2) {
        s2.stages = stop.stage;
        s2.natural_order = !stop.bit_reversed;
    }
    float2* r2 = run_row_fft(p.rows2, nullptr, a, b, a, inverse, s2, tw, stream);
    mark(timer, "row FFT 2", n * 16.0 * (1 + p.rows2.global_stages));
    if (stop.kind == K::RowPass2) return {r2, p.width, p.height};

    run_transpose(b, a, p.width, p.height, p.transpose, stream);
    mark(timer, "transpose 2", n * 16.0);
    return {a, p.height, p.width};
}

}  // namespace specview::gpu
