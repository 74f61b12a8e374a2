#include "gpu/opencl/cl_fft.h"

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpu/common/errors.h"
#include "gpu/common/seed_checks.h"
#include "gpu/common/ranked_range.h"
#include "gpu/opencl/seed_fft_cl.h"       // kSeedFftCl: seed_fft.cl, embedded at configure time
#include "gpu/opencl/spectrum_view_cl.h"  // kSpectrumViewCl: spectrum_view.cl

namespace specview::gpu {

namespace {

const char* cl_error_name(cl_int e) {
    switch (e) {
        case CL_DEVICE_NOT_FOUND:
            return "CL_DEVICE_NOT_FOUND";
        case CL_DEVICE_NOT_AVAILABLE:
            return "CL_DEVICE_NOT_AVAILABLE";
        case CL_COMPILER_NOT_AVAILABLE:
            return "CL_COMPILER_NOT_AVAILABLE";
        case CL_MEM_OBJECT_ALLOCATION_FAILURE:
            return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
        case CL_OUT_OF_RESOURCES:
            return "CL_OUT_OF_RESOURCES";
        case CL_OUT_OF_HOST_MEMORY:
            return "CL_OUT_OF_HOST_MEMORY";
        case CL_BUILD_PROGRAM_FAILURE:
            return "CL_BUILD_PROGRAM_FAILURE";
        case CL_INVALID_VALUE:
            return "CL_INVALID_VALUE";
        case CL_INVALID_DEVICE:
            return "CL_INVALID_DEVICE";
        case CL_INVALID_CONTEXT:
            return "CL_INVALID_CONTEXT";
        case CL_INVALID_COMMAND_QUEUE:
            return "CL_INVALID_COMMAND_QUEUE";
        case CL_INVALID_MEM_OBJECT:
            return "CL_INVALID_MEM_OBJECT";
        case CL_INVALID_PROGRAM_EXECUTABLE:
            return "CL_INVALID_PROGRAM_EXECUTABLE";
        case CL_INVALID_KERNEL_ARGS:
            return "CL_INVALID_KERNEL_ARGS";
        case CL_INVALID_ARG_SIZE:
            return "CL_INVALID_ARG_SIZE";
        case CL_INVALID_WORK_GROUP_SIZE:
            return "CL_INVALID_WORK_GROUP_SIZE";
        case CL_INVALID_WORK_ITEM_SIZE:
            return "CL_INVALID_WORK_ITEM_SIZE";
        case CL_INVALID_GLOBAL_WORK_SIZE:
            return "CL_INVALID_GLOBAL_WORK_SIZE";
        case CL_INVALID_BUFFER_SIZE:
            return "CL_INVALID_BUFFER_SIZE";
        case -1001:
            return "CL_PLATFORM_NOT_FOUND_KHR";
        default:
            return "an OpenCL error";
    }
}

// Every OpenCL call goes through this: a failure is a GpuError naming the call, the error and where.
void cl_check(cl_int e, const char* call, const char* file, int line) {
    if (e == CL_SUCCESS) return;
    const bool oom = e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_HOST_MEMORY;
    throw GpuError(std::string(call) + " failed: " + cl_error_name(e) + " (" + std::to_string(e) + ") at " + file +
                       ":" + std::to_string(line),
                   oom);
}
#define CL_CHECK(call) cl_check((call), #call, __FILE__, __LINE__)

template <class T, cl_int (*Release)(T)>
struct ClHandle {
    T h = nullptr;
    ClHandle() = default;
    explicit ClHandle(T x) : h(x) {}
    ~ClHandle() { reset(); }
    ClHandle(const ClHandle&) = delete;
    ClHandle& operator=(const ClHandle&) = delete;
    ClHandle(ClHandle&& o) noexcept : h(o.h) { o.h = nullptr; }
    ClHandle& operator=(ClHandle&& o) noexcept {
        if (this != &o) {
            reset();
            h = o.h;
            o.h = nullptr;
        }
        return *this;
    }
    void reset() {
        if (h) Release(h);
        h = nullptr;
    }
    operator T() const { return h; }
};
using Context = ClHandle<cl_context, clReleaseContext>;
using Queue = ClHandle<cl_command_queue, clReleaseCommandQueue>;
using Program = ClHandle<cl_program, clReleaseProgram>;
using Kernel = ClHandle<cl_kernel, clReleaseKernel>;
using Mem = ClHandle<cl_mem, clReleaseMemObject>;
using Event = ClHandle<cl_event, clReleaseEvent>;

// A kernel's arguments in order: values (cl_mem, cl_uint, float: their bytes are the argument) or Local{bytes} for
// local memory.
struct Local {
    std::size_t bytes;
};
inline void set_arg(cl_kernel k, cl_uint i, const Local& l) { CL_CHECK(clSetKernelArg(k, i, l.bytes, nullptr)); }
template <class T>
void set_arg(cl_kernel k, cl_uint i, const T& v) {
    static_assert(!std::is_class_v<T>, "pass the cl_mem, not its handle");
    CL_CHECK(clSetKernelArg(k, i, sizeof(T), &v));
}
template <class... A>
void set_args(cl_kernel k, const A&... a) {
    cl_uint i = 0;
    (set_arg(k, i++, a), ...);
}

std::string device_string(cl_device_id d, cl_device_info what) {
    std::size_t n = 0;
    if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
    std::string s(n, '\0');
    if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
    while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
    return s;
}
std::string platform_string(cl_platform_id p, cl_platform_info what) {
    std::size_t n = 0;
    if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
    std::string s(n, '\0');
    if (clGetPlatformInfo(p, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
    while (!s.empty() && s.back() == '\0') s.pop_back();
    return s;
}
template <class T>
T device_value(cl_device_id d, cl_device_info what) {
    T v{};
    if (clGetDeviceInfo(d, what, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
    return v;
}

struct Found {
    OpenClDeviceInfo info;
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    std::size_t max_item[3] = {0, 0, 0};
};

std::vector<Found> find_devices(std::string* why) {
    std::vector<Found> out;
    cl_uint np = 0;
    const cl_int e = clGetPlatformIDs(0, nullptr, &np);
    if (e != CL_SUCCESS || np == 0) {
        if (why)
            *why = e == -1001 || np == 0 ? "no OpenCL platform is installed (the ICD loader found none)"
                                         : std::string("clGetPlatformIDs failed: ") + cl_error_name(e);
        return out;
    }
    std::vector<cl_platform_id> ps(np);
    CL_CHECK(clGetPlatformIDs(np, ps.data(), nullptr));
    for (cl_uint p = 0; p < np; ++p) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
        std::vector<cl_device_id> ds(nd);
        if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd; ++d) {
            Found f;
            f.platform = ps[p];
            f.device = ds[d];
            OpenClDeviceInfo& i = f.info;
            i.platform = int(p);
            i.device = int(d);
            i.platform_name = platform_string(ps[p], CL_PLATFORM_NAME);
            i.name = device_string(ds[d], CL_DEVICE_NAME);
            i.version = device_string(ds[d], CL_DEVICE_VERSION);
            i.gpu = (device_value<cl_device_type>(ds[d], CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
            i.gl_sharing = device_string(ds[d], CL_DEVICE_EXTENSIONS).find("cl_khr_gl_sharing") != std::string::npos;
            i.max_work_group = device_value<std::size_t>(ds[d], CL_DEVICE_MAX_WORK_GROUP_SIZE);
            i.local_memory = std::size_t(device_value<cl_ulong>(ds[d], CL_DEVICE_LOCAL_MEM_SIZE));
            i.global_memory = std::size_t(device_value<cl_ulong>(ds[d], CL_DEVICE_GLOBAL_MEM_SIZE));
            clGetDeviceInfo(ds[d], CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof f.max_item, f.max_item, nullptr);
            if (!device_value<cl_bool>(ds[d], CL_DEVICE_AVAILABLE))
                i.why = "the device is not available";
            else if (!device_value<cl_bool>(ds[d], CL_DEVICE_COMPILER_AVAILABLE))
                i.why = "the platform has no OpenCL C compiler";
            else if (i.local_memory < 16 * 17 * 8)
                i.why = "its local memory (" + std::to_string(i.local_memory) + " bytes) holds no 16 x 16 tile";
            i.usable = i.why.empty();
            out.push_back(std::move(f));
        }
    }
    if (out.empty() && why) *why = "the OpenCL platforms list no devices";
    return out;
}

}  // namespace

std::vector<OpenClDeviceInfo> list_opencl_devices(std::string* why) {
    std::vector<OpenClDeviceInfo> out;
    for (Found& f : find_devices(why)) out.push_back(f.info);
    return out;
}

struct OpenClFft::Impl {
    Found dev;
    Context context;
    Queue queue;
    Program program;
    Kernel global_stage, local, transpose;
    Kernel view_values, count_low, colorize;  // the picture (spectrum_view.cl)
    cl_mem kept = nullptr;                    // a or b: the spectrum the last forward() left on the device
    int kept_w = 0, kept_h = 0;
    Mem values, hist, picture, lut;
    std::size_t values_capacity = 0, picture_capacity = 0;
    std::size_t local_wg_limit = 0;  // CL_KERNEL_WORK_GROUP_SIZE of fft_local (may be below the device's)
    Mem a, b;
    std::size_t capacity = 0;     // float2 values a and b hold
    std::map<int, Mem> twiddles;  // per length n: n / 2 values exp(-2 pi i k / n)
    Mem real;                     // the real plane as uploaded
    std::size_t real_capacity = 0;
    Kernel expand;

    // The local length for rows of n: the knob's, or (0) the longest power of two the local memory holds for H rows.
    int local_len(int n, const OpenClFftConfig& c) const {
        if (c.local_length > 0) return std::min(c.local_length, n);
        int len = 2;
        while (len * 2 <= n && std::size_t(len) * 2 * std::size_t(c.rows_per_group) * 8 <= dev.info.local_memory)
            len *= 2;
        return std::min(len, n);
    }
    // Work-items a row of the local kernel: the knob's threads per block, at most len / 2 (then one butterfly each,
    // the seed's; fewer loop over the block's butterflies), 256 at most where no knob says.
    static int threads_for(int len, const OpenClFftConfig& c) {
        const int t = c.threads > 0 ? c.threads : c.local_length > 0 ? len / 2 : std::min(len / 2, 256);
        return std::max(1, std::min(t, len / 2));
    }

    cl_mem twiddles_for(int n) {
        auto it = twiddles.find(n);
        if (it != twiddles.end()) return it->second;
        std::vector<cl_float2> t(std::size_t(std::max(n / 2, 1)));
        for (int k = 0; k < n / 2; ++k) {
            const double ang = -2.0 * M_PI * double(k) / double(n);
            t[std::size_t(k)].s[0] = float(std::cos(ang));
            t[std::size_t(k)].s[1] = float(std::sin(ang));
        }
        cl_int e = CL_SUCCESS;
        Mem m(clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, t.size() * sizeof(cl_float2), t.data(),
                             &e));
        CL_CHECK(e);
        return twiddles.emplace(n, std::move(m)).first->second;
    }

    double event_ms(cl_event ev) {
        cl_ulong t0 = 0, t1 = 0;
        CL_CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr));
        CL_CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr));
        return double(t1 - t0) * 1e-6;
    }

    // `rows` rows of n values: in -> out; in is overwritten by the global stages. `stages` of the log2(n) (all when
    // negative); in natural order when all ran and `natural`, else as the butterflies left them.
    void row_fft(cl_mem in, cl_mem out, int n, int rows, const OpenClFftConfig& c, std::vector<Event>& events,
                 int stages = -1, bool natural = true) {
        if (n == 1) {  // a length-1 DFT is the value itself
            cl_event ev = nullptr;
            CL_CHECK(clEnqueueCopyBuffer(queue, in, out, 0, 0, std::size_t(rows) * sizeof(cl_float2), 0, nullptr, &ev));
            events.emplace_back(ev);
            return;
        }
        const int log2n = ilog2(n);
        if (stages < 0) stages = log2n;
        const cl_uint un = cl_uint(n), urows = cl_uint(rows);
        const int len = local_len(n, c), threads = threads_for(len, c);
        cl_mem tw = twiddles_for(n);
        int done = 0;
        for (int span = n / 2; span >= len && done < stages; span /= 2, ++done) {
            const cl_uint uspan = cl_uint(span);
            set_args(global_stage, in, tw, un, uspan, urows);
            const std::size_t wg = 64, items = std::size_t(n / 2) * std::size_t(rows);
            const std::size_t global = (items + wg - 1) / wg * wg;
            cl_event ev = nullptr;
            CL_CHECK(clEnqueueNDRangeKernel(queue, global_stage, 1, nullptr, &global, &wg, 0, nullptr, &ev));
            events.emplace_back(ev);
        }
        const cl_uint ulen = cl_uint(len), ulocal = cl_uint(stages - done), unatural = natural && stages == log2n;
        set_args(local, in, out, tw, un, ulen, urows, ulocal, unatural,
                 Local{std::size_t(len) * std::size_t(c.rows_per_group) * sizeof(cl_float2)});
        const std::size_t H = std::size_t(c.rows_per_group), T = std::size_t(threads);
        const std::size_t wg[2] = {T, H};
        const std::size_t global[2] = {T * std::size_t(n / len), (std::size_t(rows) + H - 1) / H * H};
        cl_event ev = nullptr;
        CL_CHECK(clEnqueueNDRangeKernel(queue, local, 2, nullptr, global, wg, 0, nullptr, &ev));
        events.emplace_back(ev);
    }

    void transpose_into(cl_mem in, cl_mem out, int rows, int cols, int T, std::vector<Event>& events) {
        const cl_uint ur = cl_uint(rows), uc = cl_uint(cols);
        set_args(transpose, in, out, ur, uc, Local{std::size_t(T) * std::size_t(T + 1) * sizeof(cl_float2)});
        const std::size_t t = std::size_t(T);
        const std::size_t wg[2] = {t, t};
        const std::size_t global[2] = {(std::size_t(cols) + t - 1) / t * t, (std::size_t(rows) + t - 1) / t * t};
        cl_event ev = nullptr;
        CL_CHECK(clEnqueueNDRangeKernel(queue, transpose, 2, nullptr, global, wg, 0, nullptr, &ev));
        events.emplace_back(ev);
    }
};

OpenClFft::OpenClFft(int platform, int device) : impl_(new Impl) {
    std::string why;
    std::vector<Found> all = find_devices(&why);
    if (all.empty()) throw GpuUnavailable("OpenCL: " + why);
    Found* pick = nullptr;
    if (platform >= 0 || device >= 0) {
        for (Found& f : all)
            if (f.info.platform == platform && f.info.device == device) pick = &f;
        if (!pick)
            throw GpuUnavailable("OpenCL: no device " + std::to_string(platform) + ":" + std::to_string(device) +
                                 " (specview --list-devices lists them)");
        if (!pick->info.usable)
            throw GpuUnavailable("OpenCL device " + std::to_string(platform) + ":" + std::to_string(device) + " (" +
                                 pick->info.name + "): " + pick->info.why);
    } else {
        for (Found& f : all)  // GPUs first, then the rest, in the loader's order
            if (f.info.usable && f.info.gpu && !pick) pick = &f;
        for (Found& f : all)
            if (f.info.usable && !pick) pick = &f;
        if (!pick) throw GpuUnavailable("OpenCL: no usable device (" + all[0].info.name + ": " + all[0].info.why + ")");
    }
    Impl& m = *impl_;
    m.dev = *pick;
    cl_int e = CL_SUCCESS;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, cl_context_properties(m.dev.platform), 0};
    m.context = Context(clCreateContext(props, 1, &m.dev.device, nullptr, nullptr, &e));
    CL_CHECK(e);
    m.queue = Queue(clCreateCommandQueue(m.context, m.dev.device, CL_QUEUE_PROFILING_ENABLE, &e));
    CL_CHECK(e);
    const char* src[2] = {kSeedFftCl, kSpectrumViewCl};
    m.program = Program(clCreateProgramWithSource(m.context, 2, src, nullptr, &e));
    CL_CHECK(e);
    if (clBuildProgram(m.program, 1, &m.dev.device, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
        std::size_t n = 0;
        clGetProgramBuildInfo(m.program, m.dev.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
        std::string log(n, '\0');
        clGetProgramBuildInfo(m.program, m.dev.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
        throw GpuUnavailable("OpenCL: seed_fft.cl + spectrum_view.cl do not build on " + m.dev.info.name + ": " +
                             log.substr(0, 2000));
    }
    const std::pair<Kernel*, const char*> kernels[] = {{&m.global_stage, "fft_global_stage"},
                                                       {&m.local, "fft_local"},
                                                       {&m.transpose, "transpose"},
                                                       {&m.expand, "expand"},
                                                       {&m.view_values, "view_values"},
                                                       {&m.count_low, "count_low"},
                                                       {&m.colorize, "colorize"}};
    for (const auto& [kernel, name] : kernels) {
        *kernel = Kernel(clCreateKernel(m.program, name, &e));
        CL_CHECK(e);
    }
    CL_CHECK(clGetKernelWorkGroupInfo(m.local, m.dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof m.local_wg_limit,
                                      &m.local_wg_limit, nullptr));
}

OpenClFft::~OpenClFft() {
    if (impl_ && impl_->queue) clFinish(impl_->queue);
}

const OpenClDeviceInfo& OpenClFft::device() const { return impl_->dev.info; }

std::string OpenClFft::describe() const {
    return "OpenCL seed pipeline (" + impl_->dev.info.name + ", " + impl_->dev.info.platform_name + ")";
}

double OpenClFft::prepare(int width, int height, const OpenClFftConfig& c) {
    if (!check(width, height, c).empty()) return 0.0;  // (the run says why)
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t before = impl_->twiddles.size();
    for (int n : {width, height})
        if (n > 1) impl_->twiddles_for(n);
    return impl_->twiddles.size() > before
               ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()
               : 0.0;
}

std::string OpenClFft::check(int width, int height, const OpenClFftConfig& c) const {
    const Impl& m = *impl_;
    if (const std::string e =
            seed_knobs_error(width, height, c.local_length > 0 ? c.local_length : 2, c.rows_per_group, c.tile,
                             "the OpenCL kernels");
        !e.empty())
        return e;
    const std::size_t limit = std::min(m.local_wg_limit, m.dev.info.max_work_group);
    for (int n : {width, height}) {
        if (n == 1) continue;
        const std::size_t len = std::size_t(m.local_len(n, c)), T = std::size_t(Impl::threads_for(int(len), c));
        const std::size_t items = T * std::size_t(c.rows_per_group);
        if (items > limit || T > m.dev.max_item[0] || std::size_t(c.rows_per_group) > m.dev.max_item[1])
            return std::to_string(T) + " x " + std::to_string(c.rows_per_group) +
                   " work-items a group (local length " + std::to_string(len) + ", H " +
                   std::to_string(c.rows_per_group) + ") is over this device's " + std::to_string(limit);
        if (len * std::size_t(c.rows_per_group) * 8 > m.dev.info.local_memory)
            return "local length " + std::to_string(len) + " x H " + std::to_string(c.rows_per_group) + " needs " +
                   std::to_string(len * std::size_t(c.rows_per_group) * 8) +
                   " bytes of local memory; this device has " + std::to_string(m.dev.info.local_memory);
    }
    const std::size_t T = std::size_t(c.tile);
    if (T * T > m.dev.info.max_work_group || T > m.dev.max_item[0] || T > m.dev.max_item[1])
        return "a " + std::to_string(T) + " x " + std::to_string(T) + " transpose tile is over this device's " +
               std::to_string(m.dev.info.max_work_group) + " work-items a group";
    if (T * (T + 1) * 8 > m.dev.info.local_memory) return "the transpose tile does not fit the local memory";
    return "";
}

void OpenClFft::forward(const float* plane, int width, int height, const OpenClFftConfig& c, std::complex<float>* out,
                        std::vector<OpenClPassTime>* times, int stride) {
    int rows = 0, cols = 0;
    run(plane, stride, width, height, c, nullptr, out, &rows, &cols, times);
}

void OpenClFft::forward_until(const float* plane, int width, int height, const OpenClFftConfig& c,
                              const StopPoint& stop, std::vector<std::complex<float>>& out, int* rows, int* cols,
                              std::vector<OpenClPassTime>* times) {
    out.resize(std::size_t(width) * std::size_t(height));
    run(plane, 0, width, height, c, &stop, out.data(), rows, cols, times);
}

void OpenClFft::run(const float* plane, int stride, int width, int height, const OpenClFftConfig& c,
                    const StopPoint* stop, std::complex<float>* out, int* rows, int* cols,
                    std::vector<OpenClPassTime>* times) {
    const std::string why = check(width, height, c);
    if (!why.empty()) throw ConfigError(why);
    if (const std::string e = seed_stop_error(stop, width, height); !e.empty()) throw ConfigError(e);
    Impl& m = *impl_;
    m.kept = nullptr;
    const std::size_t count = std::size_t(width) * std::size_t(height);
    if (count > m.capacity) {
        m.a.reset();
        m.b.reset();
        m.capacity = 0;
        cl_int e = CL_SUCCESS;
        m.a = Mem(clCreateBuffer(m.context, CL_MEM_READ_WRITE, count * sizeof(cl_float2), nullptr, &e));
        CL_CHECK(e);
        m.b = Mem(clCreateBuffer(m.context, CL_MEM_READ_WRITE, count * sizeof(cl_float2), nullptr, &e));
        CL_CHECK(e);
        m.capacity = count;
    }
    // The real plane goes up as it lies (rows `stride` apart: half the bytes of complex values, no host staging) and
    // becomes complex on the device.
    const cl_uint st = cl_uint(stride > 0 ? stride : width), uw = cl_uint(width), uh = cl_uint(height);
    const std::size_t real_count = std::size_t(st) * std::size_t(height - 1) + std::size_t(width);
    if (!m.real || real_count > m.real_capacity) {
        m.real.reset();
        cl_int e = CL_SUCCESS;
        m.real = Mem(clCreateBuffer(m.context, CL_MEM_READ_ONLY, real_count * sizeof(float), nullptr, &e));
        CL_CHECK(e);
        m.real_capacity = real_count;
    }
    std::vector<Event> ev;
    std::vector<std::string> what;
    auto mark = [&](const std::string& w) { what.resize(ev.size(), w); };
    cl_event up = nullptr;
    CL_CHECK(clEnqueueWriteBuffer(m.queue, m.real, CL_FALSE, 0, real_count * sizeof(float), plane, 0, nullptr, &up));
    ev.emplace_back(up);
    mark("upload (host to device)");
    {
        cl_mem real = m.real, a = m.a;
        set_args(m.expand, real, a, uw, uh, st);
        const std::size_t global[2] = {(std::size_t(width) + 63) / 64 * 64, std::size_t(height)}, wg[2] = {64, 1};
        cl_event x = nullptr;
        CL_CHECK(clEnqueueNDRangeKernel(m.queue, m.expand, 2, nullptr, global, wg, 0, nullptr, &x));
        ev.emplace_back(x);
        mark("plane -> complex");
    }
    // Row pass, transpose, row pass, transpose; a stop leaves the data where that step put it.
    const SeedStop at = run_seed_pipeline(
        stop, width, height,
        [&](int n, int nrows, int stages, bool natural, const char* step) {
            m.row_fft(m.a, m.b, n, nrows, c, ev, stages, natural);
            mark(step);
        },
        [&](int nrows, int ncols, const char* step) {
            m.transpose_into(m.b, m.a, nrows, ncols, c.tile, ev);
            mark(step);
        });
    const cl_mem result = at.in_b ? cl_mem(m.b) : cl_mem(m.a);
    *rows = at.rows;
    *cols = at.cols;
    if (out) {
        cl_event down = nullptr;
        CL_CHECK(clEnqueueReadBuffer(m.queue, result, CL_TRUE, 0, count * sizeof(cl_float2), out, 0, nullptr, &down));
        ev.emplace_back(down);
        mark("download (device to host)");
    } else {
        CL_CHECK(clFinish(m.queue));
        m.kept = result;
        m.kept_w = width;
        m.kept_h = height;
    }
    if (!times) return;
    times->clear();
    for (std::size_t i = 0; i < ev.size(); ++i) {
        const double ms = m.event_ms(ev[i]);
        // each kernel reads and writes the whole plane once (8 bytes a complex value each way)
        const double bytes = i == 0                        ? 0.0
                             : i == 1                      ? 12.0 * double(count)
                             : (out && i + 1 == ev.size()) ? 0.0
                                                           : 16.0 * double(count);
        if (!times->empty() && times->back().what == what[i]) {
            times->back().ms += ms;  // a row FFT's global stages and local pass together
            times->back().bytes += bytes;
        } else {
            times->push_back({what[i], ms, bytes});
        }
    }
}

bool OpenClFft::kept() const { return impl_->kept != nullptr; }

void OpenClFft::bins(const int* x, const int* y, std::size_t n, std::complex<float>* out) {
    Impl& m = *impl_;
    if (!m.kept) throw ConfigError("OpenCL: no spectrum kept on the device");
    for (std::size_t i = 0; i < n; ++i) {
        if (x[i] < 0 || y[i] < 0 || x[i] >= m.kept_w || y[i] >= m.kept_h) throw ConfigError("bin outside the spectrum");
        CL_CHECK(clEnqueueReadBuffer(m.queue, m.kept, CL_FALSE,
                                     (std::size_t(y[i]) * m.kept_w + x[i]) * sizeof(cl_float2), sizeof(cl_float2),
                                     out + i, 0, nullptr, nullptr));
    }
    CL_CHECK(clFinish(m.queue));
}

void OpenClFft::spectrum(std::complex<float>* out) {
    Impl& m = *impl_;
    if (!m.kept) throw ConfigError("OpenCL: no spectrum kept on the device");
    CL_CHECK(clEnqueueReadBuffer(m.queue, m.kept, CL_TRUE, 0, std::size_t(m.kept_w) * m.kept_h * sizeof(cl_float2), out,
                                 0, nullptr, nullptr));
}

void OpenClFft::picture(const ViewParams& vp, PictureFormat format, void* out, float* lo, float* hi,
                        std::vector<OpenClPassTime>* times) {
    Impl& m = *impl_;
    if (!m.kept) throw ConfigError("OpenCL: no spectrum kept on the device for a picture");
    const cl_uint w = cl_uint(m.kept_w), h = cl_uint(m.kept_h);
    const std::size_t count = std::size_t(w) * h;
    cl_int e = CL_SUCCESS;
    auto buffer = [&](Mem& buf, std::size_t* capacity, std::size_t bytes) {
        if (buf && bytes <= *capacity) return;
        buf.reset();
        buf = Mem(clCreateBuffer(m.context, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 4), nullptr, &e));
        CL_CHECK(e);
        *capacity = bytes;
    };
    buffer(m.values, &m.values_capacity, count * 4);
    std::size_t hist_capacity = 2 * 65536 * 4, lut_capacity = 256 * 4;
    buffer(m.hist, &hist_capacity, hist_capacity);
    buffer(m.lut, &lut_capacity, lut_capacity);
    std::vector<Event> ev;
    std::vector<std::string> what;
    auto mark = [&](const std::string& x) { what.resize(ev.size(), x); };
    const bool ranked = vp.range != RangeMode::Fixed;
    const cl_uint zero = 0, view = cl_uint(vp.view), shifted = vp.shift ? 1 : 0, histogram = ranked ? 1 : 0;
    if (ranked) CL_CHECK(clEnqueueFillBuffer(m.queue, m.hist, &zero, sizeof zero, 0, 65536 * 4, 0, nullptr, nullptr));
    cl_mem kept = m.kept, values = m.values, hist = m.hist, lut = m.lut;
    cl_kernel k = m.view_values;
    set_args(k, kept, values, hist, w, h, view, shifted, histogram);
    {
        const std::size_t wg[2] = {256, 1}, global[2] = {(std::size_t(w) + 2047) / 2048 * 256, h};
        cl_event x = nullptr;
        CL_CHECK(clEnqueueNDRangeKernel(m.queue, k, 2, nullptr, global, wg, 0, nullptr, &x));
        ev.emplace_back(x);
        mark(std::string("view (shift + value") + (ranked ? " + key counts)" : ")"));
    }
    float range[2] = {vp.fixed_lo, vp.fixed_hi};
    const cl_uint ucount = cl_uint(count);
    auto items = [](std::size_t n) { return (n + 255) / 256 * 256; };
    if (ranked) {
        RankedRange rr(vp, count);
        std::vector<std::uint32_t> counts(2 * 65536);
        CL_CHECK(clEnqueueReadBuffer(m.queue, m.hist, CL_TRUE, 0, 65536 * 4, counts.data(), 0, nullptr, nullptr));
        rr.find_highs(counts.data());
        CL_CHECK(clEnqueueFillBuffer(m.queue, m.hist, &zero, sizeof zero, 0, 2 * 65536 * 4, 0, nullptr, nullptr));
        k = m.count_low;
        set_args(k, values, hist, ucount, rr.high[0], rr.high[1]);
        const std::size_t global = items(count), wg = 256;
        cl_event x = nullptr;
        CL_CHECK(clEnqueueNDRangeKernel(m.queue, k, 1, nullptr, &global, &wg, 0, nullptr, &x));
        ev.emplace_back(x);
        mark("range (exact ranks: low half-words)");
        CL_CHECK(clEnqueueReadBuffer(m.queue, m.hist, CL_TRUE, 0, 2 * 65536 * 4, counts.data(), 0, nullptr, nullptr));
        rr.finish(counts.data(), vp, &range[0], &range[1]);
    }
    *lo = range[0];
    *hi = range[1];
    const ColormapLut table = make_colormap_lut(vp.colormap);
    CL_CHECK(clEnqueueWriteBuffer(m.queue, m.lut, CL_FALSE, 0, 256 * 4, table.rgba, 0, nullptr, nullptr));
    const cl_uint per = format == PictureFormat::Rgba8    ? 1
                        : format == PictureFormat::Level8 ? 4
                                                          : 2,
                  fmt = cl_uint(format);
    const std::size_t words = (count + per - 1) / per;
    buffer(m.picture, &m.picture_capacity, words * 4);
    const float span = range[1] - range[0];
    cl_mem picture = m.picture;
    k = m.colorize;
    set_args(k, values, lut, picture, ucount, fmt, range[0], span);
    {
        const std::size_t global = items(words), wg = 256;
        cl_event x = nullptr;
        CL_CHECK(clEnqueueNDRangeKernel(m.queue, k, 1, nullptr, &global, &wg, 0, nullptr, &x));
        ev.emplace_back(x);
        mark(format == PictureFormat::Rgba8 ? "colormap -> RGBA8" : "levels");
    }
    const std::size_t bytes = count * std::size_t(format == PictureFormat::Rgba8 ? 4 : level_bytes(format));
    cl_event down = nullptr;
    CL_CHECK(clEnqueueReadBuffer(m.queue, m.picture, CL_TRUE, 0, bytes, out, 0, nullptr, &down));
    ev.emplace_back(down);
    mark("picture -> host");
    if (!times) return;
    times->clear();
    for (std::size_t i = 0; i < ev.size(); ++i)
        times->push_back({what[i], m.event_ms(ev[i]), i + 1 == ev.size() ? double(bytes) : 8.0 * double(count)});
}

}  // namespace specview::gpu
