// Every classroom stop of the seed's 2D pipeline on a w x h plane (each row pass after 0..log2 n stages, its last stage
// also left bit-reversed, both transposes), for the tests that compare an engine with the CPU model at each.
#pragma once

#include <cmath>
#include <vector>

#include "gpu/common/config.h"

namespace specview::test {

inline std::vector<gpu::StopPoint> every_seed_stop(int w, int h) {
    using Kind = gpu::StopPoint::Kind;
    std::vector<gpu::StopPoint> stops;
    for (int k = 0; (1 << k) <= w; ++k) stops.push_back({Kind::RowPass1, k, false});
    stops.push_back({Kind::RowPass1, int(std::log2(w)), true});
    stops.push_back({Kind::Transpose1, 0, false});
    for (int k = 0; (1 << k) <= h; ++k) stops.push_back({Kind::RowPass2, k, false});
    stops.push_back({Kind::RowPass2, int(std::log2(h)), true});
    stops.push_back({Kind::Transpose2, 0, false});
    return stops;
}

}  // namespace specview::test
