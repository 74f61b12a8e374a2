#!/usr/bin/env bash
# Puts FFmpeg (Debian 12's libavcodec/libavformat/libavutil/libswscale/libswresample) into .ffmpeg/ of this checkout
# (ignored by git), for the GPU machine, which has no FFmpeg and no apt: carry it with the device call
# (tests/device/run.sh unpacks it into /opt/extra). With .debs, .gl and .glad it comes to 63.3 MiB of the 64 MiB
# a call may carry: leave .vkfft out of that call (all five are 64.9 MiB).
# Not tried on the GPU machine yet. Its libraries shadow the machine's own of the same names under run.sh's
# LD_LIBRARY_PATH (zlib, libcrypto, ...): if a tool there breaks, exclude those below and rely on the machine's.
#   .ffmpeg/*.deb         the -dev packages: headers, pkg-config files, the unversioned .so links (~3 MB)
#   .ffmpeg/runtime.tar.xz  the shared libraries those link against, with everything they load in turn (ldd on
#                         this machine), less glibc, libstdc++ and libgcc, which the GPU machine has newer (~47 MB)
# Debian's whole package closure is ~200 packages / 121 MiB, over the carry limit (64 MiB with the rest); the
# libraries alone, xz-compressed, fit. Run here (Debian 12, after ./setup.sh, which installs FFmpeg's -dev packages).
set -euo pipefail
top=$(git rev-parse --show-toplevel)
dir="$top/.ffmpeg"
grep -qxF "/.ffmpeg/" "$top/.gitignore" || { echo "fetch-ffmpeg: .ffmpeg/ is not in .gitignore" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir" /tmp/amd64/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
apt-get $o update >/dev/null
(cd "$dir" && apt-get $o download libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libswresample-dev >/dev/null)
libs=/usr/lib/x86_64-linux-gnu
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib"
for l in "$libs"/libavcodec.so.* "$libs"/libavformat.so.* "$libs"/libavutil.so.* "$libs"/libswscale.so.* "$libs"/libswresample.so.*; do
    [ -L "$l" ] && continue  # the real files, once each
    echo "$l"
    ldd "$l" | awk '{print $3}' | grep '^/'
done | sort -u | grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so|/ld-linux' |
    while read -r f; do
        cp -L "$f" "$stage/lib/$(basename "$f")"
        # The soname too, when the file's own name differs (libfoo.so.1 -> libfoo.so.1.2.3).
        soname=$(objdump -p "$f" 2>/dev/null | awk '/SONAME/ {print $2}')
        if [ -n "$soname" ] && [ "$soname" != "$(basename "$f")" ]; then ln -sf "$(basename "$f")" "$stage/lib/$soname"; fi
    done
(cd "$stage" && tar -cf - lib | xz -9 -T"$(nproc)" > "$dir/runtime.tar.xz")
du -sh "$dir"/*.deb "$dir/runtime.tar.xz" | sort -h | tail -3
echo "fetch-ffmpeg: carry .ffmpeg ($(du -sh "$dir" | cut -f1))"
