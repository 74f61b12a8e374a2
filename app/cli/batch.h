// The batch pipeline of the command line: images (one, or many) decoded by sandboxed decoder processes a bounded
// window ahead, transformed in input order on one engine (two on a GPU backend, each with its own stream), their
// outputs written by encoder threads; one stdout line an input, in input order; progress on stderr.
#pragma once

#include <string>
#include <vector>

#include "app/cli/shared.h"
#include "app/core/calibration.h"
#include "app/core/settings.h"

namespace specview {

// One input and where its outputs go (empty: not asked for).
struct Job {
    std::string input, png, raw;
    std::string inverse, radial, angular;  // the frequency lab's outputs (empty: not asked for)
    std::vector<std::string> outputs() const { return {png, raw, inverse, radial, angular}; }
};

// What a batch runs with: the settings, the inputs with their outputs, and the options that shape the run.
struct BatchSpec {
    Settings s;
    std::string backend;  // as the user named it, for messages
    // --backend auto: why s.backend (said on each summary line); auto_one_image: one image, whose size decides (at its
    // header) between the CPU and custom-fast (app/engine/auto_backend.h).
    std::string backend_why;
    bool auto_one_image = false;
    std::vector<Job> jobs;
    bool batch = false;                   // several inputs or a directory (else one image)
    std::vector<std::string> empty_dirs;  // directories without images: each an input error
    RunCommon common;
    bool fftw_measure = false;
    int jobs_opt = 0;  // --jobs (0: the cores)
    int frame = 1;
    std::string save_mask_out;
    std::string correlate, correlation_kind = "phase", correlation_map;
    double fit_lo = 0.02, fit_hi = 0.25;  // --psd-fit
    PixelSize pixel_size;                 // --pixel-size (not calibrated: what each file says, if anything)
    // Scale-out (shard.h): a JSON line appended to `manifest` as each input is finished (path, status ok / failed /
    // skipped, error, width, height, backend, outputs, ms, shard); `resume` skips what it records ok and overwrites
    // the outputs of the rest; `skip_existing` skips inputs whose outputs all exist.
    std::string manifest, shard;  // shard: "K/N" as this process runs it, or ""
    bool resume = false, skip_existing = false;
    // --gpus: the CUDA devices of a GPU backend, two engines (threads, streams) on each; empty: device 0.
    std::vector<int> gpus;
};

// Runs the batch; returns the exit code (the first failure's, or 0).
int run_batch(const BatchSpec& spec);

}  // namespace specview
