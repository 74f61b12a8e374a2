#include "app/npy.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>

namespace specview {

void write_file_atomically(const std::string& path, const std::string& bytes) {
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(path + ": cannot write (" + std::strerror(errno) + ")");
        out.write(bytes.data(), std::streamsize(bytes.size()));
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

void write_npy_complex64(const std::string& path, const std::complex<float>* data, int height, int width) {
    std::string header = "{'descr': '<c8', 'fortran_order': False, 'shape': (" + std::to_string(height) + ", " +
                         std::to_string(width) + "), }";
    // magic(6) + version(2) + header length(2) + header + '\n' padded to a multiple of 64.
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header.push_back('\n');
    std::string bytes("\x93NUMPY\x01\x00", 8);
    const std::uint16_t hl = std::uint16_t(header.size());
    bytes.push_back(char(hl & 0xFF));
    bytes.push_back(char(hl >> 8));
    bytes += header;
    const std::size_t n = std::size_t(height) * width;
    bytes.append(reinterpret_cast<const char*>(data), n * sizeof(std::complex<float>));
    write_file_atomically(path, bytes);
}

NpyComplex read_npy_complex64(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open");
    char pre[10];
    in.read(pre, 10);
    if (!in || std::memcmp(pre, "\x93NUMPY", 6) != 0) throw std::runtime_error(path + ": not a .npy file");
    if (pre[6] != 1) throw std::runtime_error(path + ": unsupported .npy version");
    const std::size_t hl = std::uint8_t(pre[8]) | (std::size_t(std::uint8_t(pre[9])) << 8);
    std::string header(hl, '\0');
    in.read(header.data(), std::streamsize(hl));
    std::smatch m;
    if (!std::regex_search(header, m, std::regex("'descr':\\s*'<c8'")))
        throw std::runtime_error(path + ": not complex64 little-endian");
    if (std::regex_search(header, m, std::regex("'fortran_order':\\s*True")))
        throw std::runtime_error(path + ": Fortran order not supported");
    if (!std::regex_search(header, m, std::regex("'shape':\\s*\\((\\d+),\\s*(\\d+)\\)")))
        throw std::runtime_error(path + ": not a 2D array");
    NpyComplex r;
    r.height = std::stoi(m[1]);
    r.width = std::stoi(m[2]);
    r.data.resize(std::size_t(r.height) * r.width);
    in.read(reinterpret_cast<char*>(r.data.data()), std::streamsize(r.data.size() * sizeof(std::complex<float>)));
    if (!in) throw std::runtime_error(path + ": data truncated");
    return r;
}

}  // namespace specview
