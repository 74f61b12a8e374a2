// The small arithmetic every kernel file shares, written once (as ggml-cuda's common.cuh holds its helpers):
// complex numbers as float2 (cuFFT's and our buffers' element), and the order-preserving encoding of a float as an
// unsigned int that atomicMin/atomicMax reduce a range with. Host and device alike, so the host references (the
// mixed-radix model, the tests) run the same float arithmetic as the kernels.
#pragma once

#include <vector_types.h>  // float2 (host code too)

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define SV_DM_HD __host__ __device__ __forceinline__
#else
#define SV_DM_HD inline
#endif

namespace specview {

SV_DM_HD float2 c_make(float re, float im) {
    float2 v;
    v.x = re;
    v.y = im;
    return v;
}
SV_DM_HD float2 c_add(float2 a, float2 b) { return c_make(a.x + b.x, a.y + b.y); }
SV_DM_HD float2 c_sub(float2 a, float2 b) { return c_make(a.x - b.x, a.y - b.y); }
SV_DM_HD float2 c_mul(float2 a, float2 b) { return c_make(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
SV_DM_HD float2 c_scale(float2 a, float s) { return c_make(a.x * s, a.y * s); }
// -i a (forward) or +i a (inverse)
SV_DM_HD float2 c_rot(float2 a, bool inverse) { return inverse ? c_make(-a.y, a.x) : c_make(a.y, -a.x); }

// A float's bits as an unsigned int that orders as the floats do (negative values flipped whole, positive ones
// with the sign bit set), so that atomicMin/atomicMax on the encodings give the min/max of the floats.
SV_DM_HD unsigned int order_encode(float f) {
#if defined(__CUDA_ARCH__)
    const unsigned int u = __float_as_uint(f);
#else
    unsigned int u;
    std::memcpy(&u, &f, sizeof u);
#endif
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
SV_DM_HD float order_decode(unsigned int e) {
    const unsigned int u = (e & 0x80000000u) ? (e & 0x7FFFFFFFu) : ~e;
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
#endif
}

}  // namespace specview
