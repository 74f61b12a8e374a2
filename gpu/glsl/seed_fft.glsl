// Seed 001's radix-2 FFT in OpenGL compute shaders: the kernels of gpu/opencl/seed_fft.cl in GLSL 4.30, one source
// with a section a shader (EXPAND, ROW_GLOBAL, ROW_LOCAL, TRANSPOSE, chosen by a #define), the work-group shape and the
// shared memory's size #defined per configuration (GLSL needs them at compile time). gl_fft.cpp prepends
// "#version 430" and the defines. The butterflies are the CUDA custom kernels' (seed 000's in-order decimation in
// time, twiddle W^bitrev(group)), so classroom stops show the same data. Complex values are vec2 (re, im).

vec2 cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
uint bit_reverse(uint i, uint bits) { return bits == 0u ? 0u : bitfieldReverse(i) >> (32u - bits); }
uint log2u(uint n) { return uint(findMSB(n)); }  // n a power of two

#if defined(PLANE)
// The plane from the image's samples as decoded (kept on the device: uploaded once an image), app/core/plane.cpp's
// arithmetic operation for operation (gpu/common/plane_shape.h; `precise`: no fused multiply-adds), straight into the
// complex buffer: data[y][x] = (value of content pixel (x, y), 0), zeros outside the content (crop_x, crop_y: where the
// content starts in the image).
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Samples { uint samples[]; };  // 8/16-bit packed 4/2 a uint, or floats
layout(std430, binding = 1) writeonly buffer Data { vec2 data[]; };
layout(std430, binding = 2) readonly buffer Window { double window[]; };  // wx (cw), then wy (ch); or the radial table
layout(std430, binding = 3) readonly buffer Lut { float lut[]; };         // an 8/16-bit sample's value (v / 255, ...)
layout(std430, binding = 4) readonly buffer Shape { double shape[]; };    // level a, bx, by; radial cx, hx, cy, hy
uniform uint image_w, channels, channel, bits, crop_x, crop_y, cw, ch, pw, ph, level, radial, table_n;
float sample_at(uint i) {
    if (bits == 8u) return lut[(samples[i >> 2] >> (8u * (i & 3u))) & 0xFFu];
    if (bits == 16u) return lut[(samples[i >> 1] >> (16u * (i & 1u))) & 0xFFFFu];
    return uintBitsToFloat(samples[i]);
}
float channel_value(uint px) {  // px: the pixel's first sample
    if (channel == 0u) {
        if (channels < 3u) return sample_at(px);
        precise float r = 0.2126 * sample_at(px), g = 0.7152 * sample_at(px + 1u), b = 0.0722 * sample_at(px + 2u);
        precise float rg = r + g;
        precise float l = rg + b;
        return l;
    }
    const uint c = channel - 1u;  // r, g, b, a
    if (c == 3u) return sample_at(px + channels - 1u);
    return sample_at(channels >= 3u ? px + c : px);
}
void main() {
    const uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= pw || y >= ph) return;
    float v = 0.0;
    if (x < cw && y < ch) {
        precise double d = double(channel_value(((y + crop_y) * image_w + (x + crop_x)) * channels));
        if (level != 0u) {
            precise double t = shape[1] * double(x);
            t = t + shape[0];
            precise double u = shape[2] * double(y);
            t = t + u;
            d = d - t;
        }
        if (radial == 0u) {
            precise double dw = d * window[x];
            d = dw * window[cw + y];
        } else {
            const double rx = shape[4] > 0.0 ? (double(x) - shape[3]) / shape[4] : 0.0;
            const double ry = shape[6] > 0.0 ? (double(y) - shape[5]) / shape[6] : 0.0;
            precise double rr = rx * rx + ry * ry;
            double rho = sqrt(rr);
            if (rho > 1.0) rho = 1.0;
            precise double pos = (1.0 - rho) * double(table_n - 1u);
            uint i = uint(pos);
            if (i > table_n - 2u) i = table_n - 2u;
            precise double frac = pos - double(i);
            precise double w = window[i] + (window[i + 1u] - window[i]) * frac;
            d = d * w;
        }
        v = float(d);
    }
    data[y * pw + x] = vec2(v, 0.0);
}
#elif defined(EXPAND)
// data[y][x] = (real[y * stride + x], 0): the real plane as uploaded (rows `stride` floats apart) made complex.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Real { float real[]; };
layout(std430, binding = 1) writeonly buffer Data { vec2 data[]; };
uniform uint width, height, stride;
void main() {
    const uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x < width && y < height) data[y * width + x] = vec2(real[y * stride + x], 0.0);
}
#elif defined(ROW_GLOBAL)
// One stage of span `span` (>= the local length) over `rows` rows of n values, in place: invocation (x, row) is
// butterfly x of that row.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { vec2 data[]; };
layout(std430, binding = 2) readonly buffer Twiddles { vec2 twiddles[]; };
uniform uint n, span, rows;
void main() {
    const uint b = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
    if (b >= n / 2u || row >= rows) return;
    const uint ls = log2u(span);  // spans are powers of two: shifts and masks, not integer division
    const uint grp = b >> ls, p = row * n + (grp << (ls + 1u)) + (b & (span - 1u));
    const vec2 a = data[p], t = cmul(twiddles[bit_reverse(grp, log2u(n) - 1u)], data[p + span]);
    data[p] = a + t;
    data[p + span] = a - t;
}
#elif defined(ROW_LOCAL)
// Up to `stages` of the remaining stages of each block of LEN values in shared memory, H rows a work-group, `in` to
// `out`: in natural order (`natural`) or as the butterflies leave them (classroom stops). THREADS invocations a row
// (at most LEN / 2: then one butterfly each a stage, the seed's; fewer loop over the LEN / 2 butterflies).
layout(local_size_x = THREADS, local_size_y = H) in;
layout(std430, binding = 0) readonly buffer In { vec2 src[]; };
layout(std430, binding = 1) writeonly buffer Out { vec2 dst[]; };
layout(std430, binding = 2) readonly buffer Twiddles { vec2 twiddles[]; };
uniform uint n, rows, stages, natural;
shared vec2 tile[LEN * H];
// Where a row's value i lies in its part of the tile: the top four bits of i folded into the bottom four (the CUDA
// kernel's swizzle), so that the bit-reversed read of the natural-order write-back - consecutive invocations reading
// values LEN / 32 apart, one bank - and the short spans' butterflies spread over the banks.
uint swz(uint i, uint log2len) { return log2len >= 8u ? i ^ ((i >> (log2len - 4u)) & 15u) : i; }
void main() {
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, block = gl_WorkGroupID.x;
    const uint row = gl_WorkGroupID.y * uint(H) + ty, h = uint(LEN) / 2u, t0 = ty * uint(LEN);
    const bool live = row < rows;
    const uint log2n = log2u(n), log2len = log2u(uint(LEN));
    if (live)
        for (uint k = tx; k < uint(LEN); k += uint(THREADS))
            tile[t0 + swz(k, log2len)] = src[row * n + block * uint(LEN) + k];
    uint done = 0u;
    // Spans are powers of two: the butterfly's group and place by shifts and masks (integer division is a loop of
    // instructions on GPUs).
    for (uint ls = log2len - 1u, span = h; span >= 1u && done < stages; span >>= 1u, --ls, ++done) {
        barrier();
        if (live)
            for (uint b = tx; b < h; b += uint(THREADS)) {
                const uint lg = b >> ls, p = (lg << (ls + 1u)) + (b & (span - 1u));
                const uint grp = ((block << log2len) >> (ls + 1u)) + lg;  // the group in the whole row
                const uint p0 = t0 + swz(p, log2len), p1 = t0 + swz(p + span, log2len);
                const vec2 a = tile[p0], t = cmul(twiddles[bit_reverse(grp, log2n - 1u)], tile[p1]);
                tile[p0] = a + t;
                tile[p1] = a - t;
            }
    }
    barrier();
    if (!live) return;
    if (natural == 0u) {
        for (uint k = tx; k < uint(LEN); k += uint(THREADS))
            dst[row * n + block * uint(LEN) + k] = tile[t0 + swz(k, log2len)];
        return;
    }
    // Position q of the block holds bin bitrev(block LEN + q): the block's bins start at bitrev(block), n / LEN apart.
    const uint high = bit_reverse(block, log2n - log2len);
    for (uint k = tx; k < uint(LEN); k += uint(THREADS))
        dst[row * n + k * (n / uint(LEN)) + high] = tile[t0 + swz(bit_reverse(k, log2len), log2len)];
}
#elif defined(TRANSPOSE)
// dst (cols x rows) = src (rows x cols) transposed through a T x (T + 1) tile.
layout(local_size_x = T, local_size_y = T) in;
layout(std430, binding = 0) readonly buffer In { vec2 src[]; };
layout(std430, binding = 1) writeonly buffer Out { vec2 dst[]; };
uniform uint rows, cols;
shared vec2 tile[T * (T + 1)];
void main() {
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    const uint c0 = gl_WorkGroupID.x * uint(T), r0 = gl_WorkGroupID.y * uint(T);
    if (r0 + ty < rows && c0 + tx < cols) tile[ty * uint(T + 1) + tx] = src[(r0 + ty) * cols + c0 + tx];
    barrier();
    const uint r = c0 + ty, c = r0 + tx;  // the output's row is the input's column
    if (r < cols && c < rows) dst[r * rows + c] = tile[tx * uint(T + 1) + ty];
}
#endif
