#!/bin/bash
# m90-m92 (prepared in the twenty-sixth session; PERF_NOTES "m90, m91 and m92"). From the repository root on the device, after
#   git apply tests/device/pending/m90-m92.patch
# with carry [".debs", ".vkfft"]: build, the tests, three A/B rounds of each switch, memcheck (small) of the new paths.
source tests/device/env.sh
B=build-device
cmake -S . -B $B -G Ninja -DSPECVIEW_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null || exit 1
cmake --build $B -j16 --target specview-bench specview_gpu_tests > $OUT/build.log 2>&1 || { grep -A3 error $OUT/build.log | head -40; exit 1; }
echo "build done $SECONDS s"
timeout 200 $B/tests/specview_gpu_tests --gtest_filter='FastFft.TmaR2cRows*:FastFft.TmaRealRows*:FastFft.SplitR2c*:FastFft.R2cColumnsFirst*:FastFft.TmaPlane*:FastFft.RealSpectrum*' > $OUT/tests.txt 2>&1
echo "tests rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" -A4 $OUT/tests.txt | head -30
for r in 1 2 3; do
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab tma_r2c_pair_rows --sizes 8192x8192,4096x8192 > /tmp/ab-p$r.txt 2>&1
  echo "p$r rc=$?"; grep -E "^== |--ab\)|row FFTs in mirror pairs" /tmp/ab-p$r.txt
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab tma_r2c_rows --sizes 1024x1024,2048x2048,4096x4096 > /tmp/ab-q$r.txt 2>&1
  echo "q$r rc=$?"; grep -E "^== |--ab\)|row FFTs in pairs \(ky" /tmp/ab-q$r.txt
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab tma_real_rows --sizes 2048x2048,4096x4096,8192x8192 > /tmp/ab-t$r.txt 2>&1
  echo "t$r rc=$?"; grep -E "^== |--ab\)|real rows \(2 per FFT\)" /tmp/ab-t$r.txt | sort -u
  echo "round $r $SECONDS s"
done
for x in p q t; do cat /tmp/ab-${x}1.txt /tmp/ab-${x}2.txt /tmp/ab-${x}3.txt > $OUT/ab-$x.txt; done  # ($OUT keeps 8 files)
SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/specview_gpu_tests \
  --gtest_filter='FastFft.TmaR2cRows*:FastFft.TmaRealRows*' > $OUT/memcheck.txt 2>&1
echo "memcheck rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt
