// specview-video-probe: what the GPU machine offers for decoding video on the GPU, for the notes of "Scientific
// formats ... video": whether the driver's NVDEC library (libnvcuvid.so.1) loads, which NVDEC (cuvid) decoders
// this FFmpeg has, and whether a CUDA hardware device context opens. Prints one line each; exit 0 always.
#include <dlfcn.h>

#include <cstdio>
#include <initializer_list>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/hwcontext.h>
}

int main() {
    void* nv = dlopen("libnvcuvid.so.1", RTLD_NOW | RTLD_LOCAL);
    std::printf("libnvcuvid.so.1: %s\n", nv ? "loads" : dlerror());
    std::printf("FFmpeg libavcodec %s\n", av_version_info());
    for (const char* name : {"h264_cuvid", "hevc_cuvid", "av1_cuvid", "vp9_cuvid", "mjpeg_cuvid"}) {
        const AVCodec* c = avcodec_find_decoder_by_name(name);
        std::printf("decoder %-12s %s\n", name, c ? "present" : "absent");
    }
    AVBufferRef* dev = nullptr;
    const int e = av_hwdevice_ctx_create(&dev, AV_HWDEVICE_TYPE_CUDA, nullptr, nullptr, 0);
    char buf[AV_ERROR_MAX_STRING_SIZE] = {};
    if (e < 0) av_strerror(e, buf, sizeof buf);
    std::printf("CUDA hw device context (for hwaccel decoding into device memory): %s\n", e >= 0 ? "opened" : buf);
    av_buffer_unref(&dev);
    return 0;
}
