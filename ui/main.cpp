// specview with the viewer: the composition root. The command line decides between the viewer and a headless
// run (a build without the viewer uses app/cli/main.cpp, the headless entry point, instead).
#include "app/cli/cli.h"
#include "app/core/huge_pages.h"
#include "ui/viewer.h"

int main(int argc, char** argv) {
    specview::use_huge_pages(argc, argv);  // (may start the program again, with huge pages asked for)
    return specview::cli_main(argc, argv, specview::ui::run_viewer);
}
