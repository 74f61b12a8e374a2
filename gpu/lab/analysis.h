// The analysis plots' reductions on the device: the radial and angular power profiles of a spectrum (the sums
// of |F|^2 / (w h) and counts per bin, binned exactly as app/lab/analysis.cpp bins them on the host, DC left out),
// and a gather of spectrum values at a list of bins (the line profile, the log-phi view). Only the bins come back.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "gpu/common/config.h"
#include "gpu/runtime/resources.h"
#include "gpu/picture/spectrum_view.h"

namespace specview::gpu {

class PowerProfiler {
public:
    // `src`: the whole spectrum (full, or a half one through its symmetry), unmasked. Synchronises.
    PowerSums run(const SpectrumSource& src, cudaStream_t stream);

private:
    DeviceBuffer<double> sums_;
    DeviceBuffer<unsigned long long> counts_;
    PinnedBuffer<double> sums_host_;
    PinnedBuffer<unsigned long long> counts_host_;
    Event start_, stop_;
    int counts_w_ = 0, counts_h_ = 0;  // the size counts_host_ holds the counts of
    bool counts_half_ = false;
};

// acc[y w + x] += |F(x, y)|^2 over the whole width x height spectrum (half sources through the symmetry).
void accumulate_power(const SpectrumSource& src, double* acc, cudaStream_t stream);

// out[i] = the spectrum at unshifted bin (kx[i], ky[i]) (half sources through the symmetry). Synchronises.
std::vector<float2> gather_bins(const SpectrumSource& src, const std::vector<int>& kx, const std::vector<int>& ky,
                                cudaStream_t stream);

}  // namespace specview::gpu
