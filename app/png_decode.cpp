#include "app/png_decode.h"

#include <spng.h>

#include <memory>

namespace specview {

Image decode_png(ByteView bytes, const std::string& name,
                 const std::function<void(const ImageHeader&)>& check) {
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
        default: throw InputError(name, "cannot decode png: unknown colour type " + std::to_string(int(ihdr.color_type)));
    }
    const int depth = deep && ihdr.color_type != SPNG_COLOR_TYPE_INDEXED ? 16 : 8;
    if (ihdr.width == 0 || ihdr.height == 0) throw InputError(name, "image has zero width or height");
    check(ImageHeader{int(ihdr.width), int(ihdr.height), channels, depth, "png"});

    std::size_t size = 0;
    if (int e = spng_decoded_image_size(ctx.get(), fmt, &size)) throw fail(e);
    Image img = Image::allocate(int(ihdr.width), int(ihdr.height), channels, depth, "png");
    if (size != img.sample_bytes()) throw InputError(name, "cannot decode png: unexpected decoded size");
    if (int e = spng_decode_image(ctx.get(), img.writable(), size, fmt, has_trns ? SPNG_DECODE_TRNS : 0)) throw fail(e);
    return img;
}

}  // namespace specview
