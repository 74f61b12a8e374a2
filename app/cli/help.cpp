#include "app/cli/help.h"

#include <algorithm>
#include <iostream>
#include <sstream>
#include <vector>

#include "app/cli/cli.h"  // kExit*

namespace specview {

namespace {

// `text` wrapped at `width` columns, each line after the first indented by `indent` spaces; its own newlines kept.
std::string wrap(const std::string& text, std::size_t first_room, std::size_t indent, std::size_t width) {
    std::string out, line;
    std::size_t room = first_room;
    auto flush = [&] {
        out += line;
        line.clear();
    };
    std::istringstream paragraphs(text);
    std::string para;
    bool first_para = true;
    while (std::getline(paragraphs, para)) {
        if (!first_para) {
            flush();
            out += "\n" + std::string(indent, ' ');
            room = width - indent;
        }
        first_para = false;
        std::istringstream words(para);
        std::string word;
        std::size_t used = 0;
        while (words >> word) {
            if (used > 0 && used + 1 + word.size() > room) {
                flush();
                out += "\n" + std::string(indent, ' ');
                room = width - indent;
                used = 0;
            }
            if (used > 0) {
                line += ' ';
                ++used;
            }
            line += word;
            used += word.size();
        }
    }
    flush();
    return out;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

HelpFormatter::HelpFormatter() { column_width(kHelpColumn); }

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
    std::string out;
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    if (opt->get_type_size() == 0) return out;  // a flag
    std::string type = opt->get_type_name();
    type = type.substr(0, type.find(':'));  // TEXT:{a,b} -> TEXT, INT:INT in [1 - 9] -> INT
    if (!type.empty()) out += " " + type;
    if (!opt->get_default_str().empty()) out += "=" + opt->get_default_str();
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    return out;
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
    const std::string left = "  " + make_option_name(opt, is_positional) + make_option_opts(opt);
    const std::string desc = make_option_desc(opt);
    const std::size_t col = get_column_width();
    std::string out = left;
    if (desc.empty()) return out + "\n";
    if (left.size() + 1 >= col)
        out += "\n" + std::string(col, ' ');
    else
        out += std::string(col - left.size(), ' ');
    return out + wrap(desc, kHelpWidth - col, col, kHelpWidth) + "\n";
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
    return wrap(app->get_description(), kHelpWidth, 0, kHelpWidth) + "\n";
}

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
    std::string out = make_description(app) + make_usage(app, name) + make_positionals(app);
    for (const std::string& group : app->get_groups()) {
        const std::vector<const CLI::Option*> opts =
            app->get_options([&](const CLI::Option* opt) { return opt->get_group() == group && opt->nonpositional(); });
        if (!group.empty() && !opts.empty()) out += make_group(group, false, opts);
    }
    (void)mode;                     // (no subcommands)
    return out + make_footer(app);  // (the footer starts with its blank line)
}

std::string HelpFormatter::make_footer(const CLI::App* app) const { return app->get_footer() + "\n"; }

std::string closest_option(const CLI::App& app, const std::string& arg) {
    const std::string name = arg.substr(0, arg.find('='));
    std::string best;
    std::size_t best_d = std::string::npos;
    for (const CLI::Option* opt : app.get_options()) {
        if (opt->get_group().empty()) continue;  // the hidden ones
        for (const std::string& l : opt->get_lnames()) {
            const std::string candidate = "--" + l;
            const std::size_t d = edit_distance(name, candidate);
            if (d < best_d) {
                best_d = d;
                best = candidate;
            }
        }
    }
    const std::size_t allowed = std::max<std::size_t>(2, name.size() / 3);
    return best_d <= allowed ? best : std::string();
}

int report_parse_error(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
        // Name the first long option CLI11 does not know, and the closest one it does.
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--") break;
            if (a.rfind("--", 0) != 0 || a.size() < 3) continue;
            const std::string name = a.substr(0, a.find('='));
            bool known = false;
            for (const CLI::Option* opt : app.get_options())
                if (opt->check_lname(name.substr(2))) known = true;
            if (known) continue;
            const std::string near = closest_option(app, name);
            std::cerr << "specview: unknown option " << name;
            if (near.empty())
                std::cerr << " (specview --help lists the options)\n";
            else
                std::cerr << "; did you mean " << near << "?\n";
            return kExitUsage;
        }
    }
    std::cerr << "specview: " << e.what() << " (specview --help lists the options)\n";
    return kExitUsage;
}

}  // namespace specview
