// libFuzzer target: the option parsing the scripted viewer uses (set OPTION VALUE...), one line an input; filter
// specs included (their masks must stay in [0, 1]).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "app/filter.h"
#include "app/settings.h"

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
    return 0;
}
