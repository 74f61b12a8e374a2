// What app/volume shows of a volume's 3D spectrum, made where the spectrum lies (gpu/engine/volume_engine.h keeps it
// on the device): a slice's or a projection's view values, a lattice of view values (the display range's samples),
// the shells' power sums. The bins and the arithmetic are the host's (gpu/common/volume_math.h, spectrum_math.h);
// only the shells' sums are added in another order.
#pragma once

#include <cuda_runtime.h>

#include <complex>
#include <cstddef>
#include <vector>

#include "gpu/common/spectrum_math.h"
#include "gpu/picture/spectrum_view.h"
#include "gpu/runtime/resources.h"

namespace specview::gpu {

// The half spectrum an R2C transform of a W x H x D volume keeps: depth x height rows of W/2 + 1 bins, `pitch` bins
// from one row's start to the next's (W/2 + 1 in place, W where the transform wrote whole rows).
struct HalfVolume {
    const float2* data = nullptr;
    int W = 0, H = 0, D = 0;
    std::size_t pitch = 0;
};

// Device buffers the views below write into, kept by their caller: a slice moved in the viewer allocates nothing
// (a cudaFree waits for the whole device).
struct VolumeViewScratch {
    DeviceBuffer<float> values;
    DeviceBuffer<float2> bins;
    PinnedBuffer<float> values_host;  // (the downloads' staging)
    PinnedBuffer<float2> bins_host;
    RangeScratch range;  // (volume_sample_range's)
    DeviceBuffer<float2> range_out;
    PinnedBuffer<float2> range_host;
};

// rows x cols view values; axis 0 x, 1 y, 2 z (gpu/common/volume_math.h's numbering), k the unshifted bin. With
// `bins`, the picture's complex bins too.
std::vector<float> volume_slice(const HalfVolume& v, int axis, int k, View view, bool shift, int rows, int cols,
                                VolumeViewScratch& scratch, cudaStream_t s,
                                std::vector<std::complex<float>>* bins = nullptr);
// Along `axis`: max (the largest view value) or sum (the view of sqrt of the summed power), as the host's
// VolumeSpectrum::projection_values.
std::vector<float> volume_projection(const HalfVolume& v, int axis, bool max, View view, bool shift, int rows,
                                     int cols, VolumeViewScratch& scratch, cudaStream_t s);
// The half's bins (z, y, x) = step (zi, yi, xi): nz x ny x nx view values, x fastest.
std::vector<float> volume_lattice(const HalfVolume& v, View view, int step, int nx, int ny, int nz,
                                  VolumeViewScratch& scratch, cudaStream_t s);
// The display range of vp (device_range's: compute_range's on the host) over what VolumeSpectrum::sample_values
// gathers — the lattice's view values (nz x ny x nx, step bins apart), their negatives too for the phase and
// imaginary views (the mirrored half's values), and with `planes` the three unshifted planes through DC whole —
// made and ranked on the device; only (lo, hi) comes back (synchronises with s).
void volume_sample_range(const HalfVolume& v, const ViewParams& vp, int step, int nx, int ny, int nz, bool planes,
                         VolumeViewScratch& scratch, cudaStream_t s, float* lo, float* hi);
// Adds each bin's power x norm (x2 where the half bin stands for its mirror) and its count into sums[shell] and
// counts[shell], `bins` shells 1 / m wide of the physical frequency (voxel sizes sx, sy, sz); DC left out.
void volume_shell_sums(const HalfVolume& v, double sx, double sy, double sz, double m, double norm, int bins,
                       double* sums, long long* counts, cudaStream_t s);

}  // namespace specview::gpu
