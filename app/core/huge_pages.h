// Transparent huge pages for the big buffers (the plane, FFTW's buffer, the picture, the encoder's rows).
//
// A buffer's first touch costs a page fault per page; on this kind of machine (a VM, 4 KiB pages) a fault costs
// 10-14 us, so 64 MiB touched fresh cost 170-240 ms, and a 4096^2 photo's CPU run took ~60,000 faults (38% of its
// samples in faults and zeroing). Debian's kernels give huge pages only where asked (transparent_hugepage
// "madvise"); glibc's malloc asks for them on its big chunks when GLIBC_TUNABLES has glibc.malloc.hugetlb=1, which it
// reads only as a process starts. So the program starts itself again with it set: the same run then took ~7,500
// faults and 0.72-0.95 s instead of 1.11-1.41 s (2 cores, 4096^2 RGB PNG, spectrum PNG, CPU backend).
#pragma once

#include <cstddef>

namespace specview {

// Starting again costs the dynamic loading once more (~30 ms here: a 256^2 image took 80 ms instead of 50), so it is
// done only where it pays: the viewer, and headless work of at least kHugePagesMinBytes of input files (2048^2 photos:
// 0.35 -> 0.28 s), a directory, a --list or a --stack; never for --help, --version and the like.
constexpr long long kHugePagesMinBytes = 4ll << 20;

// Called first in main: when the kernel gives huge pages on request, glibc was not told to ask and the work pays for
// it (above), re-executes this program (/proc/self/exe, the same arguments) with glibc.malloc.hugetlb=1 added to
// GLIBC_TUNABLES; returns when it does not (already set, the kernel's mode is "always" or "never",
// SPECVIEW_NO_HUGE_PAGES=1, small work, or the exec failed).
void use_huge_pages(int argc, char** argv);

// Whether this process's malloc asks for huge pages ("on", or why not), for --timings.
const char* huge_pages_state();

// This process's page faults so far (minor and major), for --timings.
long page_faults();

// Advises MADV_HUGEPAGE over the whole 4 KiB pages of [p, p + bytes) (a buffer from another allocator, FFTW's); a
// request the kernel may refuse.
void advise_huge_pages(void* p, std::size_t bytes);

// A byte buffer that is not zero-filled (its bytes are written before they are read) and, from 2 MiB, 2 MiB-aligned
// and advised MADV_HUGEPAGE: a worker thread's buffers come from glibc's per-thread arenas, which the tunable above
// leaves in 4 KiB pages (the PNG encoder's bands were ~40% of a 4096^2 run's faults). Grows, never shrinks: reuse it.
class ByteBuffer {
public:
    ByteBuffer() = default;
    ~ByteBuffer();
    ByteBuffer(const ByteBuffer&) = delete;
    ByteBuffer& operator=(const ByteBuffer&) = delete;
    ByteBuffer(ByteBuffer&& o) noexcept;
    ByteBuffer& operator=(ByteBuffer&& o) noexcept;
    // At least n bytes (contents unspecified after growing); throws std::bad_alloc.
    unsigned char* reserve(std::size_t n);
    unsigned char* data() { return p_; }
    std::size_t capacity() const { return cap_; }

private:
    unsigned char* p_ = nullptr;
    std::size_t cap_ = 0;
};

}  // namespace specview
