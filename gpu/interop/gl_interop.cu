#include "gpu/interop/gl_interop.h"

#include <GL/gl.h>
#include <cuda_gl_interop.h>

#include "gpu/runtime/cuda_check.h"

namespace specview::gpu {

bool gl_interop_available(std::string* why) {
    unsigned int count = 0;
    int devices[4];
    const cudaError_t e = cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll);
    if (e != cudaSuccess || count == 0) {
        cudaGetLastError();
        if (why)
            *why = std::string("the OpenGL context is not on a CUDA device") +
                   (e != cudaSuccess ? std::string(" (") + cudaGetErrorString(e) + ")" : "");
        return false;
    }
    return true;
}

namespace {
// A picture into a mapped texture's array through a surface: the driver's device-to-array copy moved 64 MiB in
// 0.16 ms on the H100 (~400 GB/s each way); one coalesced 4-byte store a texel is close to the copy bandwidth.
__global__ void picture_to_surface_kernel(const std::uint32_t* __restrict__ src, int width, int height,
                                          cudaSurfaceObject_t dst) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) surf2Dwrite(src[std::size_t(y) * width + x], dst, x * 4, y);
}

// A decoded frame's samples as the image view shows them (display_rgba's arithmetic: no fused multiply-adds).
template <class T>
__global__ void gray_to_surface_kernel(const unsigned char* __restrict__ src, std::size_t pitch, int width, int height,
                                       int bits, cudaSurfaceObject_t dst) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    T v = reinterpret_cast<const T*>(src + std::size_t(y) * pitch)[x];
    if (bits) v = T(v | (v >> bits));
    const float max = sizeof(T) == 1 ? 255.0f : 65535.0f;
    const std::uint32_t g = std::uint32_t(__fadd_rn(__fmul_rn(__fdiv_rn(float(v), max), 255.0f), 0.5f));
    surf2Dwrite(g | (g << 8) | (g << 16) | 0xFF000000u, dst, x * 4, y);
}

struct Ticket {
    std::atomic<std::int64_t>* ns;
    std::atomic<std::uint64_t>* seq;
    std::uint64_t copy;
};
// Runs on a CUDA driver thread once the stream reaches it: the moment copy `copy` had written the texture.
void stamp_written(void* p) {
    const Ticket* t = static_cast<Ticket*>(p);
    t->ns->store(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
    t->seq->store(t->copy);
    delete t;
}
}  // namespace

GlInteropTexture::~GlInteropTexture() { reset(); }

GlInteropCopier::~GlInteropCopier() {
    if (stream_) cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));  // no stamp into a freed slot
    for (std::uint64_t o : surfaces_) cudaDestroySurfaceObject(cudaSurfaceObject_t(o));
    if (done_) cudaEventDestroy(static_cast<cudaEvent_t>(done_));
    if (decoded_) cudaEventDestroy(static_cast<cudaEvent_t>(decoded_));
    for (void* m : marks_)
        if (m) cudaEventDestroy(static_cast<cudaEvent_t>(m));
    if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void GlInteropCopier::start() {
    if (stream_) return;
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    stream_ = s;
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    done_ = e;
    CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    decoded_ = e;
    for (void*& m : marks_) {
        cudaEvent_t t = nullptr;
        CUDA_CHECK(cudaEventCreate(&t));
        m = t;
    }
    written_ = std::make_unique<Written>();
}

void GlInteropCopier::copy(const Target* targets, int n) {
    if (n < 1 || n > 4) throw GpuError("GlInteropCopier::copy: " + std::to_string(n) + " targets (1 to 4)");
    cudaGraphicsResource_t res[4] = {};
    for (int i = 0; i < n; ++i) {
        const Target& t = targets[i];
        if (!t.texture || !t.texture->registered()) throw GpuError("GlInteropCopier::copy: no texture registered");
        if (t.width != t.texture->width() || t.height != t.texture->height())
            throw GpuError("GlInteropCopier::copy: picture " + std::to_string(t.width) + "x" +
                           std::to_string(t.height) + " for a texture of " + std::to_string(t.texture->width()) + "x" +
                           std::to_string(t.texture->height()));
        res[i] = static_cast<cudaGraphicsResource_t>(t.texture->resource());
        for (int j = 0; j < i; ++j)
            if (res[j] == res[i]) throw GpuError("GlInteropCopier::copy: the same texture twice");
    }
    start();
    const auto t_issue = std::chrono::steady_clock::now();
    auto s = static_cast<cudaStream_t>(stream_);
    auto mark = [&](int i) { CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(marks_[i]), s)); };
    for (int i = 0; i < n; ++i)
        if (!targets[i].device_rgba) {  // a decoder's frame: after its work on the legacy default stream
            if (!targets[i].gray || (targets[i].gray_depth != 8 && targets[i].gray_depth != 16) ||
                targets[i].gray_pitch < std::size_t(targets[i].width) * std::size_t(targets[i].gray_depth / 8))
                throw GpuError(
                    "GlInteropCopier::copy: a target without a picture, or a gray one of a bad depth or pitch");
            CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(decoded_), cudaStreamLegacy));
            CUDA_CHECK(cudaStreamWaitEvent(s, static_cast<cudaEvent_t>(decoded_), 0));
            break;
        }
    mark(0);
    CUDA_CHECK(cudaGraphicsMapResources(n, res, s));
    mark(1);
    // Surface objects of earlier copies, destroyed once those copies are known to be done.
    if (!surfaces_.empty() && cudaEventQuery(static_cast<cudaEvent_t>(done_)) == cudaSuccess) {
        for (std::uint64_t o : surfaces_) cudaDestroySurfaceObject(cudaSurfaceObject_t(o));
        surfaces_.clear();
    }
    cudaGetLastError();  // a "not ready" from the query is no error
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < n && e == cudaSuccess; ++i) {
        const Target& t = targets[i];
        cudaArray_t array = nullptr;
        e = cudaGraphicsSubResourceGetMappedArray(&array, res[i], 0, 0);
        cudaSurfaceObject_t surface = 0;
        if (e == cudaSuccess) {
            cudaResourceDesc desc{};
            desc.resType = cudaResourceTypeArray;
            desc.res.array.array = array;
            e = cudaCreateSurfaceObject(&surface, &desc);
        }
        if (e == cudaSuccess) {
            surfaces_.push_back(std::uint64_t(surface));
            const dim3 block(32, 8), grid((t.width + 31) / 32, (t.height + 7) / 8);
            const auto* gray = static_cast<const unsigned char*>(t.gray);
            if (t.device_rgba)
                picture_to_surface_kernel<<<grid, block, 0, s>>>(t.device_rgba, t.width, t.height, surface);
            else if (t.gray_depth == 8)
                gray_to_surface_kernel<std::uint8_t>
                    <<<grid, block, 0, s>>>(gray, t.gray_pitch, t.width, t.height, 0, surface);
            else
                gray_to_surface_kernel<std::uint16_t>
                    <<<grid, block, 0, s>>>(gray, t.gray_pitch, t.width, t.height, t.gray_significant_bits, surface);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess && t.consumed_event)
            e = cudaEventRecord(reinterpret_cast<cudaEvent_t>(t.consumed_event), s);
    }
    if (e == cudaSuccess) mark(2);
    CUDA_CHECK(cudaGraphicsUnmapResources(n, res, s));
    CUDA_CHECK(e);
    mark(3);
    CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(done_), s));
    issue_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_issue).count();
    auto* ticket = new Ticket{&written_->ns, &written_->seq, ++copies_};
    const cudaError_t e3 = cudaLaunchHostFunc(s, stamp_written, ticket);
    if (e3 != cudaSuccess) delete ticket;
    CUDA_CHECK(e3);
}

void GlInteropCopier::upload_rows(GlInteropTexture& texture, const std::uint32_t* host_rgba, int y0, int rows) {
    if (!texture.registered()) throw GpuError("GlInteropCopier::upload_rows: no texture registered");
    if (y0 < 0 || rows < 1 || y0 + rows > texture.height())
        throw GpuError("GlInteropCopier::upload_rows: rows " + std::to_string(y0) + "+" + std::to_string(rows) +
                       " of a texture of " + std::to_string(texture.height()));
    start();
    auto s = static_cast<cudaStream_t>(stream_);
    auto r = static_cast<cudaGraphicsResource_t>(texture.resource());
    CUDA_CHECK(cudaGraphicsMapResources(1, &r, s));
    cudaArray_t array = nullptr;
    cudaError_t e = cudaGraphicsSubResourceGetMappedArray(&array, r, 0, 0);
    const std::size_t pitch = std::size_t(texture.width()) * 4;
    if (e == cudaSuccess)
        e = cudaMemcpy2DToArrayAsync(array, 0, std::size_t(y0), host_rgba + std::size_t(y0) * texture.width(), pitch,
                                     pitch, std::size_t(rows), cudaMemcpyHostToDevice, s);
    CUDA_CHECK(cudaGraphicsUnmapResources(1, &r, s));  // GL's later use of the texture waits for the copy
    CUDA_CHECK(e);
    CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(done_), s));
}

std::chrono::steady_clock::time_point GlInteropCopier::written_at() const {
    const std::int64_t ns = written_ && written_->seq.load() == copies_ ? written_->ns.load() : 0;
    return std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::nanoseconds(ns)));
}

void GlInteropCopier::wait() noexcept {
    if (stream_) cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
}

bool GlInteropCopier::done() const {
    if (!done_) return true;
    if (written_->seq.load() != copies_) return false;  // its stamp comes after the copy
    const cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(done_));
    if (e == cudaErrorNotReady) return false;
    CUDA_CHECK(e);
    return true;
}

bool GlInteropCopier::last_split(Split* out) const {
    if (!done_ || !done()) return false;
    float ms[3] = {};
    for (int i = 0; i < 3; ++i)
        if (cudaEventElapsedTime(&ms[i], static_cast<cudaEvent_t>(marks_[i]),
                                 static_cast<cudaEvent_t>(marks_[i + 1])) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
    *out = Split{issue_ms_, ms[0], ms[1], ms[2]};
    return true;
}

void GlInteropTexture::reset() noexcept {
    if (resource_) cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_));
    resource_ = nullptr;
    texture_ = 0;
    width_ = height_ = 0;
}

void GlInteropTexture::register_texture(unsigned int texture, int width, int height) {
    if (resource_ && texture == texture_ && width == width_ && height == height_) return;
    reset();
    cudaGraphicsResource_t r = nullptr;
    CUDA_CHECK(cudaGraphicsGLRegisterImage(&r, texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsSurfaceLoadStore));
    resource_ = r;
    texture_ = texture;
    width_ = width;
    height_ = height;
}

GlInteropTexture::Mapping GlInteropTexture::map() {
    if (!resource_) throw GpuError("GlInteropTexture::map: no texture registered");
    auto r = static_cast<cudaGraphicsResource_t>(resource_);
    CUDA_CHECK(cudaGraphicsMapResources(1, &r));
    cudaArray_t array = nullptr;
    cudaSurfaceObject_t surface = 0;
    try {
        CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, r, 0, 0));
        cudaResourceDesc desc{};
        desc.resType = cudaResourceTypeArray;
        desc.res.array.array = array;
        CUDA_CHECK(cudaCreateSurfaceObject(&surface, &desc));
    } catch (...) {
        cudaGraphicsUnmapResources(1, &r);
        throw;
    }
    return Mapping(resource_, surface);
}

GlInteropTexture::Mapping::Mapping(Mapping&& o) noexcept : resource_(o.resource_), surface_(o.surface_) {
    o.resource_ = nullptr;
    o.surface_ = 0;
}

GlInteropTexture::Mapping::~Mapping() {
    if (!resource_) return;
    // The kernels that wrote the surface ran on the engine's stream, which it synchronised before returning;
    // unmapping orders GL after them.
    cudaDestroySurfaceObject(surface_);
    auto r = static_cast<cudaGraphicsResource_t>(resource_);
    cudaGraphicsUnmapResources(1, &r);
}

}  // namespace specview::gpu
