// Writes the seed corpus (tests/fuzz/seeds/image): a small file of every format and depth the loader reads.
//   specview-make-fuzz-seeds DIR
#include <cmath>
#include <cstdio>
#include <string>

#include "tests/fixtures/image_writers.h"

using namespace specview::fixtures;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const std::string d = std::string(argv[1]) + "/";
    const Pixels g = pattern(7, 5, 1), ga = pattern(6, 5, 2), rgb = pattern(9, 6, 3), rgba = pattern(5, 7, 4);
    write_file(d + "gray8.png", png(g, 8));
    write_file(d + "ga16.png", png(ga, 16));
    write_file(d + "rgb8.png", png(rgb, 8));
    write_file(d + "rgba16.png", png(rgba, 16));
    std::vector<std::uint8_t> pal(3 * 4), idx(6 * 4);
    for (std::size_t i = 0; i < pal.size(); ++i) pal[i] = std::uint8_t(i * 20);
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = std::uint8_t(i % 4);
    write_file(d + "palette.png", png_palette(6, 4, idx, pal));
    write_file(d + "gray8.pgm", pnm(g, 8));
    write_file(d + "rgb16.ppm", pnm(rgb, 16));
    write_file(d + "rgb8.psd", psd(rgb, 8));
    write_file(d + "rgba16.psd", psd(rgba, 16));
    write_file(d + "rgba8-rle.psd", psd(rgba, 8, true));
    write_file(d + "a.gif", gif(6, 4, idx, pal));
    write_file(d + "animated.gif",
               gif_animated(6, 4, {idx, std::vector<std::uint8_t>(idx.rbegin(), idx.rend()), idx}, pal, 10));
    write_file(d + "rgb.bmp", bmp(rgb));
    write_file(d + "rgba.tga", tga(rgba, false));
    write_file(d + "rgb-rle.tga", tga(rgb, true));
    write_file(d + "rgb.jpg", jpeg(rgb, 80));
    write_file(d + "gray-progressive.jpg", jpeg_progressive(pattern(16, 16, 1), 80));
    write_file(d + "cmyk.jpg", jpeg_cmyk(pattern(8, 8, 3), 80));
    write_file(d + "rgb.hdr", hdr(rgb));
    // TIFF (libtiff) and .npy: a few sample formats, layouts and orders; stacks.
    auto raw = [](const Pixels& p, double scale, double offset) {
        std::vector<double> v(p.v.size());
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::floor(p.v[i] * scale) + offset;
        return v;
    };
    TiffOptions t16;
    t16.sample = TiffSample::U16;
    t16.compression = 5;
    write_file(d + "gray16-lzw.tif", tiff(g.width, g.height, 1, {raw(g, 65535, 0)}, t16));
    TiffOptions tf;
    tf.sample = TiffSample::F32;
    tf.tiled = true;
    tf.compression = 8;
    tf.big_endian = true;
    write_file(d + "rgb-f32-tiled-be.tif", tiff(rgb.width, rgb.height, 3, {raw(rgb, 1000, -300)}, tf));
    TiffOptions ts;
    ts.sample = TiffSample::I16;
    ts.separate = true;
    ts.alpha = true;
    write_file(d + "rgba-i16-planes-2pages.tif",
               tiff(rgba.width, rgba.height, 4, {raw(rgba, 30000, -9000), raw(rgba, 100, 0)}, ts));
    write_file(d + "palette.tif", tiff_palette(6, 4, idx, pal));
    write_file(d + "f8-fortran.npy", npy("<f8", {5, 7}, true, raw(g, 1, 0.25)));
    write_file(d + "u2-be-stack.npy", npy(">u2", {2, 5, 7}, false, [&] {
                   std::vector<double> v = raw(g, 65535, 0), w = raw(g, 300, 0);
                   v.insert(v.end(), w.begin(), w.end());
                   return v;
               }()));
    return 0;
}
