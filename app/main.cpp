// specview: the composition root. The CLI decides between the viewer and a headless run.
#include "app/cli.h"

#ifdef SPECVIEW_HAS_UI
#include "ui/viewer.h"
#endif

int main(int argc, char** argv) {
#ifdef SPECVIEW_HAS_UI
    return specview::cli_main(argc, argv, specview::ui::run_viewer);
#else
    return specview::cli_main(argc, argv, nullptr);
#endif
}
