#!/bin/bash
# m90-m95 (prepared in the twenty-sixth session; PERF_NOTES "m90-m93", "m94" and "m95"). From the repository root on the
# device, after
#   git apply tests/device/pending/m90-m93.patch && git apply tests/device/pending/m94.patch tests/device/pending/m95.patch
# with carry [".debs", ".vkfft"]:
#   bash tests/device/pending/run_m90_m94.sh build tests memcheck     (first call, ~400 s with a fresh build)
#   bash tests/device/pending/run_m90_m94.sh ab1 ab2 ab3              (second call, warm, ~220 s)
# ab<r>: round r of the six A/Bs (m90 tma_r2c_pair_rows, m91 tma_r2c_rows, m92 tma_real_rows, m93 tma_mixed_rows,
# m94 compiled_plans at the 4:3 sizes it adds, m95 tma_inplace_columns);
# a call's rounds of one switch land together in $OUT/ab-<switch>.txt ($OUT keeps 8 files a call).
source tests/device/env.sh
B=build-device
steps=" $* "
if [[ $steps == *" build "* ]]; then
  cmake -S . -B $B -G Ninja -DSPECVIEW_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null || exit 1
  cmake --build $B -j16 --target specview-bench specview_gpu_tests > /tmp/build.log 2>&1 || { grep -A3 error /tmp/build.log | head -40; exit 1; }
  echo "build done $SECONDS s"
fi
if [[ $steps == *" tests "* ]]; then
  timeout 200 $B/tests/specview_gpu_tests --gtest_filter='FastFft.TmaR2cRows*:FastFft.TmaRealRows*:FastFft.TmaMixedRows*:FastFft.SplitR2c*:FastFft.R2cColumnsFirst*:FastFft.TmaPlane*:FastFft.RealSpectrum*:FastFft.ComplexTransform*:FastFft.CompiledInPlans*:FastFft.MixedC2c*:FastFft.TmaInPlace*:FastFft.InPlaceC2c*:FastFft.Wide2048*' > $OUT/tests.txt 2>&1
  echo "tests rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|bulk copies" -A3 $OUT/tests.txt | head -40
fi
if [[ $steps == *" memcheck "* ]]; then
  SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.TmaR2cRows*:FastFft.TmaRealRows*:FastFft.TmaMixedRows*:FastFft.TmaInPlace*' > $OUT/memcheck.txt 2>&1
  echo "memcheck rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt
fi
bench() {  # round switch sizes pattern
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab $2 --sizes $3 > /tmp/ab$1-$2.txt 2>&1
  echo "ab$1 $2 rc=$?"; grep -E "^== |--ab\)|$4" /tmp/ab$1-$2.txt | head -40
  cat /tmp/ab$1-$2.txt >> $OUT/ab-$2.txt
}
for r in 1 2 3; do
  [[ $steps == *" ab$r "* ]] || continue
  bench $r tma_r2c_pair_rows 8192x8192,4096x8192 "row FFTs in mirror pairs"
  bench $r tma_r2c_rows 1024x1024,2048x2048,4096x4096 "row FFTs in pairs \(ky"
  bench $r tma_real_rows 2048x2048,4096x4096,8192x8192 "real rows \(2 per FFT\)"
  bench $r tma_mixed_rows 1920x1080,3000x2000,4032x3024 "row FFTs \(mixed radix\)"
  bench $r compiled_plans 640x480,800x600,1024x768,1600x1200 "custom-fast (C2C|R2C), unpadded|faster peer"
  bench $r tma_inplace_columns 2048x2048,1024x2048 "fast pass 2: column FFTs( \(in place|  )"
  echo "round $r $SECONDS s"
done
