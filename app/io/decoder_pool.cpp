// Index of this file (grep "[SECTION]"):
// - A child: the helper process, its socket, its end (reaped, named)
// - Sample buffers kept for reuse
// - The pool: spawning, taking and giving back children
// - Loading: one image, a stack's frames (several children at once), the per-frame protocol
#include "app/io/decoder_pool.h"
#include "app/core/ordered_parallel.h"
#include "app/io/load/video_decode.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>
#include <utility>

extern char** environ;

namespace specview {
namespace fs = std::filesystem;
namespace w = decoder_wire;
using Clock = std::chrono::steady_clock;

namespace {

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

template <std::size_t N>
std::string text(const char (&s)[N]) {
    return std::string(s, strnlen(s, N));
}

class Fd {  // owns a descriptor
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        if (this != &o) {
            reset();
            fd_ = std::exchange(o.fd_, -1);
        }
        return *this;
    }
    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_;
};

std::string signal_name(int sig) {
    switch (sig) {
        case SIGSEGV:
            return "SIGSEGV";
        case SIGBUS:
            return "SIGBUS";
        case SIGABRT:
            return "SIGABRT";
        case SIGFPE:
            return "SIGFPE";
        case SIGILL:
            return "SIGILL";
        case SIGKILL:
            return "SIGKILL";
        case SIGSYS:
            return "SIGSYS";
        default:
            return "signal " + std::to_string(sig);
    }
}

}  // namespace

// [SECTION] A child: the helper process, its socket, its end (reaped, named)
struct DecoderPool::Child {
    pid_t pid = -1;
    bool video = false;  // specview-video-decoder (FFmpeg linked in) rather than specview-decoder
    Fd sock;
    std::uint64_t baseline = 0;
    bool sandboxed = false;
    std::string note;

    ~Child() { stop(); }
    void stop() {
        if (pid <= 0) return;
        sock.reset();  // the child reads EOF and exits; make sure of it
        int status = 0;
        for (int i = 0; i < 50; ++i) {  // up to 50 ms for a clean exit
            if (waitpid(pid, &status, WNOHANG) == pid) {
                pid = -1;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        pid = -1;
    }
    // After the socket failed: reap the child and say how it ended.
    std::string reap(DecodeFailure* kind) {
        sock.reset();
        int status = 0;
        pid_t r = -1;
        for (int i = 0; i < 1000 && (r = waitpid(pid, &status, WNOHANG)) == 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (r == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
        pid = -1;
        if (r > 0 && WIFSIGNALED(status)) {
            const int sig = WTERMSIG(status);
            if (sig == SIGSYS) {
                *kind = DecodeFailure::Forbidden;
                return "the decoder was stopped: it made a system call outside its sandbox (SIGSYS)";
            }
            *kind = DecodeFailure::Crashed;
            return "the decoder crashed on this file (" + signal_name(sig) + "); nothing else was affected";
        }
        *kind = DecodeFailure::Crashed;
        return "the decoder ended unexpectedly" +
               (r > 0 && WIFEXITED(status) ? " (exit " + std::to_string(WEXITSTATUS(status)) + ")" : std::string());
    }

    bool send(const void* m, std::size_t n, int fd = -1, int fd2 = -1) {
        iovec io{const_cast<void*>(m), n};
        msghdr h{};
        h.msg_iov = &io;
        h.msg_iovlen = 1;
        alignas(cmsghdr) char ctl[CMSG_SPACE(2 * sizeof(int))] = {};
        const int fds[2] = {fd, fd2};
        const int count = fd < 0 ? 0 : fd2 < 0 ? 1 : 2;
        if (count) {
            h.msg_control = ctl;
            h.msg_controllen = CMSG_SPACE(count * sizeof(int));
            cmsghdr* c = CMSG_FIRSTHDR(&h);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(count * sizeof(int));
            std::memcpy(CMSG_DATA(c), fds, count * sizeof(int));
        }
        return sendmsg(sock.get(), &h, MSG_NOSIGNAL) == ssize_t(n);
    }

    // One message into buf (its kind first), waiting until `deadline`. 0: the child is gone; -1: timed out;
    // else the message's size. A descriptor that came with it lands in *fd.
    ssize_t receive(void* buf, std::size_t cap, Clock::time_point deadline, Fd* fd) {
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0) return -1;
            pollfd p{sock.get(), POLLIN, 0};
            const int r = poll(&p, 1, int(std::min<long long>(left, 1 << 30)));
            if (r < 0 && errno == EINTR) continue;
            if (r == 0) return -1;
            if (r < 0) return 0;
            iovec io{buf, cap};
            msghdr h{};
            h.msg_iov = &io;
            h.msg_iovlen = 1;
            alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
            h.msg_control = ctl;
            h.msg_controllen = sizeof ctl;
            const ssize_t got = recvmsg(sock.get(), &h, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            for (cmsghdr* c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                    int got_fd;
                    std::memcpy(&got_fd, CMSG_DATA(c), sizeof(int));
                    if (fd && fd->get() < 0)
                        *fd = Fd(got_fd);
                    else
                        ::close(got_fd);
                }
            return got < 0 ? 0 : got;
        }
    }
};

// [SECTION] Sample buffers kept for reuse
// Sample buffers of Images that are gone, kept for the next decodes: their pages exist already, which saves
// the page allocation of a fresh memfd (about 4 ms for a 1920x1080 RGB image). A few are kept, none huge.
struct DecoderPool::Bank {
    std::mutex mu;
    std::vector<std::pair<int, std::uint64_t>> spare;  // memfd, its size
    std::size_t keep = 4;
    static constexpr std::uint64_t kLargest = std::uint64_t(32) << 20;  // at most keep x 32 MiB held idle

    void put(int fd, std::uint64_t bytes) {
        std::lock_guard<std::mutex> lock(mu);
        if (bytes <= kLargest && spare.size() < keep)
            spare.emplace_back(fd, bytes);
        else
            ::close(fd);
    }
    std::pair<int, std::uint64_t> take() {
        std::lock_guard<std::mutex> lock(mu);
        if (spare.empty()) return {-1, 0};
        auto b = spare.back();
        spare.pop_back();
        return b;
    }
    ~Bank() {
        for (auto& b : spare) ::close(b.first);
    }
};

// [SECTION] The pool: spawning, taking and giving back children
DecoderPool::DecoderPool(DecoderOptions options) : opt_(options), bank_(std::make_shared<Bank>()) {
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    limit_ = opt_.processes > 0 ? opt_.processes : std::min(4, cores);
    bank_->keep = std::size_t(limit_);
}

DecoderPool::~DecoderPool() {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.clear();  // each child's destructor closes its socket and reaps it
}

namespace {
std::atomic<int> g_shared_processes{0};
}

DecoderPool& DecoderPool::shared() {
    static DecoderPool pool([] {
        DecoderOptions o;
        o.processes = g_shared_processes.load();
        return o;
    }());
    return pool;
}

void DecoderPool::configure_shared(int processes) { g_shared_processes.store(processes); }

std::string DecoderPool::helper_path(bool video) {
    if (const char* env = std::getenv(video ? "SPECVIEW_VIDEO_DECODER" : "SPECVIEW_DECODER"); env && *env) return env;
    const char* name = video ? "specview-video-decoder" : "specview-decoder";
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        // Beside the program (a build folder), or where `cmake --install` puts helpers (PREFIX/libexec/specview).
        for (const fs::path& next :
             {self.parent_path() / name, self.parent_path() / ".." / "libexec" / "specview" / name})
            if (fs::exists(next, ec)) return next.string();
    }
#ifdef SPECVIEW_DECODER_BUILD_PATH
    const fs::path built = fs::path(SPECVIEW_DECODER_BUILD_PATH).parent_path() / name;
    if (fs::exists(built, ec)) return built.string();
#endif
    // No video helper in this build: the image decoder refuses video files with a message saying so.
    return video ? helper_path(false) : std::string(name);
}

std::unique_ptr<DecoderPool::Child> DecoderPool::spawn(bool video) {
    const std::string helper = helper_path(video);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        throw DecodeError("", errno_text("decoder socket"), DecodeFailure::Unavailable);
    Fd mine(sv[0]), theirs(sv[1]);
    if (theirs.get() == w::kSocketFd) {  // dup2 onto itself would keep close-on-exec
        theirs = Fd(fcntl(sv[1], F_DUPFD_CLOEXEC, w::kSocketFd + 1));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, theirs.get(), w::kSocketFd);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    char* argv[] = {const_cast<char*>(helper.c_str()), nullptr};
    std::vector<char*> env;
    for (char** e = environ; e && *e; ++e) env.push_back(*e);
    static char no_sandbox[] = "SPECVIEW_DECODER_NO_SANDBOX=1";
    if (!opt_.sandbox) env.push_back(no_sandbox);  // only to measure what the sandbox costs
    env.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, helper.c_str(), &fa, nullptr, argv, env.data());
    posix_spawn_file_actions_destroy(&fa);
    theirs.reset();
    if (rc != 0)
        throw DecodeError("", "cannot start the decoder helper " + helper + ": " + std::strerror(rc),
                          DecodeFailure::Unavailable);
    auto c = std::make_unique<Child>();
    c->pid = pid;
    c->sock = std::move(mine);
    w::Hello hello;
    const ssize_t got = c->receive(&hello, sizeof hello, Clock::now() + std::chrono::seconds(10), nullptr);
    if (got != ssize_t(sizeof hello) || hello.kind != w::kHello) {
        DecodeFailure kind;
        const std::string why = got < 0 ? "did not start within 10 s" : c->reap(&kind);
        throw DecodeError("", "the decoder helper " + helper + " " + why, DecodeFailure::Unavailable);
    }
    c->baseline = hello.baseline_bytes;
    c->video = video;
    c->sandboxed = hello.sandboxed != 0;
    c->note = text(hello.note);
    if (!c->sandboxed) {
        static std::once_flag warned;
        std::call_once(warned, [&] {
            std::fprintf(stderr, "specview: image decoders run in separate processes without a syscall filter (%s)\n",
                         c->note.c_str());
        });
    }
    return c;
}

std::unique_ptr<DecoderPool::Child> DecoderPool::take(bool video) {
    std::unique_lock<std::mutex> lock(mu_);
    auto idle_of_kind = [&] {
        for (std::size_t i = 0; i < idle_.size(); ++i)
            if (idle_[i]->video == video) return int(i);
        return -1;
    };
    // A child of this kind, a free place for a new one, or an idle one of the other kind to give its place up.
    cv_.wait(lock, [&] { return idle_of_kind() >= 0 || alive_ < limit_ || !idle_.empty(); });
    if (const int i = idle_of_kind(); i >= 0) {
        auto c = std::move(idle_[std::size_t(i)]);
        idle_.erase(idle_.begin() + i);
        ++busy_;
        return c;
    }
    std::unique_ptr<Child> evicted;
    if (alive_ >= limit_) {  // the other kind's idle child goes (stopped outside the lock)
        evicted = std::move(idle_.back());
        idle_.pop_back();
        --alive_;
    }
    ++alive_;
    ++busy_;
    ++started_;
    lock.unlock();
    evicted.reset();
    try {
        auto c = spawn(video);
        std::lock_guard<std::mutex> relock(mu_);
        sandboxed_ = c->sandboxed;
        return c;
    } catch (...) {
        std::lock_guard<std::mutex> relock(mu_);
        --alive_;
        --busy_;
        cv_.notify_one();
        throw;
    }
}

void DecoderPool::give_back(std::unique_ptr<Child> c) {
    std::lock_guard<std::mutex> lock(mu_);
    --busy_;
    if (c && c->pid > 0)
        idle_.push_back(std::move(c));
    else
        --alive_;
    cv_.notify_one();
}

bool DecoderPool::sandboxed() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (sandboxed_ >= 0) return sandboxed_ == 1;
    }
    give_back(take(false));
    std::lock_guard<std::mutex> lock(mu_);
    return sandboxed_ == 1;
}

int DecoderPool::alive() const {
    std::lock_guard<std::mutex> lock(mu_);
    return alive_;
}
int DecoderPool::started() const {
    std::lock_guard<std::mutex> lock(mu_);
    return started_;
}

// [SECTION] Loading: one image, a stack's frames (several children at once), the per-frame protocol
Image DecoderPool::load(const std::string& path, const LoadLimits& lim, const HeaderCheck& check) {
    Image out;
    load_frames(path, lim, lim.frame, 1, check, [&](Image img) {
        out = std::move(img);
        return true;
    });
    return out;
}

int DecoderPool::load_frames_parallel(const std::string& path, const LoadLimits& lim, int first, int count,
                                      const HeaderCheck& check, const std::function<bool(Image)>& each, int streams) {
    if (count < 1) return 0;
    int total = 0;
    std::size_t frame_bytes = 0;
    bool go_on = true, video = false;
    load_frames(path, lim, first, 1, check, [&](Image img) {
        total = img.frames;
        video = img.frame_rate > 0;
        frame_bytes = std::max<std::size_t>(1, img.sample_bytes());
        go_on = each(std::move(img));
        return go_on;
    });
    // INT_MAX: to the last frame; a count past the end gets the frames there are, then load_frames' error.
    const int rest = count == INT_MAX ? total - first - 1 : count - 1;
    if (!go_on || rest <= 0) return 1;
    // Frames decoded ahead of the consumer: ~256 MiB (one a stream at least, so large frames get fewer streams);
    // chunks of up to 8 frames within that.
    const int ahead = int(std::clamp<std::size_t>((std::size_t(256) << 20) / frame_bytes, 1, 256));
    streams = std::max(1, std::min({streams, limit_, ahead}));
    const int chunk = std::clamp(ahead / (2 * streams), 1, 8);
    const int chunks = (rest + chunk - 1) / chunk;
    // A video streams from one decoder: a chunk's decoder would decode from the keyframe before its first frame,
    // which in a long group of pictures is the start (a 240-frame 4K H.264 video with one keyframe: every chunk
    // decoded from frame 1, and the later ones ran out of their time).
    if (streams == 1 || chunks == 1 || video) return 1 + load_frames(path, lim, first + 1, rest, check, each);
    return 1 + ordered_parallel<Image>(
                   first + 1, first + 1 + rest, streams, ahead, chunk,
                   [&](int a, int b, const std::function<bool(int, Image)>& emit) {
                       load_frames(path, lim, a, b - a, check, [&](Image img) {
                           const int f = img.frame;
                           return emit(f, std::move(img));
                       });
                   },
                   each,
                   [&](int f) {
                       return std::make_exception_ptr(
                           InputError(path, "frame " + std::to_string(f + 1) + " did not arrive"));
                   });
}

// One decoder request of load_frames: a child decoding frames [first, first + count) of one file, each frame its
// header (or an early failure), go or stop, its samples. start() reads a frame's header and answers it (a refusal is
// thrown once the child has answered), finish() reads its samples as an Image.
class DecoderPool::FrameStream {
public:
    // Each frame: its header (or an early failure), go or stop, its samples. Pipelined: once frame k's samples
    // are here, frame k + 1's header is answered (go) before `each` gets frame k, so the child decodes the next
    // frame while the consumer works on this one (a video's decoding and its spectra overlap). A stop (the consumer
    // has had enough) reads and drops the frame already under way, then says stop at the next frame's header and
    // reads the "refused" result.
    // A message is read into raw bytes, then copied into the struct its kind names.
    static constexpr std::size_t kMessage = std::max(sizeof(w::Header), sizeof(w::Result));
    struct Started {
        alignas(8) unsigned char buf[kMessage] = {};
        ssize_t got = 0;
        Fd out;
        bool waiting = false;  // go was said: the result is still to come
        double decode_seconds = 0;
    };
    static std::uint32_t kind_of(const unsigned char* b) {
        std::uint32_t k;
        std::memcpy(&k, b, sizeof k);
        return k;
    }

    FrameStream(DecoderPool& pool, Child& c, const std::string& path, const LoadLimits& lim, const HeaderCheck& check,
                std::uint64_t size)
        : pool_(pool), c_(c), path_(path), lim_(lim), check_(check), size_(size) {}
    // The header (or an early failure, which then stays in `buf`), then go or stop. A refusal is thrown once the
    // child has answered it.
    void start(Started& st) {
        const auto header_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(pool_.opt_.header_seconds));
        st.got = c_.receive(st.buf, sizeof st.buf, header_deadline, &st.out);
        if (st.got <= 0) throw fail(st.got < 0, pool_.opt_.header_seconds);
        if (!(kind_of(st.buf) == w::kHeader && st.got == ssize_t(sizeof(w::Header)))) return;
        w::Header hm;
        std::memcpy(&hm, st.buf, sizeof hm);
        ImageHeader h{hm.width, hm.height, hm.channels, hm.bit_depth, text(hm.format)};
        const double samples = double(h.width) * double(h.height) * double(h.channels);
        const double sample_bytes = samples * std::max(1, h.bit_depth / 8);
        bool go = true;
        std::exception_ptr refusal;
        try {
            if (h.width <= 0 || h.height <= 0 || h.channels < 1 || h.channels > 4 ||
                (h.bit_depth != 8 && h.bit_depth != 16 && h.bit_depth != 32))
                throw DecodeError(path_, "the decoder reported an impossible header", DecodeFailure::Crashed);
            if (lim_.check_available_memory) check_memory_estimate(h, path_);
            if (check_) check_(h);
        } catch (const InputError& e) {  // a check that does not know the file's name gets it here
            go = false;
            refusal = std::make_exception_ptr(e.path().empty() ? InputError(path_, e.reason()) : e);
        } catch (...) {
            go = false;
            refusal = std::current_exception();
        }
        w::Go g;
        g.go = go ? 1 : 0;
        // The child's address space: what it had, the file, and three times the samples (stb keeps the inflated
        // data, the output and a conversion at once), with room for the allocator.
        g.memory_limit =
            std::uint64_t(double(c_.baseline) + 2.0 * double(size_) + 3.0 * sample_bytes + double(256 << 20));
        // A video's frame threads: each holds frames in flight (4:2:0 and deeper: within 3x the luma) and a stack.
        if (h.format == "video")
            g.memory_limit += std::uint64_t(kVideoDecodeThreads * (3.0 * sample_bytes + double(16 << 20)));
        // Every frame to decode gets a spare sample buffer along with its go, when the bank has one: its pages
        // exist already (a fresh 6 MB memfd costs about 4 ms in page allocation), and a stack's frames reuse
        // those of frames already consumed.
        Fd frame_spare;
        if (go) {
            const auto [fd, bytes] = pool_.bank_->take();
            frame_spare = Fd(fd);
            g.recycled_bytes = fd >= 0 ? bytes : 0;
        }
        if (!c_.send(&g, sizeof g, frame_spare.get())) throw fail(false, 0);
        frame_spare.reset();  // the child has it now
        st.decode_seconds = pool_.opt_.base_seconds + pool_.opt_.ns_per_sample * 1e-9 * samples;
        st.waiting = true;
        if (go) return;
        // Refused: its "refused" result, then the reason.
        const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                 std::chrono::duration<double>(st.decode_seconds));
        std::memset(st.buf, 0, sizeof st.buf);
        st.got = c_.receive(st.buf, sizeof st.buf, deadline, &st.out);
        if (st.got <= 0) throw fail(st.got < 0, st.decode_seconds);
        std::rethrow_exception(refusal);
    }
    // Its samples, as an Image. The decode's time counts from now: the child may have decoded it while the
    // consumer had the frame before (its result then waits here already).
    Image finish(Started& st) {
        if (st.waiting) {
            const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                     std::chrono::duration<double>(st.decode_seconds));
            std::memset(st.buf, 0, sizeof st.buf);
            st.got = c_.receive(st.buf, sizeof st.buf, deadline, &st.out);
            if (st.got <= 0) throw fail(st.got < 0, st.decode_seconds);
        }
        const unsigned char* buf = st.buf;
        const ssize_t got = st.got;
        Fd& out = st.out;
        if (kind_of(buf) != w::kResult || got != ssize_t(sizeof(w::Result))) {
            c_.stop();
            throw DecodeError(path_, "the decoder broke its protocol", DecodeFailure::Crashed);
        }
        w::Result r;
        std::memcpy(&r, buf, sizeof r);
        if (!r.ok) {
            const std::string reason = text(r.reason);
            if (r.out_of_memory)
                throw DecodeError(path_, "the decoder ran out of memory (" + reason + ")", DecodeFailure::OutOfMemory);
            throw DecodeError(path_, reason.empty() ? "cannot decode" : reason, DecodeFailure::BadInput);
        }

        // The samples: a memfd sealed against shrinking, at least the promised size, mapped read-only.
        Image img;
        img.width = r.width;
        img.height = r.height;
        img.channels = r.channels;
        img.bit_depth = r.bit_depth;
        img.format = text(r.format);
        img.frames = std::max(1, r.frames);
        img.frame = r.frame;
        img.frame_rate = r.frame_rate > 0 && r.frame_rate < 10000 ? r.frame_rate : 0.0;
        img.nonfinite = r.nonfinite;
        img.nonfinite_fill = r.nonfinite_fill;
        // (the child's word is checked: a known unit and a finite positive size, else not calibrated)
        if (const std::string unit = unit_name(text(r.pixel_unit));
            !unit.empty() && std::isfinite(r.pixel_size) && r.pixel_size > 0) {
            img.pixel_size.value = r.pixel_size;
            img.pixel_size.unit = unit;
            if (std::isfinite(r.z_spacing) && r.z_spacing > 0) img.z_spacing = r.z_spacing;
        }
        struct stat ost {};
        const int seals = out.get() >= 0 ? fcntl(out.get(), F_GET_SEALS) : -1;
        const bool sealed = seals >= 0 && (seals & F_SEAL_SHRINK);
        if (img.width <= 0 || img.height <= 0 || img.channels < 1 || img.channels > 4 ||
            (img.bit_depth != 8 && img.bit_depth != 16 && img.bit_depth != 32) || r.bytes != img.sample_bytes() ||
            !sealed || fstat(out.get(), &ost) != 0 || std::uint64_t(ost.st_size) < r.bytes) {
            c_.stop();
            throw DecodeError(path_, "the decoder handed back inconsistent pixels", DecodeFailure::Crashed);
        }
        const std::size_t n = r.bytes;
        void* p = mmap(nullptr, n, PROT_READ, MAP_SHARED | MAP_POPULATE, out.get(), 0);
        if (p == MAP_FAILED)
            throw InputError(path_, "cannot map the decoded pixels: " + std::string(std::strerror(errno)));
        // When the last copy of the Image goes, the buffer goes back to the bank for a later decode.
        const int fd = std::exchange(out, Fd()).release();
        const std::uint64_t cap = std::uint64_t(ost.st_size);
        std::shared_ptr<Bank> bank = pool_.bank_;
        img.storage = std::shared_ptr<const unsigned char>(static_cast<const unsigned char*>(p),
                                                           [n, fd, cap, bank](const unsigned char* q) {
                                                               munmap(const_cast<unsigned char*>(q), n);
                                                               bank->put(fd, cap);
                                                           });
        return img;
    }
    DecodeError fail(bool timed_out, double seconds) {
        if (timed_out) {
            c_.stop();
            return DecodeError(
                path_,
                "decoding took longer than " + std::to_string(int(seconds + 0.5)) + " s; the decoder was stopped",
                DecodeFailure::TimedOut);
        }
        DecodeFailure kind = DecodeFailure::Crashed;
        const std::string why = c_.reap(&kind);
        return DecodeError(path_, why, kind);
    }

private:
    DecoderPool& pool_;
    Child& c_;
    const std::string& path_;
    const LoadLimits& lim_;
    const HeaderCheck& check_;
    const std::uint64_t size_;
};

int DecoderPool::load_frames(const std::string& path, const LoadLimits& lim, int first, int count,
                             const HeaderCheck& check, const std::function<bool(Image)>& each) {
    if (count < 1) return 0;
    // What can be said without reading a byte, as load_image says it.
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (ec || !fs::exists(st)) throw InputError(path, "no such file");
    if (fs::is_directory(st)) throw InputError(path, "is a directory, not an image file");
    if (!fs::is_regular_file(st)) throw InputError(path, "not a regular file");
    Fd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
    if (file.get() < 0) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
    struct stat fst {};
    if (fstat(file.get(), &fst) != 0 || !S_ISREG(fst.st_mode)) throw InputError(path, "not a regular file");
    const std::uint64_t size = std::uint64_t(fst.st_size);
    if (size == 0) throw InputError(path, "empty file");
    // A stack (TIFF, .npy) may be larger than one image's file cap when its frames are within the limits.
    unsigned char magic[12] = {};
    const bool have_magic = pread(file.get(), magic, sizeof magic, 0) == ssize_t(sizeof magic);
    // Video goes to the video decoder helper (FFmpeg linked in); everything else to the lean image one.
    const bool video = have_magic && is_video(std::vector<unsigned char>(magic, magic + sizeof magic));
    const bool stack_format =
        have_magic && (std::memcmp(magic, "\x93NUMPY", 6) == 0 || std::memcmp(magic, "II*\0", 4) == 0 ||
                       std::memcmp(magic + 4, "ftyp", 4) == 0 || std::memcmp(magic, "\x1A\x45\xDF\xA3", 4) == 0 ||
                       std::memcmp(magic, "RIFF", 4) == 0 || std::memcmp(magic, "MM\0*", 4) == 0 ||
                       std::memcmp(magic, "II+\0", 4) == 0 || std::memcmp(magic, "MM\0+", 4) == 0);
    const std::uint64_t cap =
        stack_format ? std::max(lim.max_file_bytes, lim.max_stack_file_bytes) : lim.max_file_bytes;
    if (size > cap)
        throw InputError(path,
                         "file is " + human_bytes(double(size)) + ", over the limit of " + human_bytes(double(cap)));

    std::unique_ptr<Child> c;
    try {
        c = take(video);
    } catch (const DecodeError& e) {
        throw DecodeError(path, e.reason(), e.kind());
    }
    // Whatever happens below, the child goes back to the pool (or, dead, is counted out).
    struct Return {
        DecoderPool* pool;
        std::unique_ptr<Child>* child;
        ~Return() { pool->give_back(std::move(*child)); }
    } give{this, &c};

    FrameStream stream(*this, *c, path, lim, check, size);
    using Started = FrameStream::Started;
    w::Request req;
    req.max_side = lim.max_side;
    req.max_pixels = lim.max_pixels;
    req.file_bytes = size;
    req.frame = first;
    req.frame_count = count;
    const std::string named = format_named_by(path);
    std::snprintf(req.named_format, sizeof req.named_format, "%s", named.c_str());
    // Until the header: room for the file (and stb's copy of it) only.
    req.memory_limit = c->baseline + 2 * size + (std::uint64_t(256) << 20);
    if (!c->send(&req, sizeof req, file.get())) throw stream.fail(false, 0);
    file.reset();

    bool stopping = false;
    int delivered = 0;
    auto next = std::make_unique<Started>();
    stream.start(*next);
    for (int frame_k = 0; frame_k < count; ++frame_k) {
        Image img = stream.finish(*next);
        next.reset();
        // The next frame under way before this one is handed over (its refusal or failure after this one).
        std::exception_ptr ahead_error;
        if (frame_k + 1 < count) {
            next = std::make_unique<Started>();
            try {
                stream.start(*next);
            } catch (...) {
                ahead_error = std::current_exception();
                next.reset();
            }
        }
        ++delivered;
        if (!each(std::move(img))) {
            if (frame_k + 1 == count || ahead_error) break;
            stopping = true;
            // The frame under way: read and dropped (a failure of it ends the stream here: the child is gone).
            try {
                (void)stream.finish(*next);
            } catch (const std::exception&) {
                break;
            }
            next.reset();
            if (frame_k + 2 == count) break;
            // The next frame's header (or its failure): answer stop, read the refusal.
            alignas(8) unsigned char tail[FrameStream::kMessage] = {};
            Fd ignored;
            const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                     std::chrono::duration<double>(opt_.header_seconds));
            ssize_t n = c->receive(tail, sizeof tail, deadline, &ignored);
            if (n > 0 && FrameStream::kind_of(tail) == w::kHeader) {
                w::Go g;
                g.go = 0;
                if (!c->send(&g, sizeof g)) throw stream.fail(false, 0);
                n = c->receive(tail, sizeof tail, deadline, &ignored);
            }
            if (n <= 0) throw stream.fail(n < 0, opt_.header_seconds);
            break;
        }
        if (ahead_error) std::rethrow_exception(ahead_error);
    }
    (void)stopping;
    return delivered;
}

}  // namespace specview
