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

TEST_F(Transpose, RejectsAnUnknownTile) {
    EXPECT_THROW(gpu::check_transpose_config({12}), gpu::ConfigError);
    EXPECT_THROW(gpu::check_transpose_config({128}), gpu::ConfigError);
}

}  // namespace
}  // namespace specview::test
