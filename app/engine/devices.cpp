#include "app/engine/devices.h"

#include <fftw3.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "app/engine/cpu_backend.h"
#include "gpu/common/errors.h"
#include "gpu/runtime/device_info.h"
#ifdef SPECVIEW_HAS_OPENCL
#include "gpu/opencl/cl_fft.h"
#endif
#ifdef SPECVIEW_HAS_GLSL
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
    const int cuda_count = std::max(1, gpu::cuda_device_count());  // (one line when there is none, saying why)
    for (int i = 0; i < cuda_count; ++i) {
        const gpu::DeviceInfo d = gpu::probe_device(i);
        DeviceLine cuda{"cuda", std::to_string(i), "", d.available, d.why_unavailable};
        cuda.name = d.available ? d.name + " (sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ", " +
                                      gib(double(d.total_memory)) + "; custom, cufft, custom-fast)"
                                : "(no CUDA device)";
        out.push_back(cuda);
    }
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

std::vector<int> parse_gpus(const std::string& text, int count, const std::string& why_none) {
    const std::string usage = "--gpus " + text + ": all, or CUDA device numbers as --list-devices prints them (0,1,3)";
    std::vector<int> out;
    if (text == "all") {
        if (count < 1) throw gpu::GpuUnavailable(why_none.empty() ? "no CUDA device found" : why_none);
        for (int i = 0; i < count; ++i) out.push_back(i);
        return out;
    }
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, comma - at);
        if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
            throw gpu::ConfigError(usage);
        const int d = std::stoi(item);
        if (std::find(out.begin(), out.end(), d) != out.end())
            throw gpu::ConfigError(usage + "; device " + item + " is named twice");
        out.push_back(d);
        at = comma + 1;
    }
    for (int d : out)
        if (d >= count)
            throw gpu::GpuUnavailable(
                "CUDA device " + std::to_string(d) + " does not exist: " +
                (count == 0 ? (why_none.empty() ? std::string("no CUDA device found") : why_none)
                            : "this machine has " + std::to_string(count) + " (0" +
                                  (count > 1 ? " to " + std::to_string(count - 1) : std::string()) + ")"));
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
