// The bundled samples: the generated ones are what the generator writes, and specview --headless handles
// every one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/io/load/load.h"
#include "tests/support/temp_dir.h"

namespace specview::test {
namespace {

std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Assets, GeneratedSamplesMatchTheGenerator) {
    TempDir dir;
    ASSERT_EQ(std::system(
                  (std::string("'") + SPECVIEW_MAKE_ASSETS_EXE + "' '" + dir.path().string() + "' >/dev/null").c_str()),
              0);
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
        const std::string name = e.path().filename().string();
        EXPECT_EQ(slurp(e.path().string()), slurp(std::string(SPECVIEW_ASSETS_DIR) + "/" + name))
            << name << " differs from the committed asset: rerun specview-make-assets assets/";
        ++n;
    }
    EXPECT_GE(n, 6);
}

TEST(Assets, HeadlessWorksOnEverySample) {
    TempDir dir;
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(SPECVIEW_ASSETS_DIR)) {
        if (!has_image_extension(e.path().string())) continue;
        const std::string out = dir.file(e.path().stem().string() + ".png");
        const std::string cmd = std::string("'") + SPECVIEW_EXE + "' --headless '" + e.path().string() + "' -o '" +
                                out + "' >/dev/null 2>&1";
        EXPECT_EQ(std::system(cmd.c_str()), 0) << e.path();
        EXPECT_NO_THROW(load_image(out)) << out;
        ++n;
    }
    EXPECT_GE(n, 6);
}

}  // namespace
}  // namespace specview::test
