#!/bin/bash
# m107 (prepared in the thirtieth session, not yet run on the device; gpu/PERF_NOTES.md "m107").
# From the repository root on the device, after `git apply tests/device/pending/m107.patch`, carry [".debs", ".vkfft"]:
#   bash tests/device/pending/run_m107.sh build tests memcheck ab1 ab2 ab3      (first call, ~450 s fresh)
#   bash tests/device/pending/run_m107.sh quick suite                          (warm: two --quick runs, the whole GPU suite)
# abN: round N of --ab cluster_c2c at 256^2 and 512^2 (and 1024^2, which it must leave alone).
source tests/device/env.sh
B=build-device
steps=" $* "
if [[ $steps == *" build "* ]]; then
  cmake -S . -B $B -G Ninja -DSPECVIEW_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null || exit 1
  cmake --build $B -j16 --target specview-bench specview_gpu_tests > /tmp/build.log 2>&1 || { grep -A3 error /tmp/build.log | head -40; exit 1; }
  echo "build done $SECONDS s"
fi
if [[ $steps == *" tests "* ]]; then
  timeout 300 $B/tests/specview_gpu_tests --gtest_filter='FastFft.ClusterC2c*:FastFft.ComplexTransform*:FastFft.OneLaunch*:FastFft.InPlaceC2c*:FastFft.BlockedFirstPass*:FastFft.EveryLayout*:EngineGpu.*' > $OUT/tests.txt 2>&1
  echo "tests rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" -A2 $OUT/tests.txt | head -30
fi
if [[ $steps == *" memcheck "* ]]; then
  for tool in memcheck racecheck; do
    SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool $tool --error-exitcode 99 $B/tests/specview_gpu_tests \
      --gtest_filter='FastFft.ClusterC2c*' > $OUT/$tool.txt 2>&1
    echo "$tool rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/$tool.txt
  done
fi
for r in 1 2 3; do
  [[ $steps == *" ab$r "* ]] || continue
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab cluster_c2c --sizes 256,512,1024 > /tmp/ab$r.txt 2>&1
  echo "ab$r rc=$?"; grep -E "^== |whole runs with" /tmp/ab$r.txt
  cat /tmp/ab$r.txt >> $OUT/ab-cluster_c2c.txt
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
