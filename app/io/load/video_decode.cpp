#include "app/io/load/video_decode.h"

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace specview {

bool video_supported() { return true; }

namespace {
struct Memory {
    const unsigned char* data;
    std::int64_t size, pos;
};
int read_packet(void* opaque, std::uint8_t* buf, int n) {
    Memory* m = static_cast<Memory*>(opaque);
    const std::int64_t left = m->size - m->pos;
    if (left <= 0) return AVERROR_EOF;
    const int k = int(std::min<std::int64_t>(n, left));
    std::memcpy(buf, m->data + m->pos, std::size_t(k));
    m->pos += k;
    return k;
}
std::int64_t seek(void* opaque, std::int64_t off, int whence) {
    Memory* m = static_cast<Memory*>(opaque);
    if (whence & AVSEEK_SIZE) return m->size;
    whence &= ~AVSEEK_FORCE;
    const std::int64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return -1;
    const std::int64_t to = base + off;
    if (to < 0 || to > m->size) return -1;
    m->pos = to;
    return to;
}
std::string av_error(int e) {
    char buf[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(e, buf, sizeof buf);
    return buf;
}
// NVDEC's surfaces (AV_PIX_FMT_CUDA) when the decoder offers them; nothing else (a stream NVDEC cannot take fails
// to decode rather than falling back to the CPU unseen).
AVPixelFormat cuda_format(AVCodecContext*, const AVPixelFormat* offered) {
    for (; *offered != AV_PIX_FMT_NONE; ++offered)
        if (*offered == AV_PIX_FMT_CUDA) return *offered;
    return AV_PIX_FMT_NONE;
}
// A CUDA device for FFmpeg on the CUDA runtime's own context (device 0's primary context, which our kernels use),
// so the frames' device pointers are valid in them. FFmpeg's "primary_ctx" option would retain the same context
// but insists on its scheduling flags, and refuses one the runtime already started with others; given the
// context itself, it leaves the flags alone. The driver library is opened here (never linked: a machine without
// it decodes on the CPU).
AVBufferRef* cuda_device() {
    using InitFn = int (*)(unsigned);
    using DeviceGetFn = int (*)(int*, int);
    using RetainFn = int (*)(CUcontext*, int);
    static CUcontext ctx = nullptr;
    static std::string why;
    static const bool ready = [] {
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            why = std::string("no CUDA driver library (") + dlerror() + ")";
            return false;
        }
        auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
        auto device_get = reinterpret_cast<DeviceGetFn>(dlsym(lib, "cuDeviceGet"));
        auto retain = reinterpret_cast<RetainFn>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
        int dev = 0, e = 0;
        if (!init || !device_get || !retain)
            why = "the CUDA driver library lacks cuInit/cuDeviceGet/cuDevicePrimaryCtxRetain";
        else if ((e = init(0)) != 0)
            why = "the CUDA driver does not start (error " + std::to_string(e) + ")";
        else if ((e = device_get(&dev, 0)) != 0)
            why = "no CUDA device 0 (error " + std::to_string(e) + ")";
        else if ((e = retain(&ctx, dev)) != 0)
            why = "device 0's primary context (error " + std::to_string(e) + ")";
        return ctx != nullptr;  // retained for the process's life, as the runtime keeps it
    }();
    if (!ready) throw GpuDecodeUnavailable(why);
    AVBufferRef* hw = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
    if (!hw) throw std::bad_alloc();
    auto* dc = reinterpret_cast<AVHWDeviceContext*>(hw->data);
    auto* cuda = static_cast<AVCUDADeviceContext*>(dc->hwctx);
    cuda->cuda_ctx = ctx;
    cuda->stream = nullptr;  // the legacy default stream: the plane copy waits for it (gpu/plane/plane_prep.h)
    if (const int e = av_hwdevice_ctx_init(hw); e < 0) {
        av_buffer_unref(&hw);
        throw GpuDecodeUnavailable("FFmpeg does not take the CUDA context (" + av_error(e) + ")");
    }
    return hw;
}
}  // namespace

struct VideoStack::Impl {
    std::string name;
    Memory mem{};
    AVIOContext* io = nullptr;
    AVFormatContext* fmt = nullptr;
    AVCodecContext* dec = nullptr;
    AVPacket* pkt = nullptr;
    AVFrame* frame = nullptr;
    SwsContext* sws = nullptr;
    int stream = -1;
    bool gpu = false;           // NVDEC into device memory
    AVBufferRef* hw = nullptr;  // the CUDA device (the CUDA runtime's primary context), kept across re-opens
    bool have_frame = false;    // `frame` holds frame next - 1
    int frames = 0;
    double rate = 0;
    int next = 0;  // the index of the next frame the decoder gives
    bool draining = false;
    // The stream's packet timestamps, sorted: frame k (presentation order) has pts[k]. Lets a far frame be reached
    // by a seek to the keyframe before it instead of decoding from the start. Empty: no timestamps (no seeking).
    std::vector<std::int64_t> pts;

    [[noreturn]] void fail(const std::string& what, int e = 0) const {
        throw InputError(name, "cannot decode video: " + what + (e ? " (" + av_error(e) + ")" : ""));
    }
    void close() {
        if (sws) sws_freeContext(sws);
        sws = nullptr;
        av_frame_free(&frame);
        av_packet_free(&pkt);
        avcodec_free_context(&dec);
        if (fmt) avformat_close_input(&fmt);
        if (io) {
            av_freep(&io->buffer);
            avio_context_free(&io);
        }
        next = 0;
        draining = false;
        have_frame = false;
    }
    // The container from the start, its video stream, a one-thread decoder.
    void open() {
        close();
        mem.pos = 0;
        unsigned char* buf = static_cast<unsigned char*>(av_malloc(1 << 16));
        if (!buf) throw std::bad_alloc();
        io = avio_alloc_context(buf, 1 << 16, 0, &mem, read_packet, nullptr, seek);
        if (!io) {
            av_free(buf);
            throw std::bad_alloc();
        }
        fmt = avformat_alloc_context();
        if (!fmt) throw std::bad_alloc();
        fmt->pb = io;
        fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
        // Only the containers this reader is for: a crafted file cannot reach the other demuxers.
        fmt->format_whitelist = av_strdup("mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi");
        if (int e = avformat_open_input(&fmt, nullptr, nullptr, nullptr); e < 0) {
            fmt = nullptr;  // freed by the failed open
            fail("not a readable video container", e);
        }
        if (int e = avformat_find_stream_info(fmt, nullptr); e < 0) fail("no stream information", e);
        const AVCodec* codec = nullptr;
        stream = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
        if (stream < 0 || !codec) fail("no video stream this build can decode", stream < 0 ? stream : 0);
        dec = avcodec_alloc_context3(codec);
        if (!dec) throw std::bad_alloc();
        if (int e = avcodec_parameters_to_context(dec, fmt->streams[stream]->codecpar); e < 0)
            fail("bad codec parameters", e);
        // Frame threads (the video helper's sandbox allows threads, not processes): as many as the CPU set has,
        // up to kVideoDecodeThreads (the parent's memory limit for a video counts that many frames in flight).
        cpu_set_t cpus;
        CPU_ZERO(&cpus);
        const int online = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
        dec->thread_count = std::clamp(online, 1, kVideoDecodeThreads);
        dec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
        if (gpu) {
            bool nvdec = false;
            for (int i = 0;; ++i) {
                const AVCodecHWConfig* c = avcodec_get_hw_config(codec, i);
                if (!c) break;
                if ((c->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) && c->device_type == AV_HWDEVICE_TYPE_CUDA)
                    nvdec = true;
            }
            if (!nvdec)
                throw GpuDecodeUnavailable(std::string("this FFmpeg has no NVDEC path for ") + codec->name + " video");
            if (!hw) hw = cuda_device();
            dec->hw_device_ctx = av_buffer_ref(hw);
            if (!dec->hw_device_ctx) throw std::bad_alloc();
            dec->get_format = cuda_format;
            dec->extra_hw_frames = kGpuVideoFramesHeld;
            dec->thread_count = 1;  // NVDEC decodes; the host only parses
        }
        if (int e = avcodec_open2(dec, codec, nullptr); e < 0)
            fail("cannot open the " + std::string(codec->name) + " decoder", e);
        pkt = av_packet_alloc();
        frame = av_frame_alloc();
        if (!pkt || !frame) throw std::bad_alloc();
        const AVRational r = fmt->streams[stream]->avg_frame_rate.num ? fmt->streams[stream]->avg_frame_rate
                                                                      : fmt->streams[stream]->r_frame_rate;
        rate = r.den ? av_q2d(r) : 0.0;
    }
    // The next decoded frame into `frame`; false at the end of the stream.
    bool next_frame() {
        for (;;) {
            have_frame = false;
            const int e = avcodec_receive_frame(dec, frame);
            if (e == 0) {
                ++next;
                have_frame = true;
                return true;
            }
            if (e == AVERROR_EOF) return false;
            if (e != AVERROR(EAGAIN)) fail("frame " + std::to_string(next + 1), e);
            if (draining) return false;
            // Feed the next packet of the stream (or the end).
            for (;;) {
                const int r = av_read_frame(fmt, pkt);
                if (r < 0) {
                    draining = true;
                    if (int s = avcodec_send_packet(dec, nullptr); s < 0 && s != AVERROR_EOF) fail("flushing", s);
                    break;
                }
                if (pkt->stream_index != stream) {
                    av_packet_unref(pkt);
                    continue;
                }
                const int s = avcodec_send_packet(dec, pkt);
                av_packet_unref(pkt);
                if (s < 0 && s != AVERROR(EAGAIN)) fail("packet of frame " + std::to_string(next + 1), s);
                break;
            }
        }
    }
};

VideoStack::VideoStack(ByteView bytes, std::string name, bool on_gpu) : impl_(new Impl) {
    Impl& m = *impl_;
    m.name = std::move(name);
    m.gpu = on_gpu;
    m.mem = Memory{bytes.data(), std::int64_t(bytes.size()), 0};
    av_log_set_level(AV_LOG_QUIET);
    try {
        m.open();
        // How many frames, and their timestamps: one pass over the packets (no decoding), then from the start.
        int count = 0;
        bool all_pts = true;
        while (av_read_frame(m.fmt, m.pkt) >= 0) {
            if (m.pkt->stream_index == m.stream) {
                ++count;
                if (m.pkt->pts == AV_NOPTS_VALUE)
                    all_pts = false;
                else
                    m.pts.push_back(m.pkt->pts);
            }
            av_packet_unref(m.pkt);
            if (count > 10000000) m.fail("over ten million frames");
        }
        const std::int64_t declared = m.fmt->streams[m.stream]->nb_frames;
        m.frames = count > 0 ? count : int(std::min<std::int64_t>(std::max<std::int64_t>(declared, 0), 10000000));
        std::sort(m.pts.begin(), m.pts.end());
        if (!all_pts || int(m.pts.size()) != m.frames || std::adjacent_find(m.pts.begin(), m.pts.end()) != m.pts.end())
            m.pts.clear();  // no clean one-timestamp-a-frame index: frames are reached by decoding from the start
        // Back to the start: a seek to the first timestamp (the decoder has seen no packet yet), else opening the
        // container again (which probes the stream again: ~50 ms of a 4K H.264 video here, a frame's decode).
        if (m.pts.empty() || av_seek_frame(m.fmt, m.stream, m.pts.front(), AVSEEK_FLAG_BACKWARD) < 0) m.open();
        if (m.frames < 1) m.fail("no frames");
        if (m.gpu) {
            // NVDEC must take this stream (its profile, size, depth): a frame that does not decode here sends the
            // video to the CPU decoder, which says what is wrong with it if anything is.
            try {
                decode(0, [](const ImageHeader&) {});
            } catch (const InputError& e) {
                throw GpuDecodeUnavailable("NVDEC does not decode it (" + e.reason() + ")");
            }
        }
    } catch (...) {
        m.close();
        av_buffer_unref(&m.hw);
        throw;
    }
}

VideoStack::~VideoStack() {
    impl_->close();
    av_buffer_unref(&impl_->hw);
}

int VideoStack::frames() const { return impl_->frames; }
double VideoStack::frame_rate() const { return impl_->rate; }
int VideoStack::width() const { return impl_->fmt->streams[impl_->stream]->codecpar->width; }
int VideoStack::height() const { return impl_->fmt->streams[impl_->stream]->codecpar->height; }
std::string VideoStack::decoder() const {
    return std::string(impl_->dec->codec->name) + (impl_->gpu ? " (NVDEC)" : "");
}

Image VideoStack::decode(int index, const std::function<void(const ImageHeader&)>& check) {
    Impl& m = *impl_;
    if (index < 0 || index >= m.frames)
        throw InputError(m.name, "no frame " + std::to_string(index + 1) + ": the video has " +
                                     std::to_string(m.frames) + " frames");
    // The frame decoded last, asked again: still in `frame`.
    const bool again = m.have_frame && index == m.next - 1;
    // Far ahead or backwards: a seek to the keyframe at or before the frame's timestamp, then decoding forward
    // (each frame's place found from its timestamp); without timestamps, from the start.
    if (!again && (index < m.next || index > m.next + 30) && !m.pts.empty()) {
        if (av_seek_frame(m.fmt, m.stream, m.pts[std::size_t(index)], AVSEEK_FLAG_BACKWARD) >= 0) {
            avcodec_flush_buffers(m.dec);
            m.draining = false;
            m.next = -1;  // unknown until a frame's timestamp says
        } else {
            m.open();
        }
    } else if (!again && index < m.next) {
        m.open();
    }
    const AVCodecParameters* par = m.fmt->streams[m.stream]->codecpar;
    const AVPixFmtDescriptor* pd = av_pix_fmt_desc_get(AVPixelFormat(par->format));
    const bool deep = pd && pd->comp[0].depth > 8 && !(pd->flags & AV_PIX_FMT_FLAG_RGB);
    check(ImageHeader{par->width, par->height, 1, deep ? 16 : 8, "video"});
    for (;;) {
        if (m.next > index) break;  // (asked again: next is index + 1)
        if (!m.next_frame())
            m.fail("the stream ends before frame " + std::to_string(index + 1) + " of " + std::to_string(m.frames));
        if (m.next <= 0) {  // after a seek: where are we? (next_frame counted from -1)
            const std::int64_t ts =
                m.frame->best_effort_timestamp != AV_NOPTS_VALUE ? m.frame->best_effort_timestamp : m.frame->pts;
            const auto it = std::lower_bound(m.pts.begin(), m.pts.end(), ts);
            if (ts == AV_NOPTS_VALUE || it == m.pts.end() || *it != ts) {  // lost: from the start instead
                m.open();
                continue;
            }
            m.next = int(it - m.pts.begin()) + 1;
        }
        if (m.next > index + 1) {  // the seek landed past it: from the start
            m.open();
            continue;
        }
    }
    const AVFrame* f = m.frame;
    if (f->width != par->width || f->height != par->height)
        m.fail("frame " + std::to_string(index + 1) + " is " + std::to_string(f->width) + "x" +
               std::to_string(f->height) + ", the stream " + std::to_string(par->width) + "x" +
               std::to_string(par->height));
    const int w = f->width, h = f->height;
    if (f->format ==
        AV_PIX_FMT_CUDA) {  // NVDEC: the luma plane of an NV12/P010/P016/YUV444 surface, left on the device
        const auto* frames =
            f->hw_frames_ctx ? reinterpret_cast<const AVHWFramesContext*>(f->hw_frames_ctx->data) : nullptr;
        const AVPixFmtDescriptor* sd = frames ? av_pix_fmt_desc_get(frames->sw_format) : nullptr;
        if (!sd) m.fail("an NVDEC frame without its surface format");
        const int depth = sd->comp[0].depth;
        // One sample a pixel in plane 0, 8 bits, or 16 with the significant bits at the top (P010's 10).
        if ((sd->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_BE)) || sd->comp[0].plane != 0 ||
            sd->comp[0].offset != 0 || sd->comp[0].step != (depth > 8 ? 2 : 1) ||
            (depth > 8 && sd->comp[0].shift != 16 - depth) || depth > 16)
            m.fail(std::string("NVDEC surfaces in ") + sd->name +
                   " (luma not one plane of 8 or MSB-aligned 16-bit samples)");
        AVFrame* ref = av_frame_clone(f);
        if (!ref) throw std::bad_alloc();
        auto* samples =
            new DeviceSamples{ref->data[0], std::size_t(ref->linesize[0]), depth > 8 && depth < 16 ? depth : 0};
        Image img;
        img.width = w;
        img.height = h;
        img.channels = 1;
        img.bit_depth = depth > 8 ? 16 : 8;
        img.format = "video";
        img.device = std::shared_ptr<const DeviceSamples>(samples, [ref](const DeviceSamples* p) mutable {
            av_frame_free(&ref);  // the surface back to the decoder's pool
            delete p;
        });
        return img;
    }
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(AVPixelFormat(f->format));
    if (!d) m.fail("unknown pixel format");
    const int depth = d->comp[0].depth;
    // Luma straight from plane 0 (planar YUV, NV12, gray): one sample a pixel, 8 bits or little-endian 9..16.
    const bool luma = !(d->flags & AV_PIX_FMT_FLAG_RGB) && !(d->flags & AV_PIX_FMT_FLAG_BE) && d->comp[0].plane == 0 &&
                      d->comp[0].offset == 0 && d->comp[0].shift == 0 && d->comp[0].step == (depth > 8 ? 2 : 1);
    if (luma && depth == 8) {
        Image img = Image::allocate(w, h, 1, 8, "video");
        for (int y = 0; y < h; ++y)
            std::memcpy(img.writable() + std::size_t(y) * w, f->data[0] + std::ptrdiff_t(y) * f->linesize[0],
                        std::size_t(w));
        return img;
    }
    if (luma && depth > 8 && depth <= 16) {
        Image img = Image::allocate(w, h, 1, 16, "video");
        std::uint16_t* out = reinterpret_cast<std::uint16_t*>(img.writable());
        const int up = 16 - depth;  // to the full 16-bit range, as a PNG of that depth would be
        for (int y = 0; y < h; ++y) {
            const std::uint16_t* row =
                reinterpret_cast<const std::uint16_t*>(f->data[0] + std::ptrdiff_t(y) * f->linesize[0]);
            for (int x = 0; x < w; ++x) {
                const std::uint32_t v = row[x];
                out[std::size_t(y) * w + x] =
                    std::uint16_t(std::min<std::uint32_t>(65535, (v << up) | (up ? v >> (depth - up) : 0)));
            }
        }
        return img;
    }
    // Anything else (RGB, packed YUV): through swscale to 8-bit gray.
    m.sws = sws_getCachedContext(m.sws, w, h, AVPixelFormat(f->format), w, h, AV_PIX_FMT_GRAY8, SWS_POINT, nullptr,
                                 nullptr, nullptr);
    if (!m.sws) m.fail(std::string("cannot convert ") + d->name + " to gray");
    Image img = Image::allocate(w, h, 1, 8, "video");
    std::uint8_t* dst[4] = {img.writable(), nullptr, nullptr, nullptr};
    int stride[4] = {w, 0, 0, 0};
    sws_scale(m.sws, f->data, f->linesize, 0, h, dst, stride);
    return img;
}

}  // namespace specview
