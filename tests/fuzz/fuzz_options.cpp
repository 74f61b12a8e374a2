// libFuzzer target: the option parsing the scripted viewer uses (set OPTION VALUE...), one line an input; filter
// specs and brush dabs included (their masks must stay in [0, 1]); and the whole input as a mask description
// (--mask), which must read back the same after printing.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "app/lab/filter.h"
#include "app/core/settings.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    std::vector<std::string> words;
    std::string w;
    while (in >> w) words.push_back(w);
    if (words.empty()) return 0;
    specview::Settings s;
    const std::string err = specview::set_option(s, words[0], {words.begin() + 1, words.end()});
    (void)specview::option_steps(words[0]);
    if (err.empty() && !(s.tukey_alpha >= 0 && s.tukey_alpha <= 1)) __builtin_trap();
    // A filter that was accepted gives a mask in [0, 1] everywhere and prints back as the same filter.
    for (const specview::FilterSpec& f : s.filters) {
        for (int k = 0; k < 25; ++k) {
            const float m = specview::mask_value(&f, 1, k % 5 * 3, k / 5 * 2, 15, 8);
            if (!(m >= 0.0f && m <= 1.0f)) __builtin_trap();
        }
        specview::FilterSpec g;
        if (!specview::parse_filter(specview::filter_text(f), &g).empty() || !(g == f)) __builtin_trap();
    }
    if (!s.strokes.empty()) {  // a dab that was accepted stamps within the layer and prints back the same
        std::vector<float> layer(15 * 8, 1.0f);
        specview::stamp_strokes(s.strokes.data(), s.strokes.size(), 15, 8, layer.data());
        for (float v : layer)
            if (v != 0.0f && v != 1.0f) __builtin_trap();
        for (const specview::BrushStroke& d : s.strokes) {
            std::istringstream t(specview::stroke_text(d));
            std::vector<std::string> tw;
            for (std::string x; t >> x;) tw.push_back(x);
            specview::BrushStroke e;
            if (tw.size() != 4 || !specview::parse_stroke({tw.begin() + 1, tw.end()}, tw[0] == "erase", &e).empty() ||
                !(e == d))
                __builtin_trap();
        }
    }
    std::vector<specview::FilterSpec> fs, fs2;
    std::vector<specview::BrushStroke> bs, bs2;
    bool inv = false, inv2 = false;
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (specview::parse_mask_text(text, &fs, &bs, &inv).empty()) {
        if (!specview::parse_mask_text(specview::mask_text(fs, bs, inv), &fs2, &bs2, &inv2).empty() || fs != fs2 ||
            bs != bs2 || inv != inv2)
            __builtin_trap();
    }
    return 0;
}
