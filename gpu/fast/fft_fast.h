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
#include <utility>

#include "gpu/fast/fft_mixed.h"
#include "gpu/common/spectrum_math.h"
#include "gpu/picture/spectrum_view.h"
#include "gpu/runtime/resources.h"
#include "gpu/runtime/timing.h"

namespace specview::gpu {

constexpr int kFastMaxLength = 16384;
// The largest plane (points) whose C2C and R2C go out as dependent launches (Variant::dependent_launch). Above it the
// H100 measured them 0-3% slower with than without (4032x3024 C2C +3%, 4000x6000 R2C +2%: PERF_NOTES.md m26), where
// at 2-8 MP they were 0-6% faster; the picture gained at every size.
constexpr long long kDependentLaunchMaxPoints = 1LL << 23;
// The largest plane (points) whose C2C may run as one launch (Variant::one_launch).
constexpr double kOneLaunchMaxPoints = 1024.0 * 1024.0;
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
    // Layout variants the benchmark compares (PERF_NOTES.md): `grouped` (C2C) has the row pass write the columns
    // a column block takes next to each other, so its reads are contiguous; `bank_stride` spaces the column
    // buffers in shared memory so that a half-warp's accesses fall on distinct banks.
    // Grouping is used where a column block takes at least four columns (32-byte pieces): with one or two the
    // row pass's scattered stores cost more than the column pass gains (H100, v6). The mixed-radix kernels group
    // from two columns; the benchmark measures both there.
    // `split` (8192-point columns: C2C, R2C and the rows-first picture): the row pass does the columns' first
    // radix-2 stage, the column pass two 4096-point FFTs a column.
    // `rows_first` (the Auto/Top picture, powers of two, height up to 4096, or 8192 with `split`): real rows first
    // into the half spectrum (grouped for the columns where `grouped`), then the column FFTs with the view values,
    // then the colormap
    // (PERF_NOTES.md p3); otherwise real column pairs first and rows with the view. Rows first from
    // `rows_first_min_points` points up: below about 1024^2 it was 0.6-2 us slower than columns first on the H100.
    // `one_launch` (C2C, powers of two up to kOneLaunchMaxPoints): both passes in one cooperative launch with a
    // grid-wide barrier between them, where every block of it can be resident (small planes wait on launches, not
    // on the GPU: PERF_NOTES.md s3).
    struct Variant {
        bool grouped = true;
        bool bank_stride = true;
        bool split = true;
        bool one_launch = true;
        bool rows_first = true;
        long long rows_first_min_points = 1 << 20;
        // r2c through a scratch half spectrum grouped for the column blocks at every power-of-two height (the
        // split's way), rather than the columns in place.
        bool r2c_scratch = false;
        // The mixed-radix kernels with the plans compiled in for the users' lengths (mixed_radix::kFixedLengths),
        // rather than the run-time plan every other length runs.
        bool compiled_plans = true;
        // custom-fast's kernels as programmatic dependent launches (Hopper; fast_detail::launch_kernel, PERF_NOTES.md
        // m26): each one's blocks are made resident while the kernel before it in the stream finishes, and wait there
        // for its results, rather than starting after the launch gap. The picture takes them at every size, C2C and
        // R2C up to kDependentLaunchMaxPoints (dependent_launch). Off: the benchmark's before/after.
        bool dependent_launch = true;
        // The mixed-radix C2C's grouped column blocks of four lines at once with the lines' threads interleaved
        // (mixed::Launch::interleaved_columns, PERF_NOTES.md m27). Off: the benchmark's before/after.
        bool interleaved_columns = true;
        // The mixed-radix C2C's kernels of some users' lengths with their registers capped for more blocks an SM
        // (mixed::Launch::capped_registers, PERF_NOTES.md m28). Off: the benchmark's before/after.
        bool capped_registers = true;
        // The split column pass (8192-point columns as two halves, p.sub == 2) with a group's two halves in
        // neighbouring blocks, so that they run together, rather than every group's first half before any second
        // half (ColParams::halves_adjacent, PERF_NOTES.md m29). Off: the benchmark's before/after.
        bool split_halves_adjacent = true;
        // The transposed R2C's power-of-two column pass in blocks of half the columns the row pass grouped (of four
        // or more), each reading half of every row piece of its group (the neighbouring block the other half): at
        // 4096 points two blocks an SM instead of one of 1024 threads and 139 KiB, so that one block's loads overlap
        // the other's passes (PERF_NOTES.md m30). Only there: each column's bins are a whole row of that output. In
        // row-major outputs (C2C's, R2C's in cuFFT's layout) a block of two columns writes 16 bytes a row, half a
        // sector, and C2C took twice as long. Off: the benchmark's before/after.
        bool narrow_column_blocks = true;
        // Power-of-two C2C in place on `data` (its scratch untouched) where the plane fits in the device's L2 cache
        // (c2c_in_place): the row pass writes its rows back where they were (row-major, not grouped for the column
        // blocks) and the column pass reads them there. One plane's bytes between the passes instead of two: the
        // restore before a timed run, or the plane's preparation in the viewer, leaves it in L2, and VkFFT's C2C works
        // in place on one buffer the same way (PERF_NOTES.md m58: 2048^2 -14%). The mixed sizes keep the scratch
        // (their ungrouped columns lost more). Off: through the scratch, grouped.
        bool in_place_c2c = true;
        // The power-of-two C2C row blocks of several lines with each line's exchanges on a named barrier of its own
        // threads instead of the block's __syncthreads (rows_c2c_block, PERF_NOTES.md m72): a line whose loads have
        // landed goes on without waiting for the block's slowest line. Off: the benchmark's before/after.
        bool line_barriers = true;
        // The power-of-two 2048^2 C2C in place: its columns eight a block of 1024 threads (c2c_col_threads,
        // PERF_NOTES.md m75), the benchmark's best block there in every H100 run, rather than col_threads' four. Off:
        // the benchmark's before/after.
        bool wide_2048_columns = true;
        // R2C in cuFFT's layout at powers of two (heights 2 to 4096, not transposed) columns first: the columns of the
        // real plane read as an H x W/2 complex plane into a scratch, then the rows in pairs (ky, H - ky), each
        // unpacked into a whole output row of W/2 + 1 bins (r2c_columns_first, PERF_NOTES.md m78), rather than the
        // real rows first and the W/2 + 1 columns in place. Off: the benchmark's before/after. From
        // r2c_columns_first_min_points points up: on the H200 it was 14-16% faster at 1024^2 and 4096^2, 3-6% at 2048^2,
        // and 19-21% slower at 512^2 (its two passes there have 128 blocks each, half-sector column pieces).
        bool r2c_columns_first = true;
        long long r2c_columns_first_min_points = 1 << 20;
        // m82: the same at 8192-point columns (widths up to 8192), split: the column pass takes the even and the odd
        // rows as two 4096-point FFTs a column and the row pass does their last radix-2 stage (four lines a group),
        // rather than rows first with the split (s4). Off: the benchmark's before/after.
        bool split_r2c_columns_first = true;
        // m80: the power-of-two C2C in place up to kOneLaunchMaxPoints, where width != height, in cuFFT's order and
        // shapes (its 1024^2 kernels, PERF_NOTES.md "What cuFFT runs"): the columns first, eight a block of 512
        // threads, then the rows, one a block of n/16 threads, in two launches (the second a dependent launch),
        // instead of the one cooperative launch, rows first. The one launch has its length compiled in only for
        // squares; elsewhere it was 24-42% slower than this on the H200 (1024x512: 0.0195 -> 0.0120 ms). At squares
        // the one launch stays (1024^2 level, 512^2 0-10% and 256^2 65-94% faster than this). Off: the benchmark's
        // before/after (the one launch).
        bool c2c_columns_first = true;
        // m83: the split C2C's row pass at 8192-point rows (8192^2) with each line a block of its own, the columns'
        // first radix-2 stage done on the two rows as loaded, before the row FFT (each pair's rows read by two
        // neighbouring blocks), rather than rows y and y + H/2 paired in a block of 1024 threads and 132 KiB, one
        // block an SM. Off: the benchmark's before/after.
        bool split_rows_alone = true;
        // m89: with split_rows_alone, row y of each pair comes into shared memory through bulk copies (the tensor memory
        // accelerator, sm_90 and up) while the threads load row y + H/2, rather than every point through a thread's
        // 8-byte load. Off: the benchmark's before/after.
        bool tma_split_rows = true;
        // m97: m86's bulk copies also for the grouped columns of 2048 points (the C2C at 4096 x 2048 and wider, not in
        // place; H200 -3 to -4%). Off: the benchmark's before/after.
        bool tma_grouped_2048 = true;
        // m96: the columns-first R2C's unpacking (cuFFT's layout) takes W_2n^k for a thread's bins as one sincospif
        // times constant steps, rather than a sincospif a bin (H200: R2C 2048^2-4096^2 -5 to -7%, 8192^2 -1 to -3%).
        // Off: the benchmark's before/after.
        bool r2c_unpack_steps = true;
        // m92: the real rows' pass (the transposed R2C's, the picture's, the rows-first R2C's) at rows of 4096 points
        // or more takes its rows through bulk copies, no thread's loads, where its blocks are whole (4096^2 transposed
        // R2C -10%, picture -6%; at 2048 points +3-6%, so not there). Off: the benchmark's before/after.
        bool tma_real_rows = true;
        // m93: the mixed-radix C2C's row pass at a compiled-in length (the users' exact sizes: 1920, 3000, 4032
        // points, ...) takes its rows through bulk copies into the line buffers, no thread's loads (mixed::Launch::
        // bulk_rows). Off: the benchmark's before/after.
        bool tma_mixed_rows = true;
        // m95: the 2048^2 C2C's in-place column pass (2048-point columns, eight a block) loads its columns through
        // the tensor memory accelerator (fast_cols_tma_kernel, as m85's) rather than each thread's loads. Off: the
        // benchmark's before/after.
        bool tma_inplace_columns = true;
        // m84: the columns-first R2C's split row pass (m82) at rows of 2048 and 4096 points with two lines a block (a
        // pair of mirror rows, each formed from the scratch with the last column stage as loaded), rather than groups
        // of four lines (E and O of two rows) in 1024 threads and 132 KiB. Off: the benchmark's before/after.
        bool split_r2c_rows_alone = true;
        // m85: the columns-first R2C's first pass (the real plane's columns, at 4096 points: 4096^2, and 8192^2 as
        // its even and odd rows) loads each block's columns with tensor-memory-accelerator copies into shared memory
        // (fast_cols_tma_kernel) rather than with each thread's 8-byte loads, which stalled its warps on lg_throttle:
        // on the H200 R2C 8192^2 -10%, 4096^2 -4%. Off: the benchmark's before/after.
        bool tma_plane_columns = true;
        // m86: the C2C's column pass over the grouped scratch at 4096-point columns (4096^2 and the like, and the
        // 8192-point columns' halves) loads each block's contiguous run with bulk copies into shared memory
        // (fast_cols_tma_kernel) rather than each thread's 8-byte loads. Off: the benchmark's before/after.
        bool tma_grouped_columns = true;
        // m102: the C2C's column blocks (the column pass run_cols launches and the one-launch C2C's column phase) give a
        // thread the first pass's neighbouring butterflies where that pass's radix is below 16 (512, 1024, 2048, 8192
        // points) and C > 1 columns share a block: its stores to shared memory then free of bank conflicts (ncu at
        // 1024^2, four columns a block: 4-way, 8 wavefronts a store for 2). The same bytes. H200: C2C 1024^2 -5%,
        // 4096 x 512 -1.5 to -2%, 512^2 within its spread. Only where the column blocks' input is not grouped (c2c
        // checks): over the grouped scratch it cost +4% (8192 x 1024, 16384 x 1024). Off: the benchmark's before/after.
        bool blocked_first_pass = true;
        // m104: the C2C's TMA column kernel (fast_cols_tma_kernel: 2048^2 in place, m95; the grouped 2048-point columns,
        // m97) with m102's first-pass order, its butterflies' order within a thread swizzled by the Gray code of t so
        // that the reads of the staged rows keep free of bank conflicts as the first-pass stores become so. The same
        // bytes. Off: the benchmark's before/after.
        bool blocked_first_tma = true;
    };
    const Variant& variant() const { return variant_; }
    void set_variant(Variant v) {
        variant_ = v;
        tables_.set_compiled_plans(v.compiled_plans);
        one_launch_.valid = false;
        cached_.valid = false;  // a picture's cached range and first pass came from the other variant's path
        pass1_ = {};
    }
    // The blocks of the one-launch C2C of width x height, or 0 where c2c() launches twice (too large, not powers of
    // two, no cooperative launch on this device, not all blocks resident, columns first (c2c_columns_first), or the
    // variant says no).
    int one_launch_blocks(int width, int height, bool inverse = false) const;
    // Whether c2c() of width x height transforms `data` in place, leaving its scratch alone (Variant::in_place_c2c):
    // both sides powers of two, the plane (8 bytes a point) at most the device's L2 cache, and not the split
    // 8192-point columns. The one-launch C2C (up to 1024^2) runs in place too.
    bool c2c_in_place(int width, int height) const;
    // Whether r2c() goes columns first (Variant::r2c_columns_first): powers of two of at least
    // r2c_columns_first_min_points points, not transposed, heights 2 to 4096, or 8192 split
    // (Variant::split_r2c_columns_first, m82) at widths up to 8192, and a plane that can be read as float2.
    bool r2c_columns_first(const float* plane, int width, int height, bool transposed) const;
    // Whether c2c() runs columns first in two launches (Variant::c2c_columns_first): in place, powers of two up to
    // kOneLaunchMaxPoints points, width != height (one_launch_blocks is then 0).
    bool c2c_columns_first(int width, int height) const;

private:
    // group_log2 >= 0: the half spectrum grouped for the column blocks (2^group_log2 bins of a row together, the last
    // group padded): the picture's rows-first column pass, the split and r2c's transposed output at any size.
    // half_rows > 0 (= height / 2, powers of two): rows y and y + height/2 paired, with the columns' first radix-2
    // stage (the split).
    void rows_real(const float* plane, int width, int height, cudaStream_t stream, StageTimer* timer,
                   float2* out = nullptr, int group_log2 = -1, unsigned int* reset_minmax = nullptr, int half_rows = 0);
    // The split applies: 8192-point power-of-two columns and the variant says so.
    bool split_columns(int width, int height) const {
        return variant_.split && height == 8192 && (width & (width - 1)) == 0;
    }
    // Whether c2c() splits the 8192-point power-of-two columns (the row pass takes their first radix-2 stage): the
    // variant says so and a row's threads fit the row block with the paired rows. One rule for c2c() and
    // c2c_in_place(), which never runs the split in place.
    bool split_c2c(int width, int height) const;
    // Whether a column pass of `sub` FFTs a column runs a group's halves as neighbouring blocks (ColParams).
    bool halves_adjacent(int sub) const { return sub == 2 && variant_.split_halves_adjacent; }
    // The columns a transposed R2C's power-of-two column block takes, of C grouped by the row pass (2^group_log2 =
    // C; -1: not grouped): C, or C / 2 where Variant::narrow_column_blocks says so.
    int narrow_columns(int C, int group_log2) const;
    int col_threads(int n) const { return cols_threads_ > 0 ? cols_threads_ : std::clamp(n / 4, 256, 1024); }
    // The power-of-two C2C's column blocks of `n`-point columns in a plane `width` wide (its column pass and the
    // one-launch shape, which must agree): col_threads, but eight columns (1024 threads) at 2048² in place where
    // Variant::wide_2048_columns says so (m75: there 4.5-5% faster; through the grouped scratch, 4096 x 2048, 5% slower).
    int c2c_col_threads(int width, int n, bool in_place) const {
        return cols_threads_ == 0 && n == 2048 && width == 2048 && in_place && variant_.wide_2048_columns
                   ? 1024
                   : col_threads(n);
    }
    // The mixed kernels' column blocks: up to this many threads (cols_threads_, else kMixedColThreads).
    int mixed_col_threads() const { return cols_threads_ > 0 ? cols_threads_ : kMixedColThreads; }
    // The mixed-radix passes' block sizes (C2C through mixed_c2c_threads, R2C, its transposed form, the picture): rows
    // 128 threads unless set; columns of n points 512 where a line takes at most 128 threads (four lines a block, not
    // eight), else 1024 (four lines of up to 256 threads at once), unless set (m25c, m27).
    int mixed_row_threads() const { return threads_set_ ? rows_threads_ : 128; }
    int mixed_col_threads(int n) const;
    // Whether a transform of width x height goes out as dependent launches (Variant::dependent_launch): the picture
    // at any size whose sides need no Bluestein transform, C2C and R2C up to kDependentLaunchMaxPoints. Set by each
    // public pass into dependent_, which its launches read.
    bool dependent_launch(int width, int height, bool picture) const;
    bool dependent_ = true;
    // The mixed passes' launches on stream s: dependent_ and the Variant's kernel choices.
    mixed::Launch mixed_launch(cudaStream_t s) const {
        return {s, dependent_, variant_.interleaved_columns, variant_.capped_registers, variant_.tma_mixed_rows};
    }
    // The device's L2 cache in bytes (read once).
    long long l2_bytes() const;
    mutable long long l2_bytes_ = -1;
    bool use_grouped(int C) const { return variant_.grouped && C >= 4 && (C & (C - 1)) == 0; }
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
    Variant variant_{};         // the best C2C on the H200 from 2048^2 up (PERF_NOTES.md)
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
        bool bank_stride = false;
        bool operator==(const OneLaunchKey& o) const {
            return width == o.width && height == o.height && inverse == o.inverse && rows_threads == o.rows_threads &&
                   cols_threads == o.cols_threads && bank_stride == o.bank_stride;
        }
    };
    mutable struct {
        OneLaunchKey key;
        int blocks = 0;
        bool valid = false;
    } one_launch_;
};

}  // namespace specview::gpu
