// CUDA-OpenGL interop: a GL RGBA8 texture that CUDA writes directly (a surface object for kernels, or a
// device-to-device copy of a picture), with no copy through the host. Registered once (again only when the size
// changes), mapped per use. CUDA-free header: the UI includes it next to its GL code.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

    void* resource() const { return resource_; }  // cudaGraphicsResource_t

private:
    void* resource_ = nullptr;  // cudaGraphicsResource_t
    unsigned int texture_ = 0;
    int width_ = 0, height_ = 0;
};

// Copies pictures from device memory into registered textures on a stream of its own, asynchronously (map,
// device-to-device copies, unmap: the host never waits). All textures of one copy() are mapped by one call: each
// map waits on the device for GL's earlier work (about 0.3-0.5 ms seen on the H100 machine, whichever texture),
// so one map for the spectrum and the lab's view instead of two.
class GlInteropCopier {
public:
    GlInteropCopier() = default;
    ~GlInteropCopier();
    GlInteropCopier(const GlInteropCopier&) = delete;
    GlInteropCopier& operator=(const GlInteropCopier&) = delete;

    struct Target {
        GlInteropTexture* texture;
        const std::uint32_t* device_rgba;  // width x height RGBA8, the texture's size
        int width, height;
        std::uint64_t consumed_event;  // cudaEvent_t recorded after this copy (the producer's buffer is free), or 0
        // Or (device_rgba null) one channel shown gray, as the image view shows 8/16-bit samples (ui/worker/worker.h's
        // display_rgba: 8-bit as is, 16-bit round(v / 65535 * 255)): a video frame NVDEC decoded, rows gray_pitch
        // bytes apart, 16-bit ones widened by gray_significant_bits (as DeviceSamples says), written by work on
        // the legacy default stream (the copy waits for it on the device).
        const void* gray = nullptr;
        std::size_t gray_pitch = 0;
        int gray_depth = 8;
        int gray_significant_bits = 0;
    };
    void copy(const Target* targets, int n);
    // Rows y0 .. y0 + rows - 1 of a width-wide RGBA8 picture in (pageable) host memory into the texture (its width),
    // through the driver's staging: the host buffer may go as soon as this returns. glTexSubImage2D of the same
    // bands ran at ~1.6 GB/s on the H100 machine's EGL context.
    void upload_rows(GlInteropTexture& texture, const std::uint32_t* host_rgba, int y0, int rows);
    // Whether the last copy() has completed on the device.
    bool done() const;
    // Blocks until it has (before the textures it writes are unregistered or deleted).
    void wait() noexcept;
    // When the last copy finished writing its textures, on the host's steady clock (stamped by a host function
    // queued behind it, so nobody waits for it); the epoch when no copy has finished yet.
    std::chrono::steady_clock::time_point written_at() const;
    // The last completed copy, split: the host's time in copy(), and on the device the map (which waits for GL's
    // earlier work), the copies and the unmap. False while it runs or before any.
    struct Split {
        double issue_ms = 0, map_ms = 0, copy_ms = 0, unmap_ms = 0;
    };
    bool last_split(Split* out) const;

private:
    void start();  // the stream and events, on first use
    struct Written {
        std::atomic<std::int64_t> ns{0};    // steady_clock nanoseconds
        std::atomic<std::uint64_t> seq{0};  // of the copy stamped last
    };
    std::unique_ptr<Written> written_;
    std::uint64_t copies_ = 0;  // copies issued
    void* stream_ = nullptr;    // cudaStream_t, created on first copy
    void* done_ = nullptr;      // cudaEvent_t after the last copy
    void* decoded_ = nullptr;   // cudaEvent_t on the legacy default stream (a decoder's frame) before a gray copy
    void* marks_[4] = {};       // timed cudaEvent_t: before the map, after it, after the copy, after the unmap
    double issue_ms_ = 0;
    std::vector<std::uint64_t> surfaces_;  // cudaSurfaceObject_t of copies not yet known done
};

}  // namespace specview::gpu
