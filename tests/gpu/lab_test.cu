// The frequency lab on the GPU backends: the masked picture equals the CPU's (within a level), the inverse of
// the masked spectrum equals ifft2(fft2(x) * mask) in double, a mask change re-runs only the view and the
// inverse (the forward spectrum is kept), and without a mask the inverse gives the plane back.
#include <gtest/gtest.h>

#include "app/engine.h"
#include "app/filter.h"
#include "app/plane.h"
#include "tests/support/gpu_test.h"
#include "tests/support/lab_oracle.h"
#include "tests/support/oracle.h"
#include "tests/support/random_image.h"

namespace specview::test {
namespace {

class Lab : public GpuTest {};

struct Path {
    Backend backend;
    gpu::CufftMode mode;
    PadMode pad;
};

std::string path_name(const Path& p) {
    return name_of(p.backend) + (p.backend == Backend::Cufft ? std::string(" ") + name_of(p.mode) : "") +
           (p.pad == PadMode::None ? " exact size" : "");
}

TEST_F(Lab, MaskedPictureAndInverseMatchTheCpuAndTheOracleOnEveryBackend) {
    Rng rng;
    const Image img = random_image(rng, 90, 60, 3, 8);
    double worst_inverse = 0;
    for (const Path& path : {Path{Backend::Custom, gpu::CufftMode::R2C, PadMode::Pow2},
                             Path{Backend::CustomFast, gpu::CufftMode::R2C, PadMode::Pow2},
                             Path{Backend::Cufft, gpu::CufftMode::R2C, PadMode::Pow2},
                             Path{Backend::Cufft, gpu::CufftMode::C2C, PadMode::Pow2},
                             Path{Backend::Cufft, gpu::CufftMode::R2C, PadMode::None}})
        for (const auto& set : lab_sets()) {
            Settings s;
            s.backend = path.backend;
            s.cufft_mode = path.mode;
            s.pad = path.pad;
            s.window = Window::Hann;
            s.view.colormap = Colormap::Viridis;
            std::vector<RefFilter> refs;
            std::string what = path_name(path) + ":";
            ASSERT_TRUE(add_filters(set, s, refs, what)) << what;
            RunOptions o;
            o.want_inverse = true;
            Engine gpu, cpu;
            gpu.set_image(img, "random");
            cpu.set_image(img, "random");
            const Frame g = gpu.run(s, o);
            Settings cs = s;
            cs.backend = Backend::Cpu;
            const Frame c = cpu.run(cs, o);
            EXPECT_LE(max_level_difference(g.rgba.data(), c.rgba.data(), (long long)c.rgba.size(), s.view.colormap), 1)
                << what;
            const Plane& plane = cpu.prepared(cs).plane;
            const std::vector<cd> ref = ref_filtered(plane.v, plane.width, plane.height, refs);
            std::vector<cd> ref_re(ref.size());
            for (std::size_t i = 0; i < ref.size(); ++i) ref_re[i] = ref[i].real();
            std::vector<cf> got(g.inverse.begin(), g.inverse.end());
            const double err = rel_l2(got, ref_re);
            worst_inverse = std::max(worst_inverse, err);
            EXPECT_LE(err, 1e-5) << what << " (seed " << rng.seed() << ")";
        }
    std::cout << "[ lab      ] worst inverse rel L2 vs ifft2(fft2(x) * mask) in double: " << worst_inverse << "\n";
}

// The live lab's loop: a mask change re-runs the view and the inverse from the kept forward spectrum (no
// forward transform stage), and the result equals a fresh run's.
TEST_F(Lab, AMaskChangeKeepsTheForwardSpectrum) {
    Rng rng;
    const Image img = random_image(rng, 256, 256, 1);
    for (Backend b : {Backend::Custom, Backend::Cufft, Backend::CustomFast}) {
        Settings s;
        s.backend = b;
        FilterSpec lp, hp;
        ASSERT_EQ(parse_filter("lowpass:0.1,gauss", &lp), "");
        ASSERT_EQ(parse_filter("highpass:0.05,butterworth:2", &hp), "");
        s.filters = {lp};
        RunOptions o;
        o.want_inverse = true;
        Engine engine;
        engine.set_image(img, "random");
        engine.run(s, o);
        engine.run(s, o);
        s.filters = {hp};
        const Frame f = engine.run(s, o);
        // The forward stages come before the first view stage (the inverse's own row FFTs come after it).
        bool forward = false, built = false, seen_view = false, full_again = false;
        for (const auto& t : f.timings) {
            seen_view |= t.name.find("view") != std::string::npos;
            if (!seen_view)
                forward |= t.name.find("row FFT 1") != std::string::npos || t.name.find("R2C") != std::string::npos ||
                           t.name.find("pass 1") != std::string::npos;
            full_again |= t.name.find("real rows") != std::string::npos;  // custom-fast's full spectrum for the inverse
            built |= t.name.find("mask (built on the device") != std::string::npos;
        }
        bool reused = false;
        for (const auto& n : f.notes) reused |= n.find("spectrum reused") != std::string::npos;
        EXPECT_TRUE(seen_view) << name_of(b);
        EXPECT_TRUE(reused) << name_of(b);
        EXPECT_FALSE(forward) << name_of(b) << ": the forward transform ran again for a mask change";
        EXPECT_FALSE(full_again) << name_of(b) << ": custom-fast's full spectrum was made again for a mask change";
        EXPECT_TRUE(built) << name_of(b);
        Engine fresh;
        fresh.set_image(img, "random");
        const Frame ref = fresh.run(s, o);
        EXPECT_EQ(f.rgba, ref.rgba) << name_of(b);
        EXPECT_EQ(f.inverse, ref.inverse) << name_of(b);
    }
}

}  // namespace
}  // namespace specview::test
