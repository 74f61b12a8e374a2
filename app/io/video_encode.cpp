#include "app/io/video_encode.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#ifdef SPECVIEW_HAS_VIDEO
#include <dlfcn.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}
#endif

namespace specview {

#ifndef SPECVIEW_HAS_VIDEO
struct VideoWriter::Impl {
    std::string codec;
};
VideoWriter::VideoWriter(const std::string& path, int, int, double) {
    throw std::runtime_error(path +
                             ": this build of specview has no video support (FFmpeg's development packages "
                             "were not found when it was configured)");
}
VideoWriter::~VideoWriter() = default;
void VideoWriter::add(const std::uint32_t*) {}
void VideoWriter::finish() {}
const std::string& VideoWriter::codec() const { return impl_->codec; }
#else

namespace {
// FFmpeg's libraries are opened when the first video is written, not at start: linked, their hundred-odd
// dependencies cost every run of the program about 30 ms of dynamic loading.
struct Av {
    decltype(&::avformat_alloc_output_context2) avformat_alloc_output_context2 = nullptr;
    decltype(&::avcodec_find_encoder_by_name) avcodec_find_encoder_by_name = nullptr;
    decltype(&::avcodec_find_encoder) avcodec_find_encoder = nullptr;
    decltype(&::avformat_new_stream) avformat_new_stream = nullptr;
    decltype(&::avcodec_alloc_context3) avcodec_alloc_context3 = nullptr;
    decltype(&::av_opt_set) av_opt_set = nullptr;
    decltype(&::avcodec_open2) avcodec_open2 = nullptr;
    decltype(&::avcodec_parameters_from_context) avcodec_parameters_from_context = nullptr;
    decltype(&::avio_open) avio_open = nullptr;
    decltype(&::avio_closep) avio_closep = nullptr;
    decltype(&::avformat_write_header) avformat_write_header = nullptr;
    decltype(&::avformat_free_context) avformat_free_context = nullptr;
    decltype(&::av_frame_alloc) av_frame_alloc = nullptr;
    decltype(&::av_packet_alloc) av_packet_alloc = nullptr;
    decltype(&::av_frame_get_buffer) av_frame_get_buffer = nullptr;
    decltype(&::av_frame_make_writable) av_frame_make_writable = nullptr;
    decltype(&::av_frame_free) av_frame_free = nullptr;
    decltype(&::av_packet_free) av_packet_free = nullptr;
    decltype(&::avcodec_free_context) avcodec_free_context = nullptr;
    decltype(&::sws_getContext) sws_getContext = nullptr;
    decltype(&::sws_scale) sws_scale = nullptr;
    decltype(&::sws_freeContext) sws_freeContext = nullptr;
    decltype(&::avcodec_send_frame) avcodec_send_frame = nullptr;
    decltype(&::avcodec_receive_packet) avcodec_receive_packet = nullptr;
    decltype(&::av_packet_rescale_ts) av_packet_rescale_ts = nullptr;
    decltype(&::av_interleaved_write_frame) av_interleaved_write_frame = nullptr;
    decltype(&::av_write_trailer) av_write_trailer = nullptr;
    decltype(&::av_strerror) av_strerror = nullptr;
    decltype(&::av_log_set_level) av_log_set_level = nullptr;
    decltype(&::av_guess_format) av_guess_format = nullptr;
    std::string error;
};

const Av& av() {
    static const Av a = [] {
        Av t;
        auto open = [&](const char* soname) -> void* {
            void* h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
            if (!h && t.error.empty()) t.error = std::string("cannot load ") + soname + " (" + dlerror() + ")";
            return h;
        };
        // Each function by its name; the first one missing is the error.
        auto sym = [&](void* h, auto& fn, const char* name, const char* soname) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
            if (!fn && t.error.empty()) t.error = std::string("no ") + name + " in " + soname;
        };
        if (void* h = open(SPECVIEW_AVFORMAT_SONAME)) {
            sym(h, t.avformat_alloc_output_context2, "avformat_alloc_output_context2", SPECVIEW_AVFORMAT_SONAME);
            sym(h, t.avformat_new_stream, "avformat_new_stream", SPECVIEW_AVFORMAT_SONAME);
            sym(h, t.avio_open, "avio_open", SPECVIEW_AVFORMAT_SONAME);
            sym(h, t.avio_closep, "avio_closep", SPECVIEW_AVFORMAT_SONAME);
            sym(h, t.avformat_write_header, "avformat_write_header", SPECVIEW_AVFORMAT_SONAME);
            sym(h, t.avformat_free_context, "avformat_free_context", SPECVIEW_AVFORMAT_SONAME);
            sym(h, t.av_interleaved_write_frame, "av_interleaved_write_frame", SPECVIEW_AVFORMAT_SONAME);
            sym(h, t.av_write_trailer, "av_write_trailer", SPECVIEW_AVFORMAT_SONAME);
            sym(h, t.av_guess_format, "av_guess_format", SPECVIEW_AVFORMAT_SONAME);
        }
        if (void* h = open(SPECVIEW_AVCODEC_SONAME)) {
            sym(h, t.avcodec_find_encoder_by_name, "avcodec_find_encoder_by_name", SPECVIEW_AVCODEC_SONAME);
            sym(h, t.avcodec_find_encoder, "avcodec_find_encoder", SPECVIEW_AVCODEC_SONAME);
            sym(h, t.avcodec_alloc_context3, "avcodec_alloc_context3", SPECVIEW_AVCODEC_SONAME);
            sym(h, t.avcodec_open2, "avcodec_open2", SPECVIEW_AVCODEC_SONAME);
            sym(h, t.avcodec_parameters_from_context, "avcodec_parameters_from_context", SPECVIEW_AVCODEC_SONAME);
            sym(h, t.av_packet_alloc, "av_packet_alloc", SPECVIEW_AVCODEC_SONAME);
            sym(h, t.av_packet_free, "av_packet_free", SPECVIEW_AVCODEC_SONAME);
            sym(h, t.avcodec_free_context, "avcodec_free_context", SPECVIEW_AVCODEC_SONAME);
            sym(h, t.avcodec_send_frame, "avcodec_send_frame", SPECVIEW_AVCODEC_SONAME);
            sym(h, t.avcodec_receive_packet, "avcodec_receive_packet", SPECVIEW_AVCODEC_SONAME);
            sym(h, t.av_packet_rescale_ts, "av_packet_rescale_ts", SPECVIEW_AVCODEC_SONAME);
        }
        if (void* h = open(SPECVIEW_AVUTIL_SONAME)) {
            sym(h, t.av_opt_set, "av_opt_set", SPECVIEW_AVUTIL_SONAME);
            sym(h, t.av_frame_alloc, "av_frame_alloc", SPECVIEW_AVUTIL_SONAME);
            sym(h, t.av_frame_get_buffer, "av_frame_get_buffer", SPECVIEW_AVUTIL_SONAME);
            sym(h, t.av_frame_make_writable, "av_frame_make_writable", SPECVIEW_AVUTIL_SONAME);
            sym(h, t.av_frame_free, "av_frame_free", SPECVIEW_AVUTIL_SONAME);
            sym(h, t.av_strerror, "av_strerror", SPECVIEW_AVUTIL_SONAME);
            sym(h, t.av_log_set_level, "av_log_set_level", SPECVIEW_AVUTIL_SONAME);
        }
        if (void* h = open(SPECVIEW_SWSCALE_SONAME)) {
            sym(h, t.sws_getContext, "sws_getContext", SPECVIEW_SWSCALE_SONAME);
            sym(h, t.sws_scale, "sws_scale", SPECVIEW_SWSCALE_SONAME);
            sym(h, t.sws_freeContext, "sws_freeContext", SPECVIEW_SWSCALE_SONAME);
        }
        return t;
    }();
    return a;
}
}  // namespace

struct VideoWriter::Impl {
    const Av& A = av();
    std::string path, part, codec;
    int w = 0, h = 0, ew = 0, eh = 0;  // the pictures' size and the encoded (even) size
    AVFormatContext* oc = nullptr;
    AVCodecContext* c = nullptr;
    AVStream* st = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* pkt = nullptr;
    SwsContext* sws = nullptr;
    std::vector<std::uint32_t> padded;
    std::int64_t next_pts = 0;
    bool finished = false;

    [[noreturn]] void fail(const std::string& what, int e = 0) {
        char buf[AV_ERROR_MAX_STRING_SIZE] = {};
        if (e) A.av_strerror(e, buf, sizeof buf);
        throw std::runtime_error(path + ": " + what + (e ? std::string(" (") + buf + ")" : ""));
    }
    void drain() {
        for (;;) {
            const int e = A.avcodec_receive_packet(c, pkt);
            if (e == AVERROR(EAGAIN) || e == AVERROR_EOF) return;
            if (e < 0) fail("encoding", e);
            if (pkt->duration == 0) pkt->duration = 1;
            A.av_packet_rescale_ts(pkt, c->time_base, st->time_base);
            pkt->stream_index = st->index;
            if (int w2 = A.av_interleaved_write_frame(oc, pkt); w2 < 0) fail("writing", w2);
        }
    }
    void release() {
        if (sws) A.sws_freeContext(sws);
        sws = nullptr;
        A.av_frame_free(&frame);
        A.av_packet_free(&pkt);
        A.avcodec_free_context(&c);
        if (oc) {
            if (oc->pb) A.avio_closep(&oc->pb);
            A.avformat_free_context(oc);
            oc = nullptr;
        }
    }
};

VideoWriter::VideoWriter(const std::string& path, int width, int height, double fps) {
    if (!av().error.empty()) throw std::runtime_error(path + ": " + av().error);
    impl_.reset(new Impl);
    Impl& m = *impl_;
    const Av& A = m.A;
    m.path = path;
    m.part = path + ".part";
    m.w = width;
    m.h = height;
    m.ew = width + (width & 1);
    m.eh = height + (height & 1);
    A.av_log_set_level(AV_LOG_QUIET);
    try {
        // The container from the final name's extension; written under a temporary name.
        const AVOutputFormat* of = A.av_guess_format(nullptr, path.c_str(), nullptr);
        if (!of) m.fail("no video container for this file name (use .mp4, .mkv or .avi)");
        if (A.avformat_alloc_output_context2(&m.oc, of, nullptr, m.part.c_str()) < 0 || !m.oc)
            m.fail("cannot set up the container");
        const AVCodec* codec = A.avcodec_find_encoder_by_name("libx264");
        if (!codec) codec = A.avcodec_find_encoder(AV_CODEC_ID_MPEG4);
        if (!codec) m.fail("no video encoder (libx264 or MPEG-4) in this FFmpeg");
        m.codec = codec->name;
        m.st = A.avformat_new_stream(m.oc, nullptr);
        m.c = A.avcodec_alloc_context3(codec);
        if (!m.st || !m.c) throw std::bad_alloc();
        const int rate = fps > 0 ? int(fps * 1000 + 0.5) : 25000;
        m.c->width = m.ew;
        m.c->height = m.eh;
        m.c->time_base = AVRational{1000, rate};
        m.c->framerate = AVRational{rate, 1000};
        m.c->pix_fmt = AV_PIX_FMT_YUV420P;
        m.c->gop_size = 12;
        m.c->thread_count = 0;  // this process, not the sandboxed decoder: all cores
        if (std::string(codec->name) == "libx264") {
            A.av_opt_set(m.c->priv_data, "crf", "18", 0);  // spectra are noise: keep detail
            A.av_opt_set(m.c->priv_data, "preset", "fast", 0);
        } else {
            m.c->bit_rate = std::int64_t(m.ew) * m.eh * 4;  // about 4 bits a pixel a frame's worth
            m.c->qmax = 8;
        }
        if (m.oc->oformat->flags & AVFMT_GLOBALHEADER) m.c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        if (int e = A.avcodec_open2(m.c, codec, nullptr); e < 0)
            m.fail(std::string("cannot open the ") + codec->name + " encoder", e);
        if (int e = A.avcodec_parameters_from_context(m.st->codecpar, m.c); e < 0) m.fail("codec parameters", e);
        m.st->time_base = m.c->time_base;
        if (int e = A.avio_open(&m.oc->pb, m.part.c_str(), AVIO_FLAG_WRITE); e < 0) m.fail("cannot write", e);
        if (int e = A.avformat_write_header(m.oc, nullptr); e < 0) m.fail("cannot write the header", e);
        m.frame = A.av_frame_alloc();
        m.pkt = A.av_packet_alloc();
        if (!m.frame || !m.pkt) throw std::bad_alloc();
        m.frame->format = m.c->pix_fmt;
        m.frame->width = m.ew;
        m.frame->height = m.eh;
        if (int e = A.av_frame_get_buffer(m.frame, 0); e < 0) m.fail("frame buffer", e);
        m.sws = A.sws_getContext(m.ew, m.eh, AV_PIX_FMT_RGBA, m.ew, m.eh, AV_PIX_FMT_YUV420P, SWS_BILINEAR, nullptr,
                                 nullptr, nullptr);
        if (!m.sws) m.fail("cannot convert RGBA to yuv420p");
        m.padded.resize(std::size_t(m.ew) * m.eh);
    } catch (...) {
        m.release();
        std::remove(m.part.c_str());
        throw;
    }
}

VideoWriter::~VideoWriter() {
    if (!impl_->finished) {
        impl_->release();
        std::remove(impl_->part.c_str());
    }
}

const std::string& VideoWriter::codec() const { return impl_->codec; }

void VideoWriter::add(const std::uint32_t* rgba) {
    Impl& m = *impl_;
    const Av& A = m.A;
    for (int y = 0; y < m.eh; ++y) {
        const int sy = y < m.h ? y : m.h - 1;
        std::memcpy(&m.padded[std::size_t(y) * m.ew], rgba + std::size_t(sy) * m.w, std::size_t(m.w) * 4);
        if (m.ew > m.w) m.padded[std::size_t(y) * m.ew + m.w] = rgba[std::size_t(sy) * m.w + m.w - 1];
    }
    if (int e = A.av_frame_make_writable(m.frame); e < 0) m.fail("frame", e);
    const std::uint8_t* src[4] = {reinterpret_cast<const std::uint8_t*>(m.padded.data()), nullptr, nullptr, nullptr};
    const int stride[4] = {m.ew * 4, 0, 0, 0};
    A.sws_scale(m.sws, src, stride, 0, m.eh, m.frame->data, m.frame->linesize);
    m.frame->pts = m.next_pts++;
    if (int e = A.avcodec_send_frame(m.c, m.frame); e < 0) m.fail("encoding", e);
    m.drain();
}

void VideoWriter::finish() {
    Impl& m = *impl_;
    const Av& A = m.A;
    if (int e = A.avcodec_send_frame(m.c, nullptr); e < 0 && e != AVERROR_EOF) m.fail("flushing", e);
    m.drain();
    if (int e = A.av_write_trailer(m.oc); e < 0) m.fail("writing the trailer", e);
    m.release();
    if (std::rename(m.part.c_str(), m.path.c_str()) != 0) {
        std::remove(m.part.c_str());
        throw std::runtime_error(m.path + ": cannot move the finished video into place");
    }
    m.finished = true;
}

#endif

}  // namespace specview
