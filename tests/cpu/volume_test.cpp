// A stack as one volume (issue 61, app/volume): the 3D spectrum against a direct double-precision DFT on fresh random
// volumes (odd and even sizes, padded, windowed), the shaping, slices, projections and the shell profile.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "app/core/picture.h"
#include "app/core/plane.h"
#include "app/volume/volume.h"
#include "app/volume/volume_steps.h"
#include "gpu/engine/multi_gpu_volume.h"
#include "tests/support/oracle.h"
#include "tests/support/random_image.h"

namespace specview::test {
namespace {

// The direct 3D DFT of a (d, h, w) real volume in double: the oracle that trusts no FFT.
std::vector<cd> direct_dft3(const std::vector<double>& v, int w, int h, int d) {
    std::vector<cd> out(v.size());
    const double tau = 2.0 * M_PI;
    for (int kz = 0; kz < d; ++kz)
        for (int ky = 0; ky < h; ++ky)
            for (int kx = 0; kx < w; ++kx) {
                cd sum = 0;
                for (int z = 0; z < d; ++z)
                    for (int y = 0; y < h; ++y)
                        for (int x = 0; x < w; ++x) {
                            const double a = -tau * (double(kx) * x / w + double(ky) * y / h + double(kz) * z / d);
                            sum += v[(std::size_t(z) * h + y) * w + x] * cd(std::cos(a), std::sin(a));
                        }
                out[(std::size_t(kz) * h + ky) * w + kx] = sum;
            }
    return out;
}

// Frames of random gray floats, and the same values as a (d, h, w) volume.
std::vector<Image> random_frames(Rng& rng, int w, int h, int d, std::vector<double>* volume) {
    std::vector<Image> frames;
    for (int z = 0; z < d; ++z) {
        frames.push_back(random_image(rng, w, h, 1, 32));
        for (int i = 0; i < w * h; ++i) volume->push_back(reinterpret_cast<const float*>(frames.back().data())[i]);
    }
    return frames;
}

// The volume of these frames transformed under s.
void transform(VolumeSpectrum& v, const std::vector<Image>& frames, const Settings& s, const char* name = "random") {
    const int d = int(frames.size());
    v.begin(s, frames[0].width, frames[0].height, d, 2);
    for (int z = 0; z < d; ++z) v.add_frame(frames[std::size_t(z)], z, name);
    v.transform();
}

// No padding, no window: the frames' own values.
Settings plain() {
    Settings s;
    s.pad = PadMode::None;
    s.window = Window::None;
    return s;
}

std::vector<cf> whole(const VolumeSpectrum& v) {
    const VolumeGeometry& g = v.geometry();
    std::vector<cf> out(std::size_t(g.width) * g.height * g.depth);
    for (int z = 0; z < g.depth; ++z) v.full_plane(z, out.data() + std::size_t(z) * g.width * g.height);
    return out;
}

TEST(Volume, SpectrumIsTheDirect3dDftAtOddAndEvenSizes) {
    Rng rng;
    for (const auto& [w, h, d] : {std::array<int, 3>{7, 5, 3}, {8, 6, 4}, {9, 4, 1}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d) + ", seed " +
                     std::to_string(rng.seed()));
        std::vector<double> vol;
        const std::vector<Image> frames = random_frames(rng, w, h, d, &vol);
        Settings s;
        s.pad = PadMode::None;
        s.window = Window::None;
        VolumeSpectrum v;
        v.begin(s, w, h, d, 2);
        for (int z = d - 1; z >= 0; --z) v.add_frame(frames[std::size_t(z)], z, "random");  // any order
        v.transform();
        EXPECT_EQ(v.geometry().width, w);
        EXPECT_EQ(v.geometry().depth, d);
        EXPECT_LT(rel_l2(whole(v), direct_dft3(vol, w, h, d)), 1e-6);
    }
}

// Padded to powers of two per axis, a separable Hann window (each axis its own length), levelled by the mean: the
// shaped volume the test builds itself, transformed directly.
TEST(Volume, PaddingWindowAndLevelAreAppliedPerAxis) {
    Rng rng;
    const int w = 6, h = 5, d = 3;
    std::vector<double> vol;
    const std::vector<Image> frames = random_frames(rng, w, h, d, &vol);
    Settings s;
    s.pad = PadMode::Pow2;
    s.window = Window::Hann;
    s.level = Level::Mean;
    VolumeSpectrum v;
    transform(v, frames, s);
    const VolumeGeometry& g = v.geometry();
    ASSERT_EQ(g.width, 8);
    ASSERT_EQ(g.height, 8);
    ASSERT_EQ(g.depth, 4);
    double mean = 0;
    for (double x : vol) mean += x;
    mean /= double(vol.size());
    std::vector<double> shaped(std::size_t(g.width) * g.height * g.depth, 0.0);
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                shaped[(std::size_t(z) * g.height + y) * g.width + x] =
                    (vol[(std::size_t(z) * h + y) * w + x] - mean) * window_value(Window::Hann, x, w, 0.5) *
                    window_value(Window::Hann, y, h, 0.5) * window_value(Window::Hann, z, d, 0.5);
    EXPECT_LT(rel_l2(whole(v), direct_dft3(shaped, g.width, g.height, g.depth)), 1e-5) << "seed " << rng.seed();
}

// --level plane removes a linear trend in x, y and z: a pure ramp leaves (almost) nothing; without it the same ramp
// is all power.
TEST(Volume, LevelPlaneRemovesATrendInAllThreeAxes) {
    const int w = 8, h = 6, d = 5;
    std::vector<Image> frames;
    for (int z = 0; z < d; ++z) {
        std::vector<float> px;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) px.push_back(0.3f + 0.01f * x - 0.02f * y + 0.03f * z);
        frames.push_back(Image::from_floats(w, h, 1, px));
    }
    auto power = [&](Level level) {
        Settings s = plain();
        s.level = level;
        VolumeSpectrum v;
        transform(v, frames, s, "ramp");
        double p = 0;
        for (const cf& c : whole(v)) p += std::norm(cd(c));
        return p;
    };
    EXPECT_LT(power(Level::Plane), 1e-8 * power(Level::None));
}

// Slices through the shifted spectrum put DC at each picture's centre: z:0 is the kx-ky plane, y:k and x:k the
// others; a max projection is at least every slice along its axis; an index outside the axis is refused.
TEST(Volume, SlicesAndProjectionsShowTheRightBins) {
    Rng rng;
    const int w = 8, h = 6, d = 4;
    std::vector<double> vol;
    const std::vector<Image> frames = random_frames(rng, w, h, d, &vol);
    VolumeSpectrum v;
    transform(v, frames, plain());
    ViewParams vp;  // log-magnitude, shifted
    auto lm = [](cf c) { return view_value(View::LogMag, c.real(), c.imag()); };
    int pw = 0, ph = 0;
    const std::vector<float> z0 = v.slice_values(VolumeAxis::Z, 0, vp, &pw, &ph);
    ASSERT_EQ(pw, w);
    ASSERT_EQ(ph, h);
    EXPECT_FLOAT_EQ(z0[std::size_t(h / 2) * w + w / 2], lm(v.at(0, 0, 0)));        // DC at the centre
    EXPECT_FLOAT_EQ(z0[std::size_t(h / 2 + 1) * w + w / 2 + 2], lm(v.at(2, 1, 0)));  // (kx 2, ky 1)
    const std::vector<float> y1 = v.slice_values(VolumeAxis::Y, -1, vp, &pw, &ph);
    ASSERT_EQ(pw, w);
    ASSERT_EQ(ph, d);
    EXPECT_FLOAT_EQ(y1[std::size_t(d / 2 + 1) * w + w / 2 - 3], lm(v.at(w - 3, h - 1, 1)));  // (kx -3, ky -1, kz 1)
    const std::vector<float> x2 = v.slice_values(VolumeAxis::X, 2, vp, &pw, &ph);
    ASSERT_EQ(pw, h);
    ASSERT_EQ(ph, d);
    EXPECT_FLOAT_EQ(x2[std::size_t(d / 2 - 1) * h + h / 2 + 1], lm(v.at(2, 1, d - 1)));  // (kx 2, ky 1, kz -1)
    const std::vector<float> mx = v.projection_values(VolumeAxis::Z, true, vp, &pw, &ph);
    for (int k = -d / 2; k <= (d - 1) / 2; ++k) {
        const std::vector<float> sl = v.slice_values(VolumeAxis::Z, k, vp, &pw, &ph);
        for (std::size_t i = 0; i < sl.size(); ++i) ASSERT_GE(mx[i], sl[i]) << "kz " << k << " pixel " << i;
    }
    EXPECT_THROW(v.slice_values(VolumeAxis::Z, d / 2, vp, &pw, &ph), std::invalid_argument);  // 4 bins: -2..1
    EXPECT_NO_THROW(v.slice_values(VolumeAxis::Z, -d / 2, vp, &pw, &ph));
}

// A slice made over the threads (rows in bands) carries the complex bins under it; the sample that sets the viewer's
// shared range is every bin of a small volume, and of a large one a lattice with DC and the three planes through it.
TEST(Volume, SlicesOnThreadsCarryTheirBinsAndTheSampleStandsForTheVolume) {
    Rng rng;
    const int w = 40, h = 36, d = 34;
    std::vector<double> vol;
    const std::vector<Image> frames = random_frames(rng, w, h, d, &vol);
    VolumeSpectrum v;
    transform(v, frames, plain());  // (2 threads: a slice's 34 or 36 rows in two bands)
    ViewParams vp;
    auto lm = [](cf c) { return view_value(View::LogMag, c.real(), c.imag()); };
    int pw = 0, ph = 0;
    std::vector<cf> bins;
    for (VolumeAxis a : {VolumeAxis::Z, VolumeAxis::Y, VolumeAxis::X}) {
        const int k = a == VolumeAxis::Z ? -5 : a == VolumeAxis::Y ? 7 : -20;
        const std::vector<float> sl = v.slice_values(a, k, vp, &pw, &ph, &bins);
        ASSERT_EQ(bins.size(), sl.size());
        for (int r = 0; r < ph; ++r)
            for (int c = 0; c < pw; ++c) {
                const int i = (r - ph / 2 + ph) % ph, j = (c - pw / 2 + pw) % pw;  // shifted -> unshifted
                const cf want = a == VolumeAxis::Z   ? v.at(j, i, (k + d) % d)
                                : a == VolumeAxis::Y ? v.at(j, (k + h) % h, i)
                                                     : v.at((k + w) % w, j, i);
                ASSERT_EQ(bins[std::size_t(r) * pw + c], want) << axis_name(a) << " " << r << "," << c;
                ASSERT_EQ(sl[std::size_t(r) * pw + c], lm(want)) << axis_name(a) << " " << r << "," << c;
            }
    }
    const int hw = w / 2 + 1;
    const std::vector<float> all = v.sample_values(vp);
    ASSERT_EQ(all.size(), std::size_t(hw) * h * d);
    float lo = INFINITY, hi = -INFINITY;
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < hw; ++x) lo = std::min(lo, lm(v.at(x, y, z))), hi = std::max(hi, lm(v.at(x, y, z)));
    EXPECT_EQ(*std::min_element(all.begin(), all.end()), lo);
    EXPECT_EQ(*std::max_element(all.begin(), all.end()), hi);
    const std::vector<float> few = v.sample_values(vp, 1000);
    EXPECT_LT(few.size(), 1100u + std::size_t(w * h + w * d + h * d));  // (about 1000: whole lattice steps)
    EXPECT_NE(std::find(few.begin(), few.end(), lm(v.at(0, 0, 0))), few.end()) << "DC is not in the sample";
    EXPECT_NE(std::find(few.begin(), few.end(), lm(v.at(w - 3, 0, 2))), few.end()) << "the ky = 0 plane is not";
    vp.view = View::Phase;  // the mirrored half's phases are the negatives of the kept half's
    const std::vector<float> ph_all = v.sample_values(vp);
    EXPECT_EQ(*std::min_element(ph_all.begin(), ph_all.end()), -*std::max_element(ph_all.begin(), ph_all.end()));
}

// Begun again at the same size (the viewer's window or level changed), the spectrum keeps its buffer and plan and is
// the spectrum a fresh one makes: nothing of the last volume's shaping is left in it (padding included).
TEST(Volume, BegunAgainAtTheSameSizeIsAFreshSpectrum) {
    Rng rng;
    const int w = 13, h = 10, d = 7;
    std::vector<double> vol;
    const std::vector<Image> frames = random_frames(rng, w, h, d, &vol);
    Settings a = plain(), b = plain();
    a.window = Window::Hann;
    a.pad = b.pad = PadMode::Pow2;  // 16 x 16 x 8: padding to refill
    a.pad_fill = PadFill::Mean;
    b.level = Level::Plane;
    VolumeSpectrum again, fresh;
    transform(again, frames, a);
    const std::complex<float>* buffer = again.half();
    again.begin(b, w, h, d, 2);
    again.add_frames(frames, "random");
    again.transform();
    EXPECT_EQ(again.half(), buffer) << "the buffer was not kept";
    transform(fresh, frames, b);
    const std::vector<cf> x = whole(again), y = whole(fresh);
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], y[i]) << "bin " << i;
}

// The shell profile's bins hold every bin but DC once, and their mean power times count adds up to the total power
// (|F|^2 / voxels) without DC.
TEST(Volume, ShellProfileAccountsForEveryBinButDc) {
    Rng rng;
    const int w = 9, h = 6, d = 5;
    std::vector<double> vol;
    const std::vector<Image> frames = random_frames(rng, w, h, d, &vol);
    VolumeSpectrum v;
    transform(v, frames, plain());
    const Profile p = v.shell_profile(2);
    long long count = 0;
    double sum = 0;
    for (std::size_t i = 0; i < p.at.size(); ++i) {
        count += p.count[i];
        sum += p.mean_power[i] * double(p.count[i]);
        if (i > 0) {
            EXPECT_GT(p.at[i], p.at[i - 1]);
        }
    }
    EXPECT_EQ(count, (long long)w * h * d - 1);
    const std::vector<cf> F = whole(v);
    double total = 0;
    for (std::size_t i = 1; i < F.size(); ++i) total += std::norm(cd(F[i])) / double(F.size());
    EXPECT_NEAR(sum, total, 1e-9 * total);
    EXPECT_DOUBLE_EQ(p.at.front(), 1.0 / 9.0);  // bins 1 / max(W, H, D) wide
}

// A spectrum held on a device (VolumeSpectrum::attach_device), here a fake one answering from a CPU transform of the
// same frames: every view asks the device and none brings the spectrum down; the first bin asked for brings it down
// once (the host buffer held the shaped volume, not the spectrum, until then); begin() lets the device go.
class FakeDevice final : public VolumeDevice {
public:
    explicit FakeDevice(const VolumeSpectrum& ref) : ref_(ref) {}
    int downloads = 0, views = 0, ranges = 0;
    void download_half(std::complex<float>* host) override {
        ++downloads;
        const VolumeGeometry& g = ref_.geometry();
        std::copy_n(ref_.half(), std::size_t(g.width / 2 + 1) * g.height * g.depth, host);
    }
    std::vector<float> slice(VolumeAxis axis, int k, View view, bool shift, int rows, int cols,
                             std::vector<std::complex<float>>* bins) override {
        ++views;
        const int n = axis == VolumeAxis::X ? ref_.geometry().width : axis == VolumeAxis::Y ? ref_.geometry().height
                                                                                             : ref_.geometry().depth;
        ViewParams vp;
        vp.view = view;
        vp.shift = shift;
        int w = 0, h = 0;
        std::vector<float> v = ref_.slice_values(axis, k > (n - 1) / 2 ? k - n : k, vp, &w, &h, bins);
        EXPECT_EQ(w, cols);
        EXPECT_EQ(h, rows);
        return v;
    }
    std::vector<float> projection(VolumeAxis axis, bool max, View view, bool shift, int rows, int cols) override {
        ++views;
        ViewParams vp;
        vp.view = view;
        vp.shift = shift;
        int w = 0, h = 0;
        return ref_.projection_values(axis, max, vp, &w, &h);
    }
    std::vector<float> lattice(View view, int step, int nx, int ny, int nz) override {
        ++views;
        const VolumeGeometry& g = ref_.geometry();
        const int hw = g.width / 2 + 1;
        std::vector<float> v;
        for (int z = 0; z < nz; ++z)
            for (int y = 0; y < ny; ++y)
                for (int x = 0; x < nx; ++x) {
                    const std::complex<float> c = ref_.half()[(std::size_t(z) * step * g.height + std::size_t(y) * step) * hw +
                                                              std::size_t(x) * step];
                    v.push_back(view_value(view, c.real(), c.imag()));
                }
        return v;
    }
    void sample_range(const ViewParams& vp, int step, int nx, int ny, int nz, bool planes, float* lo,
                      float* hi) override {  // (what a device gathers and ranks, here on the host)
        ++ranges;
        std::vector<float> v = lattice(vp.view, step, nx, ny, nz);
        if (vp.view == View::Phase || vp.view == View::Imag)
            for (std::size_t i = 0, n = v.size(); i < n; ++i) v.push_back(-v[i]);
        for (VolumeAxis a : {VolumeAxis::Z, VolumeAxis::Y, VolumeAxis::X}) {
            const VolumeGeometry& g = ref_.geometry();
            const int rows = a == VolumeAxis::Z ? g.height : g.depth, cols = a == VolumeAxis::X ? g.height : g.width;
            if (planes) {
                const std::vector<float> p = slice(a, 0, vp.view, false, rows, cols, nullptr);
                v.insert(v.end(), p.begin(), p.end());
            }
        }
        compute_range(v, vp, lo, hi);
    }
    void shell(double sx, double sy, double sz, double m, double norm, int bins, double* sums,
               long long* counts) override {
        ++views;
        const Profile p = ref_.shell_profile(2, sx, sy, sz);  // (its bins from 1: sums back from the means)
        for (int i = 0; i < bins; ++i) sums[i] = 0, counts[i] = 0;
        for (std::size_t i = 0; i < p.count.size() && i + 1 < std::size_t(bins); ++i) {
            counts[i + 1] = p.count[i];
            sums[i + 1] = p.mean_power[i] * double(p.count[i]);
        }
    }

private:
    const VolumeSpectrum& ref_;
};

TEST(Volume, ViewsOfASpectrumHeldOnADeviceAreMadeThereAndItComesDownOnceWhenABinIsAsked) {
    Rng rng;
    const int w = 12, h = 7, d = 5;
    std::vector<double> vol;
    const std::vector<Image> frames = random_frames(rng, w, h, d, &vol);
    VolumeSpectrum ref, held;
    transform(ref, frames, plain());
    held.begin(plain(), w, h, d, 2);
    held.add_frames(frames, "random");
    held.transform(nullptr, nullptr, [](float*) {});  // the "device" transformed it: the buffer keeps the volume
    auto dev = std::make_shared<FakeDevice>(ref);
    held.attach_device(dev);
    EXPECT_TRUE(held.on_device());
    ViewParams vp;
    int sw = 0, sh = 0, rw = 0, rh = 0;
    EXPECT_EQ(held.slice_values(VolumeAxis::Y, -2, vp, &sw, &sh), ref.slice_values(VolumeAxis::Y, -2, vp, &rw, &rh));
    EXPECT_EQ(sw, rw);
    EXPECT_EQ(sh, rh);
    EXPECT_EQ(held.projection_values(VolumeAxis::X, true, vp, &sw, &sh),
              ref.projection_values(VolumeAxis::X, true, vp, &rw, &rh));
    EXPECT_EQ(held.sample_values(vp, 20), ref.sample_values(vp, 20));
    // The display range is the device's (its samples never come here) and the host's range of the same sample.
    for (RangeMode mode : {RangeMode::Percentile, RangeMode::Auto, RangeMode::Top, RangeMode::Fixed})
        for (View view : {View::LogMag, View::Phase})
            for (std::size_t most : {std::size_t(20), std::size_t(1) << 20}) {
                ViewParams rp;
                rp.range = mode;
                rp.view = view;
                rp.pct_lo = 3;
                rp.pct_hi = 97;
                float lo = 0, hi = 0, want_lo = 0, want_hi = 0;
                const int asked = dev->ranges;
                held.display_range(rp, &lo, &hi, most);
                EXPECT_EQ(dev->ranges, asked + 1);
                compute_range(ref.sample_values(rp, most), rp, &want_lo, &want_hi);
                EXPECT_EQ(lo, want_lo) << int(mode) << " " << int(view) << " " << most;
                EXPECT_EQ(hi, want_hi) << int(mode) << " " << int(view) << " " << most;
                EXPECT_LT(lo, hi);
                ref.display_range(rp, &lo, &hi, most);  // (no device: the sample's range on the host)
                EXPECT_EQ(lo, want_lo);
                EXPECT_EQ(hi, want_hi);
            }
    const Profile a = held.shell_profile(2), b = ref.shell_profile(2);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.at, b.at);
    EXPECT_GE(dev->views, 4 + 3);  // (the strided lattice adds the three planes through DC)
    EXPECT_EQ(dev->downloads, 0);
    std::vector<std::complex<float>> bins, ref_bins;  // a slice's bins (the viewer's readout) come with it
    EXPECT_EQ(held.slice_values(VolumeAxis::Z, 1, vp, &sw, &sh, &bins),
              ref.slice_values(VolumeAxis::Z, 1, vp, &rw, &rh, &ref_bins));
    EXPECT_EQ(bins, ref_bins);
    EXPECT_EQ(dev->downloads, 0);
    // A bin, the whole spectrum (--raw): the spectrum comes down, once.
    EXPECT_EQ(held.at(3, 2, 1), ref.at(3, 2, 1));
    EXPECT_EQ(whole(held), whole(ref));
    EXPECT_EQ(dev->downloads, 1);
    held.begin(plain(), w, h, d, 2);
    EXPECT_FALSE(held.on_device());
}

// A device that takes the frames (VolumeSpectrum::begin with a VolumeInput): each content frame reaches it once with
// its slab and channel (a crop's frames outside the content not at all), and what the host computes from the frames'
// sums reaches its shaping: the levelling mean from the sums it gave, the window per axis, the mean fill; the
// spectrum it returns is attached, and no host buffer was needed.
TEST(Volume, FramesGoToTheirDeviceAndTheShapingComesFromTheirSums) {
    struct FakeInput final : VolumeInput {
        VolumeGeometry g;
        std::vector<int> slabs;
        int channel = -1;
        Shape got;
        std::shared_ptr<VolumeDevice> give;
        void begin(const VolumeGeometry& geometry) override { g = geometry; }
        void frame(const Image&, int c, int z) override {
            slabs.push_back(z);
            channel = c;
        }
        void sums(double* sum, double* sum_x, double* sum_y) override {
            for (int z = 0; z < g.content_d; ++z) sum[z] = 2.0 * (z + 1), sum_x[z] = 0, sum_y[z] = 0;
        }
        std::shared_ptr<VolumeDevice> shape_and_transform(const Shape& s, double* frames_ms, double* shape_ms,
                                                          double* fft_ms) override {
            got = s;
            *frames_ms = 1, *shape_ms = 2, *fft_ms = 3;
            return give;
        }
    };
    Rng rng;
    std::vector<double> vol;
    const std::vector<Image> frames = random_frames(rng, 12, 7, 10, &vol);
    VolumeSpectrum ref;
    transform(ref, frames, plain());
    auto input = std::make_shared<FakeInput>();
    input->give = std::make_shared<FakeDevice>(ref);
    Settings s;
    s.pad = PadMode::Crop;  // 8 x 4 x 8 of 12 x 7 x 10: frames 1..8 (0-based) are the content
    s.pad_fill = PadFill::Mean;
    s.window = Window::Hann;
    s.level = Level::Mean;
    s.channel = Channel::Luma;
    VolumeSpectrum held;
    held.begin(s, 12, 7, 10, 2, input);
    const VolumeGeometry& g = held.geometry();
    EXPECT_EQ(input->g.content_d, g.content_d);
    held.add_frames(frames, "random");
    std::vector<int> want(std::size_t(g.content_d));
    for (int z = 0; z < g.content_d; ++z) want[std::size_t(z)] = z;
    EXPECT_EQ(input->slabs, want);
    EXPECT_EQ(input->channel, 0);
    double shape_ms = 0, fft_ms = 0;
    held.transform(&shape_ms, &fft_ms);
    double total = 0;
    for (int z = 0; z < g.content_d; ++z) total += 2.0 * (z + 1);
    EXPECT_DOUBLE_EQ(input->got.a, total / (double(g.content_w) * g.content_h * g.content_d));
    EXPECT_EQ(input->got.wx.size(), std::size_t(g.content_w));
    EXPECT_EQ(input->got.wz.size(), std::size_t(g.content_d));
    EXPECT_FALSE(input->got.radial);
    EXPECT_EQ(input->got.fill_mean, g.width > g.content_w || g.height > g.content_h || g.depth > g.content_d);
    EXPECT_DOUBLE_EQ(fft_ms, 3.0);
    EXPECT_TRUE(held.on_device());
}

TEST(Volume, SliceOptionParses) {
    VolumeAxis a;
    int i = 7;
    EXPECT_TRUE(parse_volume_slice("z", &a, &i));
    EXPECT_EQ(a, VolumeAxis::Z);
    EXPECT_EQ(i, 0);
    EXPECT_TRUE(parse_volume_slice("x:-3", &a, &i));
    EXPECT_EQ(a, VolumeAxis::X);
    EXPECT_EQ(i, -3);
    for (const char* bad : {"", "w", "z:", "z3", "y:1.5", "x:3a", "zz"}) EXPECT_FALSE(parse_volume_slice(bad, &a, &i)) << bad;
}

TEST(Volume, GeometryFollowsTheSizePolicyPerAxis) {
    VolumeGeometry g = volume_geometry(PadMode::Pow2, 100, 60, 10);
    EXPECT_EQ(g.width, 128);
    EXPECT_EQ(g.height, 64);
    EXPECT_EQ(g.depth, 16);
    g = volume_geometry(PadMode::Square, 100, 60, 10);
    EXPECT_EQ(g.height, 128);
    EXPECT_EQ(g.depth, 128);
    g = volume_geometry(PadMode::Crop, 100, 60, 10);
    EXPECT_EQ(g.depth, 8);
    EXPECT_EQ(g.crop_z, 1);
    EXPECT_EQ(g.crop_x, 18);
}

}  // namespace
}  // namespace specview::test

namespace specview::test {
namespace {

// --voxel-size: cubic voxels bin as without (per unit = per voxel / size); anisotropic ones bin by physical frequency,
// so a grating along z at kz = 4 of 16 slices 0.5 um apart peaks at 4 / (16 x 0.5) = 0.5 per um, not where its
// cycles per voxel would put it; every bin but DC is still counted once.
TEST(Volume, VoxelSizeBinsShellsByPhysicalFrequency) {
    const int w = 16, h = 16, d = 16;
    std::vector<Image> frames;
    for (int z = 0; z < d; ++z) {
        std::vector<float> px(std::size_t(w) * h, float(std::cos(2 * M_PI * 4 * z / d)));
        frames.push_back(Image::from_floats(w, h, 1, px));
    }
    VolumeSpectrum v;
    transform(v, frames, plain());
    const Profile plain_p = v.shell_profile(2), cube = v.shell_profile(2, 0.2, 0.2, 0.2);
    ASSERT_EQ(plain_p.at.size(), cube.at.size());
    for (std::size_t i = 0; i < cube.at.size(); ++i) {
        EXPECT_NEAR(cube.at[i], plain_p.at[i], 1e-12);
        EXPECT_EQ(cube.count[i], plain_p.count[i]);
    }
    const double sx = 0.1, sy = 0.1, sz = 0.5;
    const Profile p = v.shell_profile(2, sx, sy, sz);
    std::size_t peak = 0;
    long long count = 0;
    for (std::size_t i = 0; i < p.at.size(); ++i) {
        count += p.count[i];
        if (p.mean_power[i] > p.mean_power[peak]) peak = i;
    }
    EXPECT_EQ(count, (long long)w * h * d - 1);
    EXPECT_NEAR(p.at[peak] / sx, 4.0 / (d * sz), 0.5 / (d * sz));  // per um, within half a bin
    VoxelSize vs;
    EXPECT_EQ(parse_voxel_size("0.1:0.2:0.5um", &vs), "");
    EXPECT_DOUBLE_EQ(vs.y, 0.2);
    EXPECT_DOUBLE_EQ(vs.z, 0.5);
    EXPECT_EQ(vs.unit, "um");
    EXPECT_EQ(parse_voxel_size("2nm", &vs), "");
    EXPECT_DOUBLE_EQ(vs.x, 2.0);
    EXPECT_DOUBLE_EQ(vs.z, 2.0);
    for (const char* bad : {"0.1:0.2:0.5", "0.1:0.5um", "a:b:1um", "0:1:1um", "1:1:1parsec", ""})
        EXPECT_NE(parse_voxel_size(bad, &vs), "") << bad;
}

// Classroom mode's 3D model (app/volume/volume_steps.h): step 0 is the volume, step 1 its rows' DFT, step 2 each slab
// transposed, step 5 the whole spectrum in the (x, y, z)-major layout, step 7 the spectrum in place (numpy's fftn),
// against the direct double DFT; the layout's dimensions and axes named at each step.
TEST(Volume, TheSevenStepsLayTheDataOutAsTheSeedPipelineDoes) {
    Rng rng;
    const int w = 6, h = 4, d = 5;
    std::vector<double> v;
    random_frames(rng, w, h, d, &v);
    const std::vector<float> vf(v.begin(), v.end());
    const std::vector<cd> want = direct_dft3(std::vector<double>(vf.begin(), vf.end()), w, h, d);
    const VolumeStep s0 = volume_step(vf, w, h, d, 0);
    for (std::size_t i = 0; i < vf.size(); ++i) ASSERT_EQ(s0.data[i], std::complex<float>(vf[i], 0.0f));
    const VolumeStep s1 = volume_step(vf, w, h, d, 1), s2 = volume_step(vf, w, h, d, 2);
    EXPECT_EQ(std::string(s2.axes[2]), "y");
    EXPECT_EQ(s2.dims[1], w);
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                ASSERT_EQ(s2.data[(std::size_t(z) * w + x) * h + y], s1.data[(std::size_t(z) * h + y) * w + x]);
    const VolumeStep s5 = volume_step(vf, w, h, d, 5, 2), s7 = volume_step(vf, w, h, d, 7, 2);
    EXPECT_EQ(std::string(s5.axes[2]), "kz");
    EXPECT_EQ(std::string(s7.axes[2]), "kx");
    std::vector<cf> at5(want.size());
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                at5[(std::size_t(z) * h + y) * w + x] = s5.data[(std::size_t(x) * h + y) * d + z];
    EXPECT_LT(rel_l2(at5, want), 1e-5) << "seed " << rng.seed();
    EXPECT_LT(rel_l2(s7.data, want), 1e-5) << "seed " << rng.seed();
    EXPECT_THROW(volume_step(vf, w, h, d, 8), std::invalid_argument);
}

// The split's plan without a GPU (issue 64's --dry-run): depth planes dealt as cuFFT deals its slowest dimension (the
// first depth % n GPUs one more), each GPU's slab of the padded R2C layout with a work area as big, cuFFT's limits
// refused with the reason, and the largest cube the largest share of which fits.
TEST(Volume, ASplitOverGpusIsPlannedAsCufftDealsThePlanes) {
    const gpu::MultiGpuLayout l = gpu::estimate_multi_gpu_layout({2, 5, 7}, 64, 40, 35);
    ASSERT_EQ(l.shares.size(), 3u);
    const int firsts[] = {0, 12, 24}, planes[] = {12, 12, 11};
    double data = 0;
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(l.shares[k].first_plane, firsts[k]);
        EXPECT_EQ(l.shares[k].planes, planes[k]);
        EXPECT_DOUBLE_EQ(l.shares[k].data_bytes, 8.0 * (64 / 2 + 1) * 40 * planes[k]);
        EXPECT_DOUBLE_EQ(l.shares[k].work_bytes, l.shares[k].data_bytes);
        data += l.shares[k].data_bytes;
    }
    EXPECT_EQ(l.shares[1].gpu, 5);
    EXPECT_DOUBLE_EQ(data, 8.0 * 33 * 40 * 35);  // the whole padded volume, once
    EXPECT_DOUBLE_EQ(l.total_bytes(), 2 * data);
    EXPECT_NE(l.text().find("GPU 7: z 24-34 (11 planes)"), std::string::npos) << l.text();
    EXPECT_FALSE(l.measured);
    EXPECT_EQ(gpu::multi_gpu_refusal({0, 1}, 64, 64, 64), "");
    EXPECT_NE(gpu::multi_gpu_refusal({0}, 64, 64, 64).find("2 to 16"), std::string::npos);
    EXPECT_NE(gpu::multi_gpu_refusal(std::vector<int>(17, 0), 64, 64, 64).find("at most 16"), std::string::npos);
    EXPECT_NE(gpu::multi_gpu_refusal({0, 1}, 64, 31, 64).find("at least 32"), std::string::npos);
    // The largest cube: its first share fits, the next size's does not.
    for (int n : {2, 4, 8}) {
        const double each = 75.0 * 1024 * 1024 * 1024;
        const int side = gpu::largest_split_cube(n, each);
        ASSERT_GE(side, 32) << n;
        EXPECT_EQ(side % 32, 0);
        auto need = [&](int a) {
            const gpu::MultiGpuShare sh = gpu::estimate_multi_gpu_layout(std::vector<int>(n, 0), a, a, a).shares[0];
            return sh.data_bytes + sh.work_bytes;
        };
        EXPECT_LE(need(side), each) << n;
        EXPECT_GT(need(side + 32), each) << n;
    }
    EXPECT_LT(gpu::largest_split_cube(2, 75e9), gpu::largest_split_cube(4, 75e9));
}

}  // namespace
}  // namespace specview::test
