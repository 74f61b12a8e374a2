#!/usr/bin/env bash
# The README's screenshots, taken by the scripted viewer at 1280x800 on its defaults (run under a display: here
# `xvfb-run -a -s "-screen 0 1600x1000x24" assets/screenshots/make.sh`). Look at each before committing it.
#   assets/screenshots/make.sh [BUILD_DIR=build]
set -eu
B=${1:-build}
A=assets
O=assets/screenshots
S=$(mktemp)
trap 'rm -f "$S"' EXIT
# shot NAME 'SCRIPT LINES' ARGS...: the window after the script's lines, as $O/NAME.png.
shot() {
  local name=$1 lines=$2
  shift 2
  printf 'wait-ready\n%b\nwait 4\nscreenshot %s\nquit\n' "$lines" "$O/$name.png" > "$S"
  "$B/specview" --script "$S" --geometry 1280x800 "$@"
  rm -f "$O/$name.png.txt"
  echo "$O/$name.png: $(du -k "$O/$name.png" | cut -f1) KB"
}
shot viewer 'hover 64 32' "$A/screened.png"
shot classroom '' --classroom --step 4 "$A/grating_16_8.png"
shot lab-notch 'hover 64 32' "$A/screened.png" --filter notch:0.125:0.0625:0.01
shot lab-scanlines 'set lab-view removed\nanalysis on\nwait-ready' "$A/surface.png" --filter stripe:90:0.003:0.01
shot presentation 'hover 64 32' --presentation "$A/screened.png"
