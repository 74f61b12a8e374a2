// A sample's value and a pixel's channel on the device, as the host's Image::sample and channel_values make them
// (correctly rounded, no fused multiply-add): the planes of gpu/plane are the host's to the bit.
#pragma once

#include <cstdint>

namespace specview::gpu {

__device__ __forceinline__ float sample_value(std::uint8_t v) { return __fdiv_rn(float(v), 255.0f); }
__device__ __forceinline__ float sample_value(std::uint16_t v) { return __fdiv_rn(float(v), 65535.0f); }
__device__ __forceinline__ float sample_value(float v) { return v; }

// channel 0: luma (Rec. 709 on channels 0..2, or the gray value); else index + 1 (r, g, b, a).
template <class T>
__device__ __forceinline__ float channel_value(const T* px, int channels, int channel) {
    if (channel == 0) {
        if (channels < 3) return sample_value(px[0]);
        // As the host computes it: three products and two sums, each rounded.
        return __fadd_rn(__fadd_rn(__fmul_rn(0.2126f, sample_value(px[0])), __fmul_rn(0.7152f, sample_value(px[1]))),
                         __fmul_rn(0.0722f, sample_value(px[2])));
    }
    const int c = channel - 1;
    if (c == 3) return sample_value(px[channels - 1]);
    return sample_value(channels >= 3 ? px[c] : px[0]);
}

}  // namespace specview::gpu
