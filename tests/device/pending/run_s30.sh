#!/bin/bash
# Thirtieth session's device calls (gpu/PERF_NOTES.md "m105"). From the repository root on the device, carry [".debs", ".vkfft"]:
#   bash tests/device/pending/run_s30.sh build tests memcheck ab1 ab2 ab3 grouped     (fresh, ~500 s)
#   bash tests/device/pending/run_s30.sh quick suite                                  (warm)
# abN: round N of --ab blocked_first_ungrouped (R2C in place at 256^2, 512^2; the columns-first R2C at 1024^2, 2048^2;
# the columns-first C2C at 2048 x 512) and of --ab blocked_first_tma (C2C 2048^2).
# grouped: two rounds of --ab blocked_first_pass (m102) where the C2C's column pass reads the grouped scratch
# through run_cols (8192 x 1024, 16384 x 512, 16384 x 1024: 1024- and 512-point columns).
source tests/device/env.sh
B=build-device
steps=" $* "
if [[ $steps == *" build "* ]]; then
  cmake -S . -B $B -G Ninja -DSPECVIEW_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null || exit 1
  cmake --build $B -j16 --target specview-bench specview_gpu_tests > /tmp/build.log 2>&1 || { grep -A3 error /tmp/build.log | head -40; exit 1; }
  echo "build done $SECONDS s"
fi
if [[ $steps == *" tests "* ]]; then
  timeout 240 $B/tests/specview_gpu_tests --gtest_filter='FastFft.BlockedFirst*:FastFft.R2c*:FastFft.TmaInPlace*:FastFft.EveryLayout*:FastFft.ComplexTransform*:EngineGpu.*' > $OUT/tests.txt 2>&1
  echo "tests rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" -A2 $OUT/tests.txt | head -30
fi
if [[ $steps == *" memcheck "* ]]; then
  for tool in memcheck racecheck; do
    SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool $tool --error-exitcode 99 $B/tests/specview_gpu_tests \
      --gtest_filter='FastFft.BlockedFirstUngrouped*' > $OUT/$tool.txt 2>&1
    echo "$tool rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/$tool.txt
  done
fi
for r in 1 2 3; do
  [[ $steps == *" ab$r "* ]] || continue
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab blocked_first_ungrouped --sizes 256,512,1024,2048,2048x512 > /tmp/abu$r.txt 2>&1
  echo "ab$r ungrouped rc=$?"; grep -E "^== |whole runs with" /tmp/abu$r.txt
  cat /tmp/abu$r.txt >> $OUT/ab-blocked_first_ungrouped.txt
done
if [[ $steps == *" grouped "* ]]; then
  for r in 1 2; do
    timeout 100 $B/tests/specview-bench --no-sweep --quick --ab blocked_first_pass --sizes 8192x1024,16384x512,16384x1024 > /tmp/abg$r.txt 2>&1
    echo "grouped $r rc=$?"; grep -E "^== |whole runs with" /tmp/abg$r.txt
    cat /tmp/abg$r.txt >> $OUT/ab-blocked_first_pass-grouped.txt
  done
fi
if [[ $steps == *" quick "* ]]; then
  for r in 1 2; do
    timeout 120 $B/tests/specview-bench --quick > $OUT/quick-$r.txt 2>&1; echo "quick $r rc=$? $SECONDS s"
  done
  grep -E "^== |custom-fast / faster peer" $OUT/quick-1.txt | paste - - | head -12
fi
if [[ $steps == *" suite "* ]]; then
  timeout 300 $B/tests/specview_gpu_tests > $OUT/gpu-suite.txt 2>&1
  echo "suite rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " $OUT/gpu-suite.txt | head
fi
