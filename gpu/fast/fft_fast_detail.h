// custom-fast's device pieces shared by its power-of-two kernels (fft_fast.cu) and its mixed-radix ones
// (fft_mixed.cu): the second pass's parameters and the view epilogue that turns a spectrum bin into a picture
// texel, a view value or a min/max. Device code: included by those two .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cfloat>
#include <cstddef>
#include <cstdint>

#include "gpu/runtime/cuda_check.h"
#include "gpu/common/spectrum_math.h"
#include "gpu/common/device_math.h"
#include "gpu/picture/spectrum_view.h"

namespace specview::gpu::fast_detail {

// What a second-pass kernel does with the bins it has transformed. HalfValues: the picture's pass B when the
// range is computed in the run: each bin's view value, unshifted, in the half it holds (ky = 0..H/2, row
// stride W), and the min/max over the whole picture (the mirrors' values included); half_colormap_kernel then
// colours both halves. That replaces a range pass which transformed the rows a second time.
enum class ColOut : int { Complex = 0, Picture, Values, HalfValues };

using specview::order_decode;  // gpu/common/device_math.h
using specview::order_encode;
// The min/max pair before a pass folds into it (flush_range): the encodings of +inf-most and -inf-most.
__device__ __forceinline__ void reset_minmax(unsigned int* mm) {
    mm[0] = 0xFFFFFFFFu;
    mm[1] = 0u;
}
// The range of an Auto or Top picture from the folded min/max pair.
__device__ __forceinline__ float2 range_from_minmax(RangeMode mode, const unsigned int* mm, float top_span) {
    const float lo = order_decode(mm[0]), hi = order_decode(mm[1]);
    return mode == RangeMode::Top ? make_float2(hi - top_span, hi) : make_float2(lo, hi);
}

struct ColParams {
    const float2* in;
    float2* out;  // Complex
    int ld_in, ld_out;
    int ncols;  // columns to transform (width, or width/2 + 1 for a half spectrum); rows of G for the view rows
    int width;  // of the full picture
    int height;
    int n, log2n;  // column length (height)
    int cols_per_block;
    int col_stride;  // float2 between the columns' buffers in shared memory
    int group_log2;  // >= 0: `in` is grouped by 2^group_log2 columns ([col / C][y][col % C]); -1: row-major with ld_in
    int sub;         // 1, or 2: each column is two FFTs of n points (rows s n .. s n + n - 1 -> output rows 2k + s)
    // sub == 2: the grid is groups x 2 in x, a group's halves in neighbouring blocks (blockIdx.x = 2 group + half),
    // rather than groups in x and halves in y. The halves write output rows 2k and 2k + 1. Where those share sectors
    // (the transposed R2C: alternate bins of one output row) their writes then meet in L2 rather than each half's
    // going to DRAM alone: -22% on that R2C at 8192^2. The other outputs were unchanged (PERF_NOTES.md m29).
    bool halves_adjacent;
    bool out_transposed;  // Complex: column col's bins along a row of `out` (out[col * ld_out + ky])
    View view;
    bool shift;
    const float2* range;       // Picture
    const std::uint32_t* lut;  // Picture
    PictureTarget target;      // Picture
    const float* mask;         // Picture, Values, HalfValues: the lab's mask, width x height (null: none)
    unsigned int* minmax;      // HalfValues
    float* values;             // Values (W x H, shifted as the picture), HalfValues (W x (H/2 + 1), unshifted)
    int values_log2;           // the rows-first picture's column values: grouped by 2^values_log2 columns
    bool blocked_first;        // m102: cols_block's first pass with a thread's butterflies neighbours (C2C columns
                               // whose input is not grouped: c2c sets it so; m104: the TMA column kernel's own)
    // A batch of planes (a volume's slabs, c2c_3d's y pass): grid z is the plane, `in` and `out` batch_stride points
    // further each (fast_cols_kernel only; 0 or 1 plane: none).
    int batch;
    long long batch_stride;
};

// Where bin (kx, ky) of a W x H spectrum and its conjugate mirror (-kx, -ky) go in the picture, shifted or not
// (the mirror of 0 is 0), and the mirror's view value (conj F: the same, negated for phase and imaginary).
struct BinPlaces {
    int x, y, mx, my;
};
// Along one axis of n: where index k goes, and where its mirror (-k; the mirror of 0 is 0) goes.
struct AxisPlaces {
    int at, mirror;
};
__device__ __forceinline__ AxisPlaces axis_places(int k, int n, bool shift) {
    const int m = k == 0 ? 0 : n - k;
    if (!shift) return {k, m};
    return {shift_dest(k, n), shift_dest(m, n)};
}
__device__ __forceinline__ BinPlaces bin_places(int kx, int ky, int W, int H, bool shift) {
    const AxisPlaces x = axis_places(kx, W, shift), y = axis_places(ky, H, shift);
    return {x.at, y.at, x.mirror, y.mirror};
}
__device__ __forceinline__ float mirror_value(View v, float val) {
    return (v == View::Phase || v == View::Imag) ? -val : val;
}

// view_value with the log views' square root and logarithm by the special function unit (sqrt.approx, lg2.approx):
// about 1e-7 absolute on log1p|F| and 1e-6 dB on the power, far inside one of the picture's 256 levels, for a
// handful of instructions where log1pf and log10f take dozens. In the rows-first column pass this epilogue ran on
// every bin (PERF_NOTES.md p6). Phase, real and imaginary as view_value has them; 0 and inf as it has them too.
__device__ __forceinline__ float sqrt_approx(float x) {
    float r;
    asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
__device__ __forceinline__ float log2_approx(float x) {
    float r;
    asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
__device__ __forceinline__ float fast_view_value(View v, float re, float im) {
    constexpr float kLn2 = 0.693147180559945f, kDbPerLog2 = 3.01029995663981f;  // ln 2, 10 log10 2
    switch (v) {
        case View::LogMag:
            return kLn2 * log2_approx(1.0f + sqrt_approx(fmaf(re, re, im * im)));
        case View::PowerDb:
            return kDbPerLog2 * log2_approx(fmaf(re, re, im * im) + kPowerFloor);
        case View::Phase:
            return atan2f(im + 0.0f, re);  // as view_value (a switch of its own: fewer registers)
        case View::Real:
            return re;
        case View::Imag:
            return im;
    }
    return 0.0f;
}

// Bin (kx, ky) of the spectrum, z: its view value goes to the picture (or the values, or the running min/max
// lo/hi) at the shifted position, and, with `mirror`, the value of the conjugate bin (-kx, -ky) to its position
// too. Any width and height (the mirror of 0 is 0).
// The view value of bin (kx, ky) of a W x H real plane's spectrum, z, with the lab's mask applied.
__device__ __forceinline__ float bin_view_value(const ColParams& p, float2 z, int kx, int ky) {
    const int W = p.width, H = p.height;
    // The lab's mask, symmetric: the same factor for the bin and its mirror.
    const float m = p.mask ? __ldg(&p.mask[std::size_t(ky) * W + kx]) : 1.0f;
    // A real plane's self-conjugate bins (kx and ky each 0 or half the side) are real: what the passes leave in
    // their imaginary part is rounding (the mixed radices' twiddles reach the Nyquist bin), zeroed as FFTW's r2c
    // has it, so that their phase is exactly 0 or pi, not +-pi by the sign of the rounding.
    if ((kx == 0 || 2 * kx == W) && (ky == 0 || 2 * ky == H)) z.y = 0.0f;
    return fast_view_value(p.view, z.x * m, z.y * m);
}

// Value -> [0, 1] within range (lo, hi) in every custom-fast picture: normalize_to_range with the span's
// reciprocal, which the colormap kernels compute once a thread (a division a texel was a dozen instructions there;
// one Range01 made before their loop, not one a texel, was 7% on the 4096^2 colormap). Within a rounding of
// normalize_to_range, so at most a level apart where a value sits on a level's edge; the same in every custom-fast
// path (to01 of a float2 range is to01 of its Range01), so that a picture does not change with the path (range
// reused or not, colours or levels). A degenerate or NaN span maps everything to 0, as there.
struct Range01 {
    float lo, inv;
};
__device__ __forceinline__ Range01 range01(float2 range) {
    const float span = range.y - range.x;
    return {range.x, span > 0.0f ? __frcp_rn(span) : 0.0f};
}
__device__ __forceinline__ float to01(float v, Range01 r) {
    const float t = (v - r.lo) * r.inv;
    return !(t > 0.0f) ? 0.0f : fminf(t, 1.0f);
}
__device__ __forceinline__ float to01(float v, float2 range) { return to01(v, range01(range)); }

// A bin's texel at its place and, with `mirror`, its mirror's (view value mval) at that one's.
__device__ __forceinline__ void store_bin_pair(const PictureTarget& target, const std::uint32_t* __restrict__ lut,
                                               float val, float mval, const BinPlaces& at, int W, float2 range,
                                               bool mirror) {
    store_picture(target, lut, to01(val, range), at.x, at.y, std::size_t(at.y) * W + at.x);
    if (mirror) store_picture(target, lut, to01(mval, range), at.mx, at.my, std::size_t(at.my) * W + at.mx);
}

template <ColOut kOut>
__device__ __forceinline__ void view_bin(const ColParams& p, float2 z, int kx, int ky, bool mirror, float2 range,
                                         float& lo, float& hi) {
    const int W = p.width, H = p.height;
    const float val = bin_view_value(p, z, kx, ky);
    const float mval = mirror_value(p.view, val);
    const auto [x, y, mx, my] = bin_places(kx, ky, W, H, p.shift);
    if constexpr (kOut == ColOut::Values) {
        p.values[std::size_t(y) * W + x] = val;
        if (mirror) p.values[std::size_t(my) * W + mx] = mval;
    } else if constexpr (kOut == ColOut::HalfValues) {
        p.values[std::size_t(ky) * W + kx] = val;
        lo = fminf(lo, val);
        hi = fmaxf(hi, val);
        if (mirror) {
            lo = fminf(lo, mval);
            hi = fmaxf(hi, mval);
        }
    } else {
        store_bin_pair(p.target, p.lut, val, mval, {x, y, mx, my}, W, range, mirror);
    }
}

// HalfValues' end: a thread's min/max into the global pair (a warp reduces in registers first, one atomic
// pair per warp). Every thread of a warp that is full must call it.
__device__ __forceinline__ void flush_range(unsigned int* minmax, float lo, float hi) {
    const unsigned lanes = min(32u, blockDim.x - (threadIdx.x & ~31u));
    if (lanes == 32) {
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            lo = fminf(lo, __shfl_xor_sync(0xFFFFFFFFu, lo, off));
            hi = fmaxf(hi, __shfl_xor_sync(0xFFFFFFFFu, hi, off));
        }
        if ((threadIdx.x & 31) != 0) return;
    }
    if (lo <= hi) {
        atomicMin(&minmax[0], order_encode(lo));
        atomicMax(&minmax[1], order_encode(hi));
    }
}

// Kernels with over 48 KiB of dynamic shared memory have to say so before their launch (detail::ensure_dynamic_smem).
template <class Kernel>
void launch_setup(Kernel k, int smem) {
    detail::ensure_dynamic_smem(reinterpret_cast<const void*>(k), smem);
}

// ---- Programmatic dependent launch (Hopper; PERF_NOTES.md m26) ----
// A kernel launched with `dependent` (launch_kernel) may be started while the kernel before it in the stream is
// still running: its blocks become resident as that kernel's last blocks finish, instead of after the launch gap.
// So every kernel that may be launched that way calls begin_dependent() first, before it touches global memory:
// griddepcontrol.wait returns once every grid it depends on has completed and its writes are visible (at once where
// it was launched the ordinary way). launch_dependents then lets the next kernel in the stream be scheduled once
// every block of this one has started (it waits in its own begin_dependent). Device code for sm_90 and up; on older
// devices launch_kernel never asks for it (dependent_launch_supported), so both instructions are left out.
__device__ __forceinline__ void begin_dependent() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Whether the current device is of compute capability 9.0 or more (programmatic dependent launches, the tensor memory
// accelerator); asked of the driver once a device (every launch asks).
inline bool sm90_or_later() {
    constexpr int kDevices = 64;
    static std::atomic<int> known[kDevices];  // (zero before the first call) 0: not asked yet, 1: no, 2: yes
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (device < kDevices && known[device].load(std::memory_order_relaxed) != 0)
        return known[device].load(std::memory_order_relaxed) == 2;
    int major = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    if (device < kDevices) known[device].store(major >= 9 ? 2 : 1, std::memory_order_relaxed);
    return major >= 9;
}
// Whether the current device takes programmatic dependent launches.
inline bool dependent_launch_supported() { return sm90_or_later(); }

// kernel<<<grid, block, smem, s>>>(args...), checked (naming the kernel), as a programmatic dependent launch where
// `dependent` and the device takes them. Only kernels that call begin_dependent() first may be launched so.
template <class... Params, class... Args>
void launch_kernel(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, int smem, cudaStream_t s,
                   bool dependent, Args... args) {
    launch_setup(kernel, smem);
    cudaLaunchAttribute attr[1] = {};
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = std::size_t(smem);
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = dependent && dependent_launch_supported() ? 1 : 0;
    const cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, Params(args)...);
    if (e != cudaSuccess) detail::throw_cuda(e, name, __FILE__, __LINE__);
}

// The tensor memory accelerator's bulk copies into shared memory, completing on an mbarrier there (sm_90 and up;
// empty below, where the host never launches the kernels that use them): custom-fast's rows and columns (m86, m89, m92),
// the mixed-radix rows (m93). fft_fast.cu adds the 2D copy through a tensor map (m85).
namespace tma {
__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void bar_init(unsigned bar, unsigned count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
__device__ __forceinline__ void bar_expect(unsigned bar, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
#endif
}
// m86: a contiguous run of `bytes` (a multiple of 16, both ends 16-byte aligned) from global memory.
__device__ __forceinline__ void load_bulk(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
#endif
}
__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned done = 0;
    do {
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
    } while (!done);
#endif
}
// `bytes` from `src` into shared memory at `dst` as bulk copies of at most 8 KiB on barrier `bar` (16-byte aligned
// both; bytes a multiple of 16). The caller has set the barrier's expected bytes.
__device__ __forceinline__ void load_run(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
    const unsigned char* from = static_cast<const unsigned char*>(src);
    for (unsigned i = 0; i < bytes; i += 8192u)
        load_bulk(dst + i, from + i, bytes - i < 8192u ? bytes - i : 8192u, bar);
}
// The staging shape of the bulk-copied row passes (m89, m92, m93). start_stage: thread 0 initialises the block's
// barrier `bar`, sets the `bytes` it expects and calls `issue()` to start the copies onto it. finish_stage: the block
// passes a barrier (so that no thread waits on one not yet initialised) and waits for the bytes. Work that does not
// read the staged data (another row's loads, the twiddles' staging) goes between the two.
template <class Issue>
__device__ __forceinline__ void start_stage(unsigned bar, unsigned bytes, const Issue& issue) {
    if (threadIdx.x == 0) {
        bar_init(bar, 1);
        bar_expect(bar, bytes);
        issue();
    }
}
__device__ __forceinline__ void finish_stage(unsigned bar) {
    __syncthreads();
    bar_wait(bar, 0);
}
}  // namespace tma

}  // namespace specview::gpu::fast_detail
