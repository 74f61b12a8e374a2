// libFuzzer target: the whole loader (format sniffing, the container walkers, stb for PNG/BMP/TGA/GIF/PSD/HDR/PNM,
// libjpeg-turbo for JPEG) on arbitrary bytes. Built with clang, AddressSanitizer and UBSan, with Debian's
// stb_image.h compiled in (tests/fuzz/stb_image_impl.c) so that stb's own bugs are seen. A refused file is fine;
// a crash, a sanitizer report, a leak or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <vector>

#include "app/io/load/load.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    specview::LoadLimits lim;
    lim.max_side = 4096;  // keep single inputs fast; the limits themselves are tested elsewhere
    lim.max_pixels = 2048ull * 2048ull;
    lim.check_available_memory = false;
    try {
        const std::vector<unsigned char> bytes(data, data + size);
        specview::FrameReader reader(bytes, "fuzz", lim);
        const specview::Image img = reader.decode(0);
        if (img.sample_count() != std::size_t(img.width) * img.height * img.channels) __builtin_trap();
        if (img.frames > 1) {  // a stack's later frames too (animated GIF, TIFF pages, .npy frames)
            const specview::Image last = reader.decode(std::min(img.frames, 8) - 1);
            if (last.sample_count() != std::size_t(last.width) * last.height * last.channels) __builtin_trap();
        }
    } catch (const specview::InputError&) {}
    return 0;
}
