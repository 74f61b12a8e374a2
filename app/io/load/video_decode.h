// Video files (MP4/MOV, Matroska/WebM, AVI) through FFmpeg's libraries (Debian's libavformat/libavcodec,
// fuzzed continuously upstream), read from memory: every frame a stack frame, in presentation order, its luma
// plane the image (no RGB round trip; 8-bit luma as 8-bit samples, deeper luma as 16-bit; RGB video through
// swscale to gray). Decoded on up to kVideoDecodeThreads frame threads (the video helper's sandbox allows threads,
// not processes). Built when the FFmpeg development packages were there at configure time (SPECVIEW_HAS_VIDEO).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/core/image.h"

namespace specview {

// Why a video cannot be decoded on the GPU here, where the video itself may be fine (no module, no CUDA device
// for FFmpeg, no libnvcuvid, a codec or profile NVDEC does not take): the caller decodes it on the CPU instead.
class GpuDecodeUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Decoded frames a caller may hold at once beyond what the decoder keeps (FFmpeg's extra_hw_frames).
constexpr int kGpuVideoFramesHeld = 8;

bool is_video(ByteView bytes);  // MP4/MOV, Matroska/WebM, AVI by their magic

// FFmpeg's decoding threads at most (the CPU set's size, up to this): the parent's memory limit for a video
// counts this many frames in flight.
constexpr int kVideoDecodeThreads = 8;
// Whether this process decodes video: the video decoder helper and the tests do (app/io/load/video_decode.cpp); the
// others link app/io/load/video_none.cpp and hand video files to the helper (app/io/decoder_pool.h).
bool video_supported();

class VideoStack {
public:
    // Opens the container, finds the video stream and counts its frames (a pass over the packets, no decoding).
    // Throws InputError naming `name`. `on_gpu`: decoded by NVDEC into device memory (Image::device; see
    // app/io/video_gpu.h), the first frame decoded here to make sure it can be; throws GpuDecodeUnavailable when not.
    VideoStack(ByteView bytes, std::string name, bool on_gpu = false);
    ~VideoStack();
    VideoStack(const VideoStack&) = delete;
    VideoStack& operator=(const VideoStack&) = delete;
    int frames() const;
    double frame_rate() const;  // frames a second (0: unknown)
    int width() const;
    int height() const;
    std::string decoder() const;  // the codec's name, with " (NVDEC)" on the GPU
    // Frame `frame` (0-based, presentation order): the next one costs one decode; an earlier one starts again
    // from the beginning; the one decoded last costs nothing. `check` sees the header before the frame is decoded.
    Image decode(int frame, const std::function<void(const ImageHeader&)>& check);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace specview
