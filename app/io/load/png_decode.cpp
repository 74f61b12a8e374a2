#include "app/io/load/png_decode.h"

#include <libdeflate.h>
#include <spng.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace specview {

namespace {

std::uint32_t be32(const unsigned char* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}

// The IDAT stream of a PNG whose chunks spng has already walked up to its image data: the IDAT payloads in order
// (one chunk: no copy), each chunk's CRC checked. False for anything unusual (a chunk running past the end, no
// IDAT, a CRC that does not match): spng then decodes, and says what is wrong.
bool idat_stream(ByteView bytes, std::vector<unsigned char>& joined, const unsigned char** data, std::size_t* size) {
    const unsigned char* b = bytes.data();
    const std::size_t n = bytes.size();
    std::size_t pos = 8;                                     // after the signature
    std::vector<std::pair<std::size_t, std::size_t>> parts;  // offset, length
    std::size_t total = 0;
    bool seen = false;
    while (pos + 12 <= n) {
        const std::uint32_t len = be32(b + pos);
        if (len > 0x7FFFFFFFu || pos + 12 + std::size_t(len) > n) return false;
        const bool idat = std::memcmp(b + pos + 4, "IDAT", 4) == 0;
        if (idat) {
            if (libdeflate_crc32(0, b + pos + 4, std::size_t(len) + 4) != be32(b + pos + 8 + len)) return false;
            parts.emplace_back(pos + 8, len);
            total += len;
            seen = true;
        } else if (seen) {
            break;  // the image data is contiguous; what follows is spng's business
        }
        pos += 12 + std::size_t(len);
    }
    if (parts.empty()) return false;
    if (parts.size() == 1) {
        *data = b + parts[0].first;
        *size = parts[0].second;
        return true;
    }
    joined.resize(total);
    std::size_t at = 0;
    for (const auto& [off, len] : parts) {
        std::memcpy(joined.data() + at, b + off, len);
        at += len;
    }
    *data = joined.data();
    *size = total;
    return true;
}

inline unsigned char paeth(int a, int b, int c) {
    const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
    return (unsigned char)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

// PNG's five row filters undone: `in` is height rows of a filter byte and `row` bytes, `out` height rows of `row`
// bytes; bpp the bytes of one pixel (at least 1). False on an unknown filter type.
bool unfilter(const unsigned char* in, std::size_t row, std::size_t height, int bpp, unsigned char* out) {
    for (std::size_t y = 0; y < height; ++y) {
        const unsigned char* f = in + y * (row + 1);
        const unsigned char* src = f + 1;
        unsigned char* dst = out + y * row;
        const unsigned char* up = y ? dst - row : nullptr;
        switch (f[0]) {
            case 0:
                std::memcpy(dst, src, row);
                break;
            case 1:
                for (std::size_t i = 0; i < row; ++i)
                    dst[i] = (unsigned char)(src[i] + (i >= std::size_t(bpp) ? dst[i - bpp] : 0));
                break;
            case 2:
                if (up)
                    for (std::size_t i = 0; i < row; ++i) dst[i] = (unsigned char)(src[i] + up[i]);
                else
                    std::memcpy(dst, src, row);
                break;
            case 3:
                for (std::size_t i = 0; i < row; ++i) {
                    const int a = i >= std::size_t(bpp) ? dst[i - bpp] : 0, b = up ? up[i] : 0;
                    dst[i] = (unsigned char)(src[i] + ((a + b) >> 1));
                }
                break;
            case 4:
                for (std::size_t i = 0; i < row; ++i) {
                    const int a = i >= std::size_t(bpp) ? dst[i - bpp] : 0, b = up ? up[i] : 0,
                              c = up && i >= std::size_t(bpp) ? up[i - bpp] : 0;
                    dst[i] = (unsigned char)(src[i] + paeth(a, b, c));
                }
                break;
            default:
                return false;
        }
    }
    return true;
}

// The common case decoded with libdeflate (2-3x zlib's inflate, which was most of an 8192^2 PNG's decode):
// non-interlaced 8- or 16-bit gray, gray + alpha, RGB or RGBA without tRNS, into `img` (16-bit samples to host
// order). False when anything is not as expected; spng then decodes from scratch.
bool decode_direct(ByteView bytes, const spng_ihdr& ihdr, int channels, Image& img) {
    if (ihdr.interlace_method != 0 || (ihdr.bit_depth != 8 && ihdr.bit_depth != 16)) return false;
    std::vector<unsigned char> joined;
    const unsigned char* z = nullptr;
    std::size_t zn = 0;
    if (!idat_stream(bytes, joined, &z, &zn)) return false;
    const int bytes_per_sample = ihdr.bit_depth / 8;
    const std::size_t row = std::size_t(ihdr.width) * channels * bytes_per_sample;
    const std::size_t want = (row + 1) * ihdr.height;
    std::vector<unsigned char> filtered;
    try {
        filtered.resize(want);
    } catch (const std::bad_alloc&) {
        return false;
    }
    std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(libdeflate_alloc_decompressor(),
                                                                                   libdeflate_free_decompressor);
    std::size_t got = 0;
    if (!d || libdeflate_zlib_decompress(d.get(), z, zn, filtered.data(), want, &got) != LIBDEFLATE_SUCCESS ||
        got != want)
        return false;
    std::vector<unsigned char>().swap(joined);
    unsigned char* out = img.writable();
    if (!unfilter(filtered.data(), row, ihdr.height, channels * bytes_per_sample, out)) return false;
    if (bytes_per_sample == 2)  // PNG stores 16-bit samples big-endian
        for (std::size_t i = 0, n = row * ihdr.height; i < n; i += 2) std::swap(out[i], out[i + 1]);
    return true;
}

}  // namespace

Image decode_png(ByteView bytes, const std::string& name, const std::function<void(const ImageHeader&)>& check) {
    std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(0), spng_ctx_free);
    if (!ctx) throw InputError(name, "cannot decode png: out of memory");
    auto fail = [&](int err) { return InputError(name, std::string("cannot decode png: ") + spng_strerror(err)); };
    // Limits before anything is read: no side over 2^24 (the header check refuses far less), no chunk over
    // 64 MiB kept in memory (image data streams through), ancillary chunks up to 64 MiB in all.
    spng_set_image_limits(ctx.get(), 1u << 24, 1u << 24);
    spng_set_chunk_limits(ctx.get(), std::size_t(64) << 20, std::size_t(64) << 20);
    if (int e = spng_set_png_buffer(ctx.get(), bytes.data(), bytes.size())) throw fail(e);
    spng_ihdr ihdr{};
    if (int e = spng_get_ihdr(ctx.get(), &ihdr)) throw fail(e);
    spng_trns trns{};
    const bool has_trns = spng_get_trns(ctx.get(), &trns) == 0;

    // The output format, channels and depth stb gave for this kind of PNG.
    const bool deep = ihdr.bit_depth == 16;
    int fmt = 0, channels = 0;
    switch (ihdr.color_type) {
        case SPNG_COLOR_TYPE_GRAYSCALE:
            channels = has_trns ? 2 : 1;
            fmt = deep ? (has_trns ? SPNG_FMT_GA16 : SPNG_FMT_PNG) : (has_trns ? SPNG_FMT_GA8 : SPNG_FMT_G8);
            break;
        case SPNG_COLOR_TYPE_TRUECOLOR:
            channels = has_trns ? 4 : 3;
            fmt = deep ? (has_trns ? SPNG_FMT_RGBA16 : SPNG_FMT_PNG) : (has_trns ? SPNG_FMT_RGBA8 : SPNG_FMT_RGB8);
            break;
        case SPNG_COLOR_TYPE_INDEXED:
            channels = has_trns ? 4 : 3;
            fmt = has_trns ? SPNG_FMT_RGBA8 : SPNG_FMT_RGB8;
            break;
        case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA:  // as stored (host-endian when 16-bit)
            channels = 2;
            fmt = SPNG_FMT_PNG;
            break;
        case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA:
            channels = 4;
            fmt = SPNG_FMT_PNG;
            break;
        default:
            throw InputError(name, "cannot decode png: unknown colour type " + std::to_string(int(ihdr.color_type)));
    }
    const int depth = deep && ihdr.color_type != SPNG_COLOR_TYPE_INDEXED ? 16 : 8;
    if (ihdr.width == 0 || ihdr.height == 0) throw InputError(name, "image has zero width or height");
    check(ImageHeader{int(ihdr.width), int(ihdr.height), channels, depth, "png"});

    std::size_t size = 0;
    if (int e = spng_decoded_image_size(ctx.get(), fmt, &size)) throw fail(e);
    Image img = Image::allocate(int(ihdr.width), int(ihdr.height), channels, depth, "png");
    if (size != img.sample_bytes()) throw InputError(name, "cannot decode png: unexpected decoded size");
    // (before IDAT, as spng reads the chunks) pHYs in pixels per metre is a calibration, except at the print
    // resolutions editors write into photos (72, 96, 300 dpi, ...: is_print_dpi), which are not a size the pixels had.
    spng_phys phys{};
    if (spng_get_phys(ctx.get(), &phys) == 0 && phys.unit_specifier == 1 && phys.ppu_x > 0 &&
        !is_print_dpi(double(phys.ppu_x) * 0.0254))
        img.pixel_size = pixel_size_from_metres(1.0 / double(phys.ppu_x));
    const bool direct_kind = !has_trns && ihdr.color_type != SPNG_COLOR_TYPE_INDEXED;
    if (direct_kind && decode_direct(bytes, ihdr, channels, img)) return img;
    if (int e = spng_decode_image(ctx.get(), img.writable(), size, fmt, has_trns ? SPNG_DECODE_TRNS : 0)) throw fail(e);
    return img;
}

}  // namespace specview
