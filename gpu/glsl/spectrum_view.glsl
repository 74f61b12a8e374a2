// The picture of a spectrum in OpenGL compute shaders (issue 62): gpu/common/spectrum_math.h's view, range and
// colormap, so that --backend gl leaves its spectrum on the device and only the picture comes back (or, in the
// viewer, goes into the texture). One source, a section a shader chosen by a #define; gl_fft.cpp prepends
// "#version 430" and the define. The range is exact, as on the CPU (app/core/picture.cpp's kth_smallest): the
// values' ordered keys counted by their high half-word (VIEW_VALUES), then the low half-words of the one or two
// high half-words that hold the ranks asked for (HIST_LOW); the host reads the counts and finds the keys.

// Floats as unsigned keys in the same order (negative ones reversed).
uint order_key(float v) {
    const uint b = floatBitsToUint(v);
    return (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
}

#if defined(VIEW_VALUES)
// values[y][x] = the view of the bin the (shifted) picture shows at (x, y); hist[key >> 16] counted. A work-group
// takes 2048 values of a row (8 an invocation, 256 apart) and counts their keys' high half-words in a shared table
// first (neighbouring values share few of them), so the global counts get one atomic add per distinct key a group
// instead of one per value (those adds on a few hundred addresses were most of this pass's time).
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Spectrum { vec2 spectrum[]; };  // height x width, unshifted
layout(std430, binding = 1) writeonly buffer Values { float values[]; };
layout(std430, binding = 2) buffer Hist { uint hist[]; };
uniform uint width, height, view, shifted, histogram;
const uint kPer = 8u, kSlots = 2048u, kEmpty = 0xFFFFFFFFu;
shared uint table_key[kSlots];
shared uint table_count[kSlots];
// fftshift for any n (numpy's convention), as shift_source.
uint shift_source(uint i, uint n) {
    const uint s = i + (n + 1u) / 2u;
    return s >= n ? s - n : s;
}
float view_value(vec2 c) {
    if (view == 0u) return log(1.0 + length(c));                             // log-magnitude
    if (view == 1u) return 3.0102999566398120 * log2(dot(c, c) + 1e-20);     // power in dB: 10 log10(|F|^2 + floor)
    if (view == 2u) {                                                        // phase, atan2f's principal value
        if (c.x == 0.0 && c.y == 0.0) return (floatBitsToUint(c.x) & 0x80000000u) != 0u ? 3.14159265358979 : 0.0;
        return atan(c.y + 0.0, c.x);
    }
    return view == 3u ? c.x : c.y;                                           // real, imaginary
}
void main() {
    const uint lid = gl_LocalInvocationID.x, y = gl_WorkGroupID.y, x0 = gl_WorkGroupID.x * 256u * kPer;
    if (histogram != 0u) {
        for (uint i = lid; i < kSlots; i += 256u) {
            table_key[i] = kEmpty;
            table_count[i] = 0u;
        }
        barrier();
    }
    const uint sy = shifted != 0u ? shift_source(y, height) : y;
    for (uint k = 0u; k < kPer; ++k) {
        const uint x = x0 + k * 256u + lid;
        if (x >= width) break;
        const uint sx = shifted != 0u ? shift_source(x, width) : x;
        const float v = view_value(spectrum[sy * width + sx]);
        values[y * width + x] = v;
        if (histogram == 0u) continue;
        const uint high = order_key(v) >> 16;
        uint slot = (high * 2654435761u) >> 21;  // kSlots = 2^11
        bool counted = false;
        for (uint probe = 0u; probe < kSlots && !counted; ++probe) {
            const uint was = atomicCompSwap(table_key[slot], kEmpty, high);
            if (was == kEmpty || was == high) {
                atomicAdd(table_count[slot], 1u);
                counted = true;
            }
            slot = (slot + 1u) & (kSlots - 1u);
        }
        if (!counted) atomicAdd(hist[high], 1u);  // (cannot happen: a group has kSlots values at most)
    }
    if (histogram == 0u) return;
    barrier();
    for (uint i = lid; i < kSlots; i += 256u)
        if (table_count[i] != 0u) atomicAdd(hist[table_key[i]], table_count[i]);
}
#elif defined(HIST_LOW)
// hist[k * 65536 + (key & 0xffff)] counted for the values whose key's high half-word is high[k], k = 0, 1.
layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Values { float values[]; };
layout(std430, binding = 2) buffer Hist { uint hist[]; };
uniform uint width, height, high0, high1;
void main() {
    const uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= width || y >= height) return;
    const uint key = order_key(values[y * width + x]);
    if (key >> 16 == high0) atomicAdd(hist[key & 0xffffu], 1u);
    if (key >> 16 == high1) atomicAdd(hist[65536u + (key & 0xffffu)], 1u);
}
#elif defined(COLORIZE)
// The values over [lo, lo + span] as colours (format 0: the colormap's RGBA8 from lut), 8-bit levels (1: four a
// uint) or 16-bit gray levels (2: two a uint), or (IMAGE) colours stored into the RGBA8 texture `picture`.
layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Values { float values[]; };
layout(std430, binding = 3) readonly buffer Lut { uint lut[256]; };
#if defined(IMAGE)
layout(rgba8, binding = 0) writeonly uniform image2D picture;
#else
layout(std430, binding = 4) writeonly buffer Picture { uint picture[]; };
#endif
uniform uint width, height, format;
uniform float lo, span;
// normalize_to_range: [0, 1] within the range; a degenerate range or NaN is 0.
float unit(float v) {
    if (!(span > 0.0)) return 0.0;
    const float t = (v - lo) / span;
    return t > 0.0 ? min(t, 1.0) : 0.0;
}
void main() {
    const uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    const uint count = width * height, per = format == 0u ? 1u : format == 1u ? 4u : 2u;
    // Invocation (x, y) packs the `per` pixels from (y * width + x) * per on (a row of uints is width long).
    const uint first = (y * width + x) * per;
    if (x >= width || first >= count) return;
#if defined(IMAGE)
    const uint rgba = lut[uint(unit(values[first]) * 255.0 + 0.5)];
    imageStore(picture, ivec2(int(first % width), int(first / width)), unpackUnorm4x8(rgba));
#else
    uint word = 0u;
    for (uint k = 0u; k < per && first + k < count; ++k) {
        const float t = unit(values[first + k]);
        if (format == 0u) word = lut[uint(t * 255.0 + 0.5)];
        else if (format == 1u) word |= uint(t * 255.0 + 0.5) << (8u * k);
        else word |= uint(t * 65535.0 + 0.5) << (16u * k);
    }
    picture[first / per] = word;
#endif
}
#endif
