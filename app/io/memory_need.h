// What an image will cost on the path the user chose, known from its header before any pixel is decoded:
// host memory (decoded samples, planes, spectrum, picture, the PNG encoder, --raw's spectrum) and, for the GPU
// backends, device memory. Each term is a buffer the code allocates (listed in memory_need.cpp); tests check
// the model against measured peaks (process RSS, cudaMemGetInfo). An image whose need exceeds what is
// available is refused with both numbers, instead of the machine swapping or the GPU failing mid-run.
#pragma once

#include <cstdint>
#include <string>

#include "app/core/image.h"
#include "app/core/settings.h"

namespace specview {

struct MemoryNeed {
    double host = 0;    // bytes
    double device = 0;  // bytes (GPU backends)
};

// `raw`: the complex spectrum is also written (--raw). `viewer`: the viewer keeps extra copies (host picture
// double-buffered, the RGBA image for display, three device picture slots). `inverse`: the filtered image is
// made too (--inverse); Settings::filters add the mask.
MemoryNeed memory_need(const ImageHeader& header, const Settings& s, bool raw, bool viewer, bool inverse = false);

struct MemoryBudget {
    double host = 0;    // 0: MemAvailable
    double device = 0;  // 0: the device's free memory (asked when a GPU backend is chosen)
};

// A HeaderCheck that refuses an image whose need exceeds the budget, with a message naming the need, what is
// available and what to try.
// `device`: also check the device's memory (asking the driver for its free memory: in a decoder thread this waits
// for a CUDA context another thread is still creating, so the CLI checks the device at transform time instead,
// with check_device_memory).
HeaderCheck memory_check(const Settings& s, bool raw, bool viewer, MemoryBudget budget = {}, bool device = true,
                         bool inverse = false);
// The device half alone, against `free_bytes` (or budget.device when set); throws InputError.
void check_device_memory(const ImageHeader& header, const Settings& s, bool raw, bool viewer, double free_bytes,
                         const std::string& device_name, MemoryBudget budget = {}, bool inverse = false);

// Parses "512M", "3G", "1.5GiB", "2000000" (bytes); throws std::invalid_argument.
double parse_size(const std::string& text);

}  // namespace specview
