// specview without the viewer (a build where GLFW/EGL, Dear ImGui or glad are missing): the command line and
// headless runs only. Builds with the viewer use ui/main.cpp.
#include "app/cli/cli.h"
#include "app/core/huge_pages.h"

int main(int argc, char** argv) {
    specview::use_huge_pages(argc, argv);  // (may start the program again, with huge pages asked for)
    return specview::cli_main(argc, argv, nullptr);
}
