#include "app/volume/volume_steps.h"

#include <fftw3.h>

#include <stdexcept>

#include "app/core/parallel_bands.h"
#include "app/engine/cpu_backend.h"

namespace specview {

namespace {
using cf = std::complex<float>;

// Unnormalised forward 1D FFTs along the last (contiguous) dimension: `rows` rows of n points, in place.
void fft_rows(std::vector<cf>& a, int n, long long rows, int threads) {
    fftwf_plan p;
    {
        auto lock = lock_fftw_planner();
        fftwf_plan_with_nthreads(threads);
        int len[1] = {n};
        p = fftwf_plan_many_dft(1, len, int(rows), reinterpret_cast<fftwf_complex*>(a.data()), nullptr, 1, n,
                                reinterpret_cast<fftwf_complex*>(a.data()), nullptr, 1, n, FFTW_FORWARD,
                                FFTW_ESTIMATE);
    }
    if (!p) throw std::runtime_error("FFTW could not plan the classroom's row FFTs");
    fftwf_execute(p);
    auto lock = lock_fftw_planner();
    fftwf_destroy_plan(p);
}

// `batch` matrices of rows x cols, each transposed (out of place, then swapped in), a band of input rows a thread.
void transpose(std::vector<cf>& a, long long batch, int rows, int cols, int threads) {
    std::vector<cf> out(a.size());
    const long long m = (long long)rows * cols;
    parallel_bands(int(batch * rows), threads, [&](int i0, int i1, int) {
        for (long long i = i0; i < i1; ++i) {
            const long long b = i / rows, r = i % rows;
            for (int c = 0; c < cols; ++c) out[b * m + (long long)c * rows + r] = a[b * m + r * cols + c];
        }
    });
    a.swap(out);
}
}  // namespace

VolumeStep volume_step(const std::vector<float>& volume, int W, int H, int D, int step, int threads) {
    if (step < 0 || step > kVolumeSteps) throw std::invalid_argument("a 3D classroom step is 0 to 7");
    if (volume.size() != std::size_t(W) * H * D) throw std::invalid_argument("the volume is not width x height x depth");
    struct Def {
        const char* axes[3];
        const char* title;
        const char* caption;
    };
    static const Def defs[kVolumeSteps + 1] = {
        {{"z", "y", "x"}, "0: the volume",
         "The volume as it lies in memory: depth x height x width, x in the rows (contiguous)."},
        {{"z", "y", "kx"}, "1: row FFT along x",
         "The row FFT transforms the rows, which hold x: every row is now its 1D spectrum along x. (Seed 000 4.1 "
         "guessed that twice the row length in threads a block would be faster: on an H100 only for 256-point rows, "
         "12-17% slower from 512 up. Its 5.2.2, warp shuffles for a row's last five stages: 3-6% faster passes.)"},
        {{"z", "kx", "y"}, "2: transpose x-y",
         "The row kernel only reads rows, so each slab is transposed: y is in the rows now."},
        {{"z", "kx", "ky"}, "3: row FFT along y",
         "The same row kernel transforms along y: each z slab holds its 2D spectrum (transposed). (Seed 000 5.1.1 "
         "moves y's first stages into the x pass, a block holding rows spaced along y: measured on an H100 the z "
         "pass gains 7-26% and the x and y passes lose more from 1024-point rows up - the whole 8% faster at 256^3, "
         "even at 512^3, 7-10% slower at 1024^3.)"},
        {{"kx", "ky", "z"}, "4: transpose z to the rows",
         "z runs across slabs, far apart in memory: the volume is transposed so that z is in the rows."},
        {{"kx", "ky", "kz"}, "5: row FFT along z",
         "The third row pass transforms along z: every axis is transformed, but the order is z-last."},
        {{"kz", "kx", "ky"}, "6: transpose z back",
         "Two transposes undo the layout: first z back to the slabs. (Seed 000 5.1.2 merges them into one XYZ "
         "transpose: on an H100 the whole is 6-7% faster.)"},
        {{"kz", "ky", "kx"}, "7: transpose x-y back: the 3D FFT",
         "Each slab transposed back: depth x height x width again, the volume's 3D spectrum (numpy's fftn)."},
    };
    const int dims[kVolumeSteps + 1][3] = {{D, H, W}, {D, H, W}, {D, W, H}, {D, W, H},
                                           {W, H, D}, {W, H, D}, {D, W, H}, {D, H, W}};
    const long long plane = (long long)W * H;
    VolumeStep s;
    s.data.assign(volume.begin(), volume.end());
    for (int k = 1; k <= step; ++k) switch (k) {
            case 1: fft_rows(s.data, W, (long long)D * H, threads); break;   // along x
            case 2: transpose(s.data, D, H, W, threads); break;              // each slab: y into the rows
            case 3: fft_rows(s.data, H, (long long)D * W, threads); break;   // along y
            case 4: transpose(s.data, 1, D, int(plane), threads); break;     // z into the rows
            case 5: fft_rows(s.data, D, plane, threads); break;              // along z
            case 6: transpose(s.data, 1, int(plane), D, threads); break;     // z back to the slabs
            default: transpose(s.data, D, W, H, threads); break;             // each slab back
        }
    for (int i = 0; i < 3; ++i) {
        s.dims[i] = dims[step][i];
        s.axes[i] = defs[step].axes[i];
    }
    s.title = defs[step].title;
    s.caption = defs[step].caption;
    return s;
}

}  // namespace specview
