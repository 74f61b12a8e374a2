// Seed 001's radix-2 FFT in OpenCL C: a global kernel (Cooley-Tukey) for the stages whose butterflies span more than
// a work-group's block, a local kernel (in local memory, H rows a work-group) for the rest, bit-reversed order written
// back as natural order; and the padded tiled transpose (seed 000 section 3.3). The local kernel's work-items loop
// over the block's butterflies (the seed's one butterfly a work-item where there are len / 2 of them), as
// gpu/glsl/seed_fft.glsl's do. The butterflies are the CUDA custom kernels' (seed 000's in-order decimation in time),
// so that classroom stops show the same data; twiddles from a table of n / 2 values exp(-2 pi i k / n) made in double
// precision on the host. Complex values are float2 (re, im). Spans are powers of two: shifts and masks, no division.

inline float2 cmul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// log2n-bit reversal of i (OpenCL C has no bit-reverse builtin): the 32 bits reversed by swaps, then shifted down.
inline uint bit_reverse(uint i, uint log2n) {
    if (log2n == 0) return 0;
    i = ((i >> 1) & 0x55555555u) | ((i & 0x55555555u) << 1);
    i = ((i >> 2) & 0x33333333u) | ((i & 0x33333333u) << 2);
    i = ((i >> 4) & 0x0F0F0F0Fu) | ((i & 0x0F0F0F0Fu) << 4);
    i = ((i >> 8) & 0x00FF00FFu) | ((i & 0x00FF00FFu) << 8);
    i = (i >> 16) | (i << 16);
    return i >> (32 - log2n);
}

inline uint log2u(uint n) { return 31 - clz(n); }  // n a power of two

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
    const uint log2n = log2u(n), ls = log2u(span);
    const size_t row = g >> (log2n - 1);
    if (row >= rows) return;
    const uint b = (uint)g & (n / 2 - 1);
    const uint grp = b >> ls, p = (grp << (ls + 1)) + (b & (span - 1));
    __global float2* r = data + row * n;
    float2 a = r[p], c = r[p + span];
    butterfly(&a, &c, twiddles[bit_reverse(grp, log2n - 1)]);
    r[p] = a;
    r[p + span] = c;
}

// Up to `stages` of the remaining stages of each block of `len` values (spans len / 2 .. 1) in local memory, `rows`
// rows of n values, from `in` to `out`: in natural order (`natural`: the row's bins, through the bit reversal) or as
// the butterflies leave them (classroom stops). Work-group (T, H): T work-items a row loop over the block's len / 2
// butterflies, y is the row of the group; group (bx, by) holds block bx of rows by H .. by H + H - 1. `tile` is
// len x H float2 of local memory.
// Where a row's value i lies in its part of the tile: the top four bits of i folded into the bottom four (the CUDA
// kernel's swizzle), so that the bit-reversed read of the natural-order write-back - consecutive work-items reading
// values len / 32 apart, one bank - and the short spans' butterflies spread over the banks.
uint swz(uint i, uint log2len) { return log2len >= 8 ? i ^ ((i >> (log2len - 4)) & 15u) : i; }

__kernel void fft_local(__global const float2* in, __global float2* out, __global const float2* twiddles, uint n,
                        uint len, uint rows, uint stages, uint natural, __local float2* tile) {
    const uint tx = get_local_id(0), ty = get_local_id(1), T = get_local_size(0);
    const uint block = get_group_id(0);
    const size_t row = (size_t)get_group_id(1) * get_local_size(1) + ty;
    const uint h = len / 2;
    __local float2* t = tile + ty * len;
    const bool live = row < rows;
    __global const float2* src = in + row * n + (size_t)block * len;
    const uint log2n = log2u(n), log2len = log2u(len);
    if (live)
        for (uint k = tx; k < len; k += T) t[swz(k, log2len)] = src[k];
    uint done = 0;
    for (uint ls = log2len - 1, span = h; span >= 1 && done < stages; span >>= 1, --ls, ++done) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (live)
            for (uint b = tx; b < h; b += T) {
                const uint lg = b >> ls, p = (lg << (ls + 1)) + (b & (span - 1));
                const uint grp = ((block << log2len) >> (ls + 1)) + lg;  // the group in the whole row
                const uint p0 = swz(p, log2len), p1 = swz(p + span, log2len);
                float2 a = t[p0], c = t[p1];
                butterfly(&a, &c, twiddles[bit_reverse(grp, log2n - 1)]);
                t[p0] = a;
                t[p1] = c;
            }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!live) return;
    if (!natural) {
        __global float2* dst = out + row * n + (size_t)block * len;
        for (uint k = tx; k < len; k += T) dst[k] = t[swz(k, log2len)];
        return;
    }
    // Position q of the block holds bin bitrev(block len + q) of the row: the block's low bits reversed are the bin's
    // high bits. Read the block back in the bins' order (q = bitrev of the local bin), so consecutive work-items
    // write consecutive bins where the row is one block.
    const uint high = bit_reverse(block, log2n - log2len);  // where this block's bins start, strided by n / len
    for (uint k = tx; k < len; k += T)
        out[row * n + (size_t)k * (n / len) + high] = t[swz(bit_reverse(k, log2len), log2len)];
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
