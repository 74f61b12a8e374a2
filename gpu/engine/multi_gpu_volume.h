// A volume's 3D FFT split over the GPUs of one host by cuFFT's single-process multi-GPU plans (cufftXt) — an existing
// engine, not one of ours — for volumes beyond one GPU's memory (issue 64: a 2048^3 complex64 volume is 64 GiB).
//
// The host buffer is FFTW's in-place r2c layout (depth x height rows of 2 (width/2 + 1) floats), which is cuFFT's
// in-place R2C layout too: cufftXtMemcpy spreads it over the GPUs (depth planes split as cuFFT splits the slowest
// dimension), cufftXtExecDescriptor transforms it (the GPUs exchange their slabs in an all-to-all), and the half
// spectrum comes back into the same buffer in natural order. What follows (slices, projections, shells, --raw) is
// the CPU backend's code on that buffer (app/volume).
#pragma once

#include <string>
#include <vector>

namespace specview::gpu {

// What one GPU holds: the depth planes of the input it is given, and its device bytes (its slab of the padded
// volume and its work area).
struct MultiGpuShare {
    int gpu = 0;
    int first_plane = 0, planes = 0;
    double data_bytes = 0, work_bytes = 0;
};

struct MultiGpuLayout {
    int width = 0, height = 0, depth = 0;
    std::vector<MultiGpuShare> shares;
    // The work areas as cuFFT planned them (a MultiGpuVolumeFft's), or estimated without a plan (one slab each: the
    // all-to-all's receive buffer; a dry run).
    bool measured = false;
    double total_bytes() const;
    // One line a GPU: "GPU 1: z 512-1023 (512 planes), 8.0 GiB data + 8.0 GiB work area".
    std::string text() const;
};

// Why cuFFT's multi-GPU plans cannot take a W x H x D volume on `gpus` (empty: they can): 2 to 16 distinct GPUs,
// every side at least 32.
std::string multi_gpu_refusal(const std::vector<int>& gpus, int width, int height, int depth);

// The layout a plan would have, without a GPU (the dry run): depth planes dealt as cuFFT deals the slowest dimension
// (the first depth % n GPUs one more), work area estimated as one slab.
MultiGpuLayout estimate_multi_gpu_layout(const std::vector<int>& gpus, int width, int height, int depth);

// The largest cube N^3 (N a multiple of 32) whose split over n GPUs of `bytes_per_gpu` each fits by the estimate.
int largest_split_cube(int n, double bytes_per_gpu);

class MultiGpuVolumeFft {
public:
    // Plans the R2C transform of W x H x D over `gpus` and allocates its memory on them. Throws ConfigError where
    // multi_gpu_refusal says no, GpuUnavailable for a GPU that is not usable, GpuError (out_of_memory()) where the
    // GPUs cannot hold it.
    MultiGpuVolumeFft(const std::vector<int>& gpus, int width, int height, int depth);
    ~MultiGpuVolumeFft();
    MultiGpuVolumeFft(const MultiGpuVolumeFft&) = delete;
    MultiGpuVolumeFft& operator=(const MultiGpuVolumeFft&) = delete;

    const MultiGpuLayout& layout() const { return layout_; }
    // The forward 3D FFT of the host buffer (FFTW's in-place r2c layout), in place; wall milliseconds of each part.
    void forward(float* host);
    double upload_ms = 0, fft_ms = 0, download_ms = 0;

private:
    void release();
    struct Impl;
    Impl* impl_ = nullptr;
    MultiGpuLayout layout_;
};

}  // namespace specview::gpu
