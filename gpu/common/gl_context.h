// A GL context that shares its objects (textures, buffers, sync objects) with the viewer's, for the worker's thread:
// the viewer's window makes it (ui/platform), the GL engine (gpu/glsl) runs in it and leaves the picture in a texture
// the viewer's context can read. No GL header: only how to make it current and find its entry points.
#pragma once

#include <functional>
#include <string>

namespace specview::gpu {

struct GlSharedContext {
    std::function<bool()> make_current;              // on the calling thread (a no-op where it is already)
    std::function<void()> release;                   // nothing current on the calling thread
    std::function<void*(const char*)> proc_address;  // an entry point, with the context current
    std::string version;                             // "4.5 (Core Profile) Mesa 22.3.6"
};

}  // namespace specview::gpu
