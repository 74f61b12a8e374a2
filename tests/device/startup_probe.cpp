// What a process pays on this machine before its first CUDA work, apart from specview: the driver's cuInit, the
// primary context, the runtime's first calls, and an EGL device display beside them (the viewer opens its
// offscreen window while the GPU is probed). run.sh tiff16 compiles and runs it:
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include tests/device/startup_probe.cpp -o probe -lcuda -ldl -lpthread
//   probe driver | runtime | runtime+egl | egl
// Prints milliseconds from main() to the end of each step.
#include <cuda.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

namespace {

const auto t0 = std::chrono::steady_clock::now();
double ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); }

void check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) {
        const char* s = nullptr;
        cuGetErrorString(r, &s);
        std::fprintf(stderr, "%s failed: %s\n", what, s ? s : "?");
        std::exit(1);
    }
}

void driver(const char* tag) {
    check(cuInit(0), "cuInit");
    std::printf("%s cuInit %.1f\n", tag, ms());
    CUdevice d;
    check(cuDeviceGet(&d, 0), "cuDeviceGet");
    CUcontext c;
    check(cuDevicePrimaryCtxRetain(&c, d), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(c), "cuCtxSetCurrent");
    std::printf("%s primary context %.1f\n", tag, ms());
    CUdeviceptr p;
    check(cuMemAlloc(&p, 1 << 20), "cuMemAlloc");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    std::printf("%s first allocation %.1f\n", tag, ms());
}

// The runtime through dlopen (libcudart.so.13 from the toolkit), as specview links it.
void runtime(const char* tag) {
    void* rt = dlopen("libcudart.so.13", RTLD_NOW);
    if (!rt) rt = dlopen("/usr/local/cuda/lib64/libcudart.so.13", RTLD_NOW);
    if (!rt) {
        std::fprintf(stderr, "no libcudart: %s\n", dlerror());
        std::exit(1);
    }
    std::printf("%s runtime loaded %.1f\n", tag, ms());
    auto count = reinterpret_cast<int (*)(int*)>(dlsym(rt, "cudaGetDeviceCount"));
    auto free0 = reinterpret_cast<int (*)(void*)>(dlsym(rt, "cudaFree"));
    int n = 0;
    if (count(&n) != 0 || n < 1) std::exit(1);
    std::printf("%s cudaGetDeviceCount %.1f\n", tag, ms());
    if (free0(nullptr) != 0) std::exit(1);
    std::printf("%s cudaFree(0) (context) %.1f\n", tag, ms());
}

// An EGL display on the first NVIDIA device, initialised (what the offscreen window does first).
void egl(const char* tag) {
    void* lib = dlopen("libEGL.so.1", RTLD_NOW);
    if (!lib) {
        std::printf("%s no libEGL: %s\n", tag, dlerror());
        return;
    }
    using GetProc = void* (*)(const char*);
    auto get_proc = reinterpret_cast<GetProc>(dlsym(lib, "eglGetProcAddress"));
    auto query = reinterpret_cast<unsigned (*)(int, void**, int*)>(get_proc("eglQueryDevicesEXT"));
    auto display = reinterpret_cast<void* (*)(unsigned, void*, const int*)>(get_proc("eglGetPlatformDisplayEXT"));
    auto init = reinterpret_cast<unsigned (*)(void*, int*, int*)>(dlsym(lib, "eglInitialize"));
    void* devices[8];
    int n = 0;
    if (!query || !display || !init || !query(8, devices, &n) || n < 1) {
        std::printf("%s no EGL device\n", tag);
        return;
    }
    std::printf("%s EGL devices queried %.1f\n", tag, ms());
    void* d = display(0x313F /* EGL_PLATFORM_DEVICE_EXT */, devices[0], nullptr);
    int major = 0, minor = 0;
    const bool ok = d && init(d, &major, &minor);
    std::printf("%s EGL display initialised (%s) %.1f\n", tag, ok ? "ok" : "failed", ms());
}

}  // namespace

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "driver";
    std::printf("%s main %.1f\n", what.c_str(), ms());
    if (what == "driver")
        driver("driver");
    else if (what == "runtime")
        runtime("runtime");
    else if (what == "egl")
        egl("egl");
    else if (what == "runtime+egl") {
        std::thread t([] { egl("  egl"); });
        runtime("  runtime");
        t.join();
    } else {
        std::fprintf(stderr, "usage: %s driver|runtime|egl|runtime+egl\n", argv[0]);
        return 2;
    }
    std::printf("%s done %.1f\n", what.c_str(), ms());
    return 0;
}
