#include "app/io/load/tiff_decode.h"

#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

namespace specview {

namespace {

// libtiff's client I/O over a buffer in memory (read-only).
struct Source {
    const unsigned char* data;
    toff_t size, pos;
};
tmsize_t read_proc(thandle_t h, void* buf, tmsize_t n) {
    Source* s = static_cast<Source*>(h);
    if (n <= 0 || s->pos >= s->size) return 0;
    const toff_t k = std::min<toff_t>(toff_t(n), s->size - s->pos);
    std::memcpy(buf, s->data + s->pos, std::size_t(k));
    s->pos += k;
    return tmsize_t(k);
}
tmsize_t write_proc(thandle_t, void*, tmsize_t) { return 0; }
toff_t seek_proc(thandle_t h, toff_t off, int whence) {
    Source* s = static_cast<Source*>(h);
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return toff_t(-1);
    const toff_t base = whence == SEEK_CUR ? s->pos : whence == SEEK_END ? s->size : 0;
    s->pos = base + off;  // modulo 2^64, as a negative offset comes; reads past the end read nothing
    return s->pos;
}
int close_proc(thandle_t) { return 0; }
toff_t size_proc(thandle_t h) { return static_cast<Source*>(h)->size; }
int map_proc(thandle_t h, void** base, toff_t* size) {  // the buffer itself: no copy of strips
    Source* s = static_cast<Source*>(h);
    *base = const_cast<unsigned char*>(s->data);
    *size = s->size;
    return 1;
}
void unmap_proc(thandle_t, void*, toff_t) {}

// libtiff's messages for this file, kept for the error we throw (per handle: thread-safe).
int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
    std::string* out = static_cast<std::string*>(user);
    char buf[512];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    if (out->empty()) *out = std::string(module ? module : "libtiff") + ": " + buf;
    return 1;
}
int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }  // not worth a message

struct TiffClose {
    void operator()(TIFF* t) const { TIFFClose(t); }
};
struct OptionsFree {
    void operator()(TIFFOpenOptions* o) const { TIFFOpenOptionsFree(o); }
};

enum class Kind { U8, U16, U32, I8, I16, I32, F32, F64 };

Kind sample_kind(int bits, int format, bool* ok) {
    *ok = true;
    if (format == SAMPLEFORMAT_IEEEFP) {
        if (bits == 32) return Kind::F32;
        if (bits == 64) return Kind::F64;
    } else if (format == SAMPLEFORMAT_INT) {
        if (bits == 8) return Kind::I8;
        if (bits == 16) return Kind::I16;
        if (bits == 32) return Kind::I32;
    } else if (format == SAMPLEFORMAT_UINT || format == SAMPLEFORMAT_VOID) {
        if (bits == 8) return Kind::U8;
        if (bits == 16) return Kind::U16;
        if (bits == 32) return Kind::U32;
    }
    *ok = false;
    return Kind::U8;
}

int kind_bytes(Kind k) {
    switch (k) {
        case Kind::U8:
        case Kind::I8:
            return 1;
        case Kind::U16:
        case Kind::I16:
            return 2;
        case Kind::F64:
            return 8;
        default:
            return 4;
    }
}

// One raw sample as a float, the way the image keeps it (see the header): only for the float-output kinds.
float as_float(Kind k, const unsigned char* p) {
    switch (k) {
        case Kind::U32: {
            std::uint32_t v;
            std::memcpy(&v, p, 4);
            return float(double(v) / 4294967295.0);
        }
        case Kind::I8:
            return float(*reinterpret_cast<const std::int8_t*>(p));
        case Kind::I16: {
            std::int16_t v;
            std::memcpy(&v, p, 2);
            return float(v);
        }
        case Kind::I32: {
            std::int32_t v;
            std::memcpy(&v, p, 4);
            return float(v);
        }
        case Kind::F32: {
            float v;
            std::memcpy(&v, p, 4);
            return v;
        }
        case Kind::F64: {
            double v;
            std::memcpy(&v, p, 8);
            return float(v);
        }
        default:
            return 0.0f;
    }
}

}  // namespace

bool is_tiff(ByteView b) {
    if (b.size() < 4) return false;
    const bool le = b[0] == 'I' && b[1] == 'I' && b[2] == 42 && b[3] == 0,
               be = b[0] == 'M' && b[1] == 'M' && b[2] == 0 && b[3] == 42;
    const bool big_le = b[0] == 'I' && b[1] == 'I' && b[2] == 43 && b[3] == 0,
               big_be = b[0] == 'M' && b[1] == 'M' && b[2] == 0 && b[3] == 43;
    return le || be || big_le || big_be;
}

struct TiffStack::Impl {
    std::string name, err;
    Source src;
    std::unique_ptr<TIFFOpenOptions, OptionsFree> opts;
    std::unique_ptr<TIFF, TiffClose> tif;
    int current = -1;  // the directory libtiff has read
    InputError fail(const std::string& what) const {
        return InputError(name, "cannot decode tiff: " + what + (err.empty() ? "" : " (" + err + ")"));
    }
};

TiffStack::TiffStack(ByteView bytes, std::string name) : impl_(new Impl) {
    Impl& m = *impl_;
    m.name = std::move(name);
    m.opts.reset(TIFFOpenOptionsAlloc());
    if (!m.opts) throw InputError(m.name, "cannot decode tiff: out of memory");
    TIFFOpenOptionsSetErrorHandlerExtR(m.opts.get(), on_error, &m.err);
    TIFFOpenOptionsSetWarningHandlerExtR(m.opts.get(), on_warning, nullptr);
    TIFFOpenOptionsSetMaxSingleMemAlloc(m.opts.get(), tmsize_t(1) << 31);  // no single buffer over 2 GiB
    m.src = Source{bytes.data(), toff_t(bytes.size()), 0};
    m.tif.reset(TIFFClientOpenExt(m.name.empty() ? "tiff" : m.name.c_str(), "r", &m.src, read_proc, write_proc,
                                  seek_proc, close_proc, size_proc, map_proc, unmap_proc, m.opts.get()));
    if (!m.tif) throw m.fail("not a readable TIFF");
    m.current = 0;
    // Pages: the directory chain (libtiff stops at loops); far more than any stack is refused.
    const tdir_t count = TIFFNumberOfDirectories(m.tif.get());
    if (count < 1) throw m.fail("no image in the file");
    if (count > 1000000) throw m.fail("over a million pages");
    pages_ = int(count);
}

TiffStack::~TiffStack() = default;

Image decode_tiff(ByteView bytes, const std::string& name, int page,
                  const std::function<void(const ImageHeader&)>& check, int* pages) {
    TiffStack stack(bytes, name);
    if (pages) *pages = stack.pages();
    return stack.decode(page, check);
}

namespace {
// The pixel size a TIFF states: 1 / XResolution in ImageJ's unit= of its ImageDescription (its ResolutionUnit then
// none), else in the ResolutionUnit (inch, centimetre); not calibrated otherwise, nor at a print resolution (72, 300
// dpi, ...: is_print_dpi; editors write them, as ImageJ ignores 72).
PixelSize tiff_pixel_size(TIFF* tif, double* z_spacing = nullptr) {
    float xres = 0;
    std::uint16_t unit = RESUNIT_NONE;
    if (!TIFFGetField(tif, TIFFTAG_XRESOLUTION, &xres) || !(xres > 0) || !std::isfinite(xres)) return {};
    TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &unit);
    PixelSize p;
    char* desc = nullptr;
    if (TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &desc) && desc) {
        const std::string d(desc, strnlen(desc, 1 << 16));
        std::size_t at = d.rfind("unit=", 0) == 0 ? 0 : d.find("\nunit=");
        if (at != std::string::npos) {
            at = d.find("unit=", at) + 5;
            std::string u = d.substr(at, d.find('\n', at) - at);
            if (u == "\\u00B5m" || u == "\\u00b5m") u = "um";  // (ImageJ escapes the micro sign)
            if (!unit_name(u).empty()) {
                p.value = 1.0 / double(xres);
                p.unit = unit_name(u);
                // A z-stack's slice distance, in the same unit ("spacing=0.5" on a line of its own).
                const std::size_t sp = d.find("\nspacing=");
                if (z_spacing && sp != std::string::npos) {
                    const double z = std::strtod(d.c_str() + sp + 9, nullptr);
                    if (std::isfinite(z) && z > 0) *z_spacing = z;
                }
                return p;
            }
        }
    }
    if (unit == RESUNIT_CENTIMETER && !is_print_dpi(double(xres) * 2.54)) {
        p.value = 1.0 / double(xres);
        p.unit = "cm";
    } else if (unit == RESUNIT_INCH && !is_print_dpi(double(xres))) {
        p.value = 1.0 / double(xres);
        p.unit = "in";
    }
    return p;
}
}  // namespace

Image TiffStack::decode(int page, const std::function<void(const ImageHeader&)>& check) {
    Impl& m = *impl_;
    const std::string& name = m.name;
    std::string& err = m.err;
    err.clear();
    auto fail = [&](const std::string& what) { return m.fail(what); };
    const int count = pages_;
    if (page < 0 || page >= count)
        throw InputError(name, "no page " + std::to_string(page + 1) + ": the file has " + std::to_string(count) +
                                   (count == 1 ? " page" : " pages"));
    // The next page: one step along the chain; any other: from the start.
    const bool ok = page == m.current       ? true
                    : page == m.current + 1 ? TIFFReadDirectory(m.tif.get()) == 1
                                            : TIFFSetDirectory(m.tif.get(), tdir_t(page)) == 1;
    m.current = ok ? page : -1;
    if (!ok) throw fail("cannot read page " + std::to_string(page + 1));
    TIFF* const tif_raw = m.tif.get();
    struct View {
        TIFF* p;
        TIFF* get() const { return p; }
    } tif{tif_raw};

    std::uint32_t w = 0, h = 0;
    std::uint16_t spp = 1, bits = 1, format = SAMPLEFORMAT_UINT, photometric = PHOTOMETRIC_MINISBLACK,
                  planar = PLANARCONFIG_CONTIG;
    if (!TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &h))
        throw fail("no image size");
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_PLANARCONFIG, &planar);
    if (!TIFFGetField(tif.get(), TIFFTAG_PHOTOMETRIC, &photometric))
        photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    if (w == 0 || h == 0) throw InputError(name, "image has zero width or height");
    if (w > std::uint32_t(std::numeric_limits<int>::max()) || h > std::uint32_t(std::numeric_limits<int>::max()))
        throw InputError(name, "image is " + std::to_string(w) + "x" + std::to_string(h) + ", over any limit");
    if (spp < 1) throw fail("no samples per pixel");
    std::uint16_t extra_count = 0;
    std::uint16_t* extra = nullptr;
    TIFFGetField(tif.get(), TIFFTAG_EXTRASAMPLES, &extra_count, &extra);

    bool direct_kind = false;
    const Kind kind = sample_kind(bits, format, &direct_kind);
    const bool gray = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
    const bool rgb = photometric == PHOTOMETRIC_RGB;
    // Read directly: gray or RGB with whole-byte samples of a known format, enough samples for the colour.
    const bool direct = direct_kind && ((gray && spp >= 1) || (rgb && spp >= 3)) &&
                        (planar == PLANARCONFIG_CONTIG || planar == PLANARCONFIG_SEPARATE);
    const int width = int(w), height = int(h);
    if (!direct) {
        // libtiff's RGBA reader: palette, bilevel and 2/4-bit gray, YCbCr, CMYK, Lab, ... as 8-bit RGBA.
        if (format == SAMPLEFORMAT_IEEEFP || bits > 16)
            throw fail(std::to_string(bits) + "-bit " + (format == SAMPLEFORMAT_IEEEFP ? "float " : "") +
                       "samples with photometric interpretation " + std::to_string(photometric) + " are not supported");
        char why[1024] = {};
        if (!TIFFRGBAImageOK(tif.get(), why)) throw fail(std::string("unsupported layout: ") + why);
        const bool palette = photometric == PHOTOMETRIC_PALETTE;
        const bool alpha = extra_count > 0;
        const int channels = (gray && !palette) ? (alpha ? 2 : 1) : (alpha ? 4 : 3);
        check(ImageHeader{width, height, channels, 8, "tiff"});
        std::vector<std::uint32_t> rgba(std::size_t(w) * h);
        if (!TIFFReadRGBAImageOriented(tif.get(), w, h, rgba.data(), ORIENTATION_TOPLEFT, 0))
            throw fail("cannot decode the pixels");
        Image img = Image::allocate(width, height, channels, 8, "tiff");
        img.pixel_size = tiff_pixel_size(tif.get(), &img.z_spacing);
        unsigned char* out = img.writable();
        for (std::size_t i = 0; i < rgba.size(); ++i) {
            const std::uint32_t p = rgba[i];
            const unsigned char r = TIFFGetR(p), g = TIFFGetG(p), b = TIFFGetB(p), a = TIFFGetA(p);
            unsigned char* o = out + i * std::size_t(channels);
            if (channels <= 2) {
                o[0] = r;
                if (channels == 2) o[1] = a;
            } else {
                o[0] = r, o[1] = g, o[2] = b;
                if (channels == 4) o[3] = a;
            }
        }
        return img;
    }

    // Channels kept: gray (+ alpha: the first extra sample), RGB (+ alpha); other extra samples are dropped.
    const int colour = gray ? 1 : 3;
    const int channels = extra_count > 0 && spp >= colour + 1 ? colour + 1 : colour;
    const int depth = kind == Kind::U8 ? 8 : kind == Kind::U16 ? 16 : 32;
    check(ImageHeader{width, height, channels, depth, "tiff"});
    Image img = Image::allocate(width, height, channels, depth, "tiff");
    img.pixel_size = tiff_pixel_size(tif.get(), &img.z_spacing);
    unsigned char* out = img.writable();
    const int sb = kind_bytes(kind);
    const bool invert = photometric == PHOTOMETRIC_MINISWHITE;
    // Sample (x, y, c) of the output from a raw sample at p.
    auto put = [&](int x, int y, int c, const unsigned char* p) {
        const std::size_t i = (std::size_t(y) * width + x) * channels + c;
        if (depth == 8) {
            out[i] = invert && c < colour ? static_cast<unsigned char>(255 - *p) : *p;
        } else if (depth == 16) {
            std::uint16_t v;
            std::memcpy(&v, p, 2);
            if (invert && c < colour) v = static_cast<std::uint16_t>(65535 - v);
            std::memcpy(out + 2 * i, &v, 2);
        } else {
            float v = as_float(kind, p);
            if (invert && c < colour) v = kind == Kind::U32 ? 1.0f - v : -v;
            std::memcpy(out + 4 * i, &v, 4);
        }
    };
    const bool separate = planar == PLANARCONFIG_SEPARATE && spp > 1;
    const int planes = separate ? spp : 1, per_pixel = separate ? 1 : spp;
    // The common case copies rows as they are: interleaved samples, all kept, stored as the image keeps them.
    const bool copy_rows =
        !separate && per_pixel == channels && !invert && (kind == Kind::U8 || kind == Kind::U16 || kind == Kind::F32);
    const std::size_t out_sample = std::size_t(depth / 8);
    // One tile's or strip's decoded bytes are bounded by what the kept image needs (a crafted file declares
    // 65536^2 tiles on a 16^2 image, or 60000 samples a pixel, and the buffer alone would be gigabytes).
    const std::uint64_t budget =
        std::max<std::uint64_t>(std::uint64_t(256) << 20, 4 * std::uint64_t(w) * h * channels * out_sample);
    auto check_buffer = [&](tmsize_t size, const std::string& what) {
        if (std::uint64_t(size) > budget)
            throw fail(what + " decodes to " + std::to_string(std::uint64_t(size) >> 20) + " MiB (" +
                       std::to_string(spp) + (spp == 1 ? " sample" : " samples") + " a pixel) for a " +
                       std::to_string(w) + "x" + std::to_string(h) + " image: more than its pixels need");
    };
    if (TIFFIsTiled(tif.get())) {
        std::uint32_t tw = 0, th = 0;
        TIFFGetField(tif.get(), TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif.get(), TIFFTAG_TILELENGTH, &th);
        const tmsize_t size = TIFFTileSize(tif.get());
        if (tw == 0 || th == 0 || size <= 0) throw fail("bad tile size");
        if (std::uint64_t(tw) * th * per_pixel * sb > std::uint64_t(size)) throw fail("tile smaller than its tags say");
        check_buffer(size, "a tile of " + std::to_string(tw) + "x" + std::to_string(th));
        std::vector<unsigned char> buf(static_cast<std::size_t>(size));
        for (int plane = 0; plane < planes; ++plane)
            for (std::uint32_t ty = 0; ty < h; ty += th)
                for (std::uint32_t tx = 0; tx < w; tx += tw) {
                    const ttile_t t = TIFFComputeTile(tif.get(), tx, ty, 0, tsample_t(plane));
                    if (TIFFReadEncodedTile(tif.get(), t, buf.data(), size) < 0)
                        throw fail("cannot decode tile " + std::to_string(t));
                    const std::uint32_t x1 = std::min(w, tx + tw), y1 = std::min(h, ty + th);
                    if (copy_rows) {
                        for (std::uint32_t y = ty; y < y1; ++y)
                            std::memcpy(out + (std::size_t(y) * w + tx) * channels * out_sample,
                                        buf.data() + std::size_t(y - ty) * tw * per_pixel * sb,
                                        std::size_t(x1 - tx) * channels * out_sample);
                        continue;
                    }
                    for (std::uint32_t y = ty; y < y1; ++y)
                        for (std::uint32_t x = tx; x < x1; ++x) {
                            const unsigned char* p =
                                buf.data() + (std::size_t(y - ty) * tw + (x - tx)) * per_pixel * sb;
                            if (separate) {
                                if (plane < channels) put(int(x), int(y), plane, p);
                            } else {
                                for (int c = 0; c < channels; ++c) put(int(x), int(y), c, p + std::size_t(c) * sb);
                            }
                        }
                }
    } else {
        std::uint32_t rows = 0;
        TIFFGetFieldDefaulted(tif.get(), TIFFTAG_ROWSPERSTRIP, &rows);
        rows = std::min(std::max<std::uint32_t>(rows, 1), h);
        const tmsize_t size = TIFFStripSize(tif.get());
        if (size <= 0) throw fail("bad strip size");
        const std::uint64_t row_bytes = std::uint64_t(w) * per_pixel * sb;
        if (row_bytes * rows > std::uint64_t(size)) throw fail("strip smaller than its tags say");
        check_buffer(size, "a strip of " + std::to_string(rows) + " rows");
        std::vector<unsigned char> buf(static_cast<std::size_t>(size));
        const tstrip_t per_plane = TIFFNumberOfStrips(tif.get()) / tstrip_t(planes);
        for (int plane = 0; plane < planes; ++plane)
            for (std::uint32_t y0 = 0; y0 < h; y0 += rows) {
                const tstrip_t s = tstrip_t(plane) * per_plane + y0 / rows;
                const tmsize_t got = TIFFReadEncodedStrip(tif.get(), s, buf.data(), size);
                const std::uint32_t n = std::min(rows, h - y0);
                if (got < 0 || std::uint64_t(got) < row_bytes * n)
                    throw fail("cannot decode strip " + std::to_string(s));
                if (copy_rows) {
                    std::memcpy(out + std::size_t(y0) * w * channels * out_sample, buf.data(),
                                std::size_t(n) * row_bytes);
                    continue;
                }
                for (std::uint32_t r = 0; r < n; ++r)
                    for (std::uint32_t x = 0; x < w; ++x) {
                        const unsigned char* p = buf.data() + r * row_bytes + std::size_t(x) * per_pixel * sb;
                        if (separate) {
                            if (plane < channels) put(int(x), int(y0 + r), plane, p);
                        } else {
                            for (int c = 0; c < channels; ++c) put(int(x), int(y0 + r), c, p + std::size_t(c) * sb);
                        }
                    }
            }
    }
    return img;
}

}  // namespace specview
