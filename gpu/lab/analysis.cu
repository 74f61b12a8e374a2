#include "gpu/lab/analysis.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "gpu/runtime/cuda_check.h"
#include "gpu/common/errors.h"
#include "gpu/common/mask_math.h"  // bin_frequency

namespace specview::gpu {
namespace {

constexpr int kAngles = 180;
constexpr int kThreads = 256;

int radial_bins(int w, int h) { return int(std::ceil(std::sqrt(0.5) * std::max(w, h))) + 2; }

__device__ __forceinline__ int radial_index(double u, double v, int m) { return int(llround(sqrt(u * u + v * v) * m)); }
__device__ __forceinline__ int angle_index(double u, double v) {
    double a = atan2(-v, u) * (180.0 / 3.14159265358979323846);
    if (a < 0) a += 180.0;
    if (a >= 180.0) a -= 180.0;
    return min(179, int(floor(a)));
}

// The bins' indices in float, with the host's double computation only where float could land on the other
// side of a bin edge (within a margin far above float's error): the same bins as the host, at float speed.
__device__ __forceinline__ int radial_index_fast(float uf, float vf, double u, double v, int m) {
    const float t = sqrtf(uf * uf + vf * vf) * float(m);
    if (fabsf(t - floorf(t) - 0.5f) < 1e-3f + t * 4e-6f) return radial_index(u, v, m);
    return int(floorf(t + 0.5f));
}
// `exact`: set when the angle lies near an edge (0 and 180 included) and was taken in double.
__device__ __forceinline__ int angle_index_fast(float uf, float vf, double u, double v, bool* exact) {
    float a = atan2f(-vf, uf) * (180.0f / 3.14159265358979f);
    if (a < 0.0f) a += 180.0f;
    if (a >= 180.0f) a -= 180.0f;
    *exact = fabsf(a - rintf(a)) < 2e-3f;
    if (*exact) return angle_index(u, v);
    return min(179, int(floorf(a)));
}

// Adds into one histogram bin at a time: consecutive bins of a row mostly fall into the same radial and angular
// bins, so a run is summed in registers and added once (shared-memory atomics on one address serialise).
struct RunSum {
    int bin = -1;
    float sum = 0.0f;
    unsigned int count = 0;
    __device__ void add(int b, float p, unsigned int k, float* s_sum, unsigned int* s_count, double* g_sum,
                        unsigned long long* g_count, bool counting) {
        if (b != bin) {
            flush(s_sum, s_count, g_sum, g_count, counting);
            bin = b;
        }
        sum += p * float(k);
        count += k;
    }
    __device__ void flush(float* s_sum, unsigned int* s_count, double* g_sum, unsigned long long* g_count,
                          bool counting) {
        if (bin < 0 || count == 0) return;
        if (s_sum) {
            atomicAdd(&s_sum[bin], sum);
            if (counting) atomicAdd(&s_count[bin], count);
        } else {
            atomicAdd(&g_sum[bin], double(sum));
            if (counting) atomicAdd(&g_count[bin], (unsigned long long)count);
        }
        sum = 0.0f;
        count = 0;
    }
};

// One thread a run of kRun stored bins of a row (grid-stride over the runs); per-block histograms in shared
// memory when the radial one fits (`shared_radial`), else radial sums straight into global memory. A half
// source's bin stands for its mirror too, except in columns 0 and w/2 (whose mirrors are stored bins of their
// own): the mirror (-u, -v) has the same radius and, mod 180 degrees, the same angle, so it counts twice; in
// an even height's Nyquist row its v is not negated, and near an angular edge rounding may part them, so there
// its bins are computed on their own. Counts depend on the size only: `counting` runs once per size.
constexpr int kRun = 16;
__global__ void power_profile_kernel(SpectrumSource s, int rbins, bool shared_radial, bool counting,
                                     double* __restrict__ rsum, unsigned long long* __restrict__ rcount,
                                     double* __restrict__ asum, unsigned long long* __restrict__ acount) {
    extern __shared__ unsigned char smem[];
    float* s_asum = reinterpret_cast<float*>(smem);
    unsigned int* s_acount = reinterpret_cast<unsigned int*>(s_asum + kAngles);
    float* s_rsum = reinterpret_cast<float*>(s_acount + kAngles);
    unsigned int* s_rcount = reinterpret_cast<unsigned int*>(s_rsum + (shared_radial ? rbins : 0));
    const int nshared = kAngles + (shared_radial ? rbins : 0);
    for (int i = threadIdx.x; i < nshared; i += blockDim.x) {
        if (i < kAngles) {
            s_asum[i] = 0.0f;
            s_acount[i] = 0u;
        } else {
            s_rsum[i - kAngles] = 0.0f;
            s_rcount[i - kAngles] = 0u;
        }
    }
    __syncthreads();
    const int w = s.width, h = s.height, m = max(w, h);
    const int cols = s.half ? w / 2 + 1 : w;
    const int runs_per_row = (cols + kRun - 1) / kRun;
    const long long runs = (long long)runs_per_row * h;
    const float norm = float(1.0 / (double(w) * double(h)));
    float* sr = shared_radial ? s_rsum : nullptr;
    RunSum rr, ra;
    for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < runs;
         g += (long long)gridDim.x * blockDim.x) {
        const int y = int(g / runs_per_row), x0 = int(g - (long long)y * runs_per_row) * kRun;
        const int x1 = min(cols, x0 + kRun);
        const double v = bin_frequency(y, h);
        const float vf = float(v);
        const bool nyquist_row = h % 2 == 0 && y == h / 2;
        const int my = y == 0 ? 0 : h - y;
        const double vm = bin_frequency(my, h);
        const float2* row = s.data + std::size_t(y) * s.ld;
        for (int x = x0; x < x1; ++x) {
            const float2 c = row[x];
            const float p = (c.x * c.x + c.y * c.y) * norm;
            const double u = bin_frequency(x, w);
            const float uf = float(u);
            const bool mirrored = s.half && x > 0 && !(w % 2 == 0 && x == w / 2);
            if (x == 0 && y == 0) continue;  // DC left out (its mirror is itself)
            bool exact = false;
            const int r = radial_index_fast(uf, vf, u, v, m);
            const int a = angle_index_fast(uf, vf, u, v, &exact);
            const bool separate = mirrored && (nyquist_row || exact);
            rr.add(r, p, mirrored ? 2u : 1u, sr, s_rcount, rsum, rcount, counting);
            ra.add(a, p, mirrored && !separate ? 2u : 1u, s_asum, s_acount, asum, acount, counting);
            if (separate) {
                const double um = bin_frequency(w - x, w);
                ra.add(angle_index_fast(float(um), float(vm), um, vm, &exact), p, 1u, s_asum, s_acount, asum, acount,
                       counting);
            }
        }
    }
    rr.flush(sr, s_rcount, rsum, rcount, counting);
    ra.flush(s_asum, s_acount, asum, acount, counting);
    __syncthreads();
    for (int i = threadIdx.x; i < nshared; i += blockDim.x) {
        const bool angular = i < kAngles;
        const int b = angular ? i : i - kAngles;
        const float sum = angular ? s_asum[b] : s_rsum[b];
        const unsigned int count = angular ? s_acount[b] : s_rcount[b];
        if (sum != 0.0f) atomicAdd(angular ? &asum[b] : &rsum[b], double(sum));
        if (counting && count) atomicAdd(angular ? &acount[b] : &rcount[b], (unsigned long long)count);
    }
}

__global__ void gather_kernel(SpectrumSource s, const int* __restrict__ kx, const int* __restrict__ ky, int n,
                              float2* __restrict__ out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int x = kx[i], y = ky[i];
    if (!s.half || x <= s.width / 2) {
        out[i] = s.data[std::size_t(y) * s.ld + x];
    } else {
        const float2 v = s.data[std::size_t(y == 0 ? 0 : s.height - y) * s.ld + (s.width - x)];
        out[i] = make_float2(v.x, -v.y);
    }
}

__global__ void accumulate_kernel(SpectrumSource s, double* __restrict__ acc) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= s.width || y >= s.height) return;
    float2 v;
    if (!s.half || x <= s.width / 2) {
        v = s.data[std::size_t(y) * s.ld + x];
    } else {
        v = s.data[std::size_t(y == 0 ? 0 : s.height - y) * s.ld + (s.width - x)];
    }
    acc[std::size_t(y) * s.width + x] += double(v.x) * v.x + double(v.y) * v.y;
}

}  // namespace

void accumulate_power(const SpectrumSource& src, double* acc, cudaStream_t s) {
    const dim3 block(32, 8), grid((src.width + 31) / 32, (src.height + 7) / 8);
    accumulate_kernel<<<grid, block, 0, s>>>(src, acc);
    CUDA_CHECK_LAUNCH("accumulate_kernel");
}

PowerSums PowerProfiler::run(const SpectrumSource& src, cudaStream_t s) {
    if (!src.data || src.width < 1 || src.height < 1) throw ConfigError("no spectrum for the power profiles");
    const int rbins = radial_bins(src.width, src.height);
    const std::size_t total = std::size_t(rbins) + kAngles;
    sums_.resize(total);
    counts_.resize(total);
    sums_host_.resize(total);
    counts_host_.resize(total);
    // Radial histograms in shared memory up to 48 KiB a block (spectra up to about 8600 along the longer side).
    const std::size_t angular_bytes = kAngles * 8;
    const bool shared_radial = angular_bytes + std::size_t(rbins) * 8 <= 48 * 1024;
    const std::size_t smem = angular_bytes + (shared_radial ? std::size_t(rbins) * 8 : 0);
    int device = 0, sms = 1;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    // The counts depend on the size alone: taken by the first run at a size and kept.
    const bool counting = !(counts_w_ == src.width && counts_h_ == src.height && counts_half_ == src.half);
    const long long runs = (long long)((src.half ? src.width / 2 + 1 : src.width) + kRun - 1) / kRun * src.height;
    int per_sm = 1;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, power_profile_kernel, kThreads, smem));
    const int blocks = int(std::max<long long>(
        1, std::min<long long>((runs + kThreads - 1) / kThreads, (long long)std::max(1, std::min(per_sm, 4)) * sms)));
    CUDA_CHECK(cudaEventRecord(start_.get(), s));
    CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, total * sizeof(double), s));
    if (counting) CUDA_CHECK(cudaMemsetAsync(counts_.get(), 0, total * sizeof(unsigned long long), s));
    power_profile_kernel<<<blocks, kThreads, smem, s>>>(src, rbins, shared_radial, counting, sums_.get(), counts_.get(),
                                                        sums_.get() + rbins, counts_.get() + rbins);
    CUDA_CHECK_LAUNCH("power_profile_kernel");
    CUDA_CHECK(cudaEventRecord(stop_.get(), s));
    CUDA_CHECK(cudaMemcpyAsync(sums_host_.get(), sums_.get(), total * sizeof(double), cudaMemcpyDeviceToHost, s));
    if (counting)
        CUDA_CHECK(cudaMemcpyAsync(counts_host_.get(), counts_.get(), total * sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (counting) {
        counts_w_ = src.width;
        counts_h_ = src.height;
        counts_half_ = src.half;
    }
    PowerSums out;
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    out.ms = ms;
    const double* sh = sums_host_.get();
    const unsigned long long* ch = counts_host_.get();
    out.radial_sum.assign(sh, sh + rbins);
    out.angular_sum.assign(sh + rbins, sh + total);
    out.radial_count.assign(ch, ch + rbins);
    out.angular_count.assign(ch + rbins, ch + total);
    out.width = src.width;
    out.height = src.height;
    return out;
}

std::vector<float2> gather_bins(const SpectrumSource& src, const std::vector<int>& kx, const std::vector<int>& ky,
                                cudaStream_t s) {
    if (kx.size() != ky.size()) throw ConfigError("gather_bins: as many kx as ky");
    for (std::size_t i = 0; i < kx.size(); ++i)
        if (kx[i] < 0 || ky[i] < 0 || kx[i] >= src.width || ky[i] >= src.height)
            throw ConfigError("bin outside the spectrum");
    const int n = int(kx.size());
    std::vector<float2> out(kx.size());
    if (n == 0) return out;
    DeviceBuffer<int> dkx(kx.size()), dky(ky.size());
    DeviceBuffer<float2> dout(kx.size());
    CUDA_CHECK(cudaMemcpyAsync(dkx.get(), kx.data(), kx.size() * sizeof(int), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(dky.get(), ky.data(), ky.size() * sizeof(int), cudaMemcpyHostToDevice, s));
    gather_kernel<<<(n + 255) / 256, 256, 0, s>>>(src, dkx.get(), dky.get(), n, dout.get());
    CUDA_CHECK_LAUNCH("gather_kernel");
    CUDA_CHECK(cudaMemcpyAsync(out.data(), dout.get(), kx.size() * sizeof(float2), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    return out;
}

}  // namespace specview::gpu
