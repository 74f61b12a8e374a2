// Index of this file (grep "[SECTION]"):
// - Sniffing the format and the container checks stb lacks
// - Limits, the memory estimate, stb's images
// - One image, a stack's frames (FrameReader), the public entries
#include "app/io/load/load.h"

#include "app/io/load/gif_decode.h"
#include "app/io/load/jpeg_decode.h"
#include "app/io/load/png_decode.h"
#include "app/io/load/npy_decode.h"
#include "app/io/load/psd_decode.h"
#include "app/io/load/tiff_decode.h"
#include "app/io/load/video_decode.h"

#include <stb_image.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <unistd.h>

namespace specview {

// What the "not a readable image" messages list.
constexpr const char* kSupportedFormats =
    "PNG, JPEG, TIFF, .npy, GIF, video (MP4, MOV, MKV, WebM, AVI), PSD, BMP, TGA, HDR, PNM";
namespace fs = std::filesystem;

std::uint64_t available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:") return kb * 1024ull;
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : ~0ull;
}

namespace {

std::uint64_t next_pow2(std::uint64_t v) {
    std::uint64_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

// ---- Container checks stb does not make: stb reads past the end of a truncated raw BMP/TGA/PNM/PSD/GIF as
// zeros and returns an image, which would be silent garbage. Each check walks just enough of the format to
// know how many bytes a complete file holds.
struct Reader {
    ByteView b;
    std::size_t size() const { return b.size(); }
    unsigned u8(std::size_t o) const { return o < b.size() ? b[o] : 0u; }
    unsigned le16(std::size_t o) const { return u8(o) | (u8(o + 1) << 8); }
    std::uint32_t le32(std::size_t o) const { return le16(o) | (std::uint32_t(le16(o + 2)) << 16); }
    unsigned be16(std::size_t o) const { return (u8(o) << 8) | u8(o + 1); }
    std::uint32_t be32(std::size_t o) const { return (std::uint32_t(be16(o)) << 16) | be16(o + 2); }
};

}  // namespace

// [SECTION] Sniffing the format and the container checks stb lacks
bool is_video(ByteView b) {
    if (b.size() < 12) return false;
    if (std::memcmp(b.data() + 4, "ftyp", 4) == 0) return true;                     // MP4, MOV, 3GP
    if (b[0] == 0x1A && b[1] == 0x45 && b[2] == 0xDF && b[3] == 0xA3) return true;  // Matroska, WebM
    if (std::memcmp(b.data(), "RIFF", 4) == 0 && std::memcmp(b.data() + 8, "AVI ", 4) == 0) return true;
    return false;
}

namespace {

bool starts_with(ByteView b, const char* magic) {
    std::size_t n = std::strlen(magic);
    return b.size() >= n && std::memcmp(b.data(), magic, n) == 0;
}

std::string sniff_format(ByteView b) {
    if (b.size() >= 8 && b[0] == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') return "png";
    // JPEG: stb takes any run of 0xFF fill bytes before the SOI marker as one, so everything that starts that way
    // is JPEG here (and goes to libjpeg-turbo, which refuses the fill), never to stb's JPEG decoder.
    if (!b.empty() && b[0] == 0xFF) {
        std::size_t i = 1;
        while (i < b.size() && b[i] == 0xFF) ++i;
        if (i < b.size() && b[i] == 0xD8) return "jpeg";
    }
    if (starts_with(b, "BM")) return "bmp";
    if (starts_with(b, "GIF8")) return "gif";
    if (starts_with(b, "8BPS")) return "psd";
    if (is_tiff(b)) return "tiff";
    if (is_npy(b)) return "npy";
    if (is_video(b)) return "video";
    if (starts_with(b, "#?RADIANCE") || starts_with(b, "#?RGBE")) return "hdr";
    if (b.size() >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6')) return "pnm";
    return "tga";  // the only format stb accepts without a magic number
}

// Returns an error message, or "" when the container is complete as far as the check can tell.
std::string check_bmp(const Reader& r) {
    if (r.size() < 34) return "truncated BMP header";
    std::uint64_t off = r.le32(10);
    std::int64_t w = std::int32_t(r.le32(18)), h = std::int32_t(r.le32(22));
    unsigned bpp = r.le16(28), comp = r.le32(30);
    if (comp != 0 && comp != 3 && comp != 6) return "";  // RLE: stb validates the stream itself
    std::uint64_t stride = ((std::uint64_t(bpp) * std::uint64_t(std::llabs(w)) + 31) / 32) * 4;
    std::uint64_t need = off + stride * std::uint64_t(std::llabs(h));
    if (r.size() < need)
        return "truncated BMP: pixel data needs " + std::to_string(need) + " bytes, file has " +
               std::to_string(r.size());
    return "";
}

std::string check_tga(const Reader& r) {
    if (r.size() < 18) return "truncated TGA header";
    unsigned id_len = r.u8(0), cmap_type = r.u8(1), type = r.u8(2);
    unsigned cmap_len = r.le16(5), cmap_bits = r.u8(7);
    std::uint64_t w = r.le16(12), h = r.le16(14);
    unsigned bytes_pp = (r.u8(16) + 7) / 8;
    std::uint64_t pos = 18 + id_len + (cmap_type ? cmap_len * ((cmap_bits + 7) / 8) : 0);
    std::uint64_t pixels = w * h;
    if (type == 1 || type == 2 || type == 3) {
        if (r.size() < pos + pixels * bytes_pp) return "truncated TGA: pixel data incomplete";
        return "";
    }
    if (type == 9 || type == 10 || type == 11) {
        for (std::uint64_t done = 0; done < pixels;) {
            if (pos >= r.size()) return "truncated TGA: run-length data ends early";
            unsigned head = r.u8(pos++);
            std::uint64_t count = (head & 0x7F) + 1;
            pos += (head & 0x80) ? bytes_pp : count * bytes_pp;
            done += count;
        }
        if (pos > r.size()) return "truncated TGA: run-length data ends early";
    }
    return "";
}

std::string check_pnm(const Reader& r) {
    std::size_t p = 2;
    std::uint64_t v[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        for (;;) {  // whitespace and comments
            while (p < r.size() && std::isspace(r.u8(p))) ++p;
            if (p < r.size() && r.u8(p) == '#') {  // to the end of the line, '\r' or '\n', exactly as stb reads it
                while (p < r.size() && r.u8(p) != '\n' && r.u8(p) != '\r') ++p;
            } else {
                break;
            }
        }
        if (p >= r.size() || !std::isdigit(r.u8(p))) return "corrupt PNM header";
        // stb accumulates the digits in an int: a number over INT_MAX is undefined behaviour there (found by
        // fuzz_image), and no real header has one.
        while (p < r.size() && std::isdigit(r.u8(p))) {
            v[i] = v[i] * 10 + (r.u8(p++) - '0');
            if (v[i] > 2147483647u) return "corrupt PNM header: a number over 2147483647";
        }
    }
    ++p;  // the single whitespace byte before the raster
    unsigned ch = r.u8(1) == '6' ? 3 : 1;
    std::uint64_t need = p + v[0] * v[1] * ch * (v[2] > 255 ? 2 : 1);
    if (r.size() < need) return "truncated PNM: raster incomplete";
    return "";
}

std::string check_psd(const Reader& r) {
    if (r.size() < 26) return "truncated PSD header";
    std::uint64_t ch = r.be16(12), h = r.be32(14), w = r.be32(18), depth = r.be16(22);
    std::uint64_t pos = 26;
    for (int section = 0; section < 3; ++section) {  // colour mode data, image resources, layers
        if (pos + 4 > r.size()) return "truncated PSD: sections incomplete";
        pos += 4 + std::uint64_t(r.be32(pos));
    }
    if (pos + 2 > r.size()) return "truncated PSD: no image data";
    unsigned comp = r.be16(pos);
    pos += 2;
    if (comp == 0) {
        if (r.size() < pos + ch * h * w * (depth / 8)) return "truncated PSD: raw image data incomplete";
    } else if (comp == 1) {
        std::uint64_t rows = ch * h, sum = 0;
        if (r.size() < pos + rows * 2) return "truncated PSD: row-length table incomplete";
        for (std::uint64_t i = 0; i < rows; ++i) sum += r.be16(pos + 2 * i);
        if (r.size() < pos + rows * 2 + sum) return "truncated PSD: run-length data incomplete";
    }
    return "";
}

std::string skip_gif_subblocks(const Reader& r, std::size_t& pos) {
    for (;;) {
        if (pos >= r.size()) return "truncated GIF: data blocks end early";
        unsigned n = r.u8(pos++);
        if (n == 0) return "";
        pos += n;
    }
}

std::string check_gif(const Reader& r) {
    if (r.size() < 13) return "truncated GIF header";
    std::size_t pos = 13;
    unsigned flags = r.u8(10);
    if (flags & 0x80) pos += 3u * (1u << ((flags & 7) + 1));
    for (;;) {
        if (pos >= r.size()) return "truncated GIF: no image";
        unsigned tag = r.u8(pos++);
        if (tag == 0x21) {  // extension
            ++pos;
            if (auto e = skip_gif_subblocks(r, pos); !e.empty()) return e;
        } else if (tag == 0x2C) {  // first image: descriptor, local palette, LZW data
            if (pos + 9 > r.size()) return "truncated GIF: image descriptor";
            unsigned lflags = r.u8(pos + 8);
            pos += 9;
            if (lflags & 0x80) pos += 3u * (1u << ((lflags & 7) + 1));
            ++pos;  // LZW minimum code size
            return skip_gif_subblocks(r, pos);
        } else {
            return "corrupt GIF: unexpected block";
        }
    }
}

// How many images a GIF holds: its image descriptors up to the trailer or the end (the walk stops at what it
// cannot skip; check_gif has refused the broken ones before).
int gif_frame_count(const Reader& r) {
    if (r.size() < 13) return 0;
    std::size_t pos = 13;
    const unsigned flags = r.u8(10);
    if (flags & 0x80) pos += 3u * (1u << ((flags & 7) + 1));
    int count = 0;
    while (pos < r.size()) {
        const unsigned tag = r.u8(pos++);
        if (tag == 0x3B) break;  // trailer
        if (tag == 0x21) {
            ++pos;
            if (!skip_gif_subblocks(r, pos).empty()) break;
        } else if (tag == 0x2C) {
            if (pos + 9 > r.size()) break;
            const unsigned lflags = r.u8(pos + 8);
            pos += 9;
            if (lflags & 0x80) pos += 3u * (1u << ((lflags & 7) + 1));
            ++pos;
            if (!skip_gif_subblocks(r, pos).empty()) break;
            if (++count >= 100000) break;
        } else {
            break;
        }
    }
    return count;
}

std::string check_jpeg(const Reader& r) {
    // Walk the marker segments up to the first scan (skipping EXIF thumbnails, which have their own EOI),
    // then require an end-of-image marker after it: stb fills a cut-off scan with zeros silently.
    std::size_t pos = 2;
    while (pos + 4 <= r.size()) {
        if (r.u8(pos) != 0xFF) return "corrupt JPEG: bad marker";
        unsigned m = r.u8(pos + 1);
        if (m == 0xFF) {
            ++pos;
            continue;
        }
        if (m == 0xDA) {
            for (std::size_t i = pos + 2; i + 1 < r.size(); ++i)
                if (r.u8(i) == 0xFF && r.u8(i + 1) == 0xD9) return "";
            return "truncated JPEG: no end-of-image marker after the scan data";
        }
        pos += 2 + r.be16(pos + 2);
    }
    return "truncated JPEG: ends before the scan data";
}

std::string check_hdr(const Reader& r) {
    // Radiance RGBE: text header ending in an empty line, a resolution line, then one record per scanline,
    // flat (4 bytes a pixel) or new-style run-length per channel. stb loops forever on some truncated files,
    // so the whole stream is walked before stb sees it.
    std::size_t pos = 0;
    auto line = [&](std::string* out) {
        out->clear();
        while (pos < r.size() && r.u8(pos) != '\n') out->push_back(char(r.u8(pos++)));
        if (pos >= r.size()) return false;
        ++pos;
        return true;
    };
    std::string l;
    do {
        if (!line(&l)) return "truncated HDR header";
    } while (!l.empty());
    if (!line(&l)) return "truncated HDR: no resolution line";
    char ys[3] = {0}, xs[3] = {0};
    long h = 0, w = 0;
    if (std::sscanf(l.c_str(), "%2s %ld %2s %ld", ys, &h, xs, &w) != 4 || h <= 0 || w <= 0)
        return "corrupt HDR resolution line";
    for (long y = 0; y < h; ++y) {
        if (pos + 4 > r.size()) return "truncated HDR: scanlines missing";
        const bool rle = w >= 8 && w < 32768 && r.u8(pos) == 2 && r.u8(pos + 1) == 2 && !(r.u8(pos + 2) & 0x80);
        if (!rle) {
            pos += std::size_t(w) * 4;
            continue;
        }
        if (long((r.u8(pos + 2) << 8) | r.u8(pos + 3)) != w) return "corrupt HDR: scanline width mismatch";
        pos += 4;
        for (int c = 0; c < 4; ++c)
            for (long x = 0; x < w;) {
                if (pos >= r.size()) return "truncated HDR: run-length data ends early";
                unsigned count = r.u8(pos++);
                if (count > 128) {
                    count -= 128;
                    ++pos;
                } else {
                    if (count == 0) return "corrupt HDR: empty run";
                    pos += count;
                }
                x += count;
                if (x > w) return "corrupt HDR: run crosses the scanline";
            }
    }
    if (pos > r.size()) return "truncated HDR: pixel data incomplete";
    return "";
}

std::string check_png(const Reader& r) {
    // Every chunk up to IEND must lie inside the file: stb grows its buffer to a chunk's declared length before it
    // reads it (2 GiB for a 273-byte file, found by fuzz_image), and fails on such a file anyway.
    std::size_t pos = 8;
    while (pos + 12 <= r.size()) {
        const std::size_t n = r.be32(pos);
        if (n > r.size() - pos - 12)
            return "truncated PNG: a chunk of " + std::to_string(n) + " bytes runs past the end of the file";
        if (r.u8(pos + 4) == 'I' && r.u8(pos + 5) == 'E' && r.u8(pos + 6) == 'N' && r.u8(pos + 7) == 'D') return "";
        pos += 12 + n;
    }
    return "truncated PNG: no end chunk";
}

std::string check_container(const std::string& fmt, ByteView bytes) {
    Reader r{bytes};
    if (fmt == "bmp") return check_bmp(r);
    if (fmt == "tga") return check_tga(r);
    if (fmt == "pnm") return check_pnm(r);
    if (fmt == "psd") return check_psd(r);
    if (fmt == "gif") return check_gif(r);
    if (fmt == "jpeg") return check_jpeg(r);
    if (fmt == "hdr") return check_hdr(r);
    if (fmt == "png") return check_png(r);
    return "";
}

struct StbFree {
    void operator()(void* p) const { stbi_image_free(p); }
};

// stb_image 2.27 (Debian 12's) reads 16-bit PNM samples little-endian, though the format is big-endian, and
// its PSD 16-bit probe never succeeds (it skips nothing before reading the depth). Rather than assume the
// version, ask this stb once how it decodes a 16-bit PNM whose one sample is 0x0102.
bool stb_swaps_pnm16() {
    static const bool swaps = [] {
        static const unsigned char pgm[] = {'P', '5', '\n', '1', ' ',  '1',  '\n', '6',
                                            '5', '5', '3',  '5', '\n', 0x01, 0x02};
        int w = 0, h = 0, c = 0;
        std::unique_ptr<stbi_us, StbFree> p(stbi_load_16_from_memory(pgm, sizeof(pgm), &w, &h, &c, 0));
        return p && p.get()[0] == 0x0201;
    }();
    return swaps;
}

}  // namespace

// [SECTION] Limits, the memory estimate, stb's images
const std::vector<std::string>& image_extensions() {
    static const std::vector<std::string> known = {".png", ".jpg", ".jpeg", ".bmp", ".tga", ".gif",  ".psd",
                                                   ".hdr", ".pnm", ".pgm",  ".ppm", ".pic", ".tif",  ".tiff",
                                                   ".npy", ".mp4", ".mov",  ".m4v", ".mkv", ".webm", ".avi"};
    return known;
}

bool has_image_extension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    const auto& known = image_extensions();
    return std::find(known.begin(), known.end(), ext) != known.end();
}

namespace {
// stb's failure reason, when it is one: a word or two of printable ASCII (after some failures it is left pointing
// at garbage).
std::string stb_reason() {
    const char* why = stbi_failure_reason();
    if (!why || !*why) return "corrupt data";
    std::string r;
    for (const char* p = why; *p && r.size() < 64; ++p) {
        if (*p < 0x20 || *p > 0x7E) return "corrupt data";
        r += *p;
    }
    return r;
}

}  // namespace

void check_memory_estimate(const ImageHeader& hd, const std::string& name) {
    const int w = hd.width, h = hd.height;
    double px = double(w) * double(h);
    double need = px * hd.channels * 6.0 + double(next_pow2(w)) * double(next_pow2(h)) * 48.0;
    double avail = double(available_memory_bytes());
    if (need > avail)
        throw InputError(name, "image is " + std::to_string(w) + "x" + std::to_string(h) + " and would need " +
                                   human_bytes(need) + " of memory; " + human_bytes(avail) + " is available");
}

std::string human_bytes(double b) {
    const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024.0 && u < 4) {
        b /= 1024.0;
        ++u;
    }
    std::ostringstream s;
    s.precision(u ? 1 : 0);
    s << std::fixed << b << ' ' << unit[u];
    return s.str();
}

namespace {
// An Image over a buffer stb allocated (freed by stb when the last copy goes).
template <class T>
Image adopt_stb(T* p, int w, int h, int ch, int depth, const std::string& format) {
    Image img;
    img.width = w;
    img.height = h;
    img.channels = ch;
    img.bit_depth = depth;
    img.format = format;
    img.storage = std::shared_ptr<const unsigned char>(
        reinterpret_cast<const unsigned char*>(p),
        [](const unsigned char* q) { stbi_image_free(const_cast<unsigned char*>(q)); });
    return img;
}
}  // namespace

namespace {
// The size limits, the memory estimate and the caller's check, before any pixel is decoded.
void check_header(const ImageHeader& hd, const std::string& name, const LoadLimits& lim,
                  const HeaderCheck& header_check) {
    {
        const int w = hd.width, h = hd.height;
        if (w <= 0 || h <= 0) throw InputError(name, "image has zero width or height");
        if (w > lim.max_side || h > lim.max_side || std::uint64_t(w) * std::uint64_t(h) > lim.max_pixels)
            throw InputError(name, "image is " + std::to_string(w) + "x" + std::to_string(h) + ", over the limit of " +
                                       std::to_string(lim.max_side) + " pixels a side");
        if (hd.channels < 1 || hd.channels > 4)
            throw InputError(name, "unsupported channel count " + std::to_string(hd.channels));
        if (lim.check_available_memory) check_memory_estimate(hd, name);
        if (header_check) {
            try {
                header_check(hd);
            } catch (const InputError& e) {  // a check that does not know the file's name gets it here
                if (!e.path().empty()) throw;
                throw InputError(name, e.reason());
            }
        }
    }
}

// [SECTION] One image, a stack's frames (FrameReader), the public entries
// Every format but the stacks (TIFF, .npy): one image a file.
Image decode_single(ByteView bytes, const std::string& name, const LoadLimits& lim, const HeaderCheck& header_check,
                    const std::string& format) {
    if (lim.frame != 0)
        throw InputError(name, "no frame " + std::to_string(lim.frame + 1) + ": a " + format + " file holds one image");
    auto check_size = [&](const ImageHeader& hd) { check_header(hd, name, lim, header_check); };
    // JPEG never reaches stb (see app/io/load/jpeg_decode.h): libjpeg-turbo reads the header and the pixels.
    if (format == "jpeg") {
        if (std::string e = check_container("jpeg", bytes); !e.empty()) throw InputError(name, e);
        return decode_jpeg(bytes, name, [&](const JpegInfo& info) {
            check_size(ImageHeader{info.width, info.height, info.channels, 8, "jpeg"});
        });
    }

    const auto* data = bytes.data();
    const int len = static_cast<int>(bytes.size());

    // The container walkers before stb parses anything (stbi_info parses headers too: the PNM number overflow).
    if (std::string e = check_container(format, bytes); !e.empty()) throw InputError(name, e);

    // Nor do PNG (app/io/load/png_decode.h) and PSD (app/io/load/psd_decode.h).
    if (format == "png") return decode_png(bytes, name, check_size);
    if (format == "psd") return decode_psd(bytes, name, check_size);
    if (bytes.size() > static_cast<std::size_t>(INT32_MAX))  // stb takes an int length
        throw InputError(name, "file too large for the decoder (" + human_bytes(double(bytes.size())) + ")");

    int w = 0, h = 0, comp = 0;
    if (!stbi_info_from_memory(data, len, &w, &h, &comp)) {
        throw InputError(name,
                         std::string("not a readable image (") + stb_reason() + "); supported: " + kSupportedFormats);
    }
    const bool hdr = stbi_is_hdr_from_memory(data, len);
    const bool wide = !hdr && stbi_is_16_bit_from_memory(data, len);
    check_size(ImageHeader{w, h, comp, hdr ? 32 : wide ? 16 : 8, format});

    int ch = 0;
    const int want_w = w, want_h = h;
    Image img;
    if (hdr) {
        float* p = stbi_loadf_from_memory(data, len, &w, &h, &ch, 0);
        if (!p) throw InputError(name, std::string("cannot decode HDR: ") + stb_reason());
        img = adopt_stb(p, w, h, ch, 32, format);
        replace_nonfinite(img);
    } else if (wide) {
        stbi_us* p = stbi_load_16_from_memory(data, len, &w, &h, &ch, 0);
        if (!p) throw InputError(name, "cannot decode " + format + ": " + stb_reason());
        img = adopt_stb(p, w, h, ch, 16, format);
        if (format == "pnm" && stb_swaps_pnm16())
            for (std::size_t i = 0, n = std::size_t(w) * h * ch; i < n; ++i) p[i] = stbi_us((p[i] << 8) | (p[i] >> 8));
    } else {
        stbi_uc* p = stbi_load_from_memory(data, len, &w, &h, &ch, 0);
        if (!p) throw InputError(name, "cannot decode " + format + ": " + stb_reason());
        img = adopt_stb(p, w, h, ch, 8, format);
    }
    if (ch < 1 || ch > 4) throw InputError(name, "unsupported channel count " + std::to_string(ch));
    if (w != want_w || h != want_h) throw InputError(name, "decoded size differs from the header's");
    return img;
}
}  // namespace

struct FrameReader::Impl {
    ByteView bytes;
    std::string name;
    LoadLimits lim;
    std::string format;
    std::string named;  // the format the file's name claims
    std::unique_ptr<TiffStack> tiff;
    std::unique_ptr<VideoStack> video;
    std::unique_ptr<GifStack> gif;  // an animated GIF (one of several images); single ones go to stb
    int gif_images = -1;
};

std::string format_named_by(const std::string& name) {
    std::string ext = fs::path(name).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    static const std::pair<const char*, const char*> kNames[] = {
        {".png", "PNG"},   {".jpg", "JPEG"},  {".jpeg", "JPEG"}, {".tif", "TIFF"},  {".tiff", "TIFF"},
        {".npy", ".npy"},  {".bmp", "BMP"},   {".gif", "GIF"},   {".psd", "PSD"},   {".hdr", "HDR"},
        {".pgm", "PNM"},   {".ppm", "PNM"},   {".pnm", "PNM"},   {".tga", "TGA"},   {".mp4", "video"},
        {".mkv", "video"}, {".avi", "video"}, {".mov", "video"}, {".webm", "video"}};
    for (const auto& [e, n] : kNames)
        if (ext == e) return n;
    return "";
}

FrameReader::FrameReader(ByteView bytes, std::string name, const LoadLimits& lim, std::string named_format)
    : impl_(new Impl{bytes, std::move(name), lim, {}, std::move(named_format), nullptr, nullptr, nullptr, -1}) {
    if (bytes.empty()) throw InputError(impl_->name, "empty file");
    impl_->format = sniff_format(bytes);
    if (impl_->named.empty()) impl_->named = format_named_by(impl_->name);
}

FrameReader::~FrameReader() = default;

const std::string& FrameReader::format() const { return impl_->format; }

Image FrameReader::decode(int frame, const HeaderCheck& header_check) {
    Impl& m = *impl_;
    LoadLimits lim = m.lim;
    lim.frame = frame;
    if (m.format == "gif" && m.gif_images < 0) {
        if (std::string e = check_container("gif", m.bytes); !e.empty()) throw InputError(m.name, e);
        m.gif_images = gif_frame_count(Reader{m.bytes});
    }
    const bool animated = m.format == "gif" && m.gif_images > 1;
    if (m.format == "tga") {
        // TGA is what a file without any known signature is taken for: when its name says another format, say
        // that first (a "TIFF" that is not one should not be told about TGA headers alone).
        // A file named as no format at all, or as another one, that is no TGA either: no known signature (stb's
        // reading of it as a TGA header would only confuse).
        try {
            return decode_single(m.bytes, m.name, lim, header_check, m.format);
        } catch (const InputError&) {
            if (m.named == "TGA") throw;
            const std::string claim = m.named.empty() ? ""
                                                      : "; its name says " + m.named + ", but it is not a " + m.named +
                                                            " file: it does not start as one does";
            throw InputError(m.name,
                             "not a readable image (no known signature" + claim + "); supported: " + kSupportedFormats);
        }
    }
    if (m.format != "tiff" && m.format != "npy" && m.format != "video" && !animated)
        return decode_single(m.bytes, m.name, lim, header_check, m.format);
    // TIFF (libtiff, one open file for every page) and .npy: stacks; float data's non-finite samples replaced.
    auto check_size = [&](const ImageHeader& hd) { check_header(hd, m.name, lim, header_check); };
    int frames = 1;
    Image img;
    double rate = 0;
    if (m.format == "tiff") {
        if (!m.tiff) m.tiff = std::make_unique<TiffStack>(m.bytes, m.name);
        img = m.tiff->decode(frame, check_size);
        frames = m.tiff->pages();
    } else if (animated) {
        if (!m.gif) m.gif = std::make_unique<GifStack>(m.bytes, m.name, m.lim.max_pixels);
        img = m.gif->decode(frame, check_size);
        frames = m.gif->frames();
        rate = m.gif->frame_rate();
    } else if (m.format == "video") {
        if (!m.video) m.video = std::make_unique<VideoStack>(m.bytes, m.name);
        img = m.video->decode(frame, check_size);
        frames = m.video->frames();
        rate = m.video->frame_rate();
    } else {
        img = decode_npy(m.bytes, m.name, frame, check_size, &frames);
    }
    img.frames = frames;
    img.frame = frame;
    img.frame_rate = rate;
    replace_nonfinite(img);
    return img;
}

Image decode_image(ByteView bytes, const std::string& name, const LoadLimits& lim, const HeaderCheck& header_check) {
    FrameReader reader(bytes, name, lim);
    return reader.decode(lim.frame, header_check);
}

Image load_image(const std::string& path, const LoadLimits& lim, const HeaderCheck& check) {
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw InputError(path, "no such file");
    if (fs::is_directory(st)) throw InputError(path, "is a directory, not an image file");
    if (!fs::is_regular_file(st)) throw InputError(path, "not a regular file");
    auto size = fs::file_size(path, ec);
    if (ec) throw InputError(path, "cannot read size: " + ec.message());
    if (size == 0) throw InputError(path, "empty file");
    if (size > lim.max_file_bytes)
        throw InputError(path, "file is " + human_bytes(double(size)) + ", over the limit of " +
                                   human_bytes(double(lim.max_file_bytes)));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
    std::vector<unsigned char> bytes(size);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
    if (static_cast<std::uint64_t>(in.gcount()) != size)
        throw InputError(path, "read error (file changed while reading?)");
    return decode_image(bytes, path, lim, check);
}

}  // namespace specview
