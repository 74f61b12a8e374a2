// Index of this file (grep "[SECTION]"):
// - The spectrum's picture: view values, range, colormap (the CPU backend's, a stack's mean power)
// - Values of other kinds as pictures: the lab's third view, the image view
#include "app/core/picture.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "app/core/huge_pages.h"
#include "app/core/parallel_bands.h"

namespace specview {

// [SECTION] The spectrum's picture: view values, range, colormap (the CPU backend's, a stack's mean power)

void compute_view_values(const std::complex<float>* F, int w, int h, const ViewParams& vp, std::vector<float>& values) {
    values.resize(std::size_t(w) * h);
    for (int y = 0; y < h; ++y) {
        const int sy = vp.shift ? shift_source(y, h) : y;
        for (int x = 0; x < w; ++x) {
            const int sx = vp.shift ? shift_source(x, w) : x;
            const std::complex<float> f = F[std::size_t(sy) * w + sx];
            values[std::size_t(y) * w + x] = view_value(vp.view, f.real(), f.imag());
        }
    }
}

std::vector<float> mean_power_view_values(const std::vector<double>& power_sum, int frames, int width, int height,
                                          const ViewParams& vp, float* lo, float* hi) {
    if (frames < 1 || power_sum.size() != std::size_t(width) * std::size_t(height))
        throw std::invalid_argument("mean_power_view_values: a sum of " + std::to_string(power_sum.size()) +
                                    " bins for " + std::to_string(width) + "x" + std::to_string(height));
    std::vector<std::complex<float>> F(power_sum.size());
    for (std::size_t i = 0; i < F.size(); ++i)
        F[i] = std::complex<float>(float(std::sqrt(power_sum[i] / frames)), 0.0f);
    std::vector<float> values;
    compute_view_values(F.data(), width, height, vp, values);
    compute_range(values, vp, lo, hi);
    return values;
}

namespace {
void kth_pair(const float* values, std::size_t n, const std::size_t k[2], float out[2]);  // (below)
}  // namespace

void compute_range(const std::vector<float>& values, const ViewParams& vp, float* lo, float* hi) {
    switch (vp.range) {
        case RangeMode::Auto:
        case RangeMode::Top: {
            float mn = FLT_MAX, mx = -FLT_MAX;
            for (float v : values) {
                mn = std::min(mn, v);
                mx = std::max(mx, v);
            }
            if (vp.range == RangeMode::Auto) {
                *lo = mn;
                *hi = mx;
            } else {
                *lo = mx - vp.top_span;
                *hi = mx;
            }
            return;
        }
        case RangeMode::Percentile: {
            const long long n = (long long)values.size();
            if (n == 0) {
                *lo = *hi = 0.0f;
                return;
            }
            const std::size_t k[2] = {std::size_t(std::min<long long>(percentile_index(vp.pct_lo, n), n - 1)),
                                      std::size_t(std::min<long long>(percentile_index(vp.pct_hi, n), n - 1))};
            float v[2];
            kth_pair(values.data(), values.size(), k, v);  // (kth_smallest's values, two passes on every core)
            *lo = v[0];
            *hi = v[1];
            return;
        }
        case RangeMode::Fixed:
            *lo = vp.fixed_lo;
            *hi = vp.fixed_hi;
            return;
    }
}

void colorize(const std::vector<float>& values, float lo, float hi, Colormap cm, std::vector<std::uint32_t>& rgba,
              int threads) {
    const ColormapLut lut = make_colormap_lut(cm);
    const std::size_t n = values.size(), chunk = std::size_t(1) << 15;
    rgba.resize(n);
    // (a 512^2 picture took ~1 ms on one core here: a volume's slice moved in the viewer waits for it)
    parallel_bands(int((n + chunk - 1) / chunk), threads, [&](int c0, int c1, int) {
        for (std::size_t i = std::size_t(c0) * chunk, end = std::min(n, std::size_t(c1) * chunk); i < end; ++i)
            rgba[i] = lut.rgba[level_of(normalize_to_range(values[i], lo, hi))];
    }, 1);
}

namespace {
// Floats as unsigned keys in the same order (negative ones reversed).
inline std::uint32_t order_key(float v) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
inline float from_key(std::uint32_t k) {
    const std::uint32_t b = (k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k;
    float v;
    std::memcpy(&v, &b, 4);
    return v;
}

}  // namespace

namespace {
// The k-th smallest key of n (k from 0): pass 1 finds which high half-word holds it, pass 2 which low one.
template <class KeyOf>
std::uint32_t kth_key(std::size_t n, std::size_t k, KeyOf key_of) {
    std::vector<std::size_t> count(65536, 0);
    for (std::size_t i = 0; i < n; ++i) ++count[key_of(i) >> 16];
    std::uint32_t high = 0;
    for (std::size_t acc = 0;; ++high) {
        if (acc + count[high] > k) {
            k -= acc;
            break;
        }
        acc += count[high];
    }
    std::fill(count.begin(), count.end(), 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t key = key_of(i);
        if ((key >> 16) == high) ++count[key & 0xFFFFu];
    }
    std::uint32_t low = 0;
    for (std::size_t acc = 0;; ++low) {
        if (acc + count[low] > k) break;
        acc += count[low];
    }
    return (high << 16) | low;
}

constexpr std::size_t kChunk = 16384;  // values a band of the selection's passes takes at a time

// Two order statistics (the k[0]-th and k[1]-th smallest, from 0) of n float bit patterns, given
// the histogram of their keys' high half-words (made while the values were written): which high half-word holds
// each, then one pass in bands on `threads` threads counting the low half-words under those two. The exact values
// kth_smallest gives over the same values, in two parallel passes' worth of work instead of four serial ones.
void kth_pair_bits(const std::uint32_t* bits, std::size_t n_all, int threads,
                   const std::vector<std::uint64_t>& high_hist, const std::size_t k_in[2], float out[2]) {
    std::uint32_t high[2] = {0, 0};
    std::size_t k[2] = {k_in[0], k_in[1]};
    for (int j = 0; j < 2; ++j) {
        std::size_t acc = 0;
        for (high[j] = 0; high[j] < 65535u && acc + high_hist[high[j]] <= k[j]; ++high[j]) acc += high_hist[high[j]];
        k[j] -= acc;
    }
    const int parts = std::max(1, threads);
    std::vector<std::vector<std::uint32_t>> low(std::size_t(parts) * 2);
    const int chunks = int((n_all + kChunk - 1) / kChunk);  // (bands of whole chunks of the values)
    parallel_bands(chunks, threads, [&](int ch0, int ch1, int band) {
        std::vector<std::uint32_t>& c0 = low[std::size_t(band) * 2];
        std::vector<std::uint32_t>& c1 = low[std::size_t(band) * 2 + 1];
        c0.assign(65536, 0);
        c1.assign(65536, 0);
        const std::uint32_t* p = bits + std::size_t(ch0) * kChunk;
        const std::size_t n = std::min(n_all, std::size_t(ch1) * kChunk) - std::size_t(ch0) * kChunk;
        for (std::size_t i = 0; i < n; ++i) {
            float v;
            std::memcpy(&v, p + i, 4);
            const std::uint32_t key = order_key(v), hi16 = key >> 16;
            c0[key & 0xFFFFu] += hi16 == high[0];
            c1[key & 0xFFFFu] += hi16 == high[1];
        }
    }, 4);
    for (int j = 0; j < 2; ++j) {
        std::uint32_t lo16 = 0;
        for (std::size_t acc = 0; lo16 < 65535u; ++lo16) {
            std::size_t c = 0;
            for (int b = 0; b < parts; ++b)
                if (!low[std::size_t(b) * 2 + j].empty()) c += low[std::size_t(b) * 2 + j][lo16];
            if (acc + c > k[j]) break;
            acc += c;
        }
        out[j] = from_key((high[j] << 16) | lo16);
    }
}
// The same two order statistics of n floats: the high half-words' histogram in bands on every core, then
// kth_pair_bits.
void kth_pair(const float* values, std::size_t n, const std::size_t k[2], float out[2]) {
    const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    const int chunks = int((n + kChunk - 1) / kChunk);
    std::vector<std::vector<std::uint64_t>> parts(std::size_t(std::max(1, threads)));
    parallel_bands(chunks, threads, [&](int ch0, int ch1, int band) {
        std::vector<std::uint64_t>& h = parts[std::size_t(band)];
        h.assign(65536, 0);
        const std::size_t i1 = std::min(n, std::size_t(ch1) * kChunk);
        for (std::size_t i = std::size_t(ch0) * kChunk; i < i1; ++i) ++h[order_key(values[i]) >> 16];
    }, 4);
    std::vector<std::uint64_t> high(65536, 0);
    for (const std::vector<std::uint64_t>& h : parts)
        if (!h.empty())
            for (std::size_t i = 0; i < 65536; ++i) high[i] += h[i];
    kth_pair_bits(reinterpret_cast<const std::uint32_t*>(values), n, threads, high, k, out);
}
}  // namespace

float kth_smallest(const float* values, std::size_t n, std::size_t k) {
    if (n == 0) return 0.0f;
    return from_key(kth_key(n, std::min(k, n - 1), [values](std::size_t i) { return order_key(values[i]); }));
}

namespace {
// fast_ln's body, for the loops below to inline (and vectorise).
inline float ln_fast(float y) {
    // y = m 2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(t), t = (m - 1) / (m + 1), |t| <= 0.1716: the odd
    // series to t^9 leaves < 4e-10. Branch-free, so the loops over it vectorise. Not for 0, inf or NaN.
    std::uint32_t b;
    std::memcpy(&b, &y, 4);
    std::int32_t e = std::int32_t(b >> 23) - 127;
    std::uint32_t mb = (b & 0x007FFFFFu) | 0x3F800000u;
    const std::uint32_t big = mb > 0x3FB504F3u;  // m > sqrt(2): use m / 2, e + 1
    mb -= big << 23;
    e += std::int32_t(big);
    float m;
    std::memcpy(&m, &mb, 4);
    const float t = (m - 1.0f) / (m + 1.0f), t2 = t * t;
    const float series = t * (2.0f + t2 * (2.0f / 3.0f + t2 * (2.0f / 5.0f + t2 * (2.0f / 7.0f + t2 * (2.0f / 9.0f)))));
    return float(e) * 0.6931471805599453f + series;
}
}  // namespace

float fast_ln(float y) { return ln_fast(y); }

namespace {
// The view's values of one output row, in output (shifted) order, from the half spectrum: the complex values
// gathered first (the mirror half conjugated), then the value formula over the row in one loop the compiler
// vectorises. Log-magnitude and power use fast_ln (within a few 1e-7 of log1pf/log10f: never a colormap level
// apart except at a level's edge); phase, real and imaginary are exact.
void view_row(const std::complex<float>* half, int w, int h, int y, const ViewParams& vp, float* re, float* im,
              float* out) {
    const int hw = w / 2 + 1;
    const int sy = vp.shift ? shift_source(y, h) : y;
    const std::complex<float>* row = half + std::size_t(sy) * hw;
    const std::complex<float>* mirror = half + std::size_t(sy == 0 ? 0 : h - sy) * hw;
    // Output x shows column sx = x + s0 (mod w): two runs of consecutive columns, each split where the stored
    // half ends (the rest is the mirror row, conjugated and backwards); plain loops that vectorise.
    auto run = [&](int x0, int sx0, int count) {
        const int direct = std::clamp(hw - sx0, 0, count);
        for (int i = 0; i < direct; ++i) {
            re[x0 + i] = row[sx0 + i].real();
            im[x0 + i] = row[sx0 + i].imag();
        }
        for (int i = direct; i < count; ++i) {
            const std::complex<float> m = mirror[w - sx0 - i];
            re[x0 + i] = m.real();
            im[x0 + i] = -m.imag();
        }
    };
    const int s0 = vp.shift ? shift_source(0, w) : 0;
    run(0, s0, w - s0);
    run(w - s0, 0, s0);
    switch (vp.view) {
        // Branch-free over the row (so it vectorises); the rare infinite or NaN bins again afterwards, as the
        // library's log1pf/log10f give them.
        case View::LogMag: {
            int odd = 0;
            for (int x = 0; x < w; ++x) {
                const float y1 = 1.0f + std::sqrt(re[x] * re[x] + im[x] * im[x]);
                out[x] = ln_fast(y1);
                odd |= !(y1 < 3.0e38f);
            }
            if (odd)
                for (int x = 0; x < w; ++x) {
                    const float y1 = 1.0f + std::sqrt(re[x] * re[x] + im[x] * im[x]);
                    if (!(y1 < 3.0e38f)) out[x] = log1pf(y1 - 1.0f);
                }
            break;
        }
        case View::PowerDb: {
            int odd = 0;
            for (int x = 0; x < w; ++x) {
                const float p = re[x] * re[x] + im[x] * im[x] + kPowerFloor;
                out[x] = 4.342944819032518f * ln_fast(p);
                odd |= !(p < 3.0e38f);
            }
            if (odd)
                for (int x = 0; x < w; ++x) {
                    const float p = re[x] * re[x] + im[x] * im[x] + kPowerFloor;
                    if (!(p < 3.0e38f)) out[x] = 10.0f * log10f(p);
                }
            break;
        }
        default:
            for (int x = 0; x < w; ++x) out[x] = view_value(vp.view, re[x], im[x]);
            break;
    }
}
}  // namespace

namespace {
float unit_of(float v, float lo, float span) {
    float t = (v - lo) / span;
    t = t > 0.0f ? t : 0.0f;
    return t < 1.0f ? t : 1.0f;
}
// Values (float bits) -> 8-bit levels, 16-bit levels, or colours through `lut` (in place: dst == src).
void to_levels(const std::uint32_t* __restrict src, unsigned char* __restrict dst, std::size_t n, float lo, float span,
               bool flat, const std::uint32_t*) {
    if (flat) {
        std::memset(dst, 0, n);
        return;
    }
    std::size_t i = 0;
#ifdef __SSE2__
    // Sixteen at a time: MAXPS returns its second operand for NaN, so max(t, 0) maps NaN to 0 as unit_of does;
    // the multiply and add stay separate, as in level_of.
    const __m128 vlo = _mm_set1_ps(lo), vspan = _mm_set1_ps(span), zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f),
                 k255 = _mm_set1_ps(255.0f), half = _mm_set1_ps(0.5f);
    auto quad = [&](std::size_t j) {
        __m128 t = _mm_div_ps(_mm_sub_ps(_mm_loadu_ps(reinterpret_cast<const float*>(src + j)), vlo), vspan);
        t = _mm_min_ps(_mm_max_ps(t, zero), one);
        return _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(t, k255), half));
    };
    for (; i + 16 <= n; i += 16) {
        const __m128i a = _mm_packs_epi32(quad(i), quad(i + 4)), b = _mm_packs_epi32(quad(i + 8), quad(i + 12));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_packus_epi16(a, b));
    }
#endif
    for (; i < n; ++i) {
        float v;
        std::memcpy(&v, src + i, 4);
        dst[i] = static_cast<unsigned char>(level_of(unit_of(v, lo, span)));
    }
}
void to_levels(const std::uint32_t* __restrict src, std::uint16_t* __restrict dst, std::size_t n, float lo, float span,
               bool flat, const std::uint32_t*) {
    if (flat) {
        std::memset(dst, 0, 2 * n);
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        float v;
        std::memcpy(&v, src + i, 4);
        dst[i] = static_cast<std::uint16_t>(level16_of(unit_of(v, lo, span)));
    }
}
void to_levels(const std::uint32_t* src, std::uint32_t* dst, std::size_t n, float lo, float span, bool flat,
               const std::uint32_t* lut) {
    for (std::size_t i = 0; i < n; ++i) {
        float v;
        std::memcpy(&v, src + i, 4);
        dst[i] = lut[flat ? 0 : level_of(unit_of(v, lo, span))];
    }
}
}  // namespace

void picture_from_half(const std::complex<float>* half, int w, int h, const ViewParams& vp, int threads,
                       std::vector<std::uint32_t>& rgba, float* lo, float* hi, PictureFormat format,
                       std::vector<unsigned char>* levels) {
    if (format != PictureFormat::Rgba8 && !levels) throw std::invalid_argument("picture_from_half: no level buffer");
    // The view values go into the picture's own buffer, or for levels into this thread's scratch (kept from call to
    // call, not zero-filled, huge pages: a fresh zeroed 64 MB a 4096^2 picture cost the CLI's view stage ~25 ms,
    // and ~160 ms of page faults without huge pages).
    std::uint32_t* out = nullptr;
    if (format == PictureFormat::Rgba8) {
        rgba.resize(std::size_t(w) * h);
        out = rgba.data();
    } else {
        thread_local ByteBuffer scratch;
        std::vector<std::uint32_t>().swap(rgba);
        out = reinterpret_cast<std::uint32_t*>(scratch.reserve(std::size_t(w) * h * sizeof(std::uint32_t)));
    }
    // The view values, as float bits in the picture's own buffer; min and max per band.
    std::vector<float> mins(std::size_t(std::max(1, threads)), FLT_MAX),
        maxs(std::size_t(std::max(1, threads)), -FLT_MAX);
    // A percentile range: each band counts its values' keys by their high half-word as it writes them (the
    // selection's first pass, while the row is in cache).
    const bool pct = vp.range == RangeMode::Percentile;
    std::vector<std::vector<std::uint32_t>> high_hists(pct ? std::size_t(std::max(1, threads)) : 0);
    parallel_bands(h, threads, [&](int y0, int y1, int band) {
        std::uint32_t* hist = nullptr;
        if (pct) {
            high_hists[std::size_t(band)].assign(65536, 0);
            hist = high_hists[std::size_t(band)].data();
        }
        const std::size_t n = static_cast<std::size_t>(w);
        std::vector<float> re(n), im(n), v(n);
        // Eight running minima and maxima (NaN skipped, as std::min/max do): a loop that vectorises.
        constexpr int kLanes = 8;
        float mn8[kLanes], mx8[kLanes];
        std::fill(mn8, mn8 + kLanes, FLT_MAX);
        std::fill(mx8, mx8 + kLanes, -FLT_MAX);
        float mn = FLT_MAX, mx = -FLT_MAX;
        for (int y = y0; y < y1; ++y) {
            view_row(half, w, h, y, vp, re.data(), im.data(), v.data());
            const float* vv = v.data();
            int x = 0;
            for (; x + kLanes <= w; x += kLanes)
                for (int k = 0; k < kLanes; ++k) {
                    mn8[k] = vv[x + k] < mn8[k] ? vv[x + k] : mn8[k];
                    mx8[k] = vv[x + k] > mx8[k] ? vv[x + k] : mx8[k];
                }
            for (; x < w; ++x) {
                mn = std::min(mn, vv[x]);
                mx = std::max(mx, vv[x]);
            }
            if (hist)
                for (int i = 0; i < w; ++i) ++hist[order_key(vv[i]) >> 16];
            std::memcpy(out + std::size_t(y) * w, vv, sizeof(float) * std::size_t(w));
        }
        for (int k = 0; k < kLanes; ++k) {
            mn = std::min(mn, mn8[k]);
            mx = std::max(mx, mx8[k]);
        }
        mins[std::size_t(band)] = mn;
        maxs[std::size_t(band)] = mx;
    });
    const float mn = *std::min_element(mins.begin(), mins.end()), mx = *std::max_element(maxs.begin(), maxs.end());
    switch (vp.range) {
        case RangeMode::Auto:
            *lo = mn;
            *hi = mx;
            break;
        case RangeMode::Top:
            *lo = mx - vp.top_span;
            *hi = mx;
            break;
        case RangeMode::Fixed:
            *lo = vp.fixed_lo;
            *hi = vp.fixed_hi;
            break;
        case RangeMode::Percentile: {
            const long long n = (long long)w * h;
            if (n == 0) {
                *lo = *hi = 0.0f;
                break;
            }
            std::vector<std::uint64_t> high(65536, 0);
            for (const auto& b : high_hists)
                for (std::size_t i = 0; i < b.size(); ++i) high[i] += b[i];
            const std::size_t k[2] = {std::size_t(std::min<long long>(percentile_index(vp.pct_lo, n), n - 1)),
                                      std::size_t(std::min<long long>(percentile_index(vp.pct_hi, n), n - 1))};
            float v[2];
            kth_pair_bits(out, std::size_t(w) * std::size_t(h), threads, high, k, v);
            *lo = v[0];
            *hi = v[1];
            break;
        }
    }
    const ColormapLut lut = make_colormap_lut(vp.colormap);
    const float l = *lo, hgh = *hi;
    if (format != PictureFormat::Rgba8) levels->resize(std::size_t(w) * h * std::size_t(level_bytes(format)));
    unsigned char* l8 = levels ? levels->data() : nullptr;
    std::uint16_t* l16 = reinterpret_cast<std::uint16_t*>(l8);
    // normalize_to_range without branches (NaN maps to 0; a degenerate range maps everything to 0), one loop a
    // format over restrict pointers, so the level loops vectorise.
    const float span = hgh - l;
    const bool flat = !(span > 0.0f);
    parallel_bands(h, threads, [&](int y0, int y1, int) {
        const std::size_t i0 = std::size_t(y0) * w, n = std::size_t(y1 - y0) * w;
        switch (format) {
            case PictureFormat::Rgba8:
                to_levels(out + i0, out + i0, n, l, span, flat, lut.rgba);
                break;
            case PictureFormat::Level8:
                to_levels(out + i0, l8 + i0, n, l, span, flat, nullptr);
                break;
            case PictureFormat::Level16:
                to_levels(out + i0, l16 + i0, n, l, span, flat, nullptr);
                break;
        }
    });
}

// [SECTION] Values of other kinds as pictures: the lab's third view, the image view

void colour_values(const std::vector<float>& v, Colormap cm, std::vector<std::uint32_t>& rgba, float* lo, float* hi) {
    float mn = 0, mx = 0;
    bool any = false;
    for (float x : v)
        if (std::isfinite(x)) {
            mn = any ? std::min(mn, x) : x;
            mx = any ? std::max(mx, x) : x;
            any = true;
        }
    const ColormapLut lut = make_colormap_lut(cm);
    rgba.resize(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) rgba[i] = lut.rgba[level_of(normalize_to_range(v[i], mn, mx))];
    *lo = mn;
    *hi = mx;
}

DisplayRange display_range(const Image& img) {
    DisplayRange r;
    if (img.bit_depth != 32) return r;
    if (img.format == "hdr") {
        r.mode = DisplayRange::Mode::ToneMapped;
        return r;
    }
    // Percentiles of the colour samples (alpha left out), from at most about a million of them.
    const int colour = img.channels == 2 || img.channels == 4 ? img.channels - 1 : img.channels;
    const std::size_t pixels = std::size_t(img.width) * img.height, step = std::max<std::size_t>(1, pixels / 1000000);
    std::vector<float> v;
    v.reserve(pixels / step * std::size_t(colour) + 4);
    for (std::size_t i = 0; i < pixels; i += step)
        for (int c = 0; c < colour; ++c) v.push_back(img.sample(i * std::size_t(img.channels) + std::size_t(c)));
    r.mode = DisplayRange::Mode::Values;
    if (v.empty()) return r;
    const std::size_t a = std::size_t(0.005 * double(v.size() - 1)),
                      b = std::size_t(0.995 * double(v.size() - 1) + 0.5);
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(a), v.end());
    r.lo = v[a];
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(b), v.end());
    r.hi = v[b];
    if (!(r.hi > r.lo)) {  // flat: centre it
        r.lo -= 0.5f;
        r.hi += 0.5f;
    }
    return r;
}

std::vector<std::uint32_t> display_rgba(const Image& img, const DisplayRange& range) {
    std::vector<std::uint32_t> out(std::size_t(img.width) * img.height);
    const float span = range.hi - range.lo;
    auto q = [&](float v) {
        if (range.mode == DisplayRange::Mode::ToneMapped)
            v = v / (1.0f + v);
        else if (range.mode == DisplayRange::Mode::Values)
            v = (v - range.lo) / span;
        return std::uint32_t(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f);
    };
    auto qa = [&](float v) { return std::uint32_t(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };  // alpha
    // 8- and 16-bit samples through a table of what each of their values shows as (made with the same float
    // steps as sample(): the same bytes), float samples computed; an 8192^2 16-bit image took 357 ms a sample
    // at a time through sample() on the H100 machine, on the path to the first picture.
    const int c = img.channels;
    const bool alpha = c == 2 || c == 4;
    std::vector<std::uint8_t> colour_of, alpha_of;
    if (img.bit_depth == 8 || img.bit_depth == 16) {
        const std::size_t values = img.bit_depth == 8 ? 256 : 65536;
        const float max = img.bit_depth == 8 ? 255.0f : 65535.0f;
        colour_of.resize(values);
        if (alpha) alpha_of.resize(values);
        for (std::size_t v = 0; v < values; ++v) {
            colour_of[v] = std::uint8_t(q(float(v) / max));
            if (alpha) alpha_of[v] = std::uint8_t(qa(float(v) / max));
        }
    }
    auto rows = [&](int y0, int y1) {
        const std::size_t first = std::size_t(y0) * img.width, last = std::size_t(y1) * img.width;
        auto convert = [&](auto sample_at) {
            for (std::size_t i = first; i < last; ++i) {
                const std::size_t k = i * std::size_t(c);
                std::uint32_t r, g, b, a = 255;
                if (c >= 3) {
                    r = sample_at(k, false);
                    g = sample_at(k + 1, false);
                    b = sample_at(k + 2, false);
                    if (c == 4) a = sample_at(k + 3, true);
                } else {
                    r = g = b = sample_at(k, false);
                    if (c == 2) a = sample_at(k + 1, true);
                }
                out[i] = r | (g << 8) | (b << 16) | (a << 24);
            }
        };
        const unsigned char* p = static_cast<const unsigned char*>(img.data());
        if (img.bit_depth == 8)
            convert(
                [&](std::size_t k, bool is_alpha) -> std::uint32_t { return (is_alpha ? alpha_of : colour_of)[p[k]]; });
        else if (img.bit_depth == 16) {
            const auto* p16 = reinterpret_cast<const std::uint16_t*>(p);
            convert([&](std::size_t k, bool is_alpha) -> std::uint32_t {
                return (is_alpha ? alpha_of : colour_of)[p16[k]];
            });
        } else {
            const auto* pf = reinterpret_cast<const float*>(p);
            convert([&](std::size_t k, bool is_alpha) { return is_alpha ? qa(pf[k]) : q(pf[k]); });
        }
    };
    // Large images in bands on several threads (memory-bound: a few are enough).
    const int threads = out.size() < (1u << 20) ? 1 : int(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
    parallel_bands(img.height, threads, [&](int y0, int y1, int) { rows(y0, y1); });
    return out;
}

}  // namespace specview
