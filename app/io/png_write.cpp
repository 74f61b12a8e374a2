#include "app/io/png_write.h"

#include "app/core/huge_pages.h"

#include <png.h>
#include <zlib.h>
#include <unistd.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <thread>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace specview {
namespace {

struct Failure {
    std::jmp_buf jump;
    char message[256] = {};
};

void on_error(png_structp png, png_const_charp msg) {
    auto* f = static_cast<Failure*>(png_get_error_ptr(png));
    std::snprintf(f->message, sizeof f->message, "%s", msg);
    std::longjmp(f->jump, 1);
}
void on_warning(png_structp, png_const_charp) {}

// One row's samples as PNG bytes.
void row_bytes(const PicturePixels& p, int y, int w, PngColor color, unsigned char* row) {
    const std::size_t at = std::size_t(y) * std::size_t(w);
    if (p.levels) {
        const unsigned char* src = p.levels + at * std::size_t(p.level_bytes);
        if (p.level_bytes == 2) {
            const std::uint16_t* v = reinterpret_cast<const std::uint16_t*>(src);
            for (int x = 0; x < w; ++x) {
                row[2 * x] = static_cast<unsigned char>(v[x] >> 8);
                row[2 * x + 1] = static_cast<unsigned char>(v[x] & 0xFF);
            }
        } else if (color == PngColor::Rgb) {
            for (int x = 0; x < w; ++x) {
                const std::uint32_t c = p.lut[src[x]];
                row[3 * x] = static_cast<unsigned char>(c & 0xFF);
                row[3 * x + 1] = static_cast<unsigned char>((c >> 8) & 0xFF);
                row[3 * x + 2] = static_cast<unsigned char>((c >> 16) & 0xFF);
            }
        } else {
            std::memcpy(row, src, std::size_t(w));
        }
        return;
    }
    const std::uint32_t* src = p.rgba + at;
    if (color == PngColor::Gray) {
        for (int x = 0; x < w; ++x) row[x] = static_cast<unsigned char>(src[x] & 0xFF);
    } else if (color == PngColor::Gray16) {
        for (int x = 0; x < w; ++x) {
            row[2 * x] = static_cast<unsigned char>((src[x] >> 8) & 0xFF);
            row[2 * x + 1] = static_cast<unsigned char>(src[x] & 0xFF);
        }
    } else {
        for (int x = 0; x < w; ++x) {
            row[3 * x] = static_cast<unsigned char>(src[x] & 0xFF);
            row[3 * x + 1] = static_cast<unsigned char>((src[x] >> 8) & 0xFF);
            row[3 * x + 2] = static_cast<unsigned char>((src[x] >> 16) & 0xFF);
        }
    }
}

// The libpng part, with nothing that has a destructor between setjmp and a longjmp out of libpng.
bool encode(std::FILE* file, const PicturePixels& px, int w, int h, PngColor color, int level, unsigned char* row,
            Failure* fail) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, fail, on_error, on_warning);
    if (!png) {
        std::snprintf(fail->message, sizeof fail->message, "out of memory");
        return false;
    }
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(fail->jump)) {
        png_destroy_write_struct(&png, info ? &info : nullptr);
        return false;
    }
    png_init_io(png, file);
    png_set_compression_level(png, level);
    if (level == 0) {  // stored: filters would only cost time
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    } else if (level <= 3) {
        // Fast: run-length matches only, unfiltered. A spectrum picture is mostly noise, where LZ77 searches find
        // little (a 4096^2 photo's spectrum: 143 ms, 12.4 MB with the "up" filter against 533 ms, 12.6 MB for
        // zlib level 2 with adaptive filters; without a filter 11.3 MB, as fast); smooth or dark areas still shrink.
        png_set_compression_strategy(png, Z_RLE);
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    } else {
        // Smaller: zlib's full search, unfiltered. Coloured pictures repeat the colormap's 256 RGB triplets,
        // which LZ77 finds only in unfiltered rows (a 4096^2 photo's inferno spectrum at level 4: 19.7 MB
        // unfiltered, 31.3 MB on the "up" filter, 33.8 MB at level 1).
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    }
    png_set_IHDR(png, info, png_uint_32(w), png_uint_32(h), color == PngColor::Gray16 ? 16 : 8,
                 color == PngColor::Rgb ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    for (int y = 0; y < h; ++y) {
        row_bytes(px, y, w, color, row);
        png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return true;
}

// The fast levels on several threads, as pigz does for gzip: the rows in bands, each band filtered ("up") and
// deflated on its own (zlib's run-length strategy, raw deflate ended by a sync flush, the last one finished),
// the streams joined behind one zlib header with the bands' Adler-32s combined, one IDAT chunk a band. libpng
// has no parallel encoder; the PNG container around zlib is a few fixed chunks.
constexpr std::size_t kBandBytes = std::size_t(4) << 20;

void put32(std::vector<unsigned char>& o, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) o.push_back(static_cast<unsigned char>(v >> s));
}

bool write_chunk(std::FILE* f, const char* type, const unsigned char* data, std::size_t n) {
    std::vector<unsigned char> head;
    put32(head, std::uint32_t(n));
    head.insert(head.end(), type, type + 4);
    uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(type), 4);
    std::size_t done = 0;
    while (done < n) {  // crc32 takes uInt lengths
        const uInt len = uInt(std::min<std::size_t>(n - done, std::size_t(1) << 30));
        crc = crc32(crc, data + done, len);
        done += len;
    }
    std::vector<unsigned char> tail;
    put32(tail, std::uint32_t(crc));
    return std::fwrite(head.data(), 1, head.size(), f) == head.size() && (n == 0 || std::fwrite(data, 1, n, f) == n) &&
           std::fwrite(tail.data(), 1, tail.size(), f) == tail.size();
}

struct Band {
    ByteBuffer filtered, data;  // kept from wave to wave: the bands' pages are faulted in once
    std::size_t size = 0;       // of data: the raw deflate stream (2 bytes of zlib header room before it)
    uLong adler = 1;
    std::size_t raw_bytes = 0;
    bool ok = false;
};

// The band's rows filtered and deflated into b.data from byte 2 on (the zlib header goes there for the first band).
void deflate_band(const PicturePixels& px, int w, int y0, int y1, PngColor color, int level, bool last, Band& b) {
    b.ok = false;
    b.size = 0;
    const std::size_t rb = std::size_t(w) * (color == PngColor::Gray ? 1 : color == PngColor::Gray16 ? 2 : 3);
    const std::size_t raw = (rb + 1) * std::size_t(y1 - y0);
    unsigned char* filtered = b.filtered.reserve(raw);
    for (int y = y0; y < y1; ++y) {
        unsigned char* out = filtered + (rb + 1) * std::size_t(y - y0);
        out[0] = 0;  // no filter (spectra are noise: "up" made them 10% larger)
        row_bytes(px, y, w, color, out + 1);
    }
    b.raw_bytes = raw;
    b.adler = adler32_z(1L, filtered, raw);
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_RLE) != Z_OK) return;
    const std::size_t bound = deflateBound(&z, uLong(raw)) + 16;
    unsigned char* data = b.data.reserve(bound + 2 + 4);  // + the zlib header and the Adler-32 trailer
    z.next_in = filtered;
    z.avail_in = uInt(raw);
    z.next_out = data + 2;
    z.avail_out = uInt(bound);
    const int rc = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
    b.ok = last ? rc == Z_STREAM_END : (rc == Z_OK && z.avail_in == 0);
    b.size = bound - z.avail_out;
    deflateEnd(&z);
}

bool encode_parallel(std::FILE* f, const PicturePixels& px, int w, int h, PngColor color, int level, int threads,
                     Failure* fail) {
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    std::vector<unsigned char> ihdr;
    put32(ihdr, std::uint32_t(w));
    put32(ihdr, std::uint32_t(h));
    ihdr.push_back(color == PngColor::Gray16 ? 16 : 8);
    ihdr.push_back(color == PngColor::Rgb ? 2 : 0);
    ihdr.push_back(0);
    ihdr.push_back(0);
    ihdr.push_back(0);
    if (std::fwrite(signature, 1, 8, f) != 8 || !write_chunk(f, "IHDR", ihdr.data(), ihdr.size())) {
        std::snprintf(fail->message, sizeof fail->message, "%s", std::strerror(errno));
        return false;
    }
    const std::size_t rb = std::size_t(w) * (color == PngColor::Gray ? 1 : color == PngColor::Gray16 ? 2 : 3) + 1;
    const int rows = int(std::max<std::size_t>(1, kBandBytes / rb));
    const int bands = (h + rows - 1) / rows;
    uLong adler = 1;
    bool first = true;
    // Waves of `threads` bands: at most that many compressed bands in memory, their buffers reused wave to wave.
    std::vector<Band> out(static_cast<std::size_t>(std::min(threads, bands)));
    for (int b0 = 0; b0 < bands; b0 += threads) {
        const int n = std::min(threads, bands - b0);
        std::vector<std::thread> ts;
        for (int k = 0; k < n; ++k) {
            const int band = b0 + k, y0 = band * rows, y1 = std::min(h, y0 + rows);
            ts.emplace_back([&, k, y0, y1, band] {
                try {
                    deflate_band(px, w, y0, y1, color, level, band == bands - 1, out[std::size_t(k)]);
                } catch (const std::bad_alloc&) {
                    out[std::size_t(k)].ok = false;
                }
            });
        }
        for (auto& t : ts) t.join();
        for (int k = 0; k < n; ++k) {
            Band& b = out[std::size_t(k)];
            if (!b.ok) {
                std::snprintf(fail->message, sizeof fail->message, "deflate failed");
                return false;
            }
            adler = adler32_combine(adler, b.adler, z_off_t(b.raw_bytes));
            unsigned char* chunk = b.data.data() + 2;
            std::size_t size = b.size;
            if (first) {  // zlib header: deflate, 32 KiB window
                chunk -= 2;
                chunk[0] = 0x78;
                chunk[1] = 0x01;
                size += 2;
            }
            first = false;
            if (b0 + k == bands - 1) {
                for (int s = 24; s >= 0; s -= 8) chunk[size++] = static_cast<unsigned char>(adler >> s);
            }
            if (!write_chunk(f, "IDAT", chunk, size)) {
                std::snprintf(fail->message, sizeof fail->message, "%s", std::strerror(errno));
                return false;
            }
        }
    }
    if (!write_chunk(f, "IEND", nullptr, 0)) {
        std::snprintf(fail->message, sizeof fail->message, "%s", std::strerror(errno));
        return false;
    }
    return true;
}

}  // namespace

void write_picture_png(const std::string& path, const PicturePixels& px, int width, int height, PngColor color,
                       int level, int threads) {
    if (width < 1 || height < 1 || !(px.rgba || px.levels)) throw std::runtime_error(path + ": no picture to write");
    if (px.levels && !((px.level_bytes == 1 && color != PngColor::Gray16 && (color == PngColor::Gray || px.lut)) ||
                       (px.level_bytes == 2 && color == PngColor::Gray16)))
        throw std::runtime_error(path + ": these levels cannot be written as this PNG colour type");
    if (level < 0 || level > 9) throw std::runtime_error(path + ": PNG level must be 0..9");
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    std::FILE* file = std::fopen(tmp.c_str(), "wb");
    if (!file) throw std::runtime_error(path + ": cannot write (" + std::strerror(errno) + ")");
    std::vector<unsigned char> row(std::size_t(width) * (color == PngColor::Gray     ? 1
                                                         : color == PngColor::Gray16 ? 2
                                                                                     : 3));
    Failure fail;
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    // The fast levels of a picture of more than one band go to the parallel encoder.
    const std::size_t row_bytes_ = std::size_t(width) * (color == PngColor::Gray     ? 1
                                                         : color == PngColor::Gray16 ? 2
                                                                                     : 3) +
                                   1;
    const bool parallel = level >= 1 && level <= 3 && threads > 1 && row_bytes_ * std::size_t(height) > kBandBytes;
    const bool ok = parallel ? encode_parallel(file, px, width, height, color, level, threads, &fail)
                             : encode(file, px, width, height, color, level, row.data(), &fail);
    const bool flushed = std::fflush(file) == 0;
    const int err = errno;
    const bool closed = std::fclose(file) == 0;
    std::error_code ec;
    if (!ok || !flushed || !closed) {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error(path + ": write failed (" + (ok ? std::string(std::strerror(err)) : fail.message) +
                                 ")");
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error(path + ": cannot move the finished file into place (" + ec.message() + ")");
    }
}

}  // namespace specview
