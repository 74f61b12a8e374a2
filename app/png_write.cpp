#include "app/png_write.h"

#include <png.h>
#include <zlib.h>
#include <unistd.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
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

// The libpng part, with nothing that has a destructor between setjmp and a longjmp out of libpng.
bool encode(std::FILE* file, const std::uint32_t* rgba, int w, int h, PngColor color, int level, unsigned char* row,
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
        // Fast: run-length matches only, on the row above's difference. A spectrum picture is mostly noise, where
        // LZ77 searches find little (a 4096^2 photo's spectrum: 143 ms, 12.4 MB, against 533 ms, 12.6 MB for
        // zlib level 2 with adaptive filters); smooth or dark areas still shrink.
        png_set_compression_strategy(png, Z_RLE);
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    } else {  // smallest: zlib's full search with libpng's adaptive filters
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS);
    }
    png_set_IHDR(png, info, png_uint_32(w), png_uint_32(h), color == PngColor::Gray16 ? 16 : 8,
                 color == PngColor::Rgb ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    for (int y = 0; y < h; ++y) {
        const std::uint32_t* src = rgba + std::size_t(y) * std::size_t(w);
        if (color == PngColor::Gray) {
            for (int x = 0; x < w; ++x) row[x] = static_cast<unsigned char>(src[x] & 0xFF);
        } else if (color == PngColor::Gray16) {  // big-endian samples
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
        png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return true;
}

}  // namespace

void write_picture_png(const std::string& path, const std::uint32_t* rgba, int width, int height, PngColor color,
                       int level) {
    if (width < 1 || height < 1 || !rgba) throw std::runtime_error(path + ": no picture to write");
    if (level < 0 || level > 9) throw std::runtime_error(path + ": PNG level must be 0..9");
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    std::FILE* file = std::fopen(tmp.c_str(), "wb");
    if (!file) throw std::runtime_error(path + ": cannot write (" + std::strerror(errno) + ")");
    std::vector<unsigned char> row(std::size_t(width) * (color == PngColor::Gray ? 1 : color == PngColor::Gray16 ? 2 : 3));
    Failure fail;
    const bool ok = encode(file, rgba, width, height, color, level, row.data(), &fail);
    const bool flushed = std::fflush(file) == 0;
    const int err = errno;
    const bool closed = std::fclose(file) == 0;
    std::error_code ec;
    if (!ok || !flushed || !closed) {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error(path + ": write failed (" + (ok ? std::string(std::strerror(err)) : fail.message) + ")");
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error(path + ": cannot move the finished file into place (" + ec.message() + ")");
    }
}

}  // namespace specview
