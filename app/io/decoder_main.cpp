// specview-decoder: the sandboxed child of app/io/decoder_pool.h. It is started by the pool with a socket on
// descriptor 3 and is no use on its own. Before it reads any untrusted byte it closes every other descriptor,
// asks to die with its parent, turns core dumps off, drops root to nobody, sets no-new-privileges and installs
// a seccomp allow-list (reading and writing descriptors it was handed, memory, a memfd for the result, exiting:
// no open, no socket, no exec, no ptrace). Then it serves requests until the socket closes.
#include <fcntl.h>
#include <grp.h>
#include <linux/memfd.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <malloc.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "app/io/decoder_pool.h"
#include "app/io/load/load.h"

namespace w = specview::decoder_wire;

namespace {

const int kSock = w::kSocketFd;
bool g_selftest = false;  // SPECVIEW_DECODER_SELFTEST=1: files starting "SPECVIEW-SELFTEST:" misbehave on purpose

template <std::size_t N>
void put(char (&dst)[N], const std::string& s) {
    std::snprintf(dst, N, "%s", s.c_str());
}

bool send_msg(const void* m, std::size_t n, int fd = -1) {
    iovec io{const_cast<void*>(m), n};
    msghdr h{};
    h.msg_iov = &io;
    h.msg_iovlen = 1;
    alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
    if (fd >= 0) {
        h.msg_control = ctl;
        h.msg_controllen = sizeof ctl;
        cmsghdr* c = CMSG_FIRSTHDR(&h);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
    }
    return sendmsg(kSock, &h, MSG_NOSIGNAL) == ssize_t(n);
}

// One message of exactly sizeof(T) bytes (and up to two descriptors, in order); false when the parent has gone.
template <class T>
bool recv_msg(T* m, int* fd = nullptr, int* fd2 = nullptr) {
    iovec io{m, sizeof(T)};
    msghdr h{};
    h.msg_iov = &io;
    h.msg_iovlen = 1;
    alignas(cmsghdr) char ctl[CMSG_SPACE(2 * sizeof(int))] = {};
    h.msg_control = ctl;
    h.msg_controllen = sizeof ctl;
    const ssize_t got = recvmsg(kSock, &h, MSG_CMSG_CLOEXEC);
    if (fd) *fd = -1;
    if (fd2) *fd2 = -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (std::size_t i = 0; i < count; ++i) {
                int got_fd;
                std::memcpy(&got_fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (fd && *fd < 0)
                    *fd = got_fd;
                else if (fd2 && *fd2 < 0)
                    *fd2 = got_fd;
                else
                    close(got_fd);
            }
        }
    return got == ssize_t(sizeof(T));
}

std::uint64_t address_space_bytes() {
    std::ifstream in("/proc/self/statm");
    std::uint64_t pages = 0;
    in >> pages;
    return pages * std::uint64_t(sysconf(_SC_PAGESIZE));
}

// The allow-list. Everything else kills the process (the parent reports SIGSYS as a forbidden call).
std::string install_seccomp() {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (!ctx) return "seccomp_init failed";
    const int allowed[] = {
        SCMP_SYS(read),    SCMP_SYS(pread64),        SCMP_SYS(write),         SCMP_SYS(lseek),
        SCMP_SYS(close),   SCMP_SYS(recvmsg),        SCMP_SYS(sendmsg),       SCMP_SYS(mmap),
        SCMP_SYS(munmap),  SCMP_SYS(mremap),         SCMP_SYS(mprotect),      SCMP_SYS(brk),
        SCMP_SYS(madvise), SCMP_SYS(memfd_create),   SCMP_SYS(ftruncate),     SCMP_SYS(fcntl),
        SCMP_SYS(futex),   SCMP_SYS(getrandom),      SCMP_SYS(clock_gettime), SCMP_SYS(gettid),
        SCMP_SYS(getpid),  SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),  SCMP_SYS(tgkill),  // abort()
        SCMP_SYS(sysinfo),  // glibc's qsort asks for the memory size (libtiff sorts a directory's tags)
        SCMP_SYS(exit),    SCMP_SYS(exit_group),
    };
    int rc = 0;
    for (int s : allowed) rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_ALLOW, s, 0);
#ifdef SPECVIEW_HAS_VIDEO
    // The video helper decodes on a few threads of its own (FFmpeg's frame threads: one thread decoded a 4K H.264
    // video at 11-12 frames/s on the H100 machine): threads only (clone with CLONE_THREAD; clone3, whose flags
    // a filter cannot read, answers ENOSYS so that glibc falls back to clone), and what a new thread's start
    // asks for (robust futex list, restartable sequences, its CPU set, the handler glibc installs for its first).
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
    if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    for (int sys : {SCMP_SYS(set_robust_list), SCMP_SYS(rseq), SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_yield),
                    SCMP_SYS(rt_sigaction)})
        if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, sys, 0);
#endif
    // Its own address-space limit, which the parent sets per image through this process (an unprivileged
    // parent cannot set another user's limits): prlimit64 on itself, RLIMIT_AS only.
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, SCMP_A0(SCMP_CMP_EQ, 0),
                              SCMP_A1(SCMP_CMP_EQ, RLIMIT_AS));
    if (!rc) rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc ? std::string("seccomp: ") + std::strerror(-rc) : "";
}

std::string enter_sandbox() {
    if (geteuid() == 0) {  // nobody: no access to what root could reach, even if the filter had a hole
        if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
            return std::string("cannot drop root: ") + std::strerror(errno);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("no_new_privs: ") + std::strerror(errno);
    return install_seccomp();
}

struct Stopped {};  // the parent said no after the header

// The shared memory the samples go into: a buffer the parent recycled (its pages already exist: a fresh 6 MB
// memfd costs about 4 ms in page allocation, more than the decode's difference) or a new memfd, sealed against
// shrinking so that the parent's mapping can never fault. Formats decoded here (JPEG) write into it directly
// through Image::allocate; stb's buffers are copied in.
struct SharedSamples {
    const unsigned char* data = nullptr;  // the mapping Image::allocate handed out, if any
    int fd = -1;                          // its memfd
    int recycled = -1;                    // the spare buffer the parent sent with this frame's go, if any
    std::uint64_t recycled_bytes = 0;
};
SharedSamples g_shared;

int take_buffer(std::size_t n) {
    int fd = std::exchange(g_shared.recycled, -1);
    if (fd >= 0 && n > g_shared.recycled_bytes && ftruncate(fd, off_t(n)) != 0) {  // grown, never shrunk
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        fd = int(syscall(SYS_memfd_create, "specview-samples", MFD_CLOEXEC | MFD_ALLOW_SEALING));
        if (fd < 0) throw std::bad_alloc();
        if (ftruncate(fd, off_t(n)) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
            close(fd);
            throw std::bad_alloc();
        }
    }
    return fd;
}

// Populated at mmap: one call instead of a page fault per 4 KiB.
unsigned char* map_buffer(int fd, std::size_t n) {
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        throw std::bad_alloc();
    }
    return static_cast<unsigned char*>(p);
}

std::shared_ptr<unsigned char> shared_samples(std::size_t n) {
    const int fd = take_buffer(n);
    unsigned char* p = map_buffer(fd, n);
    if (g_shared.fd >= 0) close(g_shared.fd);
    g_shared.data = p;
    g_shared.fd = fd;
    return std::shared_ptr<unsigned char>(p, [n](unsigned char* q) { munmap(q, n); });
}

void selftest(specview::ByteView bytes, const specview::HeaderCheck& check) {
    static const char tag[] = "SPECVIEW-SELFTEST:";
    if (!g_selftest || bytes.size() < sizeof tag - 1 || std::memcmp(bytes.data(), tag, sizeof tag - 1) != 0) return;
    const std::string what(bytes.begin() + long(sizeof tag - 1), bytes.end());
    if (what.rfind("hang-header", 0) == 0)
        for (volatile int spin = 0;; spin = spin + 1) {}
    check(specview::ImageHeader{64, 64, 1, 8, "selftest"});
    if (what.rfind("crash", 0) == 0) {
        volatile int* p = nullptr;
        *p = 1;
    }
    if (what.rfind("hang", 0) == 0)
        for (volatile int spin = 0;; spin = spin + 1) {}
    if (what.rfind("syscall", 0) == 0) {
        const int fd = open("/etc/hostname", O_RDONLY);  // not on the list: the kernel ends the process here
        if (fd >= 0) close(fd);
        throw specview::InputError("", "selftest: open() was allowed");
    }
    if (what.rfind("oom", 0) == 0) {
        std::vector<std::vector<char>> hog;
        for (;;) hog.emplace_back(std::size_t(64) << 20, 'x');  // until the limit says no
    }
}

// The soft limit only: the hard one stays, so the next image may get more.
void limit_memory(std::uint64_t bytes) {
    if (!bytes) return;
    rlimit cur{};
    if (getrlimit(RLIMIT_AS, &cur) != 0) return;
    rlimit want{rlim_t(bytes), cur.rlim_max};
    if (cur.rlim_max != RLIM_INFINITY && want.rlim_cur > cur.rlim_max) want.rlim_cur = cur.rlim_max;
    setrlimit(RLIMIT_AS, &want);
}

// Sends one frame's samples back: the memfd they were decoded into, or a copy in a fresh one.
void send_image(specview::Image img) {
    w::Result res;
    const std::size_t n = img.sample_bytes();
    int mfd = -1;
    if (img.data() == g_shared.data && g_shared.fd >= 0) {  // decoded into shared memory already
        mfd = std::exchange(g_shared.fd, -1);
        g_shared.data = nullptr;
    } else {
        mfd = take_buffer(n);
        unsigned char* p = map_buffer(mfd, n);
        std::memcpy(p, img.data(), n);
        munmap(p, n);
    }
    specview::Image out = img;
    out.storage.reset();
    img = specview::Image();  // this process's mapping goes; the parent maps the memfd read-only
    res.ok = 1;
    res.width = out.width;
    res.height = out.height;
    res.channels = out.channels;
    res.bit_depth = out.bit_depth;
    res.bytes = n;
    res.frames = out.frames;
    res.frame = out.frame;
    res.frame_rate = out.frame_rate;
    res.nonfinite = out.nonfinite;
    res.nonfinite_fill = out.nonfinite_fill;
    if (out.pixel_size.calibrated() && out.pixel_size.unit.size() < sizeof res.pixel_unit) {
        res.pixel_size = out.pixel_size.value;
        std::memcpy(res.pixel_unit, out.pixel_size.unit.data(), out.pixel_size.unit.size());
        res.z_spacing = out.z_spacing;
    }
    put(res.format, out.format);
    send_msg(&res, sizeof res, mfd);
    close(mfd);
}

// A failure as the parent expects it: the reason, and whether memory ran out. True when one was sent.
template <class F>
bool guarded(F&& body) {
    w::Result res;
    try {
        body();
        return false;
    } catch (const Stopped&) {
        put(res.reason, "refused after the header");
    } catch (const std::bad_alloc&) {
        res.out_of_memory = 1;
        put(res.reason, "out of memory");
    } catch (const specview::InputError& e) {
        res.out_of_memory = e.reason().find("outofmem") != std::string::npos;
        put(res.reason, e.reason());
    } catch (const std::exception& e) {
        put(res.reason, e.what());
    }
    send_msg(&res, sizeof res);
    return true;
}

// One request: the file read once, then req.frame_count frames from req.frame on, each with its own header,
// go and result; a failure or a stop ends the request.
void serve_one(const w::Request& req, int file_fd) {
    limit_memory(req.memory_limit);
    // The file mapped, not read: a stack or a video is decoded frame by frame from its pages as they are needed
    // (a 2 GiB video does not wait for 2 GiB to be read before its first frame). Private and read-only.
    const unsigned char* mapped = nullptr;
    std::size_t mapped_bytes = 0;
    specview::ByteView bytes;
    std::uint64_t result_bytes = 0;
    const bool failed = guarded([&] {
        if (req.file_bytes == 0) throw specview::InputError("", "empty file");
        void* p = mmap(nullptr, std::size_t(req.file_bytes), PROT_READ, MAP_PRIVATE, file_fd, 0);
        if (p == MAP_FAILED) throw specview::InputError("", "cannot map the file");
        mapped = static_cast<const unsigned char*>(p);
        mapped_bytes = std::size_t(req.file_bytes);
        close(file_fd);
        file_fd = -1;
        bytes = specview::ByteView(mapped, mapped_bytes);
    });
    if (!failed) {
        specview::LoadLimits lim;
        lim.max_side = req.max_side;
        lim.max_pixels = req.max_pixels;
        lim.max_file_bytes = req.file_bytes;
        lim.check_available_memory = false;  // the parent checks memory: it knows the path the image takes
        lim.frame = req.frame;
        const specview::HeaderCheck check = [](const specview::ImageHeader& h) {
            w::Header m;
            m.width = h.width;
            m.height = h.height;
            m.channels = h.channels;
            m.bit_depth = h.bit_depth;
            put(m.format, h.format);
            w::Go go;
            int spare = -1;
            if (!send_msg(&m, sizeof m) || !recv_msg(&go, &spare) || go.kind != w::kGo) std::_Exit(0);
            if (spare >= 0) {  // this frame's recycled buffer
                if (g_shared.recycled >= 0) close(g_shared.recycled);
                g_shared.recycled = spare;
                g_shared.recycled_bytes = go.recycled_bytes;
            }
            if (!go.go) throw Stopped{};
            limit_memory(go.memory_limit);
        };
        std::unique_ptr<specview::FrameReader> reader;
        const int count = std::max(1, req.frame_count);
        for (int k = 0; k < count; ++k) {
            const bool stop = guarded([&] {
                if (k == 0) selftest(bytes, check);
                if (!reader)
                    reader = std::make_unique<specview::FrameReader>(
                        bytes, "", lim,
                        std::string(req.named_format, strnlen(req.named_format, sizeof req.named_format)));
                specview::Image img = reader->decode(req.frame + k, check);
                if (count == 1) {  // a single image: the file's mapping goes before the samples are sent
                    reader.reset();
                    munmap(const_cast<unsigned char*>(mapped), mapped_bytes);
                    mapped = nullptr;
                }
                result_bytes = std::max<std::uint64_t>(result_bytes, img.sample_bytes());
                send_image(std::move(img));
            });
            if (stop) break;
            if (g_shared.recycled >= 0) {  // a spare this frame did not use (the next Go brings the next one)
                close(g_shared.recycled);
                g_shared.recycled = -1;
            }
        }
    }
    if (file_fd >= 0) close(file_fd);
    if (mapped) munmap(const_cast<unsigned char*>(mapped), mapped_bytes);
    for (int fd : {g_shared.fd, g_shared.recycled})  // a failed decode's buffers (the parent makes new ones)
        if (fd >= 0) close(fd);
    g_shared = {};
    // A large image's memory goes back before the next one's limit is set; small ones stay for reuse.
    if (req.file_bytes > (std::uint64_t(64) << 20) || result_bytes > (std::uint64_t(64) << 20)) malloc_trim(0);
}

}  // namespace

int main(int argc, char** argv) {
    struct stat st {};
    if (argc != 1 || fstat(kSock, &st) != 0 || !S_ISSOCK(st.st_mode)) {
        std::fprintf(stderr,
                     "specview-decoder: the sandboxed image decoder of specview; it is started by specview, "
                     "not by hand\n");
        return 2;
    }
    close_range(kSock + 1, ~0u, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return 0;  // the parent is already gone
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    const char* st_env = std::getenv("SPECVIEW_DECODER_SELFTEST");
    g_selftest = st_env && std::string(st_env) == "1";

#ifdef SPECVIEW_HAS_VIDEO
    // One malloc arena for the frame threads: glibc's per-thread arenas, when they shrink, read
    // /proc/sys/vm/overcommit_memory, an open() the sandbox forbids.
    mallopt(M_ARENA_MAX, 1);
#endif
    w::Hello hello;
    hello.baseline_bytes = address_space_bytes();
    const char* off = std::getenv("SPECVIEW_DECODER_NO_SANDBOX");
    const std::string why =
        off && std::string(off) == "1" ? "switched off (SPECVIEW_DECODER_NO_SANDBOX=1)" : enter_sandbox();
    hello.sandboxed = why.empty();
    put(hello.note, why);
    if (!send_msg(&hello, sizeof hello)) return 0;
    specview::set_sample_storage(shared_samples);

    for (;;) {
        w::Request req;
        int fd = -1;
        if (!recv_msg(&req, &fd)) return 0;  // the parent closed the socket: done
        if (req.kind != w::kRequest || fd < 0) {
            if (fd >= 0) close(fd);
            return 3;
        }
        serve_one(req, fd);
    }
}
