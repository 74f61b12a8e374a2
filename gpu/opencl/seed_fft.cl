// Seed 001's radix-2 FFT in OpenCL C: one butterfly per work-item and stage; a global kernel (Cooley-Tukey) for the
// stages whose butterflies span more than a work-group's row, a local kernel (constant geometry, in local memory,
// H rows a work-group) for the rest, bit-reversed order written back as natural order; and the padded tiled
// transpose (seed 000 section 3.3). Decimation in frequency: each stage a + b, (a - b) w, twiddles from a table of
// n / 2 values exp(-2 pi i k / n) made in double precision on the host. Complex values are float2 (re, im).

inline float2 cmul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// log2n-bit reversal of i (OpenCL C 1.2 has no bit-reverse builtin).
inline uint bit_reverse(uint i, uint log2n) {
    uint r = 0;
    for (uint b = 0; b < log2n; ++b) r = (r << 1) | ((i >> b) & 1u);
    return r;
}

// One stage of span `half` (>= the local length) over `rows` rows of n values, in place: work-item g is butterfly
// g % (n / 2) of row g / (n / 2).
__kernel void fft_global_stage(__global float2* data, __global const float2* twiddles, uint n, uint half_span,
                               uint rows) {
    const size_t g = get_global_id(0);
    const uint per_row = n / 2;
    const size_t row = g / per_row;
    if (row >= rows) return;
    const uint b = (uint)(g % per_row);
    const uint i = b % half_span, p = (b / half_span) * 2 * half_span + i;
    __global float2* r = data + row * n;
    const float2 a = r[p], c = r[p + half_span];
    r[p] = a + c;
    r[p + half_span] = cmul(a - c, twiddles[i * (n / (2 * half_span))]);
}

// The remaining stages of each block of `len` values (spans len / 2 .. 1) in local memory, `rows` rows of n values,
// from `in` to `out` in natural order. Work-group (len / 2, H): local id x is the butterfly, y the row of the group;
// group (bx, by) holds block bx of rows by H .. by H + H - 1. `tile` is len x H float2 of local memory.
__kernel void fft_local(__global const float2* in, __global float2* out, __global const float2* twiddles, uint n,
                        uint len, uint rows, __local float2* tile) {
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
    for (uint span = h; span >= 1; span /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (live) {
            const uint i = tx % span, p = (tx / span) * 2 * span + i;
            const float2 a = t[p], c = t[p + span];
            t[p] = a + c;
            t[p + span] = cmul(a - c, twiddles[i * (n / (2 * span))]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!live) return;
    // Position q of the block holds bin bitrev(block len + q) of the row: the block's low bits reversed are the bin's
    // high bits. Read the block back in the bins' order (q = bitrev of the local bin), so consecutive work-items
    // write consecutive bins where the row is one block.
    uint log2n = 0, log2len = 0;
    while ((1u << log2n) < n) ++log2n;
    while ((1u << log2len) < len) ++log2len;
    const uint blocks_bits = log2n - log2len;
    const uint high = bit_reverse(block, blocks_bits);  // where this block's bins start, strided by n / len
    for (uint k = tx; k < len; k += h) {
        // local bin k (its place among the block's bins) sits at q = bitrev(k, log2len)
        const float2 v = t[bit_reverse(k, log2len)];
        out[row * n + (size_t)k * (n / len) + high] = v;
    }
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
