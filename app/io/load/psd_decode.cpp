#include "app/io/load/psd_decode.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace specview {
namespace {

struct Bytes {
    ByteView b;
    std::size_t pos = 0;
    bool has(std::size_t n) const { return pos <= b.size() && n <= b.size() - pos; }
    std::uint32_t be16() {
        const std::uint32_t v = (std::uint32_t(b[pos]) << 8) | b[pos + 1];
        pos += 2;
        return v;
    }
    std::uint32_t be32() {
        const std::uint32_t v = (std::uint32_t(b[pos]) << 24) | (std::uint32_t(b[pos + 1]) << 16) |
                                (std::uint32_t(b[pos + 2]) << 8) | b[pos + 3];
        pos += 4;
        return v;
    }
};

// PackBits into `out` (n bytes): n in 0..127 copies n+1 bytes, -127..-1 repeats the next byte 1-n times, -128
// does nothing. False when the data ends early or a run would overshoot.
bool unpack_bits(Bytes& in, unsigned char* out, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
        if (!in.has(1)) return false;
        const int c = static_cast<signed char>(in.b[in.pos++]);
        if (c == -128) continue;
        if (c >= 0) {
            const std::size_t len = std::size_t(c) + 1;
            if (len > n - got || !in.has(len)) return false;
            std::memcpy(out + got, &in.b[in.pos], len);
            in.pos += len;
            got += len;
        } else {
            const std::size_t len = std::size_t(1 - c);
            if (len > n - got || !in.has(1)) return false;
            std::memset(out + got, in.b[in.pos++], len);
            got += len;
        }
    }
    return true;
}

// stb's matte removal, (v - (1 - a) max) / a, with the result clamped into range.
template <class T>
T unmatte(T v, float a, float max) {
    const float ra = 1.0f / a;
    const float r = float(v) * ra + max * (1.0f - ra);
    return static_cast<T>(std::clamp(r, 0.0f, max));
}

}  // namespace

Image decode_psd(ByteView bytes, const std::string& name, const std::function<void(const ImageHeader&)>& check) {
    auto fail = [&](const std::string& why) { return InputError(name, "cannot decode PSD: " + why); };
    Bytes in{bytes};
    if (!in.has(26) || in.be32() != 0x38425053u) throw fail("not a PSD file");
    if (in.be16() != 1) throw fail("unsupported version");
    in.pos += 6;
    const int channels_in_file = int(in.be16());
    const std::uint32_t h = in.be32(), w = in.be32();
    const int depth = int(in.be16());
    const std::uint32_t mode = in.be16();
    if (channels_in_file < 1 || channels_in_file > 56)
        throw fail("unsupported channel count " + std::to_string(channels_in_file));
    if (depth != 8 && depth != 16) throw fail("bit depth " + std::to_string(depth) + " (8 and 16 are supported)");
    if (mode != 3) throw fail("colour mode " + std::to_string(mode) + " (only RGB is supported)");
    if (w == 0 || h == 0 || w > (1u << 24) || h > (1u << 24)) throw InputError(name, "image has zero width or height");
    for (int section = 0; section < 3; ++section) {  // colour mode data, image resources, layers: skipped
        if (!in.has(4)) throw fail("sections incomplete");
        const std::uint32_t len = in.be32();
        if (!in.has(len)) throw fail("sections incomplete");
        in.pos += len;
    }
    if (!in.has(2)) throw fail("no image data");
    const std::uint32_t compression = in.be16();
    if (compression > 1) throw fail("unknown compression " + std::to_string(compression));

    check(ImageHeader{int(w), int(h), 4, depth, "psd"});
    const int bps = depth / 8;
    Image img = Image::allocate(int(w), int(h), 4, depth, "psd");
    unsigned char* out = img.writable();
    const std::size_t pixels = std::size_t(w) * h;
    const int used = std::min(channels_in_file, 4);
    if (compression == 1) in.pos += std::size_t(h) * std::size_t(channels_in_file) * 2;  // the row-length table
    std::vector<unsigned char> plane(pixels * bps);
    for (int c = 0; c < used; ++c) {
        // One channel's plane, big-endian samples: PackBits per row (the rows run on), or raw.
        if (compression == 1) {
            if (!unpack_bits(in, plane.data(), plane.size())) throw fail("bad run-length data");
        } else {
            if (!in.has(plane.size())) throw fail("raw image data incomplete");
            std::memcpy(plane.data(), &in.b[in.pos], plane.size());
            in.pos += plane.size();
        }
        if (bps == 1) {
            for (std::size_t i = 0; i < pixels; ++i) out[i * 4 + c] = plane[i];
        } else {
            auto* o16 = reinterpret_cast<std::uint16_t*>(out);
            for (std::size_t i = 0; i < pixels; ++i)
                o16[i * 4 + c] = std::uint16_t((plane[2 * i] << 8) | plane[2 * i + 1]);
        }
    }
    for (int c = used; c < 4; ++c) {  // missing channels: black, opaque
        if (bps == 1) {
            for (std::size_t i = 0; i < pixels; ++i) out[i * 4 + c] = c == 3 ? 255 : 0;
        } else {
            auto* o16 = reinterpret_cast<std::uint16_t*>(out);
            for (std::size_t i = 0; i < pixels; ++i) o16[i * 4 + c] = c == 3 ? 65535 : 0;
        }
    }
    if (channels_in_file >= 4) {  // Photoshop's white matte on translucent pixels, removed as stb does
        if (bps == 1) {
            for (std::size_t i = 0; i < pixels; ++i) {
                unsigned char* p = out + i * 4;
                if (p[3] == 0 || p[3] == 255) continue;
                const float a = p[3] / 255.0f;
                for (int c = 0; c < 3; ++c) p[c] = unmatte<unsigned char>(p[c], a, 255.0f);
            }
        } else {
            auto* o16 = reinterpret_cast<std::uint16_t*>(out);
            for (std::size_t i = 0; i < pixels; ++i) {
                std::uint16_t* p = o16 + i * 4;
                if (p[3] == 0 || p[3] == 65535) continue;
                const float a = p[3] / 65535.0f;
                for (int c = 0; c < 3; ++c) p[c] = unmatte<std::uint16_t>(p[c], a, 65535.0f);
            }
        }
    }
    return img;
}

}  // namespace specview
