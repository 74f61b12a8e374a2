// The tiled transpose: exact, for any shape and every tile.
#include <gtest/gtest.h>

#include "gpu/common/errors.h"
#include "gpu/custom/transpose.h"
#include "tests/support/gpu_test.h"
#include "tests/support/oracle.h"

namespace specview::test {
namespace {

class Transpose : public GpuTest {};

TEST_F(Transpose, IsExactForAnyShapeAndTile) {
    Rng rng;
    const int shapes[][2] = {{1, 1},  {1, 37},   {37, 1},   {7, 13},     {32, 32},     {33, 65},
                             {64, 8}, {1000, 3}, {3, 1000}, {256, 1024}, {2048, 2048}, {4096, 16}};
    for (const auto& sh : shapes)
        for (int tile : {8, 16, 32, 64}) {
            const int rows = sh[0], cols = sh[1];
            const std::vector<cf> h = rng.complex(std::size_t(rows) * cols);
            gpu::DeviceBuffer<float2> in, out(h.size());
            upload(in, h);
            poison(out);
            gpu::run_transpose(in.get(), out.get(), rows, cols, {tile}, nullptr);
            const auto got = download<cf>(out.get(), h.size());
            for (int y = 0; y < rows; ++y)
                for (int x = 0; x < cols; ++x)
                    ASSERT_EQ(got[std::size_t(x) * rows + y], h[std::size_t(y) * cols + x])
                        << rows << "x" << cols << " tile " << tile << " at (" << y << ", " << x << ")";
        }
}

// The 3D pipeline's forms: a batch of slabs with leading dimensions, and x swapped with z keeping y (seed 000
// section 5.1.2's one XYZ transpose), on odd sizes; and a matrix taller than 65535 tiles (the grid's y limit).
TEST_F(Transpose, BatchedAndStridedFormsAreExact) {
    Rng rng;
    for (int tile : {8, 32, 64}) {
        const int W = 37, H = 5, D = 19;  // a (D, H, W) volume, x fastest
        const std::vector<cf> h = rng.complex(std::size_t(W) * H * D);
        gpu::DeviceBuffer<float2> in, out(h.size());
        upload(in, h);
        // Per y: the D x W matrix of (z, x) at stride H * W -> W x D at (x * H + y) * D + z.
        poison(out);
        gpu::TransposeShape t;
        t.rows = D;
        t.cols = W;
        t.in_ld = std::size_t(H) * W;
        t.out_ld = std::size_t(H) * D;
        t.batch = H;
        t.in_batch = W;
        t.out_batch = D;
        gpu::run_transpose(in.get(), out.get(), t, {tile}, nullptr);
        auto got = download<cf>(out.get(), h.size());
        for (int z = 0; z < D; ++z)
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x)
                    ASSERT_EQ(got[(std::size_t(x) * H + y) * D + z], h[(std::size_t(z) * H + y) * W + x])
                        << "tile " << tile << " at (" << x << ", " << y << ", " << z << ")";
        // A batch of D slabs, each H x W -> W x H.
        poison(out);
        t = {};
        t.rows = H;
        t.cols = W;
        t.in_ld = W;
        t.out_ld = H;
        t.batch = D;
        t.in_batch = t.out_batch = std::size_t(H) * W;
        gpu::run_transpose(in.get(), out.get(), t, {tile}, nullptr);
        got = download<cf>(out.get(), h.size());
        for (int z = 0; z < D; ++z)
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x)
                    ASSERT_EQ(got[(std::size_t(z) * W + x) * H + y], h[(std::size_t(z) * H + y) * W + x])
                        << "tile " << tile << " slab at (" << x << ", " << y << ", " << z << ")";
    }
    const int rows = 2100001, cols = 3;  // 65626 tiles of 32 tall
    const std::vector<cf> h = rng.complex(std::size_t(rows) * cols);
    gpu::DeviceBuffer<float2> in, out(h.size());
    upload(in, h);
    poison(out);
    gpu::run_transpose(in.get(), out.get(), rows, cols, {32}, nullptr);
    const auto got = download<cf>(out.get(), h.size());
    for (int y = 0; y < rows; y += 9973)
        for (int x = 0; x < cols; ++x) ASSERT_EQ(got[std::size_t(x) * rows + y], h[std::size_t(y) * cols + x]);
    ASSERT_EQ(got.back(), h.back());
}

TEST_F(Transpose, RejectsAnUnknownTile) {
    EXPECT_THROW(gpu::check_transpose_config({12}), gpu::ConfigError);
    EXPECT_THROW(gpu::check_transpose_config({128}), gpu::ConfigError);
}

}  // namespace
}  // namespace specview::test
