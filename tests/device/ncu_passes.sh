#!/bin/bash
# Nsight Compute on custom-fast's passes and cuFFT's kernels at one size, for the "what the profiler shows" of a
# missed target: duration, DRAM bytes and throughput, L2 hit rate, occupancy and the main warp stalls of each
# distinct (kernel, grid) launch. On the device, after building specview-bench into $B:
#   tests/device/ncu_passes.sh BUILD_DIR SIZE KERNEL_REGEX OUT_PREFIX [LAUNCHES]
# e.g. tests/device/ncu_passes.sh build-device 8192x8192 'fast_(cols_kernel|rows_)' $OUT/ncu-8192 400
# Writes OUT_PREFIX-fast.csv.gz, OUT_PREFIX-cufft.csv.gz (raw) and prints one line per distinct launch (its first).
set -u
B=$1 SIZE=$2 REGEX=$3 PREFIX=$4 COUNT=${5:-400}
NCU=${NCU:-/usr/local/cuda/bin/ncu}
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
lts__t_sector_hit_rate.pct,launch__grid_size,launch__block_size,launch__registers_per_thread,\
launch__shared_mem_per_block_dynamic,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,\
sm__throughput.avg.pct_of_peak_sustained_elapsed,\
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
"$NCU" --csv --metrics "$METRICS" --kernel-name-base demangled --kernel-name "regex:$REGEX" --launch-count "$COUNT" \
  "$B/tests/specview-bench" --sizes "$SIZE" --no-sweep --quick --reps 5 --csv /dev/null 2>/dev/null \
  | grep '^"' > "$PREFIX-fast.csv"
nvcc -O2 -arch=sm_90 tests/device/cufft_probe.cu -lcufft -o /tmp/cufft_probe &&
  "$NCU" --csv --metrics "$METRICS" --launch-count 12 /tmp/cufft_probe "$SIZE" 3 2>/dev/null | grep '^"' > "$PREFIX-cufft.csv"
python3 - "$PREFIX-fast.csv" "$PREFIX-cufft.csv" <<'EOF'
import csv, sys
short = {"gpu__time_duration.sum": "us", "dram__bytes_read.sum": "rdMB", "dram__bytes_write.sum": "wrMB",
         "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%", "lts__t_sector_hit_rate.pct": "L2hit%",
         "launch__grid_size": "grid", "launch__block_size": "block", "launch__registers_per_thread": "regs",
         "launch__shared_mem_per_block_dynamic": "smemKB", "launch__occupancy_limit_shared_mem": "blk/SM(smem)",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "warps%", "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm%"}
for path in sys.argv[1:]:
    rows = {}
    try:
        for r in csv.DictReader(open(path)):
            rows.setdefault(r["ID"], {"name": r["Kernel Name"]})[r["Metric Name"]] = (r["Metric Unit"], r["Metric Value"])
    except (OSError, KeyError) as e:
        print(path, "unreadable:", e); continue
    print("==", path, len(rows), "launches")
    seen = set()
    for i in sorted(rows, key=int):
        d = rows[i]
        key = (d["name"][:90], d.get("launch__grid_size", ("", ""))[1])
        if key in seen: continue
        seen.add(key)
        cells = []
        for m, uv in sorted(d.items()):
            if m == "name": continue
            u, v = uv
            name = short.get(m, m.replace("smsp__average_warps_issue_stalled_", "st_").replace("_per_issue_active.ratio", ""))
            if u in ("byte", "Kbyte", "Mbyte", "Gbyte") and name in ("rdMB", "wrMB"):
                f = float(v.replace(",", "")) * {"byte": 1e-6, "Kbyte": 1e-3, "Mbyte": 1, "Gbyte": 1e3}[u]
                v = "%.1f" % f
            if name == "us" and u in ("ns", "nsecond", "us", "usecond", "ms", "msecond"):
                v = "%.1f" % (float(v.replace(",", "")) * {"n": 1e-3, "u": 1, "m": 1e3}[u[0]])
            if name == "smemKB" and u.startswith("byte"):
                v = "%.1f" % (float(v.replace(",", "")) / 1024)
            cells.append(name + "=" + v)
        print(" ", d["name"][:110])
        print("     ", " ".join(cells))
EOF
gzip -f "$PREFIX-fast.csv" "$PREFIX-cufft.csv"
