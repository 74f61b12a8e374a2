// libFuzzer target: the .npy reader on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "app/io/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const specview::NpyComplex r =
            specview::parse_npy_complex64(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
        if (r.data.size() != std::size_t(r.height) * std::size_t(r.width)) __builtin_trap();
    } catch (const std::runtime_error&) {}
    return 0;
}
