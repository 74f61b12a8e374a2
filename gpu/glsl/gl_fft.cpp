#include "gpu/glsl/gl_fft.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpu/common/errors.h"
#include "gpu/common/ranked_range.h"
#include "gpu/common/seed_checks.h"
#include "gpu/glsl/seed_fft_glsl.h"       // kSeedFftGlsl: seed_fft.glsl, embedded at configure time
#include "gpu/glsl/spectrum_view_glsl.h"  // kSpectrumViewGlsl: spectrum_view.glsl

namespace specview::gpu {

namespace {

// The GL 4.3 entry points the pipeline uses, from eglGetProcAddress (no loader library needed headless).
struct Gl {
#define SV_GL(type, name) type name = nullptr;
#define SV_GL_LIST                                           \
    SV_GL(PFNGLGETSTRINGPROC, GetString)                     \
    SV_GL(PFNGLGETERRORPROC, GetError)                       \
    SV_GL(PFNGLGETINTEGERVPROC, GetIntegerv)                 \
    SV_GL(PFNGLGETINTEGER64VPROC, GetInteger64v)             \
    SV_GL(PFNGLGETINTEGERI_VPROC, GetIntegeri_v)             \
    SV_GL(PFNGLCREATESHADERPROC, CreateShader)               \
    SV_GL(PFNGLSHADERSOURCEPROC, ShaderSource)               \
    SV_GL(PFNGLCOMPILESHADERPROC, CompileShader)             \
    SV_GL(PFNGLGETSHADERIVPROC, GetShaderiv)                 \
    SV_GL(PFNGLGETSHADERINFOLOGPROC, GetShaderInfoLog)       \
    SV_GL(PFNGLDELETESHADERPROC, DeleteShader)               \
    SV_GL(PFNGLCREATEPROGRAMPROC, CreateProgram)             \
    SV_GL(PFNGLATTACHSHADERPROC, AttachShader)               \
    SV_GL(PFNGLLINKPROGRAMPROC, LinkProgram)                 \
    SV_GL(PFNGLGETPROGRAMIVPROC, GetProgramiv)               \
    SV_GL(PFNGLGETPROGRAMINFOLOGPROC, GetProgramInfoLog)     \
    SV_GL(PFNGLDELETEPROGRAMPROC, DeleteProgram)             \
    SV_GL(PFNGLUSEPROGRAMPROC, UseProgram)                   \
    SV_GL(PFNGLGETUNIFORMLOCATIONPROC, GetUniformLocation)   \
    SV_GL(PFNGLUNIFORM1UIPROC, Uniform1ui)                   \
    SV_GL(PFNGLUNIFORM1FPROC, Uniform1f)                     \
    SV_GL(PFNGLCLEARBUFFERDATAPROC, ClearBufferData)         \
    SV_GL(PFNGLGENBUFFERSPROC, GenBuffers)                   \
    SV_GL(PFNGLDELETEBUFFERSPROC, DeleteBuffers)             \
    SV_GL(PFNGLBINDBUFFERPROC, BindBuffer)                   \
    SV_GL(PFNGLBUFFERDATAPROC, BufferData)                   \
    SV_GL(PFNGLBUFFERSUBDATAPROC, BufferSubData)             \
    SV_GL(PFNGLGETBUFFERSUBDATAPROC, GetBufferSubData)       \
    SV_GL(PFNGLBINDBUFFERBASEPROC, BindBufferBase)           \
    SV_GL(PFNGLCOPYBUFFERSUBDATAPROC, CopyBufferSubData)     \
    SV_GL(PFNGLDISPATCHCOMPUTEPROC, DispatchCompute)         \
    SV_GL(PFNGLMEMORYBARRIERPROC, MemoryBarrier)             \
    SV_GL(PFNGLGENQUERIESPROC, GenQueries)                   \
    SV_GL(PFNGLDELETEQUERIESPROC, DeleteQueries)             \
    SV_GL(PFNGLBEGINQUERYPROC, BeginQuery)                   \
    SV_GL(PFNGLENDQUERYPROC, EndQuery)                       \
    SV_GL(PFNGLGETQUERYOBJECTUI64VPROC, GetQueryObjectui64v) \
    SV_GL(PFNGLFINISHPROC, Finish)                           \
    SV_GL(PFNGLFLUSHPROC, Flush)                             \
    SV_GL(PFNGLGENTEXTURESPROC, GenTextures)                 \
    SV_GL(PFNGLDELETETEXTURESPROC, DeleteTextures)           \
    SV_GL(PFNGLBINDTEXTUREPROC, BindTexture)                 \
    SV_GL(PFNGLTEXSTORAGE2DPROC, TexStorage2D)               \
    SV_GL(PFNGLBINDIMAGETEXTUREPROC, BindImageTexture)       \
    SV_GL(PFNGLFENCESYNCPROC, FenceSync)                     \
    SV_GL(PFNGLWAITSYNCPROC, WaitSync)                       \
    SV_GL(PFNGLDELETESYNCPROC, DeleteSync)                   \
    SV_GL(PFNGLPROGRAMPARAMETERIPROC, ProgramParameteri)     \
    SV_GL(PFNGLGETPROGRAMBINARYPROC, GetProgramBinary)       \
    SV_GL(PFNGLPROGRAMBINARYPROC, ProgramBinary)
    SV_GL_LIST
#undef SV_GL
    template <class Proc>
    std::string load(Proc proc) {  // "" or the first entry point missing
#define SV_GL(type, name)                            \
    name = reinterpret_cast<type>(proc("gl" #name)); \
    if (!name) return "gl" #name;
        SV_GL_LIST
#undef SV_GL
        return "";
    }
};

// The compiled programs on disk (GL_ARB_get_program_binary, core since 4.1): $XDG_CACHE_HOME/specview/gl or
// ~/.cache/specview/gl, one file a program, named by a hash of the driver (vendor, renderer, version) and the source.
// A file the driver no longer takes (a new driver, a damaged file) is compiled again and replaced.
std::string program_cache_dir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/specview/gl";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/specview/gl";
    return "";
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 1469598103934665603ull) {
    for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

constexpr char kBinaryMagic[8] = {'S', 'V', 'G', 'L', 'B', 'I', 'N', '1'};

struct BinaryHeader {
    char magic[8];
    std::uint64_t key;     // the hash the file is named by (a renamed or mixed-up file is not taken)
    std::uint32_t format;  // the driver's binary format
    std::uint32_t bytes;   // the binary's length, after the header
};

std::string egl_error() {
    char b[32];
    std::snprintf(b, sizeof b, "EGL error 0x%04x", unsigned(eglGetError()));
    return b;
}

}  // namespace

// A timed pass: a GL_TIME_ELAPSED query, or on a software renderer (its queries read 0) the host's clock after glFinish.
struct Pass {
    std::string what;
    GLuint query = 0;
    double bytes = 0;
    std::chrono::steady_clock::time_point t0;
    double host_ms = -1;
};

struct GlFft::Impl {
    EGLDisplay display = EGL_NO_DISPLAY;
    EGLContext context = EGL_NO_CONTEXT;
    Gl gl;
    std::string renderer;
    GLint64 max_storage = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE: the largest buffer a shader may address
    GLint max_invocations = 0, max_size[2] = {0, 0}, max_shared = 0, max_count[2] = {0, 0};
    std::map<std::string, GLuint> programs;  // per shader and configuration, compiled once
    std::string cache_dir;                   // program_cache_dir(), or "" (none: the driver offers no binary format)
    std::string driver;                      // vendor, renderer and version: part of a cached program's key
    int loaded = 0, compiled = 0;            // programs taken from the disk cache, compiled from source
    GLuint a = 0, b = 0;
    std::size_t capacity = 0;
    std::map<int, GLuint> twiddles;
    GLuint real = 0;  // the real plane as uploaded
    std::size_t real_capacity = 0;
    // forward_recipe's: the image's samples (kept while its version holds), their values' table, the window, the shape
    GLuint samples = 0, sample_lut = 0, window = 0, shape = 0;
    std::size_t samples_capacity = 0, sample_lut_capacity = 0, window_capacity = 0, samples_bytes = 0;
    std::uint64_t samples_version = 0;
    int lut_bits = 0;
    void plane_from_recipe(const PlaneRecipe& r);
    // The spectrum the last forward() left on the device (0: none), its size; the picture's buffers.
    GLuint kept = 0;
    int kept_w = 0, kept_h = 0;
    GLuint values = 0, hist = 0, lut = 0, picture = 0;
    std::size_t values_capacity = 0, picture_capacity = 0;
    bool software = false;
    std::vector<Pass> passes;
    std::shared_ptr<GlSharedContext> shared;  // the viewer's share group (GlFft(shared)); else the EGL context above
    GLuint slot_tex[3] = {0, 0, 0};
    int slot_w[3] = {0, 0, 0}, slot_h[3] = {0, 0, 0};

    void delete_objects() {
        for (auto& [k, p] : programs) gl.DeleteProgram(p);
        for (auto& [n, t] : twiddles) gl.DeleteBuffers(1, &t);
        for (GLuint buf : {a, b, real, values, hist, lut, picture, samples, sample_lut, window, shape})
            if (buf) gl.DeleteBuffers(1, &buf);
        for (GLuint t : slot_tex)
            if (t) gl.DeleteTextures(1, &t);
    }
    ~Impl() {
        if (shared && gl.DeleteProgram && shared->make_current()) {
            delete_objects();
            gl.Finish();
            shared->release();
        }
        if (context != EGL_NO_CONTEXT) {
            eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
            delete_objects();
            eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            eglDestroyContext(display, context);
        }
        // No eglTerminate, here or in try_display: an EGL display is one per device and process, not counted, so
        // terminating ours destroyed every context on it that was not current at that moment - the offscreen
        // viewer's shared one among them, after the device list's probe (probe_gl) dropped its GlFft (seen on the
        // H100 and on Mesa, 2026-12-07). The display stays initialised until the process ends.
    }

    // A program from the disk cache (0: none there, or one the driver refuses).
    GLuint load_binary(const std::string& path, std::uint64_t key) {
        std::FILE* f = std::fopen(path.c_str(), "rb");
        if (!f) return 0;
        BinaryHeader h{};
        std::vector<char> data;
        const bool ok = std::fread(&h, sizeof h, 1, f) == 1 && std::memcmp(h.magic, kBinaryMagic, 8) == 0 &&
                        h.key == key && h.bytes > 0 && h.bytes <= (64u << 20) &&
                        (data.resize(h.bytes), std::fread(data.data(), 1, h.bytes, f) == h.bytes);
        std::fclose(f);
        if (!ok) return 0;
        const GLuint pr = gl.CreateProgram();
        gl.ProgramBinary(pr, GLenum(h.format), data.data(), GLsizei(h.bytes));
        GLint linked = 0;
        gl.GetProgramiv(pr, GL_LINK_STATUS, &linked);
        while (gl.GetError() != GL_NO_ERROR) {  // (a format this driver no longer knows: GL_INVALID_ENUM)
            linked = 0;
        }
        if (!linked) {
            gl.DeleteProgram(pr);
            return 0;
        }
        return pr;
    }
    // The linked program's binary into the disk cache, written whole or not at all (best effort: a read-only home
    // only costs the next process its compile).
    void save_binary(GLuint pr, const std::string& path, std::uint64_t key) {
        GLint len = 0;
        gl.GetProgramiv(pr, GL_PROGRAM_BINARY_LENGTH, &len);
        if (len <= 0) return;
        std::vector<char> data(std::size_t(len), 0);
        GLenum format = 0;
        GLsizei got = 0;
        gl.GetProgramBinary(pr, len, &got, &format, data.data());
        if (gl.GetError() != GL_NO_ERROR || got <= 0) return;
        std::error_code ec;
        std::filesystem::create_directories(cache_dir, ec);
        const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
        std::FILE* f = std::fopen(tmp.c_str(), "wb");
        if (!f) return;
        BinaryHeader h{};
        std::memcpy(h.magic, kBinaryMagic, 8);
        h.key = key;
        h.format = std::uint32_t(format);
        h.bytes = std::uint32_t(got);
        const bool ok = std::fwrite(&h, sizeof h, 1, f) == 1 && std::fwrite(data.data(), 1, std::size_t(got), f) ==
                                                                    std::size_t(got);
        if (std::fclose(f) == 0 && ok)
            std::filesystem::rename(tmp, path, ec);
        else
            std::filesystem::remove(tmp, ec);
        if (ec) std::filesystem::remove(tmp, ec);
    }

    // The program of one shader and configuration: from the disk cache, else compiled (and cached); kept.
    GLuint program(const std::string& defines, const char* source = kSeedFftGlsl) {
        auto it = programs.find(defines);
        if (it != programs.end()) return it->second;
        const std::string src = std::string("#version 430\n") + defines + source;
        const std::uint64_t key = fnv1a(src, fnv1a(driver));
        std::string path;
        if (!cache_dir.empty()) {
            char name[32];
            std::snprintf(name, sizeof name, "/%016llx.bin", static_cast<unsigned long long>(key));
            path = cache_dir + name;
            if (const GLuint pr = load_binary(path, key)) {
                ++loaded;
                programs.emplace(defines, pr);
                return pr;
            }
        }
        const char* p = src.c_str();
        const GLuint sh = gl.CreateShader(GL_COMPUTE_SHADER);
        gl.ShaderSource(sh, 1, &p, nullptr);
        gl.CompileShader(sh);
        GLint ok = 0;
        gl.GetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            char log[2048] = "";
            gl.GetShaderInfoLog(sh, sizeof log, nullptr, log);
            gl.DeleteShader(sh);
            throw GpuError("OpenGL: the shader (" + defines + ") does not compile: " + log);
        }
        const GLuint pr = gl.CreateProgram();
        gl.AttachShader(pr, sh);
        if (!path.empty()) gl.ProgramParameteri(pr, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
        gl.LinkProgram(pr);
        gl.DeleteShader(sh);
        gl.GetProgramiv(pr, GL_LINK_STATUS, &ok);
        if (!ok) {
            char log[2048] = "";
            gl.GetProgramInfoLog(pr, sizeof log, nullptr, log);
            gl.DeleteProgram(pr);
            throw GpuError("OpenGL: the shader (" + defines + ") does not link: " + log);
        }
        ++compiled;
        if (!path.empty()) save_binary(pr, path, key);
        programs.emplace(defines, pr);
        return pr;
    }
    // The local length for rows of n: the knob's, or (0) the longest power of two the shared memory holds for H rows.
    int local_len(int n, const GlFftConfig& c) const {
        if (c.local_length > 0) return std::min(c.local_length, n);
        int len = 2;
        while (len * 2 <= n && std::size_t(len) * 2 * std::size_t(c.rows_per_group) * 8 <= std::size_t(max_shared))
            len *= 2;
        return std::min(len, n);
    }
    // Invocations a row of the local kernel: the knob's (at most len / 2), or len / 2 (the seed's one butterfly
    // each; 256 at most with an automatic length).
    static int threads_for(int len, const GlFftConfig& c) {
        const int t = c.threads > 0 ? c.threads : c.local_length > 0 ? len / 2 : std::min(len / 2, 256);
        return std::max(1, std::min(t, len / 2));
    }
    static std::string local_defines(int len, int h, int threads) {
        return "#define ROW_LOCAL\n#define THREADS " + std::to_string(threads) + "\n#define LEN " +
               std::to_string(len) + "\n#define HALF " + std::to_string(len / 2) + "\n#define H " + std::to_string(h) +
               "\n";
    }
    static std::string transpose_defines(int t) { return "#define TRANSPOSE\n#define T " + std::to_string(t) + "\n"; }
    // n / 2 twiddles exp(-2 pi i k / n), made in double, per length, kept.
    GLuint twiddles_for(int n) {
        auto it = twiddles.find(n);
        if (it != twiddles.end()) return it->second;
        std::vector<float> t(std::size_t(std::max(n / 2, 1)) * 2, 0.0f);
        for (int k = 0; k < n / 2; ++k) {
            const double ang = -2.0 * M_PI * double(k) / double(n);
            t[2 * std::size_t(k)] = float(std::cos(ang));
            t[2 * std::size_t(k) + 1] = float(std::sin(ang));
        }
        GLuint buf = 0;
        gl.GenBuffers(1, &buf);
        gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
        gl.BufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(t.size() * 4), t.data(), GL_STATIC_DRAW);
        twiddles.emplace(n, buf);
        return buf;
    }
    // A buffer of at least `bytes` (grown, contents dropped).
    void ensure(GLuint* buf, std::size_t* capacity, std::size_t bytes, const char* what) {
        if (*buf && bytes <= *capacity) return;
        if (!*buf) gl.GenBuffers(1, buf);
        gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, *buf);
        gl.BufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(std::max<std::size_t>(bytes, 4)), nullptr, GL_DYNAMIC_COPY);
        check_gl(what);
        *capacity = bytes;
    }
    void begin_pass(const std::string& what, double bytes) {
        Pass p{what, 0, bytes, std::chrono::steady_clock::now(), -1};
        gl.GenQueries(1, &p.query);
        gl.BeginQuery(GL_TIME_ELAPSED, p.query);
        passes.push_back(p);
    }
    void end_pass() {
        gl.EndQuery(GL_TIME_ELAPSED);
        gl.MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
        if (software) {
            gl.Finish();
            passes.back().host_ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - passes.back().t0).count();
        }
    }
    // The passes' times (read now: their work is done), into *times (replaced) when asked.
    void collect(std::vector<GlPassTime>* times) {
        if (times) times->clear();
        for (Pass& p : passes) {
            GLuint64 ns = 0;
            gl.GetQueryObjectui64v(p.query, GL_QUERY_RESULT, &ns);
            gl.DeleteQueries(1, &p.query);
            if (times) times->push_back({p.what, p.host_ms >= 0 ? p.host_ms : double(ns) * 1e-6, p.bytes});
        }
        passes.clear();
    }
    void current() {
        if (shared) {
            if (!shared->make_current()) throw GpuError("OpenGL: the viewer's shared context cannot be made current");
            return;
        }
        if (eglGetCurrentContext() != context && !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
            throw GpuError("eglMakeCurrent failed: " + egl_error());
    }
    void check_gl(const char* what) {
        const GLenum e = gl.GetError();
        if (e != GL_NO_ERROR) {
            char b[32];
            std::snprintf(b, sizeof b, "0x%04x", unsigned(e));
            throw GpuError(std::string("OpenGL: ") + what + " failed: GL error " + b, e == GL_OUT_OF_MEMORY);
        }
    }

    // The entry points (from `proc`), the renderer and the compute limits, with the context current.
    template <class Proc>
    void start(Proc proc);
    // A context on display d: 4.3 core or better, no surface.
    bool try_display(EGLDisplay d, std::string* why) {
        EGLint major = 0, minor = 0;
        if (!eglInitialize(d, &major, &minor)) {
            *why = "eglInitialize: " + egl_error();
            return false;
        }
        if (!eglBindAPI(EGL_OPENGL_API)) {
            *why = "no desktop OpenGL on this EGL";
            return false;
        }
        const EGLint attrs[] = {
            EGL_CONTEXT_MAJOR_VERSION,           4,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
        EGLContext c = eglCreateContext(d, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attrs);
        if (c == EGL_NO_CONTEXT || !eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
            *why = "no OpenGL 4.3 core context without a surface (" + egl_error() + ")";
            if (c != EGL_NO_CONTEXT) eglDestroyContext(d, c);
            return false;
        }
        display = d;
        context = c;
        return true;
    }
};

GlFft::GlFft() : impl_(new Impl) {
    Impl& m = *impl_;
    std::string why = "no EGL display";
    // A GPU's driver first (EGL's device platform: NVIDIA's on the GPU machine), then Mesa's surfaceless platform.
    auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto platform_display =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!platform_display) throw GpuUnavailable("OpenGL: EGL has no eglGetPlatformDisplayEXT (no headless display)");
    if (query_devices) {
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        if (query_devices(16, devices, &count))
            for (EGLint i = 0; i < count && m.context == EGL_NO_CONTEXT; ++i) {
                EGLDisplay d = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
                if (d != EGL_NO_DISPLAY) m.try_display(d, &why);
            }
    }
    if (m.context == EGL_NO_CONTEXT) {
        EGLDisplay d = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
        if (d != EGL_NO_DISPLAY) m.try_display(d, &why);
    }
    if (m.context == EGL_NO_CONTEXT) throw GpuUnavailable("OpenGL compute: " + why);
    m.start([](const char* n) { return reinterpret_cast<void*>(eglGetProcAddress(n)); });
}

GlFft::GlFft(std::shared_ptr<GlSharedContext> shared) : impl_(new Impl) {
    Impl& m = *impl_;
    if (!shared || !shared->make_current())
        throw GpuUnavailable("OpenGL compute: the viewer's shared context cannot be made current");
    m.shared = std::move(shared);
    m.start(m.shared->proc_address);
}

template <class Proc>
void GlFft::Impl::start(Proc proc) {
    Impl& m = *this;
    const std::string missing = m.gl.load(proc);
    if (!missing.empty()) throw GpuUnavailable("OpenGL compute: the driver lacks " + missing);
    m.renderer = std::string(reinterpret_cast<const char*>(m.gl.GetString(GL_RENDERER))) + ", OpenGL " +
                 reinterpret_cast<const char*>(m.gl.GetString(GL_VERSION));
    m.gl.GetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &m.max_invocations);
    m.gl.GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 0, &m.max_size[0]);
    m.gl.GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 1, &m.max_size[1]);
    m.gl.GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &m.max_count[0]);
    m.gl.GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &m.max_count[1]);
    m.gl.GetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &m.max_shared);
    m.gl.GetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &m.max_storage);
    m.check_gl("reading the compute limits");
    GLint formats = 0;
    m.gl.GetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &formats);
    m.check_gl("asking for program binary formats");
    m.driver = std::string(reinterpret_cast<const char*>(m.gl.GetString(GL_VENDOR))) + "\n" + m.renderer;
    if (formats > 0 && !std::getenv("SPECVIEW_NO_GL_CACHE")) m.cache_dir = program_cache_dir();
    const std::string& r = m.renderer;
    m.software = r.find("llvmpipe") != std::string::npos || r.find("softpipe") != std::string::npos ||
                 r.find("swrast") != std::string::npos;
}

GlFft::~GlFft() = default;

std::string GlFft::renderer() const { return impl_->renderer; }

std::string GlFft::describe() const { return "OpenGL compute seed pipeline (" + impl_->renderer + ")"; }

bool GlFft::software() const { return impl_->software; }

bool GlFft::shares_context() const { return impl_->shared != nullptr; }

std::string GlFft::program_cache() const { return impl_->cache_dir; }

int GlFft::programs_loaded() const { return impl_->loaded; }

int GlFft::programs_compiled() const { return impl_->compiled; }

std::string GlFft::check(int width, int height, const GlFftConfig& c) const {
    const Impl& m = *impl_;
    if (const std::string e = seed_knobs_error(width, height, c.local_length > 0 ? c.local_length : 2, c.rows_per_group,
                                               c.tile, "the OpenGL compute shaders");
        !e.empty())
        return e;
    for (int n : {width, height}) {
        if (n == 1) continue;
        const int len = m.local_len(n, c), threads = Impl::threads_for(len, c);
        if (threads * c.rows_per_group > m.max_invocations || threads > m.max_size[0] ||
            c.rows_per_group > m.max_size[1])
            return std::to_string(threads) + " x " + std::to_string(c.rows_per_group) +
                   " invocations a work-group is over this context's " + std::to_string(m.max_invocations);
        if (len * c.rows_per_group * 8 > m.max_shared)
            return "local length " + std::to_string(len) + " x H " + std::to_string(c.rows_per_group) + " needs " +
                   std::to_string(len * c.rows_per_group * 8) + " bytes of shared memory; this context has " +
                   std::to_string(m.max_shared);
        if (n / len > m.max_count[0] || (n / 2 + 63) / 64 > m.max_count[0])
            return "a row of " + std::to_string(n) + " is too long";
    }
    if (std::max(width, height) > m.max_count[1]) return "more rows than this context dispatches";
    if (const double bytes = 8.0 * double(width) * double(height); m.max_storage > 0 && bytes > double(m.max_storage))
        return "a " + std::to_string(width) + "x" + std::to_string(height) + " complex plane (" +
               std::to_string(std::llround(bytes / 1048576.0)) + " MiB) is over this context's largest storage buffer (" +
               std::to_string(std::llround(double(m.max_storage) / 1048576.0)) +
               " MiB; --roi or --pad crop for a smaller one, or another backend)";
    if (c.tile * c.tile > m.max_invocations || c.tile > m.max_size[0] || c.tile > m.max_size[1])
        return "a " + std::to_string(c.tile) + " x " + std::to_string(c.tile) +
               " transpose tile is over this context's " + std::to_string(m.max_invocations) +
               " invocations a work-group";
    if (c.tile * (c.tile + 1) * 8 > m.max_shared) return "the transpose tile does not fit the shared memory";
    return "";
}

double GlFft::prepare(int width, int height, const GlFftConfig& c) {
    if (!check(width, height, c).empty()) return 0.0;  // (the run says why)
    Impl& m = *impl_;
    m.current();
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t before = m.programs.size() + m.twiddles.size();
    for (int n : {width, height}) {
        if (n == 1) continue;
        const int len = m.local_len(n, c);
        if (n > len) m.program("#define ROW_GLOBAL\n");
        m.program("#define EXPAND\n");
        m.program(Impl::local_defines(len, c.rows_per_group, Impl::threads_for(len, c)));
        m.twiddles_for(n);
    }
    m.program(Impl::transpose_defines(c.tile));
    for (const char* d : {"#define VIEW_VALUES\n", "#define HIST_LOW\n", "#define COLORIZE\n"})
        m.program(d, kSpectrumViewGlsl);
    m.check_gl("compiling the shaders");
    return m.programs.size() + m.twiddles.size() > before
               ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()
               : 0.0;
}

void GlFft::forward(const float* plane, int width, int height, const GlFftConfig& c, std::complex<float>* out,
                    std::vector<GlPassTime>* times, int stride) {
    int rows = 0, cols = 0;
    run(plane, nullptr, stride, width, height, c, nullptr, out, &rows, &cols, times);
}

void GlFft::forward_until(const float* plane, int width, int height, const GlFftConfig& c, const StopPoint& stop,
                          std::vector<std::complex<float>>& out, int* rows, int* cols, std::vector<GlPassTime>* times) {
    out.resize(std::size_t(width) * std::size_t(height));
    run(plane, nullptr, 0, width, height, c, &stop, out.data(), rows, cols, times);
}

std::string GlFft::recipe_error(const PlaneRecipe& r) {
    if (!r.samples) return "the image's samples are not on the host";
    if (r.fill_mean) return "padding with the content's mean is made on the host";
    if (r.bit_depth != 8 && r.bit_depth != 16 && r.bit_depth != 32) return "samples of " + std::to_string(r.bit_depth) + " bits";
    if (r.channels < 1 || r.image_width < 1 || r.image_height < 1) return "an empty image";
    const bool radial = r.shape.radial;
    if (radial ? r.radial_table.size() != std::size_t(kRadialWindowTable)
               : (r.window_x.size() != std::size_t(r.content_width) || r.window_y.size() != std::size_t(r.content_height)))
        return "the recipe has no window values";
    return "";
}

void GlFft::forward_recipe(const PlaneRecipe& r, const GlFftConfig& c, std::complex<float>* out,
                           std::vector<GlPassTime>* times) {
    if (const std::string e = recipe_error(r); !e.empty()) throw ConfigError("OpenGL plane: " + e);
    int rows = 0, cols = 0;
    run(nullptr, &r, 0, r.plane_width, r.plane_height, c, nullptr, out, &rows, &cols, times);
}

void GlFft::Impl::plane_from_recipe(const PlaneRecipe& r) {
    // The samples go up once an image (a quarter of the floats' bytes for 8-bit ones), their values' table with them.
    const std::size_t sample_bytes = std::size_t(r.bit_depth / 8);
    const std::size_t bytes = std::size_t(r.image_width) * r.image_height * r.channels * sample_bytes;
    const auto up_t0 = std::chrono::steady_clock::now();
    bool uploaded = false;
    if (!samples || samples_version != r.image_version || samples_bytes != bytes) {
        ensure(&samples, &samples_capacity, (bytes + 3) / 4 * 4, "allocating the image's samples");
        gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, samples);
        gl.BufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(bytes), r.samples);
        check_gl("uploading the image's samples");
        samples_version = r.image_version;
        samples_bytes = bytes;
        uploaded = true;
    }
    if (r.bit_depth != 32 && lut_bits != r.bit_depth) {  // v / 255 or v / 65535, correctly rounded, as Image::sample
        const int n = r.bit_depth == 8 ? 256 : 65536;
        std::vector<float> t(static_cast<std::size_t>(n));
        for (int v = 0; v < n; ++v) t[std::size_t(v)] = float(v) / float(n - 1);
        std::size_t capacity = sample_lut_capacity;
        ensure(&sample_lut, &capacity, t.size() * 4, "allocating the samples' values");
        sample_lut_capacity = capacity;
        gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, sample_lut);
        gl.BufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(t.size() * 4), t.data());
        lut_bits = r.bit_depth;
    }
    std::vector<double> w = r.shape.radial ? r.radial_table : r.window_x;
    if (!r.shape.radial) w.insert(w.end(), r.window_y.begin(), r.window_y.end());
    ensure(&window, &window_capacity, w.size() * 8, "allocating the window");
    gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, window);
    gl.BufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(w.size() * 8), w.data());
    const double sh[7] = {r.shape.level_a, r.shape.level_bx, r.shape.level_by, r.shape.cx,
                          r.shape.hx,      r.shape.cy,       r.shape.hy};
    std::size_t shape_capacity = sizeof sh;
    ensure(&shape, &shape_capacity, sizeof sh, "allocating the plane's shape");
    gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, shape);
    gl.BufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof sh, sh);
    if (uploaded) {  // the upload, timed on the host (it is synchronous), as its own line
        Pass p{"image samples up (once an image) [host]", 0, double(bytes), up_t0,
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - up_t0).count()};
        gl.GenQueries(1, &p.query);  // (read back empty)
        gl.BeginQuery(GL_TIME_ELAPSED, p.query);
        gl.EndQuery(GL_TIME_ELAPSED);
        passes.push_back(p);
    }
    const std::size_t count = std::size_t(r.plane_width) * r.plane_height;
    begin_pass("plane (channel, level, window, pad) from the samples", 8.0 * double(count) + double(bytes));
    const GLuint pr = program("#define PLANE\n");
    gl.UseProgram(pr);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, samples);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, a);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, window);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, sample_lut ? sample_lut : window);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, shape);
    auto u = [&](const char* name, unsigned v) { gl.Uniform1ui(gl.GetUniformLocation(pr, name), v); };
    u("image_w", unsigned(r.image_width));
    u("channels", unsigned(r.channels));
    u("channel", unsigned(r.channel));
    u("bits", unsigned(r.bit_depth));
    u("crop_x", unsigned(r.crop_x));
    u("crop_y", unsigned(r.crop_y));
    u("cw", unsigned(r.content_width));
    u("ch", unsigned(r.content_height));
    u("pw", unsigned(r.plane_width));
    u("ph", unsigned(r.plane_height));
    u("level", r.shape.level ? 1u : 0u);
    u("radial", r.shape.radial ? 1u : 0u);
    u("table_n", unsigned(kRadialWindowTable));
    gl.DispatchCompute(GLuint((r.plane_width + 255) / 256), GLuint(r.plane_height), 1);
    end_pass();
    check_gl("the plane from the samples");
}

void GlFft::run(const float* plane, const PlaneRecipe* recipe, int stride, int width, int height, const GlFftConfig& c,
                const StopPoint* stop,
                std::complex<float>* out, int* rows, int* cols, std::vector<GlPassTime>* times) {
    const std::string why = check(width, height, c);
    if (!why.empty()) throw ConfigError(why);
    if (const std::string e = seed_stop_error(stop, width, height); !e.empty()) throw ConfigError(e);
    Impl& m = *impl_;
    m.current();
    Gl& gl = m.gl;
    auto uniform = [&](GLuint pr, const char* name, unsigned v) { gl.Uniform1ui(gl.GetUniformLocation(pr, name), v); };
    const std::size_t count = std::size_t(width) * std::size_t(height);
    if (count > m.capacity) {
        for (GLuint* buf : {&m.a, &m.b}) {
            if (!*buf) gl.GenBuffers(1, buf);
            gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, *buf);
            gl.BufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(count * 8), nullptr, GL_DYNAMIC_COPY);
        }
        m.check_gl("allocating the plane's buffers");
        m.capacity = count;
    }
    m.passes.clear();
    m.kept = 0;
    auto begin_pass = [&](const std::string& what) { m.begin_pass(what, 16.0 * double(count)); };
    auto end_pass = [&] { m.end_pass(); };
    if (recipe) {
        m.plane_from_recipe(*recipe);
    } else {
        // The real plane goes up as it lies (rows `stride` apart: half the bytes of complex values, no host staging)
        // and becomes complex on the device.
        const std::size_t st = std::size_t(stride > 0 ? stride : width);
        const std::size_t real_count = st * std::size_t(height - 1) + std::size_t(width);
        m.ensure(&m.real, &m.real_capacity, real_count * 4, "allocating the plane");
        gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, m.real);
        gl.BufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(real_count * 4), plane);
        m.check_gl("uploading the plane");
        m.begin_pass("plane -> complex", 12.0 * double(count));
        const GLuint expand = m.program("#define EXPAND\n");
        gl.UseProgram(expand);
        gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, m.real);
        gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, m.a);
        uniform(expand, "width", unsigned(width));
        uniform(expand, "height", unsigned(height));
        uniform(expand, "stride", unsigned(st));
        gl.DispatchCompute(GLuint((width + 255) / 256), GLuint(height), 1);
        m.end_pass();
        m.check_gl("the plane made complex");
    }
    // Rows of n values: in -> out (in overwritten by the global stages); `stages` of log2 n (-1: all).
    auto row_fft = [&](GLuint in, GLuint outb, int n, int nrows, int stages, bool natural, const char* what) {
        begin_pass(what);
        if (n == 1) {
            gl.BindBuffer(GL_COPY_READ_BUFFER, in);
            gl.BindBuffer(GL_COPY_WRITE_BUFFER, outb);
            gl.CopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, GLsizeiptr(count * 8));
            end_pass();
            return;
        }
        const int log2n = ilog2(n), len = m.local_len(n, c);
        if (stages < 0) stages = log2n;
        const GLuint tw = m.twiddles_for(n);
        gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, tw);
        int done = 0;
        const GLuint global = m.program("#define ROW_GLOBAL\n");
        for (int span = n / 2; span >= len && done < stages; span /= 2, ++done) {
            gl.UseProgram(global);
            gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, in);
            uniform(global, "n", unsigned(n));
            uniform(global, "span", unsigned(span));
            uniform(global, "rows", unsigned(nrows));
            gl.DispatchCompute(GLuint((n / 2 + 63) / 64), GLuint(nrows), 1);
            gl.MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        }
        const GLuint local = m.program(Impl::local_defines(len, c.rows_per_group, Impl::threads_for(len, c)));
        gl.UseProgram(local);
        gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, in);
        gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, outb);
        uniform(local, "n", unsigned(n));
        uniform(local, "rows", unsigned(nrows));
        uniform(local, "stages", unsigned(stages - done));
        uniform(local, "natural", natural && stages == log2n ? 1u : 0u);
        gl.DispatchCompute(GLuint(n / len), GLuint((nrows + c.rows_per_group - 1) / c.rows_per_group), 1);
        end_pass();
        m.check_gl(what);
    };
    auto transpose = [&](GLuint in, GLuint outb, int nrows, int ncols, const char* what) {
        begin_pass(what);
        const GLuint pr = m.program(Impl::transpose_defines(c.tile));
        gl.UseProgram(pr);
        gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, in);
        gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, outb);
        uniform(pr, "rows", unsigned(nrows));
        uniform(pr, "cols", unsigned(ncols));
        gl.DispatchCompute(GLuint((ncols + c.tile - 1) / c.tile), GLuint((nrows + c.tile - 1) / c.tile), 1);
        end_pass();
        m.check_gl(what);
    };
    // Row pass, transpose, row pass, transpose; a stop leaves the data where that step put it.
    const SeedStop at = run_seed_pipeline(
        stop, width, height,
        [&](int n, int nrows, int stages, bool natural, const char* step) {
            row_fft(m.a, m.b, n, nrows, stages, natural, step);
        },
        [&](int nrows, int ncols, const char* step) { transpose(m.b, m.a, nrows, ncols, step); });
    const GLuint result = at.in_b ? m.b : m.a;
    *rows = at.rows;
    *cols = at.cols;
    if (out) {
        gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, result);
        gl.GetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(count * 8), out);
        m.check_gl("reading the spectrum back");
    } else {
        m.kept = result;
        m.kept_w = width;
        m.kept_h = height;
    }
    m.collect(times);
}

bool GlFft::kept() const { return impl_->kept != 0; }
int GlFft::kept_width() const { return impl_->kept_w; }
int GlFft::kept_height() const { return impl_->kept_h; }

void GlFft::bins(const int* x, const int* y, std::size_t n, std::complex<float>* out) {
    Impl& m = *impl_;
    if (!m.kept) throw ConfigError("OpenGL: no spectrum kept on the device");
    m.current();
    m.gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, m.kept);
    for (std::size_t i = 0; i < n; ++i) {
        if (x[i] < 0 || y[i] < 0 || x[i] >= m.kept_w || y[i] >= m.kept_h) throw ConfigError("bin outside the spectrum");
        m.gl.GetBufferSubData(GL_SHADER_STORAGE_BUFFER, GLintptr((std::size_t(y[i]) * m.kept_w + x[i]) * 8), 8,
                              out + i);
    }
    m.check_gl("reading bins of the spectrum");
}

void GlFft::spectrum(std::complex<float>* out) {
    Impl& m = *impl_;
    if (!m.kept) throw ConfigError("OpenGL: no spectrum kept on the device");
    m.current();
    m.gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, m.kept);
    m.gl.GetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(std::size_t(m.kept_w) * m.kept_h * 8), out);
    m.check_gl("reading the spectrum back");
}

// The view's values of the kept spectrum (Impl::values) and their range: passes "view" and "range".
void GlFft::view_and_range(const ViewParams& vp, float* lo, float* hi) {
    Impl& m = *impl_;
    Gl& gl = m.gl;
    const unsigned w = unsigned(m.kept_w), h = unsigned(m.kept_h);
    const std::size_t count = std::size_t(w) * h;
    auto uniform = [&](GLuint pr, const char* name, unsigned v) { gl.Uniform1ui(gl.GetUniformLocation(pr, name), v); };
    m.ensure(&m.values, &m.values_capacity, count * 4, "allocating the view's values");
    std::size_t hist_capacity = 2 * 65536 * 4;
    m.ensure(&m.hist, &hist_capacity, hist_capacity, "allocating the range's counts");
    const bool ranked = vp.range != RangeMode::Fixed;
    const GLuint zero = 0;
    gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, m.hist);
    if (ranked) gl.ClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    const GLuint groups_x = (w + 255) / 256;

    m.begin_pass(std::string("view (shift + value") + (ranked ? " + key counts)" : ")"), 12.0 * double(count));
    const GLuint vv = m.program("#define VIEW_VALUES\n", kSpectrumViewGlsl);
    gl.UseProgram(vv);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, m.kept);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, m.values);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, m.hist);
    uniform(vv, "width", w);
    uniform(vv, "height", h);
    uniform(vv, "view", unsigned(vp.view));
    uniform(vv, "shifted", vp.shift ? 1u : 0u);
    uniform(vv, "histogram", ranked ? 1u : 0u);
    gl.DispatchCompute((w + 2047) / 2048, h, 1);  // 2048 values of a row a work-group
    m.end_pass();
    m.check_gl("the view's values");

    float range[2] = {vp.fixed_lo, vp.fixed_hi};
    if (ranked) {
        RankedRange rr(vp, count);
        m.begin_pass("range (exact ranks: low half-words)", 4.0 * double(count));
        std::vector<std::uint32_t> counts(2 * 65536);
        gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, m.hist);
        gl.GetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, 65536 * 4, counts.data());
        rr.find_highs(counts.data());
        gl.ClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
        const GLuint hl = m.program("#define HIST_LOW\n", kSpectrumViewGlsl);
        gl.UseProgram(hl);
        gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, m.values);
        gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, m.hist);
        uniform(hl, "width", w);
        uniform(hl, "height", h);
        uniform(hl, "high0", rr.high[0]);
        uniform(hl, "high1", rr.high[1]);
        gl.DispatchCompute(groups_x, h, 1);
        m.end_pass();
        gl.GetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, 2 * 65536 * 4, counts.data());
        m.check_gl("the range's counts");
        rr.finish(counts.data(), vp, &range[0], &range[1]);
    }
    *lo = range[0];
    *hi = range[1];
    if (!m.lut) {
        gl.GenBuffers(1, &m.lut);
        gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, m.lut);
        gl.BufferData(GL_SHADER_STORAGE_BUFFER, 256 * 4, nullptr, GL_DYNAMIC_DRAW);
    }
    const ColormapLut lut = make_colormap_lut(vp.colormap);
    gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, m.lut);
    gl.BufferSubData(GL_SHADER_STORAGE_BUFFER, 0, 256 * 4, lut.rgba);
}

void GlFft::picture(const ViewParams& vp, PictureFormat format, void* out, float* lo, float* hi,
                    std::vector<GlPassTime>* times) {
    Impl& m = *impl_;
    if (!m.kept) throw ConfigError("OpenGL: no spectrum kept on the device for a picture");
    m.current();
    Gl& gl = m.gl;
    m.passes.clear();
    view_and_range(vp, lo, hi);
    const unsigned w = unsigned(m.kept_w), h = unsigned(m.kept_h);
    const std::size_t count = std::size_t(w) * h;
    const unsigned per = format == PictureFormat::Rgba8 ? 1 : format == PictureFormat::Level8 ? 4 : 2;
    const std::size_t words = (count + per - 1) / per;
    m.ensure(&m.picture, &m.picture_capacity, words * 4, "allocating the picture");
    m.begin_pass(format == PictureFormat::Rgba8 ? "colormap -> RGBA8" : "levels",
                 4.0 * double(count) + 4.0 * double(words));
    const GLuint co = m.program("#define COLORIZE\n", kSpectrumViewGlsl);
    gl.UseProgram(co);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, m.values);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, m.lut);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, m.picture);
    gl.Uniform1ui(gl.GetUniformLocation(co, "width"), w);
    gl.Uniform1ui(gl.GetUniformLocation(co, "height"), h);
    gl.Uniform1ui(gl.GetUniformLocation(co, "format"), unsigned(format));
    gl.Uniform1f(gl.GetUniformLocation(co, "lo"), *lo);
    gl.Uniform1f(gl.GetUniformLocation(co, "span"), *hi - *lo);
    gl.DispatchCompute((w + 255) / 256, GLuint((words + w - 1) / w), 1);
    m.end_pass();
    m.check_gl("the picture's colours");
    const auto t0 = std::chrono::steady_clock::now();
    gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, m.picture);
    gl.GetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0,
                        GLsizeiptr(count * std::size_t(format == PictureFormat::Rgba8 ? 4 : level_bytes(format))), out);
    m.check_gl("reading the picture back");
    const double read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    m.collect(times);
    if (times) times->push_back({"picture -> host [host]", read_ms, 4.0 * double(words)});
}

unsigned GlFft::picture_to_slot(const ViewParams& vp, int slot, std::uint64_t wait, std::uint64_t* ready, float* lo,
                                float* hi, std::vector<GlPassTime>* times) {
    Impl& m = *impl_;
    if (!m.kept) throw ConfigError("OpenGL: no spectrum kept on the device for a picture");
    if (slot < 0 || slot > 2) throw ConfigError("OpenGL: no picture slot " + std::to_string(slot));
    m.current();
    Gl& gl = m.gl;
    m.passes.clear();
    view_and_range(vp, lo, hi);
    const int w = m.kept_w, h = m.kept_h;
    // The slot's last reader (the viewer's copy out of it) before anything writes it.
    if (wait) {
        gl.WaitSync(reinterpret_cast<GLsync>(wait), 0, GL_TIMEOUT_IGNORED);
        gl.DeleteSync(reinterpret_cast<GLsync>(wait));
    }
    GLuint& tex = m.slot_tex[slot];
    if (!tex || m.slot_w[slot] != w || m.slot_h[slot] != h) {  // immutable storage: a new texture for a new size
        if (tex) gl.DeleteTextures(1, &tex);
        gl.GenTextures(1, &tex);
        gl.BindTexture(GL_TEXTURE_2D, tex);
        gl.TexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
        gl.BindTexture(GL_TEXTURE_2D, 0);
        m.check_gl("allocating the picture's texture");
        m.slot_w[slot] = w;
        m.slot_h[slot] = h;
    }
    m.begin_pass("colormap -> the texture (imageStore)", 8.0 * double(w) * h);
    const GLuint co = m.program("#define COLORIZE\n#define IMAGE\n", kSpectrumViewGlsl);
    gl.UseProgram(co);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, m.values);
    gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, m.lut);
    gl.BindImageTexture(0, tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
    gl.Uniform1ui(gl.GetUniformLocation(co, "width"), unsigned(w));
    gl.Uniform1ui(gl.GetUniformLocation(co, "height"), unsigned(h));
    gl.Uniform1ui(gl.GetUniformLocation(co, "format"), 0u);
    gl.Uniform1f(gl.GetUniformLocation(co, "lo"), *lo);
    gl.Uniform1f(gl.GetUniformLocation(co, "span"), *hi - *lo);
    gl.DispatchCompute(GLuint((w + 255) / 256), GLuint(h), 1);
    gl.MemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    m.end_pass();
    m.check_gl("the picture into its texture");
    const GLsync fence = gl.FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    gl.Flush();  // a fence another context waits on must have reached the device
    m.check_gl("the picture's fence");
    *ready = reinterpret_cast<std::uint64_t>(fence);
    m.collect(times);
    return tex;
}

}  // namespace specview::gpu
