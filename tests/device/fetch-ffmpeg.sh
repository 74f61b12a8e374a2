#!/usr/bin/env bash
# Puts FFmpeg (Debian 12's libavcodec/libavformat/libavutil/libswscale/libswresample) into .ffmpeg/ of this checkout
# (ignored by git), for the GPU machine, which has no FFmpeg and no apt: carry it with the device call
# (tests/device/run.sh unpacks it into /opt/extra). The libraries the GPU machine has already are left out
# (tests/device/gpu-machine-libs.txt), so it is ~38 MB: with .debs, .gl, .glad and the tree ~57 MiB of the 64 MiB a
# call may carry (not with .vkfft too). The full closure (54 MB) did not fit beside .debs.
#   .ffmpeg/*.deb         the -dev packages: headers, pkg-config files, the unversioned .so links (~3 MB)
#   .ffmpeg/runtime.tar.xz  the shared libraries those link against, with everything they load in turn (ldd on
#                         this machine), less glibc, libstdc++, libgcc and the GPU machine's own (~33 MB)
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
# Leave out what the GPU machine has (tests/device/gpu-machine-libs.txt) and what only those need: from the five
# libraries, follow DT_NEEDED through the staged files, stopping at the machine's.
python3 - "$stage/lib" "$top/tests/device/gpu-machine-libs.txt" <<'EOP'
import os, subprocess, sys
lib, have = sys.argv[1], {l.strip() for l in open(sys.argv[2]) if l.strip() and not l.startswith('#')}
files = set(os.listdir(lib))
def needed(f):
    out = subprocess.run(['readelf', '-d', os.path.join(lib, f)], capture_output=True, text=True).stdout
    return [l.split('[')[1].split(']')[0] for l in out.splitlines() if '(NEEDED)' in l]
keep, todo = set(), [f for f in files if f.split('.so')[0] in ('libavcodec', 'libavformat', 'libavutil', 'libswscale', 'libswresample')]
while todo:
    f = todo.pop()
    if f in keep: continue
    keep.add(f)
    todo += [n for n in needed(f) if n not in have and n in files]
for f in files - keep: os.remove(os.path.join(lib, f))
print(f'fetch-ffmpeg: {len(keep)} libraries kept, {len(files - keep)} left to the GPU machine', file=sys.stderr)
EOP
(cd "$stage" && tar -cf - lib | xz -9e -T"$(nproc)" > "$dir/runtime.tar.xz")
du -sh "$dir"/*.deb "$dir/runtime.tar.xz" | sort -h | tail -3
echo "fetch-ffmpeg: carry .ffmpeg ($(du -sh "$dir" | cut -f1))"
