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
    VolumeStep s;
    s.data.assign(volume.begin(), volume.end());
    const long long plane = (long long)W * H;
    auto set = [&](int d0, int d1, int d2, const char* a0, const char* a1, const char* a2) {
        s.dims[0] = d0, s.dims[1] = d1, s.dims[2] = d2;
        s.axes[0] = a0, s.axes[1] = a1, s.axes[2] = a2;
    };
    set(D, H, W, "z", "y", "x");
    s.title = "0: the volume";
    s.caption = "The volume as it lies in memory: depth x height x width, x in the rows (contiguous).";
    if (step >= 1) {
        fft_rows(s.data, W, (long long)D * H, threads);
        set(D, H, W, "z", "y", "kx");
        s.title = "1: row FFT along x";
        s.caption = "The row FFT transforms the rows, which hold x: every row is now its 1D spectrum along x.";
    }
    if (step >= 2) {
        transpose(s.data, D, H, W, threads);
        set(D, W, H, "z", "kx", "y");
        s.title = "2: transpose x-y";
        s.caption = "The row kernel only reads rows, so each slab is transposed: y is in the rows now.";
    }
    if (step >= 3) {
        fft_rows(s.data, H, (long long)D * W, threads);
        set(D, W, H, "z", "kx", "ky");
        s.title = "3: row FFT along y";
        s.caption = "The same row kernel transforms along y: each z slab holds its 2D spectrum (transposed).";
    }
    if (step >= 4) {
        transpose(s.data, 1, D, int(plane), threads);
        set(W, H, D, "kx", "ky", "z");
        s.title = "4: transpose z to the rows";
        s.caption = "z runs across slabs, far apart in memory: the volume is transposed so that z is in the rows.";
    }
    if (step >= 5) {
        fft_rows(s.data, D, plane, threads);
        set(W, H, D, "kx", "ky", "kz");
        s.title = "5: row FFT along z";
        s.caption = "The third row pass transforms along z: every axis is transformed, but the order is z-last.";
    }
    if (step >= 6) {
        transpose(s.data, 1, int(plane), D, threads);
        set(D, W, H, "kz", "kx", "ky");
        s.title = "6: transpose z back";
        s.caption = "Two transposes undo the layout (seed 000 5.1.2 merges them into one): first z back to the slabs.";
    }
    if (step >= 7) {
        transpose(s.data, D, W, H, threads);
        set(D, H, W, "kz", "ky", "kx");
        s.title = "7: transpose x-y back: the 3D FFT";
        s.caption = "Each slab transposed back: depth x height x width again, the volume's 3D spectrum (numpy's fftn).";
    }
    return s;
}

}  // namespace specview
