// Index of this file (grep "[SECTION]"):
// - One line in registers: Stockham passes of radix 2-16, exchanges through padded shared memory
// - Pass 1: rows (C2C rows, real rows into the half spectrum, the split and bulk-copy variants)
// - Pass 2: columns, with the epilogue the caller needs (complex, view values, picture)
// - The picture's range and colormap kernels
// - Launch helpers: block shapes, compile-time lengths, the kernels by length
// - FastFft: which path a size takes (the dispatch rules, with their measurements in PERF_NOTES.md)
// - FastFft::c2c
// - FastFft: real input (rows_real, r2c, real_spectrum)
// - FastFft::picture (and its rows-first form)
#include "gpu/fast/fft_fast.h"

#include <cooperative_groups.h>
#include <cuda.h>  // CUtensorMap (the tensor maps are made through the runtime's driver entry point: no libcuda link)
#include <cudaTypedefs.h>
#include <cub/device/device_radix_sort.cuh>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/runtime/cuda_check.h"
#include "gpu/common/errors.h"
#include "gpu/common/device_math.h"
#include "gpu/fast/fft_fast_detail.h"
#include "gpu/common/mixed_radix.h"
#include "gpu/common/pow2.h"
#include "gpu/picture/spectrum_view.h"

namespace specview::gpu {
namespace {

using fast_detail::bin_places;
using fast_detail::BinPlaces;
using fast_detail::ColOut;
using fast_detail::ColParams;
using fast_detail::flush_range;
using fast_detail::launch_kernel;
using fast_detail::launch_setup;
using fast_detail::mirror_value;
using fast_detail::order_decode;
using fast_detail::view_bin;

// [SECTION] One line in registers: Stockham passes of radix 2-16, exchanges through padded shared memory

constexpr int kE = 16;  // elements a thread holds (the radix of the main passes)

// One padding element every 16 (mixed_radix::padi, padded_len): strided smem accesses of Stockham's scatter stay off
// a single bank.
using mixed_radix::padded_len;
using mixed_radix::padi;
// Where 16 divides s: padi(a + r s) = padi(a) + r (s + s / 16). The shared-memory accesses of a pass step through a
// line by such strides, so one padi a butterfly and a fixed step replace a shift and two adds an element (m36).
__device__ __forceinline__ int padded_step(int s) { return s + (s >> 4); }

// The radices: the first pass takes 2^(log2 n mod 4) (or n itself below 16), the rest are radix 16.
__host__ __device__ inline int first_radix(int log2n) {
    if (log2n == 0) return 1;
    return (log2n & 3) ? (1 << (log2n & 3)) : 16;
}
__host__ __device__ inline int pass_count(int log2n) { return log2n == 0 ? 0 : ((log2n & 3) ? 1 : 0) + log2n / 4; }
__host__ __device__ inline int elems_per_thread(int n) { return n < kE ? n : kE; }

// One Stockham pass of radix R over a line of n points (Ns = product of the earlier radices): each thread
// twiddles and transforms its E/R butterflies bb = t + q*tpc, whose inputs are x[bb + r n/R].
template <int R, bool kInv>
__device__ __forceinline__ void pass_compute(float2 (&v)[kE], int nq, int t, int tpc, int log2ns) {
#pragma unroll
    for (int q = 0; q < kE / R; ++q) {
        if (q >= nq) break;
        if (log2ns > 0) {
            // W^r for W = exp(-+2 pi i k / (Ns R)): W from sincospif (accurate to about an ulp; a table in global
            // memory cost an L2 round trip per factor once shared memory had taken the L1), the powers as
            // products of W, W^2, W^4, W^8 (at most four roundings each). 2k / (Ns R) as 2k times 2^-log2(Ns R),
            // exact as the division was, without its reciprocal refinement and slow-path branch (m35).
            const int k = (t + q * tpc) & ((1 << log2ns) - 1);
            constexpr int kLog2R = R == 2 ? 1 : R == 4 ? 2 : R == 8 ? 3 : 4;
            float sn, cs;
            sincospif(float(2 * k) * __int_as_float((127 - kLog2R - log2ns) << 23), &sn, &cs);
            float2 p[4];
            p[0] = make_float2(cs, kInv ? sn : -sn);
#pragma unroll
            for (int i = 1; i < 4; ++i) p[i] = c_mul(p[i - 1], p[i - 1]);
#pragma unroll
            for (int r = 1; r < R; ++r) {
                float2 w = make_float2(1.0f, 0.0f);
                bool first = true;
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    if (r & (1 << i)) {
                        w = first ? p[i] : c_mul(w, p[i]);
                        first = false;
                    }
                v[q * R + r] = c_mul(v[q * R + r], w);
            }
        }
        mixed_radix::dft_pow2<R>(&v[q * R], kInv);  // the mixed-radix kernels' register DFT (m34)
    }
}

// qx (m104): the thread's q-th butterfly is t + (q ^ qx) tpc (0 elsewhere: t + q tpc).
template <int R>
__device__ __forceinline__ void pass_store(const float2 (&v)[kE], float2* sm, int nq, int t, int tpc, int log2ns,
                                           int qx = 0) {
    const int ns = 1 << log2ns;
#pragma unroll
    for (int q = 0; q < kE / R; ++q) {
        if (q >= nq) break;
        const int bb = t + (q ^ qx) * tpc;
        const int base = ((bb >> log2ns) * ns * R) + (bb & (ns - 1));
        if (log2ns >= 4) {
            float2* p = sm + padi(base);
            const int step = padded_step(ns);
#pragma unroll
            for (int r = 0; r < R; ++r) p[r * step] = v[q * R + r];
        } else {
#pragma unroll
            for (int r = 0; r < R; ++r) sm[padi(base + r * ns)] = v[q * R + r];
        }
    }
}

template <int R>
__device__ __forceinline__ void pass_load(float2 (&v)[kE], const float2* sm, int n, int nq, int t, int tpc) {
#pragma unroll
    for (int q = 0; q < kE / R; ++q) {
        if (q >= nq) break;
        const int bb = t + q * tpc;
        if (n / R >= 16) {
            const float2* p = sm + padi(bb);
            const int step = padded_step(n / R);
#pragma unroll
            for (int r = 0; r < R; ++r) v[q * R + r] = p[r * step];
        } else {
#pragma unroll
            for (int r = 0; r < R; ++r) v[q * R + r] = sm[padi(bb + r * (n / R))];
        }
    }
}

// The barrier of a pass's exchange: the block's, or (m72) where bar_id > 0 named barrier bar_id over the line's tpc
// threads (whole warps): a line's exchange waits for its own threads only, not for the block's other lines.
__device__ __forceinline__ void exchange_sync(int bar_id, int tpc) {
    if (bar_id == 0)
        __syncthreads();
    else
        asm volatile("bar.sync %0, %1;" ::"r"(bar_id), "r"(tpc) : "memory");
}

// One pass of stockham_line: radix R (the first pass's: loaded from global memory by the caller, no twiddles; the
// others radix 16), log2ns the log2 of the product of the earlier radices; `last`: no store to shared memory after.
// bar_id: exchange_sync's.
// blocked_first (m102, the column blocks): the first pass's butterflies of thread t are bb = t nq + q (its inputs
// loaded so by the caller: in_index with t nq and 1 for t and tpc) rather than t + q tpc, so that its R outputs of
// each of them land in 16 neighbouring slots, not R apart: where C columns interleave in a half-warp, R apart put
// 4 (R = 4) or 2 (R = 2, 8) threads on one bank pair. Only the first pass's store changes; it has no twiddles.
template <bool kInv>
__device__ __forceinline__ void stockham_step(float2 (&v)[kE], float2* sm, int n, int t, int tpc, bool active, int R,
                                              bool first, bool last, int log2ns, int bar_id = 0,
                                              bool blocked_first = false, int first_swizzle = 0) {
    const int nq = elems_per_thread(n) / R;
    if (!first && active) {
        switch (R) {
            case 16:
                pass_load<16>(v, sm, n, nq, t, tpc);
                break;
            default:
                break;  // only the first pass has another radix, and it loads from global
        }
    }
    if (active) {
        switch (R) {
            case 2:
                pass_compute<2, kInv>(v, nq, t, tpc, log2ns);
                break;
            case 4:
                pass_compute<4, kInv>(v, nq, t, tpc, log2ns);
                break;
            case 8:
                pass_compute<8, kInv>(v, nq, t, tpc, log2ns);
                break;
            case 16:
                pass_compute<16, kInv>(v, nq, t, tpc, log2ns);
                break;
            default:
                break;
        }
    }
    if (!last) {
        exchange_sync(bar_id, tpc);  // everyone has read this pass's inputs
        const bool blocked = first && blocked_first;
        const int ts = blocked ? t * nq : t, qs = blocked ? 1 : tpc, qx = blocked ? first_swizzle : 0;
        if (active) {
            switch (R) {
                case 2:
                    pass_store<2>(v, sm, nq, ts, qs, log2ns, qx);
                    break;
                case 4:
                    pass_store<4>(v, sm, nq, ts, qs, log2ns, qx);
                    break;
                case 8:
                    pass_store<8>(v, sm, nq, ts, qs, log2ns, qx);
                    break;
                case 16:
                    pass_store<16>(v, sm, nq, ts, qs, log2ns, qx);
                    break;
                default:
                    break;
            }
        }
        exchange_sync(bar_id, tpc);
    }
}

// How stockham_line runs its passes where n is a compile-time constant. nvcc leaves a plain loop over them rolled:
// the pass's radix by a switch, Ns, the twiddle scale and the index masks at run time, every pass.
enum class Passes {
    Rolled,    // that loop
    Peeled,    // the first pass apart (its radix a constant), then a rolled loop of radix-16 passes (m38)
    Unrolled,  // every pass apart, its radix, Ns and masks immediates (m37)
};

// The whole FFT of one line (a row or a column) of n = 2^log2n points held by tpc threads. On entry v holds
// the first pass's inputs, v[q R0 + r] = x[t + q tpc + r n/R0]; on exit v holds the outputs in natural order,
// v[q 16 + r] = X[t + q tpc + r n/16] (or v[r] = X[r] for n <= 16). Every thread of the block must call it
// (it has barriers); `active` threads are the ones with a line.
// kPasses (PERF_NOTES m37, m38): Unrolled for the C2C rows and columns and the picture's row and column passes.
// The real-row kernels spilled 28-36 bytes more unrolled and ran slower on the H100 (2048^2 transposed R2C +4%, 4096^2
// +7%) in spite of 15% fewer instructions; Peeled spilled as much at 1024-4096 points and ran as much slower, but
// nothing at 8192 (24 bytes rolled), where it ran 4-5% faster. So the real rows are Peeled at 8192 points, Rolled
// otherwise, and the real columns Rolled.
// kLog2 > 0: n = 2^kLog2 (the caller's n and log2n must say so), a constant here, where nvcc unrolls or not: a length
// known only in the kernel that inlines this one left Unrolled's loop rolled in the column pass (m38).
// bar_id (Unrolled only): stockham_step's; 0, the block's barrier, elsewhere. blocked_first (Unrolled only):
// stockham_step's (m102); v then holds x[t nq + (q ^ first_swizzle) + r n/R0] in v[q R0 + r], nq = E/R0 (m104:
// first_swizzle < nq, 0 but in fast_cols_tma_kernel).
template <bool kInv, Passes kPasses = Passes::Rolled, int kLog2 = 0>
__device__ void stockham_line(float2 (&v)[kE], float2* sm, int n_arg, int log2n_arg, int t, int tpc, bool active,
                              int bar_id = 0, bool blocked_first = false, int first_swizzle = 0) {
    const int n = kLog2 > 0 ? 1 << kLog2 : n_arg, log2n = kLog2 > 0 ? kLog2 : log2n_arg;
    const int passes = pass_count(log2n);
    if constexpr (kPasses == Passes::Unrolled) {
#pragma unroll
        for (int p = 0; p < passes; ++p)
            stockham_step<kInv>(v, sm, n, t, tpc, active, p == 0 ? first_radix(log2n) : 16, p == 0, p + 1 == passes,
                                p == 0 ? 0 : log2n - 4 * (passes - p), bar_id, p == 0 && blocked_first, first_swizzle);
    } else if constexpr (kPasses == Passes::Peeled) {
        if (passes == 0) return;
        const int r0 = first_radix(log2n);
        stockham_step<kInv>(v, sm, n, t, tpc, active, r0, true, passes == 1, 0);
        int log2ns = __ffs(r0) - 1;
        for (int p = 1; p < passes; ++p, log2ns += 4)
            stockham_step<kInv>(v, sm, n, t, tpc, active, 16, false, p + 1 == passes, log2ns);
    } else {
        // Written out as before m37 rather than through stockham_step: routed through it, these kernels' PTX changed
        // (the 1024-point real rows spilled 16 bytes where they spilled none), and this is the code that was measured.
        const int e = elems_per_thread(n);
        int log2ns = 0;
        for (int p = 0; p < passes; ++p) {
            const int R = p == 0 ? first_radix(log2n) : 16;
            const int nq = e / R;
            if (p > 0 && active) {
                switch (R) {
                    case 16:
                        pass_load<16>(v, sm, n, nq, t, tpc);
                        break;
                    default:
                        break;
                }
            }
            if (active) {
                switch (R) {
                    case 2:
                        pass_compute<2, kInv>(v, nq, t, tpc, log2ns);
                        break;
                    case 4:
                        pass_compute<4, kInv>(v, nq, t, tpc, log2ns);
                        break;
                    case 8:
                        pass_compute<8, kInv>(v, nq, t, tpc, log2ns);
                        break;
                    case 16:
                        pass_compute<16, kInv>(v, nq, t, tpc, log2ns);
                        break;
                    default:
                        break;
                }
            }
            const int log2r = __ffs(R) - 1;
            if (p + 1 < passes) {
                __syncthreads();
                if (active) {
                    switch (R) {
                        case 2:
                            pass_store<2>(v, sm, nq, t, tpc, log2ns);
                            break;
                        case 4:
                            pass_store<4>(v, sm, nq, t, tpc, log2ns);
                            break;
                        case 8:
                            pass_store<8>(v, sm, nq, t, tpc, log2ns);
                            break;
                        case 16:
                            pass_store<16>(v, sm, nq, t, tpc, log2ns);
                            break;
                        default:
                            break;
                    }
                }
                __syncthreads();
            }
            log2ns += log2r;
        }
    }
}

// Index of v[j] on exit of stockham_line, within the line.
__device__ __forceinline__ int out_index(int j, int n, int t, int tpc) {
    if (n <= kE) return j;
    return t + (j / 16) * tpc + (j % 16) * (n / 16);
}
// &sm[padi(out_index(j, n, t, tpc))]: from n = 256 up, out_index(j) = t + j n/16 with 16 | n/16 (padded_step).
template <class T>  // float2 or const float2
__device__ __forceinline__ T* out_slot(T* sm, int j, int n, int t, int tpc) {
    return n >= 256 ? sm + padi(t) + j * padded_step(n / 16) : sm + padi(out_index(j, n, t, tpc));
}
// Index of v[j] on entry (first pass inputs). qx: as pass_store's (m104), the q-th butterfly t + (q ^ qx) tpc.
__device__ __forceinline__ int in_index(int j, int n, int log2n, int t, int tpc, int qx = 0) {
    const int r0 = first_radix(log2n);
    return t + ((j / r0) ^ qx) * tpc + (j % r0) * (n / r0);
}

// After the FFT of z = a + i b (a line of two real signals packed as one complex one): leave the result in
// shared memory in natural order and return, for bin k, A[k] = (Z[k] + conj Z[-k]) / 2 and
// B[k] = -i (Z[k] - conj Z[-k]) / 2, the spectra of a and b. stage_natural() must run first, on all threads.
__device__ __forceinline__ void stage_natural(float2* sm, const float2 (&v)[kE], int e, int n, int t, int tpc,
                                              bool active) {
    __syncthreads();  // the FFT's last pass may still be reading shared memory
    if (active)
#pragma unroll
        for (int j = 0; j < kE; ++j)
            if (j < e) *out_slot(sm, j, n, t, tpc) = v[j];
    __syncthreads();
}
__device__ __forceinline__ void unpack_real_pair(const float2* sm, int n, int k, float2* a, float2* b) {
    const float2 zk = sm[padi(k)], zm = sm[padi((n - k) & (n - 1))];
    *a = make_float2(0.5f * (zk.x + zm.x), 0.5f * (zk.y - zm.y));
    const float2 d = make_float2(zk.x - zm.x, zk.y + zm.y);  // Z[k] - conj Z[-k]
    *b = make_float2(0.5f * d.y, -0.5f * d.x);
}

// [SECTION] Pass 1: rows (C2C rows, real rows into the half spectrum, the split and bulk-copy variants)

// The row pass's arguments.
struct RowArgs {
    const float2* in;
    float2* out;
    int n, log2n, rows;
    int lines;       // rows a block takes
    int group_log2;  // >= 0: written grouped for the column blocks ([x / C][row][x % C]); -1: row-major
    int half_rows;   // > 0: rows y and y + half_rows in one block, with the columns' first radix-2 stage (v7)
};

// Block `bx` of the row pass (the kernel below, and the one-launch C2C).
// `in` may be `out` (the in-place C2C, m58): a block reads its rows (into registers, before the passes' barriers)
// before any of its threads writes them, and no other block touches them; so no __restrict__. Apart, the loads take
// the read-only path (__ldg) as they did through `const __restrict__`; in place, plain loads: the read-only path is
// for data no thread writes while the kernel runs, and the one-launch C2C reads these rows again after its barrier.
// m72: a line's exchanges wait on a named barrier of its threads (1 + line) rather than the block's,
// where its threads are whole warps and the block has 2 to 15 lines' threads (the hardware's 16 barriers, 0 the
// block's); not with the split, whose lines read their partners' shared memory.
template <bool kInv, int kLog2 = 0>
__device__ __forceinline__ void rows_c2c_block(const float2* in, float2* out, int n, int log2n, int rows, int lines,
                                               int group_log2, int half_rows, int bx) {
    extern __shared__ float4 smem_f4[];
    const int tpc = n / elems_per_thread(n), e = elems_per_thread(n);
    const int line = threadIdx.x / tpc, t = threadIdx.x % tpc;
    const int block_lines = int(blockDim.x) / tpc;
    const int bar_id = half_rows == 0 && tpc % 32 == 0 && block_lines >= 2 && block_lines <= 15 ? 1 + line : 0;
    // half_rows > 0: the block's first lines/2 lines are rows y, the others rows y + half_rows (their partners).
    const int hl = lines / 2;
    const bool upper = half_rows > 0 && line >= hl;
    const int row = half_rows > 0 ? bx * hl + (upper ? line - hl + half_rows : line) : bx * lines + line;
    const bool active = line < lines && row < rows;
    float2* sm = reinterpret_cast<float2*>(smem_f4) + line * padded_len(n);
    float2 v[kE];
    const std::size_t base = std::size_t(row) * n;
    if (active) {
        if (in == out) {
#pragma unroll
            for (int j = 0; j < kE; ++j)
                if (j < e) v[j] = in[base + in_index(j, n, log2n, t, tpc)];
        } else {
#pragma unroll
            for (int j = 0; j < kE; ++j)
                if (j < e) v[j] = __ldg(&in[base + in_index(j, n, log2n, t, tpc)]);
        }
    }
    stockham_line<kInv, Passes::Unrolled, kLog2>(v, sm, n, log2n, t, tpc, active, bar_id);
    if (half_rows > 0) {
        // The column FFT's first radix-2 stage (decimation in frequency) across rows y and y + H/2, done here where
        // both rows are at hand: y <- x_y + x_{y+H/2}, y + H/2 <- (x_y - x_{y+H/2}) W_H^y. The column pass is then
        // two FFTs of H/2 points per column, whose outputs are the even and the odd bins.
        stage_natural(sm, v, e, n, t, tpc, active);
        if (active) {
            const float2* psm =
                reinterpret_cast<const float2*>(smem_f4) + (upper ? line - hl : line + hl) * padded_len(n);
            float2 w = make_float2(1.0f, 0.0f);
            if (upper) {
                float sn, cs;
                sincospif(float(2 * (row - half_rows)) / float(rows), &sn, &cs);
                w = make_float2(cs, kInv ? sn : -sn);
            }
#pragma unroll
            for (int j = 0; j < kE; ++j)
                if (j < e) {
                    const float2 pv = *out_slot(psm, j, n, t, tpc);
                    v[j] = upper ? c_mul(c_sub(pv, v[j]), w) : c_add(v[j], pv);
                }
        }
    }
    if (!active) return;
    if (group_log2 < 0) {
#pragma unroll
        for (int j = 0; j < kE; ++j)
            if (j < e) out[base + out_index(j, n, t, tpc)] = v[j];
    } else {
        // Grouped for the column pass: the 2^group_log2 columns a column block takes lie together, row after row
        // ([x / C][row][x % C]), so that block reads one contiguous run instead of a C x 8-byte piece per row.
        const int gmask = (1 << group_log2) - 1;
#pragma unroll
        for (int j = 0; j < kE; ++j)
            if (j < e) {
                const int x = out_index(j, n, t, tpc);
                out[((std::size_t(x >> group_log2) * rows + row) << group_log2) + (x & gmask)] = v[j];
            }
    }
}

// kLog2 > 0: the line length 2^kLog2 is a compile-time constant (ilog2(n) must equal it), so the index arithmetic of
// the passes folds into immediates (PERF_NOTES.md v9); 0: any length, from the arguments.
template <bool kInv, int kThreads, int kLog2 = 0>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    fast_rows_c2c_kernel(const float2* in, float2* out, int n, int log2n, int rows, int lines, int group_log2,
                         int half_rows) {
    fast_detail::begin_dependent();
    if constexpr (kLog2 > 0)
        rows_c2c_block<kInv, kLog2>(in, out, 1 << kLog2, kLog2, rows, lines, group_log2, half_rows, blockIdx.x);
    else
        rows_c2c_block<kInv>(in, out, n, log2n, rows, lines, group_log2, half_rows, blockIdx.x);
}

// The tensor memory accelerator's copies (fast_detail::tma), and here its 2D copy through a tensor map (m85).
namespace tma {
using namespace fast_detail::tma;
__device__ __forceinline__ void load_2d(unsigned dst, const CUtensorMap* map, int x, int y, unsigned bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            dst),
        "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(bar)
        : "memory");
#endif
}
}  // namespace tma

// m83: the split's row pass (8192-point columns, 8192-point rows) with each line a block of
// its own. The paired row blocks (rows_c2c_block with half_rows) hold rows y and y + H/2 together, 2 x 66 KiB and 1024
// threads: one block an SM, whose load, passes and store run in sequence with nothing to overlap them. Here the
// columns' first radix-2 stage comes before the row FFT (it is linear and W_H^y is constant along a row): block g
// reads rows y = g / 2 and y + H/2, and transforms y + H/2 <- (x_y - x_{y+H/2}) W_H^y if g is odd, else
// y <- x_y + x_{y+H/2}. Each pair's rows are read twice, by neighbouring blocks (the second read from L2); a block is
// 512 threads and 66 KiB, two or three an SM. Output as the paired blocks write it (row-major, or grouped).
//
// m89 (kBulk): row y comes into shared memory as bulk copies (the TMA, eight of 8 KiB onto an
// mbarrier beyond the line's buffer) while the threads load row y + H/2 as before; each thread then takes its points
// of row y from shared memory, and the line runs in the same memory. Half the LSU's loads (m86 took a contiguous
// column pass from 63% to 73% of copy by moving its loads to bulk copies).
// Shared memory: the line's buffer, and with kBulk the barrier after it (split_alone_bar_offset).
__host__ __device__ constexpr int split_alone_bar_offset() {
    return ((8192 * int(sizeof(float2)) > padded_len(8192) * int(sizeof(float2))
                 ? 8192 * int(sizeof(float2))
                 : padded_len(8192) * int(sizeof(float2))) +
            7) &
           ~7;
}
template <bool kInv, bool kBulk>
__global__ void __launch_bounds__(512, 2)
    fast_rows_c2c_split_alone_kernel(const float2* __restrict__ in, float2* __restrict__ out, int rows,
                                     int group_log2) {
    fast_detail::begin_dependent();
    extern __shared__ float4 smem_f4[];
    constexpr int kLog2 = 13, n = 1 << kLog2, tpc = n / kE;
    const int t = threadIdx.x, h2 = rows / 2, y = int(blockIdx.x) >> 1;
    const bool upper = (blockIdx.x & 1) != 0;
    const int row = upper ? y + h2 : y;
    float2* sm = reinterpret_cast<float2*>(smem_f4);
    const float2* ra = in + std::size_t(y) * n;
    const float2* rb = in + std::size_t(y + h2) * n;
    [[maybe_unused]] const unsigned base = tma::smem_addr(smem_f4), bar = base + unsigned(split_alone_bar_offset());
    if constexpr (kBulk)
        tma::start_stage(bar, n * unsigned(sizeof(float2)),
                         [&] { tma::load_run(base, ra, n * unsigned(sizeof(float2)), bar); });
    float2 w = make_float2(1.0f, 0.0f);
    if (upper) {
        float sn, cs;
        sincospif(float(2 * y) / float(rows), &sn, &cs);
        w = make_float2(cs, kInv ? sn : -sn);
    }
    float2 v[kE];
    if constexpr (kBulk) {
#pragma unroll
        for (int j = 0; j < kE; ++j) v[j] = __ldg(&rb[in_index(j, n, kLog2, t, tpc)]);
        tma::finish_stage(bar);
#pragma unroll
        for (int j = 0; j < kE; ++j) {
            const float2 xa = sm[in_index(j, n, kLog2, t, tpc)];
            v[j] = upper ? c_mul(c_sub(xa, v[j]), w) : c_add(xa, v[j]);
        }
        __syncthreads();  // every point of row y read before the line's exchanges (the same memory) are written
    } else {
#pragma unroll
        for (int j = 0; j < kE; ++j) {
            const int i = in_index(j, n, kLog2, t, tpc);
            const float2 xa = __ldg(&ra[i]), xb = __ldg(&rb[i]);
            v[j] = upper ? c_mul(c_sub(xa, xb), w) : c_add(xa, xb);
        }
    }
    stockham_line<kInv, Passes::Unrolled, kLog2>(v, sm, n, kLog2, t, tpc, true);
    if (group_log2 < 0) {
#pragma unroll
        for (int j = 0; j < kE; ++j) out[std::size_t(row) * n + out_index(j, n, t, tpc)] = v[j];
    } else {
        const int gmask = (1 << group_log2) - 1;
#pragma unroll
        for (int j = 0; j < kE; ++j) {
            const int x = out_index(j, n, t, tpc);
            out[((std::size_t(x >> group_log2) * rows + row) << group_log2) + (x & gmask)] = v[j];
        }
    }
}

// m92: a row kernel's shared memory with kBulk: the lines' buffers, then the barrier.
__host__ __device__ inline int bulk_rows_bar_offset(int n, int lines) {
    return (lines * padded_len(n) * int(sizeof(float2)) + 7) & ~7;
}
// Two real rows a, b as one complex row z = a + i b; after the FFT, A[k] = (Z[k] + conj Z[-k]) / 2 and
// B[k] = -i (Z[k] - conj Z[-k]) / 2, kept for k = 0..n/2 (the rest is their conjugate mirror).
// group_log2 >= 0: the half spectrum written grouped for a column pass whose blocks take 2^group_log2 columns
// ([k / C][row][k % C], the last group padded), else row-major with row stride ld. reset_minmax: as pass A's.
// half_rows > 0 (= rows / 2): rows y and y + half_rows are the pair, and the columns' first radix-2 stage is done
// on their spectra (as the C2C row pass's split, v7): row y <- A + B, row y + rows/2 <- (A - B) W_rows^y; the column
// pass is then two FFTs of rows/2 points a column (PERF_NOTES.md s4). kSplit: half_rows > 0 (a template parameter:
// the split's arithmetic in the other kernels pushed their 2048-point rows from no spills to 40 bytes, 12-25%
// slower on the H100).
//
// m92 (kBulk; whole blocks, rows of 4096 points or more: rows_real decides): the block's
// real rows come into shared memory as bulk copies (thread 0, onto an mbarrier after the lines' buffers), no thread's
// loads: without the split its lines' rows 2p, 2p + 1 are one contiguous run (line l's at 2l x n floats), with it rows
// p (line l's at l x n) and p + half_rows (at (lines + l) x n) are two.
// kPadded (custom-fast's 3D R2C; not with kSplit or kBulk): the real rows n + 2 floats apart, FFTW's in-place r2c layout,
// where `half` is `plane` itself and ld = n/2 + 1: a block reads its rows whole before it writes them over, and no
// other block reads them. (A template parameter: a runtime row distance cost the 2D kernels 8-16 more bytes of spills.)
template <int kThreads, int kLog2, bool kSplit, bool kBulk = false, bool kPadded = false>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    fast_rows_real_kernel(const float* __restrict__ plane, float2* __restrict__ half, int n_arg, int log2n_arg,
                          int rows, int lines, int ld, int group_log2, unsigned int* reset_minmax, int half_rows) {
    fast_detail::begin_dependent();
    extern __shared__ float4 smem_f4[];
    if (reset_minmax && blockIdx.x == 0 && threadIdx.x == 0) fast_detail::reset_minmax(reset_minmax);
    const int n = kLog2 > 0 ? 1 << kLog2 : n_arg, log2n = kLog2 > 0 ? kLog2 : log2n_arg;
    const int tpc = n / elems_per_thread(n), e = elems_per_thread(n);
    const int line = threadIdx.x / tpc, t = threadIdx.x % tpc;
    const int pair = blockIdx.x * lines + line;
    constexpr bool split = kSplit;
    const int ra = split ? pair : 2 * pair, rb = split ? pair + half_rows : 2 * pair + 1;
    const bool active = line < lines && (split ? pair < half_rows : ra < rows);
    const bool has_b = rb < rows;
    float2* sm = reinterpret_cast<float2*>(smem_f4) + line * padded_len(n);
    float2 v[kE];
    if constexpr (kBulk) {
        const unsigned base = tma::smem_addr(smem_f4), bar = base + unsigned(bulk_rows_bar_offset(n, lines));
        const unsigned run = unsigned(lines) * unsigned(n) * unsigned(sizeof(float));  // `lines` rows
        const int first = int(blockIdx.x) * lines;                                     // the block's first pair
        tma::start_stage(bar, 2u * run, [&] {
            if constexpr (split) {
                tma::load_run(base, plane + std::size_t(first) * n, run, bar);
                tma::load_run(base + run, plane + std::size_t(first + half_rows) * n, run, bar);
            } else {
                tma::load_run(base, plane + std::size_t(2 * first) * n, 2u * run, bar);
            }
        });
        tma::finish_stage(bar);
        const float* staged = reinterpret_cast<const float*>(smem_f4);
        const float* sa = staged + std::size_t(split ? line : 2 * line) * n;
        const float* sb = staged + std::size_t(split ? lines + line : 2 * line + 1) * n;
#pragma unroll
        for (int j = 0; j < kE; ++j)
            if (j < e) {
                const int i = in_index(j, n, log2n, t, tpc);
                v[j] = make_float2(sa[i], sb[i]);
            }
        __syncthreads();  // every staged point read before the lines' exchanges (the same memory) are written
    } else {
        if (active)
#pragma unroll
            for (int j = 0; j < kE; ++j)
                if (j < e) {
                    const int i = in_index(j, n, log2n, t, tpc);
                    const std::size_t row = kPadded ? std::size_t(n) + 2 : std::size_t(n);
                    v[j] = make_float2(__ldg(&plane[std::size_t(ra) * row + i]),
                                       has_b ? __ldg(&plane[std::size_t(rb) * row + i]) : 0.0f);
                }
    }
    stockham_line<false, kLog2 == 13 ? Passes::Peeled : Passes::Rolled, kLog2 == 13 ? kLog2 : 0>(v, sm, n, log2n, t,
                                                                                                 tpc, active);
    stage_natural(sm, v, e, n, t, tpc, active);
    if (!active) return;
    float2 w = make_float2(1.0f, 0.0f);
    if constexpr (split) {
        float sn, cs;
        sincospif(float(2 * ra) / float(rows), &sn, &cs);
        w = make_float2(cs, -sn);
    }
    for (int k = t; k <= n / 2; k += tpc) {
        float2 a, b;
        unpack_real_pair(sm, n, k, &a, &b);
        if constexpr (split) {
            const float2 sum = c_add(a, b);
            b = c_mul(c_sub(a, b), w);
            a = sum;
        }
        if (group_log2 < 0) {
            half[std::size_t(ra) * ld + k] = a;
            if (has_b) half[std::size_t(rb) * ld + k] = b;
        } else if constexpr (split) {
            const std::size_t at = (std::size_t(k >> group_log2) * rows << group_log2) + (k & ((1 << group_log2) - 1));
            half[at + (std::size_t(ra) << group_log2)] = a;
            half[at + (std::size_t(rb) << group_log2)] = b;
        } else {
            const std::size_t at =
                ((std::size_t(k >> group_log2) * rows + ra) << group_log2) + (k & ((1 << group_log2) - 1));
            half[at] = a;
            if (has_b) half[at + (1 << group_log2)] = b;  // row rb = ra + 1
        }
    }
}

// m96: exp(-i pi m / kE) for m = 0..kE - 1, to float precision (from double Taylor series, evaluated by the compiler):
// the steps of W_2n^k between the bins k = t + m tpc that a thread of store_r2c_row writes when tpc = n / kE.
struct HalfTurnSteps {
    float2 w[kE];
};
constexpr double taylor_sin(double x) {  // |x| <= pi: the terms fall below 1e-17 well before the 30th
    double term = x, sum = x;
    for (int i = 1; i < 30; ++i) {
        term *= -x * x / double((2 * i) * (2 * i + 1));
        sum += term;
    }
    return sum;
}
constexpr double taylor_cos(double x) {
    double term = 1.0, sum = 1.0;
    for (int i = 1; i < 30; ++i) {
        term *= -x * x / double((2 * i - 1) * (2 * i));
        sum += term;
    }
    return sum;
}
constexpr HalfTurnSteps half_turn_steps() {
    HalfTurnSteps s{};
    for (int m = 0; m < kE; ++m) {
        const double x = 3.14159265358979323846 * double(m) / double(kE);
        s.w[m] = float2{float(taylor_cos(x)), float(-taylor_sin(x))};
    }
    return s;
}
__constant__ HalfTurnSteps kHalfTurnSteps = half_turn_steps();

// The columns-first R2C's output row (n + 1 bins at `out`) from Z, the 2D DFT of the plane read as complex pairs, along
// its row (zr(i), i < n) and along its mirror row (zm(i)): with M = conj zm(-k), X[k] = (Z + M)/2 - i W_2n^k (Z - M)/2.
// m96 (rows of kE points or more): W_2n^k for k = t + m tpc as W_2n^t exp(-i pi m /
// kE), one sincospif a thread and a product a bin with a constant (kHalfTurnSteps), where each bin took a sincospif of
// its own: 17 a thread, more than the line's FFT (three a thread at 4096 points). Nsight Compute had the 8192^2 pass
// at 76% of the SMs' throughput and 44% of DRAM's (tests/bench/ncu/s25-8192-passes.txt), and m90 (its loads as bulk
// copies) moved nothing.
template <class Zr, class Zm>
__device__ __forceinline__ void store_r2c_row(float2* out, int n, int t, int tpc, const Zr& zr, const Zm& zm_of) {
    auto bin = [&](int k, float2 w) {
        const float2 zk = zr(k & (n - 1)), zm = zm_of((n - k) & (n - 1));
        const float2 a = make_float2(0.5f * (zk.x + zm.x), 0.5f * (zk.y - zm.y));
        const float2 d = make_float2(zk.x - zm.x, zk.y + zm.y);  // Z - conj(mirror)
        const float2 b = make_float2(0.5f * d.y, -0.5f * d.x);
        out[k] = c_add(a, c_mul(b, w));
    };
    if (tpc * kE == n) {
        float sn, cs;
        sincospif(float(t) / float(n), &sn, &cs);
        const float2 wt = make_float2(cs, -sn);  // W_2n^t
#pragma unroll
        for (int m = 0; m < kE; ++m) bin(t + m * tpc, c_mul(wt, kHalfTurnSteps.w[m]));
        if (t == 0) bin(n, make_float2(-1.0f, -0.0f));  // W_2n^n = -1
        return;
    }
    for (int k = t; k <= n; k += tpc) {
        float sn, cs;
        sincospif(float(k) / float(n), &sn, &cs);  // W_2n^k = exp(-2 pi i k / 2n)
        bin(k, make_float2(cs, -sn));
    }
}

// R2C in cuFFT's layout, columns first (FastFft::r2c_columns_first, PERF_NOTES.md m78), its second pass. The first
// transformed the columns of the real plane read as an H x n complex plane, z[y][m] = x[y][2m] + i x[y][2m + 1]
// (n = W/2), into `in` (row-major, n a row). This pass transforms its rows, so that `in` holds Z, the 2D DFT of z, and
// unpacks: with M = conj Z[-ky][-kx], A = (Z[ky][kx] + M) / 2 and B = -i (Z[ky][kx] - M) / 2 are the spectra of the
// even and the odd columns, and X[ky][kx] = A + W_W^kx B for kx = 0..n. Row -ky is H - ky, so a block's lines come in
// pairs (ky, H - ky), the first pair rows 0 and H/2 (each its own mirror), and each line writes its whole output row
// of n + 1 bins (ld apart): contiguous stores, where the rows-first R2C's column pass stores C-bin pieces of rows
// of n + 1 bins (PERF_NOTES.md m78). `lines` is even; the grid covers rows / lines blocks.
template <int kThreads, int kLog2>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    fast_rows_r2c_last_kernel(const float2* __restrict__ in, float2* __restrict__ half, int n_arg, int log2n_arg,
                              int rows, int lines, int ld) {
    fast_detail::begin_dependent();
    extern __shared__ float4 smem_f4[];
    const int n = kLog2 > 0 ? 1 << kLog2 : n_arg, log2n = kLog2 > 0 ? kLog2 : log2n_arg;
    const int tpc = n / elems_per_thread(n), e = elems_per_thread(n);
    const int line = threadIdx.x / tpc, t = threadIdx.x % tpc;
    const int pair = int(blockIdx.x) * (lines / 2) + line / 2;
    const bool second = (line & 1) != 0;
    const int row = pair == 0 ? (second ? rows / 2 : 0) : (second ? rows - pair : pair);
    const bool active = line < lines && pair < rows / 2;
    float2* sm = reinterpret_cast<float2*>(smem_f4) + line * padded_len(n);
    const float2* msm = pair == 0 ? sm : reinterpret_cast<const float2*>(smem_f4) + (line ^ 1) * padded_len(n);
    float2 v[kE];
    if (active)
#pragma unroll
        for (int j = 0; j < kE; ++j)
            if (j < e) v[j] = __ldg(&in[std::size_t(row) * n + in_index(j, n, log2n, t, tpc)]);
    stockham_line<false, Passes::Unrolled, kLog2>(v, sm, n, log2n, t, tpc, active);
    stage_natural(sm, v, e, n, t, tpc, active);  // the mirror line's bins too, on the block's barrier
    if (!active) return;
    store_r2c_row(
        half + std::size_t(row) * ld, n, t, tpc, [sm](int i) { return sm[padi(i)]; },
        [msm](int i) { return msm[padi(i)]; });
}

// m82: the same for 8192-point columns, split as C2C's are (v7) but the other way round. The column pass took the even
// and the odd rows apart (the plane read as H/2 rows of 2n points, row j = rows 2j and 2j + 1: E and O, H/2 points a
// column) into `in` (H/2 rows [E_k | O_k], 2n apart); this pass also does the columns' last radix-2 stage,
// Z[k] = E_k + w^k O_k and Z[k + H/2] = E_k - w^k O_k (w = W_H), on the rows' spectra (the row FFT is linear, w^k constant
// along a row). A block takes groups of four lines, E and O of rows a and b of `in`, whose output rows a, a + H/2, b and
// b + H/2 are one another's mirrors: b = H/2 - a, or in group 0 a = 0 (rows 0 and H/2 their own) and b = H/4 (rows H/4
// and 3H/4 each other's). rows >= 4; `lines` a multiple of four; the grid covers rows / lines blocks.
template <int kThreads, int kLog2>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    fast_rows_r2c_last_split_kernel(const float2* __restrict__ in, float2* __restrict__ half, int n_arg, int log2n_arg,
                                    int rows, int lines, int ld) {
    fast_detail::begin_dependent();
    extern __shared__ float4 smem_f4[];
    const int n = kLog2 > 0 ? 1 << kLog2 : n_arg, log2n = kLog2 > 0 ? kLog2 : log2n_arg;
    const int tpc = n / elems_per_thread(n), e = elems_per_thread(n);
    const int line = threadIdx.x / tpc, t = threadIdx.x % tpc;
    const int h2 = rows / 2, group = int(blockIdx.x) * (lines / 4) + line / 4, slot = line & 3;
    const int a = group == 0 ? 0 : group, b = group == 0 ? h2 / 2 : h2 - group;
    const bool active = group < rows / 4;
    const float2* base = reinterpret_cast<const float2*>(smem_f4) + (line & ~3) * padded_len(n);  // the group's lines
    float2* sm = reinterpret_cast<float2*>(smem_f4) + line * padded_len(n);
    float2 v[kE];
    if (active) {
        const float2* src = in + (std::size_t(slot < 2 ? a : b) * 2 + (slot & 1)) * n;
#pragma unroll
        for (int j = 0; j < kE; ++j)
            if (j < e) v[j] = __ldg(&src[in_index(j, n, log2n, t, tpc)]);
    }
    stockham_line<false, Passes::Unrolled, kLog2>(v, sm, n, log2n, t, tpc, active);
    stage_natural(sm, v, e, n, t, tpc, active);  // the group's other lines too, on the block's barrier
    if (!active) return;
    const int r = slot == 0 ? a : slot == 1 ? a + h2 : slot == 2 ? b : b + h2;  // this line's output row
    const int m = r == 0 ? 0 : rows - r;                                        // and its mirror
    // Z of output row `row`: its source row k = row mod H/2 (a or b), and +-w^k.
    auto source = [&](int row, const float2*& ek, const float2*& ok, float2& sw) {
        const int k = row < h2 ? row : row - h2;
        ek = base + (k == a ? 0 : 2) * padded_len(n);
        ok = ek + padded_len(n);
        float sn, cs;
        sincospif(float(2 * k) / float(rows), &sn, &cs);
        sw = row < h2 ? make_float2(cs, -sn) : make_float2(-cs, sn);
    };
    const float2 *er, *orow, *em, *om;
    float2 wr, wm;
    source(r, er, orow, wr);
    source(m, em, om, wm);
    store_r2c_row(
        half + std::size_t(r) * ld, n, t, tpc,
        [er, orow, wr](int i) { return c_add(er[padi(i)], c_mul(wr, orow[padi(i)])); },
        [em, om, wm](int i) { return c_add(em[padi(i)], c_mul(wm, om[padi(i)])); });
}

// m84: m82's row pass with two lines a block instead of groups of four, for the rows of
// 2048 and 4096 points (the group then takes 66-132 KiB and one block an SM). The last column stage is linear too, so
// output row r's line is formed as it is loaded: z_r = e_k + w^k o_k (r = k < H/2) or e_k - w^k o_k (r = k + H/2),
// from `in`'s row k = [e_k | o_k]. A block's lines come in mirror pairs: for group g > 0 (a = g, b = H/2 - g) the pairs
// (a, b + H/2) and (a + H/2, b); group 0 gives (0, H/2), each its own mirror, and (H/4, 3H/4). The two pairs of a
// group read the same two rows of `in` (pair q = 2g + which, neighbours: the second read from L2 or L1). 512 threads
// a block (2 lines of 4096 points or 4 of 2048), two blocks an SM; the grid covers rows / lines blocks.
template <int kLog2>
__global__ void __launch_bounds__(512, 2)
    fast_rows_r2c_last_split_pairs_kernel(const float2* __restrict__ in, float2* __restrict__ half, int rows, int ld) {
    fast_detail::begin_dependent();
    extern __shared__ float4 smem_f4[];
    constexpr int n = 1 << kLog2, tpc = n / kE, lines = 512 / tpc;
    static_assert(n >= 256 && lines % 2 == 0, "whole mirror pairs of lines in a block of 512 threads");
    const int line = threadIdx.x / tpc, t = threadIdx.x % tpc;
    const int h2 = rows / 2, q = int(blockIdx.x) * (lines / 2) + line / 2, g = q >> 1;
    const bool which = (q & 1) != 0, second = (line & 1) != 0;
    const int r = g == 0 ? (which ? h2 / 2 + (second ? h2 : 0) : (second ? h2 : 0))
                         : (which ? (second ? h2 - g : g + h2) : (second ? rows - g : g));
    const int k = r < h2 ? r : r - h2;
    float sn, cs;
    sincospif(float(2 * k) / float(rows), &sn, &cs);
    const float2 sw = r < h2 ? make_float2(cs, -sn) : make_float2(-cs, sn);  // +-w^k, w = W_H
    const float2* ek = in + std::size_t(k) * 2 * n;
    const float2* ok = ek + n;
    float2 v[kE];
#pragma unroll
    for (int j = 0; j < kE; ++j) {
        const int i = in_index(j, n, kLog2, t, tpc);
        v[j] = c_add(__ldg(&ek[i]), c_mul(sw, __ldg(&ok[i])));
    }
    float2* sm = reinterpret_cast<float2*>(smem_f4) + line * padded_len(n);
    const float2* msm = r == 0 || r == h2 ? sm : reinterpret_cast<const float2*>(smem_f4) + (line ^ 1) * padded_len(n);
    stockham_line<false, Passes::Unrolled, kLog2>(v, sm, n, kLog2, t, tpc, true);
    stage_natural(sm, v, kE, n, t, tpc, true);  // the mirror line's bins too, on the block's barrier
    store_r2c_row(
        half + std::size_t(r) * ld, n, t, tpc, [sm](int i) { return sm[padi(i)]; },
        [msm](int i) { return msm[padi(i)]; });
}

// [SECTION] Pass 2: columns, with the epilogue the caller needs (complex, view values, picture)

// The view epilogue of the picture kernels, for the bins a thread holds in registers (see view_bin).
template <ColOut kOut>
__device__ __forceinline__ void view_epilogue(const ColParams& p, const float2 (&v)[kE], int e, bool active, int n,
                                              int t, int tpc, int ky, bool mirror) {
    float lo = FLT_MAX, hi = -FLT_MAX;
    float2 range = make_float2(0.0f, 0.0f);
    if constexpr (kOut == ColOut::Picture) range = *p.range;
    if (active)
#pragma unroll
        for (int j = 0; j < kE; ++j)
            if (j < e) view_bin<kOut>(p, v[j], out_index(j, n, t, tpc), ky, mirror, range, lo, hi);
    if constexpr (kOut == ColOut::HalfValues) flush_range(p.minmax, lo, hi);
}

// Column FFTs with complex output (C2C pass 2, and the half spectrum of real_spectrum). A block reads its
// whole columns before writing them back, so it may run in place.
// Block (bx, by) of the column pass (the kernel below, and the one-launch C2C).
// kValues: the picture's rows-first column pass (p3): bin (kx = the column, ky) of a real plane's half spectrum
// to its view value, written grouped like the input ([kx / C][ky][kx % C], values), and the min/max of the
// values and their mirrors folded into p.minmax.
template <bool kInv, bool kValues = false, int kLog2 = 0>
__device__ __forceinline__ void cols_block(const ColParams& p, int bx, int by) {
    extern __shared__ float4 smem_f4[];
    const int n = p.n, log2n = p.log2n;
    const int tpc = n / elems_per_thread(n), e = elems_per_thread(n);
    const int C = p.cols_per_block;
    const int c = threadIdx.x % C, t = threadIdx.x / C;  // neighbouring threads take neighbouring columns
    const int col = bx * C + c;
    const bool active = t < tpc && col < p.ncols;
    const int sub = p.sub, s0 = by * n;  // s0: the first input row of this sub-column
    float2* sm = reinterpret_cast<float2*>(smem_f4) + c * p.col_stride;
    // m102: the first pass's butterflies a thread's neighbouring ones (stockham_step's blocked_first) where its radix
    // is below 16 and C > 1 columns share a half-warp; its loads follow (which rows a warp reads does not matter here:
    // every load is a row's C columns).
    const bool blocked = p.blocked_first && C > 1 && first_radix(log2n) < 16 && n > kE;
    const int tl = blocked ? t * (e / first_radix(log2n)) : t, ql = blocked ? 1 : tpc;
    float2 v[kE];
    if (active) {
        if (p.group_log2 < 0) {
#pragma unroll
            for (int j = 0; j < kE; ++j)
                if (j < e) v[j] = p.in[std::size_t(s0 + in_index(j, n, log2n, tl, ql)) * p.ld_in + col];
        } else {
            // This column's group (a block's C columns may be part of one: narrow_column_blocks) and place in it.
            const float2* g = p.in + ((std::size_t(col >> p.group_log2) * n * sub) << p.group_log2) +
                              (col & ((1 << p.group_log2) - 1));
#pragma unroll
            for (int j = 0; j < kE; ++j)
                if (j < e) v[j] = g[std::size_t(s0 + in_index(j, n, log2n, tl, ql)) << p.group_log2];
        }
    }
    stockham_line<kInv, Passes::Unrolled, kLog2>(v, sm, n, log2n, t, tpc, active, 0, blocked);

    if constexpr (kValues) {
        float lo = FLT_MAX, hi = -FLT_MAX;
        if (active) {
            // Each (column group, half) block's values together: [kx / C][ky % sub][ky / sub][kx % C].
            float* out = p.values + ((std::size_t(bx * sub + by) * n) << p.values_log2) + c;
            const bool has_mirror = col > 0 && 2 * col < p.width;
#pragma unroll
            for (int j = 0; j < kE; ++j)
                if (j < e) {
                    const int k = out_index(j, n, t, tpc), ky = k * sub + by;
                    const float val = fast_detail::bin_view_value(p, v[j], col, ky);
                    out[std::size_t(k) << p.values_log2] = val;
                    lo = fminf(lo, val);
                    hi = fmaxf(hi, val);
                }
            // The mirrors' values (columns 0 and W/2 hold their own mirrors, each with its own value): the same
            // values, or for phase and imaginary the negated ones, whose range is [-hi, -lo].
            if (has_mirror && mirror_value(p.view, 1.0f) < 0.0f) {
                const float mlo = -hi, mhi = -lo;
                lo = fminf(lo, mlo);
                hi = fmaxf(hi, mhi);
            }
        }
        flush_range(p.minmax, lo, hi);
    } else if (active) {
        if (p.out_transposed) {
#pragma unroll
            for (int j = 0; j < kE; ++j)
                if (j < e) p.out[std::size_t(col) * p.ld_out + out_index(j, n, t, tpc) * sub + by] = v[j];
        } else {
#pragma unroll
            for (int j = 0; j < kE; ++j)
                if (j < e) p.out[std::size_t(out_index(j, n, t, tpc) * sub + by) * p.ld_out + col] = v[j];
        }
    }
}

// A column pass's block: its column group and which half of the columns it transforms (0 unless p.sub == 2).
__device__ __forceinline__ int col_group(const ColParams& p) {
    return p.halves_adjacent ? int(blockIdx.x >> 1) : int(blockIdx.x);
}
__device__ __forceinline__ int col_half(const ColParams& p) {
    return p.halves_adjacent ? int(blockIdx.x & 1) : int(blockIdx.y);
}
// The grid of a column pass of `groups` column groups (see ColParams::halves_adjacent).
dim3 cols_grid(const ColParams& p, int groups) {
    const unsigned planes = unsigned(p.batch > 1 ? p.batch : 1);
    return p.halves_adjacent ? dim3(groups * 2, 1, planes) : dim3(groups, p.sub, planes);
}

template <int kThreads, int kLog2 = 0>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads) fast_cols_values_kernel(ColParams p) {
    fast_detail::begin_dependent();
    if constexpr (kLog2 > 0) {
        p.n = 1 << kLog2;
        p.log2n = kLog2;
    }
    cols_block<false, true, kLog2>(p, col_group(p), col_half(p));
}

template <bool kInv, int kThreads, int kLog2 = 0>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads) fast_cols_kernel(ColParams p) {
    fast_detail::begin_dependent();
    if (p.batch > 1) {  // plane blockIdx.z of a batch (c2c_3d's slabs)
        p.in += std::size_t(blockIdx.z) * std::size_t(p.batch_stride);
        p.out += std::size_t(blockIdx.z) * std::size_t(p.batch_stride);
    }
    if constexpr (kLog2 > 0) {
        p.n = 1 << kLog2;
        p.log2n = kLog2;
    }
    cols_block<kInv, false, kLog2>(p, col_group(p), col_half(p));
}

// Shared memory of fast_cols_tma_kernel: the larger of the staged points and the lines' buffers, then the barrier.
__host__ __device__ inline int tma_cols_bar_offset(int n, int C, int col_stride) {
    const int staged = n * C * int(sizeof(float2)), lines = C * col_stride * int(sizeof(float2));
    return ((staged > lines ? staged : lines) + 7) & ~7;
}

// m85: a column pass of C neighbouring columns of a row-major plane (sub 1, ungrouped, not transposed out; the
// columns-first R2C's first pass) whose loads are tensor-memory-accelerator copies rather than a thread's eight-byte
// loads: thread 0 asks for the block's C columns x n rows as n / box_rows boxes of C x box_rows points, which land
// densely ([row][c]) in shared memory and complete on a barrier there; each thread then takes its points from shared
// memory and the line runs as cols_block's does, in the same memory. Under ncu the register-loaded version's warps
// stalled mostly on lg_throttle (9.8 a issued instruction at 8192^2, 36% of DRAM's peak): 16 K strided 8-byte loads
// a block through the LSU.
//
// m86: the same for a column pass over a grouped scratch (p.group_log2 >= 0, the block's C columns one whole group:
// C2C pass 2 at 4096-point columns, whole or as the split's halves): the block's input is one contiguous run of
// n x C points ([row][c], as the TMA boxes leave them), copied as n / box_rows bulk copies of box_rows rows; its
// output as cols_block writes it (the halves' rows interleaved where sub == 2, or transposed out). `plane` is unused.
template <bool kInv, int kThreads, int kLog2>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    fast_cols_tma_kernel(const __grid_constant__ CUtensorMap plane, ColParams p, int box_rows) {
    extern __shared__ __align__(128) unsigned char tma_smem[];
    constexpr int n = 1 << kLog2, log2n = kLog2;
    constexpr int tpc = n / kE;
    const int C = p.cols_per_block;
    const int c = threadIdx.x % C, t = threadIdx.x / C;
    const int bx = col_group(p), by = col_half(p);
    const int col = bx * C + c;
    const unsigned base = tma::smem_addr(tma_smem);
    const unsigned bar = base + unsigned(tma_cols_bar_offset(n, C, p.col_stride));
    if (threadIdx.x == 0) tma::bar_init(bar, 1);
    __syncthreads();
    fast_detail::begin_dependent();
    if (threadIdx.x == 0) {
        const unsigned box_bytes = unsigned(box_rows * C) * unsigned(sizeof(float2));
        tma::bar_expect(bar, unsigned(n * C) * unsigned(sizeof(float2)));
        if (p.group_log2 >= 0) {
            const float2* run = p.in + ((std::size_t(bx) * n * p.sub + std::size_t(by) * n) << p.group_log2);
            for (int i = 0; i < n / box_rows; ++i)
                tma::load_bulk(base + unsigned(i) * box_bytes, run + std::size_t(i) * box_rows * C, box_bytes, bar);
        } else {
            for (int i = 0; i < n / box_rows; ++i)
                tma::load_2d(base + unsigned(i) * box_bytes, &plane, 2 * bx * C, i * box_rows, bar);
        }
    }
    tma::bar_wait(bar, 0);
    const float2* staged = reinterpret_cast<const float2*>(tma_smem);
    // m104: m102's first-pass order (a thread's butterflies neighbours: its first-pass stores free of bank conflicts)
    // with the butterflies' order within a thread swizzled by the Gray code of t, so that the half-warp's reads of the
    // dense staged rows ([row][c], rows nq apart otherwise on one bank) stay free of them too
    // (tests/device/smem_banks.py's model: 2048 points, C = 4 or 8: 1.00 both, against 2-way stores before).
    constexpr int kR0 = 1 << (kLog2 % 4 ? kLog2 % 4 : 4), kNq = kE / kR0;
    const bool blocked = p.blocked_first && kR0 < 16;
    const int swz = blocked ? ((t ^ (t >> 1)) & (kNq - 1)) : 0;
    float2 v[kE];
#pragma unroll
    for (int j = 0; j < kE; ++j)
        v[j] = staged[in_index(j, n, log2n, blocked ? t * kNq : t, blocked ? 1 : tpc, swz) * C + c];
    __syncthreads();  // every point read before the lines' buffers (the same memory) are written
    float2* sm = reinterpret_cast<float2*>(tma_smem) + c * p.col_stride;
    stockham_line<kInv, Passes::Unrolled, kLog2>(v, sm, n, log2n, t, tpc, true, 0, blocked, swz);
    if (col >= p.ncols) return;
    const int sub = p.sub;
    if (p.out_transposed) {
#pragma unroll
        for (int j = 0; j < kE; ++j) p.out[std::size_t(col) * p.ld_out + out_index(j, n, t, tpc) * sub + by] = v[j];
    } else {
#pragma unroll
        for (int j = 0; j < kE; ++j) p.out[std::size_t(out_index(j, n, t, tpc) * sub + by) * p.ld_out + col] = v[j];
    }
}

// Both passes of a small C2C in one launch (PERF_NOTES.md s3): the row blocks, a grid-wide barrier, the column
// blocks. Launched cooperatively, so every block is resident and the barrier cannot deadlock; it also orders the
// row pass's global stores before the column pass's loads.
// kLog2 > 0: a square plane of side 2^kLog2, the lengths compile-time constants (as with_log2's kernels).
template <bool kInv, int kThreads, int kLog2 = 0>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    fast_c2c_one_launch_kernel(RowArgs a, int row_blocks, ColParams p, int col_blocks) {
    if constexpr (kLog2 > 0) {
        a.n = p.n = 1 << kLog2;
        a.log2n = p.log2n = kLog2;
    }
    if (int(blockIdx.x) < row_blocks)
        rows_c2c_block<kInv, kLog2>(a.in, a.out, a.n, a.log2n, a.rows, a.lines, a.group_log2, a.half_rows, blockIdx.x);
    cooperative_groups::this_grid().sync();
    if (int(blockIdx.x) < col_blocks) cols_block<kInv, false, kLog2>(p, blockIdx.x, 0);
}

// Picture path, pass A: columns of the real image, two neighbouring columns as one complex column (one 8-byte
// load per row), unpacked into both columns' spectra along y, kept for ky = 0..H/2: G[ky][x], row stride W.
template <int kThreads, int kLog2 = 0>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    fast_cols_real_kernel(const float* __restrict__ plane, float2* __restrict__ g, int W, int H_arg, int log2h_arg,
                          int C, int col_stride, unsigned int* reset_minmax) {
    fast_detail::begin_dependent();
    extern __shared__ float4 smem_f4[];
    if (reset_minmax && blockIdx.x == 0 && threadIdx.x == 0) fast_detail::reset_minmax(reset_minmax);
    const int H = kLog2 > 0 ? 1 << kLog2 : H_arg, log2h = kLog2 > 0 ? kLog2 : log2h_arg;
    const int n = H, tpc = n / elems_per_thread(n), e = elems_per_thread(n);
    const int c = threadIdx.x % C, t = threadIdx.x / C;
    const int pair = blockIdx.x * C + c;
    const int xa = 2 * pair, xb = 2 * pair + 1;
    const bool active = xa < W;
    const bool has_b = xb < W;
    float2* sm = reinterpret_cast<float2*>(smem_f4) + c * col_stride;
    float2 v[kE];
    if (active)
#pragma unroll
        for (int j = 0; j < kE; ++j)
            if (j < e) {
                const std::size_t i = std::size_t(in_index(j, n, log2h, t, tpc)) * W + xa;
                v[j] = has_b ? __ldg(reinterpret_cast<const float2*>(plane + i)) : make_float2(__ldg(plane + i), 0.0f);
            }
    stockham_line<false>(v, sm, n, log2h, t, tpc, active);
    stage_natural(sm, v, e, n, t, tpc, active);
    if (!active) return;
    for (int ky = t; ky <= n / 2; ky += tpc) {
        float2 a, b;
        unpack_real_pair(sm, n, ky, &a, &b);
        float2* row = g + std::size_t(ky) * W;
        row[xa] = a;
        if (has_b) row[xb] = b;
    }
}

// Picture path, pass B: the rows ky = 0..H/2 of G, transformed along x, straight into the picture (and its
// mirror rows): contiguous reads and contiguous writes.
template <ColOut kOut, int kThreads, int kLog2 = 0>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads) fast_rows_view_kernel(ColParams p, int lines) {
    fast_detail::begin_dependent();
    extern __shared__ float4 smem_f4[];
    if constexpr (kLog2 > 0) {
        p.width = 1 << kLog2;
        p.log2n = kLog2;
    }
    const int n = p.width, log2n = p.log2n;
    const int tpc = n / elems_per_thread(n), e = elems_per_thread(n);
    const int line = threadIdx.x / tpc, t = threadIdx.x % tpc;
    const int ky = blockIdx.x * lines + line;
    const bool active = line < lines && ky < p.ncols;  // ncols: the rows of G, H/2 + 1
    float2* sm = reinterpret_cast<float2*>(smem_f4) + line * padded_len(n);
    float2 v[kE];
    if (active)
#pragma unroll
        for (int j = 0; j < kE; ++j)
            if (j < e) v[j] = p.in[std::size_t(ky) * p.ld_in + in_index(j, n, log2n, t, tpc)];
    stockham_line<false, Passes::Unrolled, kLog2>(v, sm, n, log2n, t, tpc, active);
    view_epilogue<kOut>(p, v, e, active, n, t, tpc, ky, ky != 0 && 2 * ky != p.height);
}

// [SECTION] The picture's range and colormap kernels

__global__ void init_minmax_kernel(unsigned int* mm) {
    fast_detail::begin_dependent();
    fast_detail::reset_minmax(mm);
}

__global__ void finish_fast_range_kernel(RangeMode mode, const float* sorted, long long i_lo, long long i_hi,
                                         float fixed_lo, float fixed_hi, float2* range) {
    fast_detail::begin_dependent();
    *range = mode == RangeMode::Percentile ? make_float2(sorted[i_lo], sorted[i_hi]) : make_float2(fixed_lo, fixed_hi);
}

__global__ void fast_colormap_kernel(const float* __restrict__ values, long long count, int width, const float2* range,
                                     const std::uint32_t* __restrict__ lut, PictureTarget target) {
    fast_detail::begin_dependent();
    const fast_detail::Range01 r = fast_detail::range01(*range);
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x)
        store_picture(target, lut, fast_detail::to01(values[i], r), int(i % width), int(i / width), std::size_t(i));
}

// The picture from pass B's half of view values (ColOut::HalfValues): each bin (kx, ky), ky = 0..H/2, at its
// place and, where it has one, its mirror (-kx, -ky) at that one's, as view_bin places them. The range comes from
// pass B's min/max here (one thread keeps it in `range` for FastFft::range), not from a kernel of its own.
__global__ void half_colormap_kernel(const float* __restrict__ values, int width, int height, View view, bool shift,
                                     RangeMode mode, const unsigned int* minmax, float top_span, float2* range,
                                     const std::uint32_t* __restrict__ lut, PictureTarget target) {
    fast_detail::begin_dependent();
    const int kx = blockIdx.x * blockDim.x + threadIdx.x, ky = blockIdx.y;
    const float2 r = fast_detail::range_from_minmax(mode, minmax, top_span);
    if (kx == 0 && ky == 0) *range = r;
    if (kx >= width) return;
    const float val = values[std::size_t(ky) * width + kx];
    fast_detail::store_bin_pair(target, lut, val, mirror_value(view, val), bin_places(kx, ky, width, height, shift),
                                width, r, ky != 0 && 2 * ky != height);
}

// The parameters both picture passes over the half spectrum `in` share (the view, the mask, the min/max).
ColParams picture_params(const float2* in, int ld_in, int ncols, int width, int height, const ViewParams& vp,
                         const float* mask, unsigned int* minmax) {
    ColParams p{};
    p.in = in;
    p.ld_in = ld_in;
    p.ncols = ncols;
    p.width = width;
    p.height = height;
    p.view = vp.view;
    p.shift = vp.shift;
    p.mask = mask;
    p.minmax = minmax;
    return p;
}

// The picture from the rows-first column pass's values (p3): bin (kx, ky), kx = 0..W/2, at its place, and for
// 0 < kx < W/2 its mirror (-kx, -ky) at that one's (the mirrors of columns 0 and W/2 are bins of those columns,
// which their own threads write). values: [kx / C][ky % sub][ky / sub][kx % C], C = 2^g, sub 1 or 2 (the split's
// halves). A block of 32 x 8 threads takes a tile of 32 columns x 32 value rows: it reads the tile in the values'
// own order (runs of 32 C floats, one for each group of C columns, or of 32 where C > 32) into shared memory, then
// writes whole picture rows of 32 texels (and their mirrors). Reading it row by row instead took 16-byte pieces
// of C = 4 columns: 59% of copy at 4096^2 on the H100 (PERF_NOTES.md p4).
// The target kinds the colormap is compiled for: the general store_picture (levels, or RGBA8 to a buffer and a
// surface), and the two RGBA8 targets alone (the engine's picture slots, the viewer's interop surface), which
// leave the per-texel format and target tests out (at 2048^2 on the H100 the kernel was bound by its
// instructions: 0.74 issued warps a scheduler a cycle, DRAM 15%; PERF_NOTES.md p7).
enum class TargetKind : int { General = 0, RgbaBuffer, Surface };
template <TargetKind kKind>
__device__ __forceinline__ void store_texel(const PictureTarget& target, const std::uint32_t* __restrict__ lut, float t,
                                            int x, int y, int W) {
    if constexpr (kKind == TargetKind::RgbaBuffer) {
        target.rgba[std::size_t(y) * W + x] = __ldg(&lut[level_of(t)]);
    } else if constexpr (kKind == TargetKind::Surface) {
        surf2Dwrite(__ldg(&lut[level_of(t)]), cudaSurfaceObject_t(target.surface), x * 4, y);
    } else {
        store_picture(target, lut, t, x, y, std::size_t(y) * W + x);
    }
}

// kG: the values' grouping C = 2^kG as a constant (2, the rows-first picture's C at every size on the H100), so
// the tile's index arithmetic folds; -1: g at run time.
template <int kG, TargetKind kKind>
__global__ void __launch_bounds__(256)
    col_values_colormap_kernel(const float* __restrict__ values, int width, int height, int g_arg, int sub, View view,
                               bool shift, RangeMode mode, const unsigned int* minmax, float top_span, float2* range,
                               const std::uint32_t* __restrict__ lut, PictureTarget target) {
    fast_detail::begin_dependent();
    __shared__ float tile[32][33];
    const int g = kG >= 0 ? kG : g_arg;
    const int ncols = width / 2 + 1;
    const int kx0 = blockIdx.x * 32, vy0 = blockIdx.y * 32;
    const int tid = threadIdx.y * 32 + threadIdx.x;
    const int cw = min(1 << g, 32), cw_log2 = min(g, 5);  // columns of a run
    const float2 r = fast_detail::range_from_minmax(mode, minmax, top_span);
    if (blockIdx.x == 0 && blockIdx.y == 0 && tid == 0) *range = r;
    // This block's runs: group kx0 >> g onwards, each `height` values of C columns.
    const float* base = values + ((std::size_t(kx0 >> g) * height) << g);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int i = tid + q * 256;
        const int run = i >> (5 + cw_log2), rem = i & ((32 << cw_log2) - 1);
        const int vl = rem >> cw_log2, cl = run * cw + (rem & (cw - 1));
        const int kx = kx0 + cl, vy = vy0 + vl;
        if (kx < ncols && vy < height)
            tile[vl][cl] = base[((std::size_t((kx >> g) - (kx0 >> g)) * height + vy) << g) + (kx & ((1 << g) - 1))];
    }
    __syncthreads();
    const int kx = kx0 + threadIdx.x;
    if (kx >= ncols) return;
    const bool mirror = kx != 0 && 2 * kx != width;
    const fast_detail::Range01 r01 = fast_detail::range01(r);
    const bool negate = mirror_value(view, 1.0f) < 0.0f;
    // The places bin_places gives, by axis: the column's (the same for every row of the tile) once, the rows' a row.
    const fast_detail::AxisPlaces x = fast_detail::axis_places(kx, width, shift);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int vl = threadIdx.y + q * 8, vy = vy0 + vl;
        if (vy >= height) break;
        const int ky = sub == 2 ? (vy < height / 2 ? 2 * vy : 2 * (vy - height / 2) + 1) : vy;
        const fast_detail::AxisPlaces y = fast_detail::axis_places(ky, height, shift);
        const float val = tile[vl][threadIdx.x];
        store_texel<kKind>(target, lut, fast_detail::to01(val, r01), x.at, y.at, width);
        if (mirror)
            store_texel<kKind>(target, lut, fast_detail::to01(negate ? -val : val, r01), x.mirror, y.mirror, width);
    }
}

// Both sides powers of two: the register-resident kernels; otherwise the mixed-radix ones.
bool pow2_sizes(int width, int height) { return is_pow2(width) && is_pow2(height); }

// The parameters of a complex column pass (C2C's, R2C's): ncols columns of n points (each `sub` FFTs of them) from
// `in` (grouped by 2^group_log2 columns, or row-major with ld_in) to `out` (row-major with ld_out), C a block.
ColParams column_params(const float2* in, int ld_in, float2* out, int ld_out, int ncols, int width, int n, int C,
                        int group_log2, int sub) {
    ColParams p{};
    p.in = in;
    p.out = out;
    p.ld_in = ld_in;
    p.ld_out = ld_out;
    p.ncols = ncols;
    p.width = width;
    p.n = n;
    p.log2n = ilog2(n);
    p.cols_per_block = C;
    p.group_log2 = group_log2;
    p.sub = sub;
    return p;
}

void check_size(int width, int height) {
    if (width < 1 || height < 1 || width > kFastMaxLength || height > kFastMaxLength)
        throw ConfigError("custom-fast takes sizes from 1 to " + std::to_string(kFastMaxLength) + " a side; got " +
                          std::to_string(width) + "x" + std::to_string(height) +
                          " (crop or scale down, or use the cuFFT or CPU backend)");
    if (!pow2_sizes(width, height)) {
        mixed::check_length(width);
        mixed::check_length(height);
    }
}

// Blocks a pass keeps at least, where it has the lines for them: a block takes fewer lines (down to a warp's
// worth) rather than leave SMs idle. At 256^2 the rows went 16 to a block, 16 blocks for the H100's 132 SMs.
constexpr int kMinBlocks = 128;

// Lines of n points a block takes, of `count` lines in all: as many as `threads` threads hold (n/16 threads a
// line: shared memory about threads x 136 bytes), no more than keep kMinBlocks blocks, at least a warp's worth;
// a power of two, at most `count`.
int lines_per_block(int n, int threads, int count) {
    const int tpc = n / elems_per_thread(n);
    const int fill = std::max(std::max(1, 32 / tpc), count / kMinBlocks);
    int lines = 1;
    while (lines * 2 <= threads / tpc && lines * 2 <= fill) lines *= 2;
    while (lines > count) lines /= 2;  // at most count, still a power of two
    return lines;
}
// The instantiation whose launch bound covers `threads` (256, 512 or 1024).
int bound_for(int threads) { return threads <= 256 ? 256 : threads <= 512 ? 512 : 1024; }

// [SECTION] Launch helpers: block shapes, compile-time lengths, the kernels by length

// The shared-memory distance between the C column buffers of a column block. 64-bit accesses are served a
// half-warp (16 threads) at a time; a half-warp spans C columns x 16/C neighbouring elements, so a stride of
// 16/C (mod 16) float2 puts those 16 on 16 different bank pairs. padded_len alone (1 mod 16) put column c + 1's
// element k on column c's element k + 1.
int column_stride(int n, int C) {
    int stride = padded_len(n);
    if (C <= 1 || C > 16) return stride;
    while (stride % 16 != 16 / C % 16) ++stride;
    return stride;
}

// Calls f(std::integral_constant<int, L>) with L = log2n where the kernels have a compile-time length for it (the
// lengths where the passes are long enough for their index arithmetic to count), else L = 0.
template <class F>
decltype(auto) with_log2(int log2n, F&& f) {
    switch (log2n) {
        case 9:
            return f(std::integral_constant<int, 9>{});
        case 10:
            return f(std::integral_constant<int, 10>{});
        case 11:
            return f(std::integral_constant<int, 11>{});
        case 12:
            return f(std::integral_constant<int, 12>{});
        case 13:
            return f(std::integral_constant<int, 13>{});
        default:
            return f(std::integral_constant<int, 0>{});
    }
}

// The C2C row kernel for a direction, a launch bound (256, 512, 1024) and a row length 2^log2n.
using RowsC2cKernel = void (*)(const float2*, float2*, int, int, int, int, int, int);
RowsC2cKernel rows_c2c_kernel(bool inverse, int bound, int log2n) {
    return with_log2(log2n, [&](auto l2) -> RowsC2cKernel {
        constexpr int L = decltype(l2)::value;
        return inverse ? (bound == 256   ? fast_rows_c2c_kernel<true, 256, L>
                          : bound == 512 ? fast_rows_c2c_kernel<true, 512, L>
                                         : fast_rows_c2c_kernel<true, 1024, L>)
                       : (bound == 256   ? fast_rows_c2c_kernel<false, 256, L>
                          : bound == 512 ? fast_rows_c2c_kernel<false, 512, L>
                                         : fast_rows_c2c_kernel<false, 1024, L>);
    });
}

template <bool kInv>
void launch_cols(int bound, dim3 blocks, int threads, int smem, const ColParams& p, cudaStream_t s, bool dependent) {
    auto go = [&](auto kernel) {
        launch_kernel("fast_cols_kernel", kernel, blocks, dim3(threads), smem, s, dependent, p);
    };
    with_log2(p.log2n, [&](auto l2) {
        constexpr int L = decltype(l2)::value;
        if (bound == 256)
            go(fast_cols_kernel<kInv, 256, L>);
        else if (bound == 512)
            go(fast_cols_kernel<kInv, 512, L>);
        else
            go(fast_cols_kernel<kInv, 1024, L>);
    });
}

// Column FFTs with complex output (C2C pass 2, and the half spectrum of real_spectrum).
// Columns a column block takes (as many as `target_threads` hold, at most `ncols`).
int cols_per_block(int n, int ncols, int target_threads) { return lines_per_block(n, target_threads, ncols); }

void run_cols(bool inverse, ColParams p, int target_threads, cudaStream_t s, bool dependent) {
    const int n = p.n;
    const int tpc = n / elems_per_thread(n);
    if (p.cols_per_block == 0) p.cols_per_block = cols_per_block(n, p.ncols, target_threads);
    if (p.sub < 1) p.sub = 1;
    const int threads = p.cols_per_block * tpc;
    const dim3 blocks = cols_grid(p, (p.ncols + p.cols_per_block - 1) / p.cols_per_block);
    p.col_stride = column_stride(n, p.cols_per_block);
    const int smem = p.cols_per_block * p.col_stride * int(sizeof(float2));
    if (inverse)
        launch_cols<true>(bound_for(threads), blocks, threads, smem, p, s, dependent);
    else
        launch_cols<false>(bound_for(threads), blocks, threads, smem, p, s, dependent);
}

// cuTensorMapEncodeTiled, through the runtime (no libcuda link); null where the driver has none.
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
    static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
                cudaSuccess ||
            found != cudaDriverEntryPointSuccess) {
            (void)cudaGetLastError();
            return PFN_cuTensorMapEncodeTiled_v12000(nullptr);
        }
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }();
    return encode;
}

// A 2D tensor map of float2 points: `rows` rows of `width` points, `row_bytes` apart (a multiple of 16), boxes of
// box_w x box_rows points (box_w * 8 a multiple of 16). False where the driver has no encoder; throws where it refuses.
bool make_tensor_map(CUtensorMap& map, const float2* base, std::uint64_t width, std::uint64_t rows,
                     std::uint64_t row_bytes, int box_w, int box_rows) {
    const auto encode = tensor_map_encoder();
    if (!encode) return false;
    const cuuint64_t dims[2] = {cuuint64_t(width) * 2, cuuint64_t(rows)};  // floats, rows
    const cuuint64_t strides[1] = {cuuint64_t(row_bytes)};
    const cuuint32_t box[2] = {cuuint32_t(2 * box_w), cuuint32_t(box_rows)};
    const cuuint32_t elem_strides[2] = {1, 1};
    const CUresult made = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float2*>(base), dims, strides,
                                 box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (made != CUDA_SUCCESS)
        throw GpuError("cuTensorMapEncodeTiled failed (" + std::to_string(int(made)) + ") for " + std::to_string(rows) +
                       " rows of " + std::to_string(width) + " points, boxes of " + std::to_string(box_w) + " x " +
                       std::to_string(box_rows));
    return true;
}

// run_cols through fast_cols_tma_kernel where it applies, at columns of 4096 or 2048 points on a device of compute
// capability 9.0 or more: (m85) a row-major plane read whole (sub 1, ungrouped, not transposed out), C of 2 to 8 columns
// dividing the plane's, through a tensor map; or (m86, `grouped`) a grouped scratch whose groups are the blocks' C
// columns, through bulk copies. Returns false (nothing launched) elsewhere. Which lengths pay is each caller's choice,
// by what was measured on the H200: the R2C's plane columns (m85) at 4096 points only (R2C 8192^2 -10%, 4096^2 -4%; at
// 2048-point columns +0.4/+2.0%, at 1024 noise); the C2C's grouped columns at 4096 points (m86) and 2048 (m97: C2C
// 4096 x 2048 and 8192 x 2048 -3 to -4%); the 2048^2 C2C's in-place columns (m95) at 2048 points (-2.1 to -2.7%).
bool run_cols_tma(bool inverse, ColParams p, int target_threads, cudaStream_t s, bool dependent, bool grouped = false) {
    const int n = p.n;
    if (n != 4096 && n != 2048) return false;  // (the callers choose among these; see above)
    if (p.sub < 1) p.sub = 1;
    const int C = p.cols_per_block ? p.cols_per_block : cols_per_block(n, p.ncols, target_threads);
    if (C < 2 || C > 8 || p.ncols % C != 0) return false;
    if (grouped ? (p.group_log2 < 0 || (1 << p.group_log2) != C) : (p.sub > 1 || p.group_log2 >= 0 || p.out_transposed))
        return false;
    if ((reinterpret_cast<std::uintptr_t>(p.in) & 15) != 0 || (std::size_t(p.ld_in) * sizeof(float2)) % 16 != 0)
        return false;
    if (!fast_detail::sm90_or_later()) return false;
    const int box_rows = 256;  // (a box's sides are at most 256; the bulk copies take as many rows)
    CUtensorMap map{};
    if (!grouped && !make_tensor_map(map, p.in, std::uint64_t(p.ncols), std::uint64_t(n),
                                     std::uint64_t(p.ld_in) * sizeof(float2), C, box_rows))
        return false;
    p.cols_per_block = C;
    p.col_stride = column_stride(n, C);
    const int threads = C * (n / elems_per_thread(n));
    const int smem = tma_cols_bar_offset(n, C, p.col_stride) + 8;
    const dim3 blocks = cols_grid(p, p.ncols / C);
    auto go = [&](auto kernel) {
        launch_kernel("fast_cols_tma_kernel", kernel, blocks, dim3(threads), smem, s, dependent, map, p, box_rows);
    };
    const int bound = bound_for(threads);
    auto pick = [&](auto inv) {
        constexpr bool kInv = decltype(inv)::value;
        if (n == 2048) {
            if (bound == 256)
                go(fast_cols_tma_kernel<kInv, 256, 11>);
            else if (bound == 512)
                go(fast_cols_tma_kernel<kInv, 512, 11>);
            else
                go(fast_cols_tma_kernel<kInv, 1024, 11>);
        } else {
            if (bound == 256)
                go(fast_cols_tma_kernel<kInv, 256, 12>);
            else if (bound == 512)
                go(fast_cols_tma_kernel<kInv, 512, 12>);
            else
                go(fast_cols_tma_kernel<kInv, 1024, 12>);
        }
    };
    if (inverse)
        pick(std::true_type{});
    else
        pick(std::false_type{});
    return true;
}

// Picture path, pass B: rows of G with the view epilogue.
void run_rows_view(ColOut mode, const ColParams& p, int target_threads, cudaStream_t s, bool dependent) {
    const int n = p.width;
    const int tpc = n / elems_per_thread(n);
    const int lines = lines_per_block(n, target_threads, p.ncols);
    const int threads = lines * tpc;
    const int blocks = (p.ncols + lines - 1) / lines;
    const int smem = lines * padded_len(n) * int(sizeof(float2));
    const int bound = bound_for(threads);
    auto go = [&](auto kernel) {
        launch_kernel("fast_rows_view_kernel", kernel, dim3(blocks), dim3(threads), smem, s, dependent, p, lines);
    };
    auto pick = [&](auto mode_tag) {
        constexpr ColOut m = decltype(mode_tag)::value;
        with_log2(p.log2n, [&](auto l2) {
            constexpr int L = decltype(l2)::value;
            if (bound == 256)
                go(fast_rows_view_kernel<m, 256, L>);
            else if (bound == 512)
                go(fast_rows_view_kernel<m, 512, L>);
            else
                go(fast_rows_view_kernel<m, 1024, L>);
        });
    };
    switch (mode) {
        case ColOut::Picture:
            pick(std::integral_constant<ColOut, ColOut::Picture>{});
            break;
        case ColOut::Values:
            pick(std::integral_constant<ColOut, ColOut::Values>{});
            break;
        case ColOut::HalfValues:
            pick(std::integral_constant<ColOut, ColOut::HalfValues>{});
            break;
        case ColOut::Complex:
            throw ConfigError("internal: the picture rows have no complex output");
    }
}

using OneLaunchKernel = void (*)(RowArgs, int, ColParams, int);
// square_log2: log2 of the side of a square plane (0: not square). The common shapes (square, 256-thread
// blocks, 256^2..1024^2) have their lengths compiled in.
OneLaunchKernel one_launch_kernel(bool inverse, int bound, int square_log2) {
    if (bound == 256 && square_log2 >= 8 && square_log2 <= 10) {
        auto pick = [&](auto l2) -> OneLaunchKernel {
            constexpr int L = decltype(l2)::value;
            return inverse ? fast_c2c_one_launch_kernel<true, 256, L> : fast_c2c_one_launch_kernel<false, 256, L>;
        };
        if (square_log2 == 8) return pick(std::integral_constant<int, 8>{});
        if (square_log2 == 9) return pick(std::integral_constant<int, 9>{});
        return pick(std::integral_constant<int, 10>{});
    }
    if (inverse)
        return bound == 256   ? fast_c2c_one_launch_kernel<true, 256>
               : bound == 512 ? fast_c2c_one_launch_kernel<true, 512>
                              : fast_c2c_one_launch_kernel<true, 1024>;
    return bound == 256   ? fast_c2c_one_launch_kernel<false, 256>
           : bound == 512 ? fast_c2c_one_launch_kernel<false, 512>
                          : fast_c2c_one_launch_kernel<false, 1024>;
}

}  // namespace

FastFft::FastFft() : minmax_(2), range_(1) {}

// [SECTION] FastFft: which path a size takes (the dispatch rules, with their measurements in PERF_NOTES.md)

std::pair<int, int> FastFft::mixed_c2c_threads(int height) const {
    if (threads_set_) return {rows_threads_, mixed_col_threads()};
    return {mixed_row_threads(), mixed_col_threads(height)};
}

int FastFft::mixed_col_threads(int n) const {
    if (cols_threads_ > 0) return cols_threads_;
    // 512 for lines of up to 128 threads (four at once), or as many as four interleaved lines take on their own
    // counts (m40: 2000 and 1440 on 136 and 160), which keeps those blocks at four columns.
    return mixed::line_threads_for(n, tables_) <= 128 ? std::max(512, mixed::interleaved_block_threads(n, tables_))
                                                      : kMixedColThreads;
}

bool FastFft::dependent_launch(int width, int height, bool picture) const {
    // The picture where a side takes Bluestein's transform measured 10-11% slower with them (1009x1013, three runs
    // on the H100, PERF_NOTES.md m32); its C2C and R2C faster.
    if (picture) return !mixed_radix::plan_line(width).bluestein && !mixed_radix::plan_line(height).bluestein;
    return (long long)width * height <= kDependentLaunchMaxPoints;
}

long long FastFft::l2_bytes() const {
    if (l2_bytes_ < 0) {
        int device = 0, bytes = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
        l2_bytes_ = bytes;
    }
    return l2_bytes_;
}

bool FastFft::r2c_columns_first(const float* plane, int width, int height, bool transposed) const {
    return !transposed && pow2_sizes(width, height) && (long long)width * height >= kR2cColumnsFirstMinPoints &&
           width >= 2 && height >= 2 && (height <= 4096 || (height == 8192 && width <= 8192)) &&
           reinterpret_cast<std::uintptr_t>(plane) % alignof(float2) == 0;
}

bool FastFft::c2c_columns_first(int width, int height) const {
    return width != height && double(width) * height <= kOneLaunchMaxPoints && c2c_in_place(width, height);
}

bool FastFft::split_c2c(int width, int height) const {
    return split_columns(width, height) &&
           width / elems_per_thread(width) <= 512;  // (its callers' sides are powers of two)
}

bool FastFft::c2c_in_place(int width, int height) const {
    check_size(width, height);
    if (!pow2_sizes(width, height) || 8.0 * width * height > double(l2_bytes())) return false;
    return !split_c2c(width, height);
}

// [SECTION] FastFft::c2c

void FastFft::c2c_3d(float2* data, int width, int height, int depth, bool inverse, cudaStream_t s, StageTimer* timer) {
    if (!c2c_3d_supported(width, height, depth))
        throw ConfigError("custom-fast's 3D C2C takes powers of two from 2 to 4096 a side (at most 2^31 points); got " +
                          std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(depth));
    dependent_ = false;
    const double bytes = 16.0 * double(width) * height * depth;  // one read and one write of the volume
    // Pass 1: the rows (x), all depth x height of them, in place.
    const int n = width, log2n = ilog2(width), rows = height * depth;
    const int lines = lines_per_block(n, rows_threads_, rows);
    const int threads = lines * (n / elems_per_thread(n));
    launch_kernel("fast_rows_c2c_kernel", rows_c2c_kernel(inverse, bound_for(threads), log2n),
                  dim3((rows + lines - 1) / lines), dim3(threads), lines * padded_len(n) * int(sizeof(float2)), s, false,
                  static_cast<const float2*>(data), data, n, log2n, rows, lines, -1, 0);
    mark(timer, "fast 3D pass 1: row FFTs along x (in place)", bytes);
    columns_3d(data, width, width, height, depth, inverse, s, timer, "fast 3D");
}

void FastFft::columns_3d(float2* data, int ld, int width, int height, int depth, bool inverse, cudaStream_t s,
                         StageTimer* timer, const std::string& what) {
    const double bytes = 16.0 * double(ld) * height * depth;  // one read and one write of the volume
    // Pass 2: each slab's ld columns along y, the slabs a batch (grid z). Columns a block counted over the whole
    // batch, not one slab: run_cols's own choice keeps 128 blocks a slab, so a 256-wide slab got 2 columns a block,
    // 16-byte pieces of each row, and pass 2 took twice pass 3's time (C2C 256^3: 0.195 against 0.102 ms, H100).
    const int col_threads = cols_threads_ > 0 ? cols_threads_ : 512;
    ColParams py = column_params(data, ld, data, ld, ld, width, height,
                                 std::min(prev_pow2(ld), cols_per_block(height, ld * depth, col_threads)), -1, 1);
    py.batch = depth;
    py.batch_stride = (long long)ld * height;
    run_cols(inverse, py, col_threads, s, false);
    mark(timer, what + " pass 2: column FFTs along y (each slab, in place)", bytes);
    // Pass 3: the volume as depth rows of ld x height points: its columns are the lines along z.
    const int plane = ld * height;
    ColParams pz = column_params(data, plane, data, plane, plane, ld == width ? plane : width, depth, 0, -1, 1);
    run_cols(inverse, pz, col_threads, s, false);
    mark(timer, what + " pass 3: column FFTs along z (in place)", bytes);
}

void FastFft::r2c_3d(float* data, int width, int height, int depth, cudaStream_t s, StageTimer* timer) {
    if (!c2c_3d_supported(width, height, depth))
        throw ConfigError("custom-fast's 3D R2C takes powers of two from 2 to 4096 a side (at most 2^31 points); got " +
                          std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(depth));
    dependent_ = false;
    const int ld = width / 2 + 1;
    // Pass 1: the real rows in pairs, each row's half spectrum written over its own padded row.
    float2* const half = reinterpret_cast<float2*>(data);
    rows_real(data, width, height * depth, s, nullptr, half, -1, nullptr, 0, true);
    mark(timer, "fast 3D R2C pass 1: real rows in pairs along x -> half spectrum (in place)",
         4.0 * double(width) * height * depth + 8.0 * double(ld) * height * depth);
    // Passes 2 and 3 over the half spectrum's ld columns.
    columns_3d(half, ld, width, height, depth, false, s, timer, "fast 3D R2C");
}

bool FastFft::c2c_3d_supported(int width, int height, int depth) {
    auto ok = [](int v) { return v >= 2 && v <= 4096 && (v & (v - 1)) == 0; };
    return ok(width) && ok(height) && ok(depth) && double(width) * height * depth <= double(1u << 31);
}

void FastFft::c2c(float2* data, float2* scratch, int width, int height, bool inverse, cudaStream_t s,
                  StageTimer* timer) {
    check_size(width, height);
    dependent_ = dependent_launch(width, height, false);
    if (!pow2_sizes(width, height)) {
        // Grouped for the column blocks as the power-of-two path is (v6b), where a block takes two columns or more
        // that divide the width (the mixed kernels gain from it there: PERF_NOTES.md m3). Not in place (m58): the
        // ungrouped columns cost more than the scratch's bytes (C2C 7-18% slower from 1920x1080 to 3000x2000).
        const auto [row_threads, col_threads] = mixed_c2c_threads(height);
        const int C = mixed::columns_per_block(height, width, col_threads, tables_, true);  // (c2c_cols' blocks)
        const bool grouped = C >= 2 && width % C == 0;
        const bool bulk = mixed::c2c_rows(data, scratch, width, height, inverse, tables_, row_threads, mixed_launch(s),
                                          grouped ? C : 0);
        mark(timer,
             std::string("fast pass 1: row FFTs (mixed radix)") + (grouped ? " (grouped for the columns)" : "") +
                 (bulk ? " (bulk-copied loads)" : ""),
             double(width) * height * 16.0);
        mixed::c2c_cols(scratch, data, width, width, height, inverse, tables_, col_threads, mixed_launch(s),
                        grouped ? C : 0, true);
        mark(timer, "fast pass 2: column FFTs (mixed radix)", double(width) * height * 16.0);
        return;
    }
    const int n = width, log2n = ilog2(width);
    // 8192-point columns (70 KiB of shared memory each, two a block: 16-byte pieces a row) are split: the row pass
    // does their first radix-2 stage, the column pass two 4096-point FFTs (four columns a block).
    const int sub = split_c2c(width, height) ? 2 : 1;
    const int ncol = height / sub;
    int lines = lines_per_block(n, rows_threads_, height);
    if (sub == 2) lines = std::max(lines, 2);
    const int threads = lines * (n / elems_per_thread(n));
    const int smem = lines * padded_len(n) * int(sizeof(float2));
    const int bound = bound_for(threads);
    // The column pass's blocks take C columns each; the row pass writes them grouped for it (a contiguous run
    // per block) where it goes through the scratch and they are four or more.
    const bool in_place = c2c_in_place(width, height);
    const int C = cols_per_block(ncol, width, c2c_col_threads(width, ncol, in_place));
    // In place (m58): the rows row-major back into `data`, the columns from there (a block's C columns are its
    // own: it reads them all before it writes them).
    float2* const between = in_place ? data : scratch;
    const int group_log2 = !in_place && use_grouped(C) && width % C == 0 ? ilog2(C) : -1;
    const RowArgs a{data, between, n, log2n, height, lines, group_log2, sub == 2 ? height / 2 : 0};
    const int row_grid = sub == 2 ? (height / 2) / (lines / 2) : (height + lines - 1) / lines;

    ColParams p = column_params(between, width, data, width, width, width, ncol, C, group_log2, sub);
    p.halves_adjacent = halves_adjacent(sub);
    // m102's order where the column blocks read the plane as the rows left it (in place, or the one launch); over the
    // grouped scratch it lost: C2C 8192 x 1024 and 16384 x 1024 +4% (a warp's loads rows nq apart, each a line).
    p.blocked_first = group_log2 < 0;

    if (sub == 1 && in_place && c2c_columns_first(width, height)) {
        // m80: cuFFT's order and shapes: the columns in place, C a block of 512 threads; then the rows in place, one a
        // block (at least a warp's worth), as a dependent launch.
        ColParams pc = column_params(data, width, data, width, width, width, height, 0, -1, 1);
        run_cols(inverse, pc, cols_threads_ > 0 ? cols_threads_ : 512, s, dependent_);
        mark(timer, "fast pass 1: column FFTs (in place, columns first)", double(width) * height * 16.0);
        const int rl = lines_per_block(n, threads_set_ ? rows_threads_ : 32, height);
        const int rthreads = rl * (n / elems_per_thread(n));
        const int rbound = bound_for(rthreads);
        launch_kernel("fast_rows_c2c_kernel", rows_c2c_kernel(inverse, rbound, log2n), dim3((height + rl - 1) / rl),
                      dim3(rthreads), rl * padded_len(n) * int(sizeof(float2)), s, dependent_,
                      static_cast<const float2*>(data), data, n, log2n, height, rl, -1, 0);
        mark(timer, "fast pass 2: row FFTs (in place, rows last)", double(width) * height * 16.0);
        return;
    }
    if (sub == 1 && one_launch_blocks(width, height, inverse) > 0) {
        p.col_stride = column_stride(ncol, C);
        const int col_grid = (width + C - 1) / C;
        const int block = std::max(threads, C * (ncol / elems_per_thread(ncol)));
        const int smem_one = std::max(smem, C * p.col_stride * int(sizeof(float2)));
        auto kernel = one_launch_kernel(inverse, bound_for(block), width == height ? ilog2(width) : 0);
        int rg = row_grid, cg = col_grid;
        void* args[] = {const_cast<RowArgs*>(&a), &rg, &p, &cg};
        launch_setup(kernel, smem_one);
        CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel),
                                               dim3(std::max(row_grid, col_grid)), dim3(block), args,
                                               std::size_t(smem_one), s));
        CUDA_CHECK_LAUNCH("fast_c2c_one_launch_kernel");
        mark(timer,
             std::string("fast C2C in one launch: row FFTs, grid barrier, column FFTs") +
                 (in_place ? " (in place)" : ""),
             double(width) * height * 32.0);
        return;
    }

    // m83: the split's rows at 8192 points a line a block (the columns' first stage on the two rows as loaded), rather
    // than rows y and y + H/2 paired in a block of 1024 threads and 132 KiB, one block an SM.
    const bool alone = sub == 2 && n == 8192 && between != data;
    // m89: row y of each pair through bulk copies (sm_90 and up; the rows are 64 KiB, so 16-byte aligned where `data` is).
    const bool bulk = alone && fast_detail::sm90_or_later() && (reinterpret_cast<std::uintptr_t>(data) & 15) == 0;
    if (alone) {  // m83: a line a block, the first column stage before the row FFT
        auto kernel = bulk ? (inverse ? fast_rows_c2c_split_alone_kernel<true, true>
                                      : fast_rows_c2c_split_alone_kernel<false, true>)
                           : (inverse ? fast_rows_c2c_split_alone_kernel<true, false>
                                      : fast_rows_c2c_split_alone_kernel<false, false>);
        const int smem_alone = bulk ? split_alone_bar_offset() + 8 : padded_len(n) * int(sizeof(float2));
        launch_kernel("fast_rows_c2c_split_alone_kernel", kernel, dim3(height), dim3(n / elems_per_thread(n)),
                      smem_alone, s, dependent_, static_cast<const float2*>(data), between, height, group_log2);
    } else
        launch_kernel("fast_rows_c2c_kernel", rows_c2c_kernel(inverse, bound, log2n), dim3(row_grid), dim3(threads),
                      smem, s, dependent_, a.in, a.out, a.n, a.log2n, a.rows, a.lines, a.group_log2, a.half_rows);
    mark(timer,
         std::string("fast pass 1: row FFTs") +
             (sub == 2 ? (alone ? (bulk ? " + first column stage, a line a block, bulk-copied loads"
                                        : " + first column stage, a line a block")
                                : " + first column stage")
                       : "") +
             (group_log2 >= 0 ? " (grouped for the columns)" : "") + (in_place ? " (in place)" : ""),
         double(width) * height * 16.0);
    // m86: the grouped scratch's runs through bulk copies, where they apply.
    // (4096-point runs; m97: 2048-point runs too, the grouped columns of 4096 x 2048 and wider. run_cols_tma takes
    // 2048 points since m95, for the in-place columns below.)
    // m104: the TMA kernel takes m102's first-pass order, Gray-swizzled, over the grouped scratch too (2048-point
    // columns; 4096 have radix 16 first).
    ColParams pt = p;
    pt.blocked_first = true;
    const bool tma = group_log2 >= 0 && (p.n == 4096 || p.n == 2048) &&
                     run_cols_tma(inverse, pt, c2c_col_threads(width, ncol, in_place), s, dependent_, true);
    // m95: the in-place columns of 2048 points (2048^2) through the tensor memory accelerator (2D boxes of the block's
    // columns, as m85's), the plane in L2 from the row pass.
    const bool tma_in_place = !tma && in_place && ncol == 2048 &&
                              run_cols_tma(inverse, pt, c2c_col_threads(width, ncol, in_place), s, dependent_);
    if (!tma && !tma_in_place) run_cols(inverse, p, c2c_col_threads(width, ncol, in_place), s, dependent_);
    std::string label = "fast pass 2: column FFTs";
    if (sub == 2)
        label += tma ? " (two halves, bulk-copied loads)" : " (two halves)";
    else if (tma)
        label += " (bulk-copied loads)";
    else if (tma_in_place)
        label += " (in place, TMA loads)";
    mark(timer, label, double(width) * height * 16.0);
}

int FastFft::one_launch_blocks(int width, int height, bool inverse) const {
    if (!pow2_sizes(width, height) || double(width) * height > kOneLaunchMaxPoints || height == 8192 ||
        c2c_columns_first(width, height))
        return 0;
    const OneLaunchKey key{width, height, inverse, rows_threads_, cols_threads_};
    if (one_launch_.valid && one_launch_.key == key) return one_launch_.blocks;
    // The shape c2c() gives both passes (it has no 8192-point columns here, so no split).
    const int lines = lines_per_block(width, rows_threads_, height);
    const int row_threads = lines * (width / elems_per_thread(width));
    const int row_smem = lines * padded_len(width) * int(sizeof(float2));
    const int C = cols_per_block(height, width, c2c_col_threads(width, height, c2c_in_place(width, height)));
    const int block = std::max(row_threads, C * (height / elems_per_thread(height)));
    const int smem = std::max(row_smem, C * column_stride(height, C) * int(sizeof(float2)));
    const int grid = std::max((height + lines - 1) / lines, (width + C - 1) / C);
    int device = 0, coop = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    auto kernel = one_launch_kernel(inverse, bound_for(block), width == height ? ilog2(width) : 0);
    launch_setup(kernel, smem);
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, std::size_t(smem)));
    // Every block must be resident at once for the grid barrier; otherwise two launches.
    const int blocks = coop && grid <= per_sm * sms ? grid : 0;
    one_launch_ = {key, blocks, true};
    return blocks;
}

// [SECTION] FastFft: real input (rows_real, r2c, real_spectrum)

void FastFft::rows_real(const float* plane, int width, int height, cudaStream_t s, StageTimer* timer, float2* out,
                        int group_log2, unsigned int* reset_minmax, int half_rows, bool padded) {
    if (!padded) check_size(width, height);  // (r2c_3d's rows: depth x height of them, past a plane's limit)
    const int ld = width / 2 + 1;
    if (!out) {
        half_.resize(std::size_t(ld) * height);
        out = half_.get();
    }
    if (out == half_.get()) pass1_ = {};  // no longer a picture's first pass
    if (!pow2_sizes(width, height)) {
        if (padded) throw ConfigError("internal: custom-fast's mixed real rows are contiguous");
        mixed::real_rows(plane, out, width, height, tables_, mixed_row_threads(), mixed_launch(s),
                         group_log2 >= 0 ? 1 << group_log2 : 0);
        mark(timer,
             std::string("fast pass 1: real rows (2 per FFT, mixed radix) -> half spectrum") +
                 (group_log2 >= 0 ? " (grouped)" : ""),
             double(width) * height * 4.0 + double(ld) * height * 8.0);
        return;
    }
    const int n = width, pairs = half_rows > 0 ? half_rows : (height + 1) / 2;
    const int lines = lines_per_block(n, rows_threads_, pairs);
    const int threads = lines * (n / elems_per_thread(n));
    // m92: rows of 4096 points or more through bulk copies, where every block is whole (the plane 16-byte aligned). At
    // 2048-point rows the copies measured 3-6% slower (PERF_NOTES.md m92), so those keep the threads' loads.
    if (padded && (group_log2 >= 0 || half_rows > 0))
        throw ConfigError("internal: custom-fast's padded real rows are neither grouped nor split");
    const bool bulk = !padded && n >= 4096 && height % 2 == 0 && pairs % lines == 0 &&
                      (reinterpret_cast<std::uintptr_t>(plane) & 15) == 0 && fast_detail::sm90_or_later();
    const int smem = bulk ? bulk_rows_bar_offset(n, lines) + 8 : lines * padded_len(n) * int(sizeof(float2));
    const int bound = bound_for(threads);
    auto kernel = with_log2(ilog2(n), [&](auto l2) {
        constexpr int L = decltype(l2)::value;
        if (padded)
            return bound == 256   ? fast_rows_real_kernel<256, L, false, false, true>
                   : bound == 512 ? fast_rows_real_kernel<512, L, false, false, true>
                                  : fast_rows_real_kernel<1024, L, false, false, true>;
        if constexpr (L >= 9) {
            if (bulk && half_rows > 0)
                return bound == 256   ? fast_rows_real_kernel<256, L, true, true>
                       : bound == 512 ? fast_rows_real_kernel<512, L, true, true>
                                      : fast_rows_real_kernel<1024, L, true, true>;
            if (bulk)
                return bound == 256   ? fast_rows_real_kernel<256, L, false, true>
                       : bound == 512 ? fast_rows_real_kernel<512, L, false, true>
                                      : fast_rows_real_kernel<1024, L, false, true>;
        }
        if (half_rows > 0)
            return bound == 256   ? fast_rows_real_kernel<256, L, true>
                   : bound == 512 ? fast_rows_real_kernel<512, L, true>
                                  : fast_rows_real_kernel<1024, L, true>;
        return bound == 256   ? fast_rows_real_kernel<256, L, false>
               : bound == 512 ? fast_rows_real_kernel<512, L, false>
                              : fast_rows_real_kernel<1024, L, false>;
    });
    launch_kernel("fast_rows_real_kernel", kernel, dim3((pairs + lines - 1) / lines), dim3(threads), smem, s,
                  dependent_, plane, out, n, ilog2(n), height, lines, ld, group_log2, reset_minmax, half_rows);
    mark(timer,
         std::string("fast pass 1: real rows (2 per FFT) -> half spectrum") +
             (half_rows > 0 ? " + first column stage" : "") + (group_log2 >= 0 ? " (grouped)" : "") +
             (bulk ? " (bulk-copied loads)" : ""),
         double(width) * height * 4.0 + double(ld) * height * 8.0);
}

float2* FastFft::r2c_scratch(const float2* half, std::size_t count) {
    DeviceBuffer<float2>& scratch = half == half_.get() ? split_ : half_;
    if (&scratch == &half_) pass1_ = {};  // no longer a picture's first pass
    scratch.resize(count);
    return scratch.get();
}

void FastFft::r2c(const float* plane, int width, int height, float2* half, cudaStream_t s, StageTimer* timer,
                  bool transposed) {
    if (!half) throw ConfigError("internal: custom-fast r2c needs an output buffer");
    dependent_ = dependent_launch(width, height, false);
    // Powers of two from 1M points go columns first (r2c_columns_first, m78, below). Otherwise the real rows first,
    // then the columns in place on the row-major half spectrum. (Pass 1 writing them grouped for pass 2, as C2C does,
    // was slower here: 0.190 -> 0.218 ms at 4096^2 on the H100, PERF_NOTES.md v6: the rows of width/2 + 1 bins
    // leave pass 2's 32-byte stores straddling sectors, and pass 1's grouped stores cost more than pass 2 gained.)
    const int ld = width / 2 + 1;
    if (transposed && !pow2_sizes(width, height)) {
        // The mixed kernels: the rows grouped for the column blocks into a scratch, the columns from there into
        // rows of `half` (each column's last pass written from registers, consecutive bins by consecutive threads).
        check_size(width, height);
        const int C = mixed::columns_per_block(height, ld, mixed_col_threads(height), tables_);
        float2* const scratch = r2c_scratch(half, std::size_t((ld + C - 1) / C) * C * height);
        rows_real(plane, width, height, s, timer, scratch, ilog2(C));
        mixed::r2c_cols_transposed(scratch, half, ld, height, tables_, mixed_col_threads(height), mixed_launch(s));
        mark(timer, "fast pass 2: column FFTs (half spectrum, mixed radix, from the scratch, transposed out)",
             double(ld) * height * 16.0);
        return;
    }
    if (r2c_columns_first(plane, width, height, transposed)) {
        // m78: the columns of the plane read as complex pairs first, into a scratch; then the rows in pairs (ky, H - ky),
        // unpacked into whole rows of `half` (fast_rows_r2c_last_kernel).
        check_size(width, height);
        const int n = width / 2;
        float2* const scratch = r2c_scratch(half, std::size_t(n) * height);
        // m82: 8192-point columns as two 4096-point ones (the even and the odd rows: the plane read as H/2 rows of W
        // points), their last radix-2 stage in the row pass.
        const int sub = height == 8192 ? 2 : 1, cn = height / sub;
        const ColParams p = column_params(reinterpret_cast<const float2*>(plane), sub * n, scratch, sub * n, sub * n,
                                          width, cn, 0, -1, 1);
        // m85: the plane's columns through the tensor memory accelerator where it applies.
        const bool tma = cn == 4096 && run_cols_tma(false, p, col_threads(cn), s, dependent_);
        if (!tma) run_cols(false, p, col_threads(cn), s, dependent_);
        mark(timer,
             std::string("fast pass 1: column FFTs (the real plane as complex pairs") +
                 (sub == 2 ? ", even and odd rows" : "") + (tma ? ", TMA loads)" : ")"),
             double(width) * height * 8.0);
        if (sub == 2 && (n == 2048 || n == 4096)) {
            // m84: two lines a block, each mirror pair formed from the scratch as loaded (512 threads), rather than
            // groups of four lines (E and O of two rows) in 1024 threads and 132 KiB.
            const int pl = 512 / (n / elems_per_thread(n));
            launch_kernel(
                "fast_rows_r2c_last_split_pairs_kernel",
                n == 4096 ? fast_rows_r2c_last_split_pairs_kernel<12> : fast_rows_r2c_last_split_pairs_kernel<11>,
                dim3(height / pl), dim3(512), pl * padded_len(n) * int(sizeof(float2)), s, dependent_,
                static_cast<const float2*>(scratch), half, height, ld);
            mark(timer, "fast pass 2: row FFTs in mirror pairs, last column stage as loaded, unpacked -> half spectrum",
                 double(n) * height * 8.0 + double(ld) * height * 8.0);  // (as the groups' line: the bytes once)
            return;
        }
        const int per = 2 * sub;  // lines a pair (ky, H - ky) or a split group of four
        const int lines = std::min(height, std::max(per, lines_per_block(n, rows_threads_, height)));
        const int threads = lines * (n / elems_per_thread(n));
        const int smem = lines * padded_len(n) * int(sizeof(float2));
        const int bound = bound_for(threads);
        auto kernel = with_log2(ilog2(n), [&](auto l2) {
            constexpr int L = decltype(l2)::value;
            if (sub == 2)
                return bound == 256   ? fast_rows_r2c_last_split_kernel<256, L>
                       : bound == 512 ? fast_rows_r2c_last_split_kernel<512, L>
                                      : fast_rows_r2c_last_split_kernel<1024, L>;
            return bound == 256   ? fast_rows_r2c_last_kernel<256, L>
                   : bound == 512 ? fast_rows_r2c_last_kernel<512, L>
                                  : fast_rows_r2c_last_kernel<1024, L>;
        });
        launch_kernel(sub == 2 ? "fast_rows_r2c_last_split_kernel" : "fast_rows_r2c_last_kernel", kernel,
                      dim3(height / lines), dim3(threads), smem, s, dependent_, static_cast<const float2*>(scratch),
                      half, n, ilog2(n), height, lines, ld);
        mark(timer,
             std::string("fast pass 2: row FFTs in pairs (ky, H - ky)") + (sub == 2 ? " + last column stage" : "") +
                 ", unpacked -> half spectrum",
             double(n) * height * 8.0 + double(ld) * height * 8.0);
        return;
    }
    const bool split = split_columns(width, height);  // powers of two both
    if (split || (pow2_sizes(width, height) && transposed)) {
        // 8192-point columns (two a block, in place: 16-byte pieces a row, 33% of copy on the H100) split as C2C's
        // are: the row pass pairs rows y and y + H/2 and does the columns' first stage into a scratch half spectrum
        // grouped for the column blocks, which then take four 4096-point halves each into `half`. (Transposed: the
        // same way through the scratch at other heights, without the split.)
        const int sub = split ? 2 : 1, n = height / sub;
        const int C = cols_per_block(n, ld, col_threads(n));
        const int g = use_grouped(C) ? ilog2(C) : -1;
        const std::size_t need = g >= 0 ? std::size_t((ld + C - 1) / C) * C * height : std::size_t(ld) * height;
        float2* const scratch = r2c_scratch(half, need);
        rows_real(plane, width, height, s, timer, scratch, g, nullptr, split ? height / 2 : 0);
        ColParams p = column_params(scratch, ld, half, transposed ? height : ld, ld, width, n, C, g, sub);
        p.out_transposed = transposed;
        p.halves_adjacent = halves_adjacent(sub);
        if (transposed) p.cols_per_block = narrow_columns(C, g);
        run_cols(false, p, col_threads(n), s, dependent_);
        mark(timer,
             std::string("fast pass 2: column FFTs (half spectrum") + (split ? ", two halves" : ", from the scratch") +
                 (transposed ? ", transposed out)" : ")"),
             double(ld) * height * 16.0);
        return;
    }
    rows_real(plane, width, height, s, timer, half);
    if (!pow2_sizes(width, height)) {
        mixed::c2c_cols(half, half, ld, ld, height, false, tables_, mixed_col_threads(height), mixed_launch(s));
        mark(timer, "fast pass 2: column FFTs (half spectrum, mixed radix)", double(ld) * height * 16.0);
        return;
    }
    // In place: a block reads its whole columns before writing them back. (C = 0: run_cols chooses.)
    const ColParams p = column_params(half, ld, half, ld, ld, width, height, 0, -1, 1);
    run_cols(false, p, col_threads(height), s, dependent_);
    mark(timer, "fast pass 2: column FFTs (half spectrum)", double(ld) * height * 16.0);
}

void FastFft::real_spectrum(const float* plane, int width, int height, float2* full, cudaStream_t s, StageTimer* timer,
                            float2* work) {
    check_size(width, height);
    if (!work) {
        half_.resize(std::size_t(width / 2 + 1) * height);
        work = half_.get();
        pass1_ = {};  // no longer a picture's first pass
    }
    r2c(plane, width, height, work, s, timer);
    expand_half_spectrum(work, width, height, full, s);
    mark(timer, "expand half spectrum", double(width) * height * 8.0 + double(width / 2 + 1) * height * 8.0);
}

// [SECTION] FastFft::picture (and its rows-first form)

FastFft::PictureResult FastFft::picture(const float* plane, int width, int height, std::uint64_t plane_version,
                                        const ViewParams& vp, const PictureTarget& target, cudaStream_t s,
                                        StageTimer* timer, bool reuse_pass1, const float* mask,
                                        std::uint64_t mask_version) {
    check_size(width, height);
    dependent_ = dependent_launch(width, height, true);
    PictureResult res;
    const long long count = (long long)width * height;
    if (lut_colormap_ != int(vp.colormap)) {
        const ColormapLut lut = make_colormap_lut(vp.colormap);
        lut_.resize(256);
        CUDA_CHECK(cudaMemcpyAsync(lut_.get(), lut.rgba, sizeof(lut.rgba), cudaMemcpyHostToDevice, s));
        lut_colormap_ = int(vp.colormap);
    }
    // Pass A: columns first (pairs of real columns), so that pass B, which writes the picture, runs along
    // rows and writes whole picture rows.
    const int g_rows = height / 2 + 1;
    const bool pow2 = pow2_sizes(width, height);
    // The range of an Auto/Top picture is folded from pass B's bins into minmax_; pass A resets it (one launch
    // fewer), or, where pass A does not run, a kernel of its own does.
    const bool needs_range = vp.range == RangeMode::Auto || vp.range == RangeMode::Top;
    const bool same = cached_.valid && plane_version != 0 && cached_.plane_version == plane_version &&
                      cached_.mask_version == (mask ? mask_version : 0) && cached_.width == width &&
                      cached_.height == height && cached_.view == vp.view && cached_.mode == vp.range &&
                      (vp.range != RangeMode::Top || cached_.top_span == vp.top_span);
    const bool fold_range = needs_range && !same;
    // Auto/Top rows first where it can, with the range found in the run or the cached one: the same path either
    // way, so that an identical run gives the identical picture and a view-only change finds its first pass.
    if (needs_range && pow2 && count >= kRowsFirstMinPoints && width >= 8 && height >= 2 &&
        (height <= 4096 || split_columns(width, height))) {
        picture_rows_first(plane, width, height, vp, target, s, timer, reuse_pass1, mask, mask_version, plane_version,
                           fold_range);
        res.range_reused = !fold_range;
        return res;
    }
    // Pass A's half spectrum is in place when the caller says the plane is the same and the last picture left it.
    const Pass1 want{1, width, height, 0};
    const bool have_pass1 = reuse_pass1 && pass1_ == want;
    reuse_pass1 = have_pass1;
    if (!reuse_pass1) half_.resize(std::size_t(g_rows) * width);
    pass1_ = want;
    unsigned int* reset = fold_range && !reuse_pass1 ? minmax_.get() : nullptr;
    if (!reuse_pass1 && !pow2)
        mixed::real_cols(plane, half_.get(), width, height, tables_, mixed_col_threads(height), mixed_launch(s), reset);
    if (!reuse_pass1 && pow2) {
        const int n = height, tpc = n / elems_per_thread(n), pairs = (width + 1) / 2;
        const int C = lines_per_block(n, col_threads(n), pairs);
        const int threads = C * tpc, blocks = (pairs + C - 1) / C;
        const int stride = column_stride(n, C);
        const int smem = C * stride * int(sizeof(float2));
        const int bound = bound_for(threads);
        auto kernel = with_log2(ilog2(height), [&](auto l2) {
            constexpr int L = decltype(l2)::value;
            return bound == 256   ? fast_cols_real_kernel<256, L>
                   : bound == 512 ? fast_cols_real_kernel<512, L>
                                  : fast_cols_real_kernel<1024, L>;
        });
        launch_kernel("fast_cols_real_kernel", kernel, dim3(blocks), dim3(threads), smem, s, dependent_, plane,
                      half_.get(), width, height, ilog2(height), C, stride, reset);
    }
    const double g_bytes = double(g_rows) * width * 8.0;
    if (!reuse_pass1)
        mark(timer, "fast pass 1: real column pairs -> half spectrum in y", double(count) * 4.0 + g_bytes);

    ColParams p = picture_params(half_.get(), width, g_rows, width, height, vp, mask, minmax_.get());
    p.log2n = pow2 ? ilog2(width) : 0;
    p.range = range_.get();
    p.lut = lut_.get();
    p.target = target;
    auto rows_view = [&](ColOut mode) {
        if (pow2)
            run_rows_view(mode, p, rows_threads_, s, dependent_);
        else
            mixed::rows_view(mode, p, tables_, mixed_row_threads(), mixed_launch(s));
    };

    if (vp.range == RangeMode::Percentile) {
        // The values have to be sorted: write them, sort, colour them.
        values_.resize(count);
        sorted_.resize(count);
        p.values = values_.get();
        rows_view(ColOut::Values);
        mark(timer, "fast pass 2: row FFTs + view values", g_bytes + double(count) * 4.0);
        std::size_t bytes = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, values_.get(), sorted_.get(), count, 0, 32, s));
        temp_.resize(bytes);
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp_.get(), bytes, values_.get(), sorted_.get(), count, 0, 32, s));
        CUDA_CHECK_LAUNCH("cub::DeviceRadixSort::SortKeys");
        launch_kernel("finish_fast_range_kernel", finish_fast_range_kernel, dim3(1), dim3(1), 0, s, dependent_,
                      vp.range, sorted_.get(), percentile_index(vp.pct_lo, count), percentile_index(vp.pct_hi, count),
                      0.0f, 0.0f, range_.get());
        mark(timer, "range (CUB radix sort, percentiles)", double(count) * 16.0);
        launch_kernel("fast_colormap_kernel", fast_colormap_kernel,
                      dim3(int(std::min<long long>((count + 255) / 256, 1 << 16))), dim3(256), 0, s, dependent_,
                      values_.get(), count, width, range_.get(), lut_.get(), target);
        mark(timer, picture_stage_name("colormap", target), double(count) * 8.0);
        cached_.valid = false;
        return res;
    }

    if (fold_range) {
        // Pass B writes each bin's view value (the half it transforms) and finds the range; the colormap follows.
        // (It had been a range pass, the row FFTs for the min/max alone, then pass B again into the picture.)
        values_.resize(std::size_t(g_rows) * width);
        p.values = values_.get();
        if (!reset) {
            launch_kernel("init_minmax_kernel", init_minmax_kernel, dim3(1), dim3(1), 0, s, dependent_, minmax_.get());
        }
        rows_view(ColOut::HalfValues);
        mark(timer, "fast pass 2: row FFTs + view values + fused min/max", g_bytes + double(g_rows) * width * 4.0);
        cached_ = {plane_version, width, height, vp.view, vp.range, vp.top_span, true, mask ? mask_version : 0};
        const dim3 block(256), grid((width + 255) / 256, g_rows);
        launch_kernel("half_colormap_kernel", half_colormap_kernel, grid, block, 0, s, dependent_, values_.get(), width,
                      height, vp.view, vp.shift, vp.range, minmax_.get(), vp.top_span, range_.get(), lut_.get(),
                      target);
        mark(timer, picture_stage_name("colormap (half -> whole picture)", target),
             double(g_rows) * width * 4.0 + double(count) * 4.0);
        return res;
    }
    if (vp.range == RangeMode::Fixed) {
        launch_kernel("finish_fast_range_kernel", finish_fast_range_kernel, dim3(1), dim3(1), 0, s, dependent_,
                      vp.range, static_cast<const float*>(nullptr), 0LL, 0LL, vp.fixed_lo, vp.fixed_hi, range_.get());
    } else {
        res.range_reused = true;
    }
    rows_view(ColOut::Picture);
    mark(timer, picture_stage_name("fast pass 2: row FFTs + view + colormap", target), g_bytes + double(count) * 4.0);
    return res;
}

void FastFft::range(float* lo, float* hi, cudaStream_t s) {
    range_host_.resize(1);
    CUDA_CHECK(cudaMemcpyAsync(range_host_.get(), range_.get(), sizeof(float2), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    *lo = range_host_.get()->x;
    *hi = range_host_.get()->y;
}

// The Auto/Top picture rows first (PERF_NOTES.md p3): the real rows two per FFT into the half spectrum (W/2 + 1
// columns), grouped for the column blocks; the column FFTs with the view values (grouped as well) and the min/max
// in their epilogue; a colormap kernel that writes each value and its mirror.
void FastFft::picture_rows_first(const float* plane, int width, int height, const ViewParams& vp,
                                 const PictureTarget& target, cudaStream_t s, StageTimer* timer, bool reuse_pass1,
                                 const float* mask, std::uint64_t mask_version, std::uint64_t plane_version,
                                 bool fold_range) {
    // 8192-point columns split (as r2c's): the rows pass does their first stage, the column blocks two halves.
    const int sub = split_columns(width, height) ? 2 : 1;
    const int ncols = width / 2 + 1, n = height / sub, tpc = n / elems_per_thread(n);
    const int C = cols_per_block(n, ncols, col_threads(n));  // a power of two
    const int g = ilog2(C), groups = (ncols + C - 1) / C;
    const Pass1 want{2 + (sub - 1), width, height, g};
    const bool have_pass1 = reuse_pass1 && pass1_ == want;
    const std::size_t padded = std::size_t(groups) * C * height;
    if (!have_pass1) {
        half_.resize(padded);
        rows_real(plane, width, height, s, timer, half_.get(), g, fold_range ? minmax_.get() : nullptr,
                  sub == 2 ? height / 2 : 0);
    } else if (fold_range) {
        launch_kernel("init_minmax_kernel", init_minmax_kernel, dim3(1), dim3(1), 0, s, dependent_, minmax_.get());
    }
    pass1_ = want;
    // With the range cached (an identical earlier run: same plane, view, mode and mask), minmax_ still holds what
    // that run folded, and folding the same values into it again leaves it as it is.

    values_.resize(padded);
    ColParams p = picture_params(half_.get(), ncols, ncols, width, height, vp, mask, minmax_.get());
    p.n = n;
    p.log2n = ilog2(n);
    p.cols_per_block = C;
    p.col_stride = column_stride(n, C);
    p.group_log2 = g;
    p.sub = sub;
    p.halves_adjacent = halves_adjacent(sub);
    p.values = values_.get();
    p.values_log2 = g;
    const int threads = C * tpc, smem = C * p.col_stride * int(sizeof(float2)), bound = bound_for(threads);
    auto kernel = with_log2(p.log2n, [&](auto l2) {
        constexpr int L = decltype(l2)::value;
        return bound == 256   ? fast_cols_values_kernel<256, L>
               : bound == 512 ? fast_cols_values_kernel<512, L>
                              : fast_cols_values_kernel<1024, L>;
    });
    launch_kernel("fast_cols_values_kernel", kernel, cols_grid(p, groups), dim3(threads), smem, s, dependent_, p);
    mark(timer,
         std::string("fast pass 2: column FFTs") + (sub == 2 ? " (two halves)" : "") + " + view values + fused min/max",
         double(ncols) * height * 12.0);
    if (fold_range)
        cached_ = {plane_version, width, height, vp.view, vp.range, vp.top_span, true, mask ? mask_version : 0};

    const dim3 block(32, 8), grid((ncols + 31) / 32, (height + 31) / 32);
    const bool rgba8 = target.format == PictureFormat::Rgba8;
    const TargetKind kind = rgba8 && target.rgba && !target.surface   ? TargetKind::RgbaBuffer
                            : rgba8 && !target.rgba && target.surface ? TargetKind::Surface
                                                                      : TargetKind::General;
    auto pick = [&](auto kg) {
        constexpr int G = decltype(kg)::value;
        return kind == TargetKind::RgbaBuffer ? col_values_colormap_kernel<G, TargetKind::RgbaBuffer>
               : kind == TargetKind::Surface  ? col_values_colormap_kernel<G, TargetKind::Surface>
                                              : col_values_colormap_kernel<G, TargetKind::General>;
    };
    auto colormap = g == 2 ? pick(std::integral_constant<int, 2>{}) : pick(std::integral_constant<int, -1>{});
    launch_kernel("col_values_colormap_kernel", colormap, grid, block, 0, s, dependent_, values_.get(), width, height,
                  g, sub, vp.view, vp.shift, vp.range, minmax_.get(), vp.top_span, range_.get(), lut_.get(), target);
    mark(timer, picture_stage_name("colormap (half -> whole picture)", target),
         double(ncols) * height * 4.0 + double(width) * height * 4.0);
}

}  // namespace specview::gpu
