#!/usr/bin/env bash
# What a user of the command line waits for: the whole process, decode to written file, against the ten-line
# numpy + Pillow script of the "headless and batch" issue, in the same run on the same files. Single photos
# (PNG, 2048^2 / 4096^2 / 8192^2) on every backend, and a batch of 1920x1080 JPEGs; best of REPS runs each,
# peak resident memory of the specview process (its --timings line) and of the script (/proc's VmHWM).
# SIZES (the environment) picks the photos' sides, e.g. "3072 4096 5120 6144 8192" to find where --backend auto's
# rule should send one image to the GPU (app/engine/auto_backend.h); BATCH=0 skips the batch.
#   tests/bench/cli_bench.sh BUILD_DIR [REPS=3] [BATCH=200] [BACKENDS="cpu cufft custom-fast"]
set -u
B=${1:?build dir}; REPS=${2:-3}; BATCH=${3:-200}; BACKENDS=${4:-cpu cufft custom-fast}; SIZES=${SIZES:-2048 4096 8192}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
PY=/usr/bin/python3
cat > "$W/np_spectrum.py" <<'EOP'
import sys, numpy as np
from PIL import Image
a = np.asarray(Image.open(sys.argv[1]).convert("L"), dtype=np.float32) / 255.0
v = np.log1p(np.abs(np.fft.fftshift(np.fft.fft2(a)))); v = (v - v.min()) / (v.max() - v.min())
Image.fromarray((v * 255).astype(np.uint8)).save(sys.argv[2])
EOP
have_numpy=0; $PY -c "import numpy, PIL" 2>/dev/null && have_numpy=1
now() { date +%s.%N; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$1" "$2"; }
best() { sort -g | head -1; }
echo "machine: $(nproc) cores, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo 'no GPU')"
for n in $SIZES; do
  "$B/tests/specview-latency" --write-photo "$W/photo$n.png" $n
  line="photo ${n}^2 PNG ($(du -m "$W/photo$n.png" | cut -f1) MB):"
  if [ $have_numpy = 1 ]; then
    ts=(); for r in $(seq $REPS); do t0=$(now); $PY "$W/np_spectrum.py" "$W/photo$n.png" "$W/np.png"; ts+=($(secs $t0 $(now))); done
    np=$(printf '%s\n' "${ts[@]}" | best); line="$line numpy ${np} s;"
  fi
  for b in $BACKENDS; do
    ts=(); peak=""
    for r in $(seq $REPS); do
      t0=$(now); "$B/specview" --headless "$W/photo$n.png" -o "$W/out.png" --force --backend $b --timings > "$W/t.txt" 2>&1
      rc=$?; ts+=($(secs $t0 $(now))); peak=$(grep -o 'peak resident memory: [0-9.]*' "$W/t.txt" | grep -o '[0-9.]*$')
    done
    t=$(printf '%s\n' "${ts[@]}" | best)
    ratio=""; [ $have_numpy = 1 ] && ratio=", $(python3 -c "print(f'{$t / $np:.2f}')")x numpy"
    line="$line $b ${t} s${ratio} (${peak} MiB, rc $rc);"
  done
  echo "$line"
done
[ "$BATCH" -gt 0 ] || exit 0
mkdir -p "$W/jpg"
for i in $(seq 1 $BATCH); do "$B/tests/specview-latency" --write-photo "$W/jpg/p$i.jpg" 1920 1080 $i; done
echo "batch: $BATCH 1920x1080 JPEGs ($(du -sm "$W/jpg" | cut -f1) MB)"
if [ $have_numpy = 1 ]; then
  t0=$(now); for f in "$W"/jpg/*.jpg; do $PY "$W/np_spectrum.py" "$f" "$W/np.png"; done; t=$(secs $t0 $(now))
  echo "  numpy script, one process per image: ${t} s, $(python3 -c "print(f'{$BATCH / $t:.1f}')") images/s"
fi
for b in $BACKENDS; do
  ts=()
  for r in $(seq $REPS); do
    rm -rf "$W/out"; t0=$(now); "$B/specview" --headless "$W/jpg" -o "$W/out" --backend $b --timings > "$W/t$r.txt" 2> "$W/err.txt"; rc=$?
    ts+=($(secs $t0 $(now)))
  done
  t=$(printf '%s\n' "${ts[@]}" | best)
  echo "  specview --backend $b: ${t} s, $(python3 -c "print(f'{$BATCH / $t:.1f}')") images/s (rc $rc; $(tail -1 "$W/err.txt"))"
  # The last run's own account (inside the process, after start-up): each stage's busy share.
  sed -n '/^batch:/,/^peak/p' "$W/t$REPS.txt" | sed 's/^/    /'
done
