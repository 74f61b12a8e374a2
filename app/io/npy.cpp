#include "app/io/npy.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <vector>

namespace specview {

void write_file_atomically(const std::string& path, const std::string& bytes) {
    write_file_atomically(path, {{bytes.data(), bytes.size()}});
}

namespace {
// Writes through `write` into a temporary file in path's directory, renamed into place once complete (a failure
// leaves whatever was there untouched).
void write_through_temporary(const std::string& path, const std::function<void(std::ofstream&)>& write) {
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(path + ": cannot write (" + std::strerror(errno) + ")");
        write(out);
        out.flush();
        if (!out) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            throw std::runtime_error(path + ": write failed (" + std::strerror(errno) + ")");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error(path + ": cannot move the finished file into place (" + ec.message() + ")");
    }
}
}  // namespace

void write_file_atomically(const std::string& path, const std::vector<std::pair<const char*, std::size_t>>& parts) {
    write_through_temporary(path, [&](std::ofstream& out) {
        for (const auto& [data, size] : parts) out.write(data, std::streamsize(size));
    });
}

namespace {
// The .npy header (magic, version, length, the dictionary padded to a multiple of 64) for this shape.
std::string npy_header(const char* descr, const std::string& shape) {
    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header.push_back('\n');
    std::string bytes("\x93NUMPY\x01\x00", 8);
    const std::uint16_t hl = std::uint16_t(header.size());
    bytes.push_back(char(hl & 0xFF));
    bytes.push_back(char(hl >> 8));
    return bytes + header;
}
}  // namespace

void write_npy_complex64_3d(const std::string& path, int depth, int height, int width,
                            const std::function<void(int, std::complex<float>*)>& fill) {
    const std::string head =
        npy_header("<c8", std::to_string(depth) + ", " + std::to_string(height) + ", " + std::to_string(width));
    write_through_temporary(path, [&](std::ofstream& out) {
        out.write(head.data(), std::streamsize(head.size()));
        std::vector<std::complex<float>> plane(std::size_t(height) * width);
        for (int z = 0; z < depth && out; ++z) {
            fill(z, plane.data());
            out.write(reinterpret_cast<const char*>(plane.data()), std::streamsize(plane.size() * sizeof(plane[0])));
        }
    });
}

namespace {
// A 2D C-order array of `descr` elements of `elem` bytes, from the caller's buffer (no second copy).
void write_npy_2d(const std::string& path, const char* descr, const void* data, std::size_t elem, int height,
                  int width) {
    const std::string bytes = npy_header(descr, std::to_string(height) + ", " + std::to_string(width));
    const std::size_t n = std::size_t(height) * width;
    write_file_atomically(path, {{bytes.data(), bytes.size()}, {reinterpret_cast<const char*>(data), n * elem}});
}
}  // namespace

void write_npy_complex64(const std::string& path, const std::complex<float>* data, int height, int width) {
    write_npy_2d(path, "<c8", data, sizeof(std::complex<float>), height, width);
}

void write_npy_float32(const std::string& path, const float* data, int height, int width) {
    write_npy_2d(path, "<f4", data, sizeof(float), height, width);
}

NpyComplex parse_npy_complex64(const std::string& bytes, const std::string& name) {
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
        throw std::runtime_error(name + ": not a .npy file");
    if (bytes[6] != 1) throw std::runtime_error(name + ": unsupported .npy version");
    const std::size_t hl = std::uint8_t(bytes[8]) | (std::size_t(std::uint8_t(bytes[9])) << 8);
    if (10 + hl > bytes.size()) throw std::runtime_error(name + ": header truncated");
    const std::string header = bytes.substr(10, hl);
    std::smatch m;
    if (!std::regex_search(header, m, std::regex("'descr':\\s*'<c8'")))
        throw std::runtime_error(name + ": not complex64 little-endian");
    if (std::regex_search(header, m, std::regex("'fortran_order':\\s*True")))
        throw std::runtime_error(name + ": Fortran order not supported");
    if (!std::regex_search(header, m, std::regex("'shape':\\s*\\((\\d{1,9}),\\s*(\\d{1,9})\\)")))
        throw std::runtime_error(name + ": not a 2D array (or a dimension over 9 digits)");
    NpyComplex r;
    r.height = std::stoi(m[1]);
    r.width = std::stoi(m[2]);
    // The data must be exactly what the shape says: checked before anything is allocated.
    const std::size_t have = bytes.size() - 10 - hl;
    const unsigned long long need =
        (unsigned long long)r.height * (unsigned long long)r.width * sizeof(std::complex<float>);
    if (need != have)
        throw std::runtime_error(name + ": shape (" + std::to_string(r.height) + ", " + std::to_string(r.width) +
                                 ") needs " + std::to_string(need) + " bytes of data, the file has " +
                                 std::to_string(have));
    r.data.resize(std::size_t(r.height) * std::size_t(r.width));
    if (need) std::memcpy(r.data.data(), bytes.data() + 10 + hl, std::size_t(need));
    return r;
}

NpyComplex read_npy_complex64(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open");
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    return parse_npy_complex64(bytes, path);
}

}  // namespace specview
