#include "app/engine/devices.h"

#include <fftw3.h>

#include <cstdio>
#include <thread>

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
                           gib(double(c.global_memory)) + (c.gl_sharing ? ", cl_khr_gl_sharing" : "") + ")",
                       c.usable, c.why, c.gl_sharing});
    if (cl.empty()) out.push_back({"opencl", "", "(no OpenCL device)", false, why});
#else
    out.push_back({"opencl", "", "(no OpenCL device)", false, "this specview was built without OpenCL"});
#endif
    const GlProbe& gl = probe_gl();
    out.push_back({"gl", "", gl.usable ? gl.renderer + (gl.hardware ? "" : " (software)") : "(no OpenGL compute context)",
                   gl.usable, gl.why});
    out.push_back({"cpu", "", std::string(fftwf_version) + ", " + std::to_string(cpu_fft_threads()) +
                                  " threads",
                   true, ""});
    return out;
}

const GlProbe& probe_gl() {
    static const GlProbe probe = [] {
        GlProbe p;
#ifdef SPECVIEW_HAS_GLSL
        std::thread([&p] {  // (a headless context made and dropped: tens of ms)
            try {
                const gpu::GlFft gl;
                p.usable = true;
                p.hardware = !gl.software();
                p.renderer = gl.renderer();
            } catch (const std::exception& e) {
                p.why = e.what();
            }
        }).join();
#else
        p.why = "this specview was built without OpenGL compute";
#endif
        return p;
    }();
    return probe;
}

}  // namespace specview
