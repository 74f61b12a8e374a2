#include "app/core/plane.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>
#include <thread>
#include <type_traits>

#include "app/core/parallel_bands.h"

namespace specview {


namespace {
// The stored channel a single-channel choice reads (a gray image's R, G and B are its gray; A the last).
int stored_channel(int channels, Channel ch) {
    const bool color = channels >= 3;
    if (ch == Channel::A) return channels - 1;
    return color && ch == Channel::G ? 1 : color && ch == Channel::B ? 2 : 0;
}

// `count` values of one channel from row y, columns x0.., of samples of type T, as floats the way
// Image::sample makes them (float(v) / 255 etc.), luma as three rounded products and two rounded sums.
template <class T>
void channel_row(const Image& img, Channel ch, int y, int x0, int count, float* out) {
    const int c = img.channels;
    const T* s = static_cast<const T*>(img.data()) + (std::size_t(y) * img.width + x0) * c;
    const bool color = c >= 3;
    const float div = img.bit_depth == 8 ? 255.0f : img.bit_depth == 16 ? 65535.0f : 1.0f;
    // The channel chosen once for the row, not per pixel (a stack of float frames spent 13% of its CPU time here).
    auto each = [&](auto value) {
        for (int i = 0; i < count; ++i) out[i] = value(s + std::size_t(i) * c);
    };
    auto f = [div](T v) { return div == 1.0f ? float(v) : float(v) / div; };
    const int k = stored_channel(c, ch);
    if constexpr (std::is_same_v<T, std::uint8_t>) {
        // 8-bit samples through a table of their 256 values (the same divisions, done once): three divisions a
        // pixel were most of an 8192^2 photo's plane preparation.
        static const std::array<float, 256> table = [] {
            std::array<float, 256> t{};
            for (int v = 0; v < 256; ++v) t[std::size_t(v)] = float(v) / 255.0f;
            return t;
        }();
        if (ch == Channel::Luma && color)
            each([&](const T* px) { return 0.2126f * table[px[0]] + 0.7152f * table[px[1]] + 0.0722f * table[px[2]]; });
        else
            each([&](const T* px) { return table[px[k]]; });
    } else if (ch == Channel::Luma && color) {
        each([&](const T* px) { return 0.2126f * f(px[0]) + 0.7152f * f(px[1]) + 0.0722f * f(px[2]); });
    } else if constexpr (std::is_same_v<T, float>) {
        if (c == 1)
            std::copy(s, s + count, out);  // float gray: the samples themselves
        else
            each([&](const T* px) { return px[k]; });
    } else {
        each([&](const T* px) { return float(px[k]) / div; });
    }
}

void channel_row_any(const Image& img, Channel ch, int y, int x0, int count, float* out) {
    switch (img.bit_depth) {
        case 8:
            channel_row<std::uint8_t>(img, ch, y, x0, count, out);
            break;
        case 16:
            channel_row<std::uint16_t>(img, ch, y, x0, count, out);
            break;
        default:
            channel_row<float>(img, ch, y, x0, count, out);
            break;
    }
}

}  // namespace

void check_channel(const Image& img, Channel ch, const std::string& name) {
    const bool has_alpha = img.channels == 2 || img.channels == 4;
    if (ch == Channel::A && !has_alpha) throw InputError(name, "has no alpha channel (--channel a)");
}

void channel_values(const Image& img, Channel ch, int y, int x0, int count, float* out, const std::string& name) {
    check_channel(img, ch, name);
    channel_row_any(img, ch, y, x0, count, out);
}

namespace {
// The least and greatest of every `step`-th of n integer samples from s.
template <class T>
void integer_range(const T* s, std::size_t n, int step, T* lo, T* hi) {
    T l = std::numeric_limits<T>::max(), h = 0;
    if (step == 1) {
        for (std::size_t i = 0; i < n; ++i) {  // (vectorised: no conversion, no row copies)
            l = std::min(l, s[i]);
            h = std::max(h, s[i]);
        }
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            l = std::min(l, s[i * std::size_t(step)]);
            h = std::max(h, s[i * std::size_t(step)]);
        }
    }
    *lo = l;
    *hi = h;
}
}  // namespace

void channel_range(const Image& img, Channel ch, float* lo, float* hi, const std::string& name) {
    check_channel(img, ch, name);
    const int c = img.channels;
    const bool color = c >= 3;
    const std::size_t n = std::size_t(img.width) * img.height;
    *lo = INFINITY;
    *hi = -INFINITY;
    if (n == 0) return;
    const bool one_channel = !(ch == Channel::Luma && color);
    if (one_channel && (img.bit_depth == 8 || img.bit_depth == 16)) {
        const int k = stored_channel(c, ch);
        // The range's ends are two samples, converted as channel_row converts them (float(v) / 255 or / 65535).
        if (img.bit_depth == 8) {
            std::uint8_t l = 0, h = 0;
            integer_range(static_cast<const std::uint8_t*>(img.data()) + k, n, c, &l, &h);
            *lo = float(l) / 255.0f;
            *hi = float(h) / 255.0f;
        } else {
            std::uint16_t l = 0, h = 0;
            integer_range(static_cast<const std::uint16_t*>(img.data()) + k, n, c, &l, &h);
            *lo = float(l) / 65535.0f;
            *hi = float(h) / 65535.0f;
        }
        return;
    }
    std::vector<float> row(std::size_t(img.width));
    for (int y = 0; y < img.height; ++y) {
        channel_row_any(img, ch, y, 0, img.width, row.data());
        for (const float x : row) {
            *lo = std::min(*lo, x);  // (a NaN compares false: left out)
            *hi = std::max(*hi, x);
        }
    }
}

Plane extract_channel(const Image& img, Channel ch, const std::string& name) {
    check_channel(img, ch, name);
    Plane p(img.width, img.height);
    for (int y = 0; y < img.height; ++y)
        channel_row_any(img, ch, y, 0, img.width, p.v.data() + std::size_t(y) * img.width);
    return p;
}

namespace {
// The modified Bessel function of the first kind, order 0, by its power series (to double precision).
double bessel_i0(double x) {
    double sum = 1.0, term = 1.0;
    const double q = x * x / 4.0;
    for (int k = 1; k < 500; ++k) {
        term *= q / (double(k) * double(k));
        sum += term;
        if (term < 1e-17 * sum) break;
    }
    return sum;
}
}  // namespace

double window_value(Window w, int i, int n, double alpha, double beta) {
    if (n <= 1 || w == Window::None) return 1.0;
    return window_at(w, double(i) / double(n - 1), alpha, beta);
}

double window_at(Window w, double x, double alpha, double beta) {
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    auto cosines = [&](std::initializer_list<double> a) {  // a0 - a1 cos(2 pi x) + a2 cos(4 pi x) - ...
        double sum = 0, sign = 1;
        int k = 0;
        for (double c : a) {
            sum += sign * c * std::cos(kTwoPi * k * x);
            sign = -sign;
            ++k;
        }
        return sum;
    };
    switch (w) {
        case Window::Blackman:
            return cosines({0.42, 0.5, 0.08});
        case Window::BlackmanHarris:
            return cosines({0.35875, 0.48829, 0.14128, 0.01168});
        case Window::FlatTop:
            return cosines({0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368});
        case Window::Welch:
            return 1.0 - (2.0 * x - 1.0) * (2.0 * x - 1.0);
        case Window::Kaiser: {
            const double r = 2.0 * x - 1.0;
            return bessel_i0(beta * std::sqrt(std::max(0.0, 1.0 - r * r))) / bessel_i0(beta);
        }
        case Window::None:
            return 1.0;
        case Window::Hann:
            return 0.5 - 0.5 * std::cos(kTwoPi * x);
        case Window::Hamming:
            return 0.54 - 0.46 * std::cos(kTwoPi * x);
        case Window::Tukey: {
            // Flat top with cosine tapers over alpha/2 of the length at each end.
            if (alpha <= 0.0) return 1.0;
            if (alpha >= 1.0) return 0.5 - 0.5 * std::cos(kTwoPi * x);
            const double edge = alpha / 2.0;
            if (x < edge) return 0.5 * (1.0 - std::cos(M_PI * x / edge));
            if (x > 1.0 - edge) return 0.5 * (1.0 - std::cos(M_PI * (1.0 - x) / edge));
            return 1.0;
        }
    }
    return 1.0;
}

void transform_size(PadMode pad, int w, int h, int* ow, int* oh) {
    switch (pad) {
        case PadMode::Pow2:
            *ow = next_pow2(w);
            *oh = next_pow2(h);
            return;
        case PadMode::Crop:
            *ow = prev_pow2(w);
            *oh = prev_pow2(h);
            return;
        case PadMode::None:
            *ow = w;
            *oh = h;
            return;
        case PadMode::Square:
            *ow = *oh = next_pow2(std::max(w, h));
            return;
    }
}

PlaneGeometry plane_geometry(const Settings& s, int image_w, int image_h) {
    PlaneGeometry g;
    transform_size(s.pad, image_w, image_h, &g.width, &g.height);
    g.content_w = std::min(g.width, image_w);
    g.content_h = std::min(g.height, image_h);
    if (s.pad == PadMode::Crop) {
        g.crop_x = (image_w - g.content_w) / 2;
        g.crop_y = (image_h - g.content_h) / 2;
    }
    return g;
}

Level effective_level(const Settings& s, const PlaneGeometry& g) {
    const bool padded = g.width > g.content_w || g.height > g.content_h;
    return s.level == Level::None && s.pad_fill == PadFill::Mean && s.window != Window::None && padded ? Level::Mean
                                                                                                       : s.level;
}

PlaneShaping plane_shaping(const Settings& s, const PlaneGeometry& g, const std::function<void(int, float*)>& row_of,
                           int threads) {
    PlaneShaping out;
    const Level level = effective_level(s, g);
    const int cw = g.content_w, ch = g.content_h;
    if (s.window_shape == WindowShape::Radial && s.window != Window::None) {
        out.shape.radial = true;
        out.shape.cx = out.shape.hx = (cw - 1) / 2.0;
        out.shape.cy = out.shape.hy = (ch - 1) / 2.0;
        out.table.resize(kRadialWindowTable);
        for (int k = 0; k < kRadialWindowTable; ++k)
            out.table[std::size_t(k)] =
                window_at(s.window, 0.5 * k / double(kRadialWindowTable - 1), s.tukey_alpha, s.kaiser_beta);
    } else {
        out.wx.resize(std::size_t(cw));
        out.wy.resize(std::size_t(ch));
        for (int x = 0; x < cw; ++x)
            out.wx[std::size_t(x)] = window_value(s.window, x, cw, s.tukey_alpha, s.kaiser_beta);
        for (int y = 0; y < ch; ++y)
            out.wy[std::size_t(y)] = window_value(s.window, y, ch, s.tukey_alpha, s.kaiser_beta);
    }
    if (level != Level::None && cw > 0 && ch > 0) {
        // Sums per row (on several threads), added in row order: the same numbers however many threads.
        const double xc = (cw - 1) / 2.0, yc = (ch - 1) / 2.0;
        std::vector<double> sv(std::size_t(ch), 0.0), sx(std::size_t(ch), 0.0);
        auto band = [&](int y0, int y1) {
            std::vector<float> row(static_cast<std::size_t>(cw));
            for (int y = y0; y < y1; ++y) {
                row_of(y, row.data());
                double a = 0, b = 0;
                for (int x = 0; x < cw; ++x) {
                    a += row[std::size_t(x)];
                    b += (x - xc) * row[std::size_t(x)];
                }
                sv[std::size_t(y)] = a;
                sx[std::size_t(y)] = b;
            }
        };
        parallel_bands(ch, threads, [&](int y0, int y1, int) { band(y0, y1); });
        double S = 0, Sx = 0, Sy = 0, Dxx = 0, Dyy = 0;
        for (int y = 0; y < ch; ++y) {
            S += sv[std::size_t(y)];
            Sx += sx[std::size_t(y)];
            Sy += (y - yc) * sv[std::size_t(y)];
        }
        for (int x = 0; x < cw; ++x) Dxx += (x - xc) * (x - xc);
        for (int y = 0; y < ch; ++y) Dyy += (y - yc) * (y - yc);
        const double mean = S / (double(cw) * double(ch));
        out.shape.level = true;
        out.shape.level_a = mean;
        if (level == Level::Plane) {  // centred coordinates are orthogonal over the grid: each slope on its own
            const double bx = Dxx > 0 ? Sx / (Dxx * ch) : 0.0, by = Dyy > 0 ? Sy / (Dyy * cw) : 0.0;
            out.shape.level_bx = bx;
            out.shape.level_by = by;
            out.shape.level_a = mean - bx * xc - by * yc;
        }
    }
    return out;
}

PlaneShaping plane_shaping(const Image& img, const Settings& s, const PlaneGeometry& g, int threads) {
    // (a frame NVDEC keeps on the device has no host rows to take the mean of: its padding holds the windowed mean,
    // as gpu_backend.cpp's recipe says)
    Settings on_host = s;
    if (img.on_device() && s.level == Level::None) on_host.pad_fill = PadFill::Zero;
    const Settings& use = img.on_device() ? on_host : s;
    return plane_shaping(
        use, g, [&](int y, float* row) { channel_row_any(img, s.channel, y + g.crop_y, g.crop_x, g.content_w, row); },
        threads);
}

PreparedPlane prepare_plane(const Plane& src, const Settings& s) {
    PreparedPlane out;
    const PlaneGeometry g = plane_geometry(s, src.width, src.height);
    const int tw = g.width, th = g.height, cw = g.content_w, chh = g.content_h;
    out.crop_x = g.crop_x;
    out.crop_y = g.crop_y;
    out.content_w = cw;
    out.content_h = chh;

    const PlaneShaping sh = plane_shaping(s, g, [&](int y, float* row) {
        for (int x = 0; x < cw; ++x) row[x] = src.at(x + out.crop_x, y + out.crop_y);
    });

    out.plane = Plane(tw, th, 0.0f);
    double sum = 0.0;  // per row, then the rows in order (as prepare_plane_into sums on several threads)
    for (int y = 0; y < chh; ++y) {
        double row = 0.0;
        for (int x = 0; x < cw; ++x) {
            float v = float(plane_value(sh.shape, src.at(x + out.crop_x, y + out.crop_y), x, y, sh.wx.data(),
                                        sh.wy.data(), sh.table.data()));
            out.plane.at(x, y) = v;
            row += v;
        }
        sum += row;
    }
    if (s.pad_fill == PadFill::Mean && effective_level(s, g) == s.level && (tw > cw || th > chh)) {
        const float mean = float(sum / (double(cw) * chh));
        for (int y = 0; y < th; ++y)
            for (int x = 0; x < tw; ++x)
                if (x >= cw || y >= chh) out.plane.at(x, y) = mean;
    }
    return out;
}

PlaneGeometry prepare_plane_into(const Image& img, const Settings& s, float* dst, std::size_t stride,
                                 const std::string& name, int threads) {
    check_channel(img, s.channel, name);
    const PlaneGeometry g = plane_geometry(s, img.width, img.height);
    const int tw = g.width, th = g.height, cw = g.content_w, chh = g.content_h;
    const PlaneShaping sh = plane_shaping(img, s, g, threads);
    // Bands of rows on several threads; each row's sum kept, the rows summed in order afterwards.
    std::vector<double> row_sum(static_cast<std::size_t>(chh), 0.0);
    auto band = [&](int y0, int y1) {
        std::vector<float> row(static_cast<std::size_t>(cw));
        for (int y = y0; y < y1; ++y) {
            channel_row_any(img, s.channel, y + g.crop_y, g.crop_x, cw, row.data());
            float* out = dst + std::size_t(y) * stride;
            double sum = 0.0;
            for (int x = 0; x < cw; ++x) {  // as prepare_plane: in double, one rounding, summed in order
                const float v = float(plane_value(sh.shape, row[x], x, y, sh.wx.data(), sh.wy.data(), sh.table.data()));
                out[x] = v;
                sum += v;
            }
            row_sum[std::size_t(y)] = sum;
        }
    };
    parallel_bands(chh, threads, [&](int y0, int y1, int) { band(y0, y1); });
    double sum = 0.0;
    for (double r : row_sum) sum += r;
    // (the mean subtracted for a window, effective_level: the padding is 0, where the windowed content tapers to)
    const bool mean_fill = s.pad_fill == PadFill::Mean && effective_level(s, g) == s.level && (tw > cw || th > chh);
    const float fill = mean_fill ? float(sum / (double(cw) * chh)) : 0.0f;
    for (int y = 0; y < th; ++y) {
        float* out = dst + std::size_t(y) * stride;
        for (int x = y < chh ? cw : 0; x < tw; ++x) out[x] = fill;
    }
    return g;
}

PlaneGeometry prepare_folded_plane_into(const Image& img, const Settings& s, int fx, int fy, float* dst,
                                        std::size_t stride, const std::string& name, int threads) {
    check_channel(img, s.channel, name);
    const PlaneGeometry g = plane_geometry(s, img.width, img.height);
    if (fx < 1 || fy < 1 || g.width % fx != 0 || g.height % fy != 0)
        throw std::invalid_argument("prepare_folded_plane_into: the folds must divide the plane");
    const int tw = g.width / fx, th = g.height / fy, cw = g.content_w, chh = g.content_h;
    const PlaneShaping sh = plane_shaping(img, s, g, threads);
    // Each band owns folded rows [r0, r1) and adds the fy plane rows that fold onto each: no two threads write a row.
    std::vector<double> row_sums(std::size_t(th), 0.0);
    auto band = [&](int r0, int r1) {
        std::vector<float> row(static_cast<std::size_t>(cw));
        for (int r = r0; r < r1; ++r) {
            float* out = dst + std::size_t(r) * stride;
            std::fill(out, out + tw, 0.0f);
            double sum = 0.0;
            for (int y = r; y < chh; y += th) {
                channel_row_any(img, s.channel, y + g.crop_y, g.crop_x, cw, row.data());
                for (int x0 = 0; x0 < cw; x0 += tw) {
                    const int n = std::min(tw, cw - x0);
                    for (int i = 0; i < n; ++i) {
                        const float v = float(
                            plane_value(sh.shape, row[x0 + i], x0 + i, y, sh.wx.data(), sh.wy.data(), sh.table.data()));
                        out[i] += v;
                        sum += v;
                    }
                }
            }
            row_sums[std::size_t(r)] = sum;
        }
    };
    parallel_bands(th, threads, [&](int r0, int r1, int) { band(r0, r1); }, 16);
    const bool mean_fill = s.pad_fill == PadFill::Mean && effective_level(s, g) == s.level && (g.width > cw || g.height > chh);
    if (mean_fill) {  // the padding's fill, folded: fx fy cells a folded cell stands for, less those of the content
        double sum = 0.0;
        for (double r : row_sums) sum += r;
        const float fill = float(sum / (double(cw) * chh));
        auto in_content = [](int i, int tile, int fold, int content) {
            int n = 0;
            for (int k = 0; k < fold; ++k) n += i + k * tile < content;
            return n;
        };
        for (int r = 0; r < th; ++r) {
            const int ny = in_content(r, th, fy, chh);
            float* out = dst + std::size_t(r) * stride;
            for (int x = 0; x < tw; ++x) out[x] += fill * float(fx * fy - in_content(x, tw, fx, cw) * ny);
        }
    }
    return g;
}

PreparedPlane prepare_plane(const Image& img, const Settings& s, const std::string& name) {
    PreparedPlane out;
    const PlaneGeometry g = plane_geometry(s, img.width, img.height);
    out.plane = Plane(g.width, g.height, 0.0f);
    prepare_plane_into(img, s, out.plane.v.data(), std::size_t(g.width), name);
    out.crop_x = g.crop_x;
    out.crop_y = g.crop_y;
    out.content_w = g.content_w;
    out.content_h = g.content_h;
    return out;
}

}  // namespace specview
