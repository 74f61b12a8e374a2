// Exact sizes for custom-fast (issue 13: 1920x1080, 3000x2000, 4032x3024 without padding): how a line of n
// points factors into Stockham passes of radix 16, 8, 4, 2, 7, 5 and 3, with Bluestein's chirp-z transform
// over a power-of-two length where a larger prime is left. The small DFTs and one pass are written once here,
// for host and device: the kernels will run them in registers, and the host reference below (the same float
// arithmetic, a line at a time) is what the tests hold against FFTW in double precision, and what the kernels
// will be held against pass by pass.
#pragma once

#include <vector_types.h>  // float2 (host code too)

#include "gpu/common/device_math.h"

#include <math.h>

#include <algorithm>
#include <complex>
#include <type_traits>
#include <vector>

#if defined(__CUDACC__)
#define SV_MR_HD __host__ __device__ __forceinline__
#else
#define SV_MR_HD inline
#endif
#if defined(__CUDA_ARCH__)  // the device pass (the host compiler would warn of an unknown pragma)
#define SV_MR_UNROLL _Pragma("unroll")
#else
#define SV_MR_UNROLL
#endif

namespace specview::mixed_radix {

// The complex arithmetic of gpu/common/device_math.h, under the names this file has always used.
using specview::c_add;
using specview::c_make;
using specview::c_mul;
using specview::c_rot;
using specview::c_scale;
using specview::c_sub;

// The radix-2^k DFT (k = 1..4) of v[0..R), natural order in and out: radix-2 decimation in time, with the
// sixteenth roots of unity as constants.
template <int R>
SV_MR_HD void dft_pow2(float2* v, bool inverse) {
    if constexpr (R == 1) {
        return;
    } else {
        const float c[8] = {1.0f, 0.923879532511287f,  0.707106781186548f,  0.382683432365090f,
                            0.0f, -0.382683432365090f, -0.707106781186548f, -0.923879532511287f};
        const float s[8] = {0.0f, 0.382683432365090f, 0.707106781186548f, 0.923879532511287f,
                            1.0f, 0.923879532511287f, 0.707106781186548f, 0.382683432365090f};
        float2 e[R / 2], o[R / 2];
        SV_MR_UNROLL
        for (int i = 0; i < R / 2; ++i) {
            e[i] = v[2 * i];
            o[i] = v[2 * i + 1];
        }
        dft_pow2<R / 2>(e, inverse);
        dft_pow2<R / 2>(o, inverse);
        SV_MR_UNROLL
        for (int k = 0; k < R / 2; ++k) {
            // W^0 = 1 and W^4 = -+i as the exact swaps they are: x * 0 does not fold away (x may be infinite or
            // NaN), and these are 22 of a 16-point DFT's 32 butterflies (PERF_NOTES m34).
            const int m = k * (16 / R);
            const float2 t = m == 0   ? o[k]
                             : m == 4 ? c_rot(o[k], inverse)
                                      : c_mul(c_make(c[m], inverse ? s[m] : -s[m]), o[k]);
            v[k] = c_add(e[k], t);
            v[k + R / 2] = c_sub(e[k], t);
        }
    }
}

// The 3-, 5- and 7-point DFTs written out: each output pairs the symmetric inputs (x_r + x_{R-r}, x_r - x_{R-r})
// with cos and sin of 2 pi r k / R, the textbook real-arithmetic form (for 3: 4 real multiplications).
SV_MR_HD void dft3(float2* v, bool inverse) {
    const float c1 = -0.5f, s1 = 0.866025403784439f;
    const float2 a = c_add(v[1], v[2]), d = c_sub(v[1], v[2]);
    const float2 m = c_add(v[0], c_scale(a, c1));
    const float2 r = c_scale(c_rot(d, inverse), s1);  // -+i sin(2 pi / 3) (x1 - x2)
    v[0] = c_add(v[0], a);
    v[1] = c_add(m, r);
    v[2] = c_sub(m, r);
}

template <int R>
SV_MR_HD void dft_odd(float2* v, bool inverse) {  // R = 5 or 7
    constexpr int H = R / 2;
    // cos(2 pi k / R), sin(2 pi k / R) for k = 1..H
    const float c5[2] = {0.309016994374947f, -0.809016994374947f}, s5[2] = {0.951056516295154f, 0.587785252292473f};
    const float c7[3] = {0.623489801858734f, -0.222520933956314f, -0.900968867902419f},
                s7[3] = {0.781831482468030f, 0.974927912181824f, 0.433883739117558f};
    float2 a[H], d[H];
    float2 sum = v[0];
    SV_MR_UNROLL
    for (int r = 1; r <= H; ++r) {
        a[r - 1] = c_add(v[r], v[R - r]);
        d[r - 1] = c_sub(v[r], v[R - r]);
        sum = c_add(sum, a[r - 1]);
    }
    float2 out[R];
    out[0] = sum;
    SV_MR_UNROLL
    for (int k = 1; k <= H; ++k) {
        float2 m = v[0], t = c_make(0.0f, 0.0f);
        SV_MR_UNROLL
        for (int r = 1; r <= H; ++r) {
            const int idx = (r * k) % R;  // cos and sin of 2 pi r k / R from the table (sin odd, cos even)
            const int j = idx <= H ? idx : R - idx;
            const float sg = idx <= H ? 1.0f : -1.0f;
            const float cj = R == 5 ? c5[j - 1] : c7[j - 1], sj = R == 5 ? s5[j - 1] : s7[j - 1];
            m = c_add(m, c_scale(a[r - 1], cj));
            t = c_add(t, c_scale(d[r - 1], sg * sj));
        }
        const float2 rt = c_rot(t, inverse);  // -+i sum sin(.) (x_r - x_{R-r})
        out[k] = c_add(m, rt);
        out[R - k] = c_sub(m, rt);
    }
    SV_MR_UNROLL
    for (int k = 0; k < R; ++k) v[k] = out[k];
}

// The prime and power-of-two DFTs a pass or a composite DFT is made of.
template <int R>
SV_MR_HD void base_dft(float2* v, bool inverse) {
    if constexpr (R == 3)
        dft3(v, inverse);
    else if constexpr (R == 5 || R == 7)
        dft_odd<R>(v, inverse);
    else
        dft_pow2<R>(v, inverse);
}

// The (P Q)-point DFT by Cooley-Tukey in registers: Q P-point DFTs of x[Q n1 + n2] over n1, the products times
// W^(n2 k1) (W = exp(-+2 pi i / (P Q)); c[m] and s[m] its cosine and sine for m = n2 k1), P Q-point DFTs over n2;
// X[k1 + P k2]. One pass of P Q instead of a pass of P and one of Q saves a shared-memory round trip and a pair of
// barriers (PERF_NOTES.md m4, m12).
template <int P, int Q>
SV_MR_HD void dft_ct(float2* v, bool inverse, const float* c, const float* s) {
    float2 a[Q][P];  // a[n2][k1]
    SV_MR_UNROLL
    for (int n2 = 0; n2 < Q; ++n2) {
        SV_MR_UNROLL
        for (int n1 = 0; n1 < P; ++n1) a[n2][n1] = v[Q * n1 + n2];
        base_dft<P>(a[n2], inverse);
    }
    const float sg = inverse ? 1.0f : -1.0f;
    SV_MR_UNROLL
    for (int n2 = 1; n2 < Q; ++n2) SV_MR_UNROLL
    for (int k1 = 1; k1 < P; ++k1) a[n2][k1] = c_mul(a[n2][k1], c_make(c[n2 * k1], sg * s[n2 * k1]));
    SV_MR_UNROLL
    for (int k1 = 0; k1 < P; ++k1) {
        float2 b[Q];
        SV_MR_UNROLL
        for (int n2 = 0; n2 < Q; ++n2) b[n2] = a[n2][k1];
        base_dft<Q>(b, inverse);
        SV_MR_UNROLL
        for (int k2 = 0; k2 < Q; ++k2) v[k1 + P * k2] = b[k2];
    }
}

// 9 = 3 x 3 (the run-time plans' pairs of 3s, m4); 15 = 3 x 5 and 10 = 2 x 5 (the compiled-in plans only, where a
// line's threads hold the points: fixed_plan, m12/m13). The tables: cos and sin of 2 pi m / N for m = 0..n2 k1 max.
SV_MR_HD void dft9(float2* v, bool inverse) {
    const float c[5] = {1.0f, 0.766044443118978f, 0.173648177666930f, -0.5f, -0.939692620785908f};
    const float s[5] = {0.0f, 0.642787609686539f, 0.984807753012208f, 0.866025403784439f, 0.342020143325669f};
    dft_ct<3, 3>(v, inverse, c, s);
}
SV_MR_HD void dft15(float2* v, bool inverse) {
    const float c[9] = {1.0f,  0.913545457642601f,  0.669130606358858f,  0.309016994374947f, -0.104528463267653f,
                        -0.5f, -0.809016994374947f, -0.978147600733806f, -0.978147600733806f};
    const float s[9] = {0.0f,
                        0.406736643075800f,
                        0.743144825477394f,
                        0.951056516295154f,
                        0.994521895368273f,
                        0.866025403784439f,
                        0.587785252292473f,
                        0.207911690817759f,
                        -0.207911690817759f};
    dft_ct<3, 5>(v, inverse, c, s);
}
SV_MR_HD void dft10(float2* v, bool inverse) {
    const float c[5] = {1.0f, 0.809016994374947f, 0.309016994374947f, -0.309016994374947f, -0.809016994374947f};
    const float s[5] = {0.0f, 0.587785252292473f, 0.951056516295154f, 0.951056516295154f, 0.587785252292473f};
    dft_ct<2, 5>(v, inverse, c, s);
}

SV_MR_HD void dft_small(float2* v, int R, bool inverse) {
    switch (R) {
        case 2:
            dft_pow2<2>(v, inverse);
            break;
        case 3:
            dft3(v, inverse);
            break;
        case 4:
            dft_pow2<4>(v, inverse);
            break;
        case 5:
            dft_odd<5>(v, inverse);
            break;
        case 7:
            dft_odd<7>(v, inverse);
            break;
        case 8:
            dft_pow2<8>(v, inverse);
            break;
        case 9:
            dft9(v, inverse);
            break;
        case 10:
            dft10(v, inverse);
            break;
        case 15:
            dft15(v, inverse);
            break;
        case 16:
            dft_pow2<16>(v, inverse);
            break;
        default:
            break;
    }
}

constexpr int kMaxPasses = 16;  // 16384 = 16^3 * 4: 4 passes; 7-smooth lengths up to 16384: at most 14

// A line's passes, in the order they run (Ns, the product of the earlier radices, grows from 1 to n).
struct LinePlan {
    int n = 0;
    int passes = 0;
    int radix[kMaxPasses] = {};
    // n has a prime factor over 7: Bluestein's transform through a power-of-two length m >= 2n - 1 (whose own
    // plan is plan_line(m)).
    bool bluestein = false;
    int m = 0;
};

// The plan of an n-point line (n >= 1): radix 16 while it divides, then one of 8, 4, 2 for the rest of the power
// of two, then 9s (3 x 3 in registers), 7s, 5s and a last 3; Bluestein when anything else is left. constexpr: the
// kernels compile the users' lengths' plans in (FixedLine).
constexpr LinePlan plan_line(int n) {
    LinePlan p;
    p.n = n;
    int rest = n;
    int twos = 0;
    while (rest % 2 == 0) rest /= 2, ++twos;
    for (; twos >= 4; twos -= 4) p.radix[p.passes++] = 16;
    if (twos > 0) p.radix[p.passes++] = 1 << twos;
    const int odd[4] = {9, 7, 5, 3};
    for (int r : odd)
        while (rest % r == 0 && p.passes < kMaxPasses) rest /= r, p.radix[p.passes++] = r;
    if (rest != 1) {
        p.passes = 0;
        p.bluestein = true;
        p.m = 1;
        while (p.m < 2 * n - 1) p.m *= 2;
    }
    return p;
}

// One Stockham pass of radix R over a line (in -> out, n points, ns = the product of the earlier radices):
// butterfly j (0 <= j < n / R) takes x[j + r n / R], twiddles input r by W^(r k) with W = exp(-+2 pi i / (ns R))
// and k = j mod ns, transforms, and writes output r to (j / ns) ns R + k + r ns. After the last pass the line
// is in natural order. The twiddles come from sin/cos of pi * (2 r k mod 2 ns R) / (ns R) in double, rounded.
inline void stockham_pass(const float2* in, float2* out, int n, int R, int ns, bool inverse) {
    const int q = n / R;
    float2 v[16];
    for (int j = 0; j < q; ++j) {
        const int k = j % ns;
        for (int r = 0; r < R; ++r) {
            float2 x = in[j + r * q];
            if (r > 0 && k > 0) {
                const long long num = (2LL * r * k) % (2LL * ns * R);
                const double a = 3.14159265358979323846 * double(num) / double(ns * R);
                x = c_mul(x, c_make(float(cos(a)), float(inverse ? sin(a) : -sin(a))));
            }
            v[r] = x;
        }
        dft_small(v, R, inverse);
        for (int r = 0; r < R; ++r) out[(j / ns) * ns * R + k + r * ns] = v[r];
    }
}

namespace detail {
inline void run_passes(std::vector<float2>& x, const LinePlan& p, bool inverse) {
    std::vector<float2> tmp(x.size());
    int ns = 1;
    for (int i = 0; i < p.passes; ++i) {
        stockham_pass(x.data(), tmp.data(), p.n, p.radix[i], ns, inverse);
        x.swap(tmp);
        ns *= p.radix[i];
    }
}
// exp(-+pi i k^2 / n), with k^2 taken mod 2n first so the angle is exact however large k is.
inline float2 chirp(long long k, int n, bool inverse) {
    const long long e = (k * k) % (2LL * n);
    const double a = 3.14159265358979323846 * double(e) / double(n);
    return c_make(float(cos(a)), float(inverse ? sin(a) : -sin(a)));
}
}  // namespace detail

// The whole line by its plan (forward: exp(-2 pi i jk / n); inverse unnormalised), in float on the host: the
// kernels' arithmetic, one line at a time.
inline void reference_line(std::vector<float2>& x, bool inverse) {
    const int n = int(x.size());
    const LinePlan p = plan_line(n);
    if (!p.bluestein) {
        detail::run_passes(x, p, inverse);
        return;
    }
    // Bluestein: X_k = w_k sum_j (x_j w_j) conj(w)_{k-j}, w_j = exp(-+pi i j^2 / n): a convolution of length m,
    // through two forward transforms and one inverse of the power-of-two length m.
    const int m = p.m;
    const LinePlan pm = plan_line(m);
    std::vector<float2> a(std::size_t(m), c_make(0.0f, 0.0f)), b(std::size_t(m), c_make(0.0f, 0.0f));
    for (int j = 0; j < n; ++j) {
        const float2 w = detail::chirp(j, n, inverse);
        a[std::size_t(j)] = c_mul(x[std::size_t(j)], w);
        const float2 cw = c_make(w.x, -w.y);
        b[std::size_t(j)] = cw;
        if (j > 0) b[std::size_t(m - j)] = cw;
    }
    detail::run_passes(a, pm, false);
    detail::run_passes(b, pm, false);
    for (int i = 0; i < m; ++i) a[std::size_t(i)] = c_mul(a[std::size_t(i)], b[std::size_t(i)]);
    detail::run_passes(a, pm, true);
    const float s = 1.0f / float(m);
    for (int k = 0; k < n; ++k) x[std::size_t(k)] = c_mul(c_scale(a[std::size_t(k)], s), detail::chirp(k, n, inverse));
}

// ---- The kernels' line engine, a thread's share of it (gpu/fast/fft_mixed.cu runs these between the block's barriers;
// tests/cpu/mixed_radix_test.cpp runs them on the host, thread after thread, barrier by barrier) ----
//
// A line of `work` points sits in shared memory in natural order, one padding element every 16 (padi). Each pass
// has two halves with a barrier between: gather (every thread reads its butterflies' inputs, twiddles and
// transforms them in registers) and scatter (writes the outputs in Stockham order). tpc threads share a line; with
// tpc >= work / 16 no thread has more than ceil(16 / R) butterflies in a pass of radix R.

SV_MR_HD int padi(int i) { return i + (i >> 4); }
SV_MR_HD constexpr int padded_len(int n) { return n + (n >> 4) + 1; }

// Threads a line of `work` points takes: work / 16 rounded up, then to whole warps once over one.
constexpr int line_threads(int work) {
    const int tpc = work > 16 ? (work + 15) / 16 : 1;
    return tpc > 32 ? (tpc + 31) / 32 * 32 : tpc;
}

// The lengths whose plans the kernels have compiled in (gpu/fast/fft_mixed.cu: with every pass's radix, its Ns and the
// threads a line known to the compiler, the indexing folds to constants and nothing spills, as v9 found for the
// powers of two; PERF_NOTES.md m9): the sides of the users' photos and video frames, landscape and portrait
// (720p, 1080p, 1440p, 4K UHD; 6, 12, 16, 24 and 48 MP photos at 3:2 and 4:3; m94: the 4:3 screen and camera sizes
// VGA, SVGA, XGA and UXGA, 640x480, 800x600, 1024x768, 1600x1200, whose run-time plans were 2.3x slower). Other
// lengths run the same passes from the run-time plan.
constexpr int kFixedLengths[] = {480,  600,  640,  720,  768,  800,  1024, 1080, 1200, 1280, 1440, 1600, 1920,
                                 2000, 2160, 2560, 3000, 3024, 3456, 3840, 4000, 4032, 4608, 6000, 6048, 8064};

// Two plans with the same passes (and so the same twiddle table).
constexpr bool same_passes(const LinePlan& a, const LinePlan& b) {
    if (a.passes != b.passes || a.bluestein != b.bluestein) return false;
    for (int i = 0; i < a.passes; ++i)
        if (a.radix[i] != b.radix[i]) return false;
    return true;
}

constexpr bool is_fixed_length(int n) {
    for (int f : kFixedLengths)
        if (f == n) return true;
    return false;
}

// Threads a line of a compiled-in length takes: line_threads', or where its plan has a 5 and a 3 to merge into a
// pass of 15 but n / 15 butterflies are more than that, n / 15 in whole warps, one butterfly a thread (3000: 192 ->
// 224, 6000: 384 -> 416). The host's Line follows it wherever the compiled kernels run (gpu/fast/fft_mixed.cu).
constexpr int fixed_threads(int n) {
    const int tpc = line_threads(n);
    if (n % 15 != 0 || n / 15 <= tpc) return tpc;
    const LinePlan p = plan_line(n);
    bool five = false, three = false;
    for (int i = 0; i < p.passes; ++i) {
        five = five || p.radix[i] == 5;
        three = three || p.radix[i] == 3;
    }
    const int more = (n / 15 + 31) / 32 * 32;
    return !p.bluestein && five && three && more <= 1024 ? more : tpc;
}

// The most points a thread holds in one pass of plan p on tpc threads a line (ceil(n / R / tpc) butterflies of R),
// and whether no pass gives a thread more butterflies than the run-time plans' bound, ceil(16 / R) (PassRegs).
constexpr int most_points(const LinePlan& p, int tpc) {
    int most = 0;
    for (int i = 0; i < p.passes; ++i) most = std::max(most, (p.n / p.radix[i] + tpc - 1) / tpc * p.radix[i]);
    return most;
}
constexpr bool within_butterfly_bound(const LinePlan& p, int tpc) {
    for (int i = 0; i < p.passes; ++i)
        if ((p.n / p.radix[i] + tpc - 1) / tpc > (16 + p.radix[i] - 1) / p.radix[i]) return false;
    return true;
}

// A compiled-in length's plan: plan_line's, with pairs merged into one pass where the line's threads
// (fixed_threads) hold the points (at most 20 a thread, as radix 5's four butterflies): a 5 and a 3 into 15 (dft15,
// one butterfly a thread; 1920, 1080, 2160, 3840, 3000, 6000), then a 2 and a 5 into 10 (dft10, at most two; 4000,
// 1440, 2560). In the 5's place: one pass and one shared-memory round trip fewer.
namespace detail {
constexpr bool merge_pass(LinePlan& p, int a, int b, int n) {
    const int R = a * b, tpc = fixed_threads(n);
    if (n % R != 0 || (n / R + tpc - 1) / tpc * R > 20)
        return false;  // 20 points a thread, as radix 5's four butterflies
    int ia = -1, ib = -1;
    for (int i = 0; i < p.passes; ++i) {
        if (p.radix[i] == a && ia < 0) ia = i;
        if (p.radix[i] == b && ib < 0 && i != ia) ib = i;
    }
    if (ia < 0 || ib < 0) return false;
    const int keep = b == 5 ? ib : ia, drop = b == 5 ? ia : ib;  // the merged pass in the 5's place
    p.radix[keep] = R;
    for (int i = drop; i + 1 < p.passes; ++i) p.radix[i] = p.radix[i + 1];
    p.radix[--p.passes] = 0;
    return true;
}
}  // namespace detail

constexpr LinePlan fixed_plan(int n) {
    LinePlan p = plan_line(n);
    if (p.bluestein) return p;
    detail::merge_pass(p, 3, 5, n);
    detail::merge_pass(p, 2, 5, n);
    return p;
}

// Threads a line takes in the C2C's interleaved column blocks (gpu/fast/fft_mixed.cu, four lines a block, their threads
// interleaved so that any multiple of 8 fills whole warps): the fewest, in steps of 8, with which no thread holds
// more points in a pass than with fixed_threads, within the butterfly bound. Where fixed_threads rounds up to whole
// warps, or to n / 15, threads idle in the passes that have fewer butterflies; the column blocks, latency-bound and
// in 1.2 waves at 1920x1080, gain by the smaller block (1080-point columns: 96 -> 72 threads, four blocks an SM at 56
// registers, one wave; PERF_NOTES.md m39). Row blocks (a line on consecutive threads) keep fixed_threads: their last
// warp would run part-empty (the 1080-point rows at 72 threads were 2-3% slower).
// m40: where more threads than fixed_threads gave the column blocks fewer points a thread and paid on the H100
// (measured; the rule above would keep fixed_threads): 1440 (16, 9, 10) on 160 threads, at most 16 points a thread
// instead of 20; 2000 (16, 5, 5, 5) on 136, 16 instead of 20; 3024 (16, 9, 7, 3) on 216, 18 instead of 21. The
// kernels also took fewer registers (49-60 instead of 62-64), so the blocks an SM stayed as many.
constexpr int measured_column_threads(int n) { return n == 1440 ? 160 : n == 2000 ? 136 : n == 3024 ? 216 : 0; }

constexpr int column_threads(int n) {
    if (measured_column_threads(n) > 0) return measured_column_threads(n);
    const LinePlan p = fixed_plan(n);
    const int tpc = fixed_threads(n), most = most_points(p, tpc);
    for (int t = 8; t < tpc; t += 8)
        if (most_points(p, t) <= most && within_butterfly_bound(p, t)) return t;
    return tpc;
}
template <int n>
inline constexpr int kColumnThreads = column_threads(n);  // for device code

// Where a compiled-in plan keeps its line between passes: padded (padi, a slot skipped after every 16) or plain.
// The padding spreads a scatter with a small Ns over the banks (radix 16 at Ns = 1 writes 16 apart: one bank pair
// for a whole warp), but it costs every other access: a warp's 32 neighbours span 34 slots, three or four
// wavefronts where two do (ncu: 2.6-way conflicts on the 4000-point rows' loads, PERF_NOTES.md m15), and each
// padded index is a shift and two adds more. So each pass's output takes the layout in which it and the next pass's
// reads take fewer wavefronts, by a count of the first two warps' accesses; plain where they tie. The last pass's
// output stays padded (the kernels that read a whole line back out use padi).
struct LineLayouts {
    bool padded[kMaxPasses] = {};  // pass P's output
};
namespace detail {
// Wavefronts of one warp's access to 8-byte elements at float2 indices a[0..count) (its active lanes): a wavefront
// serves one address in each of the 16 bank pairs (128 bytes), so it is the most distinct addresses in a pair.
constexpr int wavefronts(const int* a, int count) {
    int distinct[32] = {}, d = 0;
    for (int i = 0; i < count; ++i) {
        bool seen = false;
        for (int k = 0; k < d; ++k) seen = seen || distinct[k] == a[i];
        if (!seen) distinct[d++] = a[i];
    }
    int per_pair[16] = {}, most = 0;
    for (int k = 0; k < d; ++k) most = std::max(most, ++per_pair[distinct[k] % 16]);
    return most;
}
// The wavefronts of a pass's scatter (radix R after ns) and the next pass's gather (radix R2) in one layout, over
// the first two warps of every butterfly slot (pass_scatter's and pass_gather's indices).
constexpr int boundary_wavefronts(int n, int tpc, int R, int ns, int R2, bool pad) {
    int total = 0;
    for (int side = 0; side < 2; ++side) {
        const int radix = side == 0 ? R : R2, q = n / radix, slots = (q + tpc - 1) / tpc;
        for (int w = 0; w < 2 && 32 * w < tpc; ++w)
            for (int b = 0; b < slots; ++b)
                for (int r = 0; r < radix; ++r) {
                    int a[32] = {}, count = 0;
                    for (int l = 0; l < 32 && 32 * w + l < tpc; ++l) {
                        const int j = 32 * w + l + b * tpc;
                        if (j >= q) continue;
                        const int i = side == 0 ? (j - j % ns) * R + j % ns + r * ns : j + r * q;
                        a[count++] = pad ? i + (i >> 4) : i;
                    }
                    if (count > 0) total += wavefronts(a, count);
                }
    }
    return total;
}
}  // namespace detail
constexpr LineLayouts line_layouts(const LinePlan& p, int tpc) {
    LineLayouts out;
    int ns = 1;
    for (int i = 0; i < p.passes; ++i) {
        const bool last = i + 1 == p.passes;
        out.padded[i] = last || detail::boundary_wavefronts(p.n, tpc, p.radix[i], ns, p.radix[i + 1], true) <
                                    detail::boundary_wavefronts(p.n, tpc, p.radix[i], ns, p.radix[i + 1], false);
        ns *= p.radix[i];
    }
    return out;
}

// A compiled-in length's plan, as constants (kWork one of kFixedLengths; 7-smooth, so no Bluestein), on kTpc threads
// a line (0: fixed_threads; the interleaved column blocks take column_threads), which the layouts follow.
template <int kWork, int kTpc = 0>
struct FixedLine {
    static constexpr LinePlan plan = fixed_plan(kWork);
    static_assert(!plan.bluestein && plan.passes > 0, "a fixed length is 7-smooth");
    static constexpr int passes = plan.passes;
    static constexpr int tpc = kTpc > 0 ? kTpc : fixed_threads(kWork);
    static_assert(within_butterfly_bound(plan, tpc), "no thread holds more butterflies than PassRegs' bound");
    static constexpr int ns_before(int pass) {
        int ns = 1;
        for (int i = 0; i < pass; ++i) ns *= plan.radix[i];
        return ns;
    }
    // Pass P's radix, and its Ns (the product of the radices before it).
    template <int P>
    static constexpr int kRadix = plan.radix[P];
    template <int P>
    static constexpr int kNs = ns_before(P);
    // Butterflies a thread has in pass P: exactly ceil((n / R) / tpc), where the run-time plan's kernels hold
    // ceil(16 / R).
    template <int P>
    static constexpr int kButterflies = (kWork / plan.radix[P] + tpc - 1) / tpc;
    // Whether pass P's output in shared memory is padded (line_layouts; the last pass's is).
    static constexpr LineLayouts layouts = line_layouts(plan, tpc);
    template <int P>
    static constexpr bool kPadOut = layouts.padded[P];
};

// j mod d for 0 <= j, d <= 16384 by a multiplication: one division a pass instead of one a butterfly (a runtime
// integer division is some twenty instructions). magic = ceil(2^32 / d) is off by e < d, so j magic / 2^32 is
// off j / d by j e / (d 2^32) < 1 / d, which cannot carry floor(j / d) past the next integer (j e < 2^28).
struct Divider {
    unsigned d, magic;
    SV_MR_HD explicit Divider(int divisor) : d(unsigned(divisor)), magic(d > 1 ? 0xFFFFFFFFu / d + 1u : 0u) {}
    SV_MR_HD int mod(int j) const {
        if (d == 1) return 0;
#if defined(__CUDA_ARCH__)
        const unsigned quotient = __umulhi(unsigned(j), magic);
#else
        const unsigned quotient = unsigned((unsigned long long)unsigned(j) * magic >> 32);
#endif
        return int(unsigned(j) - quotient * d);
    }
};

// Calls f(std::integral_constant<int, R>{}) for a pass's radix R (16, 8, 4, 2, 9, 3, 5; otherwise 7, the one
// radix left): the one switch from a line's run-time radices to the passes' compile-time ones, for the kernels
// (gpu/fast/fft_mixed.cu) and their host emulation (tests/cpu/mixed_radix_test.cpp).
template <class F>
SV_MR_HD void with_radix(int R, F&& f) {
    switch (R) {
        case 16:
            f(std::integral_constant<int, 16>{});
            break;
        case 8:
            f(std::integral_constant<int, 8>{});
            break;
        case 4:
            f(std::integral_constant<int, 4>{});
            break;
        case 2:
            f(std::integral_constant<int, 2>{});
            break;
        case 9:
            f(std::integral_constant<int, 9>{});
            break;
        case 3:
            f(std::integral_constant<int, 3>{});
            break;
        case 5:
            f(std::integral_constant<int, 5>{});
            break;
        default:
            f(std::integral_constant<int, 7>{});
            break;
    }
}

// A thread's butterflies in a pass of radix R: at most ceil(16 / R) with tpc >= work / 16 threads a line; a
// compiled-in plan gives the exact count (FixedLine::kButterflies).
template <int R, int kB = (16 + R - 1) / R>
struct PassRegs {
    static constexpr int kButterflies = kB;
    float2 v[kButterflies][R];
};

// W_N^m = exp(-2 pi i m / N), the angle reduced mod 2 pi exactly (in integers) and taken in double, rounded once.
inline float2 root_of_unity(long long m, long long N) {
    const long long num = (2LL * m) % (2LL * N);  // the angle pi num / N
    const double a = 3.14159265358979323846 * double(num) / double(N);
    return c_make(float(cos(a)), float(-sin(a)));
}

// A work length's twiddles, all its passes' in one table of work - 1 entries (the passes' ns (R - 1) add up to
// work - 1): the pass with ns keeps W^(r k), W = exp(-2 pi i / (ns R)), for r = 1..R-1 and k = 0..ns-1 at
// [ns - 1 + (r - 1) ns + k], forward (the inverse takes conjugates); a warp's neighbouring k read neighbouring
// entries. Computed in double and rounded once: the kernels load them (through the read-only cache) instead of
// computing sin and cos in float, which was most of a pass's arithmetic. Since m60 they read row r = 1 (W^k) and
// make the rest as its powers (twiddle_powers), reading another row only where a chain starts afresh.
inline std::vector<float2> twiddle_table(const LinePlan& p) {
    std::vector<float2> t;
    int ns = 1;
    for (int i = 0; i < p.passes; ++i) {
        const int R = p.radix[i];
        for (int r = 1; r < R; ++r)
            for (int k = 0; k < ns; ++k) t.push_back(root_of_unity(1LL * r * k, 1LL * ns * R));
        ns *= R;
    }
    return t;
}

SV_MR_HD float2 load_twiddle(const float2* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}

// The compiled-in plans' twiddles as two small tables (m24): W_n^m = W_n^(64 (m / 64)) W_n^(m mod 64), every pass's
// W_(ns R)^(r k) being W_n^(r k n / (ns R)) with r k n / (ns R) < n. 64 + ceil(n / 64) entries (1 KiB at 4000 points),
// which a block keeps in shared memory, where the whole tables (n - 1 entries, 32 KiB at 4000) were read through L1
// (a quarter of the row kernel's stall samples waited on them: PERF_NOTES.md, profile). Low part first: [0, 64)
// W_n^j - 1, then [64, ..) W_n^(64 i); forward, computed in double and rounded once. The product rounded once more
// and grew the lines' error against FFTW by 4-8% (1.35e-7 -> 1.45e-7 at 4000 points, host emulation); since m61 the
// low part is kept as W_n^j - 1 (its small real part exact to its own digits) and W = hi + hi (lo - 1), the small
// product first and one rounding at W's size: the split tables' W is then as good as the whole table's (1.36e-7 at
// 3000 points against 1.44e-7, one lookup a twiddle), which matters since m60 makes the other twiddles powers of it.
constexpr int kSplitLowLog2 = 6, kSplitLow = 1 << kSplitLowLog2;
SV_MR_HD constexpr int split_table_size(int n) { return kSplitLow + (n + kSplitLow - 1) / kSplitLow; }
inline std::vector<float2> split_twiddle_table(int n) {
    std::vector<float2> t;
    for (int j = 0; j < kSplitLow;
         ++j) {  // W_n^j - 1 (m61): cos - 1 as -2 sin^2(a / 2), so small parts keep their digits
        const double a = 3.14159265358979323846 * double(2 * j) / double(n), h = sin(a / 2);
        t.push_back(c_make(float(-2.0 * h * h), float(-sin(a))));
    }
    for (int i = 0; i < (n + kSplitLow - 1) / kSplitLow; ++i) t.push_back(root_of_unity(1LL * kSplitLow * i, n));
    return t;
}
// Inputs r = 1..R-1 times W^r, W = W_(ns R)^k (forward), `root(r)` looking W^r up (m60): W^r as W^(r-1) W, with
// W^r looked up afresh only where r - 1 is a multiple of kTwiddleChain. One lookup a butterfly at the longest chain
// instead of R - 1 (each of which was two shared-memory loads, their indices and a product from the split tables, or
// a load through L1 from the whole table), at one rounding more a step, and W's own rounding grows r-fold in W^r
// (PERF_NOTES.md m60: 1.13-1.30x cuFFT's error at the exact sizes, from 0.61-0.66x). A shorter chain buys accuracy
// back for a lookup every kTwiddleChain twiddles (m61, chains of four with the split root below: 0.70-0.84x on the H100).
constexpr int kTwiddleChain = 4;
template <int R, bool kInv, class Root>
SV_MR_HD void twiddle_powers(float2* v, const Root& root) {
    float2 w = root(1);
    if (kInv) w.y = -w.y;
    float2 p = w;
    v[1] = c_mul(v[1], p);
    SV_MR_UNROLL
    for (int r = 2; r < R; ++r) {
        if ((r - 1) % kTwiddleChain == 0) {
            p = root(r);
            if (kInv) p.y = -p.y;
        } else {
            p = c_mul(p, w);
        }
        v[r] = c_mul(v[r], p);
    }
}

// Inputs r = 1..R-1 times W_(ns R)^(r k) from the split tables of the line's kN points (split_twiddle_table).
// m62: no branch on k = 0 (W^0 = 1, which the tables hold exactly: its powers and the products by them are exact),
// only on ns = 1, the same for every thread of the pass: a branch on k split every warp where ns < 32 (one lane in
// ns) and put a reconvergence point in each butterfly.
template <int R, bool kInv, int kN>
SV_MR_HD void twiddle_split(float2* v, const float2* table, int k, int ns) {
    if (ns == 1) return;  // the first pass: no twiddles
    const int m = k * (kN / (ns * R));
    twiddle_powers<R, kInv>(v, [table, m](int r) {
        const int i = r * m;
        const float2 hi = table[kSplitLow + (i >> kSplitLowLog2)];
        return c_add(hi, c_mul(hi, table[i & (kSplitLow - 1)]));  // hi + hi (lo - 1): the small product first
    });
}

// Inputs r = 1..R-1 times W^(r k) from the pass's part of the table (tw = table + ns - 1).
template <int R, bool kInv>
SV_MR_HD void twiddle(float2* v, const float2* tw, int k, int ns) {
    if (ns == 1) return;  // the first pass: no twiddles (m62: none skipped by k, as twiddle_split)
    twiddle_powers<R, kInv>(v, [tw, k, ns](int r) { return load_twiddle(tw + (r - 1) * ns + k); });
}

template <int R>
SV_MR_HD void small_dft(float2* v, bool inverse) {
    if constexpr (R == 9)
        dft9(v, inverse);
    else if constexpr (R == 10)
        dft10(v, inverse);
    else if constexpr (R == 15)
        dft15(v, inverse);
    else
        base_dft<R>(v, inverse);
}

// A pass's first half for thread t: butterflies j = t, t + tpc, ... < n / R read x[j + r n / R]. `table` is the
// work length's twiddle_table. The first pass (ns = 1: no twiddles) may read the line where it lies in global
// memory instead: pass_gather_from with `at(i)` giving x[i]. The core takes `load(j, r q)`.
// kSplitN > 0: `table` is the split tables of a kSplitN-point line (twiddle_split; compiled-in plans, m24).
// kLoadsFirst: every butterfly's inputs loaded before any is transformed (pass_gather_from, m52), so that a thread's
// loads from global memory are in flight together; else each butterfly's after the one before it.
template <int R, bool kInv, int kSplitN = 0, bool kLoadsFirst = false, class Load, int kB>
SV_MR_HD void pass_gather_with(const Load& load, PassRegs<R, kB>& g, const float2* table, int n, int ns, int t,
                               int tpc) {
    const int q = n / R;
    const float2* tw = table + (ns - 1);
    const Divider by_ns(ns);
    constexpr bool first = kLoadsFirst && kB > 1;  // one butterfly: nothing to gain (and ptxas spilled more)
    if constexpr (first) {
        SV_MR_UNROLL
        for (int b = 0; b < kB; ++b) {
            const int j = t + b * tpc;
            if (j < q) {
                SV_MR_UNROLL
                for (int r = 0; r < R; ++r) g.v[b][r] = load(j, r * q);
            }
        }
    }
    SV_MR_UNROLL
    for (int b = 0; b < kB; ++b) {
        const int j = t + b * tpc;
        if (j < q) {
            if constexpr (!first) {
                SV_MR_UNROLL
                for (int r = 0; r < R; ++r) g.v[b][r] = load(j, r * q);
            }
            if constexpr (kSplitN > 0)
                twiddle_split<R, kInv, kSplitN>(g.v[b], table, by_ns.mod(j), ns);
            else
                twiddle<R, kInv>(g.v[b], tw, by_ns.mod(j), ns);
            small_dft<R>(g.v[b], kInv);
        }
    }
}
// From where the line lies (global memory: a kernel's first pass). kLoadsFirst (the compiled-in plans' first passes,
// m52): the butterflies' loads first; the 3000-point rows' second butterfly waited for loads issued only after the
// first butterfly's transform, a second memory latency in the pass that holds a third of the kernel's stall samples
// (PERF_NOTES.md). The run-time plans' kernels (up to 16 / R butterflies a thread) would spill more with it.
template <int R, bool kInv, int kSplitN = 0, bool kLoadsFirst = false, class At, int kB>
SV_MR_HD void pass_gather_from(const At& at, PassRegs<R, kB>& g, const float2* table, int n, int ns, int t, int tpc) {
    pass_gather_with<R, kInv, kSplitN, kLoadsFirst>([&at](int j, int d) { return at(j + d); }, g, table, n, ns, t, tpc);
}

// A line's index i in shared memory: padded (padi) or plain (FixedLine::kPadOut).
template <bool kPad>
SV_MR_HD int lay(int i) {
    return kPad ? padi(i) : i;
}
// From a line in shared memory, padded or plain. kKnown: n and ns are constants (a compiled-in plan), so that
// padi(j + r q) = padi(j) + padi(r q) + ((j mod 16 + r q mod 16) >> 4): one index a butterfly, constant offsets, and
// a carry for each distinct r q mod 16 (none where 16 divides q; one, j mod 16 >= 8, where q mod 16 = 8: the
// 3000- and 1080-point plans' second pass, m42).
template <int R, bool kInv, int kB, bool kPad = true, bool kKnown = false, int kSplitN = 0>
SV_MR_HD void pass_gather(const float2* sm, PassRegs<R, kB>& g, const float2* table, int n, int ns, int t, int tpc) {
    if (!kPad || (kKnown && (n / R) % 16 == 0))
        pass_gather_with<R, kInv, kSplitN>([sm](int j, int d) { return sm[lay<kPad>(j) + lay<kPad>(d)]; }, g, table, n,
                                           ns, t, tpc);
    else if (kKnown)
        pass_gather_with<R, kInv, kSplitN>(
            [sm](int j, int d) { return sm[padi(j) + padi(d) + (((j & 15) + (d & 15)) >> 4)]; }, g, table, n, ns, t,
            tpc);
    else
        pass_gather_with<R, kInv, kSplitN>([sm](int j, int d) { return sm[padi(j + d)]; }, g, table, n, ns, t, tpc);
}
// Its second half: output r of butterfly j to (j - k) R + k + r ns, k = j mod ns (stockham_pass's order). With
// kKnown, the offsets r ns fold where 16 divides ns (as the gather's), and where ns R divides 16 (then (j - k) R is
// a multiple of ns R and k + r ns < ns R, so the butterfly's outputs lie in one run of 16; m42 took ns R = 8 too,
// the 3000- and 1080-point plans' first pass).
template <int R, int kB, bool kPad = true, bool kKnown = false>
SV_MR_HD void pass_scatter(float2* sm, const PassRegs<R, kB>& g, int n, int ns, int t, int tpc) {
    const int q = n / R;
    const Divider by_ns(ns);
    SV_MR_UNROLL
    for (int b = 0; b < kB; ++b) {
        const int j = t + b * tpc;
        if (j < q) {
            const int k = by_ns.mod(j), base = (j - k) * R + k;
            if (!kPad || (kKnown && ns % 16 == 0)) {
                float2* at = sm + lay<kPad>(base);
                SV_MR_UNROLL
                for (int r = 0; r < R; ++r) at[lay<kPad>(r * ns)] = g.v[b][r];
            } else if (kKnown && 16 % (ns * R) == 0) {
                float2* at = sm + padi(base - k) + k;
                SV_MR_UNROLL
                for (int r = 0; r < R; ++r) at[r * ns] = g.v[b][r];
            } else {
                SV_MR_UNROLL
                for (int r = 0; r < R; ++r) sm[padi(base + r * ns)] = g.v[b][r];
            }
        }
    }
}
// Whether a put (pass_scatter_last's `put(i, x_i)`) also says where outputs q apart lie: put.stride(q), the float2
// between outputs i and i + q for every i (0: not a fixed stride), and put.at(i), output i's address.
template <class Put, class = void>
struct has_stride : std::false_type {};
template <class Put>
struct has_stride<Put, std::void_t<decltype(std::declval<const Put&>().stride(0))>> : std::true_type {};

// The last pass's second half (ns = n / R, so k = j) written where the line goes instead: `put(i, x_i)`. Where the
// put has a stride for q = n / R, one address a butterfly and the stride (m42: the grouped C2C rows computed
// a 64-bit grouped index for each of their outputs, ten integer instructions a store).
template <int R, class Put, int kB>
SV_MR_HD void pass_scatter_last(const Put& put, const PassRegs<R, kB>& g, int n, int t, int tpc) {
    const int q = n / R;
    if constexpr (has_stride<Put>::value) {
        const int step = put.stride(q);
        if (step > 0) {
            SV_MR_UNROLL
            for (int b = 0; b < kB; ++b) {
                const int j = t + b * tpc;
                if (j < q) {
                    float2* at = put.at(j);
                    SV_MR_UNROLL
                    for (int r = 0; r < R; ++r) at[r * step] = g.v[b][r];
                }
            }
            return;
        }
    }
    SV_MR_UNROLL
    for (int b = 0; b < kB; ++b) {
        const int j = t + b * tpc;
        if (j < q) {
            SV_MR_UNROLL
            for (int r = 0; r < R; ++r) put(j + r * q, g.v[b][r]);
        }
    }
}

// A row's outputs x, ungrouped ([x] from `row`, its first) or grouped for the column blocks ([x / group][rows][x %
// group] from `row`, group a power of two): the C2C row kernels' put. Sides are at most 16384 points, so every
// offset fits 32 bits. Outputs q apart are a fixed stride apart where group divides q.
struct RowPut {
    float2* row;
    unsigned shift, mask, run;  // log2 group, group - 1, rows x group; ungrouped: 0, 0, 1
    SV_MR_HD RowPut(float2* row_, int rows, int group)
        : row(row_),
          shift(group > 0 ? log2_of(unsigned(group)) : 0u),
          mask(group > 0 ? unsigned(group - 1) : 0u),
          run(group > 0 ? unsigned(rows) * unsigned(group) : 1u) {}
    SV_MR_HD static unsigned log2_of(unsigned p) {  // p a power of two
#if defined(__CUDA_ARCH__)
        return unsigned(__ffs(int(p)) - 1);
#else
        return unsigned(__builtin_ctz(p));
#endif
    }
    SV_MR_HD unsigned offset(int x) const { return (unsigned(x) >> shift) * run + (unsigned(x) & mask); }
    SV_MR_HD float2* at(int x) const { return row + offset(x); }
    SV_MR_HD void operator()(int x, float2 v) const { row[offset(x)] = v; }
    SV_MR_HD int stride(int q) const { return (unsigned(q) & mask) == 0 ? int(offset(q)) : 0; }
};

// Bluestein's chirp exp(-+pi i j^2 / n), j^2 taken mod 2n first (exact), the angle e / n in double: in float its
// rounding alone (up to 2^-23 of an angle near 2 pi) would be a phase error as large as the whole transform's.
// Rounded once to float on host and device alike, so the host's emulation of the kernels is exact here.
template <bool kInv>
SV_MR_HD float2 chirp_at(int j, int n) {
    const int e = int((long long)j * j % (2LL * n));
    double sn, cs;
#if defined(__CUDA_ARCH__)
    sincospi(double(e) / double(n), &sn, &cs);
#else
    const double a = 3.14159265358979323846 * (double(e) / double(n));
    sn = sin(a);
    cs = cos(a);
#endif
    return c_make(float(cs), float(kInv ? sn : -sn));
}
// Bluestein's three element-wise steps, a thread's share: x_j w_j zero-padded to m; times the kept spectrum;
// the first n outputs times w_k.
template <bool kInv>
SV_MR_HD void bluestein_premultiply(float2* sm, int n, int m, int t, int tpc) {
    for (int j = t; j < m; j += tpc)
        sm[padi(j)] = j < n ? c_mul(sm[padi(j)], chirp_at<kInv>(j, n)) : c_make(0.0f, 0.0f);
}
SV_MR_HD void bluestein_convolve(float2* sm, const float2* spectrum, int m, int t, int tpc) {
    for (int j = t; j < m; j += tpc) sm[padi(j)] = c_mul(sm[padi(j)], spectrum[j]);
}
template <bool kInv>
SV_MR_HD void bluestein_postmultiply(float2* sm, int n, int t, int tpc) {
    for (int k = t; k < n; k += tpc) sm[padi(k)] = c_mul(sm[padi(k)], chirp_at<kInv>(k, n));
}

// Z = FFT(a + i b) of two real lines, in shared memory -> A[k] = (Z[k] + conj Z[-k]) / 2, B[k] = -i (Z[k] - conj Z[-k]) / 2.
SV_MR_HD void unpack_pair(const float2* sm, int n, int k, float2* a, float2* b) {
    const float2 zk = sm[padi(k)], zm = sm[padi(k == 0 ? 0 : n - k)];
    *a = c_make(0.5f * (zk.x + zm.x), 0.5f * (zk.y - zm.y));
    const float2 d = c_make(zk.x - zm.x, zk.y + zm.y);
    *b = c_make(0.5f * d.y, -0.5f * d.x);
}

// Bluestein's kept spectrum for an n-point line: FFT_m(b) / m with b_j = conj(w_j) for |j| < n (circularly),
// w_j = exp(-+pi i j^2 / n), in double on the host, rounded once.
inline std::vector<float2> chirp_spectrum(int n, bool inverse) {
    const int m = plan_line(n).m;
    std::vector<std::complex<double>> b(std::size_t(m), 0.0);
    for (int j = 0; j < n; ++j) {
        const long long e = (long long)j * j % (2LL * n);
        const double a = 3.14159265358979323846 * double(e) / double(n);
        const std::complex<double> cw(cos(a), inverse ? -sin(a) : sin(a));
        b[std::size_t(j)] = cw;
        if (j > 0) b[std::size_t(m - j)] = cw;
    }
    // Iterative radix-2 FFT (m is a power of two), forward.
    for (int i = 1, j = 0; i < m; ++i) {
        int bit = m >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(b[std::size_t(i)], b[std::size_t(j)]);
    }
    for (int len = 2; len <= m; len <<= 1) {
        const double ang = -2.0 * 3.14159265358979323846 / double(len);
        for (int i = 0; i < m; i += len)
            for (int k = 0; k < len / 2; ++k) {
                const std::complex<double> w(cos(ang * k), sin(ang * k));
                const std::complex<double> u = b[std::size_t(i + k)], v = b[std::size_t(i + k + len / 2)] * w;
                b[std::size_t(i + k)] = u + v;
                b[std::size_t(i + k + len / 2)] = u - v;
            }
    }
    std::vector<float2> out(static_cast<std::size_t>(m));
    for (int i = 0; i < m; ++i)
        out[std::size_t(i)] = c_make(float(b[std::size_t(i)].real() / m), float(b[std::size_t(i)].imag() / m));
    return out;
}

}  // namespace specview::mixed_radix
