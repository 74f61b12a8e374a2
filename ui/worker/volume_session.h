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
    // What each pixel shows, for the cursor's readout: the image's values, or the spectrum slice's complex bins (none
    // for a projection).
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
    VolumePicture image[3];                        // xy (at z), xz (at y), yz (at x)
    VolumePicture spectrum[3];                     // kx-ky (at kz), kx-kz (at ky), ky-kz (at kx)
    Profile shell;                                 // the spherically averaged power
    bool transformed = false;                      // this result's settings transformed the volume (else views only)
    double decode_ms = 0, transform_ms = 0, pictures_ms = 0;
    std::string backend;  // which transformed it
    std::string step_title, step_caption;  // view.step >= 0: what the step did and why
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
    std::vector<Image> frames_;
    std::string path_;
    std::unique_ptr<VolumeSpectrum> spectrum_;
    std::string shaped_;  // the settings the spectrum was made with (transform_key)
    Profile shell_;
    std::string backend_;
    std::unique_ptr<GpuVolumeFft> gpu_;  // a GPU backend's engine, made at its first transform
    // The last pictures and what they showed (remade only when that changes); the spectrum's view values kept for
    // the shared range.
    struct Cached {
        std::string key;
        VolumePicture pic;
        std::vector<float> values;
    };
    Cached image_[3], spectrum_cache_[3];
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
