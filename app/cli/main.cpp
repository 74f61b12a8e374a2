// specview without the viewer (a build where GLFW/EGL, Dear ImGui or glad are missing): the command line and
// headless runs only. Builds with the viewer use ui/main.cpp.
#include "app/cli/cli.h"

int main(int argc, char** argv) { return specview::cli_main(argc, argv, nullptr); }
