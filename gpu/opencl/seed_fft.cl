// Seed 001's radix-2 FFT in OpenCL C: one butterfly per work-item and stage; a global kernel (Cooley-Tukey) for the
// stages whose butterflies span more than a work-group's row, a local kernel (in local memory, H rows a work-group)
// for the rest, bit-reversed order written back as natural order; and the padded tiled transpose (seed 000 section
// 3.3). The butterflies are the CUDA custom kernels' (seed 000's in-order decimation in time), so that classroom
// stops show the same data; twiddles from a table of n / 2 values exp(-2 pi i k / n) made in double precision on the
// host. Complex values are float2 (re, im).

inline float2 cmul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// log2n-bit reversal of i (OpenCL C 1.2 has no bit-reverse builtin).
inline uint bit_reverse(uint i, uint log2n) {
    uint r = 0;
    for (uint b = 0; b < log2n; ++b) r = (r << 1) | ((i >> b) & 1u);
    return r;
}

inline uint log2u(uint n) {
    uint l = 0;
    while ((1u << l) < n) ++l;
    return l;
}

// The seed's butterfly (seed 000 section 2.2: decimation in time with the input in natural order, the output
// bit-reversed): at every stage the pair (p, p + span) of group g = p / (2 span) takes t = W_n^bitrev(g) x[p + span],
// x[p] + t and x[p] - t, the twiddle's exponent g's bits reversed in log2(n) - 1 bits (app/engine/staged_fft.h is
// the same on the CPU, to the stage).
inline void butterfly(float2* a, float2* b, float2 w) {
    const float2 t = cmul(w, *b);
    *b = *a - t;
    *a = *a + t;
}

// One stage of span `span` (>= the local length) over `rows` rows of n values, in place: work-item g is butterfly
// g % (n / 2) of row g / (n / 2).
__kernel void fft_global_stage(__global float2* data, __global const float2* twiddles, uint n, uint span, uint rows) {
    const size_t g = get_global_id(0);
    const uint per_row = n / 2;
    const size_t row = g / per_row;
    if (row >= rows) return;
    const uint b = (uint)(g % per_row);
    const uint grp = b / span, p = grp * 2 * span + b % span;
    __global float2* r = data + row * n;
    float2 a = r[p], c = r[p + span];
    butterfly(&a, &c, twiddles[bit_reverse(grp, log2u(n) - 1)]);
    r[p] = a;
    r[p + span] = c;
}

// Up to `stages` of the remaining stages of each block of `len` values (spans len / 2 .. 1) in local memory, `rows`
// rows of n values, from `in` to `out`: in natural order (`natural`: the row's bins, through the bit reversal) or as
// the butterflies leave them (classroom stops). Work-group (len / 2, H): local id x is the butterfly, y the row of
// the group; group (bx, by) holds block bx of rows by H .. by H + H - 1. `tile` is len x H float2 of local memory.
__kernel void fft_local(__global const float2* in, __global float2* out, __global const float2* twiddles, uint n,
                        uint len, uint rows, uint stages, uint natural, __local float2* tile) {
    const uint tx = get_local_id(0), ty = get_local_id(1);
    const uint block = get_group_id(0);
    const size_t row = (size_t)get_group_id(1) * get_local_size(1) + ty;
    const uint h = len / 2;
    __local float2* t = tile + ty * len;
    const bool live = row < rows;
    if (live) {
        t[tx] = in[row * n + block * len + tx];
        t[tx + h] = in[row * n + block * len + tx + h];
    }
    const uint log2n = log2u(n), log2len = log2u(len);
    uint done = 0;
    for (uint span = h; span >= 1 && done < stages; span /= 2, ++done) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (live) {
            const uint lg = tx / span, p = lg * 2 * span + tx % span;
            const uint grp = block * len / (2 * span) + lg;  // the group in the whole row
            float2 a = t[p], c = t[p + span];
            butterfly(&a, &c, twiddles[bit_reverse(grp, log2n - 1)]);
            t[p] = a;
            t[p + span] = c;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!live) return;
    if (!natural) {
        out[row * n + block * len + tx] = t[tx];
        out[row * n + block * len + tx + h] = t[tx + h];
        return;
    }
    // Position q of the block holds bin bitrev(block len + q) of the row: the block's low bits reversed are the bin's
    // high bits. Read the block back in the bins' order (q = bitrev of the local bin), so consecutive work-items
    // write consecutive bins where the row is one block.
    const uint high = bit_reverse(block, log2n - log2len);  // where this block's bins start, strided by n / len
    for (uint k = tx; k < len; k += h) out[row * n + (size_t)k * (n / len) + high] = t[bit_reverse(k, log2len)];
}

// out (cols x rows) = in (rows x cols) transposed, through a T x (T + 1) tile (no bank conflicts); work-group (T, T).
__kernel void transpose(__global const float2* in, __global float2* out, uint rows, uint cols,
                        __local float2* tile) {
    const uint T = get_local_size(0);
    const uint tx = get_local_id(0), ty = get_local_id(1);
    const uint c0 = get_group_id(0) * T, r0 = get_group_id(1) * T;
    uint c = c0 + tx, r = r0 + ty;
    if (r < rows && c < cols) tile[ty * (T + 1) + tx] = in[(size_t)r * cols + c];
    barrier(CLK_LOCAL_MEM_FENCE);
    c = r0 + tx;  // the output's column is the input's row
    r = c0 + ty;
    if (r < cols && c < rows) out[(size_t)r * rows + c] = tile[tx * (T + 1) + ty];
}

// data[y][x] = (real[y * stride + x], 0): the real plane as uploaded (rows `stride` floats apart) made complex.
__kernel void expand(__global const float* real, __global float2* data, uint width, uint height, uint stride) {
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x < width && y < height) data[y * width + x] = (float2)(real[y * stride + x], 0.0f);
}
