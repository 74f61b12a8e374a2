// The manual page and the bash completion, made from the same option table as --help (add_options), so that they
// cannot drift from it: `specview --print-man` and `specview --print-bash-completion` print them (hidden options;
// the build writes their output for `cmake --install`).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace specview {

// specview(1) in roff: synopsis, every option by group with its values and default, exit status, examples, files.
std::string man_page(const CLI::App& app, const std::string& version);
// A bash completion script: every option; the fixed values of those that have them (--backend, --colormap, ...);
// file names elsewhere.
std::string bash_completion(const CLI::App& app);

}  // namespace specview
