// A stack taken as one volume (issue 61, seed 000's 3D FFT): its frames put into FFTW's in-place buffer as they are
// decoded (the channel, the size policy per axis, levelling over the whole volume, a separable or spherical window),
// its 3D spectrum on the CPU (FFTW, threads), and what is shown of it: a slice through the shifted spectrum, a
// projection along an axis, the spherically averaged (shell) power.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/core/image.h"
#include "app/core/settings.h"
#include "app/lab/analysis.h"

namespace specview {

// The transform's size and where the content sits, per axis (x: width, y: height, z: depth = frames), as
// plane_geometry gives it for a plane: pow2 pads each axis to its next power of two, square pads all three to the
// largest's, crop takes the centred power-of-two crop of each (frames included), none keeps the sizes.
struct VolumeGeometry {
    int width = 0, height = 0, depth = 0;
    int content_w = 0, content_h = 0, content_d = 0;
    int crop_x = 0, crop_y = 0, crop_z = 0;
};
VolumeGeometry volume_geometry(PadMode pad, int w, int h, int d);

// The axis a slice is normal to, or a projection runs along (numbered 0, 1, 2 on the device: gpu/common/volume_math.h).
enum class VolumeAxis { X, Y, Z };
inline int axis_number(VolumeAxis a) { return a == VolumeAxis::X ? 0 : a == VolumeAxis::Y ? 1 : 2; }

// A volume's half spectrum held on a device (a GPU backend's: app/engine/volume_gpu.h), where what is shown of it is
// made: the spectrum does not come to the host unless something needs it whole there (--raw, a bin's value). The
// pictures' bins and arithmetic are the host's (gpu/common/volume_math.h, spectrum_math.h); sums may be added in
// another order. Every call throws gpu::GpuError (the device's errors) or std::logic_error once the device's buffer
// holds another transform.
class VolumeDevice {
public:
    virtual ~VolumeDevice() = default;
    // The half spectrum into host memory: depth x height rows of width/2 + 1 bins, packed.
    virtual void download_half(std::complex<float>* host) = 0;
    // A slice normal to `axis` at unshifted bin k (with `bins`, its complex bins too), or the projection along it
    // (max or sum, as VolumeSpectrum::projection_values defines them): rows x cols view values.
    virtual std::vector<float> slice(VolumeAxis axis, int k, View view, bool shift, int rows, int cols,
                                     std::vector<std::complex<float>>* bins = nullptr) = 0;
    virtual std::vector<float> projection(VolumeAxis axis, bool max, View view, bool shift, int rows, int cols) = 0;
    // The view values of the half's bins (z, y, x) = step (zi, yi, xi), nz x ny x nx of them, x fastest.
    virtual std::vector<float> lattice(View view, int step, int nx, int ny, int nz) = 0;
    // compute_range's (lo, hi) of vp over that lattice's values (with the mirror's negatives for the phase and
    // imaginary views) and, with `planes`, the three unshifted planes through DC: VolumeSpectrum::display_range.
    virtual void sample_range(const ViewParams& vp, int step, int nx, int ny, int nz, bool planes, float* lo,
                              float* hi) = 0;
    // VolumeSpectrum::shell_profile's sums and counts over `bins` shells (each bin's power times norm).
    virtual void shell(double sx, double sy, double sz, double m, double norm, int bins, double* sums,
                       long long* counts) = 0;
};

// A device that makes the volume itself from the frames' samples and transforms it there (a GPU backend's:
// frames_on_device below), so that no host buffer is filled, shaped and sent: VolumeSpectrum hands it each frame as it
// is added and the levelling and window it computes from the frames' sums; the spectrum stays there (VolumeDevice).
class VolumeInput {
public:
    virtual ~VolumeInput() = default;
    virtual void begin(const VolumeGeometry& g) = 0;
    // The frame's channel (0 luma, else index + 1) into content slab z.
    virtual void frame(const Image& frame, int channel, int z) = 0;
    // Each content slab's sum v, sum (x - xc) v, sum (y - yc) v (as VolumeSpectrum adds them on the host).
    virtual void sums(double* sum, double* sum_x, double* sum_y) = 0;
    struct Shape {
        double a = 0, bx = 0, by = 0, bz = 0;
        bool radial = false;
        std::vector<double> wx, wy, wz, table;
        bool fill_mean = false;
    };
    // The levelling, the window, the padding's fill and the transform: the spectrum, kept there. *frames_ms: the time
    // the frames took on their way (their uploads), *shape_ms the shaping and *fft_ms the transform (device times).
    virtual std::shared_ptr<VolumeDevice> shape_and_transform(const Shape& s, double* frames_ms, double* shape_ms,
                                                              double* fft_ms) = 0;
};

class VolumeSpectrum {
public:
    VolumeSpectrum();
    ~VolumeSpectrum();
    VolumeSpectrum(const VolumeSpectrum&) = delete;
    VolumeSpectrum& operator=(const VolumeSpectrum&) = delete;

    // Starts a volume of frames of w x h, d of them in all (the frames given; the policy may crop or pad), under
    // these settings (channel, window and shape, level, pad, pad fill); allocates FFTW's buffer and plans (threads:
    // <= 0 all cores). Throws std::bad_alloc when the buffer cannot be had.
    // With `input`, the frames go to that device instead (VolumeInput): no host buffer until something needs the
    // spectrum here.
    void begin(const Settings& s, int w, int h, int d, int threads = 0, std::shared_ptr<VolumeInput> input = nullptr);
    const VolumeGeometry& geometry() const { return g_; }
    // Frame k (0-based among the d) into the buffer: skipped where the crop leaves it out. Frames of another size
    // are an InputError naming `name`.
    void add_frame(const Image& frame, int k, const std::string& name);
    // Every frame at once (frames[k] is frame k), the frames over the threads: for frames already in memory (the
    // viewer's), where a frame's rows are too few to spread.
    void add_frames(const std::vector<Image>& frames, const std::string& name);
    // After the last frame: levelling, the window and the padding, then the transform. Its milliseconds (the
    // shaping and the FFT) in *shape_ms and *fft_ms when given. `fft` runs the 3D FFT on the shaped buffer instead
    // of FFTW (a GPU backend, gpu/engine/volume_engine.h): depth x height rows of 2 (width/2 + 1) floats in, the half
    // spectrum FFTW's in-place r2c leaves out.
    using Fft3d = std::function<void(float* buffer)>;
    void transform(double* shape_ms = nullptr, double* fft_ms = nullptr, const Fft3d& fft = {});
    // After a transform whose `fft` left the half spectrum on a device instead of in the buffer: the views are made
    // there, and the half comes to the host buffer (once) only when a caller needs it here. begin() lets it go.
    void attach_device(std::shared_ptr<VolumeDevice> device);
    bool on_device() const { return device_ != nullptr; }

    // Bin (x, y, z) of the whole unshifted spectrum (0 <= x < width ...), from the half FFTW keeps.
    std::complex<float> at(int x, int y, int z) const;
    // The whole spectrum, (depth, height, width) C order, unshifted: numpy's fftn of the volume. Written a z-plane at
    // a time through `sink` (plane z, its height x width values), so no second copy of the volume is needed.
    template <class Sink>
    void each_plane(Sink&& sink) const {
        std::vector<std::complex<float>> plane(std::size_t(g_.width) * g_.height);
        for (int z = 0; z < g_.depth; ++z) {
            full_plane(z, plane.data());
            sink(z, plane.data());
        }
    }
    void full_plane(int z, std::complex<float>* out) const;

    // The view values of the slice through the shifted spectrum normal to `axis` at signed frequency index `index`
    // (0: through DC), DC at the picture's centre as a 2D spectrum's: z -> height x width (ky down, kx across),
    // y -> depth x width (kz, kx), x -> depth x height (kz, ky). Throws std::invalid_argument for an index outside
    // the axis. With `bins`, the complex bins under the picture too.
    std::vector<float> slice_values(VolumeAxis axis, int index, const ViewParams& vp, int* width, int* height,
                                    std::vector<std::complex<float>>* bins = nullptr) const;
    // View values standing for the whole spectrum's, for a display range shared by every slice (so that moving a
    // slice keeps the others' colours and a slice's brightness compares): the bins of a lattice through DC, at most
    // about max_samples of them, with the three planes through DC whole when the lattice skips bins. All of them
    // for a volume of fewer bins.
    std::vector<float> sample_values(const ViewParams& vp, std::size_t max_samples = std::size_t(1) << 20) const;
    // compute_range(sample_values(vp, max_samples), vp): made on the spectrum's device when it has one (the samples
    // ranked there; none come to the host).
    void display_range(const ViewParams& vp, float* lo, float* hi,
                       std::size_t max_samples = std::size_t(1) << 20) const;
    // Along `axis` instead: max, the largest view value; sum, the view of sqrt(the summed power) (a 2D spectrum of the
    // volume's projection along that axis, by the projection-slice theorem, is the z = 0 slice — not this).
    std::vector<float> projection_values(VolumeAxis axis, bool max, const ViewParams& vp, int* width,
                                         int* height) const;
    // The three slices through bin (kx, ky, kz) (signed indices) side by side — kx-ky, kx-kz, ky-kz — or with
    // `projection` ("max" or "sum") the three projections, under a label strip (`label_h` rows) and `gap` columns
    // apart; NaN where no panel is. Each panel's place and label in *panels.
    struct Panel {
        int x = 0, y = 0, width = 0, height = 0;
        std::string label;
    };
    std::vector<float> orthoslices(int kx, int ky, int kz, const std::string& projection, const ViewParams& vp,
                                   int label_h, int gap, int* width, int* height, std::vector<Panel>* panels) const;
    // The spherically averaged power: bin i holds the bins (DC left out) whose radius
    // sqrt((kx/W)^2 + (ky/H)^2 + (kz/D)^2) cycles per voxel rounds to i / max(W, H, D); mean power |F|^2 / voxels.
    // With a voxel's size (sx, sy, sz in one unit) the shells are spheres of physical frequency
    // sqrt((fx/sx)^2 + (fy/sy)^2 + (fz/sz)^2) per unit, 1 / max(W sx, H sy, D sz) wide, and `at` is in cycles per voxel
    // along x (at / sx per unit): for cubic voxels the same bins as without.
    Profile shell_profile(int threads = 0, double sx = 1, double sy = 1, double sz = 1) const;

    // depth x height rows of width/2+1 (brought from the device first where the spectrum is held there)
    const std::complex<float>* half() const;

private:
    void check_frame(const Image& frame, int k, const std::string& name) const;
    void add_frame_rows(const Image& frame, int k, const std::string& name, int threads);
    struct Impl;
    std::unique_ptr<Impl> impl_;
    VolumeGeometry g_;
    std::shared_ptr<VolumeDevice> device_;
};

class GpuVolumeFft;
// The GPU engine as the frames' device (valid while `gpu` lives; its last() says what ran). `frames_key` (0: none)
// names the frames' contents: the same key again (the viewer's next knob change over the same frames) takes the
// samples the device kept instead of sending them (gpu::VolumeEngine::frames_begin).
std::shared_ptr<VolumeInput> frames_on_device(GpuVolumeFft& gpu, std::uint64_t frames_key = 0);
// The spectrum the GPU engine's last run kept on the device (GpuVolumeFft::run with keep), as a VolumeDevice for
// VolumeSpectrum::attach_device; nullptr where that run kept none. Valid until the engine runs again.
std::shared_ptr<VolumeDevice> kept_on_device(const GpuVolumeFft& gpu);

// A voxel's size (--voxel-size X:Y:Z[UNIT], or one value for a cube), in one of --pixel-size's units.
struct VoxelSize {
    double x = 0, y = 0, z = 0;
    std::string unit;
    bool calibrated() const { return x > 0 && !unit.empty(); }
};
// Returns "" and sets *out, or what is wrong.
std::string parse_voxel_size(const std::string& text, VoxelSize* out);

// Parses "z", "y:3", "x:-2" (--slice): the axis and the signed index; false when malformed.
bool parse_volume_slice(const std::string& text, VolumeAxis* axis, int* index);
const char* axis_name(VolumeAxis a);

}  // namespace specview
