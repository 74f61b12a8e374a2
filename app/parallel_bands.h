// Rows split into bands, each run on a thread of its own: the CPU paths' one way of spreading a picture's or a
// plane's rows over a few threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace specview {

// Splits [0, rows) into bands (at least 64 rows each) run on up to `threads` threads, the calling one included:
// fn(first_row, end_row, band).
template <class F>
void parallel_bands(int rows, int threads, F&& fn) {
    const int parts = std::max(1, std::min(threads, rows / 64));
    if (parts <= 1) {
        fn(0, rows, 0);
        return;
    }
    std::vector<std::thread> ts;
    for (int p = 1; p < parts; ++p)
        ts.emplace_back([&, p] { fn(int(std::int64_t(rows) * p / parts), int(std::int64_t(rows) * (p + 1) / parts), p); });
    fn(0, int(std::int64_t(rows) / parts), 0);
    for (auto& t : ts) t.join();
}

}  // namespace specview
