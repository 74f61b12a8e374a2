// NumPy .npy arrays as images (format versions 1 to 3): 2D (height, width) arrays, and 3D (frames, height,
// width) arrays as stacks, one frame a call; little- or big-endian, C or Fortran order. uint8 and uint16 are
// scaled like PNG's samples; uint32 to [0, 1] like TIFF's; uint64, int8/16/32/64 and float32/64 keep their
// values (as float32). A complex array (what --raw writes) is refused: it is a spectrum, not an image.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/core/image.h"

namespace specview {

struct NpyHeader {
    std::string descr;  // e.g. "<f4"
    bool fortran_order = false;
    std::vector<std::uint64_t> shape;
    std::size_t data_offset = 0;  // where the array's bytes begin
};

bool is_npy(ByteView bytes);
// Throws InputError naming `name` for anything that is not a well-formed header.
NpyHeader parse_npy_header(const unsigned char* bytes, std::size_t size, const std::string& name);
// Frame `frame` (0-based) of the array; *frames: how many (1 for a 2D array).
Image decode_npy(ByteView bytes, const std::string& name, int frame,
                 const std::function<void(const ImageHeader&)>& check, int* frames);

}  // namespace specview
