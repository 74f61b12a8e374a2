#!/usr/bin/env bash
# Issue 64's batch targets: a batch of 1920x1080 JPEGs on one GPU and on several (--gpus), the same files in the same
# run. For each GPU set, best of REPS: end-to-end images/s, the transform stage's capacity (images per second of its
# threads' busy time, from --timings) and the stage that bounds the batch; then each set's capacity against one GPU's
# (targets: 2 GPUs >= 1.8x, 8 GPUs >= 6x).
#   tests/bench/multi_gpu_batch.sh BUILD_DIR [REPS=3] [BATCH=200] [BACKEND=cufft] [SETS="0 0,1 all"]
set -u
B=${1:?build dir}; REPS=${2:-3}; BATCH=${3:-200}; BACKEND=${4:-cufft}; SETS=${5:-0 0,1 all}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
echo "machine: $(nproc) cores, $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | xargs)"
mkdir -p "$W/jpg"
for i in $(seq 1 "$BATCH"); do "$B/tests/specview-latency" --write-photo "$W/jpg/p$i.jpg" 1920 1080 "$i" > /dev/null; done
echo "batch: $BATCH 1920x1080 JPEGs, --backend $BACKEND"
base=""
for set in $SETS; do
  n=$(tr ',' '\n' <<< "$set" | wc -l); [ "$set" = all ] && n=$gpus
  if [ "$n" -gt "$gpus" ]; then echo "  --gpus $set: skipped ($gpus GPU(s) here)"; continue; fi
  best_rate=0; best_cap=0; bound=""
  for r in $(seq "$REPS"); do
    rm -rf "$W/out"
    "$B/specview" --headless "$W/jpg" -o "$W/out" --backend "$BACKEND" --gpus "$set" --timings > "$W/t.txt" 2> "$W/err.txt" ||
      { echo "  --gpus $set: failed: $(tail -1 "$W/err.txt")"; continue 2; }
    rate=$(grep -o '^batch: .*(\([0-9.]*\) images/s)' "$W/t.txt" | grep -o '([0-9.]*' | tr -d '(')
    cap=$(grep -o '[0-9.]* images/s of transform capacity' "$W/t.txt" | head -1 | cut -d' ' -f1)
    if python3 -c "import sys; sys.exit(0 if float('$rate') > float('$best_rate') else 1)"; then
      best_rate=$rate; best_cap=$cap; bound=$(grep -o 'bound by: .*' "$W/t.txt"); cp "$W/t.txt" "$W/best.txt"
    fi
  done
  [ -z "$base" ] && base=$best_cap
  ratio=$(python3 -c "print(f'{float(\"$best_cap\") / float(\"$base\"):.2f}')")
  echo "  --gpus $set ($n GPU): $best_rate images/s end to end; transform capacity $best_cap images/s (${ratio}x one GPU's); $bound"
  grep '^    GPU ' "$W/best.txt" | sed 's/^/  /'
done
