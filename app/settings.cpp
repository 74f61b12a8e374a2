#include "app/settings.h"

namespace specview {

// Each list is in enum order: the enum's value indexes its name.
const std::vector<std::string>& backend_names() {
    static const std::vector<std::string> n{"cpu", "custom", "cufft", "custom-fast"};
    return n;
}
const std::vector<std::string>& pad_names() {
    static const std::vector<std::string> n{"pow2", "crop", "none"};
    return n;
}
const std::vector<std::string>& pad_fill_names() {
    static const std::vector<std::string> n{"zero", "mean"};
    return n;
}
const std::vector<std::string>& window_names() {
    static const std::vector<std::string> n{"none", "hann", "hamming", "tukey"};
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

namespace {
template <class E>
const std::vector<std::string>& names_for();
template <>
const std::vector<std::string>& names_for<Backend>() { return backend_names(); }
template <>
const std::vector<std::string>& names_for<PadMode>() { return pad_names(); }
template <>
const std::vector<std::string>& names_for<PadFill>() { return pad_fill_names(); }
template <>
const std::vector<std::string>& names_for<Window>() { return window_names(); }
template <>
const std::vector<std::string>& names_for<Channel>() { return channel_names(); }
template <>
const std::vector<std::string>& names_for<View>() { return view_names(); }
template <>
const std::vector<std::string>& names_for<RangeMode>() { return range_names(); }
template <>
const std::vector<std::string>& names_for<Colormap>() { return colormap_names(); }
template <>
const std::vector<std::string>& names_for<gpu::CufftMode>() { return cufft_mode_names(); }
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

#define SPECVIEW_INSTANTIATE_NAMES(E)             \
    template const std::string& name_of<E>(E);     \
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
#undef SPECVIEW_INSTANTIATE_NAMES

}  // namespace specview
