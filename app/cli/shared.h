// What the command line's parts (cli.cpp, batch.cpp, stack.cpp) share: how inputs are named and expanded, the
// pictures and text they write, and the thread counts they choose.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "app/core/settings.h"
#include "app/engine/engine.h"

namespace specview {

// What every headless run takes from the command line whatever it runs on: overwriting, --timings, the picture
// PNG's compression and depth, the size and memory limits.
struct RunCommon {
    bool force = false, timings = false;
    int png_level = 1, depth = 8, max_side = 16384;
    double budget_host = 0;  // --max-memory in bytes (0: what the machine has)
};

// The exit codes' lines of --help.
extern const char* const kExitCodesHelp;

// Decoder children a stack's frames are decoded by at once: a quarter of the cores, 2 to 4.
int stack_decode_streams();

// v with `prec` decimals.
std::string fmt(double v, int prec = 3);
// A frame's per-stage timings (and the custom kernels' resources) as --timings prints them.
void print_timings(const Frame& f, std::ostream& out);

// Expands directories (their image files, sorted); keeps files as given. Sets *any_dir when one was a directory;
// directories without images go to *empty_dirs.
// With `keys`, each file's name relative to its root too (a directory's files: their path inside it; files given
// one by one: their path as given, normalised): what --shard hashes.
std::vector<std::string> expand_inputs(const std::vector<std::string>& args, bool* any_dir,
                                       std::vector<std::string>* empty_dirs, std::vector<std::string>* keys = nullptr);
// Natural order: runs of digits compare as numbers (frame2 before frame10), the rest byte by byte.
bool natural_less(const std::string& a, const std::string& b);
// --stack DIR|GLOB: the image files of a directory, or what a glob pattern matches, in natural order; empty, with
// *error set, when there are none.
std::vector<std::string> stack_files(const std::string& where, std::string* error);
bool same_file(const std::string& a, const std::string& b);

// The spectrum picture as PNG (8-bit gray, RGB, or 16-bit gray levels), on `threads` threads.
void write_png(const std::string& path, const Frame& f, Colormap cm, int level, int threads);
// View values over pic's range (range_lo..range_hi, set) into pic's picture: 16-bit gray levels for depth 16, else
// RGBA8 through the colormap (a stack's mean power, a volume's slice).
void picture_of_values(const std::vector<float>& values, Colormap cm, int depth, Frame& pic);
// The filtered image as a PNG: the content's region of the plane (the image's own pixels, padding left out),
// min-max stretched to 8-bit gray.
void write_inverse_png(const std::string& path, const Frame& f, int level);

}  // namespace specview
