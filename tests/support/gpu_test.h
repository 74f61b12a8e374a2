// Shared pieces of the GPU tests: skip cleanly without a device, device buffers filled from and read back to
// host vectors, poisoning before each run.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "gpu/common/spectrum_math.h"
#include "gpu/common/config.h"
#include "gpu/runtime/device_info.h"
#include "gpu/runtime/resources.h"

namespace specview::test {

// Every GPU test derives from this: without a usable CUDA device it skips, saying why.
class GpuTest : public ::testing::Test {
protected:
    static const gpu::DeviceInfo& device() {
        static const gpu::DeviceInfo d = gpu::probe_device(0);
        return d;
    }
    void SetUp() override {
        if (!device().available)
            GTEST_SKIP() << "no usable CUDA device (" << device().why_unavailable << "); GPU test skipped";
    }
};

// Largest colormap-level difference between two pictures (see gpu/common/spectrum_math.h).
inline int max_level_diff(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, Colormap cm) {
    if (a.size() != b.size()) return 256;
    return max_level_difference(a.data(), b.data(), (long long)a.size(), cm);
}

// Under compute-sanitizer (SPECVIEW_TEST_SMALL=1) the big grids shrink so the instrumented run stays short.
inline bool small_run() {
    static const bool small = std::getenv("SPECVIEW_TEST_SMALL") != nullptr;
    return small;
}

// 0xFF bytes: every float is a NaN, so an element the kernel never wrote fails the comparison.
template <class T>
void poison(gpu::DeviceBuffer<T>& b) {
    CUDA_CHECK(cudaMemset(b.get(), 0xFF, b.bytes()));
}

template <class T, class H>
void upload(gpu::DeviceBuffer<T>& d, const std::vector<H>& h) {
    static_assert(sizeof(T) == sizeof(H), "element sizes differ");
    d.resize(h.size());
    CUDA_CHECK(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(H), cudaMemcpyHostToDevice));
}

template <class H, class T>
std::vector<H> download(const T* d, std::size_t n) {
    static_assert(sizeof(T) == sizeof(H), "element sizes differ");
    std::vector<H> h(n);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(H), cudaMemcpyDeviceToHost));
    return h;
}

}  // namespace specview::test
