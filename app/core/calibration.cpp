#include "app/core/calibration.h"

#include <cmath>
#include <cstdlib>

namespace specview {

namespace {
struct UnitRow {
    const char* name;
    double metres;
};
constexpr UnitRow kUnits[] = {{"pm", 1e-12}, {"A", 1e-10}, {"nm", 1e-9}, {"um", 1e-6},
                              {"mm", 1e-3},  {"cm", 1e-2}, {"m", 1.0},   {"in", 0.0254}};
}  // namespace

std::string unit_name(const std::string& unit) {
    for (const UnitRow& u : kUnits)
        if (unit == u.name) return u.name;
    if (unit == "micron" || unit == "microns" || unit == "\xC2\xB5m" || unit == "\xCE\xBCm" || unit == "um")
        return "um";
    if (unit == "angstrom" || unit == "Angstrom" || unit == "\xC3\x85" || unit == "\xE2\x84\xAB") return "A";
    if (unit == "inch" || unit == "inches") return "in";
    if (unit == "nanometer" || unit == "nanometre") return "nm";
    if (unit == "millimeter" || unit == "millimetre") return "mm";
    if (unit == "centimeter" || unit == "centimetre") return "cm";
    if (unit == "meter" || unit == "metre") return "m";
    return "";
}

double unit_metres(const std::string& unit) {
    const std::string n = unit_name(unit);
    for (const UnitRow& u : kUnits)
        if (n == u.name) return u.metres;
    return 0;
}

double PixelSize::metres() const { return calibrated() ? value * unit_metres(unit) : 0.0; }

std::string parse_pixel_size(const std::string& text, PixelSize* out) {
    const char* s = text.c_str();
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (end == s || !std::isfinite(v) || v <= 0)
        return "--pixel-size " + text + ": a positive number, then a unit (pm, A, nm, um, mm, cm, m, in), e.g. 0.5nm";
    std::string unit = end;
    while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
    PixelSize p;
    if (!unit.empty()) {
        bool ours = false;
        for (const UnitRow& u : kUnits) ours = ours || unit == u.name;
        if (!ours) return "--pixel-size " + text + ": unknown unit '" + unit + "' (pm, A, nm, um, mm, cm, m, in)";
        p.value = v;
        p.unit = unit;
    }
    *out = p;  // (a bare number: pixels, not calibrated)
    return "";
}

PixelSize pixel_size_from_metres(double metres) {
    PixelSize p;
    if (!(metres > 0) || !std::isfinite(metres)) return p;
    for (const char* name : {"pm", "nm", "um", "mm", "m"}) {
        const double v = metres / unit_metres(name);
        if (v < 1000.0 || std::string(name) == "m") {
            p.value = v;
            p.unit = name;
            return p;
        }
    }
    return p;
}

bool is_print_dpi(double dpi) {
    static const double kPrint[] = {72, 96, 100, 120, 144, 150, 180, 200, 240, 250, 300, 350, 360, 400, 600, 720, 800, 1200,
                                    1600, 2400, 3200, 4800};
    for (double p : kPrint)
        if (std::abs(dpi - p) <= 0.005 * p) return true;
    return false;
}

}  // namespace specview
