// A stack taken as one volume in the viewer (issue 61): its frames and 3D spectrum kept on the worker's runner thread,
// and the six pictures the viewer shows of them — the image volume's xy, xz and yz slices and the spectrum's kx–ky,
// kx–kz and ky–kz slices through a chosen bin (or projections along each axis). Moving a slice makes pictures only;
// a setting that shapes the volume (channel, window, level, padding, backend) transforms it again from the kept
// frames, without decoding them again.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/core/image.h"
#include "app/core/settings.h"
#include "app/engine/volume_gpu.h"
#include "app/lab/analysis.h"
#include "app/volume/volume.h"
#include "app/volume/volume_steps.h"

namespace specview {

struct VolumeViewRequest {
    int image_x = -1, image_y = -1, image_z = -1;  // the image volume's slices (0-based; -1: the middle)
    int kx = 0, ky = 0, kz = 0;                    // the spectrum's slices through this signed bin (0: DC)
    std::string projection;                        // "max" or "sum": the spectrum's views project along each axis
    // Classroom: 0..7 shows, instead of the spectrum, the data after that step of the seed's 3D pipeline as it lies in
    // memory (app/volume/volume_steps.h), its three central slices; -1: off.
    int step = -1;
    bool operator==(const VolumeViewRequest& o) const {
        return image_x == o.image_x && image_y == o.image_y && image_z == o.image_z && kx == o.kx && ky == o.ky &&
               kz == o.kz && projection == o.projection && step == o.step;
    }
};

struct VolumePicture {
    std::vector<std::uint32_t> rgba;
    // What each pixel shows, for the cursor's readout: the image's or the spectrum's view values, and the spectrum
    // slice's complex bins (none for a projection).
    std::vector<float> values;
    std::vector<std::complex<float>> bins;
    int width = 0, height = 0;
    float lo = 0, hi = 0;  // the values at the darkest and brightest
    std::string label;     // "xy at z = 12", "kx-ky at kz = 0", "max along kz"
};

struct VolumeResult {
    std::uint64_t id = 0;  // the open request's id
    bool ok = false;
    std::string error, path;
    int frames_w = 0, frames_h = 0, frames_d = 0;  // the image volume
    VolumeGeometry geometry;                       // the transform's
    VolumeViewRequest view;                        // what the pictures show (the middles and bounds filled in)
    // The pictures, shared with the session: one that did not change since the last result is the same object (the
    // viewer uploads only the others; moving a slice makes and uploads one picture).
    std::shared_ptr<const VolumePicture> image[3];     // xy (at z), xz (at y), yz (at x)
    std::shared_ptr<const VolumePicture> spectrum[3];  // kx-ky (at kz), kx-kz (at ky), ky-kz (at kx)
    Profile shell;                                 // the spherically averaged power
    ViewParams spectrum_view;                      // the view the spectrum's pictures were made with (colour bar)
    bool transformed = false;                      // this result's settings transformed the volume (else views only)
    double decode_ms = 0, transform_ms = 0, pictures_ms = 0;
    // transform_ms in parts: the frames shaped into the buffer, the FFT (a GPU's with its copies), the shell profile
    double shape_ms = 0, fft_ms = 0, shell_ms = 0;
    double copy_ms = 0;                 // of fft_ms, a GPU's copies up and down
    double frames_ms = 0;               // of shape_ms, the frames into the buffer or up to the GPU (host wall)
    bool frames_resident = false;       // a GPU took the frames it kept from the last transform (none went up)
    double range_ms = 0;                // of pictures_ms, the spectrum's range (its samples and their percentiles)
    std::vector<gpu::KernelTiming> gpu_stages;  // a GPU's passes and copies, as they ran (empty on the CPU)
    double queue_ms = 0, work_ms = 0;   // posted -> the worker began it; began -> this result was made
    std::string backend;  // which transformed it
    std::string step_title, step_caption;  // view.step >= 0: what the step did and why
};

// The last transform's stages, for the Timings panel (a view-only request keeps them) and the latest pictures' time.
struct VolumeTimes {
    std::string backend;
    int width = 0, height = 0, depth = 0;
    double decode_ms = 0, shape_ms = 0, fft_ms = 0, copy_ms = 0, shell_ms = 0, transform_ms = 0, pictures_ms = 0;
    std::vector<gpu::KernelTiming> gpu_stages;
    double frames_ms = 0;
    bool frames_resident = false;
};

class VolumeSession {
public:
    // Decodes every frame of `path` (the decoder children; a frame of another size is an InputError), then
    // update(). Throws InputError, std::bad_alloc, gpu errors.
    void open(const std::string& path, const Settings& s, const VolumeViewRequest& v, int threads, VolumeResult* out);
    bool is_open() const { return !frames_.empty(); }
    // The pictures of `v` under s.view; transforms again first where s shapes the volume differently from the last
    // transform.
    void update(const Settings& s, const VolumeViewRequest& v, int threads, VolumeResult* out);

private:
    void transform(const Settings& s, int threads, VolumeResult* out);
    // The frames the transform takes: all of each, or the ROI's rectangle of each (copied into `cropped`).
    const std::vector<Image>& transformed_frames(const Settings& s, std::vector<Image>& cropped) const;
    std::vector<Image> frames_;
    std::uint64_t frames_generation_ = 0;  // names this open's frames (a GPU engine keeps them under it)
    std::string path_;
    std::unique_ptr<VolumeSpectrum> spectrum_;
    std::string shaped_;  // the settings the spectrum was made with (transform_key)
    Profile shell_;
    std::string backend_;
    std::unique_ptr<GpuVolumeFft> gpu_;  // a GPU backend's engine, made at its first transform
    // The last pictures and what they showed (remade only when that changes).
    struct Cached {
        std::string key;
        std::shared_ptr<const VolumePicture> pic;
        Colormap colormap = Colormap::Gray;  // (the spectrum's: a new colormap colours its values again)
    };
    Cached image_[3], spectrum_cache_[3];
    // The spectrum views' one display range: the volume's (sampled) for slices, the three projections' for those;
    // found again only when the spectrum, the view, the range's settings or the projection changes (not the
    // colormap).
    std::string range_key_;
    float range_lo_ = 0, range_hi_ = 1;
    // Classroom: the shaped volume (as the transform got it) and the last step's data.
    std::vector<float> shaped_volume_;
    std::string shaped_volume_key_, step_key_;
    VolumeStep step_;
    void classroom_pictures(const Settings& s, int step, int threads, VolumeResult* out);
    double image_lo_ = 0, image_hi_ = 1;  // the image volume's range in the channel shown
    Channel range_channel_ = Channel::Luma;
    bool range_known_ = false;
};

}  // namespace specview
