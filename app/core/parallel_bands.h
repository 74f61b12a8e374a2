// Rows split into bands, each run on a thread of its own: the CPU paths' one way of spreading a picture's or a
// plane's rows over a few threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace specview {

// Splits [0, rows) into bands (at least `min_rows` rows each) run on up to `threads` threads (0 or less: as many
// as the machine has), the calling one included: fn(first_row, end_row, band), band 0, 1, ... in row order (band
// p covers rows rows * p / parts to rows * (p + 1) / parts, so a band's per-thread sums add up the same way for
// the same thread count).
template <class F>
void parallel_bands(int rows, int threads, F&& fn, int min_rows = 64) {
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    const int parts = std::max(1, std::min(threads, rows / std::max(1, min_rows)));
    if (parts <= 1) {
        fn(0, rows, 0);
        return;
    }
    std::vector<std::thread> ts;
    for (int p = 1; p < parts; ++p)
        ts.emplace_back(
            [&, p] { fn(int(std::int64_t(rows) * p / parts), int(std::int64_t(rows) * (p + 1) / parts), p); });
    fn(0, int(std::int64_t(rows) / parts), 0);
    for (auto& t : ts) t.join();
}

}  // namespace specview
