// TIFF through libtiff (Debian's libtiff6, fuzzed continuously upstream), read from memory in the decoder
// process: 8/16/32-bit unsigned and signed integer and 32/64-bit float samples, gray/RGB with or without alpha,
// strips and tiles, contiguous or separate planes, every compression libtiff has, multi-page files (one page a
// call). Unsigned 8- and 16-bit samples stay as they are (scaled to [0, 1] like PNG's); 32-bit unsigned samples
// are scaled to [0, 1] as floats; signed and float samples keep their values as floats. Palette, bilevel,
// YCbCr, CMYK and Lab images go through libtiff's RGBA reader (8-bit). Min-is-white is inverted.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/core/image.h"

namespace specview {

bool is_tiff(ByteView bytes);

// One TIFF file in memory (`bytes` must outlive it), opened and its pages counted once; pages decoded one a
// call, the next page in the file reached without walking the directory chain again.
class TiffStack {
public:
    TiffStack(ByteView bytes, std::string name);  // throws InputError naming `name`
    ~TiffStack();
    TiffStack(const TiffStack&) = delete;
    TiffStack& operator=(const TiffStack&) = delete;
    int pages() const { return pages_; }
    // Page `page` (0-based). Throws InputError naming the file. `check` sees the header before anything is decoded.
    Image decode(int page, const std::function<void(const ImageHeader&)>& check);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    int pages_ = 0;
};

// Page `page` (0-based) of the file; *pages: how many it has.
Image decode_tiff(ByteView bytes, const std::string& name, int page,
                  const std::function<void(const ImageHeader&)>& check, int* pages);

}  // namespace specview
