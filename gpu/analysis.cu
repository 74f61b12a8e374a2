#include "gpu/analysis.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "gpu/cuda_check.h"
#include "gpu/errors.h"
#include "gpu/mask_math.h"  // bin_frequency

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

// One thread a stored bin (grid-stride); per-block histograms in shared memory when they fit (`shared_radial`),
// else straight into global memory. A half source's bin stands for its mirror too, except in columns 0 and
// w/2 (whose mirrors are stored bins of their own); the mirror's angle is computed from its own frequencies
// (at a Nyquist row they are not the negated ones).
__global__ void power_profile_kernel(SpectrumSource s, int rbins, bool shared_radial, double* __restrict__ rsum,
                                     unsigned long long* __restrict__ rcount, double* __restrict__ asum,
                                     unsigned long long* __restrict__ acount) {
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
    const long long n = (long long)cols * h;
    const double norm = 1.0 / (double(w) * double(h));
    auto add = [&](int kx, int ky, float p) {
        const double u = bin_frequency(kx, w), v = bin_frequency(ky, h);
        const int r = radial_index(u, v, m), a = angle_index(u, v);
        atomicAdd(&s_asum[a], p);
        atomicAdd(&s_acount[a], 1u);
        if (shared_radial) {
            atomicAdd(&s_rsum[r], p);
            atomicAdd(&s_rcount[r], 1u);
        } else {
            atomicAdd(&rsum[r], double(p));
            atomicAdd(&rcount[r], 1ull);
        }
    };
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const int y = int(i / cols), x = int(i - (long long)y * cols);
        const float2 c = s.data[std::size_t(y) * s.ld + x];
        const float p = float((double(c.x) * c.x + double(c.y) * c.y) * norm);
        if (x != 0 || y != 0) add(x, y, p);
        if (s.half && x > 0 && !(w % 2 == 0 && x == w / 2)) add(w - x, y == 0 ? 0 : h - y, p);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < nshared; i += blockDim.x) {
        if (i < kAngles) {
            if (s_acount[i]) {
                atomicAdd(&asum[i], double(s_asum[i]));
                atomicAdd(&acount[i], (unsigned long long)s_acount[i]);
            }
        } else if (s_rcount[i - kAngles]) {
            atomicAdd(&rsum[i - kAngles], double(s_rsum[i - kAngles]));
            atomicAdd(&rcount[i - kAngles], (unsigned long long)s_rcount[i - kAngles]);
        }
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
    const long long stored = (long long)(src.half ? src.width / 2 + 1 : src.width) * src.height;
    const int blocks = int(std::max<long long>(1, std::min<long long>((stored + kThreads - 1) / kThreads, 2LL * sms)));
    CUDA_CHECK(cudaEventRecord(start_.get(), s));
    CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, total * sizeof(double), s));
    CUDA_CHECK(cudaMemsetAsync(counts_.get(), 0, total * sizeof(unsigned long long), s));
    power_profile_kernel<<<blocks, kThreads, smem, s>>>(src, rbins, shared_radial, sums_.get(), counts_.get(),
                                                        sums_.get() + rbins, counts_.get() + rbins);
    CUDA_CHECK_LAUNCH("power_profile_kernel");
    CUDA_CHECK(cudaEventRecord(stop_.get(), s));
    CUDA_CHECK(cudaMemcpyAsync(sums_host_.get(), sums_.get(), total * sizeof(double), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaMemcpyAsync(counts_host_.get(), counts_.get(), total * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
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
        if (kx[i] < 0 || ky[i] < 0 || kx[i] >= src.width || ky[i] >= src.height) throw ConfigError("bin outside the spectrum");
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
