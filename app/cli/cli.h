// The command line: `specview IMAGE` opens the viewer; `specview --headless IMAGE... -o OUT` writes spectrum
// pictures (and raw spectra) without a window.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/core/calibration.h"
#include "app/core/settings.h"
#include "app/io/video_gpu.h"

namespace specview {

// Documented in --help and the README.
enum ExitCode : int {
    kExitOk = 0,
    kExitInternal = 1,  // a bug: an unexpected exception
    kExitUsage = 2,     // bad options, or a configuration that cannot run (e.g. custom backend, odd size, no padding)
    kExitInput = 3,     // an input could not be read as an image (in a batch: the others were still processed)
    kExitGpu = 4,       // a GPU backend was asked for and no usable GPU is there (or it failed / ran out of memory)
    kExitOutput = 5,    // an output file could not be written (or exists, without --force)
};

struct ViewerLaunch {
    std::vector<std::string> images;  // may be empty: the viewer opens a bundled sample
    Settings settings;
    bool classroom = false;
    bool presentation = false;
    int classroom_step = 1;                        // 1-based step to start at
    bool classroom_walk = false;                   // advance one classroom step per frame (tests, demos)
    int frames = 0;                                // > 0: render this many frames, then exit (tests, screenshots)
    std::string screenshot;                        // write the window's last frame here (PNG) before exiting
    std::string script;                            // drive the viewer from this file (ui/script/script.h)
    std::string report;                            // the script's JSON report
    bool offscreen = false;                        // draw into an offscreen EGL context on the GPU (no window, no X)
    double max_memory = 0;                         // --max-memory in bytes (0: what the machine has available)
    int frame = 0;                                 // --frame, 0-based: which frame of a stack to open first
    VideoDecode video_decode = VideoDecode::Auto;  // --video-decode
    PixelSize pixel_size;                          // --pixel-size (not calibrated: the file's own)
    int width = 0, height = 0;                     // --geometry WxH (0: the size the viewer was last closed at)
    bool auto_backend = false;                     // --backend auto: custom-fast where CUDA is usable, else the CPU
    bool volume = false;                           // --volume: a stack's frames as one volume (the six 3D views)
};

using ViewerEntry = std::function<int(const ViewerLaunch&)>;

// Parses argv and runs; returns the exit code. `viewer` is null in builds without the UI.
int cli_main(int argc, char** argv, const ViewerEntry& viewer);

// The sample images the program ships, looked up next to the executable and in the source tree.
std::string find_assets_dir();

}  // namespace specview
