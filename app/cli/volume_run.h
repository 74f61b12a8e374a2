// --volume through the command line: a stack's frames streamed into one volume (app/volume), its 3D spectrum on the
// CPU, and the outputs: --raw (complex64, (depth, height, width), numpy's fftn), -o (a slice or a projection through
// the shifted spectrum), --profile shell (the spherically averaged power).
#pragma once

#include "app/cli/stack.h"

namespace specview {

// Returns the exit code.
int run_volume(const StackRun& r);

}  // namespace specview
