#!/usr/bin/env bash
# --volume on the CPU against numpy (issue 61): a random uint16 volume as a multi-page TIFF (the issue's target; a 3D
# .npy where Python's tifffile is missing) -> the shell profile CSV and the kx-ky slice PNG, whole process, against a
# numpy + tifffile script doing the same (read, fftn, shift, log1p, the slice, spherical binning with bincount) on the
# same file in the same run; the median of REPS runs each, and peak resident memory.
#   tests/bench/volume_cpu.sh BUILD_DIR [REPS=3] [SIZES="128x128x128 256x256x256"]
set -u
B=${1:?build dir}; REPS=${2:-3}; SIZES=${3:-128x128x128 256x256x256}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
PY=/usr/bin/python3
$PY -c "import numpy, PIL" 2>/dev/null || { echo "volume_cpu: numpy and PIL are needed for the peer"; exit 0; }
cat > "$W/np_volume.py" <<'EOP'
import sys, numpy as np
from PIL import Image
try:
    import tifffile
except ImportError:
    tifffile = None
v = (tifffile.imread(sys.argv[1]) if sys.argv[1].endswith(".tif") else np.load(sys.argv[1])).astype(np.float32)
F = np.fft.fftn(v)
L = np.log1p(np.abs(np.fft.fftshift(F)))
sl = L[L.shape[0] // 2]
sl = (sl - sl.min()) / (sl.max() - sl.min())
Image.fromarray((sl * 255).astype(np.uint8)).save(sys.argv[2])
d, h, w = v.shape
fz, fy, fx = np.meshgrid(np.fft.fftfreq(d), np.fft.fftfreq(h), np.fft.fftfreq(w), indexing="ij")
r = np.rint(np.sqrt(fx**2 + fy**2 + fz**2) * max(d, h, w)).astype(np.int64).ravel()
p = (np.abs(F) ** 2).ravel() / v.size
s = np.bincount(r, weights=p); c = np.bincount(r)
np.savetxt(sys.argv[3], np.c_[np.arange(len(s))[1:] / max(d, h, w), s[1:] / np.maximum(c[1:], 1), c[1:]], delimiter=",")
EOP
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "machine: $(nproc) cores, $(date +%F); median of $REPS, whole process"
for size in $SIZES; do
  IFS=x read -r w h d <<< "$size"
  ext=npy
  $PY -c "import tifffile" 2>/dev/null && ext=tif
  $PY -c "
import numpy as np
v = np.random.default_rng().integers(0, 65535, ($d, $h, $w)).astype(np.uint16)
if '$ext' == 'tif':
    import tifffile; tifffile.imwrite('$W/v.tif', v, imagej=True)
else:
    np.save('$W/v.npy', v)"
  : > "$W/sv"; : > "$W/np"
  for r in $(seq $REPS); do
    /usr/bin/time -f "%e %M" -o "$W/t" "$B/specview" --headless "$W/v.$ext" --volume --profile shell "$W/s.csv" \
      -o "$W/s.png" --force > /dev/null 2>&1 || { echo "specview failed on $size"; exit 1; }
    cat "$W/t" >> "$W/sv"
    /usr/bin/time -f "%e %M" -o "$W/t" $PY "$W/np_volume.py" "$W/v.$ext" "$W/n.png" "$W/n.csv"
    cat "$W/t" >> "$W/np"
  done
  s=$(cut -d' ' -f1 "$W/sv" | median); n=$(cut -d' ' -f1 "$W/np" | median)
  sm=$(cut -d' ' -f2 "$W/sv" | median); nm=$(cut -d' ' -f2 "$W/np" | median)
  echo "$size ($ext): specview ${s} s ($((sm / 1024)) MiB), numpy ${n} s ($((nm / 1024)) MiB): $(python3 -c "print(f'{$s / $n:.2f}')")x"
done
