#include "gpu/picture/volume_view.h"

#include <algorithm>

#include "gpu/common/volume_math.h"
#include "gpu/runtime/cuda_check.h"
#include "gpu/runtime/resources.h"

namespace specview::gpu {

namespace {

__device__ __forceinline__ float2 bin_at(const HalfVolume& v, int x, int y, int z) {
    bool conj = false;
    float2 c = v.data[volume_half_index(x, y, z, v.W, v.H, v.D, v.pitch, &conj)];
    if (conj) c.y = -c.y;
    return c;
}

// Picture (row blockIdx.y, column x): the bin of the slice normal to `axis` at k.
__global__ void slice_kernel(HalfVolume v, int axis, int k, View view, bool shift, int rows, int cols,
                             float* __restrict__ out, float2* __restrict__ bins) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= cols || i >= rows) return;
    int x = 0, y = 0, z = 0;
    volume_slice_bin(axis, k, volume_source(i, rows, shift), volume_source(j, cols, shift), &x, &y, &z);
    const float2 c = bin_at(v, x, y, z);
    out[std::size_t(i) * cols + j] = view_value(view, c.x, c.y);
    if (bins) bins[std::size_t(i) * cols + j] = c;
}

// As VolumeSpectrum::projection_values, the axis walked in the same order: the largest view value (by power where
// the view grows with |F|, the top bin's own view value then), or the view of sqrt of the summed power.
__global__ void projection_kernel(HalfVolume v, int axis, bool max, View view, bool shift, int rows, int cols,
                                  float* __restrict__ out) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= cols || i >= rows) return;
    const int a = volume_source(i, rows, shift), b = volume_source(j, cols, shift);
    const int along = axis == 2 ? v.D : axis == 1 ? v.H : v.W;
    const bool by_power = !max || view == View::LogMag || view == View::PowerDb;
    const bool each_view = max && !by_power;
    double acc = max ? -INFINITY : 0.0;
    float2 top = make_float2(0.0f, 0.0f);
    for (int t = 0; t < along; ++t) {
        int x = 0, y = 0, z = 0;
        volume_slice_bin(axis, t, a, b, &x, &y, &z);
        const float2 c = bin_at(v, x, y, z);
        if (each_view) {
            const double e = double(view_value(view, c.x, c.y));
            if (acc < e) acc = e;
        } else {
            const double p = double(c.x) * c.x + double(c.y) * c.y;
            if (!max) {
                acc += p;
            } else if (p > acc) {
                acc = p;
                top = c;
            }
        }
    }
    out[std::size_t(i) * cols + j] = max && by_power ? view_value(view, top.x, top.y)
                                     : max           ? float(acc)
                                                     : view_value(view, float(sqrt(acc)), 0.0f);
}

__global__ void lattice_kernel(HalfVolume v, View view, int step, int nx, int ny, long long total,
                               float* __restrict__ out) {
    for (long long n = blockIdx.x * (long long)blockDim.x + threadIdx.x; n < total;
         n += (long long)gridDim.x * blockDim.x) {
        const long long xi = n % nx, r = n / nx, yi = r % ny, zi = r / ny;
        const float2 c =
            v.data[(std::size_t(zi) * step * v.H + std::size_t(yi) * step) * v.pitch + std::size_t(xi) * step];
        out[n] = view_value(view, c.x, c.y);
    }
}

// A block a row at a time (rows z H + y), its threads along x; the shells summed in shared memory where they fit
// (`local`), then added to the global sums once a block.
__global__ void shell_kernel(HalfVolume v, double sx, double sy, double sz, double m, double norm, int bins,
                             bool local, double* __restrict__ sums, unsigned long long* __restrict__ counts) {
    extern __shared__ double shared_sums[];  // (double: aligned for both arrays)
    double* s_sum = shared_sums;
    unsigned long long* s_count = reinterpret_cast<unsigned long long*>(s_sum + bins);
    double* to_sum = local ? s_sum : sums;
    unsigned long long* to_count = local ? s_count : counts;
    if (local) {
        for (int i = threadIdx.x; i < bins; i += blockDim.x) {
            s_sum[i] = 0.0;
            s_count[i] = 0;
        }
        __syncthreads();
    }
    const int W = v.W, H = v.H, hw = W / 2 + 1;
    const long long rows = (long long)v.D * H;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const int y = int(r % H), z = int(r / H);
        const double fz = volume_fftfreq(z, v.D) / sz, fy = volume_fftfreq(y, H) / sy;
        const double fz2 = fz * fz, fy2 = fy * fy;
        const float2* row = v.data + std::size_t(r) * v.pitch;
        for (int x = threadIdx.x; x < hw; x += blockDim.x) {
            if (x == 0 && y == 0 && z == 0) continue;  // DC left out
            const double fx = volume_fftfreq(x, W) / sx;
            const std::size_t i = volume_shell(fx * fx, fy2, fz2, m);
            if (i >= std::size_t(bins)) continue;  // (the host's bin count covers every radius)
            const int wt = (x == 0 || (W % 2 == 0 && x == W / 2)) ? 1 : 2;
            const float2 c = row[x];
            atomicAdd(&to_sum[i], wt * (double(c.x) * c.x + double(c.y) * c.y) * norm);
            atomicAdd(&to_count[i], (unsigned long long)wt);
        }
    }
    if (!local) return;
    __syncthreads();
    for (int i = threadIdx.x; i < bins; i += blockDim.x)
        if (s_count[i]) {
            atomicAdd(&sums[i], s_sum[i]);
            atomicAdd(&counts[i], s_count[i]);
        }
}

// The phase's and imaginary part's values of the half's mirror: the negatives of the lattice's.
__global__ void negated_kernel(const float* __restrict__ in, long long n, float* __restrict__ out) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        out[i] = -in[i];
}

// The view values (and a slice's bins) through the scratch's pinned buffers: a pageable copy of a 512^2 slice's 3 MB
// took most of the millisecond a slice moved in the viewer on an H100.
std::vector<float> download(VolumeViewScratch& scratch, std::size_t n, cudaStream_t s,
                            std::vector<std::complex<float>>* bins = nullptr) {
    scratch.values_host.resize(std::max<std::size_t>(n, 1));
    CUDA_CHECK(cudaMemcpyAsync(scratch.values_host.get(), scratch.values.get(), n * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
    if (bins) {
        scratch.bins_host.resize(std::max<std::size_t>(n, 1));
        CUDA_CHECK(cudaMemcpyAsync(scratch.bins_host.get(), scratch.bins.get(), n * sizeof(float2),
                                   cudaMemcpyDeviceToHost, s));
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (bins) {
        // (std::complex<float> is two floats, real first, as float2)
        static_assert(sizeof(std::complex<float>) == sizeof(float2));
        const auto* b = reinterpret_cast<const std::complex<float>*>(scratch.bins_host.get());
        bins->assign(b, b + n);
    }
    return std::vector<float>(scratch.values_host.get(), scratch.values_host.get() + n);
}

}  // namespace

std::vector<float> volume_slice(const HalfVolume& v, int axis, int k, View view, bool shift, int rows, int cols,
                                VolumeViewScratch& scratch, cudaStream_t s, std::vector<std::complex<float>>* bins) {
    const std::size_t n = std::size_t(rows) * cols;
    DeviceBuffer<float>& out = scratch.values;
    out.resize(n);
    float2* d_bins = nullptr;
    if (bins) {
        scratch.bins.resize(n);
        d_bins = scratch.bins.get();
    }
    slice_kernel<<<dim3(unsigned((cols + 255) / 256), unsigned(rows)), 256, 0, s>>>(v, axis, k, view, shift, rows,
                                                                                   cols, out.get(), d_bins);
    CUDA_CHECK_LAUNCH("slice_kernel");
    return download(scratch, n, s, bins);
}

std::vector<float> volume_projection(const HalfVolume& v, int axis, bool max, View view, bool shift, int rows,
                                     int cols, VolumeViewScratch& scratch, cudaStream_t s) {
    const std::size_t n = std::size_t(rows) * cols;
    DeviceBuffer<float>& out = scratch.values;
    out.resize(n);
    projection_kernel<<<dim3(unsigned((cols + 127) / 128), unsigned(rows)), 128, 0, s>>>(v, axis, max, view, shift,
                                                                                         rows, cols, out.get());
    CUDA_CHECK_LAUNCH("projection_kernel");
    return download(scratch, n, s);
}

std::vector<float> volume_lattice(const HalfVolume& v, View view, int step, int nx, int ny, int nz,
                                  VolumeViewScratch& scratch, cudaStream_t s) {
    const long long total = (long long)nx * ny * nz;
    DeviceBuffer<float>& out = scratch.values;
    out.resize(std::size_t(total));
    const int blocks = int(std::min<long long>((total + 255) / 256, 4096));
    lattice_kernel<<<blocks, 256, 0, s>>>(v, view, step, nx, ny, total, out.get());
    CUDA_CHECK_LAUNCH("lattice_kernel");
    return download(scratch, std::size_t(total), s);
}

void volume_sample_range(const HalfVolume& v, const ViewParams& vp, int step, int nx, int ny, int nz, bool planes,
                         VolumeViewScratch& scratch, cudaStream_t s, float* lo, float* hi) {
    if (vp.range == RangeMode::Fixed) {  // (nothing to rank)
        *lo = vp.fixed_lo;
        *hi = vp.fixed_hi;
        return;
    }
    const long long lattice = (long long)nx * ny * nz;
    const bool mirrored = vp.view == View::Phase || vp.view == View::Imag;
    const long long plane_z = (long long)v.H * v.W, plane_y = (long long)v.D * v.W, plane_x = (long long)v.D * v.H;
    const long long n = lattice * (mirrored ? 2 : 1) + (planes ? plane_z + plane_y + plane_x : 0);
    DeviceBuffer<float>& all = scratch.values;
    all.resize(std::size_t(std::max(n, 1LL)));
    float* at = all.get();
    if (lattice > 0) {
        const int blocks = int(std::min<long long>((lattice + 255) / 256, 4096));
        lattice_kernel<<<blocks, 256, 0, s>>>(v, vp.view, step, nx, ny, lattice, at);
        CUDA_CHECK_LAUNCH("lattice_kernel");
        if (mirrored) {
            negated_kernel<<<blocks, 256, 0, s>>>(at, lattice, at + lattice);
            CUDA_CHECK_LAUNCH("negated_kernel");
        }
    }
    at += lattice * (mirrored ? 2 : 1);
    if (planes) {  // z (rows H, columns W), y (D, W), x (D, H), unshifted, as slice_values orders them
        const int dims[3][3] = {{2, v.H, v.W}, {1, v.D, v.W}, {0, v.D, v.H}};
        for (const auto& d : dims) {
            slice_kernel<<<dim3(unsigned((d[2] + 255) / 256), unsigned(d[1])), 256, 0, s>>>(v, d[0], 0, vp.view, false,
                                                                                           d[1], d[2], at, nullptr);
            CUDA_CHECK_LAUNCH("slice_kernel");
            at += (long long)d[1] * d[2];
        }
    }
    scratch.range_out.resize(1);
    scratch.range_host.resize(1);
    device_range(all.get(), n, vp, scratch.range, scratch.range_out.get(), s);
    CUDA_CHECK(cudaMemcpyAsync(scratch.range_host.get(), scratch.range_out.get(), sizeof(float2),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    *lo = scratch.range_host.get()->x;
    *hi = scratch.range_host.get()->y;
}

void volume_shell_sums(const HalfVolume& v, double sx, double sy, double sz, double m, double norm, int bins,
                       double* sums, long long* counts, cudaStream_t s) {
    DeviceBuffer<double> d_sums{std::size_t(bins)};
    DeviceBuffer<unsigned long long> d_counts{std::size_t(bins)};
    CUDA_CHECK(cudaMemsetAsync(d_sums.get(), 0, std::size_t(bins) * sizeof(double), s));
    CUDA_CHECK(cudaMemsetAsync(d_counts.get(), 0, std::size_t(bins) * sizeof(unsigned long long), s));
    const std::size_t shared = std::size_t(bins) * (sizeof(double) + sizeof(unsigned long long));
    const bool local = shared <= 40 * 1024;  // (within the default 48 KiB a block)
    const long long rows = (long long)v.D * v.H;
    const int blocks = int(std::min<long long>(rows, 2048));
    shell_kernel<<<blocks, 256, local ? shared : 0, s>>>(v, sx, sy, sz, m, norm, bins, local, d_sums.get(),
                                                         d_counts.get());
    CUDA_CHECK_LAUNCH("shell_kernel");
    std::vector<unsigned long long> c(static_cast<std::size_t>(bins));
    CUDA_CHECK(cudaMemcpyAsync(sums, d_sums.get(), std::size_t(bins) * sizeof(double), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaMemcpyAsync(c.data(), d_counts.get(), c.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                               s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < bins; ++i) counts[i] = (long long)c[std::size_t(i)];
}

}  // namespace specview::gpu
