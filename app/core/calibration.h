// A pixel's physical size: --pixel-size VALUE[UNIT], or what a file says (TIFF resolution, ImageJ's unit=, PNG pHYs),
// the option winning. Frequencies then read in cycles per unit besides cycles per pixel, periods in units.
#pragma once

#include <string>

namespace specview {

// The units --pixel-size takes: pm, A (angstrom), nm, um, mm, cm, m, in.
struct PixelSize {
    double value = 0;  // of `unit` a pixel; 0: not calibrated (pixels)
    std::string unit;  // one of the units above ("" when not calibrated)
    bool calibrated() const { return value > 0 && !unit.empty(); }
    double metres() const;  // a pixel's size in metres (0 when not calibrated)
};

// "0.5nm", "2.3 um", "1.2A", "0.1" (no unit: pixels, not calibrated). Returns "" and sets *out, or what is wrong.
std::string parse_pixel_size(const std::string& text, PixelSize* out);
// Metres in one of the units above, or 0 for an unknown name. Also takes the spellings files use: "micron", "µm",
// "um", "angstrom", "inch" (see unit_name).
double unit_metres(const std::string& unit);
// A unit name as a file may spell it (ImageJ's "micron", "µm", "\u00B5m", "nm", "inch", "cm") in our words ("um",
// "in"), or "" when it is none of them.
std::string unit_name(const std::string& unit);
// Whether a resolution of this many dots an inch is one an image editor or a scanner writes for printing or the
// screen (72, 96, 150, 300, 600 dpi, ...: within 0.5%): it says how large to print a photo, not how large its pixels
// were, so files carrying it are not calibrated by it (as ImageJ ignores 72 dpi).
bool is_print_dpi(double dots_per_inch);
// A size in metres as a PixelSize in the unit that shows it between 0.1 and 1000 (PNG's pHYs gives metres alone).
PixelSize pixel_size_from_metres(double metres);

}  // namespace specview
