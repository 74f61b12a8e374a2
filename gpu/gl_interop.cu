#include "gpu/gl_interop.h"

#include <GL/gl.h>
#include <cuda_gl_interop.h>

#include "gpu/cuda_check.h"

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

GlInteropTexture::~GlInteropTexture() { reset(); }

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
