// NumPy .npy files (format 1.0) for the raw spectrum: complex64, C order, shape (height, width).
#pragma once

#include <complex>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace specview {

// Writes atomically (a temporary file renamed into place); throws std::runtime_error naming the path.
void write_npy_complex64(const std::string& path, const std::complex<float>* data, int height, int width);
// A complex64 array of shape (depth, height, width) written a plane at a time: fill(z, plane) fills plane z's
// height x width values (C order), then it goes to the file (atomically, as above); no copy of the whole array.
void write_npy_complex64_3d(const std::string& path, int depth, int height, int width,
                            const std::function<void(int, std::complex<float>*)>& fill);
// The same for float32 (the frequency lab's filtered image).
void write_npy_float32(const std::string& path, const float* data, int height, int width);

struct NpyComplex {
    int height = 0, width = 0;
    std::vector<std::complex<float>> data;
};
// Reads what write_npy_complex64 writes (and any little-endian '<c8' C-order 2D array); throws on anything else.
NpyComplex read_npy_complex64(const std::string& path);
// The same from the file's bytes (`name` for messages); the shape must match the data's length exactly.
NpyComplex parse_npy_complex64(const std::string& bytes, const std::string& name);

// Writes bytes to path through a temporary file in the same directory and a rename, so a failure leaves
// whatever was there before untouched.
void write_file_atomically(const std::string& path, const std::string& bytes);
// The same for a file made of several buffers, written in order.
void write_file_atomically(const std::string& path, const std::vector<std::pair<const char*, std::size_t>>& parts);

}  // namespace specview
