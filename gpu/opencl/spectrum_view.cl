// The picture of a spectrum in OpenCL C (issue 62), as gpu/glsl/spectrum_view.glsl: gpu/common/spectrum_math.h's
// view, range and colormap, so that --backend opencl leaves its spectrum on the device and only the picture comes
// back. The range is exact (gpu/common/ranked_range.h): the values' ordered keys counted by high half-word
// (view_values, in a local table a work-group first), then the low half-words of the one or two that hold the ranks
// asked for (count_low); the host reads the counts and finds the keys.

// Floats as unsigned keys in the same order (negative ones reversed).
inline uint order_key(float v) {
    const uint b = as_uint(v);
    return (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
}

// fftshift for any n (numpy's convention), as shift_source.
inline uint shift_source(uint i, uint n) {
    const uint s = i + (n + 1u) / 2u;
    return s >= n ? s - n : s;
}

inline float view_value(uint view, float2 c) {
    if (view == 0u) return log(1.0f + length(c));                          // log-magnitude
    if (view == 1u) return 10.0f * log10(c.x * c.x + c.y * c.y + 1e-20f);  // power in dB
    if (view == 2u) {                                                      // phase, atan2f's principal value
        if (c.x == 0.0f && c.y == 0.0f) return (as_uint(c.x) & 0x80000000u) != 0u ? M_PI_F : 0.0f;
        return atan2(c.y + 0.0f, c.x);
    }
    return view == 3u ? c.x : c.y;  // real, imaginary
}

#define VIEW_PER 8u
#define VIEW_SLOTS 2048u
#define VIEW_EMPTY 0xFFFFFFFFu

// values[y][x] = the view of the bin the (shifted) picture shows at (x, y); hist[key >> 16] counted (`histogram`).
// A work-group of 256 takes 2048 values of row get_group_id(1) (8 a work-item, 256 apart) and counts their keys'
// high half-words in a local table first: one global atomic add per distinct key a group, not one per value.
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void view_values(
    __global const float2* spectrum, __global float* values, __global uint* hist, uint width, uint height, uint view,
    uint shifted, uint histogram) {
    __local uint table_key[VIEW_SLOTS];
    __local uint table_count[VIEW_SLOTS];
    const uint lid = get_local_id(0), y = get_group_id(1), x0 = get_group_id(0) * 256u * VIEW_PER;
    if (histogram) {
        for (uint i = lid; i < VIEW_SLOTS; i += 256u) {
            table_key[i] = VIEW_EMPTY;
            table_count[i] = 0u;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint sy = shifted ? shift_source(y, height) : y;
    for (uint k = 0u; k < VIEW_PER; ++k) {
        const uint x = x0 + k * 256u + lid;
        if (x >= width) break;
        const uint sx = shifted ? shift_source(x, width) : x;
        const float v = view_value(view, spectrum[sy * width + sx]);
        values[y * width + x] = v;
        if (!histogram) continue;
        const uint high = order_key(v) >> 16;
        uint slot = (high * 2654435761u) >> 21;  // VIEW_SLOTS = 2^11
        bool counted = false;
        for (uint probe = 0u; probe < VIEW_SLOTS && !counted; ++probe) {
            const uint was = atomic_cmpxchg(&table_key[slot], VIEW_EMPTY, high);
            if (was == VIEW_EMPTY || was == high) {
                atomic_inc(&table_count[slot]);
                counted = true;
            }
            slot = (slot + 1u) & (VIEW_SLOTS - 1u);
        }
        if (!counted) atomic_inc(&hist[high]);  // (cannot happen: a group has VIEW_SLOTS values at most)
    }
    if (!histogram) return;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < VIEW_SLOTS; i += 256u)
        if (table_count[i] != 0u) atomic_add(&hist[table_key[i]], table_count[i]);
}

// hist[k * 65536 + (key & 0xffff)] counted for the values whose key's high half-word is high0 (k = 0) or high1 (1).
__kernel void count_low(__global const float* values, __global uint* hist, uint count, uint high0, uint high1) {
    const uint i = get_global_id(0);
    if (i >= count) return;
    const uint key = order_key(values[i]);
    if (key >> 16 == high0) atomic_inc(&hist[key & 0xffffu]);
    if (key >> 16 == high1) atomic_inc(&hist[65536u + (key & 0xffffu)]);
}

// The values over [lo, lo + span] (normalize_to_range) as colours from `lut` (format 0: RGBA8), 8-bit levels (1:
// four a uint) or 16-bit gray levels (2: two a uint); work-item i packs the uint i.
__kernel void colorize(__global const float* values, __constant uint* lut, __global uint* picture, uint count,
                       uint format, float lo, float span) {
    const uint i = get_global_id(0), per = format == 0u ? 1u : format == 1u ? 4u : 2u, first = i * per;
    if (first >= count) return;
    uint word = 0u;
    for (uint k = 0u; k < per && first + k < count; ++k) {
        float t = 0.0f;
        if (span > 0.0f) {
            t = (values[first + k] - lo) / span;
            t = t > 0.0f ? min(t, 1.0f) : 0.0f;  // (NaN: 0)
        }
        if (format == 0u) word = lut[(uint)(t * 255.0f + 0.5f)];
        else if (format == 1u) word |= (uint)(t * 255.0f + 0.5f) << (8u * k);
        else word |= (uint)(t * 65535.0f + 0.5f) << (16u * k);
    }
    picture[i] = word;
}
