// The video reader of the processes that do not decode video (the viewer, the command line, the image decoder
// helper): video files go to specview-video-decoder (app/io/load/video_decode.cpp, linked with FFmpeg), so the rest do
// not pay FFmpeg's start-up (its libraries and their hundred-odd dependencies: about 30 ms a process).
#include "app/io/load/video_decode.h"

namespace specview {

bool video_supported() { return false; }
struct VideoStack::Impl {};
VideoStack::VideoStack(ByteView, std::string name, bool) {
    throw InputError(name,
                     "a video file: this process does not decode video (the video decoder helper does; "
                     "this build has none when FFmpeg's development packages were missing at configure time)");
}
VideoStack::~VideoStack() = default;
int VideoStack::frames() const { return 0; }
double VideoStack::frame_rate() const { return 0; }
int VideoStack::width() const { return 0; }
int VideoStack::height() const { return 0; }
std::string VideoStack::decoder() const { return {}; }
Image VideoStack::decode(int, const std::function<void(const ImageHeader&)>&) { return {}; }

}  // namespace specview
