// A stack's or video's frames through the command line (--frame-range, --average, --export-video): streamed from
// the decoders (a few frames in memory at once: they decode the next while this thread transforms), each frame's
// spectrum written, or their power averaged, or the spectra encoded as a video.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/core/settings.h"
#include "app/io/load/load.h"
#include "app/io/png_write.h"
#include "app/cli/shared.h"
#include "app/io/video_gpu.h"

namespace specview {

struct StackRun {
    std::string input;
    std::vector<std::string> files;  // --stack: one file a frame (else the frames of `input`)
    Settings s;
    int first = 0, last = -1;  // 0-based, inclusive; last < 0: to the end
    bool average = false;
    std::string output, raw;
    RunCommon common;
    std::string export_video;  // the frames' spectra as a video (then -o's PNGs only when -o is given)
    VideoDecode video_decode = VideoDecode::Auto;
    std::string backend_why;  // --backend auto: why this backend (said on the summary line)
    // --volume (app/cli/volume_run.h): the frames as one volume; -o shows --slice or --projection, --profile shell.
    bool volume = false, orthoslices = false;
    std::string slice = "z", projection, shell_out, values_out, voxel_size;
    // --gpus: the CUDA devices (empty: 0). The frames and a volume run on the first; --split-volume spreads a volume's
    // 3D FFT over all of them.
    std::vector<int> gpus;
    bool split_volume = false;
    bool dry_run = false;  // --volume: say what it needs and where it would run, from the first frame; no transform
};

// Returns the exit code.
int run_stack(const StackRun& r);

// The frames r asks for, handed to push in order (false: stop): --stack's files decoded several at once (all one
// size), a video's frames from NVDEC (gpu_video), or a stack file's frames from several decoder children at once.
void decode_stack_frames(const StackRun& r, const LoadLimits& limits, const HeaderCheck& check, GpuVideo* gpu_video,
                         int count, const std::function<bool(Image)>& push);

}  // namespace specview
