#!/usr/bin/env bash
# The Debian package (cpack -G DEB): its Depends found by dpkg-shlibdeps (Debian's runtime libraries, never CUDA's,
# which no Debian package holds), what it installs under /usr, and the program run from the unpacked package in
# another directory (the decoder helper found from its own path). SPECVIEW_TEST_APT=1 (root) also installs it with
# apt and removes it again, checking nothing is left behind.
# usage: package_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "package_test: $*" >&2; exit 1; }
command -v dpkg-deb > /dev/null || { echo "package_test: no dpkg-deb here: skipped"; exit 0; }
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" > "$out/cpack.log" 2>&1 || fail "cpack: $(tail -5 "$out/cpack.log")"
deb=$(ls "$out"/specview_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no specview_*_amd64.deb in $(ls "$out")"
depends=$(dpkg-deb -f "$deb" Depends)
# Each package by the library it provides. dpkg-shlibdeps names only the packages dpkg knows: on a machine whose
# library is no Debian package's (the GPU machine unpacks carried .debs; its libstdc++ came with the image), that
# package cannot be named, and is not checked there (said).
declare -A soname=([libc6]=libc.so.6 [libstdc++6]=libstdc++.so.6 [libfftw3-single3]=libfftw3f.so.3
                   [libspng0]=libspng.so.0 [libtiff6]=libtiff.so.6 [libjpeg62-turbo]=libjpeg.so.62
                   [libseccomp2]=libseccomp.so.2)
for lib in libc6 libstdc++6 libfftw3-single3 libspng0 libtiff6 libjpeg62-turbo libseccomp2; do
  [[ "$depends" == *"$lib"* ]] && continue
  path=$(ldd "$build/specview" "$build/specview-decoder" 2>/dev/null | awk -v s="${soname[$lib]}" '$1 == s {print $3; exit}')
  if [ -n "$path" ] && ! dpkg -S "$path" > /dev/null 2>&1 && ! dpkg -S "$(readlink -f "$path")" > /dev/null 2>&1; then
    echo "package_test: $lib not checked: this machine's ${soname[$lib]} ($path) is no Debian package's"
    continue
  fi
  fail "Depends lacks $lib: $depends (${soname[$lib]} here: ${path:-not linked}, $(dpkg -S "${path:-none}" 2>&1 | head -1))"
done
[[ "$depends" != *cuda* && "$depends" != *cufft* ]] || fail "Depends names a CUDA package Debian lacks: $depends"
[ "$(dpkg-deb -f "$deb" Package)" = specview ] || fail "the package is not named specview"
files=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/specview ./usr/libexec/specview/specview-decoder ./usr/share/man/man1/specview.1 \
         ./usr/share/applications/specview.desktop ./usr/share/bash-completion/completions/specview \
         ./usr/share/specview/assets/disc.png ./usr/share/icons/hicolor/scalable/apps/specview.svg; do
  grep -qx -- "$f" <<< "$files" || fail "the package lacks $f"
done
if grep -q test <<< "$files"; then fail "tests in the package: $(grep test <<< "$files" | head -3)"; fi
root="$out/root"
dpkg-deb -x "$deb" "$root"
cd "$out"
version=$("$root/usr/bin/specview" --version)
[[ "$version" =~ ^specview\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version printed '$version'"
SPECVIEW_DECODER= "$root/usr/bin/specview" --headless "$root/usr/share/specview/assets/disc.png" -o out.png > log.txt 2>&1 ||
  fail "headless run failed: $(cat log.txt)"
[ -s out.png ] || fail "no out.png"
# The viewer from the package opens an image (where there is a display: CI runs the tests under xvfb-run).
if [ -n "${DISPLAY:-}" ]; then
  "$root/usr/bin/specview" --frames 4 --screenshot shot.png --geometry 800x600 \
    "$root/usr/share/specview/assets/disc.png" > view.txt 2>&1 || fail "the viewer failed: $(tail -3 view.txt)"
  [ -s shot.png ] || fail "the viewer's screenshot is missing"
fi
if [ "${SPECVIEW_TEST_APT:-0}" = 1 ]; then
  apt-get install -y -qq "$deb" > apt.log 2>&1 || fail "apt install: $(tail -3 apt.log)"
  /usr/bin/specview --version > /dev/null || fail "the installed program does not run"
  apt-get remove -y -qq specview > apt.log 2>&1 || fail "apt remove: $(tail -3 apt.log)"
  left=$(ls -d /usr/bin/specview /usr/libexec/specview /usr/share/specview 2> /dev/null || true)
  [ -z "$left" ] || fail "left behind: $left"
fi
echo "package_test: ok ($(basename "$deb"), $(du -k "$deb" | cut -f1) KB; Depends: $(tr -d '\n' <<< "$depends" | cut -c1-80)...)"
