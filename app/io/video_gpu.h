// Video decoded on the GPU (NVDEC, through FFmpeg's CUDA hardware decoding) in this process: each frame's luma
// stays in device memory (Image::device) and goes from the decoder to the plane kernels without a host copy.
// FFmpeg (continuously fuzzed upstream) parses the file in this process here, as the issue of video asks; a video
// decoded on the CPU goes through the isolated decoder (app/io/decoder_pool.h) instead.
//
// The decoding lives in a module (libspecview-nvdec.so beside the program) that links FFmpeg: the program opens
// it when the first video is decoded on the GPU, so FFmpeg's hundred-odd libraries cost nothing to a run that
// decodes none.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "app/io/load/load.h"
#include "app/io/load/video_decode.h"
#include "app/core/settings.h"

namespace specview {

// Frames of one video, decoded on the GPU one by one (the next costs one decode; far or earlier ones seek to the
// keyframe before them). Images have one 8- or 16-bit channel on the device (Image::device), frame/frames and
// frame_rate set; each holds one of the decoder's surfaces until it is destroyed (up to kGpuVideoFramesHeld at once).
class GpuVideo {
public:
    virtual ~GpuVideo() = default;
    virtual int frames() const = 0;
    virtual double frame_rate() const = 0;
    virtual int width() const = 0;
    virtual int height() const = 0;
    virtual std::string decoder() const = 0;  // e.g. "h264 (NVDEC)"
    // Throws InputError for a frame that does not decode; `check` sees the frame's header before it is decoded.
    virtual Image decode(int frame, const HeaderCheck& check) = 0;
};

// How video files are decoded: on the GPU when the backend is a GPU one and NVDEC works (auto), always on the
// GPU (gpu: an error when it cannot), or always on the CPU in the isolated decoder (cpu).
enum class VideoDecode { Auto, Gpu, Cpu };
VideoDecode parse_video_decode(const std::string& s);  // "auto" | "gpu" | "cpu"; throws std::invalid_argument
const char* video_decode_name(VideoDecode d);

// Why a video's frames under these settings are not for NVDEC ("" when they are): --video-decode cpu, the CPU
// backend (it takes frames on the host), --level (its plane is fitted on the host). The one rule the command
// line, the worker and the viewer follow.
std::string gpu_decode_excluded(VideoDecode how, const Settings& s);

// Whether the file at `path` is a video by its first bytes (false when it cannot be read).
bool file_is_video(const std::string& path);

// A host copy of a device frame (the same samples, rows packed), for the few host paths that need one (the image
// view where the viewer's GL cannot take CUDA's frames). Waits for the device.
Image download_device_image(const Image& img);

// Opens `path` (a video within limits.max_stack_file_bytes) for decoding on the GPU; decodes its first frame to
// make sure NVDEC takes it. Throws GpuDecodeUnavailable saying why it cannot be decoded there, InputError for a
// file that is no readable video.
std::unique_ptr<GpuVideo> open_gpu_video(const std::string& path, const LoadLimits& limits);

}  // namespace specview
