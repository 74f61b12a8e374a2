// CUDA-OpenGL interop: a GL RGBA8 texture that CUDA kernels write directly through a surface object, with
// no copy through the host. Registered once (again only when the size changes), mapped per frame in a
// scoped object. CUDA-free header: the UI includes it next to its GL code.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace specview::gpu {

// Whether the current GL context runs on a CUDA device this process can use; if not, why (e.g. a Mesa
// context on a machine whose NVIDIA GPU renders nothing). Needs a current GL context.
bool gl_interop_available(std::string* why);

class GlInteropTexture {
public:
    GlInteropTexture() = default;
    ~GlInteropTexture();
    GlInteropTexture(const GlInteropTexture&) = delete;
    GlInteropTexture& operator=(const GlInteropTexture&) = delete;

    // Registers GL_TEXTURE_2D `texture` (GL_RGBA8, width x height) for surface load/store. A no-op when the
    // same texture at the same size is registered already; throws GpuError on failure.
    void register_texture(unsigned int texture, int width, int height);
    void reset() noexcept;
    bool registered() const { return resource_ != nullptr; }
    int width() const { return width_; }
    int height() const { return height_; }

    // While alive, the texture belongs to CUDA: surface() is a cudaSurfaceObject_t for kernels to write.
    class Mapping {
    public:
        ~Mapping();
        Mapping(const Mapping&) = delete;
        Mapping& operator=(const Mapping&) = delete;
        Mapping(Mapping&& o) noexcept;
        std::uint64_t surface() const { return surface_; }

    private:
        friend class GlInteropTexture;
        Mapping(void* resource, std::uint64_t surface) : resource_(resource), surface_(surface) {}
        void* resource_ = nullptr;
        std::uint64_t surface_ = 0;
    };
    Mapping map();

    // Copies a width x height RGBA8 picture from device memory into the texture, asynchronously on the
    // texture's own stream (map, device-to-device copy, unmap: the host never waits). Records
    // `consumed_event` (a cudaEvent_t, or 0) after the copy, so the producer may reuse its buffer once it is
    // done. copy_done() says whether the last copy has completed on the device.
    void copy_from(const std::uint32_t* device_rgba, int width, int height, std::uint64_t consumed_event);
    bool copy_done() const;
    // When the last copy finished writing the texture, on the host's steady clock (stamped by a host function
    // queued behind it, so nobody waits for it); the epoch when no copy has finished yet.
    std::chrono::steady_clock::time_point written_at() const;

private:
    struct Written {
        std::atomic<std::int64_t> ns{0};    // steady_clock nanoseconds
        std::atomic<std::uint64_t> seq{0};  // of the copy stamped last
    };
    std::unique_ptr<Written> written_;
    std::uint64_t copies_ = 0;  // copies issued
    void* stream_ = nullptr;  // cudaStream_t, created on first copy
    void* done_ = nullptr;    // cudaEvent_t after the last copy
    void* resource_ = nullptr;  // cudaGraphicsResource_t
    unsigned int texture_ = 0;
    int width_ = 0, height_ = 0;
};

}  // namespace specview::gpu
