#!/bin/bash
# m106 (prepared in the thirtieth session, not yet run on the device; gpu/PERF_NOTES.md "m106").
# From the repository root on the device, after `git apply tests/device/pending/m106.patch`, carry [".debs", ".vkfft"]:
#   bash tests/device/pending/run_m106.sh probe                                 (first: ~15 s on the machine; no build)
#   bash tests/device/pending/run_m106.sh build tests memcheck ab1 ab2 ab3      (then, if the probe says so, ~450 s)
#   bash tests/device/pending/run_m106.sh quick suite                          (warm: two --quick runs, the whole GPU suite)
# abN: round N of --ab ready_flags at the one-launch squares (256^2, 512^2, 1024^2).
source tests/device/env.sh
B=build-device
steps=" $* "
if [[ $steps == *" probe "* ]]; then
  # What each way of waiting on the flags costs a barrier against grid.sync() (tests/device/barrier_probe.cu).
  nvcc -O3 -std=c++17 -arch=sm_90 tests/device/barrier_probe.cu -o /tmp/bp || exit 1
  for b in 256 128 16; do timeout 60 /tmp/bp 100 $b; done | tee $OUT/barrier-probe.txt
fi
if [[ $steps == *" build "* ]]; then
  cmake -S . -B $B -G Ninja -DSPECVIEW_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null || exit 1
  cmake --build $B -j16 --target specview-bench specview_gpu_tests > /tmp/build.log 2>&1 || { grep -A3 error /tmp/build.log | head -40; exit 1; }
  echo "build done $SECONDS s"
fi
if [[ $steps == *" tests "* ]]; then
  timeout 300 $B/tests/specview_gpu_tests --gtest_filter='FastFft.ReadyFlags*:FastFft.OneLaunch*:FastFft.LineBarriers*:FastFft.InPlaceC2c*:FastFft.BlockedFirstPass*:FastFft.ComplexTransform*:FastFft.EveryLayout*:EngineGpu.*' > $OUT/tests.txt 2>&1
  echo "tests rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" -A2 $OUT/tests.txt | head -30
fi
if [[ $steps == *" memcheck "* ]]; then
  SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.ReadyFlags*' > $OUT/memcheck.txt 2>&1
  echo "memcheck rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt
fi
for r in 1 2 3; do
  [[ $steps == *" ab$r "* ]] || continue
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab ready_flags --sizes 256,512,1024 > /tmp/ab$r.txt 2>&1
  echo "ab$r rc=$?"; grep -E "^== |whole runs with" /tmp/ab$r.txt
  cat /tmp/ab$r.txt >> $OUT/ab-ready_flags.txt
done
if [[ $steps == *" quick "* ]]; then
  for r in 1 2; do
    timeout 120 $B/tests/specview-bench --quick > $OUT/quick-$r.txt 2>&1; echo "quick $r rc=$? $SECONDS s"
  done
fi
if [[ $steps == *" suite "* ]]; then
  timeout 300 $B/tests/specview_gpu_tests > $OUT/gpu-suite.txt 2>&1
  echo "suite rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " $OUT/gpu-suite.txt | head
fi
