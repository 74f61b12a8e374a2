#include "app/core/huge_pages.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <utility>
#include <string>

namespace specview {

namespace {
constexpr const char* kTunable = "glibc.malloc.hugetlb=1";

// The kernel's transparent huge page mode: "always", "madvise" or "never" (the bracketed word), "" when unknown.
std::string thp_mode() {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    std::getline(f, line);
    const std::size_t a = line.find('['), b = line.find(']');
    return a != std::string::npos && b != std::string::npos && b > a ? line.substr(a + 1, b - a - 1) : std::string();
}

bool tunable_set() {
    const char* t = std::getenv("GLIBC_TUNABLES");
    return t && std::strstr(t, kTunable) != nullptr;
}


// Whether the work the arguments ask for is large enough to pay for starting again (see kHugePagesMinBytes).
bool worth_it(int argc, char** argv) {
    bool headless = false;
    long long bytes = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h" || a == "--version" || a == "--print-man" || a == "--print-bash-completion")
            return false;
        if (a == "--headless") headless = true;
        if (a == "--list" || a == "--stack") return true;
        struct stat st {};
        if (a.empty() || a[0] == '-' || ::stat(argv[i], &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) return true;
        if (S_ISREG(st.st_mode)) bytes += st.st_size;
    }
    return !headless || bytes >= kHugePagesMinBytes;
}
}  // namespace

void use_huge_pages(int argc, char** argv) {
    const char* off = std::getenv("SPECVIEW_NO_HUGE_PAGES");
    if ((off && *off && std::strcmp(off, "0") != 0) || tunable_set() || thp_mode() != "madvise" ||
        !worth_it(argc, argv))
        return;
    const char* old = std::getenv("GLIBC_TUNABLES");
    const std::string value = old && *old ? std::string(old) + ":" + kTunable : std::string(kTunable);
    if (::setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
    ::execv("/proc/self/exe", argv);
    // (the exec failed: go on as we are, without the tunable, so children are not told a thing that is not so)
    if (old)
        ::setenv("GLIBC_TUNABLES", old, 1);
    else
        ::unsetenv("GLIBC_TUNABLES");
}

const char* huge_pages_state() {
    if (tunable_set()) return thp_mode() == "never" ? "off (the kernel gives none)" : "on (glibc.malloc.hugetlb=1)";
    const std::string mode = thp_mode();
    if (mode == "always") return "on (the kernel's default)";
    const char* off = std::getenv("SPECVIEW_NO_HUGE_PAGES");
    if (off && *off && std::strcmp(off, "0") != 0) return "off (SPECVIEW_NO_HUGE_PAGES)";
    return mode == "never" ? "off (the kernel gives none)" : "off";
}

long page_faults() {
    struct rusage u {};
    if (::getrusage(RUSAGE_SELF, &u) != 0) return -1;
    return u.ru_minflt + u.ru_majflt;
}

ByteBuffer::~ByteBuffer() { std::free(p_); }
ByteBuffer::ByteBuffer(ByteBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), cap_(std::exchange(o.cap_, 0)) {}
ByteBuffer& ByteBuffer::operator=(ByteBuffer&& o) noexcept {
    if (this != &o) {
        std::free(p_);
        p_ = std::exchange(o.p_, nullptr);
        cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
}

void advise_huge_pages(void* p, std::size_t bytes) {
    const std::uintptr_t page = 4096, a = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page,
                         b = (reinterpret_cast<std::uintptr_t>(p) + bytes) / page * page;
    if (b > a) madvise(reinterpret_cast<void*>(a), b - a, MADV_HUGEPAGE);
}

unsigned char* ByteBuffer::reserve(std::size_t n) {
    if (n <= cap_) return p_;
    constexpr std::size_t kHuge = std::size_t(2) << 20;
    const bool huge = n >= kHuge;
    const std::size_t size = huge ? (n + kHuge - 1) / kHuge * kHuge : n;
    void* p = huge ? std::aligned_alloc(kHuge, size) : std::malloc(size);
    if (!p) throw std::bad_alloc();
    if (huge) madvise(p, size, MADV_HUGEPAGE);  // a request: where the kernel says no, 4 KiB pages as before
    std::free(p_);
    p_ = static_cast<unsigned char*>(p);
    cap_ = size;
    return p_;
}

}  // namespace specview
