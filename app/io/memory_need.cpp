#include "app/io/memory_need.h"

#include <cctype>
#include <cmath>
#include <stdexcept>

#include "app/core/plane.h"
#include "app/io/load/load.h"
#include "gpu/runtime/device_info.h"

namespace specview {

MemoryNeed memory_need(const ImageHeader& hd, const Settings& s, bool raw, bool viewer, bool inverse) {
    int pw = 0, ph = 0;
    transform_size(s.pad, hd.width, hd.height, &pw, &ph);
    const double A = double(hd.width) * double(hd.height);  // image pixels
    const double N = double(pw) * double(ph);               // plane (= spectrum = picture) pixels
    const double S = A * hd.channels * (hd.bit_depth / 8);  // decoded samples
    const bool percentile = s.view.range == RangeMode::Percentile;
    constexpr double MiB = 1024.0 * 1024.0;
    // The program itself: its code and libraries (FFmpeg's alone are about 10 MiB resident), FFTW's plans, the
    // runtime's heap.
    constexpr double kProgram = 48 * MiB;
    MemoryNeed need;
    // The frequency lab: the mask (over the half spectrum on the CPU, 2N; the full one on the device, 4N) and
    // the filtered plane (4N, in the frame).
    // Brush dabs are stamped into a full layer (4N) first.
    const double lab_host =
        (has_mask(s) ? 2.0 * N : 0.0) + (s.strokes.empty() ? 0.0 : 4.0 * N) + (inverse ? 4.0 * N : 0.0);
    if (!cuda_backend(s.backend)) {
        // OpenCL: the CPU's host side (FFTW's buffer holds the plane and then the half spectrum), plus the complex
        // plane it uploads and the full spectrum it reads back (8N each); its device holds two complex buffers (16N,
        // not checked here: OpenCL says so when it cannot allocate them).
        const double opencl = s.backend == Backend::OpenCl || s.backend == Backend::Gl ? 16.0 * N : 0.0;
        need.device = opencl;
        if (!viewer) {
            // The CLI (a one-shot run): the samples, FFTW's in-place buffer (the plane made straight into it,
            // then the half spectrum: 4N), the picture (view values, then colours, in place: 4N); libpng writes
            // row by row. --raw: the full spectrum (8N), written from where it is.
            need.host = kProgram + S + 8.0 * N + (raw ? 8.0 * N : 0.0) + lab_host + opencl;
        } else {
            // The viewer also keeps the prepared plane (4N) for re-runs, room for the whole spectrum the analysis
            // profiles make from the half one when asked (8N; with a mask or an inverse a copy of the half one,
            // 4N, is kept for readouts), the image as RGBA for display (4A) and the picture's back buffer (4N).
            need.host = kProgram + S + 24.0 * N + 4.0 * A + lab_host + opencl;
        }
        return need;
    }
    // GPU backends. Host: the samples, two 16 MiB pinned staging buffers, the CUDA runtime, and for the CLI the
    // downloaded RGBA picture (4N, moved into the frame) and --raw's spectrum (8N); the viewer copies device
    // slots into its texture and keeps the image as RGBA for display (4A).
    need.host =
        300 * MiB + S + kProgram + (viewer ? 4.0 * A : 4.0 * N) + (raw ? 8.0 * N : 0.0) + (inverse ? 4.0 * N : 0.0);
    // Device: the samples, the plane (4N), the path's buffers, the view values (4N; a percentile range sorts a
    // copy with CUB's temporary space, 8N), the picture (4N; the viewer's three slots, 12N), --raw's full
    // spectrum (8N), and room for cuFFT plans and the runtime's own allocations.
    double path = 0;
    switch (s.backend) {
        case Backend::Custom:
            path = 16.0 * N;
            break;  // two complex ping-pong buffers
        case Backend::Cufft:
            path = s.cufft_mode == gpu::CufftMode::C2C ? 16.0 * N : 8.0 * N;  // output + plan work area
            break;
        case Backend::CustomFast:
            path = 4.0 * N;
            break;  // pass 1's half spectrum
        case Backend::Cpu:
        case Backend::OpenCl:
        case Backend::Gl:
            break;
    }
    need.device = S + 4.0 * N + path + 4.0 * N + (percentile ? 8.0 * N : 0.0) + (viewer ? 12.0 * N : 4.0 * N) +
                  (raw ? 8.0 * N : 0.0) + 64 * MiB;
    // The lab on the device: the filters' mask (4N), the brush layer and the combined mask (4N each; the
    // combined one alone for an inverted mask); the inverse's buffers: the kept full spectrum (custom-fast), the
    // masked spectrum and a scratch copy (8N each), the filtered plane (4N); the viewer's third view in its
    // three picture slots (12N at most).
    need.device += (s.filters.empty() ? 0.0 : 4.0 * N) +
                   (!s.strokes.empty() ? 8.0 * N
                    : s.mask_invert    ? 4.0 * N
                                       : 0.0) +
                   (inverse ? 28.0 * N : 0.0) + (inverse && viewer ? 12.0 * N : 0.0);
    return need;
}

namespace {
std::string path_words(const Settings& s, bool raw) {
    return "the " + name_of(s.backend) + " backend" + (raw ? " with --raw" : "");
}
std::string size_words(const ImageHeader& hd) { return std::to_string(hd.width) + "x" + std::to_string(hd.height); }
}  // namespace

void check_device_memory(const ImageHeader& hd, const Settings& s, bool raw, bool viewer, double free_bytes,
                         const std::string& device_name, MemoryBudget budget, bool inverse) {
    if (!cuda_backend(s.backend)) return;
    const MemoryNeed need = memory_need(hd, s, raw, viewer, inverse);
    const double device = budget.device > 0 ? budget.device : free_bytes;
    const std::string where = budget.device > 0 ? "allowed" : "free on the " + device_name;
    if (need.device > device)
        throw InputError("", "image is " + size_words(hd) + " and needs about " + human_bytes(need.device) +
                                 " of GPU memory on " + path_words(s, raw) + "; " + human_bytes(device) + " " + where +
                                 " (try --pad crop, the cufft or custom-fast backend, or the CPU backend)");
}

HeaderCheck memory_check(const Settings& s, bool raw, bool viewer, MemoryBudget budget, bool device, bool inverse) {
    return [s, raw, viewer, budget, device, inverse](const ImageHeader& hd) {
        const MemoryNeed need = memory_need(hd, s, raw, viewer, inverse);
        const double host = budget.host > 0 ? budget.host : double(available_memory_bytes());
        if (need.host > host)
            throw InputError("", "image is " + size_words(hd) + " and needs about " + human_bytes(need.host) +
                                     " of memory on " + path_words(s, raw) + "; " + human_bytes(host) +
                                     (budget.host > 0 ? " allowed (--max-memory)" : " is available") +
                                     " (try --pad crop, a GPU backend, or a smaller image)");
        if (!device || !cuda_backend(s.backend)) return;
        if (budget.device > 0) {
            check_device_memory(hd, s, raw, viewer, budget.device, "", budget);
            return;
        }
        const gpu::DeviceInfo dev = gpu::probe_device();
        if (!dev.available) return;  // the backend reports a missing GPU itself
        check_device_memory(hd, s, raw, viewer, double(dev.free_memory), dev.name, budget);
    };
}

double parse_size(const std::string& text) {
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        throw std::invalid_argument("not a size: " + text);
    }
    std::string unit = text.substr(used);
    for (char& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
    double mul = 1;
    if (unit.empty() || unit == "B")
        mul = 1;
    else if (unit == "K" || unit == "KB" || unit == "KIB")
        mul = 1024.0;
    else if (unit == "M" || unit == "MB" || unit == "MIB")
        mul = 1024.0 * 1024.0;
    else if (unit == "G" || unit == "GB" || unit == "GIB")
        mul = 1024.0 * 1024.0 * 1024.0;
    else if (unit == "T" || unit == "TB" || unit == "TIB")
        mul = 1024.0 * 1024.0 * 1024.0 * 1024.0;
    else
        throw std::invalid_argument("not a size: " + text + " (use a number with K, M, G or T)");
    if (!std::isfinite(v) || v <= 0) throw std::invalid_argument("not a positive size: " + text);
    return v * mul;
}

}  // namespace specview
