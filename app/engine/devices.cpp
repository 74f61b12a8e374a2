#include "app/engine/devices.h"

#include <fftw3.h>

#include <cstdio>

#include "app/engine/cpu_backend.h"
#include "gpu/runtime/device_info.h"
#ifdef SPECVIEW_HAS_OPENCL
#include "gpu/opencl/cl_fft.h"
#endif
#ifdef SPECVIEW_HAS_GLSL
#include "gpu/common/errors.h"
#include "gpu/glsl/gl_fft.h"
#endif

namespace specview {

std::string DeviceLine::text() const {
    std::string t = backend + (id.empty() ? "" : " " + id) + "  " + name + ": ";
    return t + (usable ? "usable" : "unusable: " + why);
}

namespace {
std::string gib(double bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    return b;
}
}  // namespace

std::vector<DeviceLine> list_devices() {
    std::vector<DeviceLine> out;
    const gpu::DeviceInfo d = gpu::probe_device();
    DeviceLine cuda{"cuda", "0", "", d.available, d.why_unavailable};
    cuda.name = d.available ? d.name + " (sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ", " +
                                  gib(double(d.total_memory)) + "; custom, cufft, custom-fast)"
                            : "(no CUDA device)";
    out.push_back(cuda);
#ifdef SPECVIEW_HAS_OPENCL
    std::string why;
    const std::vector<gpu::OpenClDeviceInfo> cl = gpu::list_opencl_devices(&why);
    for (const gpu::OpenClDeviceInfo& c : cl)
        out.push_back({"opencl", std::to_string(c.platform) + ":" + std::to_string(c.device),
                       c.name + " (" + c.platform_name + ", " + c.version + (c.gpu ? ", GPU" : "") + ", " +
                           gib(double(c.global_memory)) + ")",
                       c.usable, c.why});
    if (cl.empty()) out.push_back({"opencl", "", "(no OpenCL device)", false, why});
#else
    out.push_back({"opencl", "", "(no OpenCL device)", false, "this specview was built without OpenCL"});
#endif
#ifdef SPECVIEW_HAS_GLSL
    try {  // (a headless context made and dropped: tens of ms)
        const gpu::GlFft gl;
        out.push_back({"gl", "", gl.renderer() + (gl.software() ? " (software)" : ""), true, ""});
    } catch (const std::exception& e) {
        out.push_back({"gl", "", "(no OpenGL compute context)", false, e.what()});
    }
#else
    out.push_back({"gl", "", "(no OpenGL compute context)", false, "this specview was built without OpenGL compute"});
#endif
    out.push_back({"cpu", "", std::string(fftwf_version) + ", " + std::to_string(cpu_fft_threads()) +
                                  " threads",
                   true, ""});
    return out;
}

}  // namespace specview
