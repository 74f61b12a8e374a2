// libFuzzer target: the option parsing the scripted viewer uses (set OPTION VALUE...), one line an input.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

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
    return 0;
}
