#!/bin/bash
# Nsight Compute's full set on one launch of a custom-fast kernel, with its source view: where its warps are sampled
# stalled, instruction by instruction (the report keeps the CUDA lines too: the build has -lineinfo, and the GUI or
# `--print-source cuda,sass` map them). For a latency-bound kernel
# whose overall stall mix (ncu_passes.sh) names no single cause: the one-launch C2C at 1024² (PERF_NOTES "Next" 1).
# On the device, after building specview-bench into BUILD_DIR:
#   tests/device/ncu_source.sh BUILD_DIR SIZE KERNEL_REGEX OUT_PREFIX [SKIP]
# e.g. tests/device/ncu_source.sh build-device 1024x1024 fast_c2c_one_launch $OUT/src-1024 20
# SKIP: matching launches to pass over first (the benchmark's warm-up runs). Writes OUT_PREFIX.ncu-rep, the details
# page (OUT_PREFIX-details.txt), the SASS source page with its per-instruction metrics (OUT_PREFIX-sass.csv) and prints
# the 40 SASS instructions with the most stall samples. Not yet run on the device (written in the twenty-eighth session).
set -u
B=$1 SIZE=$2 REGEX=$3 PREFIX=$4 SKIP=${5:-20}
NCU=${NCU:-/usr/local/cuda/bin/ncu}
"$NCU" --set full --import-source yes --kernel-name-base demangled --kernel-name "regex:$REGEX" --launch-skip "$SKIP" \
  --launch-count 1 -f -o "$PREFIX" "$B/tests/specview-bench" --sizes "$SIZE" --no-sweep --quick --reps 5 --csv /dev/null \
  > "$PREFIX-run.log" 2>&1 || { tail -20 "$PREFIX-run.log"; exit 1; }
"$NCU" --import "$PREFIX.ncu-rep" --page details > "$PREFIX-details.txt" 2>&1
"$NCU" --import "$PREFIX.ncu-rep" --page source --csv --print-source sass > "$PREFIX-sass.csv" 2> "$PREFIX-sass.err" ||
  { echo "source page failed:"; head -5 "$PREFIX-sass.err"; }
grep -E "Duration|Achieved Occupancy|Issued Warp|No Eligible|Registers Per|Warp Cycles Per Issued" "$PREFIX-details.txt" | head -12
python3 - "$PREFIX-sass.csv" <<'PY'
import csv, sys, collections
try:
    rows = list(csv.reader(open(sys.argv[1])))
except OSError as e:
    sys.exit(f"no source page: {e}")
head = next((i for i, r in enumerate(rows) if any("Source" == c or "Address" in c for c in r)), None)
if head is None:
    sys.exit("source page: no header found; first lines: " + repr(rows[:3]))
cols = rows[head]
body = [r for r in rows[head + 1:] if len(r) == len(cols)]
def col(*keys):
    for i, c in enumerate(cols):
        if all(k.lower() in c.lower() for k in keys):
            return i
    return None
src, stall, inst = col("source"), col("stall sampling", "all"), col("instructions executed")
print("columns:", [c for c in cols][:12], "...")
if stall is None:
    sys.exit("no stall-sampling column")
num = lambda s: float(s.replace(",", "") or 0)
total = sum(num(r[stall]) for r in body) or 1.0
print(f"{len(body)} SASS lines, {total:.0f} stall samples")
for r in sorted(body, key=lambda r: -num(r[stall]))[:40]:
    print(f"{num(r[stall]) / total:6.1%}  {r[src][:110]}")
PY
