// What the command line's parts share: the inputs a command line names (directories, --stack's sequence), the
// pictures it writes, its text.
#include "app/cli/shared.h"

#include "app/core/picture.h"

#include "app/cli/cli.h"

#include <cstring>
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <thread>

#include "app/io/load/load.h"
#include "app/io/png_write.h"

namespace specview {
namespace fs = std::filesystem;

// Decoder children a stack's frames are decoded by at once: a quarter of the cores, 2 to 4. On the H100
// machine's 16 cores the 512-page 1024^2 float stack's --average took 3.9 s with 1, 1.18 s with 4 and 1.36 s with
// 8 (more decoders slow the transform's host side down: its staging copies share the memory bandwidth).
int stack_decode_streams() { return std::clamp(int(std::max(1u, std::thread::hardware_concurrency())) / 4, 2, 4); }

const char* const kExitCodesHelp =
    "Exit codes:\n"
    "  0  success\n"
    "  1  internal error (a bug; please report it)\n"
    "  2  usage error: bad options, or a configuration that cannot run\n"
    "  3  input error: an image could not be read (a batch still processes the others)\n"
    "  4  GPU unavailable: a GPU backend was asked for and there is no usable GPU, or it failed\n"
    "  5  output error: an output could not be written, or exists (use --force)\n";

std::string fmt(double v, int prec) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(prec) << v;
    return s.str();
}

void print_timings(const Frame& f, std::ostream& out) {
    out << "  " << std::left << std::setw(44) << "stage" << std::right << std::setw(10) << "ms" << std::setw(10)
        << "GB/s"
        << "\n";
    for (const auto& t : f.timings) {
        out << "  " << std::left << std::setw(44) << t.name << std::right << std::setw(10) << fmt(t.ms);
        if (t.bytes > 0 && t.ms > 0) out << std::setw(10) << fmt(t.bytes / (t.ms * 1e6), 1);
        out << "\n";
    }
    out << "  " << std::left << std::setw(44) << "total (transform + view)" << std::right << std::setw(10)
        << fmt(f.total_ms) << "\n";
    for (const auto& r : f.resources)
        out << "  kernel " << r.kernel << ": " << r.threads_per_block << " threads/block, " << r.registers_per_thread
            << " regs/thread, " << (r.static_smem_bytes + r.dynamic_smem_bytes) << " B smem/block, "
            << r.active_blocks_per_sm << " blocks/SM, occupancy " << fmt(100.0 * r.occupancy, 0) << "% (limited by "
            << r.limiter << ")\n";
}

// Expands directories (their image files, sorted); keeps files as given.
std::vector<std::string> expand_inputs(const std::vector<std::string>& args, bool* any_dir,
                                       std::vector<std::string>* empty_dirs, std::vector<std::string>* keys) {
    std::vector<std::string> out;
    for (const auto& a : args) {
        std::error_code ec;
        if (fs::is_directory(a, ec)) {
            *any_dir = true;
            std::vector<std::string> files;
            for (const auto& e : fs::directory_iterator(a, ec))
                if (e.is_regular_file(ec) && has_image_extension(e.path().string())) files.push_back(e.path().string());
            std::sort(files.begin(), files.end());
            if (files.empty()) empty_dirs->push_back(a);
            out.insert(out.end(), files.begin(), files.end());
            if (keys)
                for (const auto& f : files) keys->push_back(fs::path(f).lexically_relative(a).generic_string());
        } else {
            out.push_back(a);
            if (keys) keys->push_back(fs::path(a).lexically_normal().generic_string());
        }
    }
    return out;
}

// Natural order: runs of digits compare as numbers (frame2 before frame10), the rest byte by byte.
bool natural_less(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
            std::size_t i2 = i, j2 = j;
            while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
            while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
            std::string x = a.substr(i, i2 - i), y = b.substr(j, j2 - j);
            x.erase(0, std::min(x.find_first_not_of('0'), x.size() - 1));
            y.erase(0, std::min(y.find_first_not_of('0'), y.size() - 1));
            if (x.size() != y.size()) return x.size() < y.size();
            if (x != y) return x < y;
            i = i2, j = j2;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i, ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

// --stack DIR|GLOB: the image files of a directory, or what a glob pattern matches, in natural order.
std::vector<std::string> stack_files(const std::string& where, std::string* error) {
    std::vector<std::string> files;
    std::error_code ec;
    if (fs::is_directory(where, ec)) {
        for (const auto& e : fs::directory_iterator(where, ec))
            if (e.is_regular_file(ec) && has_image_extension(e.path().string())) files.push_back(e.path().string());
    } else {
        glob_t g{};
        const int rc = glob(where.c_str(), GLOB_NOSORT, nullptr, &g);
        if (rc == 0)
            for (std::size_t i = 0; i < g.gl_pathc; ++i)
                if (fs::is_regular_file(g.gl_pathv[i], ec)) files.push_back(g.gl_pathv[i]);
        globfree(&g);
    }
    std::sort(files.begin(), files.end(), natural_less);
    if (files.empty()) *error = where + ": no image files (a directory, or a glob pattern such as 'frames/*.png')";
    return files;
}

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

void picture_of_values(const std::vector<float>& values, Colormap cm, int depth, Frame& pic) {
    if (depth == 16) {
        pic.picture = PictureFormat::Level16;
        pic.levels.resize(values.size() * 2);
        for (std::size_t i = 0; i < values.size(); ++i) {
            const std::uint16_t v =
                std::uint16_t(level16_of(normalize_to_range(values[i], pic.range_lo, pic.range_hi)));
            std::memcpy(&pic.levels[2 * i], &v, 2);
        }
    } else {
        colorize(values, pic.range_lo, pic.range_hi, cm, pic.rgba);
    }
}

void write_png(const std::string& path, const Frame& f, Colormap cm, int level, int threads) {
    const PngColor color = f.picture == PictureFormat::Level16 ? PngColor::Gray16
                           : cm == Colormap::Gray              ? PngColor::Gray
                                                               : PngColor::Rgb;
    const ColormapLut lut = make_colormap_lut(cm);
    PicturePixels px;
    if (f.picture == PictureFormat::Rgba8) {
        px.rgba = f.rgba.data();
    } else {
        px.levels = f.levels.data();
        px.level_bytes = level_bytes(f.picture);
        px.lut = lut.rgba;
    }
    write_picture_png(path, px, f.width, f.height, color, level, threads);
}

// The filtered image as a PNG: the content's region of the plane (the image's own pixels, padding left out),
// min-max stretched to 8-bit gray.
void write_inverse_png(const std::string& path, const Frame& f, int level) {
    const int x0 = f.content_x, y0 = f.content_y, w = std::max(1, f.content_w), h = std::max(1, f.content_h);
    float lo = FLT_MAX, hi = -FLT_MAX;
    for (int y = y0; y < y0 + h; ++y)
        for (int x = x0; x < x0 + w; ++x) {
            const float v = f.inverse[std::size_t(y) * f.width + x];
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    std::vector<unsigned char> px(std::size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            px[std::size_t(y) * w + x] = static_cast<unsigned char>(
                level_of(normalize_to_range(f.inverse[std::size_t(y0 + y) * f.width + x0 + x], lo, hi)));
    PicturePixels p;
    p.levels = px.data();
    p.level_bytes = 1;
    write_picture_png(path, p, w, h, PngColor::Gray, level, 1);
}

std::string find_assets_dir() {
    std::error_code ec;
    std::vector<fs::path> candidates;
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        const fs::path dir = fs::path(exe).parent_path();
        candidates.push_back(dir / "assets");
        candidates.push_back(dir / ".." / "share" / "specview" / "assets");
    }
#ifdef SPECVIEW_SOURCE_ASSETS_DIR
    candidates.push_back(SPECVIEW_SOURCE_ASSETS_DIR);
#endif
    for (const auto& c : candidates)
        if (fs::is_directory(c, ec)) return fs::canonical(c, ec).string();
    return {};
}

}  // namespace specview
