#include "app/plane.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <thread>

namespace specview {

bool is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }
int next_pow2(int v) {
    int p = 1;
    while (p < v) p <<= 1;
    return p;
}
int prev_pow2(int v) {
    int p = 1;
    while (p * 2 <= v) p <<= 1;
    return p;
}

namespace {
// `count` values of one channel from row y, columns x0.., of samples of type T, as floats the way
// Image::sample makes them (float(v) / 255 etc.), luma as three rounded products and two rounded sums.
template <class T>
void channel_row(const Image& img, Channel ch, int y, int x0, int count, float* out) {
    const int c = img.channels;
    const T* s = static_cast<const T*>(img.data()) + (std::size_t(y) * img.width + x0) * c;
    const bool color = c >= 3;
    const float div = img.bit_depth == 8 ? 255.0f : img.bit_depth == 16 ? 65535.0f : 1.0f;
    auto f = [div](T v) { return div == 1.0f ? float(v) : float(v) / div; };
    for (int i = 0; i < count; ++i) {
        const T* px = s + std::size_t(i) * c;
        float v = 0.0f;
        switch (ch) {
            case Channel::Luma:
                v = color ? 0.2126f * f(px[0]) + 0.7152f * f(px[1]) + 0.0722f * f(px[2]) : f(px[0]);
                break;
            case Channel::R: v = f(px[0]); break;
            case Channel::G: v = f(color ? px[1] : px[0]); break;
            case Channel::B: v = f(color ? px[2] : px[0]); break;
            case Channel::A: v = f(px[c - 1]); break;
        }
        out[i] = v;
    }
}

void channel_row_any(const Image& img, Channel ch, int y, int x0, int count, float* out) {
    switch (img.bit_depth) {
        case 8: channel_row<std::uint8_t>(img, ch, y, x0, count, out); break;
        case 16: channel_row<std::uint16_t>(img, ch, y, x0, count, out); break;
        default: channel_row<float>(img, ch, y, x0, count, out); break;
    }
}

void check_channel(const Image& img, Channel ch, const std::string& name) {
    const bool has_alpha = img.channels == 2 || img.channels == 4;
    if (ch == Channel::A && !has_alpha) throw InputError(name, "has no alpha channel (--channel a)");
}
}  // namespace

Plane extract_channel(const Image& img, Channel ch, const std::string& name) {
    check_channel(img, ch, name);
    Plane p(img.width, img.height);
    for (int y = 0; y < img.height; ++y) channel_row_any(img, ch, y, 0, img.width, p.v.data() + std::size_t(y) * img.width);
    return p;
}

double window_value(Window w, int i, int n, double alpha) {
    if (n <= 1 || w == Window::None) return 1.0;
    const double x = double(i) / double(n - 1);  // 0..1
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    switch (w) {
        case Window::None: return 1.0;
        case Window::Hann: return 0.5 - 0.5 * std::cos(kTwoPi * x);
        case Window::Hamming: return 0.54 - 0.46 * std::cos(kTwoPi * x);
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
        case PadMode::Pow2: *ow = next_pow2(w); *oh = next_pow2(h); return;
        case PadMode::Crop: *ow = prev_pow2(w); *oh = prev_pow2(h); return;
        case PadMode::None: *ow = w; *oh = h; return;
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

PreparedPlane prepare_plane(const Plane& src, const Settings& s) {
    PreparedPlane out;
    const PlaneGeometry g = plane_geometry(s, src.width, src.height);
    const int tw = g.width, th = g.height, cw = g.content_w, chh = g.content_h;
    out.crop_x = g.crop_x;
    out.crop_y = g.crop_y;
    out.content_w = cw;
    out.content_h = chh;

    std::vector<double> wx(cw), wy(chh);
    for (int x = 0; x < cw; ++x) wx[x] = window_value(s.window, x, cw, s.tukey_alpha);
    for (int y = 0; y < chh; ++y) wy[y] = window_value(s.window, y, chh, s.tukey_alpha);

    out.plane = Plane(tw, th, 0.0f);
    double sum = 0.0;  // per row, then the rows in order (as prepare_plane_into sums on several threads)
    for (int y = 0; y < chh; ++y) {
        double row = 0.0;
        for (int x = 0; x < cw; ++x) {
            float v = float(src.at(x + out.crop_x, y + out.crop_y) * wx[x] * wy[y]);
            out.plane.at(x, y) = v;
            row += v;
        }
        sum += row;
    }
    if (s.pad_fill == PadFill::Mean && (tw > cw || th > chh)) {
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
    std::vector<double> wx(cw), wy(chh);
    for (int x = 0; x < cw; ++x) wx[x] = window_value(s.window, x, cw, s.tukey_alpha);
    for (int y = 0; y < chh; ++y) wy[y] = window_value(s.window, y, chh, s.tukey_alpha);
    // Bands of rows on several threads; each row's sum kept, the rows summed in order afterwards.
    std::vector<double> row_sum(static_cast<std::size_t>(chh), 0.0);
    auto band = [&](int y0, int y1) {
        std::vector<float> row(static_cast<std::size_t>(cw));
        for (int y = y0; y < y1; ++y) {
            channel_row_any(img, s.channel, y + g.crop_y, g.crop_x, cw, row.data());
            float* out = dst + std::size_t(y) * stride;
            double sum = 0.0;
            for (int x = 0; x < cw; ++x) {  // as prepare_plane: the product in double, one rounding, summed in order
                const float v = float(row[x] * wx[x] * wy[y]);
                out[x] = v;
                sum += v;
            }
            row_sum[std::size_t(y)] = sum;
        }
    };
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    const int parts = std::max(1, std::min(threads, chh / 64));
    std::vector<std::thread> ts;
    for (int p = 1; p < parts; ++p)
        ts.emplace_back(band, int(std::int64_t(chh) * p / parts), int(std::int64_t(chh) * (p + 1) / parts));
    band(0, int(std::int64_t(chh) / parts));
    for (auto& t : ts) t.join();
    double sum = 0.0;
    for (double r : row_sum) sum += r;
    const float fill = s.pad_fill == PadFill::Mean && (tw > cw || th > chh) ? float(sum / (double(cw) * chh)) : 0.0f;
    for (int y = 0; y < th; ++y) {
        float* out = dst + std::size_t(y) * stride;
        for (int x = y < chh ? cw : 0; x < tw; ++x) out[x] = fill;
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
