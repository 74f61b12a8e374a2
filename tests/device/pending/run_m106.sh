#!/bin/bash
# m106 (prepared in the thirtieth session, not yet run on the device; gpu/PERF_NOTES.md "m106").
# From the repository root on the device, carry [".debs", ".vkfft"]:
#   bash tests/device/pending/run_m106.sh probe                                 (first: ~15 s on the machine; no build)
#   then, if the probe says so (m106.patch's wait rewritten with the reader it names), `git apply
#   tests/device/pending/m106.patch` and
#   bash tests/device/pending/run_m106.sh build tests memcheck ab1 ab2 ab3      (~450 s fresh)
#   bash tests/device/pending/run_m106.sh quick suite                          (warm: two --quick runs, the whole GPU suite)
# abN: round N of --ab ready_flags at the one-launch squares (256^2, 512^2, 1024^2).
source tests/device/pending/steps.sh
if [[ " $* " == *" probe "* ]]; then
  # What each way of waiting on the flags costs a barrier against grid.sync() (tests/device/barrier_probe.cu).
  nvcc -O3 -std=c++17 -arch=sm_90 tests/device/barrier_probe.cu -o /tmp/bp || exit 1
  for b in 256 128 16; do timeout 60 /tmp/bp 100 $b; done | tee $OUT/barrier-probe.txt
fi
pending_steps ready_flags 256,512,1024 \
  'FastFft.ReadyFlags*:FastFft.OneLaunch*:FastFft.LineBarriers*:FastFft.InPlaceC2c*:FastFft.BlockedFirstPass*:FastFft.ComplexTransform*:FastFft.EveryLayout*:EngineGpu.*' \
  'FastFft.ReadyFlags*' "$@"
