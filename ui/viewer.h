// The viewer's entry point: a window with the image and its spectrum, live panels, classroom mode.
#pragma once

#include "app/cli/cli.h"

namespace specview::ui {

// Returns the process exit code (0 after the window closes; kExitUsage when no window can be opened).
int run_viewer(const ViewerLaunch& launch);

}  // namespace specview::ui
