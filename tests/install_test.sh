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
# The manual and the completion: installed, well formed, and naming every option --help names.
man1="$prefix/share/man/man1/specview.1"
completion="$prefix/share/bash-completion/completions/specview"
[ -f "$man1" ] || fail "no man page"
[ -f "$completion" ] || fail "no bash completion"
if command -v groff > /dev/null; then
  warnings=$(groff -man -ww -z "$man1" 2>&1) || fail "groff: $warnings"
  [ -z "$warnings" ] || fail "groff warns: $warnings"
fi
if command -v man > /dev/null; then man -l "$man1" > man.txt 2> /dev/null || fail "man -l failed"; fi
bash -n "$completion" || fail "the completion is not valid bash"
for opt in $("$prefix/bin/specview" --help | grep -o -- '--[a-z0-9][a-z0-9-]*' | sort -u); do
  grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" "$man1" || fail "the man page lacks $opt"
  grep -q -- " $opt" "$completion" || fail "the completion lacks $opt"
done
got=$(bash -c "source '$completion'; COMP_WORDS=(specview --colormap in); COMP_CWORD=2; _specview; echo \${COMPREPLY[*]}")
[ "$got" = "inferno" ] || fail "completing --colormap in gave '$got'"
# The desktop: the menu entry and the metainfo valid, the icon at every size.
desktop="$prefix/share/applications/specview.desktop"
metainfo="$prefix/share/metainfo/io.github.specview.specview.metainfo.xml"
[ -f "$desktop" ] && [ -f "$metainfo" ] || fail "no desktop entry or metainfo"
if command -v desktop-file-validate > /dev/null; then
  out=$(desktop-file-validate "$desktop" 2>&1) || fail "desktop-file-validate: $out"
  [ -z "$out" ] || fail "desktop-file-validate: $out"
fi
if command -v appstreamcli > /dev/null; then
  out=$(appstreamcli validate --no-net "$metainfo" 2>&1) || fail "appstreamcli validate: $out"
fi
[ -f "$prefix/share/icons/hicolor/scalable/apps/specview.svg" ] || fail "no scalable icon"
python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" \
  "$prefix/share/icons/hicolor/scalable/apps/specview.svg" || fail "the SVG icon is not XML"
for n in 16 24 32 48 64 128 256; do
  [ -s "$prefix/share/icons/hicolor/${n}x${n}/apps/specview.png" ] || fail "no ${n}x${n} icon"
done
file_helper=$(readlink -f "$prefix/libexec/specview/specview-decoder")
echo "install_test: ok ($version; $(wc -c < out.png) bytes; helper $file_helper)"
