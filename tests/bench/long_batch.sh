#!/usr/bin/env bash
# Memory and throughput over a long batch (issue "Beyond one machine"): N links to one small 256^2 PNG through
# `specview --headless DIR -o OUT --timings`, against a 1,000-image batch of the same in the same run. Prints both
# batches' images/s and the peak resident memory after the first 1,000 images and at the end.
#   tests/bench/long_batch.sh BUILD_DIR [N=100000] [BACKEND=cpu]
set -euo pipefail
build=$(cd "$1" && pwd)
n=${2:-100000}
backend=${3:-cpu}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/one.png" <<'EOP'
import struct, sys, zlib
w = h = 256
raw = b"".join(b"\0" + bytes(((x // 32 + y // 32) % 2) * 128 + 64 for x in range(w)) for y in range(h))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
EOP
for size in 1000 "$n"; do
  mkdir -p "$work/in-$size"
  for ((k = 0; k < size; ++k)); do ln -s ../one.png "$(printf '%s/in-%s/img%07d.png' "$work" "$size" "$k")"; done
  echo "== $size images, --backend $backend"
  "$build/specview" --headless "$work/in-$size" -o "$work/out-$size" --backend "$backend" --timings 2> /dev/null |
    grep -E "^batch:|peak resident memory"
  rm -rf "$work/out-$size" "$work/in-$size"
done
