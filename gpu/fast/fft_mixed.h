// custom-fast at any size (issue 13: 1920x1080, 3000x2000, 4032x3024 without padding): the same two passes as
// the power-of-two kernels, on lines of any length up to 16384. A line's plan (gpu/common/mixed_radix.h) is Stockham
// passes of radix 16, 8, 4, 2, 9, 7, 5 and 3, or Bluestein's chirp-z transform through a power-of-two length for
// a prime factor over 7. The first pass reads its butterflies' inputs straight from global memory and writes its
// outputs into shared memory, where the line then stays until it is stored: each later pass reads its
// butterflies' inputs into registers, transforms them there and writes them back in Stockham order, the whole
// block between two barriers. FastFft calls these where a side is not a power of two; the layouts are the
// power-of-two path's.
#pragma once

#include <cuda_runtime.h>

#include <map>

#include "gpu/runtime/resources.h"

namespace specview::gpu::fast_detail {
enum class ColOut : int;
struct ColParams;
}  // namespace specview::gpu::fast_detail

namespace specview::gpu::mixed {

// The longest line Bluestein's transform takes here: its power-of-two length m >= 2n - 1 must fit a block's
// shared memory (16384 points).
constexpr int kMaxBluesteinLength = 8192;

// Throws ConfigError, naming the line and its prime factor, for what the mixed kernels cannot run.
void check_length(int n);

// What the mixed kernels read besides the data, per line length, computed on the host in double on first use and
// kept: each work length's twiddles (mixed_radix::twiddle_table) and Bluestein's chirp spectra.
class LineTables {
public:
    // The twiddle table of a line whose passes run over `work` points (Bluestein's m, or n itself): of its
    // run-time plan, or (fixed) of its compiled-in plan (mixed_radix::fixed_plan).
    const float2* twiddles(int work, bool fixed = false);
    // A compiled-in length's twiddles as two small tables, mixed_radix::split_twiddle_table(n) (m24).
    const float2* split_twiddles(int n);
    // FFT_m of conj(chirp) / m for the forward (inverse = false) or the inverse transform of n points.
    const float2* spectrum(int n, bool inverse);

private:
    std::map<long long, DeviceBuffer<float2>> twiddles_;  // by 2 work + fixed
    std::map<int, DeviceBuffer<float2>> split_;           // by n
    std::map<int, DeviceBuffer<float2>> spectra_;         // by n: [0, m) forward, [m, 2m) inverse
};

// Where a pass's kernels go (FastFft decides): the stream, and whether as programmatic dependent launches
// (fast_detail::launch_kernel, PERF_NOTES.md m26). The kernels themselves are chosen by length: the users' lengths
// (mixed_radix::kFixedLengths) run their compiled-in plans (m9), the C2C's grouped column blocks of four lines
// interleave their lines' threads (m27), some users' lengths run with their registers capped for more blocks an SM
// (m28), and the C2C rows of a compiled-in length come in through bulk copies on sm_90 and up (m93).
struct Launch {
    cudaStream_t stream = nullptr;
    bool dependent = false;
};

// Columns of n points a column block takes when there are `ncols` of them and a block may have `max_threads`
// threads (up to 1024; a line takes mixed_radix::line_threads of them, or fixed_threads where its compiled-in plan
// runs; one line at least). rounds: the C2C's column blocks (c2c_cols with rounds), which take four lines of more
// than 256 threads in rounds (the R2C and picture column passes do not).
int columns_per_block(int n, int ncols, int max_threads, const LineTables& tables, bool rounds = false);
// Threads a line of n points takes in the mixed kernels (its compiled-in plan's where it has one).
int line_threads_for(int n, const LineTables& tables);
// Threads a block of four interleaved C2C columns of n points takes (mixed_radix::column_threads a line where the
// length's plan is compiled in; c2c_cols takes that kernel only where max_threads allows them).
int interleaved_block_threads(int n, const LineTables& tables);
// Row FFTs: `rows` rows of n points, row-major in `in`, to `out` (may equal `in` unless grouped). group > 0 (a
// divisor of n): `out` grouped for c2c_cols, the `group` columns a column block takes next to each other row
// after row ([x / group][row][x % group]). Returns whether the rows came in through bulk copies (m93).
bool c2c_rows(const float2* in, float2* out, int n, int rows, bool inverse, LineTables& tables, int target_threads,
              Launch at, int group = 0);
// Column FFTs: `ncols` columns of n points with row stride `ld`, from `in` to `out` (may equal `in`); group > 0:
// `in` as c2c_rows writes it with that group, which must be columns_per_block(n, ncols, max_threads, tables, rounds)
// (this block's columns; checked) and divide ncols. rounds: as columns_per_block's (the C2C's column pass; not R2C's
// in place, whose blocks would go from two an SM to one).
void c2c_cols(const float2* in, float2* out, int ld, int ncols, int n, bool inverse, LineTables& tables,
              int max_threads, Launch at, int group = 0, bool rounds = false);
// Real rows two at a time -> the half spectrum along x: `half` (ld = width/2 + 1) holds bins 0..width/2 of each row.
// group > 0 (a power of two): grouped for r2c_cols_transposed instead, bin k of row y at [k / group][y][k % group]
// (ceil(ld / group) * group * height elements).
void real_rows(const float* plane, float2* half, int width, int height, LineTables& tables, int target_threads,
               Launch at, int group = 0);
// R2C's column pass into the transposed layout: `ncols` columns of n points from `grouped` (real_rows with group =
// columns_per_block(n, ncols, max_threads, tables)) to `out`, column x as row x (n bins apart).
void r2c_cols_transposed(const float2* grouped, float2* out, int ncols, int n, LineTables& tables, int max_threads,
                         Launch at);
// The picture's pass A: real columns two at a time -> G[ky][x] for ky = 0..height/2 (row stride width).
// reset_minmax (null: none): the picture's min/max pair, reset here for the pass after (one launch fewer).
void real_cols(const float* plane, float2* g, int width, int height, LineTables& tables, int max_threads, Launch at,
               unsigned int* reset_minmax = nullptr);
// The picture's pass B: rows ky of G (p.ncols = height/2 + 1 of them) along x, into the view epilogue.
void rows_view(fast_detail::ColOut mode, const fast_detail::ColParams& p, LineTables& tables, int target_threads,
               Launch at);

}  // namespace specview::gpu::mixed
