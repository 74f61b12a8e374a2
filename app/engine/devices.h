// Every backend's devices, one line each, for `specview --list-devices` and the Device panel: the CUDA device (the
// custom, cufft and custom-fast backends), each OpenCL platform's devices (--backend opencl --opencl-device P:D), the
// OpenGL compute context (--backend gl) and the CPU (FFTW), each usable or why not.
#pragma once

#include <string>
#include <vector>

namespace specview {

struct DeviceLine {
    std::string backend;  // "cuda", "opencl", "gl", "cpu"
    std::string id;       // "0" (CUDA), "P:D" (OpenCL), "" (CPU)
    std::string name;     // the device's name and what it is
    bool usable = false;
    std::string why;      // why not, when not usable
    bool gl_sharing = false;  // OpenCL: the device offers cl_khr_gl_sharing (named in `name` too)
    std::string text() const;  // "opencl 0:0  NVIDIA H100 ... : usable" / "... : unusable: why"
};

std::vector<DeviceLine> list_devices();

// --gpus: "all" (every CUDA device this process sees) or device numbers as --list-devices prints them, comma
// separated ("0,1,3"), each once; `count` devices exist (why_none: why there are none). Throws gpu::ConfigError for
// a list that is not one (exit 2) and gpu::GpuUnavailable for a device that does not exist (exit 4).
std::vector<int> parse_gpus(const std::string& text, int count, const std::string& why_none);

// The OpenGL compute context --backend gl would get (probed once a process, on a thread of its own so that no context
// current on the caller's changes): whether there is one, on a GPU or a software renderer.
struct GlProbe {
    bool usable = false, hardware = false;
    std::string renderer, why;
};
const GlProbe& probe_gl();

}  // namespace specview
