// Index of this file (grep "[SECTION]"):
// - One line in shared memory and registers: the passes of radix 16, 8, 4, 2, 7, 5, 3 (15, 10)
// - Register caps: the lengths whose kernels fit more blocks an SM
// - Rows: a block takes `lines` neighbouring rows (contiguous in memory)
// - Columns: a block takes C neighbouring columns; a row's C elements are read and written together
// - Host side: line shapes and tables, block sizes, the kernels by length, the passes' launches
#include "gpu/fast/fft_mixed.h"

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpu/runtime/cuda_check.h"
#include "gpu/common/errors.h"
#include "gpu/fast/fft_fast_detail.h"
#include "gpu/common/mixed_radix.h"

namespace specview::gpu::mixed {
namespace {

using fast_detail::ColOut;
using fast_detail::ColParams;
using mixed_radix::c_make;
using mixed_radix::padded_len;
using mixed_radix::padi;
using mixed_radix::unpack_pair;
using mixed_radix::with_radix;

// The shared memory a block aims for: two blocks an SM (2 x 112 KiB of the H100's 227 KiB). At 100 KiB, the
// 3024-point columns of a 4032x3024 image went two to a block (16-byte pieces of each row, half a sector); at 112
// KiB four (32 bytes, a whole sector).
constexpr int kSmemTarget = 112 * 1024;
constexpr int kMaxColumnsPerBlock = 16;

// A kernel's line: passed by value, the same for every line of a launch.
struct Line {
    int n = 0;       // points
    int work = 0;    // points transformed in shared memory: n, or Bluestein's power-of-two m
    int tpc = 0;     // threads a line (at least work / 16: no thread has more than 16 / R butterflies a pass)
    int stride = 0;  // float2 between neighbouring lines' buffers in shared memory
    int passes = 0;
    unsigned long long radices = 0;          // the work length's radices, R - 1 in 4 bits each, first pass lowest
    const float2* chirp_spectrum = nullptr;  // Bluestein: FFT_m(conj chirp) / m for the launch's direction
    const float2* twiddles = nullptr;        // the work length's twiddle table (LineTables::twiddles)
};

// [SECTION] One line in shared memory and registers: the passes of radix 16, 8, 4, 2, 7, 5, 3 (15, 10)
// One Stockham pass of radix R over the line in shared memory (mixed_radix::pass_gather / pass_scatter).
// Every thread of the block calls it (it has the block's barriers); those of no line pass active = false.
// kPadIn / kPadOut: the line's layout before and after (padded unless a compiled-in plan says otherwise,
// FixedLine::kPadOut); kKnown: n and ns are constants.
template <int R, bool kInv, int kB = (16 + R - 1) / R, bool kPadIn = true, bool kPadOut = true, bool kKnown = false,
          int kSplitN = 0>
__device__ __forceinline__ void pass(float2* sm, const float2* tw, int n, int ns, int t, int tpc, bool active) {
    mixed_radix::PassRegs<R, kB> g =
        {};  // zeroed: else its registers stay live across every pass of the loop (spilled)
    if (active) mixed_radix::pass_gather<R, kInv, kB, kPadIn, kKnown, kSplitN>(sm, g, tw, n, ns, t, tpc);
    __syncthreads();
    if (active) mixed_radix::pass_scatter<R, kB, kPadOut, kKnown>(sm, g, n, ns, t, tpc);
    __syncthreads();
}

// The first pass read straight from where the line lies (`at(i)`, global memory): no copy into shared memory
// before it, and no barrier between its halves, as nothing reads the shared line before the scatter writes it.
template <int R, bool kInv, int kB = (16 + R - 1) / R, bool kPadOut = true, bool kKnown = false, class At>
__device__ __forceinline__ void first_pass(const At& at, float2* sm, const float2* tw, int n, int t, int tpc,
                                           bool active) {
    if (active) {
        mixed_radix::PassRegs<R, kB> g = {};
        mixed_radix::pass_gather_from<R, kInv, 0, kKnown>(at, g, tw, n, 1, t, tpc);  // kKnown: loads first (m52)
        mixed_radix::pass_scatter<R, kB, kPadOut, kKnown>(sm, g, n, 1, t, tpc);
    }
    __syncthreads();
}

// Passes `from`..passes-1 (ns starting at the product of the earlier radices) over the line in shared memory.
template <bool kInv>
__device__ __forceinline__ void run_passes(float2* sm, const float2* tw, int n, int passes, unsigned long long radices,
                                           int t, int tpc, bool active, int from = 0) {
    int ns = 1;
    for (int p = 0; p < from; ++p) ns *= int((radices >> (4 * p)) & 15u) + 1;
    for (int p = from; p < passes; ++p) {
        const int R = int((radices >> (4 * p)) & 15u) + 1;
        with_radix(R, [&](auto r) { pass<decltype(r)::value, kInv>(sm, tw, n, ns, t, tpc, active); });
        ns *= R;
    }
}

// Passes P..kEnd-1 of a compiled-in length's plan (mixed_radix::FixedLine): each pass's radix, Ns, the line's
// length and its threads are constants, so the butterflies' indices, the j mod Ns and the loop bounds fold, and
// each pass's output takes its own layout (FixedLine::kPadOut; P >= 1).
// kSplit: the twiddles from the split tables in shared memory (m24: mixed_radix::split_twiddle_table, staged by
// with_staged_twiddles; the row kernels), else the whole table.
// kTpc: the line's threads (mixed_radix::FixedLine; 0: fixed_threads).
template <int kWork, int P, int kEnd, bool kInv, bool kSplit = false, int kTpc = 0>
__device__ __forceinline__ void fixed_passes(float2* sm, const float2* tw, int t, bool active) {
    if constexpr (P < kEnd) {
        using F = mixed_radix::FixedLine<kWork, kTpc>;
        pass<F::template kRadix<P>, kInv, F::template kButterflies<P>, F::template kPadOut<P - 1>,
             F::template kPadOut<P>, true, kSplit ? kWork : 0>(sm, tw, kWork, F::template kNs<P>, t, F::tpc, active);
        fixed_passes<kWork, P + 1, kEnd, kInv, kSplit, kTpc>(sm, tw, t, active);
    }
}

// The last pass (ns = n / R) gathered from shared memory and written straight where the line goes (`put`): no
// store loop after it, and one barrier fewer. With one pass only, it reads from `at` too and needs no barrier.
// m48: no barrier between its gather and its scatter either: nothing writes the line's buffer after the gather (a
// block's other lines, and the rounds of mixed_cols_kernel, have buffers of their own), so a warp may store as soon
// as it has gathered. Since m8 a barrier there "kept the block in step"; it was never measured.
template <int R, bool kInv, int kB = (16 + R - 1) / R, bool kPadIn = true, bool kKnown = false, int kSplitN = 0,
          class At, class Put>
__device__ __forceinline__ void last_pass(const At& at, const Put& put, const float2* sm, const float2* tw, int n,
                                          int t, int tpc, bool active, bool only) {
    mixed_radix::PassRegs<R, kB> g = {};
    if (only) {
        if (active) {
            mixed_radix::pass_gather_from<R, kInv>(at, g, tw, n, 1, t, tpc);
            mixed_radix::pass_scatter_last<R>(put, g, n, t, tpc);
        }
        return;
    }
    if (active) {
        mixed_radix::pass_gather<R, kInv, kB, kPadIn, kKnown, kSplitN>(sm, g, tw, n, n / R, t, tpc);
        mixed_radix::pass_scatter_last<R>(put, g, n, t, tpc);
    }
}

// Bluestein's transform of a line held in shared memory in natural order (padded), in place. On entry the block
// has passed a barrier since the line was written; on exit it has passed one since the result was.
// X_k = w_k sum_j (x_j w_j) conj(w)_{k-j}, a circular convolution of length m done as
// IFFT(FFT(x w, zero-padded) FFT(conj w) / m); the second factor is kept (chirp_spectrum).
template <bool kInv>
__device__ __forceinline__ void bluestein_line(float2* sm, const Line& L, int t, bool active) {
    const int n = L.n, m = L.work;
    if (active) mixed_radix::bluestein_premultiply<kInv>(sm, n, m, t, L.tpc);
    __syncthreads();
    run_passes<false>(sm, L.twiddles, m, L.passes, L.radices, t, L.tpc, active);
    if (active) mixed_radix::bluestein_convolve(sm, L.chirp_spectrum, m, t, L.tpc);
    __syncthreads();
    run_passes<true>(sm, L.twiddles, m, L.passes, L.radices, t, L.tpc, active);
    if (active) mixed_radix::bluestein_postmultiply<kInv>(sm, n, t, L.tpc);
    __syncthreads();
}

// A line's first pass (its first radix), gathered from `at` into shared memory (first_pass).
template <bool kInv, class At>
__device__ __forceinline__ void line_first_pass(const At& at, float2* sm, const Line& L, int t, bool active) {
    with_radix(int(L.radices & 15u) + 1,
               [&](auto r) { first_pass<decltype(r)::value, kInv>(at, sm, L.twiddles, L.work, t, L.tpc, active); });
}

// The whole FFT of a line read from `at(i)` (i < L.n; global memory), the result left in shared memory in natural
// order (padded); on exit the block has passed a barrier since it was written. The first pass gathers straight
// from `at` (mixed_radix::pass_gather_from); a Bluestein line, or a line of one point, is copied in first. Every
// thread of the block calls it (it has the block's barriers); those of no line pass active = false.
template <bool kInv, int kWork, bool kSplit = false, class At>
__device__ __forceinline__ void line_fft_from(const At& at, float2* sm, const Line& L, int t, bool active) {
    if constexpr (kWork > 0) {  // a compiled-in plan (L.work == kWork)
        using F = mixed_radix::FixedLine<kWork>;
        first_pass<F::template kRadix<0>, kInv, F::template kButterflies<0>, F::template kPadOut<0>, true>(
            at, sm, L.twiddles, kWork, t, F::tpc, active);
        fixed_passes<kWork, 1, F::passes, kInv, kSplit>(sm, L.twiddles, t, active);  // the last pass's output padded
        return;
    }
    if (L.chirp_spectrum || L.passes == 0) {
        if (active)
            for (int j = t; j < L.n; j += L.tpc) sm[padi(j)] = at(j);
        __syncthreads();
        if (L.chirp_spectrum) bluestein_line<kInv>(sm, L, t, active);
        return;
    }
    line_first_pass<kInv>(at, sm, L, t, active);
    run_passes<kInv>(sm, L.twiddles, L.work, L.passes, L.radices, t, L.tpc, active, 1);
}

// The whole FFT of a line from `at(i)` to `put(i, X_i)` (both global memory): the first pass gathers from `at`,
// the last scatters to `put`, the ones between run in shared memory. A Bluestein line (or one point) goes through
// shared memory as line_fft_from leaves it, then out. Every thread of the block calls it. kTpc: a compiled-in plan's
// threads a line (0: fixed_threads; the interleaved column blocks take column_threads).
template <bool kInv, int kWork, bool kSplit = false, int kTpc = 0, class At, class Put>
__device__ __forceinline__ void line_fft_to(const At& at, const Put& put, float2* sm, const Line& L, int t,
                                            bool active) {
    if constexpr (kWork > 0) {  // a compiled-in plan (L.work == kWork)
        using F = mixed_radix::FixedLine<kWork, kTpc>;
        constexpr int last = F::passes - 1;
        static_assert(last > 0, "a compiled-in plan has two passes or more");
        first_pass<F::template kRadix<0>, kInv, F::template kButterflies<0>, F::template kPadOut<0>, true>(
            at, sm, L.twiddles, kWork, t, F::tpc, active);
        fixed_passes<kWork, 1, last, kInv, kSplit, kTpc>(sm, L.twiddles, t, active);
        last_pass<F::template kRadix<last>, kInv, F::template kButterflies<last>, F::template kPadOut<last - 1>, true,
                  kSplit ? kWork : 0>(at, put, sm, L.twiddles, kWork, t, F::tpc, active, false);
        return;
    }
    if (L.chirp_spectrum || L.passes == 0) {
        line_fft_from<kInv, 0>(at, sm, L, t, active);
        if (active)
            for (int j = t; j < L.n; j += L.tpc) put(j, sm[padi(j)]);
        return;
    }
    const bool only = L.passes == 1;
    if (!only) {
        line_first_pass<kInv>(at, sm, L, t, active);
        run_passes<kInv>(sm, L.twiddles, L.work, L.passes - 1, L.radices, t, L.tpc, active, 1);
    }
    const float2* tw = L.twiddles;
    const int n = L.work;
    with_radix(int((L.radices >> (4 * (L.passes - 1))) & 15u) + 1,
               [&](auto r) { last_pass<decltype(r)::value, kInv>(at, put, sm, tw, n, t, L.tpc, active, only); });
}

// m93: a compiled-in length's whole FFT of a line already in shared memory in natural order, plain (not padded: the
// bulk copies of the row kernels, m93), to `put(i, X_i)`: the first pass gathers from there (with a barrier before
// its scatter overwrites the line), the last scatters to `put`, as line_fft_to's do.
template <bool kInv, int kWork, bool kSplit, class Put>
__device__ __forceinline__ void line_fft_staged_to(const Put& put, float2* sm, const Line& L, int t, bool active) {
    using F = mixed_radix::FixedLine<kWork>;
    constexpr int last = F::passes - 1;
    static_assert(last > 0, "a compiled-in plan has two passes or more");
    pass<F::template kRadix<0>, kInv, F::template kButterflies<0>, false, F::template kPadOut<0>, true>(
        sm, L.twiddles, kWork, 1, t, F::tpc, active);
    fixed_passes<kWork, 1, last, kInv, kSplit>(sm, L.twiddles, t, active);
    last_pass<F::template kRadix<last>, kInv, F::template kButterflies<last>, F::template kPadOut<last - 1>, true,
              kSplit ? kWork : 0>([](int) { return float2{}; }, put, sm, L.twiddles, kWork, t, F::tpc, active, false);
}

// A compiled-in length's whole FFT of a line already in shared memory in natural order (padded), left there (the
// last pass's output padded); on exit the block has passed a barrier since it was written. Every thread calls it.
template <bool kInv, int kWork>
__device__ __forceinline__ void line_fft_in_place(float2* sm, const Line& L, int t, bool active) {
    using F = mixed_radix::FixedLine<kWork>;
    pass<F::template kRadix<0>, kInv, F::template kButterflies<0>, true, F::template kPadOut<0>, true>(
        sm, L.twiddles, kWork, 1, t, F::tpc, active);
    fixed_passes<kWork, 1, F::passes, kInv>(sm, L.twiddles, t, active);
}
// An 8-byte copy from global to shared memory that does not pass through registers (cp.async), and the wait for
// all of a thread's.
__device__ __forceinline__ void copy8_async(float2* smem, const float2* gmem) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(dst), "l"(gmem) : "memory");
}
__device__ __forceinline__ void copy_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// A column block's lines from shared memory (padded, `stride` apart) back to their columns of `out` (row stride ld):
// thread c = threadIdx.x % C writes column c, rows threadIdx.x / C, + step (blockDim.x / C), ...: a warp C
// neighbours of 32 / C rows. Only the block's first nc lines exist.
__device__ __forceinline__ void store_columns(float2* out, const float2* sm, int ld, int n, int col0, int C, int c,
                                              int step, int nc, int stride) {
    if (c < nc)
        for (int y = threadIdx.x / C; y < n; y += step) out[std::size_t(y) * ld + col0 + c] = sm[c * stride + padi(y)];
}

// The picture's pass A after its passes: line c of the block (columns xa and xa + 1 as a + i b, padded, `stride`
// apart) split into the two columns' spectra, rows ky = 0..n/2 of G (row stride width). Thread c = threadIdx.x % C
// takes line c, rows threadIdx.x / C, + step, ...: as store_columns. Only the block's first nc lines exist; column
// xa + 1 is written where it exists.
__device__ __forceinline__ void unpack_columns(float2* g, const float2* sm, int width, int n, int xa, int C, int c,
                                               int step, int nc, int stride) {
    if (c < nc)
        for (int ky = threadIdx.x / C; ky <= n / 2; ky += step) {
            float2 a, b;
            unpack_pair(sm + c * stride, n, ky, &a, &b);
            float2* row = g + std::size_t(ky) * width;
            row[xa] = a;
            if (xa + 1 < width) row[xa + 1] = b;
        }
}

// A compiled-in plan's split twiddle tables (L.twiddles: mixed_radix::split_twiddle_table) copied into the block's
// shared memory after its `count` line buffers; the Line returned reads them there. The second pass is the first to
// read them, after the first pass's barrier (the first pass, ns = 1, takes no twiddles). Other plans: L.
template <int kWork>
__device__ __forceinline__ Line with_staged_twiddles(const Line& L, float2* sm, int count) {
    if constexpr (kWork > 0) {
        float2* tw = sm + count * L.stride;
        constexpr int size = mixed_radix::split_table_size(kWork);
        for (int i = threadIdx.x; i < size; i += blockDim.x) tw[i] = __ldg(L.twiddles + i);
        Line S = L;
        S.twiddles = tw;
        return S;
    } else {
        return L;
    }
}

// A staged column block's lines (m21, m22): thread c = threadIdx.x % C copies its column (`column()`: its first
// float2, `pitch` a row; asked only where c < nc) into line c, rows threadIdx.x / C, + step, ... (8-byte cp.async: a
// warp C neighbours of 32 / C rows); after the wait and a barrier the block transforms its lines in shared memory (a
// compiled-in length, all C at once). Only the block's first nc lines exist.
template <bool kInv, int kWork, class Column>
__device__ __forceinline__ void staged_lines_fft(float2* sm, const Column& column, int pitch, const Line& L, int C,
                                                 int c, int step, int nc) {
    constexpr int n = kWork, tpc = mixed_radix::FixedLine<kWork>::tpc;
    if (c < nc) {
        const float2* col = column();
        float2* line_sm = sm + c * L.stride;
        for (int y = threadIdx.x / C; y < n; y += step) copy8_async(line_sm + padi(y), col + y * pitch);
    }
    copy_async_wait_all();
    __syncthreads();
    const int line = threadIdx.x / tpc;
    line_fft_in_place<kInv, kWork>(sm + line * L.stride, L, threadIdx.x % tpc, line < nc);
}

// A launch's line length and threads a line: constants for a compiled-in length (kWork > 0), else from L.
template <int kWork>
__device__ __forceinline__ int line_points(const Line& L) {
    if constexpr (kWork > 0)
        return kWork;
    else
        return L.n;
}
template <int kWork>
__device__ __forceinline__ int line_tpc(const Line& L) {
    if constexpr (kWork > 0)
        return mixed_radix::FixedLine<kWork>::tpc;
    else
        return L.tpc;
}

// [SECTION] Register caps: the lengths whose kernels fit more blocks an SM
// m28: the users' lengths whose C2C row blocks (one line) or interleaved column blocks (four lines) run with their
// registers capped, so that more blocks fit an SM (the profile at 1920x1080: our row blocks had 50% of the SM's warps
// at 64 registers, VkFFT's 94% at 32; our column blocks 37.5%, VkFFT's 66% at 40), and how many blocks (0: none).
// Kept where it paid on the H100 (PERF_NOTES.md m28): 3000-point rows (224 threads), 5 blocks at 56 registers, 3%
// faster; 1080-point columns (four of 96 threads), 3 blocks at 56, 2.5%. 1920-point rows at 48 registers were no
// faster, 4032-point rows at 48 (56 bytes spilled) 14% slower; 2000- and 3024-point columns at 40 spilled 272-328 bytes.
// m39: the 1080-point columns on 72 threads a line (column_threads), four blocks an SM at 56 registers (no spills):
// all 480 blocks of 1920x1080 in one wave, 2% faster than three (at 96 threads, four blocks at 40 registers spilled 68
// bytes and ran 13% slower). The 1920-point rows at 56 registers, nine blocks (one wave), were 3% slower.
// m44: more blocks an SM where a kernel's blocks would otherwise take many rounds of an SM's slots, each at the most
// registers that let them fit (capped_registers; ptxas -v: no spills, but 4 bytes in the 3840-point rows). Measured on
// the H100 against main (same session, alternating runs): 3840-point rows at five blocks (48 registers; 3840x2160's
// 2160 row blocks in 3.27 rounds, not 4.09) -6.5%; columns (four lines a block) at two blocks, 1440 (48 registers;
// 2560x1440's 640 blocks in 2.4 rounds, not 4.8) -21% and 2160 (56; 3840x2160's 960 blocks in 3.6 rounds, not 7.3)
// -13%. Left out because they lost, although they cut rounds too: 3000-point rows at six blocks (48 registers) +3%,
// columns at 40 registers: 2000 at three (12 bytes of spills) +20%, 3000 at two +13%, 1920 at three +1.6%.
// m45: the 1080-point rows at twelve blocks (56 registers, no spills; 1080x1920's 1920 row blocks in 1.21 rounds, not
// 1.45): the pass -3.0%, 1080x1920 C2C -1.3% on the H100. The 2560-point rows at seven (56, 4 bytes of spills; 1.56
// rounds, not 1.82) were +0.8% and are left out.
constexpr int capped_row_blocks(int n) {
    switch (n) {
        case 1080:
            return 12;
        case 3000:
            return 5;
        case 3840:
            return 5;
        default:
            return 0;
    }
}
constexpr int capped_col_blocks(int n) {
    switch (n) {
        case 1080:
            return 4;
        case 1440:
            return 2;
        case 2160:
            return 2;
        default:
            return 0;
    }
}
// Registers a thread may have so that `blocks` blocks of `threads` fit an SM's 64K: a warp's registers are allocated in
// steps of 256 (8 a thread). __launch_bounds__(threads, blocks) asks ptxas for the same bound but does not get it for
// every shape: for 224 threads at six blocks (48 fit) ptxas chose 40 registers and spilled 128 bytes, where
// __maxnreg__(48) spills none.
constexpr int capped_registers(int threads, int blocks) {
    return 65536 / (((threads + 31) / 32) * 32 * blocks) / 8 * 8;
}
static_assert(capped_registers(224, 5) == 56 && capped_registers(224, 6) == 48 && capped_registers(288, 4) == 56);

// [SECTION] Rows: a block takes `lines` neighbouring rows (contiguous in memory)

// group > 0: the output is grouped for the column pass, the `group` columns a column block takes next to each
// other row after row ([x / group][row][x % group]), so that block reads one contiguous run (PERF_NOTES.md v6b).
//
// m93 (kBulk, compiled-in lengths, Launch::bulk_rows): the block's rows come into their line buffers as bulk copies
// (thread 0, plain order; each buffer's start 16-byte aligned: one line a block, or an even stride) onto an mbarrier
// after the staged twiddles (bulk_rows_bar_offset), and the line's first pass gathers from there: no thread's loads
// (custom-fast's power-of-two rows gained 9% from half of theirs, m89).
template <int kWork>
__host__ __device__ constexpr int bulk_rows_bar_offset(int stride, int lines) {
    return (lines * stride + mixed_radix::split_table_size(kWork)) * int(sizeof(float2));
}
template <bool kInv, int kWork, bool kBulk = false>
__device__ __forceinline__ void rows_c2c_block(const float2* in, float2* out, Line L, int rows, int lines, int group) {
    extern __shared__ float2 sm_rows[];
    const int n = line_points<kWork>(L), tpc = line_tpc<kWork>(L), row0 = blockIdx.x * lines,
              nl = min(lines, rows - row0);
    const int line = threadIdx.x / tpc, t = threadIdx.x % tpc;
    const int row = row0 + line;
    const float2* src = in + std::size_t(row) * n;
    // x goes to [x / group][row][x % group] (group a power of two), or to [row][x]: one put for both (a second
    // instantiation of the line engine in one kernel makes ptxas spill, PERF_NOTES.md m5).
    const mixed_radix::RowPut put(out + std::size_t(row) * (group > 0 ? group : n), rows, group);
    if constexpr (kBulk) {
        static_assert(kWork > 0, "m93: compiled-in lengths only");
        namespace tma = fast_detail::tma;
        const unsigned base = tma::smem_addr(sm_rows),
                       bar = base + unsigned(bulk_rows_bar_offset<kWork>(L.stride, lines));
        constexpr unsigned row_bytes = unsigned(kWork) * unsigned(sizeof(float2));
        tma::start_stage(bar, unsigned(nl) * row_bytes, [&] {
            for (int l = 0; l < nl; ++l)
                tma::load_run(base + unsigned(l * L.stride) * unsigned(sizeof(float2)),
                              in + std::size_t(row0 + l) * kWork, row_bytes, bar);
        });
        const Line S = with_staged_twiddles<kWork>(L, sm_rows, lines);
        tma::finish_stage(bar);  // (its block barrier also covers the twiddles' staging)
        line_fft_staged_to<kInv, kWork, true>(put, sm_rows + line * L.stride, S, t, line < nl);
    } else {
        line_fft_to<kInv, kWork, kWork != 0>([src](int i) { return src[i]; }, put, sm_rows + line * L.stride,
                                             with_staged_twiddles<kWork>(L, sm_rows, lines), t, line < nl);
    }
}
template <bool kInv, int kWork, bool kBulk = false>
__global__ void __launch_bounds__(1024)
    mixed_rows_c2c_kernel(const float2* in, float2* out, Line L, int rows, int lines, int group) {
    fast_detail::begin_dependent();
    rows_c2c_block<kInv, kWork, kBulk>(in, out, L, rows, lines, group);
}
// The same, one line a block (FixedLine<kWork>::tpc threads), its registers capped so that kMinBlocks blocks fit an SM
// (m28, capped_row_blocks; the cap by __maxnreg__, m44). (A kernel of its own: __launch_bounds__(1024, 1) is not
// __launch_bounds__(1024) to ptxas, which then gave every other length's kernel 64 registers and some a few bytes of
// spills.)
template <bool kInv, int kWork, int kMinBlocks, bool kBulk = false>
__global__ void __launch_bounds__(mixed_radix::fixed_threads(kWork))
    __maxnreg__(capped_registers(mixed_radix::fixed_threads(kWork), kMinBlocks))
        mixed_rows_c2c_capped_kernel(const float2* in, float2* out, Line L, int rows, int lines, int group) {
    fast_detail::begin_dependent();
    rows_c2c_block<kInv, kWork, kBulk>(in, out, L, rows, lines, group);
}

// Real rows 2p and 2p + 1 as one complex row; bins 0..n/2 of each to the half spectrum (row stride ld), or with
// group > 0 (a power of two) grouped for the column blocks: bin k of row r at [k / group][r][k % group], the last
// group padded.
template <int kWork>
__global__ void __launch_bounds__(1024)
    mixed_rows_real_kernel(const float* __restrict__ plane, float2* __restrict__ half, Line L, int rows, int lines,
                           int ld, int group) {
    fast_detail::begin_dependent();
    extern __shared__ float2 sm_rows[];
    const int n = line_points<kWork>(L), tpc = line_tpc<kWork>(L), pair0 = blockIdx.x * lines, pairs = (rows + 1) / 2,
              nl = min(lines, pairs - pair0);
    const int line = threadIdx.x / tpc, t = threadIdx.x % tpc;
    const int ra = 2 * (pair0 + line), rb = ra + 1;
    const float* row_a = plane + std::size_t(ra) * n;
    const float* row_b = rb < rows ? plane + std::size_t(rb) * n : nullptr;
    const float2* sm = sm_rows + line * L.stride;
    line_fft_from<false, kWork, kWork != 0>(
        [row_a, row_b](int i) { return c_make(__ldg(&row_a[i]), row_b ? __ldg(&row_b[i]) : 0.0f); },
        sm_rows + line * L.stride, with_staged_twiddles<kWork>(L, sm_rows, lines), t, line < nl);
    if (line >= nl) return;
    const int shift = group > 0 ? __ffs(group) - 1 : 31, mask = group > 0 ? group - 1 : 0x7FFFFFFF;
    const std::size_t run = std::size_t(rows) * group;
    float2* dst = half + std::size_t(ra) * (group > 0 ? group : ld);
    const int next = group > 0 ? group : ld;  // row rb = ra + 1
    for (int k = t; k <= n / 2; k += tpc) {
        float2 a, b;
        unpack_pair(sm, n, k, &a, &b);
        float2* at = dst + std::size_t(k >> shift) * run + (k & mask);
        at[0] = a;
        if (rb < rows) at[next] = b;
    }
}

// The picture's pass B: rows ky of G along x, into the view epilogue (each bin and its mirror).
template <ColOut kOut, int kWork>
__global__ void __launch_bounds__(1024) mixed_rows_view_kernel(ColParams p, Line L, int lines) {
    fast_detail::begin_dependent();
    extern __shared__ float2 sm_rows[];
    const int n = line_points<kWork>(L), tpc = line_tpc<kWork>(L), row0 = blockIdx.x * lines,
              nl = min(lines, p.ncols - row0);
    const int line = threadIdx.x / tpc, t = threadIdx.x % tpc;
    const float2* sm = sm_rows + line * L.stride;
    const float2* src = p.in + std::size_t(row0 + line) * p.ld_in;
    line_fft_from<false, kWork>([src](int i) { return src[i]; }, sm_rows + line * L.stride, L, t, line < nl);
    float lo = FLT_MAX, hi = -FLT_MAX;
    float2 range = c_make(0.0f, 0.0f);
    if constexpr (kOut == ColOut::Picture) range = *p.range;
    if (line < nl) {
        const int ky = row0 + line;
        const bool mirror = ky != 0 && 2 * ky != p.height;
        for (int kx = t; kx < n; kx += tpc) fast_detail::view_bin<kOut>(p, sm[padi(kx)], kx, ky, mirror, range, lo, hi);
    }
    if constexpr (kOut == ColOut::HalfValues) fast_detail::flush_range(p.minmax, lo, hi);
}

// [SECTION] Columns: a block takes C neighbouring columns; a row's C elements are read and written together

// grouped: `in` holds this block's C columns as one run, row after row (mixed_rows_c2c_kernel's grouped output).
// kTransposed: column x goes to row x of `out` (ld = n apart: the transposed layout), its last pass written there
// straight from registers, a line's consecutive outputs by consecutive threads.
template <bool kInv, int kWork, bool kTransposed = false>
__global__ void __launch_bounds__(1024)
    mixed_cols_kernel(const float2* in, float2* out, Line L, int ld, int ncols, int C, bool grouped) {
    fast_detail::begin_dependent();
    extern __shared__ float2 sm_cols[];
    const int n = line_points<kWork>(L), tpc = line_tpc<kWork>(L), col0 = blockIdx.x * C, nc = min(C, ncols - col0);
    // The passes take a line to consecutive threads, and the first pass reads the columns straight from global
    // memory: a warp's loads are 32 rows of one column, whose sectors the block's other columns' warps read too.
    // (With a warp spanning C columns x 32 / C rows instead, which coalesces, ptxas spilled 600 bytes a thread:
    // PERF_NOTES.md m5. The compiled-in lengths' grouped C2C columns now take that mapping without spills:
    // mixed_cols_interleaved_kernel, m27.) The store below keeps that mapping: written the same way as the loads (8 bytes of 32
    // rows a warp), the last pass's outputs cost the column pass twice its time (m7).
    // The block's C lines run blockDim.x / tpc at a time (column_lines_at_once), in rounds.
    const int c = threadIdx.x % C, step = blockDim.x / C, at_once = blockDim.x / tpc;
    const int t = threadIdx.x % tpc;
    const int pitch = grouped ? C : ld;  // y * pitch < 2^28 (FastFft's sides are at most 16384)
    for (int line = threadIdx.x / tpc; line - int(threadIdx.x / tpc) < C; line += at_once) {
        const float2* src = grouped ? in + std::size_t(blockIdx.x) * n * C + line : in + col0 + line;
        if constexpr (kTransposed) {
            float2* dst = out + std::size_t(col0 + line) * n;
            line_fft_to<kInv, kWork>([src, pitch](int y) { return src[y * pitch]; },
                                     [dst](int y, float2 v) { dst[y] = v; }, sm_cols + line * L.stride, L, t,
                                     line < nc);
        } else {
            line_fft_from<kInv, kWork>([src, pitch](int y) { return src[y * pitch]; }, sm_cols + line * L.stride, L, t,
                                       line < nc);
        }
    }
    if constexpr (kTransposed) return;
    store_columns(out, sm_cols, ld, n, col0, C, c, step, nc, L.stride);
}

// mixed_cols_kernel's lines read where they lie (not grouped: the R2C's half spectrum, rows W / 2 + 1 apart), for
// a compiled-in length whose C lines run at once: the block's columns are copied into their lines in shared memory
// first, a warp's copies C neighbours of 32 / C rows, where the first pass's loads straight from global memory (a
// warp: one column, 32 rows) asked L2 for four times the sectors they used (ncu: 32 a request where 8 do). The R2C
// column pass: 5-17% faster at eight sizes. The grouped C2C columns (one contiguous run a block) were not, and keep
// mixed_cols_kernel (PERF_NOTES.md m21).
template <bool kInv, int kWork>
__global__ void __launch_bounds__(1024)
    mixed_cols_staged_kernel(const float2* in, float2* out, Line L, int ld, int ncols, int C) {
    fast_detail::begin_dependent();
    static_assert(kWork > 0, "a compiled-in length");
    extern __shared__ float2 sm_cols[];
    constexpr int n = kWork;
    const int col0 = blockIdx.x * C, nc = min(C, ncols - col0);
    const int c = threadIdx.x % C, step = blockDim.x / C;
    staged_lines_fft<kInv, kWork>(
        sm_cols, [&] { return in + col0 + c; }, ld, L, C, c, step, nc);
    store_columns(out, sm_cols, ld, n, col0, C, c, step, nc, L.stride);
}

// The C2C's grouped columns (c2c_rows' grouped output: the block's C columns one contiguous run, [y][c]) when they
// run in rounds (fewer lines at once than C, so that two blocks fit an SM): the whole run copied into the lines first
// (8-byte cp.async, consecutive threads consecutive elements), then the lines transformed in shared memory, at_once
// at a time. Read straight from global memory, a later round found the sectors the first had brought into L1 gone
// and fetched them again from L2 (m25).
template <bool kInv, int kWork>
__global__ void __launch_bounds__(1024)
    mixed_cols_grouped_staged_kernel(const float2* in, float2* out, Line L, int ld, int ncols, int C) {
    fast_detail::begin_dependent();
    static_assert(kWork > 0, "a compiled-in length");
    extern __shared__ float2 sm_cols[];
    constexpr int n = kWork, tpc = mixed_radix::FixedLine<kWork>::tpc;
    const int col0 = blockIdx.x * C, nc = min(C, ncols - col0), shift = __ffs(C) - 1;
    const float2* src = in + std::size_t(blockIdx.x) * n * C;
    for (int e = threadIdx.x; e < n * C; e += blockDim.x)
        copy8_async(sm_cols + (e & (C - 1)) * L.stride + padi(e >> shift), src + e);
    copy_async_wait_all();
    __syncthreads();
    const int at_once = blockDim.x / tpc, t = threadIdx.x % tpc;
    for (int line = threadIdx.x / tpc; line - int(threadIdx.x / tpc) < C; line += at_once)
        line_fft_in_place<kInv, kWork>(sm_cols + line * L.stride, L, t, line < nc);
    store_columns(out, sm_cols, ld, n, col0, C, threadIdx.x % C, blockDim.x / C, nc, L.stride);
}

// The C2C's grouped columns (c2c_rows' grouped output: the block's kC columns one contiguous run, [y][c]) when all
// kC lines run at once, with the lines' threads interleaved (m27): thread i takes line i % kC as that line's thread
// i / kC, so a warp holds 32 / kC neighbouring threads of each line. The first pass's loads of a warp are then 32 / kC
// neighbouring rows of all kC columns, one contiguous piece of the run (mixed_cols_kernel's warp reads one column,
// 32 rows: four times the sectors it uses), and the last pass writes from its registers 32 / kC rows of kC
// neighbouring columns, whole 32-byte sectors (kC = 4), where mixed_cols_kernel goes through shared memory and a
// store loop after a barrier. (Its comment's 600 bytes of spills with this mapping were the run-time plans' (m5).)
// kTransposed (the R2C's transposed half spectrum, r2c_cols_transposed): column x goes to row x of `out` (ld apart),
// a warp's stores 32 / kC neighbouring bins of kC rows. The last group may be padded: its missing lines stay idle.
// A line takes mixed_radix::column_threads(kWork) threads (the block kC times that; interleaved_threads).
template <bool kInv, int kWork, int kC, bool kTransposed>
__device__ __forceinline__ void cols_interleaved_block(const float2* in, float2* out, Line L, int ld, int ncols) {
    static_assert(kWork > 0, "a compiled-in length");
    extern __shared__ float2 sm_cols[];
    const int col0 = blockIdx.x * kC, nc = min(kC, ncols - col0);
    const int line = threadIdx.x % kC, t = threadIdx.x / kC;
    const float2* src = in + std::size_t(blockIdx.x) * kWork * kC + line;
    float2* dst = kTransposed ? out + std::size_t(col0 + line) * ld : out + col0 + line;
    const std::size_t step = kTransposed ? 1 : std::size_t(ld);
    line_fft_to<kInv, kWork, false, mixed_radix::kColumnThreads<kWork>>(
        [src](int y) { return src[y * kC]; }, [dst, step](int y, float2 v) { dst[y * step] = v; },
        sm_cols + line * L.stride, L, t, line < nc);
}
template <bool kInv, int kWork, int kC, bool kTransposed = false>
__global__ void __launch_bounds__(1024)
    mixed_cols_interleaved_kernel(const float2* in, float2* out, Line L, int ld, int ncols) {
    fast_detail::begin_dependent();
    cols_interleaved_block<kInv, kWork, kC, kTransposed>(in, out, L, ld, ncols);
}
// The same (not transposed), its registers capped so that kMinBlocks blocks of kC lines fit an SM (m28,
// capped_col_blocks).
template <bool kInv, int kWork, int kC, int kMinBlocks>
__global__ void __launch_bounds__(kC* mixed_radix::kColumnThreads<kWork>)
    __maxnreg__(capped_registers(kC* mixed_radix::kColumnThreads<kWork>, kMinBlocks))
        mixed_cols_interleaved_capped_kernel(const float2* in, float2* out, Line L, int ld, int ncols) {
    fast_detail::begin_dependent();
    cols_interleaved_block<kInv, kWork, kC, false>(in, out, L, ld, ncols);
}

// The picture's pass A: real columns 2p and 2p + 1 as one complex column; rows ky = 0..n/2 of both spectra along
// y to G (row stride width).
template <int kWork>
__global__ void __launch_bounds__(1024) mixed_cols_real_kernel(const float* __restrict__ plane, float2* __restrict__ g,
                                                               Line L, int width, int C, unsigned int* reset_minmax) {
    fast_detail::begin_dependent();
    extern __shared__ float2 sm_cols[];
    if (reset_minmax && blockIdx.x == 0 && threadIdx.x == 0) fast_detail::reset_minmax(reset_minmax);
    const int n = line_points<kWork>(L), tpc = line_tpc<kWork>(L), pair0 = blockIdx.x * C, pairs = (width + 1) / 2,
              nc = min(C, pairs - pair0);
    const int c = threadIdx.x % C, step = blockDim.x / C;  // the unpack's mapping, as mixed_cols_kernel's store
    const int xa = 2 * (pair0 + c);
    {  // the passes: a line on consecutive threads, the first pass from global memory (mixed_cols_kernel); all C
        // lines at once (real_cols takes no rounds: column_block)
        const int line = threadIdx.x / tpc, t = threadIdx.x % tpc;
        const int la = 2 * (pair0 + line), db = la + 1 < width ? 1 : 0;  // column b, or a again (then unused)
        const float* col_a = plane + la;
        line_fft_from<false, kWork>(
            [col_a, width, db](int y) {
                const float* p = col_a + y * width;  // < 2^28 (FastFft's sides are at most 16384)
                const float a = __ldg(p), b = __ldg(p + db);
                return c_make(a, db ? b : 0.0f);
            },
            sm_cols + line * L.stride, L, t, line < nc);
    }
    unpack_columns(g, sm_cols, width, n, xa, C, c, step, nc, L.stride);
}

// mixed_cols_real_kernel for a compiled-in length and an even width (every pair of columns whole, each row's pair 8
// bytes apart and aligned): the block's column pairs copied into their lines first, as mixed_cols_staged_kernel
// does (a pair of real columns is the line's complex input, a + i b), then the passes, then the unpack (m22).
template <int kWork>
__global__ void __launch_bounds__(1024)
    mixed_cols_real_staged_kernel(const float* __restrict__ plane, float2* __restrict__ g, Line L, int width, int C,
                                  unsigned int* reset_minmax) {
    fast_detail::begin_dependent();
    static_assert(kWork > 0, "a compiled-in length");
    extern __shared__ float2 sm_cols[];
    if (reset_minmax && blockIdx.x == 0 && threadIdx.x == 0) fast_detail::reset_minmax(reset_minmax);
    constexpr int n = kWork;
    const int pair0 = blockIdx.x * C, pairs = width / 2, nc = min(C, pairs - pair0);
    const int c = threadIdx.x % C, step = blockDim.x / C;
    const int xa = 2 * (pair0 + c);
    // (the pair's two floats, 8 bytes a row, width / 2 float2 a row)
    staged_lines_fft<false, kWork>(
        sm_cols, [&] { return reinterpret_cast<const float2*>(plane + xa); }, width / 2, L, C, c, step, nc);
    unpack_columns(g, sm_cols, width, n, xa, C, c, step, nc, L.stride);
}

// [SECTION] Host side: line shapes and tables, block sizes, the kernels by length, the passes' launches

int largest_prime_factor(int n) {
    int best = 1;
    for (int p = 2; p * p <= n; ++p)
        while (n % p == 0) best = p, n /= p;
    return n > 1 ? std::max(best, n) : best;
}

// A line's shape and passes, without its tables (a Bluestein line is one whose work length is not n). The kernels take
// its compiled-in plan where it has one (with_plan, m9), whose threads a line may be more.
Line line_shape(int n) {
    check_length(n);
    const mixed_radix::LinePlan plan = mixed_radix::plan_line(n);
    const mixed_radix::LinePlan work = plan.bluestein ? mixed_radix::plan_line(plan.m) : plan;
    Line L;
    L.n = n;
    L.work = plan.bluestein ? plan.m : n;
    L.tpc = !plan.bluestein && mixed_radix::is_fixed_length(n) ? mixed_radix::fixed_threads(n)
                                                               : mixed_radix::line_threads(L.work);
    L.stride = padded_len(L.work);
    L.passes = work.passes;
    for (int i = 0; i < work.passes; ++i) L.radices |= (unsigned long long)(work.radix[i] - 1) << (4 * i);
    return L;
}

Line make_line(int n, bool inverse, LineTables& tables) {
    Line L = line_shape(n);
    if (L.work != n) L.chirp_spectrum = tables.spectrum(n, inverse);
    L.twiddles = tables.twiddles(L.work);
    return L;
}

// Lines a row block takes: as many as `target_threads` hold, within the shared-memory target, at most `rows`.
int row_lines(const Line& L, int rows, int target_threads) {
    int lines = std::max(1, target_threads / L.tpc);
    lines = std::min(lines, std::max(1, kSmemTarget / (L.stride * int(sizeof(float2)))));
    return std::max(1, std::min(lines, rows));
}

// The current device's shared memory a block may opt in to (the H100: 227 KiB), asked once a device.
int max_shared_optin() {
    static std::atomic<int> cached[64] = {};
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (device < 0 || device >= 64) return kSmemTarget;
    if (cached[device].load() == 0) {
        int bytes = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        cached[device].store(std::max(bytes, kSmemTarget));
    }
    return cached[device].load();
}

// Columns a column block takes (a power of two, so a warp's copies cover whole rows of C; as many as max_threads
// threads hold, at least one), and their spacing in
// shared memory: 16 / C (mod 16) float2 apart, so a half-warp's 64-bit accesses (C columns x 16 / C rows) fall
// on 16 different bank pairs.
int column_block(Line& L, int ncols, int max_threads, bool rounds = false) {
    int C = 1;
    while (C * 2 <= kMaxColumnsPerBlock && C * 2 * L.tpc <= max_threads &&
           C * 2 * L.stride * int(sizeof(float2)) <= kSmemTarget && C < ncols)
        C *= 2;
    // Under four columns a block reads (and the grouped row pass writes) 8 or 16 bytes of each 32-byte sector: the
    // 4032-point columns of a portrait 3024x4032 went two to a block at 23% of copy, where four 3024-point ones run
    // at 52% (PERF_NOTES.md m9). Four columns of up to 256 threads each are one 1024-thread block an SM, which the
    // registers allow anyway (64 a thread), so over the target, within the device's opt-in shared memory.
    // rounds (the C2C column pass): where four such lines' threads are more than a block has (6000: 416 threads a
    // line, 6048: 384), the block still takes four and runs them in rounds (column_lines_at_once). The 6000-point
    // columns of a portrait 4000x6000 went two to a block, at 26% of copy; four in two rounds run at 41%. The R2C
    // and picture column passes lose by it (their blocks go from two an SM to one: PERF_NOTES.md m17), so not there.
    while (C < 4 && (rounds ? L.tpc : C * 2 * L.tpc) <= max_threads &&
           C * 2 * L.stride * int(sizeof(float2)) <= max_shared_optin() && C < ncols)
        C *= 2;
    while (L.stride % 16 != (16 / C) % 16) ++L.stride;
    return C;
}

// The lines of a column block of C that run at once: C, or as many (a power of two) as max_threads hold; the
// block goes round C / that many times. Its threads: that many times L.tpc.
int column_lines_at_once(const Line& L, int C, int max_threads) {
    int at_once = C;
    while (at_once > 1 && at_once * L.tpc > max_threads) at_once /= 2;
    return at_once;
}

// Calls f(std::integral_constant<int, W>{}) with W = L.work where that length's plan is compiled in
// (mixed_radix::kFixedLengths) and the tables allow it, else with W = 0 (the run-time plan).
template <int W, class F>
bool call_fixed(int tpc, F& f) {
    if (tpc != mixed_radix::FixedLine<W>::tpc)  // the launch's threads must be the ones the kernel is compiled for
        throw ConfigError("internal: a " + std::to_string(W) + "-point line launched with " + std::to_string(tpc) +
                          " threads where its compiled-in plan takes " +
                          std::to_string(mixed_radix::FixedLine<W>::tpc));
    f(std::integral_constant<int, W>{});
    return true;
}
template <class F, std::size_t... I>
bool with_fixed_length(int work, int tpc, F& f, std::index_sequence<I...>) {
    return ((work == mixed_radix::kFixedLengths[I] ? call_fixed<mixed_radix::kFixedLengths[I]>(tpc, f) : false) || ...);
}
// The interleaved column blocks' line and threads (cols_interleaved_block): C lines of column_threads(W) threads each,
// where the other kernels' lines take fixed_threads (C and whether a block's C lines fit at once are asked with
// those, so that the row pass's grouping stays; the interleaved kernel then runs where its own threads fit too).
template <int W>
Line interleaved_line(Line L) {
    L.tpc = mixed_radix::column_threads(W);
    return L;
}
template <int W>
int interleaved_threads(int C) {
    return C * mixed_radix::column_threads(W);
}

// A row launch's shared memory: its line buffers', and with a compiled-in plan the split twiddle tables after them
// (with_staged_twiddles).
template <int W>
int staged_smem(int smem) {
    if constexpr (W > 0)
        return smem + mixed_radix::split_table_size(W) * int(sizeof(float2));
    else
        return smem;
}

// With a compiled-in plan, L's twiddles become that plan's table (mixed_radix::fixed_plan may merge passes), or
// (split: the row kernels, m24) its split tables.
template <class F>
void with_plan(Line& L, LineTables& tables, F&& f, bool split = false) {
    constexpr std::size_t kCount = sizeof(mixed_radix::kFixedLengths) / sizeof(mixed_radix::kFixedLengths[0]);
    if (!L.chirp_spectrum && mixed_radix::is_fixed_length(L.work)) {
        // (make_line gave L the compiled plan's threads a line: line_shape)
        L.twiddles = split ? tables.split_twiddles(L.work) : tables.twiddles(L.work, true);
        with_fixed_length(L.work, L.tpc, f, std::make_index_sequence<kCount>{});
        return;
    }
    f(std::integral_constant<int, 0>{});
}

template <class Kernel, class... Args>
void launch(Kernel kernel, const char* name, int blocks, int threads, int smem, Launch at, Args... args) {
    fast_detail::launch_kernel(name, kernel, dim3(blocks), dim3(threads), smem, at.stream, at.dependent, args...);
}

}  // namespace

void check_length(int n) {
    if (n < 1 || n > 16384) throw ConfigError("custom-fast takes lines of 1 to 16384 points; got " + std::to_string(n));
    const mixed_radix::LinePlan plan = mixed_radix::plan_line(n);
    if (plan.bluestein && n > kMaxBluesteinLength)
        throw ConfigError(
            "custom-fast: a side of " + std::to_string(n) + " points has the prime factor " +
            std::to_string(largest_prime_factor(n)) + ", which takes Bluestein's transform, and over " +
            std::to_string(kMaxBluesteinLength) + " points that needs " + std::to_string(plan.m) +
            " points in one block's shared memory (pad with --pad pow2, or use the cuFFT or CPU backend)");
}

const float2* LineTables::twiddles(int work, bool fixed) {
    fixed = fixed && !mixed_radix::same_passes(mixed_radix::fixed_plan(work), mixed_radix::plan_line(work));
    const long long key = 2LL * work + (fixed ? 1 : 0);
    auto it = twiddles_.find(key);
    if (it == twiddles_.end()) {
        std::vector<float2> host =
            mixed_radix::twiddle_table(fixed ? mixed_radix::fixed_plan(work) : mixed_radix::plan_line(work));
        DeviceBuffer<float2> buf(std::max<std::size_t>(1, host.size()));  // work = 1: no passes, no entries
        if (!host.empty())
            CUDA_CHECK(cudaMemcpy(buf.get(), host.data(), host.size() * sizeof(float2), cudaMemcpyHostToDevice));
        it = twiddles_.emplace(key, std::move(buf)).first;
    }
    return it->second.get();
}

const float2* LineTables::split_twiddles(int n) {
    auto it = split_.find(n);
    if (it == split_.end()) {
        const std::vector<float2> host = mixed_radix::split_twiddle_table(n);
        DeviceBuffer<float2> buf(host.size());
        CUDA_CHECK(cudaMemcpy(buf.get(), host.data(), host.size() * sizeof(float2), cudaMemcpyHostToDevice));
        it = split_.emplace(n, std::move(buf)).first;
    }
    return it->second.get();
}

const float2* LineTables::spectrum(int n, bool inverse) {
    const int m = mixed_radix::plan_line(n).m;
    auto it = spectra_.find(n);
    if (it == spectra_.end()) {
        std::vector<float2> host = mixed_radix::chirp_spectrum(n, false);
        const std::vector<float2> inv = mixed_radix::chirp_spectrum(n, true);
        host.insert(host.end(), inv.begin(), inv.end());
        DeviceBuffer<float2> buf(host.size());
        CUDA_CHECK(cudaMemcpy(buf.get(), host.data(), host.size() * sizeof(float2), cudaMemcpyHostToDevice));
        it = spectra_.emplace(n, std::move(buf)).first;
    }
    return it->second.get() + (inverse ? m : 0);
}

int line_threads_for(int n, const LineTables& tables) { return line_shape(n).tpc; }

int interleaved_block_threads(int n, const LineTables& tables) {
    const Line L = line_shape(n);
    const bool compiled = L.work == n && mixed_radix::is_fixed_length(n);
    return 4 * (compiled ? mixed_radix::column_threads(n) : L.tpc);
}

int columns_per_block(int n, int ncols, int max_threads, const LineTables& tables, bool rounds) {
    Line L = line_shape(n);
    return column_block(L, ncols, max_threads, rounds);
}

bool c2c_rows(const float2* in, float2* out, int n, int rows, bool inverse, LineTables& tables, int target_threads,
              Launch at, int group) {
    Line L = make_line(n, inverse, tables);
    const int lines = row_lines(L, rows, target_threads);
    const int smem = lines * L.stride * int(sizeof(float2));
    const int blocks = (rows + lines - 1) / lines;
    if (group > 0 && n % group != 0) throw ConfigError("internal: a grouped row pass needs whole groups");
    bool bulk_ran = false;
    with_plan(
        L, tables,
        [&](auto w) {
            constexpr int W = decltype(w)::value;
            if constexpr (W > 0) {
                // m93: the rows through bulk copies, where each line buffer starts 16-byte aligned, as the rows do.
                const bool bulk = W % 2 == 0 && (lines == 1 || L.stride % 2 == 0) &&
                                  (reinterpret_cast<std::uintptr_t>(in) & 15) == 0 && fast_detail::sm90_or_later();
                if (bulk) {
                    const int bulk_smem = bulk_rows_bar_offset<W>(L.stride, lines) + 8;
                    bulk_ran = true;
                    if constexpr (capped_row_blocks(W) > 0) {
                        if (lines == 1) {
                            constexpr int B = capped_row_blocks(W);
                            launch(inverse ? mixed_rows_c2c_capped_kernel<true, W, B, true>
                                           : mixed_rows_c2c_capped_kernel<false, W, B, true>,
                                   "mixed_rows_c2c_capped_kernel", blocks, L.tpc, bulk_smem, at, in, out, L, rows,
                                   lines, group);
                            return;
                        }
                    }
                    launch(inverse ? mixed_rows_c2c_kernel<true, W, true> : mixed_rows_c2c_kernel<false, W, true>,
                           "mixed_rows_c2c_kernel", blocks, lines * L.tpc, bulk_smem, at, in, out, L, rows, lines,
                           group);
                    return;
                }
            }
            if constexpr (capped_row_blocks(W) > 0) {
                if (lines == 1) {
                    constexpr int B = capped_row_blocks(W);
                    if (inverse)
                        launch(mixed_rows_c2c_capped_kernel<true, W, B>, "mixed_rows_c2c_capped_kernel", blocks, L.tpc,
                               staged_smem<W>(smem), at, in, out, L, rows, lines, group);
                    else
                        launch(mixed_rows_c2c_capped_kernel<false, W, B>, "mixed_rows_c2c_capped_kernel", blocks, L.tpc,
                               staged_smem<W>(smem), at, in, out, L, rows, lines, group);
                    return;
                }
            }
            if (inverse)
                launch(mixed_rows_c2c_kernel<true, W>, "mixed_rows_c2c_kernel", blocks, lines * L.tpc,
                       staged_smem<W>(smem), at, in, out, L, rows, lines, group);
            else
                launch(mixed_rows_c2c_kernel<false, W>, "mixed_rows_c2c_kernel", blocks, lines * L.tpc,
                       staged_smem<W>(smem), at, in, out, L, rows, lines, group);
        },
        true);
    return bulk_ran;
}

void c2c_cols(const float2* in, float2* out, int ld, int ncols, int n, bool inverse, LineTables& tables,
              int max_threads, Launch at, int group, bool rounds) {
    Line L = make_line(n, inverse, tables);
    const int C = column_block(L, ncols, max_threads, rounds);
    if (group != 0 && (group != C || ncols % C != 0))
        throw ConfigError("internal: columns grouped by " + std::to_string(group) + " for blocks of " +
                          std::to_string(C) + " columns (" + std::to_string(ncols) + " of them)");
    const bool grouped = group != 0;
    const int smem = C * L.stride * int(sizeof(float2));
    const int at_once = column_lines_at_once(L, C, max_threads);
    const int blocks = (ncols + C - 1) / C, threads = at_once * L.tpc;
    with_plan(L, tables, [&](auto w) {
        constexpr int W = decltype(w)::value;
        if constexpr (W > 0) {
            // the lines' threads interleaved (m27), where the block's threads (column_threads a line) are allowed
            if (grouped && at_once == C && C == 4 && interleaved_threads<W>(C) <= max_threads) {
                const Line I = interleaved_line<W>(L);
                const int it = interleaved_threads<W>(C);
                if constexpr (capped_col_blocks(W) > 0) {  // m28
                    constexpr int B = capped_col_blocks(W);
                    if (inverse)
                        launch(mixed_cols_interleaved_capped_kernel<true, W, 4, B>,
                               "mixed_cols_interleaved_capped_kernel", blocks, it, smem, at, in, out, I, ld, ncols);
                    else
                        launch(mixed_cols_interleaved_capped_kernel<false, W, 4, B>,
                               "mixed_cols_interleaved_capped_kernel", blocks, it, smem, at, in, out, I, ld, ncols);
                    return;
                }
                if (inverse)
                    launch(mixed_cols_interleaved_kernel<true, W, 4>, "mixed_cols_interleaved_kernel", blocks, it, smem,
                           at, in, out, I, ld, ncols);
                else
                    launch(mixed_cols_interleaved_kernel<false, W, 4>, "mixed_cols_interleaved_kernel", blocks, it,
                           smem, at, in, out, I, ld, ncols);
                return;
            }
            if (grouped && at_once < C) {  // the run copied into shared memory first (m25)
                if (inverse)
                    launch(mixed_cols_grouped_staged_kernel<true, W>, "mixed_cols_grouped_staged_kernel", blocks,
                           threads, smem, at, in, out, L, ld, ncols, C);
                else
                    launch(mixed_cols_grouped_staged_kernel<false, W>, "mixed_cols_grouped_staged_kernel", blocks,
                           threads, smem, at, in, out, L, ld, ncols, C);
                return;
            }
            if (!grouped && at_once == C) {  // copied into shared memory first
                if (inverse)
                    launch(mixed_cols_staged_kernel<true, W>, "mixed_cols_staged_kernel", blocks, threads, smem, at, in,
                           out, L, ld, ncols, C);
                else
                    launch(mixed_cols_staged_kernel<false, W>, "mixed_cols_staged_kernel", blocks, threads, smem, at,
                           in, out, L, ld, ncols, C);
                return;
            }
        }
        if (inverse)
            launch(mixed_cols_kernel<true, W>, "mixed_cols_kernel", blocks, threads, smem, at, in, out, L, ld, ncols, C,
                   grouped);
        else
            launch(mixed_cols_kernel<false, W>, "mixed_cols_kernel", blocks, threads, smem, at, in, out, L, ld, ncols,
                   C, grouped);
    });
}

void r2c_cols_transposed(const float2* grouped, float2* out, int ncols, int n, LineTables& tables, int max_threads,
                         Launch at) {
    Line L = make_line(n, false, tables);
    const int C = column_block(L, ncols, max_threads);
    const int smem = C * L.stride * int(sizeof(float2));
    const int at_once = column_lines_at_once(L, C, max_threads);
    const int blocks = (ncols + C - 1) / C, threads = at_once * L.tpc;
    with_plan(L, tables, [&](auto w) {
        constexpr int W = decltype(w)::value;
        if constexpr (W > 0) {
            if (at_once == C && C == 4 && interleaved_threads<W>(C) <= max_threads) {  // m27
                launch(mixed_cols_interleaved_kernel<false, W, 4, true>,
                       "mixed_cols_interleaved_kernel (transposed out)", blocks, interleaved_threads<W>(C), smem, at,
                       grouped, out, interleaved_line<W>(L), n, ncols);
                return;
            }
        }
        launch(mixed_cols_kernel<false, W, true>, "mixed_cols_kernel (transposed out)", blocks, threads, smem, at,
               grouped, out, L, n, ncols, C, true);
    });
}

void real_rows(const float* plane, float2* half, int width, int height, LineTables& tables, int target_threads,
               Launch at, int group) {
    if (group < 0 || (group & (group - 1)) != 0)
        throw ConfigError("internal: a grouped real row pass needs a power-of-two group");
    Line L = make_line(width, false, tables);
    const int pairs = (height + 1) / 2;
    const int lines = row_lines(L, pairs, target_threads);
    const int smem = lines * L.stride * int(sizeof(float2));
    with_plan(
        L, tables,
        [&](auto w) {
            launch(mixed_rows_real_kernel<decltype(w)::value>, "mixed_rows_real_kernel", (pairs + lines - 1) / lines,
                   lines * L.tpc, staged_smem<decltype(w)::value>(smem), at, plane, half, L, height, lines,
                   width / 2 + 1, group);
        },
        true);
}

void real_cols(const float* plane, float2* g, int width, int height, LineTables& tables, int max_threads, Launch at,
               unsigned int* reset_minmax) {
    Line L = make_line(height, false, tables);
    const int pairs = (width + 1) / 2;
    const int C = column_block(L, pairs, max_threads);
    const int smem = C * L.stride * int(sizeof(float2));
    with_plan(L, tables, [&](auto w) {
        constexpr int W = decltype(w)::value;
        if constexpr (W > 0) {
            if (width % 2 == 0 && reinterpret_cast<std::uintptr_t>(plane) % 8 == 0) {  // pairs whole and aligned
                launch(mixed_cols_real_staged_kernel<W>, "mixed_cols_real_staged_kernel", (pairs + C - 1) / C,
                       C * L.tpc, smem, at, plane, g, L, width, C, reset_minmax);
                return;
            }
        }
        launch(mixed_cols_real_kernel<W>, "mixed_cols_real_kernel", (pairs + C - 1) / C, C * L.tpc, smem, at, plane, g,
               L, width, C, reset_minmax);
    });
}

void rows_view(ColOut mode, const ColParams& p, LineTables& tables, int target_threads, Launch at) {
    Line L = make_line(p.width, false, tables);
    const int lines = row_lines(L, p.ncols, target_threads);
    const int smem = lines * L.stride * int(sizeof(float2));
    const int blocks = (p.ncols + lines - 1) / lines, threads = lines * L.tpc;
    if (mode == ColOut::Complex) throw ConfigError("internal: the picture rows have no complex output");
    with_plan(L, tables, [&](auto w) {
        constexpr int W = decltype(w)::value;
        switch (mode) {
            case ColOut::Picture:
                launch(mixed_rows_view_kernel<ColOut::Picture, W>, "mixed_rows_view_kernel", blocks, threads, smem, at,
                       p, L, lines);
                break;
            case ColOut::Values:
                launch(mixed_rows_view_kernel<ColOut::Values, W>, "mixed_rows_view_kernel", blocks, threads, smem, at,
                       p, L, lines);
                break;
            default:
                launch(mixed_rows_view_kernel<ColOut::HalfValues, W>, "mixed_rows_view_kernel", blocks, threads, smem,
                       at, p, L, lines);
                break;
        }
    });
}

}  // namespace specview::gpu::mixed
