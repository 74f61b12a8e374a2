// Spectra as a video (--export-video): RGBA8 pictures encoded through FFmpeg's libraries (H.264 through libx264
// when Debian's libavcodec has it, else MPEG-4 Part 2), yuv420p, in the container the file name says (MP4,
// Matroska, AVI). Odd sizes are padded by one row or column (repeating the edge). Built with SPECVIEW_HAS_VIDEO.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace specview {

class VideoWriter {
public:
    // Throws std::runtime_error naming the path (no video support, unknown container, no encoder).
    VideoWriter(const std::string& path, int width, int height, double fps);
    ~VideoWriter();
    VideoWriter(const VideoWriter&) = delete;
    VideoWriter& operator=(const VideoWriter&) = delete;
    void add(const std::uint32_t* rgba);  // width x height, R in the low byte
    void finish();                        // flushes the encoder, writes the trailer, renames into place
    const std::string& codec() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace specview
