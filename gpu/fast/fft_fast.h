// custom-fast: a two-pass 2D FFT built to win, beside the four-kernel seed pipeline (which stays the
// baseline and what classroom mode shows). Pass 1 transforms rows, pass 2 columns; each is a Stockham
// autosort FFT with radix-16 butterflies in registers and shared memory only between radix passes, so there is
// no transpose pass and no bit reversal. For a real image one pass packs two real lines into one complex FFT
// and keeps the half spectrum (Hermitian symmetry), so the other pass runs on half the lines. The Auto/Top
// picture (powers of two from 1024^2 points, height up to 8192: 8192-point columns split) goes rows first: real
// rows into the half spectrum, grouped for the column blocks, then the column FFTs with each bin's view value and
// the min/max in their epilogue, then a colormap kernel that writes each value and its mirror (PERF_NOTES.md p3,
// s4). Otherwise it goes columns first (pairs
// of neighbouring columns: one 8-byte load per row), then rows, whose epilogue writes the view values (and the
// min/max) or, with a known range, the picture itself. The range: fixed needs nothing; auto/top fold the min/max
// in the second pass, or reuse the range of an identical earlier run (exact: same plane, same view, same mask);
// percentile writes the view values and sorts them. The kernels are compiled for each line length 2^9..2^13.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <string>
#include <utility>

#include "gpu/fast/fft_mixed.h"
#include "gpu/common/spectrum_math.h"
#include "gpu/picture/spectrum_view.h"
#include "gpu/runtime/resources.h"
#include "gpu/runtime/timing.h"

namespace specview::gpu {

constexpr int kFastMaxLength = 16384;
// The largest plane (points) whose C2C and R2C go out as programmatic dependent launches (Hopper; m26: each kernel's
// blocks made resident while the one before it finishes, rather than after the launch gap). Above it the
// H100 measured them 0-3% slower with than without (4032x3024 C2C +3%, 4000x6000 R2C +2%: PERF_NOTES.md m26), where
// at 2-8 MP they were 0-6% faster; the picture gained at every size.
constexpr long long kDependentLaunchMaxPoints = 1LL << 23;
// The largest plane (points) whose C2C may run as one launch (one_launch_blocks).
constexpr double kOneLaunchMaxPoints = 1024.0 * 1024.0;
// The smallest plane (points) whose Auto/Top picture goes rows first (below it columns first was 0.6-2 us faster on the
// H100, PERF_NOTES.md p3).
constexpr long long kRowsFirstMinPoints = 1LL << 20;
// The smallest plane (points) whose R2C goes columns first (m78, on the H200: 14-16% faster at 1024^2 and 4096^2, 3-6%
// at 2048^2, and 19-21% slower at 512^2, where its two passes have 128 blocks each and half-sector column pieces).
constexpr long long kR2cColumnsFirstMinPoints = 1LL << 20;
// Threads a mixed-radix column block may have unless set_block_threads says otherwise (PERF_NOTES.md, m3).
constexpr int kMixedColThreads = 1024;

class FastFft {
public:
    FastFft();
    // Complex 2D FFT of width x height (1..16384 a side) in place on `data`, using `scratch` (same size; unused, and
    // may be null, where c2c_in_place says so). Two kernels; the result is in natural order in `data`. Sides that are
    // not powers of two go through the mixed-radix kernels (gpu/fast/fft_mixed.h); a side over 8192 points with a prime
    // factor over 7 is refused.
    void c2c(float2* data, float2* scratch, int width, int height, bool inverse, cudaStream_t stream,
             StageTimer* timer);
    // Complex 3D FFT of a depth x height x width volume (x fastest) in place, unnormalised, natural order: three
    // passes, each one read and one write of the volume - the rows along x, each slab's columns along y (a batch of
    // slabs), the columns of the depth x (width height) matrix along z. Powers of two from 2 to 4096 a side
    // (c2c_3d_supported); throws ConfigError otherwise.
    void c2c_3d(float2* data, int width, int height, int depth, bool inverse, cudaStream_t stream, StageTimer* timer);
    static bool c2c_3d_supported(int width, int height, int depth);
    // Real 3D FFT in place in FFTW's r2c layout: `data` holds depth x height rows of 2 (width/2 + 1) floats, the
    // first width of each the volume; afterwards depth x height rows of width/2 + 1 bins (X[z][y][k], k = 0..width/2),
    // unnormalised - what fftwf_plan_dft_r2c_3d in place and cuFFT's R2C leave. The same three passes as c2c_3d, the
    // first on pairs of real rows (one complex FFT for two), the others over the width/2 + 1 columns. The sizes of
    // c2c_3d_supported; throws ConfigError otherwise.
    void r2c_3d(float* data, int width, int height, int depth, cudaStream_t stream, StageTimer* timer);

    struct PictureResult {
        bool range_reused = false;  // the range came from an identical earlier run (no range pass)
    };
    // Real plane on the device -> picture (RGBA8 or levels, see PictureTarget). `plane_version` identifies the plane's
    // contents for the range cache (0: never reuse). The range ends in range() afterwards.
    // `reuse_pass1`: the first pass's half spectrum from the last picture of this plane is still in place (the caller
    // knows: same plane, nothing else ran here since), so only the second pass runs. `mask` (width x height,
    // null: none) multiplies the spectrum before the view; `mask_version` identifies it for the range cache.
    PictureResult picture(const float* plane, int width, int height, std::uint64_t plane_version, const ViewParams& vp,
                          const PictureTarget& target, cudaStream_t stream, StageTimer* timer, bool reuse_pass1 = false,
                          const float* mask = nullptr, std::uint64_t mask_version = 0);
    // Half spectrum of a real plane in cuFFT's R2C layout: `half` holds height rows of width/2 + 1 bins
    // (X[v][u] for u = 0..width/2, natural order), unnormalised. Pass 1 packs two real rows into one complex
    // FFT and keeps the half of each; pass 2 transforms its width/2 + 1 columns (in place, or from a grouped
    // scratch: the split, r2c_scratch).
    // transposed: its transpose instead, width/2 + 1 rows of height bins (X[v][u] at u * height + v), which the
    // column pass writes as whole rows (cuFFT's rows of width/2 + 1 bins leave its stores straddling 32-byte
    // sectors); at any size (the mixed kernels' columns read a grouped scratch and write their last pass straight out).
    void r2c(const float* plane, int width, int height, float2* half, cudaStream_t stream, StageTimer* timer,
             bool transposed = false);
    // Full complex spectrum (natural order) of a real plane, through the same two passes.
    // `work` (height x (width/2 + 1) complex; null: the picture's first-pass buffer, which then no longer holds
    // the picture's pass) holds the half spectrum on the way.
    void real_spectrum(const float* plane, int width, int height, float2* full, cudaStream_t stream, StageTimer* timer,
                       float2* work = nullptr);
    void range(float* lo, float* hi, cudaStream_t stream);
    // Threads per block the row-wise and the column-wise kernels aim for (a line of n points takes n/16
    // threads; lines share a block up to this): 256, 512 or 1024. The benchmark sweeps them.
    // cols = 0: chosen per column length (enough for four columns a block, 256..1024; PERF_NOTES.md v6).
    // Until set (or after reset_block_threads), the mixed-radix passes choose their own (mixed_c2c_threads,
    // mixed_row_threads, mixed_col_threads(n); PERF_NOTES.md m25).
    void set_block_threads(int rows, int cols) {
        rows_threads_ = rows;
        cols_threads_ = cols;
        threads_set_ = true;
    }
    void reset_block_threads() {
        rows_threads_ = 256;
        cols_threads_ = 0;
        threads_set_ = false;
    }
    // The mixed-radix C2C's block sizes for columns of `height` points (rows' target threads, columns' most
    // threads): those set, or by default 128 for the rows, and for the columns mixed_col_threads(height): 512 where a
    // column's line takes at most 128 threads, else 1024 (four lines of up to 256 threads at once, their threads
    // interleaved; longer lines in rounds). m25's sweep (PERF_NOTES.md) had put the columns of 129-255 threads a line
    // at 512 (two lines at once, in rounds); with m27's interleaved blocks four at once are 2-5% faster there
    // (4032x3024, 4000x3000) or level (3840x2160).
    std::pair<int, int> mixed_c2c_threads(int height) const;
    // How custom-fast chooses its path (one rule each, measured on the H100/H200; PERF_NOTES.md has the design):
    // - The C2C's row pass writes the columns a column block takes next to each other (grouped) where a block takes
    //   at least four columns, 32-byte pieces (with one or two the row pass's scattered stores cost more than the
    //   column pass gains, v6); the mixed-radix kernels group from two columns (m3). The column blocks' buffers in
    //   shared memory are spaced so that a half-warp's accesses fall on distinct banks (column_stride).
    // - 8192-point power-of-two columns are split (C2C, R2C, the rows-first picture): the row pass does their first
    //   radix-2 stage, the column pass two 4096-point FFTs a column (s4).
    // - The Auto/Top picture goes rows first (powers of two from kRowsFirstMinPoints, height up to 4096 or 8192 split,
    //   p3); below that size columns first was 0.6-2 us faster on the H100.
    // - C2C in place where the plane fits the device's L2 (c2c_in_place, m58); as one cooperative launch at squares up
    //   to kOneLaunchMaxPoints (s3); columns first in two launches elsewhere up to that size (c2c_columns_first, m80).
    // - R2C columns first from kR2cColumnsFirstMinPoints (r2c_columns_first, m78, m82).
    // - Where the device has the tensor memory accelerator (sm_90 and up), the passes that measured faster with bulk
    //   copies take their loads that way (m85, m86, m89, m92, m93, m95, m97); elsewhere each thread's loads.
    // The block sizes (set_block_threads) are the only knobs; the benchmark sweeps them.

    // The blocks of the one-launch C2C of width x height, or 0 where c2c() launches twice (too large, not powers of
    // two, no cooperative launch on this device, not all blocks resident, or columns first: c2c_columns_first).
    int one_launch_blocks(int width, int height, bool inverse = false) const;
    // Whether c2c() of width x height transforms `data` in place, leaving its scratch alone :
    // both sides powers of two, the plane (8 bytes a point) at most the device's L2 cache, and not the split
    // 8192-point columns. The one-launch C2C (up to 1024^2) runs in place too.
    bool c2c_in_place(int width, int height) const;
    // Whether r2c() goes columns first (m78): powers of two of at least kR2cColumnsFirstMinPoints points, not
    // transposed, heights 2 to 4096, or 8192 split (m82) at widths up to 8192, and a plane that can be read as float2.
    bool r2c_columns_first(const float* plane, int width, int height, bool transposed) const;
    // Whether c2c() runs columns first in two launches (m80, cuFFT's order and shapes): in place, powers of two up to
    // kOneLaunchMaxPoints points, width != height (one_launch_blocks is then 0). The one launch has its length compiled
    // in only for squares; elsewhere it was 24-42% slower than this on the H200 (1024x512: 0.0195 -> 0.0120 ms).
    bool c2c_columns_first(int width, int height) const;

private:
    // c2c_3d's and r2c_3d's passes 2 and 3 in place over depth x height rows of ld points (ld = width for C2C, the
    // half spectrum's width / 2 + 1 for R2C): each slab's columns along y, then the columns along z.
    void columns_3d(float2* data, int ld, int width, int height, int depth, bool inverse, cudaStream_t stream,
                    StageTimer* timer, const std::string& what);
    // group_log2 >= 0: the half spectrum grouped for the column blocks (2^group_log2 bins of a row together, the last
    // group padded): the picture's rows-first column pass, the split and r2c's transposed output at any size.
    // half_rows > 0 (= height / 2, powers of two): rows y and y + height/2 paired, with the columns' first radix-2
    // stage (the split). padded: the real rows in FFTW's in-place r2c layout (width + 2 floats apart; powers of two,
    // neither grouped nor split: r2c_3d's first pass), `height` beyond a plane's limit.
    void rows_real(const float* plane, int width, int height, cudaStream_t stream, StageTimer* timer,
                   float2* out = nullptr, int group_log2 = -1, unsigned int* reset_minmax = nullptr, int half_rows = 0,
                   bool padded = false);
    // The split applies: 8192-point power-of-two columns.
    bool split_columns(int width, int height) const { return height == 8192 && (width & (width - 1)) == 0; }
    // Whether c2c() splits the 8192-point power-of-two columns (the row pass takes their first radix-2 stage):  a
    // row's threads fit the row block with the paired rows. One rule for c2c() and
    // c2c_in_place(), which never runs the split in place.
    bool split_c2c(int width, int height) const;
    // Whether a column pass of `sub` FFTs a column runs a group's halves as neighbouring blocks (ColParams), so that
    // they run together rather than every group's first half before any second half (m29).
    static bool halves_adjacent(int sub) { return sub == 2; }
    // The columns a transposed R2C's power-of-two column block takes, of C grouped by the row pass (2^group_log2 =
    // C; -1: not grouped): C / 2 of four or more (m30: at 4096 points two blocks an SM instead of one of 1024 threads
    // and 139 KiB, one block's loads overlapping the other's passes), else C.
    static int narrow_columns(int C, int group_log2) { return group_log2 >= 0 && C >= 4 ? C / 2 : C; }
    int col_threads(int n) const { return cols_threads_ > 0 ? cols_threads_ : std::clamp(n / 4, 256, 1024); }
    // The power-of-two C2C's column blocks of `n`-point columns in a plane `width` wide (its column pass and the
    // one-launch shape, which must agree): col_threads, but eight columns (1024 threads) at 2048² in place (m75:
    // there 4.5-5% faster; through the grouped scratch, 4096 x 2048, 5% slower).
    int c2c_col_threads(int width, int n, bool in_place) const {
        return cols_threads_ == 0 && n == 2048 && width == 2048 && in_place ? 1024 : col_threads(n);
    }
    // The mixed kernels' column blocks: up to this many threads (cols_threads_, else kMixedColThreads).
    int mixed_col_threads() const { return cols_threads_ > 0 ? cols_threads_ : kMixedColThreads; }
    // The mixed-radix passes' block sizes (C2C through mixed_c2c_threads, R2C, its transposed form, the picture): rows
    // 128 threads unless set; columns of n points 512 where a line takes at most 128 threads (four lines a block, not
    // eight), else 1024 (four lines of up to 256 threads at once), unless set (m25c, m27).
    int mixed_row_threads() const { return threads_set_ ? rows_threads_ : 128; }
    int mixed_col_threads(int n) const;
    // Whether a transform of width x height goes out as dependent launches (m26): the picture
    // at any size whose sides need no Bluestein transform, C2C and R2C up to kDependentLaunchMaxPoints. Set by each
    // public pass into dependent_, which its launches read.
    bool dependent_launch(int width, int height, bool picture) const;
    bool dependent_ = true;
    // The mixed passes' launches on stream s.
    mixed::Launch mixed_launch(cudaStream_t s) const { return {s, dependent_}; }
    // The device's L2 cache in bytes (read once).
    long long l2_bytes() const;
    mutable long long l2_bytes_ = -1;
    static bool use_grouped(int C) { return C >= 4 && (C & (C - 1)) == 0; }
    // r2c()'s scratch beside its output `half`, of at least `count` elements: split_ where `half` is half_ itself, else
    // half_ (which then no longer holds a picture's first pass).
    float2* r2c_scratch(const float2* half, std::size_t count);
    DeviceBuffer<float2> half_;   // pass 1 output (a half spectrum, along x or along y)
    DeviceBuffer<float2> split_;  // r2c's split rows where the caller's output is half_ itself
    DeviceBuffer<float> values_, sorted_;
    DeviceBuffer<unsigned char> temp_;
    DeviceBuffer<unsigned int> minmax_;  // order-preserving encodings of min and max
    DeviceBuffer<float2> range_;
    DeviceBuffer<std::uint32_t> lut_;
    PinnedBuffer<float2> range_host_;
    int lut_colormap_ = -1;
    int rows_threads_ = 256, cols_threads_ = 0;
    bool threads_set_ = false;
    mixed::LineTables tables_;  // the mixed kernels' twiddles and Bluestein's chirp spectra, per line length
    // The range cache: the plane and the view settings that determine the range.
    struct RangeKey {
        std::uint64_t plane_version = 0;
        int width = 0, height = 0;
        View view{};
        RangeMode mode{};
        float top_span = 0;
        bool valid = false;
        std::uint64_t mask_version = 0;  // the lab's mask the range was taken with (0: none)
    } cached_;
    void picture_rows_first(const float* plane, int width, int height, const ViewParams& vp,
                            const PictureTarget& target, cudaStream_t stream, StageTimer* timer, bool reuse_pass1,
                            const float* mask, std::uint64_t mask_version, std::uint64_t plane_version,
                            bool fold_range);
    // What half_ holds from the last picture's first pass: kind 1 pass A's column pairs, 2 the rows-first half
    // spectrum, 3 that with the split's first column stage (g: its grouping, -1 none); 0 nothing (or something
    // else since).
    struct Pass1 {
        int kind = 0, width = 0, height = 0, g = 0;
        bool operator==(const Pass1& o) const {
            return kind == o.kind && width == o.width && height == o.height && g == o.g;
        }
    } pass1_;
    // one_launch_blocks' last answer.
    struct OneLaunchKey {
        int width = 0, height = 0;
        bool inverse = false;
        int rows_threads = 0, cols_threads = 0;
        bool operator==(const OneLaunchKey& o) const {
            return width == o.width && height == o.height && inverse == o.inverse && rows_threads == o.rows_threads &&
                   cols_threads == o.cols_threads;
        }
    };
    mutable struct {
        OneLaunchKey key;
        int blocks = 0;
        bool valid = false;
    } one_launch_;
};

}  // namespace specview::gpu
