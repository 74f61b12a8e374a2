#!/bin/bash
# m101 (prepared in the twenty-eighth session; gpu/PERF_NOTES.md "m101") and the 1024² one-launch kernel's source-level
# profile. From the repository root on the device, after
#   git apply tests/device/pending/m101.patch
# with carry [".debs", ".vkfft"]:
#   bash tests/device/pending/run_m101.sh build tests memcheck ab1 ab2 ab3 ncu     (first call, ~450 s with a fresh build)
#   bash tests/device/pending/run_m101.sh suite                                   (second call, warm: the whole GPU suite)
# ab<r>: round r of `--ab one_launch_twiddle_table` at 256², 512², 1024² (all rounds in $OUT/ab-one_launch_twiddle_table.txt).
# ncu: tests/device/ncu_source.sh on the one-launch kernel at 1024² (the default variant: with m101's table).
source tests/device/env.sh
B=build-device
steps=" $* "
if [[ $steps == *" build "* ]]; then
  cmake -S . -B $B -G Ninja -DSPECVIEW_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null || exit 1
  cmake --build $B -j16 --target specview-bench specview_gpu_tests > /tmp/build.log 2>&1 || { grep -A3 error /tmp/build.log | head -40; exit 1; }
  echo "build done $SECONDS s"
  /usr/local/cuda/bin/cuobjdump -res-usage $B/gpu/CMakeFiles/specview_gpu.dir/fft_fast.cu.o 2>&1 | grep -A1 "one_launch_kernel" \
    | grep -E "Function|REG" | paste - - | sed -E 's/.*Function ([^:]*):.*REG:([0-9]+) STACK:([0-9]+).*/\1 REG \2 STACK \3/' > $OUT/res-usage.txt
  sed -E 's/_ZN8specview3gpu[0-9]+_GLOBAL__N__[0-9a-f_]*//' $OUT/res-usage.txt | cut -c1-110
fi
if [[ $steps == *" tests "* ]]; then
  # (the R2C tests' shared helper of the twenty-eighth session runs here for the first time too)
  timeout 200 $B/tests/specview_gpu_tests --gtest_filter='FastFft.OneLaunch*:FastFft.ComplexTransform*:FastFft.EveryLayout*:FastFft.LineBarriers*:FastFft.R2cUnpackSteps*:FastFft.TmaPlane*:FastFft.SplitR2c*:EngineGpu.*' > $OUT/tests.txt 2>&1
  echo "tests rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|rel L2 vs FFTW, table" -A2 $OUT/tests.txt | head -40
fi
if [[ $steps == *" memcheck "* ]]; then
  SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.OneLaunchTwiddle*' > $OUT/memcheck.txt 2>&1
  echo "memcheck rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt
  SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool racecheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.OneLaunchTwiddle*' > $OUT/racecheck.txt 2>&1
  echo "racecheck rc=$? $SECONDS s"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" $OUT/racecheck.txt
fi
for r in 1 2 3; do
  [[ $steps == *" ab$r "* ]] || continue
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab one_launch_twiddle_table --sizes 256x256,512x512,1024x1024 > /tmp/ab$r.txt 2>&1
  echo "ab$r rc=$?"; grep -E "^== |whole runs with" /tmp/ab$r.txt
  cat /tmp/ab$r.txt >> $OUT/ab-one_launch_twiddle_table.txt
done
if [[ $steps == *" ncu "* ]]; then
  timeout 150 bash tests/device/ncu_source.sh $B 1024x1024 fast_c2c_one_launch $OUT/src-1024 20 2>&1 | tail -50
fi
if [[ $steps == *" suite "* ]]; then
  timeout 300 $B/tests/specview_gpu_tests > $OUT/gpu-suite.txt 2>&1
  echo "suite rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " $OUT/gpu-suite.txt | head
fi
