// Image files -> Image: format sniffing, the container checks stb lacks, each format's decoder, a stack's frames
// one by one; every failure an InputError that names the file and the reason. In this process for trusted inputs
// (tests, generated assets) and inside the sandboxed decoder process (app/io/decoder_pool.h) for everything else.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/core/image.h"

namespace specview {

struct LoadLimits {
    int max_side = 16384;                              // pixels, each dimension
    std::uint64_t max_pixels = 16384ull * 16384ull;    // width * height
    std::uint64_t max_file_bytes = 2ull << 30;         // 2 GiB
    std::uint64_t max_stack_file_bytes = 16ull << 30;  // a stack's file (TIFF, .npy); the decoder holds it whole
    // Refuse an image whose decode + spectrum buffers (about 48 bytes a padded pixel) would not fit in the
    // machine's available memory. Tests switch this off to make the check deterministic.
    bool check_available_memory = true;
    // Which frame of a stack to decode (0-based): a page of a multi-page TIFF, a frame of a 3D .npy array.
    int frame = 0;
};

// Throws InputError for anything that is not a complete, decodable image within the limits.
// In this process: for trusted inputs (tests, generated assets) and inside the decoder process itself. Untrusted
// files go through app/io/decoder_pool.h.
Image load_image(const std::string& path, const LoadLimits& limits = {}, const HeaderCheck& check = {});
Image decode_image(ByteView bytes, const std::string& name, const LoadLimits& limits = {},
                   const HeaderCheck& check = {});

// Frames of one file in memory, decoded one by one (a multi-page TIFF is opened and its pages counted once; a
// stream of frames costs no re-parse). `bytes` must outlive the reader. Single-image formats have frame 0 only.
// The format a file name's extension claims ("PNG", "TIFF", ".npy", "video", ...; "" when it names none we read).
std::string format_named_by(const std::string& name);

class FrameReader {
public:
    // `named_format`: what the file's name claims (format_named_by), said when the bytes turn out to be no such
    // file; empty: taken from `name`.
    FrameReader(ByteView bytes, std::string name, const LoadLimits& limits, std::string named_format = {});
    ~FrameReader();
    FrameReader(const FrameReader&) = delete;
    FrameReader& operator=(const FrameReader&) = delete;
    const std::string& format() const;
    // Throws InputError like decode_image; the image says how many frames the file has (Image::frames).
    Image decode(int frame, const HeaderCheck& check = {});

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The rough host-memory estimate (decode buffers + a padded spectrum) against MemAvailable; throws InputError.
void check_memory_estimate(const ImageHeader& header, const std::string& name);
std::uint64_t available_memory_bytes();  // MemAvailable
std::string human_bytes(double bytes);

// File extensions a directory scan picks up (lower case, with the dot), and whether a path has one of them.
const std::vector<std::string>& image_extensions();
bool has_image_extension(const std::string& path);
}  // namespace specview
