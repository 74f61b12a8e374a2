#!/bin/bash
# m107 (prepared in the thirtieth session, not yet run on the device; gpu/PERF_NOTES.md "m107").
# From the repository root on the device, after `git apply tests/device/pending/m107.patch`, carry [".debs", ".vkfft"]:
#   bash tests/device/pending/run_m107.sh build tests memcheck ab1 ab2 ab3      (first call, ~450 s fresh)
#   bash tests/device/pending/run_m107.sh quick suite                          (warm: two --quick runs, the whole GPU suite)
# abN: round N of --ab cluster_c2c at 256^2 and 512^2 (and 1024^2, which it must leave alone).
source tests/device/pending/steps.sh
pending_steps cluster_c2c 256,512,1024 \
  'FastFft.ClusterC2c*:FastFft.ComplexTransform*:FastFft.OneLaunch*:FastFft.InPlaceC2c*:FastFft.BlockedFirstPass*:FastFft.EveryLayout*:EngineGpu.*' \
  'FastFft.ClusterC2c*' "$@"
