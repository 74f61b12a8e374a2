#include "app/core/settings.h"

#include "app/core/filter_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace specview {

// Each list is in enum order: the enum's value indexes its name.
const std::vector<std::string>& backend_names() {
    static const std::vector<std::string> n{"cpu", "custom", "cufft", "custom-fast", "opencl", "gl"};
    return n;
}
const std::vector<std::string>& pad_names() {
    static const std::vector<std::string> n{"pow2", "crop", "none", "square"};
    return n;
}
const std::vector<std::string>& pad_fill_names() {
    static const std::vector<std::string> n{"zero", "mean"};
    return n;
}
const std::vector<std::string>& window_names() {
    static const std::vector<std::string> n{"none",   "hann",    "hamming", "tukey", "blackman", "blackman-harris",
                                            "kaiser", "flattop", "welch"};
    return n;
}
const std::vector<std::string>& channel_names() {
    static const std::vector<std::string> n{"luma", "r", "g", "b", "a"};
    return n;
}
const std::vector<std::string>& view_names() {
    static const std::vector<std::string> n{"logmag", "power", "phase", "real", "imag"};
    return n;
}
const std::vector<std::string>& range_names() {
    static const std::vector<std::string> n{"auto", "percentile", "fixed", "top"};
    return n;
}
const std::vector<std::string>& colormap_names() {
    static const std::vector<std::string> n{"gray", "viridis", "inferno", "magma", "turbo"};
    return n;
}
const std::vector<std::string>& cufft_mode_names() {
    static const std::vector<std::string> n{"r2c", "c2c"};
    return n;
}
const std::vector<std::string>& window_shape_names() {
    static const std::vector<std::string> n{"separable", "radial"};
    return n;
}
const std::vector<std::string>& level_names() {
    static const std::vector<std::string> n{"none", "mean", "plane"};
    return n;
}
const std::vector<std::string>& lab_view_names() {
    static const std::vector<std::string> n{"filtered", "removed", "difference"};
    return n;
}

namespace {
template <class E>
const std::vector<std::string>& names_for();
template <>
const std::vector<std::string>& names_for<Backend>() {
    return backend_names();
}
template <>
const std::vector<std::string>& names_for<PadMode>() {
    return pad_names();
}
template <>
const std::vector<std::string>& names_for<PadFill>() {
    return pad_fill_names();
}
template <>
const std::vector<std::string>& names_for<Window>() {
    return window_names();
}
template <>
const std::vector<std::string>& names_for<Channel>() {
    return channel_names();
}
template <>
const std::vector<std::string>& names_for<View>() {
    return view_names();
}
template <>
const std::vector<std::string>& names_for<RangeMode>() {
    return range_names();
}
template <>
const std::vector<std::string>& names_for<Colormap>() {
    return colormap_names();
}
template <>
const std::vector<std::string>& names_for<gpu::CufftMode>() {
    return cufft_mode_names();
}
template <>
const std::vector<std::string>& names_for<LabView>() {
    return lab_view_names();
}
template <>
const std::vector<std::string>& names_for<WindowShape>() {
    return window_shape_names();
}
template <>
const std::vector<std::string>& names_for<Level>() {
    return level_names();
}
}  // namespace

template <class E>
const std::string& name_of(E e) {
    return names_for<E>().at(static_cast<std::size_t>(e));
}

template <class E>
std::optional<E> parse_name(const std::string& s) {
    const auto& names = names_for<E>();
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == s) return static_cast<E>(i);
    return std::nullopt;
}

namespace {
bool parse_float(const std::string& w, float* v) {
    try {
        std::size_t used = 0;
        const float f = std::stof(w, &used);
        if (used != w.size() || !std::isfinite(f)) return false;
        *v = f;
        return true;
    } catch (const std::exception&) {
        return false;
    }
}
bool parse_int(const std::string& w, int* v) {
    try {
        std::size_t used = 0;
        const long i = std::stol(w, &used);
        if (used != w.size() || i < -1000000000L || i > 1000000000L) return false;
        *v = int(i);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}
std::string join(const std::vector<std::string>& v) {
    std::string o;
    for (const auto& x : v) o += (o.empty() ? "" : ", ") + x;
    return o;
}
template <class E>
std::string set_enum(E* field, const std::string& option, const std::vector<std::string>& values) {
    if (values.size() != 1) return option + " takes one value (" + join(names_for<E>()) + ")";
    const auto e = parse_name<E>(values[0]);
    if (!e) return "unknown " + option + " '" + values[0] + "' (" + join(names_for<E>()) + ")";
    *field = *e;
    return {};
}
// A switch: on or off.
std::string set_switch(bool* field, const std::string& option, const std::vector<std::string>& values) {
    if (values.size() != 1 || (values[0] != "on" && values[0] != "off")) return option + " takes on or off";
    *field = values[0] == "on";
    return {};
}
std::string set_int(int* field, const std::string& option, const std::vector<std::string>& values,
                    const std::vector<int>& allowed) {
    int v = 0;
    if (values.size() != 1 || !parse_int(values[0], &v)) return option + " takes one whole number";
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
        std::string list;
        for (int a : allowed) list += (list.empty() ? "" : ", ") + std::to_string(a);
        return option + " must be one of " + list;
    }
    *field = v;
    return {};
}
std::string set_float(float* field, const std::string& option, const std::vector<std::string>& values, float lo,
                      float hi) {
    float v = 0;
    if (values.size() != 1 || !parse_float(values[0], &v)) return option + " takes one number";
    if (v < lo || v > hi) return option + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    *field = v;
    return {};
}
const std::vector<int> kThreads{32, 64, 128, 256, 512, 1024};
const std::vector<int> kHeights{0, 1, 2, 4, 8, 16, 32, 64};
const std::vector<int> kLocal{0, 16, 64, 256, 1024, 2048, 4096, 8192, 16384};
const std::vector<int> kTiles{8, 16, 32, 64};
std::vector<std::string> words(const std::vector<int>& v) {
    std::vector<std::string> o;
    for (int i : v) o.push_back(std::to_string(i));
    return o;
}
}  // namespace

std::string parse_roi(const std::string& text, Roi* roi) {
    if (text == "none") {
        *roi = Roi{};
        return "";
    }
    long long v[4];
    char sep[3] = {0, 0, 0}, extra = 0;
    if (std::sscanf(text.c_str(), "%lld%c%lld%c%lld%c%lld%c", &v[0], &sep[0], &v[1], &sep[1], &v[2], &sep[2], &v[3],
                    &extra) != 7 ||
        sep[0] != ':' || sep[1] != ':' || sep[2] != ':')
        return "roi " + text + ": X:Y:W:H in image pixels (the top-left corner, the width and the height), or none";
    if (v[0] < 0 || v[1] < 0 || v[2] < 1 || v[3] < 1 || v[0] > 1 << 30 || v[1] > 1 << 30 || v[2] > 1 << 30 ||
        v[3] > 1 << 30)
        return "roi " + text + ": X and Y from 0, W and H from 1";
    *roi = Roi{int(v[0]), int(v[1]), int(v[2]), int(v[3])};
    return "";
}

std::string roi_string(const Roi& r) {
    if (r.whole()) return "none";
    return std::to_string(r.x) + ":" + std::to_string(r.y) + ":" + std::to_string(r.w) + ":" + std::to_string(r.h);
}

std::string set_option(Settings& out, const std::string& o, const std::vector<std::string>& v) {
    Settings s = out;
    std::string err;
    if (o == "backend")
        err = set_enum(&s.backend, o, v);
    else if (o == "channel")
        err = set_enum(&s.channel, o, v);
    else if (o == "window")
        err = set_enum(&s.window, o, v);
    else if (o == "pad")
        err = set_enum(&s.pad, o, v);
    else if (o == "pad-fill")
        err = set_enum(&s.pad_fill, o, v);
    else if (o == "view")
        err = set_enum(&s.view.view, o, v);
    else if (o == "range")
        err = set_enum(&s.view.range, o, v);
    else if (o == "colormap")
        err = set_enum(&s.view.colormap, o, v);
    else if (o == "cufft-mode")
        err = set_enum(&s.cufft_mode, o, v);
    else if (o == "lab-view")
        err = set_enum(&s.lab_view, o, v);
    else if (o == "window-shape")
        err = set_enum(&s.window_shape, o, v);
    else if (o == "level")
        err = set_enum(&s.level, o, v);
    else if (o == "kaiser-beta")
        err = set_float(&s.kaiser_beta, o, v, 0.0f, 50.0f);
    else if (o == "roi") {
        // One word X:Y:W:H (or none), or four: X Y W H.
        const std::string text = v.size() == 4 ? v[0] + ":" + v[1] + ":" + v[2] + ":" + v[3] : v.size() == 1 ? v[0] : "";
        err = text.empty() ? "roi: X:Y:W:H, X Y W H or none" : parse_roi(text, &s.roi);
    }
    else if (o == "filter") {
        FilterSpec f;
        if (v.size() != 1)
            err = "filter takes one SPEC (lowpass:R, highpass:R, bandpass:R1:R2, bandstop:R1:R2, notch:U:V:R)";
        else if (s.filters.size() >= std::size_t(kMaxFilters))
            err = "at most " + std::to_string(kMaxFilters) + " filters";
        else if ((err = parse_filter(v[0], &f)).empty())
            s.filters.push_back(f);
    } else if (o == "filters") {
        if (v.size() != 1 || v[0] != "none")
            err = "filters takes 'none' (removes them all)";
        else
            s.filters.clear();
    } else if (o == "paint" || o == "erase") {
        BrushStroke b;
        if (s.strokes.size() >= kMaxStrokes)
            err = "at most " + std::to_string(kMaxStrokes) + " brush dabs";
        else if ((err = parse_stroke(v, o == "erase", &b)).empty())
            s.strokes.push_back(b);
    } else if (o == "strokes") {
        if (v.size() != 1 || v[0] != "none")
            err = "strokes takes 'none' (removes every brush dab)";
        else
            s.strokes.clear();
    } else if (o == "invert-mask") {
        if (v.size() != 1 || (v[0] != "on" && v[0] != "off"))
            err = "invert-mask takes on or off";
        else
            s.mask_invert = v[0] == "on";
    } else if (o == "tukey-alpha")
        err = set_float(&s.tukey_alpha, o, v, 0.0f, 1.0f);
    else if (o == "top-span")
        err = set_float(&s.view.top_span, o, v, 1e-6f, 1e6f);
    else if (o == "threads-per-block")
        err = set_int(&s.custom.rows.threads_per_block, o, v, kThreads);
    else if (o == "block-height")
        err = set_int(&s.custom.rows.block_height, o, v, kHeights);
    else if (o == "local-length")
        err = set_int(&s.custom.rows.max_local_length, o, v, kLocal);
    else if (o == "tile")
        err = set_int(&s.custom.transpose.tile, o, v, kTiles);
    else if (o == "threads-2x-length")  // the seed pipeline's rows: seed 000 section 4.1
        err = set_switch(&s.custom.rows.threads_twice_length, o, v);
    else if (o == "warp-shuffles")  // the seed pipeline's rows: seed 000 section 5.2.2
        err = set_switch(&s.custom.rows.warp_shuffles, o, v);
    else if (o == "next-axis-stages")  // a volume's seed pipeline: seed 000 section 5.1.1
        err = set_switch(&s.custom.rows.next_axis_stages, o, v);
    else if (o == "merge-transposes")  // a volume's seed pipeline: seed 000 section 5.1.2
        err = set_switch(&s.custom.merge_final_transposes, o, v);
    else if (o == "percentiles" || o == "fixed-range") {
        float lo = 0, hi = 0;
        if (v.size() != 2 || !parse_float(v[0], &lo) || !parse_float(v[1], &hi))
            err = o + " takes two numbers, LO HI";
        else if (o == "percentiles" && !(lo >= 0 && lo < hi && hi <= 100))
            err = "percentiles needs 0 <= LO < HI <= 100";
        else if (o == "fixed-range" && !(lo < hi))
            err = "fixed-range needs LO < HI";
        else if (o == "percentiles")
            s.view.pct_lo = lo, s.view.pct_hi = hi;
        else
            s.view.fixed_lo = lo, s.view.fixed_hi = hi;
    } else if (o == "no-shift") {
        if (v.size() != 1 || (v[0] != "true" && v[0] != "false"))
            err = "no-shift takes true or false";
        else
            s.view.shift = v[0] == "false";
    } else {
        err = "unknown option '" + o + "'";
    }
    if (err.empty()) out = s;
    return err;
}

std::vector<std::string> option_steps(const std::string& o) {
    if (o == "backend") return backend_names();
    if (o == "channel") return channel_names();
    if (o == "window") return window_names();
    if (o == "pad") return pad_names();
    if (o == "pad-fill") return pad_fill_names();
    if (o == "view") return view_names();
    if (o == "range") return range_names();
    if (o == "colormap") return colormap_names();
    if (o == "cufft-mode") return cufft_mode_names();
    if (o == "lab-view") return lab_view_names();
    if (o == "window-shape") return window_shape_names();
    if (o == "level") return level_names();
    if (o == "threads-per-block") return words(kThreads);
    if (o == "block-height") return words(kHeights);
    if (o == "local-length") return words(kLocal);
    if (o == "tile") return words(kTiles);
    if (o == "no-shift") return {"false", "true"};
    if (o == "threads-2x-length" || o == "warp-shuffles" || o == "merge-transposes" || o == "next-axis-stages")
        return {"off", "on"};
    return {};
}

#define SPECVIEW_INSTANTIATE_NAMES(E)          \
    template const std::string& name_of<E>(E); \
    template std::optional<E> parse_name<E>(const std::string&);
SPECVIEW_INSTANTIATE_NAMES(Backend)
SPECVIEW_INSTANTIATE_NAMES(PadMode)
SPECVIEW_INSTANTIATE_NAMES(PadFill)
SPECVIEW_INSTANTIATE_NAMES(Window)
SPECVIEW_INSTANTIATE_NAMES(Channel)
SPECVIEW_INSTANTIATE_NAMES(View)
SPECVIEW_INSTANTIATE_NAMES(RangeMode)
SPECVIEW_INSTANTIATE_NAMES(Colormap)
SPECVIEW_INSTANTIATE_NAMES(gpu::CufftMode)
SPECVIEW_INSTANTIATE_NAMES(LabView)
SPECVIEW_INSTANTIATE_NAMES(WindowShape)
SPECVIEW_INSTANTIATE_NAMES(Level)
#undef SPECVIEW_INSTANTIATE_NAMES

}  // namespace specview
