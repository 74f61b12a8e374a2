#!/bin/bash
# The thirty-first session's device calls, from the repository root on the device, carry [".debs", ".vkfft"]:
#   call 1 (m107.patch and in_index_qx.patch applied; results in gpu/PERF_NOTES.md "Measured in the thirty-first
#   session"): the same steps as `... probe build tests memcheck ab1 ab2 tma ab3` (it ran an earlier form of this
#   script, which called the since-removed run_m106.sh for the probe)
#   call 2 (main as landed): `bash tests/device/pending/run_s31.sh build suite quick`, which ran out its 600 s 31
#   tests into the suite (all passed; the two --quick runs had finished); call 3, fresh: the GPU tests rebuilt and the
#   suite's other 36 tests run (31 passed, 5 Nvdec skipped).
# probe: tests/device/barrier_probe.cu at the one-launch grids (256, 128, 16 blocks); tma: one --ab blocked_first_tma round.
if [[ " $* " == *" probe "* ]]; then
  nvcc -O3 -std=c++17 -arch=sm_90 tests/device/barrier_probe.cu -o /tmp/bp || exit 1
  for b in 256 128 16; do timeout 60 /tmp/bp 100 $b; done | tee $OUT/barrier-probe.txt
fi
source tests/device/pending/steps.sh
pending_steps cluster_c2c 256,512,1024 \
  'FastFft.ClusterC2c*:FastFft.ComplexTransform*:FastFft.OneLaunch*:FastFft.InPlaceC2c*:FastFft.BlockedFirst*:FastFft.EveryLayout*:EngineGpu.*' \
  'FastFft.ClusterC2c*' "$@"
if [[ " $* " == *" tma "* ]]; then
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab blocked_first_tma --sizes 2048,4096x2048 > /tmp/abt.txt 2>&1
  echo "ab tma rc=$?"; grep -E "^== |whole runs with" /tmp/abt.txt; cp /tmp/abt.txt $OUT/ab-blocked_first_tma.txt
fi
