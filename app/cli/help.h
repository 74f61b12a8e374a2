// --help as a reader wants it (every line within 100 columns, options grouped by task, choices listed in the words of
// the description rather than CLI11's validator dumps) and usage errors as specview's other messages are: prefixed
// "specview:", exit 2, a misspelt option answered with the closest one.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace specview {

constexpr int kHelpWidth = 100;  // columns of every --help line
constexpr int kHelpColumn = 30;  // where the descriptions start

// CLI11's formatter with the descriptions wrapped at kHelpWidth and each option's value shown as its type alone
// (TEXT, INT, FLOAT) with its default: the choices are in the description.
class HelpFormatter : public CLI::Formatter {
public:
    HelpFormatter();
    std::string make_option(const CLI::Option* opt, bool is_positional) const override;
    std::string make_option_opts(const CLI::Option* opt) const override;
    std::string make_footer(const CLI::App* app) const override;
    // The whole text: CLI11's parts, with one blank line between the groups (CLI11 puts two).
    std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
    std::string make_description(const CLI::App* app) const override;
};

// The option of `app` whose name is closest to `arg` ("--colourmap" -> "--colormap"), or "" when none is close
// (an edit distance within a third of its length, at least 2).
std::string closest_option(const CLI::App& app, const std::string& arg);

// What a CLI11 parse error becomes: --help and --version print as CLI11 does (exit 0); anything else is one line on
// stderr, "specview: ...", naming the closest option to an unknown one; returns the exit code (0 or 2).
int report_parse_error(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv);

}  // namespace specview
