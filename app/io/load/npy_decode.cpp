#include "app/io/load/npy_decode.h"

#include <cctype>
#include <cstring>

namespace specview {

namespace {

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
struct DictParser {
    const std::string& s;
    std::size_t i = 0;
    const std::string& name;
    void ws() {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    }
    [[noreturn]] void bad(const std::string& what) const { throw InputError(name, "not a valid .npy header: " + what); }
    void expect(char c) {
        ws();
        if (i >= s.size() || s[i] != c) bad(std::string("expected '") + c + "'");
        ++i;
    }
    bool peek(char c) {
        ws();
        return i < s.size() && s[i] == c;
    }
    std::string str() {
        ws();
        if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) bad("expected a string");
        const char q = s[i++];
        const std::size_t start = i;
        while (i < s.size() && s[i] != q) ++i;
        if (i >= s.size()) bad("unterminated string");
        return s.substr(start, i++ - start);
    }
    std::string word() {
        ws();
        const std::size_t start = i;
        while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
        return s.substr(start, i - start);
    }
    std::uint64_t number() {
        ws();
        std::uint64_t v = 0;
        const std::size_t start = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
            if (v > (std::uint64_t(1) << 40)) bad("a dimension over 2^40");
            v = v * 10 + std::uint64_t(s[i++] - '0');
        }
        if (i == start) bad("expected a number in the shape");
        // numpy writes 3L on Python 2
        if (i < s.size() && (s[i] == 'L' || s[i] == 'l')) ++i;
        return v;
    }
};

enum class Type { U8, U16, U32, I8, I16, I32, I64, U64, F32, F64 };

}  // namespace

bool is_npy(ByteView b) { return b.size() >= 6 && std::memcmp(b.data(), "\x93NUMPY", 6) == 0; }

NpyHeader parse_npy_header(const unsigned char* b, std::size_t n, const std::string& name) {
    if (n < 10 || std::memcmp(b, "\x93NUMPY", 6) != 0) throw InputError(name, "not a .npy file");
    const int major = b[6];
    std::size_t hl = 0, start = 0;
    if (major == 1) {
        hl = std::size_t(b[8]) | (std::size_t(b[9]) << 8);
        start = 10;
    } else if (major == 2 || major == 3) {
        if (n < 12) throw InputError(name, "truncated .npy header");
        hl = std::size_t(b[8]) | (std::size_t(b[9]) << 8) | (std::size_t(b[10]) << 16) | (std::size_t(b[11]) << 24);
        start = 12;
    } else {
        throw InputError(name, ".npy format version " + std::to_string(major) + " is not supported (1 to 3 are)");
    }
    if (hl > (std::size_t(1) << 20)) throw InputError(name, ".npy header over 1 MiB");
    if (start + hl > n) throw InputError(name, "truncated .npy header");
    const std::string text(reinterpret_cast<const char*>(b) + start, hl);
    NpyHeader h;
    h.data_offset = start + hl;
    DictParser p{text, 0, name};
    bool have_descr = false, have_order = false, have_shape = false;
    p.expect('{');
    while (!p.peek('}')) {
        const std::string key = p.str();
        p.expect(':');
        if (key == "descr") {
            if (p.peek('[')) throw InputError(name, "a structured array (record dtype) is not an image");
            h.descr = p.str();
            have_descr = true;
        } else if (key == "fortran_order") {
            const std::string v = p.word();
            if (v != "True" && v != "False") p.bad("fortran_order must be True or False");
            h.fortran_order = v == "True";
            have_order = true;
        } else if (key == "shape") {
            p.expect('(');
            while (!p.peek(')')) {
                h.shape.push_back(p.number());
                if (h.shape.size() > 32) p.bad("more than 32 dimensions");
                if (p.peek(','))
                    p.expect(',');
                else if (!p.peek(')'))
                    p.bad("expected ',' or ')' in the shape");
            }
            p.expect(')');
            have_shape = true;
        } else {
            p.bad("unknown key '" + key + "'");
        }
        if (p.peek(','))
            p.expect(',');
        else if (!p.peek('}'))
            p.bad("expected ',' or '}'");
    }
    if (!have_descr || !have_order || !have_shape) p.bad("descr, fortran_order and shape are required");
    return h;
}

Image decode_npy(ByteView bytes, const std::string& name, int frame,
                 const std::function<void(const ImageHeader&)>& check, int* frames) {
    const NpyHeader h = parse_npy_header(bytes.data(), bytes.size(), name);
    const std::string& d = h.descr;
    if (d.size() < 3) throw InputError(name, "unknown .npy dtype '" + d + "'");
    const char order = d[0], code = d[1];
    const std::string size = d.substr(2);
    if (order != '<' && order != '>' && order != '|' && order != '=')
        throw InputError(name, "unknown .npy byte order in dtype '" + d + "'");
    if (code == 'c')
        throw InputError(name, "a complex array (dtype " + d + ") is a spectrum, not an image (--raw writes these)");
    Type t;
    if (code == 'u' && size == "1")
        t = Type::U8;
    else if (code == 'u' && size == "2")
        t = Type::U16;
    else if (code == 'u' && size == "4")
        t = Type::U32;
    else if (code == 'u' && size == "8")
        t = Type::U64;
    else if (code == 'i' && size == "1")
        t = Type::I8;
    else if (code == 'i' && size == "2")
        t = Type::I16;
    else if (code == 'i' && size == "4")
        t = Type::I32;
    else if (code == 'i' && size == "8")
        t = Type::I64;
    else if (code == 'f' && size == "4")
        t = Type::F32;
    else if (code == 'f' && size == "8")
        t = Type::F64;
    else
        throw InputError(name,
                         "the .npy dtype '" + d + "' is not an image's (uint8/16/32/64, int8/16/32/64, float32/64)");
    const std::size_t item = std::size_t(std::stoi(size));
    if (h.shape.size() != 2 && h.shape.size() != 3)
        throw InputError(name, "a .npy array of " + std::to_string(h.shape.size()) +
                                   " dimensions: images are (height, width), stacks (frames, height, width)");
    const std::uint64_t nf = h.shape.size() == 3 ? h.shape[0] : 1, ny = h.shape[h.shape.size() - 2],
                        nx = h.shape.back();
    if (nf == 0 || ny == 0 || nx == 0) throw InputError(name, "image has zero width or height (an empty array)");
    if (nx > (1u << 30) || ny > (1u << 30) || nf > (1u << 30)) throw InputError(name, "array dimensions over 2^30");
    const std::uint64_t need = nf * ny * nx * item, have = bytes.size() - h.data_offset;
    if (need / item / nx / ny != nf) throw InputError(name, "array size overflows");
    if (have != need)
        throw InputError(name, "the shape needs " + std::to_string(need) + " bytes of data, the file has " +
                                   std::to_string(have) + (have < need ? " (truncated)" : ""));
    if (frames) *frames = int(nf);
    if (frame < 0 || std::uint64_t(frame) >= nf)
        throw InputError(name, "no frame " + std::to_string(frame + 1) + ": the array has " + std::to_string(nf) +
                                   (nf == 1 ? " frame" : " frames"));
    const int w = int(nx), hgt = int(ny);
    const int depth = t == Type::U8 ? 8 : t == Type::U16 ? 16 : 32;
    check(ImageHeader{w, hgt, 1, depth, "npy"});
    Image img = Image::allocate(w, hgt, 1, depth, "npy");
    unsigned char* out = img.writable();
    const unsigned char* data = bytes.data() + h.data_offset;
    const bool swap = (order == '>');  // this machine is little-endian (x86-64)
    // The common case: native byte order, C order, stored as the image keeps it: one copy of the frame.
    if (!swap && !h.fortran_order && (t == Type::U8 || t == Type::U16 || t == Type::F32)) {
        std::memcpy(out, data + std::uint64_t(frame) * ny * nx * item, std::size_t(ny * nx * item));
        return img;
    }
    if (!swap && !h.fortran_order && (t == Type::F64 || t == Type::I16 || t == Type::I32)) {  // a typed loop
        const unsigned char* src = data + std::uint64_t(frame) * ny * nx * item;
        float* dst = reinterpret_cast<float*>(out);
        const std::size_t n = std::size_t(ny * nx);
        for (std::size_t i = 0; i < n; ++i) {
            if (t == Type::F64) {
                double v;
                std::memcpy(&v, src + 8 * i, 8);
                dst[i] = float(v);
            } else if (t == Type::I16) {
                std::int16_t v;
                std::memcpy(&v, src + 2 * i, 2);
                dst[i] = float(v);
            } else {
                std::int32_t v;
                std::memcpy(&v, src + 4 * i, 4);
                dst[i] = float(v);
            }
        }
        return img;
    }
    auto load = [&](std::uint64_t index, unsigned char* v) {
        const unsigned char* p = data + index * item;
        for (std::size_t k = 0; k < item; ++k) v[k] = swap ? p[item - 1 - k] : p[k];
    };
    for (int y = 0; y < hgt; ++y)
        for (int x = 0; x < w; ++x) {
            // C order: (f, y, x) at (f ny + y) nx + x; Fortran: f + y nf + x nf ny.
            const std::uint64_t idx = h.fortran_order
                                          ? std::uint64_t(frame) + std::uint64_t(y) * nf + std::uint64_t(x) * nf * ny
                                          : (std::uint64_t(frame) * ny + std::uint64_t(y)) * nx + std::uint64_t(x);
            unsigned char v[8];
            load(idx, v);
            const std::size_t o = std::size_t(y) * w + x;
            float f = 0;
            switch (t) {
                case Type::U8:
                    out[o] = v[0];
                    continue;
                case Type::U16:
                    std::memcpy(out + 2 * o, v, 2);
                    continue;
                case Type::U32: {
                    std::uint32_t u;
                    std::memcpy(&u, v, 4);
                    f = float(double(u) / 4294967295.0);
                    break;
                }
                case Type::U64: {
                    std::uint64_t u;
                    std::memcpy(&u, v, 8);
                    f = float(u);
                    break;
                }
                case Type::I8:
                    f = float(static_cast<std::int8_t>(v[0]));
                    break;
                case Type::I16: {
                    std::int16_t u;
                    std::memcpy(&u, v, 2);
                    f = float(u);
                    break;
                }
                case Type::I32: {
                    std::int32_t u;
                    std::memcpy(&u, v, 4);
                    f = float(u);
                    break;
                }
                case Type::I64: {
                    std::int64_t u;
                    std::memcpy(&u, v, 8);
                    f = float(u);
                    break;
                }
                case Type::F32:
                    std::memcpy(&f, v, 4);
                    break;
                case Type::F64: {
                    double u;
                    std::memcpy(&u, v, 8);
                    f = float(u);
                    break;
                }
            }
            std::memcpy(out + 4 * o, &f, 4);
        }
    return img;
}

}  // namespace specview
