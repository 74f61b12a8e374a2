// Seed 000's 3D FFT step by step on the CPU — classroom mode's model of the seed pipeline in 3D, as
// app/engine/staged_fft.h is for 2D: the data as it lies in memory after each of the seven steps (the row FFT along
// x, the slabs' transpose, along y, the transpose bringing z to the rows, along z, the two transposes back).
#pragma once

#include <complex>
#include <string>
#include <vector>

namespace specview {

constexpr int kVolumeSteps = 7;

struct VolumeStep {
    std::vector<std::complex<float>> data;  // dims[0] x dims[1] x dims[2], the last fastest (the rows)
    int dims[3] = {0, 0, 0};
    const char* axes[3] = {"z", "y", "x"};  // what each dimension runs along ("kx" once transformed)
    std::string title;                      // "2: transpose x-y", ...
    std::string caption;                    // which axis is in the rows and why the transposes are there
};

// `volume`: depth x height x width real values (x fastest). step 0 is the volume itself; 1..7 the steps. Unnormalised
// forward transforms (FFTW, `threads`); step 7 is numpy's fftn. Throws std::invalid_argument for a step outside 0..7.
VolumeStep volume_step(const std::vector<float>& volume, int width, int height, int depth, int step, int threads = 1);

}  // namespace specview
