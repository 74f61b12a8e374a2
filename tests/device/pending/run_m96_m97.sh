#!/bin/bash
# m96 and m97 (prepared in the twenty-seventh session; gpu/PERF_NOTES.md "m96", "m97"). From the repository root on the
# device, after
#   git apply tests/device/pending/m96-m97.patch
# with carry [".debs", ".vkfft"]:
#   bash tests/device/pending/run_m96_m97.sh build tests memcheck     (first call, ~420 s with a fresh build)
#   bash tests/device/pending/run_m96_m97.sh ab1 ab2 ab3              (second call, at once while warm, ~220 s)
# ab<r>: round r of `--ab r2c_unpack_steps` (m96) and `--ab tma_grouped_2048` (m97); a switch's rounds land together in
# $OUT/ab-<switch>.txt.
source tests/device/env.sh
B=build-device
steps=" $* "
if [[ $steps == *" build "* ]]; then
  cmake -S . -B $B -G Ninja -DSPECVIEW_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null || exit 1
  cmake --build $B -j16 --target specview-bench specview_gpu_tests > /tmp/build.log 2>&1 || { grep -A3 error /tmp/build.log | head -40; exit 1; }
  echo "build done $SECONDS s"
fi
if [[ $steps == *" tests "* ]]; then
  timeout 200 $B/tests/specview_gpu_tests --gtest_filter='FastFft.R2cUnpackSteps*:FastFft.R2cColumnsFirst*:FastFft.SplitR2c*:FastFft.RealSpectrum*:FastFft.TmaGrouped*:FastFft.TmaInPlace*:FastFft.ComplexTransform*:FastFft.TmaMixedRows*:FastFft.TmaSplitRows*:FastFft.TmaRealRows*:FastFft.TmaPlane*' > $OUT/tests.txt 2>&1
  echo "tests rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|vs FFTW" -A3 $OUT/tests.txt | head -40
fi
if [[ $steps == *" memcheck "* ]]; then
  SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.R2cUnpackSteps*' > $OUT/memcheck.txt 2>&1
  echo "memcheck rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt
  # m97's shapes (4096 x 2048) are above a small run: TmaGrouped at full size.
  timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.TmaGrouped*' > $OUT/memcheck-full.txt 2>&1
  echo "memcheck (full size) rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck-full.txt
fi
for r in 1 2 3; do
  [[ $steps == *" ab$r "* ]] || continue
  timeout 150 $B/tests/specview-bench --no-sweep --quick --ab r2c_unpack_steps --sizes 1024x1024,2048x2048,4096x4096,8192x8192,4096x8192 > /tmp/ab$r.txt 2>&1
  echo "ab$r r2c_unpack_steps rc=$?"; grep -E "^== |whole runs with|unpacked -> half spectrum" /tmp/ab$r.txt | head -40
  cat /tmp/ab$r.txt >> $OUT/ab-r2c_unpack_steps.txt
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab tma_grouped_2048 --sizes 4096x2048,8192x2048 > /tmp/abg$r.txt 2>&1
  echo "ab$r tma_grouped_2048 rc=$?"; grep -E "^== |whole runs with|fast pass 2: column FFTs" /tmp/abg$r.txt | head -20
  cat /tmp/abg$r.txt >> $OUT/ab-tma_grouped_2048.txt
  echo "round $r $SECONDS s"
done
