#include "app/cli/manual.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <sstream>

#include "app/cli/shared.h"

namespace specview {

namespace {

// The values an option takes when they are a fixed list (CLI11 writes IsMember's as "TYPE:{a,b,c}"), else none.
std::vector<std::string> fixed_values(const CLI::Option& o) {
    const std::string t = o.get_type_name();
    const std::size_t a = t.find(":{"), b = t.rfind('}');
    std::vector<std::string> out;
    if (a == std::string::npos || b == std::string::npos || b < a) return out;
    std::stringstream list(t.substr(a + 2, b - a - 2));
    for (std::string v; std::getline(list, v, ',');) out.push_back(v);
    return out;
}

// Text for roff: backslashes and hyphens escaped, a leading '.' or '\'' kept from being a request.
std::string roff(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '\\')
            o += "\\e";
        else if (c == '-')
            o += "\\-";
        else
            o += c;
    }
    if (!o.empty() && (o[0] == '.' || o[0] == '\'')) o = "\\&" + o;
    return o;
}

std::string names_of(const CLI::Option& o) {
    std::string n;
    for (const auto& s : o.get_snames()) n += (n.empty() ? "-" : ", -") + s;
    for (const auto& l : o.get_lnames()) n += (n.empty() ? "--" : ", --") + l;
    return n;
}

// The options in --help's order, the positional and help/version left out.
std::vector<const CLI::Option*> options_of(const CLI::App& app) {
    std::vector<const CLI::Option*> out;
    for (const CLI::Option* o : app.get_options())
        if ((!o->get_lnames().empty() || !o->get_snames().empty()) && !o->get_group().empty()) out.push_back(o);
    return out;
}

}  // namespace

std::string man_page(const CLI::App& app, const std::string& version) {
    std::ostringstream m;
    m << ".TH SPECVIEW 1 \"\" \"specview " << version << "\" \"User Commands\"\n"
      << ".SH NAME\nspecview \\- the 2D Fourier spectrum of an image, live in a window or written without one\n"
      << ".SH SYNOPSIS\n.B specview\n[\\fIOPTIONS\\fR] [\\fIIMAGE\\fR...]\n.br\n.B specview \\-\\-headless\n"
      << "[\\fIOPTIONS\\fR] \\fIIMAGE\\fR|\\fIDIR\\fR... [\\fB\\-o\\fR \\fIOUT\\fR]\n"
      << ".SH DESCRIPTION\n";
    std::istringstream desc(app.get_description());
    for (std::string line; std::getline(desc, line);) m << roff(line) << "\n";
    m << ".PP\nWithout \\fB\\-\\-headless\\fR specview opens the viewer on the images given (or a bundled sample). "
      << "Every option of this page is generated from the same table as \\fB\\-\\-help\\fR.\n";
    m << ".SH OPTIONS\n";
    std::vector<std::string> groups;
    for (const CLI::Option* o : options_of(app))
        if (std::find(groups.begin(), groups.end(), o->get_group()) == groups.end()) groups.push_back(o->get_group());
    for (const std::string& g : groups) {
        if (g != "Options") m << ".SS " << roff(g) << "\n";
        for (const CLI::Option* o : options_of(app)) {
            if (o->get_group() != g) continue;
            m << ".TP\n\\fB" << roff(names_of(*o)) << "\\fR";
            std::string type = o->get_type_name();
            type = type.substr(0, type.find(':'));
            if (o->get_type_size() != 0 && !type.empty()) {
                const std::vector<std::string> values = fixed_values(*o);
                m << " \\fI"
                  << roff(values.empty() ? type
                                         : "{" +
                                               [&] {
                                                   std::string j;
                                                   for (const auto& v : values) j += (j.empty() ? "" : "|") + v;
                                                   return j;
                                               }() +
                                               "}")
                  << "\\fR";
            }
            m << "\n" << roff(o->get_description());
            if (!o->get_default_str().empty()) m << " (default: " << roff(o->get_default_str()) << ")";
            m << "\n";
        }
    }
    m << ".SH EXIT STATUS\n";
    std::istringstream codes(kExitCodesHelp);
    std::string line;
    std::getline(codes, line);  // "Exit codes:"
    while (std::getline(codes, line)) {
        const std::size_t start = line.find_first_not_of(' ');
        if (start == std::string::npos) continue;
        m << ".TP\n.B " << roff(line.substr(start, 1)) << "\n"
          << roff(line.substr(line.find_first_not_of(' ', start + 1))) << "\n";
    }
    m << ".SH EXAMPLES\n";
    std::istringstream footer(app.get_footer());
    while (std::getline(footer, line)) {
        const std::size_t start = line.find("specview ");
        if (start == std::string::npos) continue;
        const std::size_t gap = line.find("  ", start);
        m << ".TP\n.B " << roff(line.substr(start, gap == std::string::npos ? std::string::npos : gap - start)) << "\n";
        if (gap != std::string::npos) m << roff(line.substr(line.find_first_not_of(' ', gap))) << "\n";
    }
    m << ".SH FILES\n.TP\n.I PREFIX/libexec/specview/\nthe sandboxed decoder helpers and the GPU video module\n"
      << ".TP\n.I PREFIX/share/specview/assets/\nthe bundled sample images\n"
      << ".TP\n.I ~/.cache/specview/\nFFTW's wisdom (\\fB\\-\\-fftw\\-measure\\fR); gl/: the GL backend's compiled programs "
         "(SPECVIEW_NO_GL_CACHE=1: none)\n";
    return m.str();
}

std::string bash_completion(const CLI::App& app) {
    std::ostringstream b;
    std::string all;
    b << "# bash completion for specview (generated from its option table; do not edit)\n"
      << "_specview() {\n"
      << "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
      << "    case \"$prev\" in\n";
    for (const CLI::Option* o : options_of(app)) {
        std::string names;
        for (const auto& s : o->get_snames()) names += (names.empty() ? "-" : "|-") + s, all += " -" + s;
        for (const auto& l : o->get_lnames()) names += (names.empty() ? "--" : "|--") + l, all += " --" + l;
        if (o->get_type_size() == 0 || o->get_type_name().empty()) continue;  // a flag: the next word is anything
        const std::vector<std::string> values = fixed_values(*o);
        if (values.empty()) {
            b << "        " << names << ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
        } else {
            std::string words;
            for (const auto& v : values) words += (words.empty() ? "" : " ") + v;
            b << "        " << names << ") COMPREPLY=($(compgen -W \"" << words << "\" -- \"$cur\")); return ;;\n";
        }
    }
    b << "    esac\n"
      << "    if [[ \"$cur\" == -* ]]; then\n"
      << "        COMPREPLY=($(compgen -W \"" << all.substr(1) << "\" -- \"$cur\"))\n"
      << "    else\n"
      << "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      << "    fi\n"
      << "}\n"
      << "complete -o filenames -F _specview specview\n";
    return b.str();
}

}  // namespace specview
