// Untrusted image files are decoded in separate, sandboxed processes (`specview-decoder`, app/io/decoder_main.cpp):
// a crafted file that crashes, hangs or exhausts a decoder costs that process, never the viewer, its GPU state
// or a batch. Each child runs unprivileged (nobody when started as root), with no new privileges, a seccomp
// allow-list (no open, no socket, no exec), a memory limit set per image from its header and a time limit that
// grows with its size. The parent opens the file and passes the descriptor; the child reads it, reports the
// header (the parent checks limits and the chosen path's memory need, then says go), decodes, and hands the
// samples back in a memfd the parent maps: no copy on this side. A pool keeps children warm, so a batch pays
// no process start per image.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/io/load/load.h"

namespace specview {

struct DecoderOptions {
    int processes = 0;           // 0: min(4, cores)
    double header_seconds = 10;  // to read the file and parse its header
    double base_seconds = 5;     // + this and
    double ns_per_sample = 100;  // this per decoded sample, to decode after the header
    bool sandbox = true;         // seccomp + privileges dropped (tests turn it off only to compare costs)
};

// What a decoder child's failure was, for the message and for tests.
enum class DecodeFailure { None, BadInput, Refused, Crashed, TimedOut, OutOfMemory, Forbidden, Unavailable };

class DecodeError : public InputError {
public:
    DecodeError(const std::string& path, const std::string& reason, DecodeFailure kind)
        : InputError(path, reason), kind_(kind) {}
    DecodeFailure kind() const { return kind_; }

private:
    DecodeFailure kind_;
};

class DecoderPool {
public:
    explicit DecoderPool(DecoderOptions options = {});
    ~DecoderPool();
    DecoderPool(const DecoderPool&) = delete;
    DecoderPool& operator=(const DecoderPool&) = delete;

    // Thread-safe: each call borrows a child (starting one when none is idle). Throws InputError (a
    // DecodeError for failures of the child itself) naming `path`.
    Image load(const std::string& path, const LoadLimits& limits = {}, const HeaderCheck& check = {});
    // Frames first .. first + count - 1 of a stack (a multi-page TIFF, a 3D .npy), streamed: the child reads the
    // file once and decodes one frame at a time, each checked by `check` and handed to `each` as it arrives; the
    // next frame is decoded while `each` has this one (so the frames the consumer holds and one more are in
    // memory); `each` returning false stops the stream (the frame under way is dropped). Returns how many were
    // handed over. Throws like load() (a frame past the end names the count), after the frames before it.
    int load_frames(const std::string& path, const LoadLimits& limits, int first, int count, const HeaderCheck& check,
                    const std::function<bool(Image)>& each);

    // The same frames (count INT_MAX: to the last frame), handed to `each` in order on the calling
    // thread, decoded by up to `streams` children at once: the first frame alone (it tells the count and the
    // size), then chunks of a few frames dealt round-robin, each child streaming its chunk. At most about 256 MiB of
    // frames (at least one a stream: frames that large get fewer streams) wait decoded ahead of `each`, plus the frame
    // each child decodes while its previous one is consumed. Returns how many were
    // handed over; throws the error of the earliest frame that failed, after the frames before it. A video's
    // frames come from one child, streamed (its frames depend on the keyframe before them).
    int load_frames_parallel(const std::string& path, const LoadLimits& limits, int first, int count,
                             const HeaderCheck& check, const std::function<bool(Image)>& each, int streams);

    // Whether the children run under the seccomp filter (false where the kernel refused it; see the log line).
    bool sandboxed();
    // The children now alive and how many were started in all (tests: a crash costs one child, not the pool).
    int alive() const;
    int started() const;

    // The process-wide pool the viewer and the CLI use; configure_shared sets its number of processes before its
    // first use (later calls do nothing).
    static DecoderPool& shared();
    static void configure_shared(int processes);
    // The helper executable: $SPECVIEW_DECODER, else next to this program, else where the build put it.
    // `video`: the video decoder helper (specview-video-decoder, $SPECVIEW_VIDEO_DECODER), which links FFmpeg;
    // without one, video files go to the image helper, which says it does not decode video.
    static std::string helper_path(bool video = false);

private:
    struct Child;
    class FrameStream;  // one request of load_frames (decoder_pool.cpp)
    std::unique_ptr<Child> take(bool video);
    void give_back(std::unique_ptr<Child> c);
    std::unique_ptr<Child> spawn(bool video);

    DecoderOptions opt_;
    struct Bank;                  // sample buffers freed by Images, sent back to children for reuse
    std::shared_ptr<Bank> bank_;  // shared with the Images' deleters, which may outlive the pool
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::vector<std::unique_ptr<Child>> idle_;
    int busy_ = 0, alive_ = 0, started_ = 0, limit_ = 1;
    int sandboxed_ = -1;  // unknown until a child reported
};

// The wire format between the pool and its children (app/io/decoder_main.cpp). Plain structs over a
// SOCK_SEQPACKET socket on descriptor 3; descriptors travel as SCM_RIGHTS.
namespace decoder_wire {
constexpr int kSocketFd = 3;
enum : std::uint32_t { kHello = 0x53564830, kRequest, kHeader, kGo, kResult };
struct Hello {  // child -> parent once, after its sandbox is in place
    std::uint32_t kind = kHello;
    std::int32_t sandboxed = 0;
    std::uint64_t baseline_bytes = 0;  // its address space before any image
    char note[200] = {};               // why the sandbox is missing, when it is
};
struct Request {  // parent -> child, with the file's descriptor
    std::uint32_t kind = kRequest;
    std::int32_t max_side = 0;
    std::uint64_t max_pixels = 0;
    std::uint64_t file_bytes = 0;
    std::uint64_t memory_limit = 0;  // address space until the header (the child sets it on itself)
    std::int32_t frame = 0;          // which frame of a stack (LoadLimits::frame) ...
    std::int32_t frame_count = 1;    // ... and how many from there: each its own header, go and result
    char named_format[16] = {};      // what the file's name claims (format_named_by), for the messages
};
struct Header {  // child -> parent, before any pixel is decoded
    std::uint32_t kind = kHeader;
    std::int32_t width = 0, height = 0, channels = 0, bit_depth = 0;
    char format[16] = {};
};
struct Go {  // parent -> child: decode (1) or stop (0)
    std::uint32_t kind = kGo;
    std::int32_t go = 0;
    std::uint64_t memory_limit = 0;    // address space for decoding this image
    std::uint64_t recycled_bytes = 0;  // the size of the spare sample buffer sent along (its descriptor), or 0
};
struct Result {  // child -> parent, with a memfd (sealed against shrinking) holding the samples when ok
    std::uint32_t kind = kResult;
    std::int32_t ok = 0;
    std::int32_t out_of_memory = 0;
    std::int32_t width = 0, height = 0, channels = 0, bit_depth = 0;
    std::uint64_t bytes = 0;
    std::int32_t frames = 1, frame = 0;  // a stack's frame count and the one decoded
    double frame_rate = 0;               // a video's
    std::uint64_t nonfinite = 0;         // NaN/Inf samples replaced (Image::nonfinite) ...
    float nonfinite_fill = 0;            // ... by this
    double pixel_size = 0;               // what the file says a pixel is (Image::pixel_size), in ...
    char pixel_unit[8] = {};             // ... this unit ("": not calibrated)
    double z_spacing = 0;                // a z-stack's slice distance in that unit (Image::z_spacing)
    char format[16] = {};
    char reason[400] = {};
};
}  // namespace decoder_wire

}  // namespace specview
