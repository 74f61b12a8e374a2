#!/usr/bin/env bash
# Issue 64's volume targets on a machine of several GPUs: for each cube side N, a random N^3 uint8 volume (.npy)
# through --volume on one GPU (cuFFT's 3D R2C) and split over GPUS (--split-volume, cuFFT's multi-GPU plan), the
# two raw spectra compared (relative L2, chunked: target <= 1e-5 at 1024^3 on 2 GPUs), each run's transform time from
# --timings beside the --dry-run's all-to-all floor. A side too big for one GPU is run split only (say 2048).
#   tests/bench/split_volume.sh BUILD_DIR [GPUS=0,1] [SIDES="512 1024"]
set -u
B=${1:?build dir}; GPUS=${2:-0,1}; SIDES=${3:-512 1024}
W=${SPLIT_DIR:-$(mktemp -d)}; mkdir -p "$W"; trap 'rm -rf "$W"' EXIT
echo "machine: $(nproc) cores, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | xargs)"
for n in $SIDES; do
  /usr/bin/python3 - "$W/v.npy" "$n" <<'EOP'
import sys, numpy as np
n = int(sys.argv[2])
v = np.lib.format.open_memmap(sys.argv[1], mode="w+", dtype=np.uint8, shape=(n, n, n))
rng = np.random.default_rng(n)
for z in range(n):
    v[z] = rng.integers(0, 256, size=(n, n), dtype=np.uint8)
v.flush()
EOP
  echo "$n^3:"
  "$B/specview" --headless "$W/v.npy" --volume --pad none --backend cufft --gpus "$GPUS" --split-volume --dry-run |
    grep -E "all-to-all|GPU [0-9]+: z" | sed 's/^/  /'
  one=1
  "$B/specview" --headless "$W/v.npy" --volume --pad none --backend cufft --window none --raw "$W/one.npy" --force \
    --timings > "$W/one.txt" 2>&1 || { one=0; echo "  one GPU: $(tail -1 "$W/one.txt")"; }
  [ $one = 1 ] && echo "  one GPU:   $(grep -E 'GPU 3D FFT with copies|wall, decode' "$W/one.txt" | xargs)"
  "$B/specview" --headless "$W/v.npy" --volume --pad none --backend cufft --window none --gpus "$GPUS" --split-volume \
    --raw "$W/split.npy" --force --timings > "$W/split.txt" 2>&1 || { echo "  split: $(tail -1 "$W/split.txt")"; continue; }
  echo "  split:     $(grep -E '3D R2C over the GPUs|multi-GPU 3D FFT with copies|wall, decode' "$W/split.txt" | xargs)"
  [ $one = 1 ] || continue
  /usr/bin/python3 - "$W/one.npy" "$W/split.npy" <<'EOP'
import sys, numpy as np
a = np.load(sys.argv[1], mmap_mode="r"); b = np.load(sys.argv[2], mmap_mode="r")
num = den = 0.0
for z in range(a.shape[0]):
    d = a[z].astype(np.complex128) - b[z]
    num += float(np.vdot(d, d).real); den += float(np.vdot(a[z], a[z]).real)
print(f"  split against one GPU: rel L2 {np.sqrt(num / den):.2e} (target <= 1e-5)")
EOP
  rm -f "$W/one.npy" "$W/split.npy"
done
