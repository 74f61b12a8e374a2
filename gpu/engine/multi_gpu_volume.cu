#include "gpu/engine/multi_gpu_volume.h"

#include <cufftXt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "gpu/common/errors.h"
#include "gpu/runtime/cuda_check.h"
#include "gpu/runtime/device_info.h"

namespace specview::gpu {

namespace {
constexpr int kMaxGpus = 16;  // cuFFT's single-process multi-GPU limit
constexpr int kMinSide = 32;  // and its smallest side

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string gib(double bytes) {  // (GiB, or MiB below one)
    char b[32];
    if (bytes < 1024.0 * 1024.0 * 1024.0)
        std::snprintf(b, sizeof b, "%.1f MiB", bytes / (1024.0 * 1024.0));
    else
        std::snprintf(b, sizeof b, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return b;
}

// Bytes of one depth plane in the padded in-place layout: height rows of (width/2 + 1) complex values.
double plane_bytes(int width, int height) { return 8.0 * (double(width) / 2 + 1) * double(height); }
}  // namespace

double MultiGpuLayout::total_bytes() const {
    double t = 0;
    for (const MultiGpuShare& s : shares) t += s.data_bytes + s.work_bytes;
    return t;
}

std::string MultiGpuLayout::text() const {
    std::string t;
    for (const MultiGpuShare& s : shares) {
        t += "GPU " + std::to_string(s.gpu) + ": z " + std::to_string(s.first_plane) + "-" +
             std::to_string(s.first_plane + s.planes - 1) + " (" + std::to_string(s.planes) + " planes), " +
             gib(s.data_bytes) + " data + " + gib(s.work_bytes) + " work area" + (measured ? "" : " (estimated)") +
             "\n";
    }
    return t;
}

std::string multi_gpu_refusal(const std::vector<int>& gpus, int width, int height, int depth) {
    const int n = int(gpus.size());
    if (n < 2) return "cuFFT's multi-GPU plans take 2 to 16 GPUs (one GPU: the cufft backend alone)";
    if (n > kMaxGpus) return "cuFFT's multi-GPU plans take at most 16 GPUs, not " + std::to_string(n);
    if (width < kMinSide || height < kMinSide || depth < kMinSide)
        return "cuFFT's multi-GPU plans need every side at least 32 (the volume is " + std::to_string(width) + "x" +
               std::to_string(height) + "x" + std::to_string(depth) + ")";
    if (depth < n) return "fewer depth planes than GPUs";
    return "";
}

MultiGpuLayout estimate_multi_gpu_layout(const std::vector<int>& gpus, int width, int height, int depth) {
    MultiGpuLayout l;
    l.width = width;
    l.height = height;
    l.depth = depth;
    const int n = std::max<int>(1, int(gpus.size()));
    int z = 0;
    for (int i = 0; i < int(gpus.size()); ++i) {
        MultiGpuShare s;
        s.gpu = gpus[std::size_t(i)];
        s.first_plane = z;
        s.planes = depth / n + (i < depth % n ? 1 : 0);
        s.data_bytes = plane_bytes(width, height) * s.planes;
        s.work_bytes = s.data_bytes;
        z += s.planes;
        l.shares.push_back(s);
    }
    return l;
}

int largest_split_cube(int n, double bytes_per_gpu) {
    int best = 0;
    for (int side = kMinSide; side <= 65536; side += kMinSide) {
        const std::vector<int> gpus(std::size_t(std::max(1, n)), 0);
        const MultiGpuLayout l = estimate_multi_gpu_layout(gpus, side, side, side);
        const MultiGpuShare& most = l.shares.front();  // (the first GPUs hold the most planes)
        if (most.data_bytes + most.work_bytes > bytes_per_gpu) break;
        best = side;
    }
    return best;
}

struct MultiGpuVolumeFft::Impl {
    cufftHandle plan = 0;
    bool planned = false;
    cudaLibXtDesc* desc = nullptr;
    std::vector<int> gpus;
    std::size_t host_bytes = 0;
};

MultiGpuVolumeFft::MultiGpuVolumeFft(const std::vector<int>& gpus, int width, int height, int depth)
    : impl_(new Impl) {
    try {
        if (const std::string why = multi_gpu_refusal(gpus, width, height, depth); !why.empty())
            throw ConfigError(why);
        for (int g : gpus) {
            const DeviceInfo d = probe_device(g);
            if (!d.available) throw GpuUnavailable("GPU " + std::to_string(g) + ": " + d.why_unavailable);
        }
        Impl& m = *impl_;
        m.gpus = gpus;
        m.host_bytes = std::size_t(plane_bytes(width, height) * depth);
        CUDA_CHECK(cudaSetDevice(gpus.front()));
        CUFFT_CHECK(cufftCreate(&m.plan));
        m.planned = true;
        CUFFT_CHECK(cufftXtSetGPUs(m.plan, int(gpus.size()), m.gpus.data()));
        std::vector<std::size_t> work(gpus.size(), 0);
        CUFFT_CHECK(cufftMakePlan3d(m.plan, depth, height, width, CUFFT_R2C, work.data()));
        CUFFT_CHECK(cufftXtMalloc(m.plan, &m.desc, CUFFT_XT_FORMAT_INPLACE));
        layout_ = estimate_multi_gpu_layout(gpus, width, height, depth);
        layout_.measured = true;
        for (std::size_t i = 0; i < gpus.size(); ++i) {  // what cuFFT planned and allocated
            layout_.shares[i].work_bytes = double(work[i]);
            if (int(i) < m.desc->descriptor->nGPUs) layout_.shares[i].data_bytes = double(m.desc->descriptor->size[i]);
        }
    } catch (...) {
        release();
        throw;
    }
}

MultiGpuVolumeFft::~MultiGpuVolumeFft() { release(); }

void MultiGpuVolumeFft::release() {
    if (!impl_) return;
    if (impl_->desc) cufftXtFree(impl_->desc);
    if (impl_->planned) cufftDestroy(impl_->plan);
    delete impl_;
    impl_ = nullptr;
}

void MultiGpuVolumeFft::forward(float* host) {
    Impl& m = *impl_;
    auto t = std::chrono::steady_clock::now();
    // Pinned for the copies where the host lets us (pageable copies go at a fraction of the link's speed).
    const bool pinned = cudaHostRegister(host, m.host_bytes, cudaHostRegisterPortable) == cudaSuccess;
    if (!pinned) cudaGetLastError();
    struct Unpin {
        bool on;
        void* p;
        ~Unpin() {
            if (on) cudaHostUnregister(p);
        }
    } unpin{pinned, host};
    CUFFT_CHECK(cufftXtMemcpy(m.plan, m.desc, host, CUFFT_COPY_HOST_TO_DEVICE));
    upload_ms = ms_since(t);
    t = std::chrono::steady_clock::now();
    CUFFT_CHECK(cufftXtExecDescriptor(m.plan, m.desc, m.desc, CUFFT_FORWARD));
    for (int g : m.gpus) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    fft_ms = ms_since(t);
    t = std::chrono::steady_clock::now();
    CUFFT_CHECK(cufftXtMemcpy(m.plan, host, m.desc, CUFFT_COPY_DEVICE_TO_HOST));  // natural order
    download_ms = ms_since(t);
}

}  // namespace specview::gpu
