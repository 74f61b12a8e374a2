#include "gpu/custom/fft_rows.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "gpu/runtime/cuda_check.h"
#include "gpu/runtime/device_info.h"
#include "gpu/common/errors.h"
#include "gpu/common/device_math.h"
#include "gpu/common/pow2.h"
#include "gpu/common/volume_math.h"

namespace specview::gpu {

// ---------------------------------------------------------------------------------------------------------
// The algorithm (radix-2 DIT, natural-order input, bit-reversed output; seed 000 fig. 5):
//   for stage p = 1 .. log2 N, span s = N >> p, group g = i >> (log2 N - p + 1):
//     TWIDDLE: t = W_N^{bitrev_{log2N - 1}(g)} * x[i + s]
//     ADDSUB:  x[i] = x[i] + t,  x[i + s] = x[i] - t            (for the lower element i of each pair)
// The twiddle is constant within a group and its exponent is the group index bit-reversed in log2 N - 1
// bits, which is seed 000's Q = bitreverse(floor(k / (N / 2^p)), log2 N - 1). After the last stage, position
// j holds X[bitrev(j)].
//
// In shared memory the local kernel uses constant geometry (seed 001): every stage pairs physical slots t and
// t + L/2 and writes the results to 2t and 2t + 1, so the data is rotated one bit per stage; physical t at
// local stage p' holds logical rotr(t, p' - 1). After all log2 L local stages the rotation is undone.
// ---------------------------------------------------------------------------------------------------------

namespace {

__device__ __forceinline__ unsigned bitrev(unsigned v, int bits) { return bits == 0 ? 0u : __brev(v) >> (32 - bits); }

// Rotate the low `bits` bits of v left by r (0 <= r <= bits).
__device__ __forceinline__ unsigned rotl_bits(unsigned v, int r, int bits) {
    if (bits == 0 || r == 0 || r == bits) return v;
    const unsigned mask = (1u << bits) - 1u;
    return ((v << r) | (v >> (bits - r))) & mask;
}

template <bool kInverse>
__device__ __forceinline__ float2 twiddle(const float2* __restrict__ tw, unsigned e, int tw_shift) {
    float2 w = __ldg(&tw[e << tw_shift]);
    if (kInverse) w.y = -w.y;
    return w;
}

// XOR swizzle of an index within a segment of 2^log2l float2: the top four bits are folded into the bottom
// four, so that a half-warp reading 16 bit-reversed indices (which differ only in their top bits) hits 16
// different bank pairs. Contiguous runs of 16 aligned indices share their top bits, so they stay
// conflict-free too. Pairs (2t, 2t+1) stay neighbours (possibly swapped).
__device__ __forceinline__ unsigned swz(unsigned i, int log2l) {
    return log2l >= 8 ? i ^ ((i >> (log2l - 4)) & 15u) : i;
}

template <bool kReal>
__device__ __forceinline__ float2 load_in(const float* __restrict__ real_in, const float2* __restrict__ in,
                                          std::size_t i) {
    if constexpr (kReal)
        return make_float2(__ldg(&real_in[i]), 0.0f);
    else
        return in[i];
}

// One Cooley-Tukey stage over whole rows in global memory: one butterfly per thread (seed 001's global
// kernel), for the stages whose span is longer than one block holds. May run in place (in == out).
template <bool kReal, bool kInverse>
__global__ void fft_rows_global_stage_kernel(const float* __restrict__ real_in, const float2* in, float2* out,
                                             int log2n, long long rows, int p, const float2* __restrict__ tw,
                                             int tw_shift) {
    const long long half = 1ll << (log2n - 1);
    const long long total = rows * half;
    const int sbits = log2n - p;  // log2 of the span
    const unsigned smask = (1u << sbits) - 1u;
    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < total;
         b += (long long)gridDim.x * blockDim.x) {
        const long long row = b >> (log2n - 1);
        const unsigned j = unsigned(b & (half - 1));
        const unsigned g = j >> sbits;
        const unsigned i0 = (g << (sbits + 1)) | (j & smask);
        const unsigned i1 = i0 + (1u << sbits);
        const std::size_t base = std::size_t(row) << log2n;
        const float2 a = load_in<kReal>(real_in, in, base + i0);
        const float2 c = load_in<kReal>(real_in, in, base + i1);
        const float2 t = c_mul(twiddle<kInverse>(tw, bitrev(g, log2n - 1), tw_shift), c);  // TWIDDLE
        out[base + i0] = make_float2(a.x + t.x, a.y + t.y);                               // ADDSUB
        out[base + i1] = make_float2(a.x - t.x, a.y - t.y);
    }
}

// The local kernel: a block holds H segments of L = 2^log2l points (whole rows when there are no global
// stages) in shared memory, runs stages first_stage..last_stage (numbered over the whole row, 1..log2n) in
// constant geometry, and writes back. Each thread owns up to kPer butterflies per stage, staged in registers
// between the read and write barriers (constant geometry is not in-place safe otherwise).
//   natural: write X[k] to position k (the reorder through __brev; coalesced global writes)
//   else:    write the in-place Cooley-Tukey order (bit-reversed after the last stage)
//   kShuffle (seed 000 section 5.2.2): the last `shuffles` stages (spans 16 .. 1) through warp shuffles instead of
//            shared memory - one element a lane, its partner lane^span - between one read and one write of
//            shared memory. Needs whole warps (the planner rounds threads per block up to a multiple of 32).
//   next.stages > 0 (seed 000 section 5.1.1; whole rows a block, no global stages): the block's H rows are H
//            positions of the next axis, n_next / H apart (next_axis_row), and after this axis's stages it runs that
//            axis's first log2 H stages across them in registers, so that the next pass starts later.
//   first_stage - q - 1 > 0: this pass's first stages ran in the pass before (the data is loaded rotated so).
//   kNext: the variant for section 5.1.1's passes, which can run next.stages and start after carried stages (the 16
//          rows' values it holds in registers raise its register count: the plain variant keeps 1024 threads a block,
//          which this one does not reach on sm_90).
template <bool kReal, bool kInverse, int kPer, bool kShuffle, bool kNext>
__global__ void fft_rows_local_kernel(const float* __restrict__ real_in, const float2* __restrict__ in,
                                      float2* __restrict__ out, int log2n, int log2l, long long slots, int H,
                                      int first_stage, int last_stage, int natural, const float2* __restrict__ tw,
                                      int tw_shift, int shuffles, NextAxisStages next) {
    extern __shared__ float4 smem_f4[];
    float2* sm = reinterpret_cast<float2*>(smem_f4);

    const int L = 1 << log2l;
    const int q = log2n - log2l;  // global stages already done
    const long long slot0 = (long long)blockIdx.x * H;
    const int nslots = int(min((long long)H, slots - slot0));
    const int elems = nslots << log2l;
    const std::size_t base = std::size_t(slot0) << log2l;  // segments are contiguous in memory
    // The memory row of the block's segment h (next.stages: whole rows, spaced along the next axis).
    auto row_of = [&](int h) -> long long {
        return kNext && next.stages > 0 ? next_axis_row(blockIdx.x, h, next.stages, next.log2n, next.inner) : slot0 + h;
    };
    const int rot0 = kNext ? first_stage - q - 1 : 0;  // local stages run before this pass (section 5.1.1's carried ones)

    for (int e = threadIdx.x; e < elems; e += blockDim.x) {
        const int h = e >> log2l, i = e & (L - 1);
        const std::size_t at = kNext && next.stages > 0 ? (std::size_t(row_of(h)) << log2l) + i : base + e;
        const unsigned li = kNext ? rotl_bits(unsigned(i), rot0, log2l) : unsigned(i);
        sm[(h << log2l) + swz(li, log2l)] = load_in<kReal>(real_in, in, at);
    }
    __syncthreads();

    const int half_l = L >> 1;
    const int bfly = elems >> 1;
    const unsigned cmask = (1u << q) - 1u;
    const int shared_last = kShuffle ? last_stage - shuffles : last_stage;
    for (int p = first_stage; p <= shared_last; ++p) {
        const int pl = p - q;  // local stage, 1-based
        float2 va[kPer], vb[kPer];
#pragma unroll
        for (int k = 0; k < kPer; ++k) {
            const int b = threadIdx.x + k * blockDim.x;
            if (b < bfly) {
                const int h = b >> (log2l - 1), t = b & (half_l - 1);
                va[k] = sm[(h << log2l) + swz(t, log2l)];
                vb[k] = sm[(h << log2l) + swz(t + half_l, log2l)];
            }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kPer; ++k) {
            const int b = threadIdx.x + k * blockDim.x;
            if (b < bfly) {
                const int h = b >> (log2l - 1), t = b & (half_l - 1);
                const unsigned c = unsigned(slot0 + h) & cmask;  // segment index within the row
                const unsigned g = (c << (pl - 1)) | (unsigned(t) & ((1u << (pl - 1)) - 1u));
                const float2 tt = c_mul(twiddle<kInverse>(tw, bitrev(g, log2n - 1), tw_shift), vb[k]);
                const float2 lo = make_float2(va[k].x + tt.x, va[k].y + tt.y);
                const float2 hi = make_float2(va[k].x - tt.x, va[k].y - tt.y);
                const unsigned p0 = swz(2u * t, log2l);
                float4* dst = reinterpret_cast<float4*>(sm + (h << log2l) + (p0 & ~1u));
                *dst = (p0 & 1u) ? make_float4(hi.x, hi.y, lo.x, lo.y) : make_float4(lo.x, lo.y, hi.x, hi.y);
            }
        }
        __syncthreads();
    }

    const int done = max(0, last_stage - q);  // local stages run: physical = rotl(logical, done)
    if constexpr (kShuffle) {
        if (shuffles > 0) {
            // Lane l, register j holds the block's element e = (warp E + j) 32 + l (E = 2 kPer: enough for all):
            // runs of 32 consecutive logical elements, so the partner at span s <= 16 is lane l ^ s. Lanes past the
            // block's elements shuffle too (whole warps), their values unused.
            constexpr int E = 2 * kPer;
            const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
            const int before = done - shuffles;  // local stages the shared-memory loop ran
            float2 v[E];
#pragma unroll
            for (int j = 0; j < E; ++j) {
                const int e = ((warp * E + j) << 5) + lane;
                v[j] = make_float2(0.0f, 0.0f);
                if (e < elems) {
                    const int h = e >> log2l, i = e & (L - 1);
                    v[j] = sm[(h << log2l) + swz(rotl_bits(unsigned(i), before, log2l), log2l)];
                }
            }
            __syncthreads();  // (every element read before any is written back in the final order)
            for (int p = last_stage - shuffles + 1; p <= last_stage; ++p) {
                const int sbits = log2n - p;  // log2 of the span (0 .. 4)
                const int span = 1 << sbits;
#pragma unroll
                for (int j = 0; j < E; ++j) {
                    const int e = ((warp * E + j) << 5) + lane;
                    const int h = e >> log2l, i = e & (L - 1);
                    float2 other;
                    other.x = __shfl_xor_sync(0xffffffffu, v[j].x, span);
                    other.y = __shfl_xor_sync(0xffffffffu, v[j].y, span);
                    const unsigned c = unsigned(slot0 + h) & cmask;
                    const unsigned g = ((c << log2l) | unsigned(i)) >> (sbits + 1);  // the pair's group in the row
                    const float2 w = twiddle<kInverse>(tw, bitrev(g, log2n - 1), tw_shift);
                    if (i & span) {  // the upper of the pair: a - w b, a the partner's
                        const float2 t = c_mul(w, v[j]);
                        v[j] = make_float2(other.x - t.x, other.y - t.y);
                    } else {  // the lower: a + w b, b the partner's
                        const float2 t = c_mul(w, other);
                        v[j] = make_float2(v[j].x + t.x, v[j].y + t.y);
                    }
                }
            }
#pragma unroll
            for (int j = 0; j < E; ++j) {
                const int e = ((warp * E + j) << 5) + lane;
                if (e < elems) {
                    const int h = e >> log2l, i = e & (L - 1);
                    sm[(h << log2l) + swz(rotl_bits(unsigned(i), done, log2l), log2l)] = v[j];
                }
            }
            __syncthreads();
        }
    }
    if (kNext && next.stages > 0) {
        // The next axis's first log2 H stages (spans H/2 .. 1 rows), position by position across the block's rows:
        // rows h and h + s pair, group h >> (log2 s + 1), twiddle W_{n_next}^bitrev(group) (the in-place order's).
        const int next_tw_shift = kMaxRowLog2 - next.log2n;
        for (int i = threadIdx.x; i < L; i += blockDim.x) {
            const unsigned at = swz(rotl_bits(unsigned(i), done, log2l), log2l);
            float2 v[kMaxNextRows];
#pragma unroll
            for (int h = 0; h < kMaxNextRows; ++h)
                if (h < H) v[h] = sm[(h << log2l) + at];
#pragma unroll
            for (int ls = kMaxNextRowsLog2 - 1; ls >= 0; --ls) {
                const int span = 1 << ls;
                if (span >= H) continue;
#pragma unroll
                for (int h = 0; h < kMaxNextRows; ++h)
                    if (h + span < H && !(h & span)) {
                        const unsigned g = unsigned(h) >> (ls + 1);
                        const float2 t = c_mul(twiddle<kInverse>(tw, bitrev(g, next.log2n - 1), next_tw_shift), v[h + span]);
                        v[h + span] = make_float2(v[h].x - t.x, v[h].y - t.y);
                        v[h] = make_float2(v[h].x + t.x, v[h].y + t.y);
                    }
            }
#pragma unroll
            for (int h = 0; h < kMaxNextRows; ++h)
                if (h < H) sm[(h << log2l) + at] = v[h];
        }
        __syncthreads();
    }
    if (natural) {
        // A group is the G consecutive segments of one row this block holds (G = min(H, 2^q)). Segment c,
        // point m holds X[bitrev_n(c L + m)] = X[(bitrev_l(m) << q) | bitrev_q(c)]; enumerating outputs as
        // e = (M << g) | J writes k = (M << q) | (J << (q - g)) | bitrev_q(c0): contiguous when G = 2^q.
        const int g_bits = min(q, 31 - __clz(H));
        const int G = 1 << g_bits;
        for (int e = threadIdx.x; e < elems; e += blockDim.x) {
            const int J = e & (G - 1);
            const int M = (e >> g_bits) & (L - 1);
            const int grp = e >> (g_bits + log2l);
            const long long s_g = slot0 + (long long)grp * G;
            const long long row = kNext && next.stages > 0 ? row_of(grp) : s_g >> q;
            const unsigned c0 = unsigned(s_g) & cmask;
            const unsigned m = bitrev(unsigned(M), log2l), j = bitrev(unsigned(J), g_bits);
            const std::size_t k = (std::size_t(M) << q) | (std::size_t(J) << (q - g_bits)) | bitrev(c0, q);
            out[(std::size_t(row) << log2n) + k] = sm[((grp * G + int(j)) << log2l) + swz(m, log2l)];
        }
    } else {
        for (int e = threadIdx.x; e < elems; e += blockDim.x) {
            const int h = e >> log2l, i = e & (L - 1);
            const std::size_t at = kNext && next.stages > 0 ? (std::size_t(row_of(h)) << log2l) + i : base + e;
            out[at] = sm[(h << log2l) + swz(rotl_bits(unsigned(i), done, log2l), log2l)];
        }
    }
}

using LocalKernel = void (*)(const float*, const float2*, float2*, int, int, long long, int, int, int, int,
                             const float2*, int, int, NextAxisStages);
using GlobalKernel = void (*)(const float*, const float2*, float2*, int, long long, int, const float2*, int);

template <bool kReal, bool kInverse, bool kShuffle, bool kNext>
LocalKernel pick_local(int per) {
    switch (per) {
        case 1:
            return fft_rows_local_kernel<kReal, kInverse, 1, kShuffle, kNext>;
        case 2:
            return fft_rows_local_kernel<kReal, kInverse, 2, kShuffle, kNext>;
        case 4:
            return fft_rows_local_kernel<kReal, kInverse, 4, kShuffle, kNext>;
        case 8:
            return fft_rows_local_kernel<kReal, kInverse, 8, kShuffle, kNext>;
        default:
            return fft_rows_local_kernel<kReal, kInverse, 16, kShuffle, kNext>;
    }
}

template <bool kShuffle, bool kNext>
LocalKernel local_kernel_of(bool real, bool inverse, int per) {
    if (real)
        return inverse ? pick_local<true, true, kShuffle, kNext>(per) : pick_local<true, false, kShuffle, kNext>(per);
    return inverse ? pick_local<false, true, kShuffle, kNext>(per) : pick_local<false, false, kShuffle, kNext>(per);
}

LocalKernel local_kernel(bool real, bool inverse, int per, bool shuffle, bool next) {
    if (next)
        return shuffle ? local_kernel_of<true, true>(real, inverse, per) : local_kernel_of<false, true>(real, inverse, per);
    return shuffle ? local_kernel_of<true, false>(real, inverse, per) : local_kernel_of<false, false>(real, inverse, per);
}

GlobalKernel global_kernel(bool real, bool inverse) {
    if (real) return inverse ? fft_rows_global_stage_kernel<true, true> : fft_rows_global_stage_kernel<true, false>;
    return inverse ? fft_rows_global_stage_kernel<false, true> : fft_rows_global_stage_kernel<false, false>;
}


constexpr int kMaxPerThread = 16;

}  // namespace

TwiddleTable::TwiddleTable() : table_(kMaxRowLength / 2) {
    std::vector<float2> h(kMaxRowLength / 2);
    for (int e = 0; e < kMaxRowLength / 2; ++e) {
        const double a = -2.0 * M_PI * double(e) / double(kMaxRowLength);
        h[e] = make_float2(float(std::cos(a)), float(std::sin(a)));
    }
    CUDA_CHECK(cudaMemcpy(table_.get(), h.data(), h.size() * sizeof(float2), cudaMemcpyHostToDevice));
}

RowFftPlan plan_row_fft_shape(int n, int rows, const RowFftConfig& cfg, int max_threads, int max_smem_optin,
                              const std::string& device_name) {
    RowFftPlan p;
    if (!is_pow2(n) || n > kMaxRowLength)
        throw ConfigError("the custom FFT needs power-of-two lengths from 1 to " + std::to_string(kMaxRowLength) +
                          "; got " + std::to_string(n) + " (pad to a power of two, or use the cuFFT or CPU backend)");
    if (rows < 1) throw ConfigError("row FFT of " + std::to_string(rows) + " rows");
    if (cfg.threads_per_block < 1 || cfg.threads_per_block > max_threads)
        throw ConfigError("threads per block " + std::to_string(cfg.threads_per_block) + " is outside 1.." +
                          std::to_string(max_threads) + " on " + device_name);
    if (cfg.block_height < 0 || (cfg.block_height > 0 && !is_pow2(cfg.block_height)))
        throw ConfigError("block height H must be a power of two (or 0 for automatic); got " +
                          std::to_string(cfg.block_height));
    if (cfg.max_local_length < 0 ||
        (cfg.max_local_length > 0 && (!is_pow2(cfg.max_local_length) || cfg.max_local_length < 2)))
        throw ConfigError("the local FFT length must be a power of two of at least 2 (or 0 for automatic); got " +
                          std::to_string(cfg.max_local_length));
    p.n = n;
    p.log2n = ilog2(n);
    p.rows = rows;
    int T = cfg.threads_per_block;

    // Local length: the requested cap, else what fits in 48 KiB per block at H = 1.
    int cap = cfg.max_local_length ? cfg.max_local_length : (48 * 1024) / int(sizeof(float2));
    int L = 1;
    while (L * 2 <= std::min(n, cap)) L *= 2;
    if (cfg.threads_twice_length) {  // seed 000 section 4.1: 2 x TLEN threads a block
        T = std::min(max_threads, 2 * L);
        p.notes.push_back("threads per block " + std::to_string(T) + ": twice the local length (seed 000 section 4.1)");
    }
    if (cfg.warp_shuffles && T % 32 != 0) {  // seed 000 section 5.2.2: shuffles need whole warps
        const int T2 = std::min(max_threads, (T + 31) / 32 * 32);
        p.notes.push_back("threads per block raised from " + std::to_string(T) + " to " + std::to_string(T2) +
                          ": warp shuffles need whole warps");
        T = T2;
    }
    // Each thread stages at most 16 butterflies per stage in registers.
    if (L / 2 > kMaxPerThread * T) {
        int L2 = L;
        while (L2 / 2 > kMaxPerThread * T) L2 /= 2;
        std::ostringstream m;
        m << "local FFT length lowered from " << L << " to " << L2 << ": with " << T
          << " threads per block a thread can hold at most " << kMaxPerThread << " butterflies per stage";
        p.notes.push_back(m.str());
        L = L2;
    }
    p.local_len = L;
    p.log2l = ilog2(L);
    p.global_stages = p.log2n - p.log2l;
    const long long slots = (long long)rows << p.global_stages;

    // Block height: requested, else enough segments for ~4096 points per block and a butterfly per thread.
    int H = cfg.block_height;
    if (H == 0) {
        H = std::max(1, 4096 / L);
        while ((long long)H * L / 2 < T && H < 64) H *= 2;
        H = std::min(H, 64);
    }
    if (H > slots) {
        int H2 = 1;
        while (H2 * 2 <= slots) H2 *= 2;
        if (cfg.block_height)
            p.notes.push_back("block height lowered from " + std::to_string(H) + " to " + std::to_string(H2) +
                              ": there are only " + std::to_string(slots) + " rows");
        H = H2;
    }
    if ((long long)H * L / 2 > (long long)kMaxPerThread * T) {
        int H2 = H;
        while (H2 > 1 && (long long)H2 * L / 2 > (long long)kMaxPerThread * T) H2 /= 2;
        p.notes.push_back("block height lowered from " + std::to_string(H) + " to " + std::to_string(H2) + ": " +
                          std::to_string(T) + " threads hold at most " + std::to_string(kMaxPerThread * T) +
                          " butterflies per stage");
        H = H2;
    }
    const long long smem = (long long)H * L * sizeof(float2);
    if (smem > max_smem_optin)
        throw ConfigError("block height " + std::to_string(H) + " with " + std::to_string(L) +
                          "-point segments needs " + std::to_string(smem / 1024) + " KiB of shared memory per block; " +
                          device_name + " allows " + std::to_string(max_smem_optin / 1024) + " KiB");
    const long long bfly = std::max<long long>(1, (long long)H * L / 2);
    if (T > bfly) {
        int T2 = int(std::min<long long>(T, (bfly + 31) / 32 * 32));
        if (T2 != T) {
            p.notes.push_back("threads per block lowered from " + std::to_string(T) + " to " + std::to_string(T2) +
                              ": a block has only " + std::to_string(bfly) + " butterflies per stage");
            T = T2;
        }
    }
    int per = 1;
    while ((long long)per * T < bfly) per *= 2;
    p.threads = T;
    p.block_height = H;
    p.per_thread = per;
    if (cfg.warp_shuffles && p.log2l > 0) {
        p.shuffle_stages = std::min(5, p.log2l);
        p.notes.push_back("the last " + std::to_string(p.shuffle_stages) +
                          " stages through warp shuffles (seed 000 section 5.2.2)");
    }
    p.blocks = int((slots + H - 1) / H);
    p.smem_bytes = int(smem);
    return p;
}

RowFftPlan plan_row_fft(int n, int rows, const RowFftConfig& cfg, const DeviceInfo& dev, bool real_input) {
    RowFftPlan p = plan_row_fft_shape(n, rows, cfg, dev.max_threads_per_block, dev.max_smem_per_block_optin, dev.name);
    p.next_axis = cfg.next_axis_stages;  // (the variant whose registers are checked below)
    const int T = p.threads, L = p.local_len;
    int H = p.block_height;
    // Registers: the kernel variant holding `per` butterflies per thread must fit T threads in one block. If
    // it does not, halve H (fewer butterflies per thread) and say so; at H = 1 it is an error.
    auto per_for = [&](int h) {
        int per = 1;
        while ((long long)per * T < std::max<long long>(1, (long long)h * L / 2)) per *= 2;
        return per;
    };
    int per = p.per_thread;
    for (;;) {
        const void* fn =
            reinterpret_cast<const void*>(local_kernel(real_input, false, per, p.shuffle_stages > 0, p.next_axis));
        cudaFuncAttributes fa{};
        CUDA_CHECK(cudaFuncGetAttributes(&fa, fn));
        if (T <= fa.maxThreadsPerBlock) break;
        if (H == 1)
            throw ConfigError("threads per block " + std::to_string(T) + " cannot launch: the row-FFT kernel with " +
                              std::to_string(per) + " butterflies per thread uses " + std::to_string(fa.numRegs) +
                              " registers per thread, so at most " + std::to_string(fa.maxThreadsPerBlock) +
                              " threads per block fit");
        p.notes.push_back("block height lowered from " + std::to_string(H) + " to " + std::to_string(H / 2) +
                          ": with " + std::to_string(per) + " butterflies per thread the kernel uses " +
                          std::to_string(fa.numRegs) + " registers per thread, too many for " + std::to_string(T) +
                          " threads per block");
        H /= 2;
        per = per_for(H);
    }
    p.block_height = H;
    p.per_thread = per;
    const long long slots = (long long)rows << p.global_stages;
    p.blocks = int((slots + H - 1) / H);
    p.smem_bytes = int((long long)H * L * sizeof(float2));
    return p;
}

float2* run_row_fft(const RowFftPlan& p, const float* real_in, const float2* in, float2* out, float2* scratch,
                    bool inverse, const RowFftStop& stop, const TwiddleTable& tw, cudaStream_t stream,
                    const RowFftCarry& carry) {
    const int stages = stop.stages < 0 ? p.log2n : std::min(stop.stages, p.log2n);
    const int tw_shift = kMaxRowLog2 - p.log2n;
    const int start = std::clamp(carry.done_before, 0, p.log2n) + 1;  // the first stage this pass runs
    const int q_run = std::min(stages, p.global_stages);
    if ((carry.done_before > 0 && !p.next_axis) ||
        (carry.next.stages > 0 &&
        (p.global_stages > 0 || carry.next.stages > kMaxNextRowsLog2 || (1 << carry.next.stages) != p.block_height ||
         carry.next.stages > carry.next.log2n || stages != p.log2n || !p.next_axis)))
        throw ConfigError("internal: section 5.1.1's next-axis stages need whole rows, H = 2^stages <= 16 rows a block, "
                          "a full pass and a plan made for them (next_axis_stages)");

    const float* cur_real = real_in;
    const float2* cur = in;
    if (q_run >= start) {
        if (scratch == out) throw ConfigError("internal: row FFT scratch must differ from its output");
        const long long total = (long long)p.rows * (p.n / 2);
        const int threads = 256;
        const int blocks = int(std::min<long long>((total + threads - 1) / threads, 1ll << 20));
        for (int s = start; s <= q_run; ++s) {
            const bool r = cur_real != nullptr;
            global_kernel(r, inverse)<<<blocks, threads, 0, stream>>>(cur_real, cur, scratch, p.log2n, p.rows, s,
                                                                      tw.get(), tw_shift);
            CUDA_CHECK_LAUNCH("fft_rows_global_stage_kernel");
            cur_real = nullptr;
            cur = scratch;
        }
        if (stages <= p.global_stages) return scratch;  // stopped inside the global stages
    }
    const bool r = cur_real != nullptr;
    const int first = std::max(start, p.global_stages + 1);  // the local kernel's first stage
    // The shuffled stages are the last run with spans of at most 16 (a stop before the row's end has fewer).
    const int shuffles =
        p.shuffle_stages > 0 ? std::max(0, std::min({p.shuffle_stages, 5 - (p.log2n - stages), stages - first + 1}))
                             : 0;
    LocalKernel k =
        local_kernel(r, inverse, p.per_thread, p.shuffle_stages > 0, carry.next.stages > 0 || carry.done_before > 0);
    detail::ensure_dynamic_smem(reinterpret_cast<const void*>(k), p.smem_bytes);
    const long long slots = (long long)p.rows << p.global_stages;
    const bool natural = stop.natural_order && stages == p.log2n;
    k<<<p.blocks, p.threads, p.smem_bytes, stream>>>(cur_real, cur, out, p.log2n, p.log2l, slots, p.block_height,
                                                     first, stages, natural ? 1 : 0, tw.get(), tw_shift, shuffles,
                                                     carry.next);
    CUDA_CHECK_LAUNCH("fft_rows_local_kernel");
    return out;
}

KernelResources row_fft_resources(const RowFftPlan& p, bool real_input, const DeviceInfo& dev) {
    std::ostringstream name;
    name << "fft_rows_local_kernel<" << (real_input ? "real" : "complex") << ", " << p.per_thread << "/thread"
         << (p.shuffle_stages ? ", shuffles>" : ">");
    return kernel_resources(reinterpret_cast<const void*>(local_kernel(real_input, false, p.per_thread,
                                                                       p.shuffle_stages > 0, p.next_axis)),
                            name.str().c_str(), p.threads, p.smem_bytes, dev);
}

}  // namespace specview::gpu
