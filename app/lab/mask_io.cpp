#include "app/lab/mask_io.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "app/lab/filter.h"
#include "app/io/png_write.h"

namespace specview {

std::string mask_description_path(const std::string& png_path) {
    return std::filesystem::path(png_path).replace_extension(".txt").string();
}

void save_mask(const std::string& png_path, const std::vector<FilterSpec>& filters,
               const std::vector<BrushStroke>& strokes, bool invert, int width, int height, int threads) {
    if (width < 1 || height < 1) throw std::runtime_error(png_path + ": no transform size for the mask (no image)");
    const std::vector<std::uint8_t> pic = mask_picture(filters, strokes, invert, width, height, threads);
    PicturePixels px;
    px.levels = pic.data();
    px.level_bytes = 1;
    write_picture_png(png_path, px, width, height, PngColor::Gray);
    const std::string txt = mask_description_path(png_path);
    const std::string tmp = txt + ".part";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << mask_text(filters, strokes, invert);
        out << "# made for a " << width << "x" << height << " transform; " << png_path
            << " shows it (255 = kept), DC at the centre\n";
        if (!out.flush()) throw std::runtime_error(txt + ": cannot write the mask's description");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, txt, ec);
    if (ec) throw std::runtime_error(txt + ": cannot write the mask's description (" + ec.message() + ")");
}

std::string load_mask(const std::string& path, std::vector<FilterSpec>* filters, std::vector<BrushStroke>* strokes,
                      bool* invert) {
    // A mask saved with its picture is loaded from its description (exact), whichever of the two is named.
    std::string txt = path;
    if (std::filesystem::path(path).extension() == ".png") txt = mask_description_path(path);
    std::ifstream in(txt, std::ios::binary);
    if (!in) return txt + ": cannot read the mask description";
    std::string text;
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, std::size_t(in.gcount()));
        if (text.size() > (std::size_t(64) << 20)) return txt + ": over 64 MiB: not a mask description";
    }
    if (text.find('\0') != std::string::npos) return txt + ": not a text file (a mask description is lines of text)";
    const std::string err = parse_mask_text(text, filters, strokes, invert);
    return err.empty() ? "" : txt + ": " + err;
}

}  // namespace specview
