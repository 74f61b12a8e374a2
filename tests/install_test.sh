#!/usr/bin/env bash
# The installed program (cmake --install into a temporary prefix), run from another directory: --version, and a
# headless spectrum of a bundled sample, which needs the decoder helper found from the program's own path.
# usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
prefix=$(mktemp -d)
elsewhere=$(mktemp -d)
trap 'rm -rf "$prefix" "$elsewhere"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
cd "$elsewhere"
fail() { echo "install_test: $*" >&2; exit 1; }
[ -x "$prefix/bin/specview" ] || fail "no $prefix/bin/specview"
[ -x "$prefix/libexec/specview/specview-decoder" ] || fail "no decoder helper in libexec/specview"
[ -f "$prefix/share/specview/assets/disc.png" ] || fail "no bundled samples in share/specview/assets"
if find "$prefix" -path '*test*' | grep -q .; then fail "tests were installed: $(find "$prefix" -path '*test*' | head -3)"; fi
version=$("$prefix/bin/specview" --version)
[[ "$version" =~ ^specview\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version printed '$version'"
# The helper must come from the prefix, not the build folder: hide the build's helpers from the program.
SPECVIEW_DECODER= "$prefix/bin/specview" --headless "$prefix/share/specview/assets/disc.png" -o out.png > log.txt 2>&1 ||
  fail "headless run failed: $(cat log.txt)"
[ -s out.png ] || fail "no out.png"
file_helper=$(readlink -f "$prefix/libexec/specview/specview-decoder")
echo "install_test: ok ($version; $(wc -c < out.png) bytes; helper $file_helper)"
