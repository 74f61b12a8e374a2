#!/usr/bin/env bash
# The CPU path stage by stage (issue 60): a synthetic RGB photo (PNG) -> spectrum PNG with --backend cpu, at each size
# the median of REPS runs of every stage --timings reports, the whole process's wall, its page faults and peak
# resident memory, beside the ten-line numpy + Pillow script (cli_bench.sh's) on the same file in the same run.
# Prints one Markdown table row a size (the README's CPU table).
#   tests/bench/cpu_path.sh BUILD_DIR [REPS=5] [SIZES="2048 4096 8192"]
set -u
B=${1:?build dir}; REPS=${2:-5}; SIZES=${3:-2048 4096 8192}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
PY=/usr/bin/python3
sed -n '/^import sys, numpy/,/^Image.fromarray/p' "$(dirname "$0")/cli_bench.sh" > "$W/np_spectrum.py"
have_numpy=0; $PY -c "import numpy, PIL" 2>/dev/null && have_numpy=1
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(date +%F)"
echo "| size | decode | prepare | FFT | view | write PNG | whole process | page faults | peak RSS | numpy script | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
  "$B/tests/specview-latency" --write-photo "$W/photo$n.png" $n
  for r in $(seq $REPS); do
    t0=$(date +%s.%N)
    "$B/specview" --headless "$W/photo$n.png" -o "$W/out.png" --force --backend cpu --timings > "$W/t$r.txt" 2>&1 || { cat "$W/t$r.txt"; exit 1; }
    echo "wall $(python3 -c "import sys; print((float(sys.argv[2]) - float(sys.argv[1])) * 1e3)" $t0 $(date +%s.%N))" >> "$W/t$r.txt"
  done
  np="n/a"; ratio="n/a"
  if [ $have_numpy = 1 ]; then
    : > "$W/np.txt"
    for r in $(seq $REPS); do
      t0=$(date +%s.%N); $PY "$W/np_spectrum.py" "$W/photo$n.png" "$W/np.png"
      python3 -c "import sys; print((float(sys.argv[2]) - float(sys.argv[1])) * 1e3)" $t0 $(date +%s.%N) >> "$W/np.txt"
    done
    np=$(sort -g "$W/np.txt" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  fi
  python3 - "$n" "$np" "$W"/t*.txt <<'EOP'
import re, statistics, sys
n, np_ms, files = sys.argv[1], sys.argv[2], sys.argv[3:]
keys = {"decode": r"read \+ decode", "prepare": r"prepare plane", "FFT": r"FFTW r2c", "view": r"view \+ range",
        "write PNG": r"write PNG", "wall": r"^wall"}
vals = {k: [] for k in keys}; faults = []; rss = []
for f in files:
    for line in open(f):
        for k, pat in keys.items():
            if re.search(pat, line):
                nums = re.findall(r"[0-9]+\.[0-9]+|[0-9]+", line.split(")")[-1] if k != "wall" else line)
                vals[k].append(float(nums[0]))
        if m := re.search(r"page faults: ([0-9]+)", line): faults.append(int(m.group(1)))
        if m := re.search(r"peak resident memory: ([0-9.]+)", line): rss.append(float(m.group(1)))
med = {k: statistics.median(v) if v else float("nan") for k, v in vals.items()}
row = [f"{n}²"] + [f"{med[k]:.0f} ms" for k in ("decode", "prepare", "FFT", "view", "write PNG")]
row += [f"{med['wall'] / 1e3:.2f} s", f"{statistics.median(faults):,.0f}", f"{statistics.median(rss):.0f} MiB"]
if np_ms != "n/a":
    row += [f"{float(np_ms) / 1e3:.2f} s", f"{med['wall'] / float(np_ms):.2f}×"]
else:
    row += ["n/a", "n/a"]
print("| " + " | ".join(row) + " |")
EOP
done
