#include "app/io/load/jpeg_decode.h"

#include <csetjmp>
#include <cstdio>
// jpeglib.h needs FILE and size_t declared first.
#include <jerror.h>
#include <jpeglib.h>

namespace specview {

namespace {

// libjpeg reports errors by calling error_exit, which must not return: we longjmp back into the phase that
// called libjpeg. The phases below hold only plain data, so the jump skips no destructor.
struct ErrorMgr {
    jpeg_error_mgr pub;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr c) {
    auto* e = reinterpret_cast<ErrorMgr*>(c->err);
    (*c->err->format_message)(c, e->message);
    std::longjmp(e->jump, 1);
}

void on_message(j_common_ptr c, int level) {
    // level -1: a warning about corrupt data (libjpeg then carries on, filling what is missing). Treat it as an
    // error, except stray bytes before a marker, which real cameras write and which lose no data.
    if (level == -1 && c->err->msg_code != JWRN_EXTRANEOUS_DATA) on_error(c);
}

// Phase 1: the header. Returns false (with the message in err) on failure.
bool read_header(jpeg_decompress_struct* cinfo, ErrorMgr* err, const unsigned char* data, unsigned long len) {
    if (setjmp(err->jump)) return false;
    // Created here, under the jump: creation itself fails (error_exit) when the headers compiled against are not
    // the library's version.
    jpeg_create_decompress(cinfo);
    jpeg_mem_src(cinfo, data, len);
    if (jpeg_read_header(cinfo, TRUE) != JPEG_HEADER_OK) {
        std::snprintf(err->message, sizeof err->message, "no image in the JPEG stream");
        return false;
    }
    if (cinfo->num_components == 1)
        cinfo->out_color_space = JCS_GRAYSCALE;
    else if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK)
        cinfo->out_color_space = JCS_CMYK;
    else
        cinfo->out_color_space = JCS_RGB;
    return true;
}

// Phase 2: the pixels, into out (width x height x out_channels bytes). Gray and RGB rows are decoded in place.
bool read_pixels(jpeg_decompress_struct* cinfo, ErrorMgr* err, unsigned char* out, int width, int height,
                 int out_channels) {
    if (setjmp(err->jump)) return false;
    jpeg_start_decompress(cinfo);
    const int w = int(cinfo->output_width), comps = cinfo->output_components;
    // `out` holds exactly the header's size: anything else is refused before a row is written.
    if (w != width || int(cinfo->output_height) != height ||
        !(comps == out_channels || (comps == 4 && out_channels == 3))) {
        std::snprintf(err->message, sizeof err->message, "output size differs from the header's");
        return false;
    }
    JSAMPARRAY row = (*cinfo->mem->alloc_sarray)(reinterpret_cast<j_common_ptr>(cinfo), JPOOL_IMAGE,
                                                 JDIMENSION(w) * JDIMENSION(comps), 1);
    const bool adobe = cinfo->saw_Adobe_marker;
    while (cinfo->output_scanline < cinfo->output_height) {
        unsigned char* dst = out + std::size_t(cinfo->output_scanline) * std::size_t(w) * std::size_t(out_channels);
        JSAMPROW into[1] = {comps == out_channels ? dst : row[0]};
        if (jpeg_read_scanlines(cinfo, into, 1) != 1) {
            std::snprintf(err->message, sizeof err->message, "no more scan lines");
            return false;
        }
        const JSAMPLE* src = row[0];
        if (comps == 4) {  // CMYK -> RGB; Adobe files store the inks inverted
            for (int x = 0; x < w; ++x, src += 4, dst += 3) {
                const int k = adobe ? src[3] : 255 - src[3];
                for (int i = 0; i < 3; ++i) {
                    const int c = adobe ? src[i] : 255 - src[i];
                    dst[i] = static_cast<unsigned char>((c * k + 127) / 255);
                }
            }
        }
    }
    jpeg_finish_decompress(cinfo);
    return true;
}

struct Decompressor {  // owns the libjpeg state whatever happens (destroying an uncreated one is a no-op)
    jpeg_decompress_struct cinfo{};
    ErrorMgr err{};
    Decompressor() {
        cinfo.err = jpeg_std_error(&err.pub);
        err.pub.error_exit = on_error;
        err.pub.emit_message = on_message;
    }
    ~Decompressor() { jpeg_destroy_decompress(&cinfo); }
};

}  // namespace

Image decode_jpeg(ByteView bytes, const std::string& name, const std::function<void(const JpegInfo&)>& check) {
    Decompressor d;
    if (!read_header(&d.cinfo, &d.err, bytes.data(), static_cast<unsigned long>(bytes.size())))
        throw InputError(name, std::string("cannot decode JPEG: ") + d.err.message);
    const int w = int(d.cinfo.image_width), h = int(d.cinfo.image_height);
    const int channels = d.cinfo.out_color_space == JCS_GRAYSCALE ? 1 : 3;
    if (w <= 0 || h <= 0) throw InputError(name, "image has zero width or height");
    check(JpegInfo{w, h, channels});
    Image img = Image::allocate(w, h, channels, 8, "jpeg");
    if (!read_pixels(&d.cinfo, &d.err, img.writable(), w, h, channels))
        throw InputError(name, std::string("cannot decode JPEG: ") + d.err.message);
    if (int(d.cinfo.output_width) != w || int(d.cinfo.output_height) != h)
        throw InputError(name, "cannot decode JPEG: output size differs from the header's");
    return img;
}

}  // namespace specview
