// specview with the viewer: the composition root. The command line decides between the viewer and a headless
// run (a build without the viewer uses app/cli/main.cpp, the headless entry point, instead).
#include "app/cli/cli.h"
#include "ui/viewer.h"

int main(int argc, char** argv) { return specview::cli_main(argc, argv, specview::ui::run_viewer); }
