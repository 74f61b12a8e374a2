#include "app/io/video_gpu.h"

#include <dlfcn.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "app/io/load/video_decode.h"
#include "gpu/plane/plane_prep.h"

namespace specview {
namespace fs = std::filesystem;

VideoDecode parse_video_decode(const std::string& s) {
    if (s == "auto") return VideoDecode::Auto;
    if (s == "gpu") return VideoDecode::Gpu;
    if (s == "cpu") return VideoDecode::Cpu;
    throw std::invalid_argument("video decoding '" + s + "': auto, gpu or cpu");
}

const char* video_decode_name(VideoDecode d) {
    switch (d) {
        case VideoDecode::Gpu:
            return "gpu";
        case VideoDecode::Cpu:
            return "cpu";
        default:
            return "auto";
    }
}

std::string gpu_decode_excluded(VideoDecode how, const Settings& s) {
    if (how == VideoDecode::Cpu) return "--video-decode cpu";
    if (!cuda_backend(s.backend)) return "the " + name_of(s.backend) + " backend takes frames on the host";
    if (s.level != Level::None) return "--level fits its plane on the host";
    return {};
}

bool file_is_video(const std::string& path) {
    unsigned char head[16] = {};
    std::ifstream in(path, std::ios::binary);
    if (!in.read(reinterpret_cast<char*>(head), sizeof head)) return false;
    return is_video(ByteView(head, sizeof head));
}

namespace {
using OpenFn = GpuVideo* (*)(const char*);

// The module beside the program (or where SPECVIEW_NVDEC_MODULE says), opened once.
OpenFn module_entry() {
    static std::once_flag once;
    static OpenFn entry = nullptr;
    static std::string why;
    std::call_once(once, [] {
        std::string path;
        if (const char* env = std::getenv("SPECVIEW_NVDEC_MODULE"); env && *env) path = env;
        std::error_code ec;
        if (path.empty()) {  // beside the program, or installed in PREFIX/libexec/specview
            const fs::path self = fs::read_symlink("/proc/self/exe", ec);
            for (const fs::path& p : {self.parent_path() / "libspecview-nvdec.so",
                                      self.parent_path() / ".." / "libexec" / "specview" / "libspecview-nvdec.so"})
                if (!ec && path.empty() && fs::exists(p, ec)) path = p.string();
        }
#ifdef SPECVIEW_NVDEC_BUILD_PATH
        if (path.empty() && fs::exists(SPECVIEW_NVDEC_BUILD_PATH, ec)) path = SPECVIEW_NVDEC_BUILD_PATH;
#endif
        if (path.empty()) {
            why =
                "this build has no GPU video module (libspecview-nvdec.so: FFmpeg's development packages were not "
                "found when it was configured)";
            return;
        }
        void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            why = std::string("cannot load ") + path + " (" + dlerror() + ")";
            return;
        }
        entry = reinterpret_cast<OpenFn>(dlsym(h, "specview_open_gpu_video"));
        if (!entry) why = path + " has no specview_open_gpu_video";
    });
    if (!entry) throw GpuDecodeUnavailable(why);
    return entry;
}
}  // namespace

Image download_device_image(const Image& img) {
    if (!img.on_device()) return img;
    Image out = Image::allocate(img.width, img.height, 1, img.bit_depth, img.format);
    gpu::download_samples(img.device->data, img.device->pitch,
                          std::size_t(img.width) * std::size_t(img.bytes_per_sample()), img.height,
                          img.bit_depth == 16 ? img.device->significant_bits : 0, out.writable());
    out.frames = img.frames;
    out.frame = img.frame;
    out.frame_rate = img.frame_rate;
    return out;
}

std::unique_ptr<GpuVideo> open_gpu_video(const std::string& path, const LoadLimits& limits) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) throw InputError(path, ec.message());
    const std::uint64_t cap = std::max(limits.max_file_bytes, limits.max_stack_file_bytes);  // a video is a stack
    if (size > cap)
        throw InputError(path,
                         "file is " + human_bytes(double(size)) + ", over the limit of " + human_bytes(double(cap)));
    const OpenFn open = module_entry();
    std::unique_ptr<GpuVideo> v(open(path.c_str()));
    if (v->width() > limits.max_side || v->height() > limits.max_side ||
        std::uint64_t(v->width()) * std::uint64_t(v->height()) > limits.max_pixels)
        throw InputError(path, "frames of " + std::to_string(v->width()) + "x" + std::to_string(v->height()) +
                                   ", over the limit of " + std::to_string(limits.max_side) + " pixels a side");
    return v;
}

}  // namespace specview
