// libspecview-nvdec.so: the GPU video decoder the program opens when it first decodes a video on the GPU
// (app/io/video_gpu.h). FFmpeg is linked here, not into the program.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "app/io/load/video_decode.h"
#include "app/io/video_gpu.h"

namespace specview {
namespace {

// The file, mapped read-only for the demuxer (which reads it from memory, as in the isolated decoder).
class Mapping {
public:
    explicit Mapping(const std::string& path) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw InputError(path, std::strerror(errno));
        struct stat st {};
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            ::close(fd);
            throw InputError(path, "not a regular file");
        }
        size_ = std::size_t(st.st_size);
        if (size_ > 0) p_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        if (p_ == MAP_FAILED) throw InputError(path, std::string("cannot map it: ") + std::strerror(errno));
        if (size_ == 0) throw InputError(path, "empty file");
    }
    ~Mapping() {
        if (p_ && p_ != MAP_FAILED) munmap(p_, size_);
    }
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ByteView bytes() const { return ByteView(static_cast<const unsigned char*>(p_), size_); }

private:
    void* p_ = nullptr;
    std::size_t size_ = 0;
};

class NvdecVideo final : public GpuVideo {
public:
    explicit NvdecVideo(const std::string& path) : file_(path), stack_(file_.bytes(), path, true) {}
    int frames() const override { return stack_.frames(); }
    double frame_rate() const override { return stack_.frame_rate(); }
    int width() const override { return stack_.width(); }
    int height() const override { return stack_.height(); }
    std::string decoder() const override { return stack_.decoder(); }
    Image decode(int frame, const HeaderCheck& check) override {
        Image img = stack_.decode(frame, check ? check : HeaderCheck([](const ImageHeader&) {}));
        img.frame = frame;
        img.frames = stack_.frames();
        img.frame_rate = stack_.frame_rate();
        return img;
    }

private:
    Mapping file_;
    VideoStack stack_;
};

}  // namespace
}  // namespace specview

// The module's one entry (looked up by name): a new GpuVideo, or an exception (GpuDecodeUnavailable, InputError).
extern "C" __attribute__((visibility("default"))) specview::GpuVideo* specview_open_gpu_video(const char* path) {
    return new specview::NvdecVideo(path);
}
