#!/bin/bash
# m102 (twenty-ninth session; gpu/PERF_NOTES.md "m102"): the C2C column blocks' first pass with a thread's butterflies
# neighbours. From the repository root on the device, carry [".debs", ".vkfft"]:
#   bash tests/device/pending/run_m102.sh build tests memcheck ab1 ab2 ab3 banks     (first call, ~470 s fresh)
#   bash tests/device/pending/run_m102.sh suite                                      (warm: the whole GPU suite)
# banks: ncu's shared-store wavefronts and bank conflicts of the 1024^2 and 512^2 one-launch kernels, both sides of
# --ab blocked_first_pass (the benchmark runs both sides; each distinct value with its count of launches).
source tests/device/env.sh
B=build-device
steps=" $* "
if [[ $steps == *" build "* ]]; then
  cmake -S . -B $B -G Ninja -DSPECVIEW_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null || exit 1
  cmake --build $B -j16 --target specview-bench specview_gpu_tests > /tmp/build.log 2>&1 || { grep -A3 error /tmp/build.log | head -40; exit 1; }
  echo "build done $SECONDS s"
fi
if [[ $steps == *" tests "* ]]; then
  timeout 200 $B/tests/specview_gpu_tests --gtest_filter='FastFft.BlockedFirst*:FastFft.OneLaunch*:FastFft.ComplexTransform*:FastFft.EveryLayout*:FastFft.LineBarriers*:EngineGpu.*' > $OUT/tests.txt 2>&1
  echo "tests rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" -A2 $OUT/tests.txt | head -30
fi
if [[ $steps == *" memcheck "* ]]; then
  SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.BlockedFirst*' > $OUT/memcheck.txt 2>&1
  echo "memcheck rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt
  SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool racecheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.BlockedFirst*' > $OUT/racecheck.txt 2>&1
  echo "racecheck rc=$? $SECONDS s"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" $OUT/racecheck.txt
fi
for r in 1 2 3; do
  [[ $steps == *" ab$r "* ]] || continue
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab blocked_first_pass --sizes 512x512,1024x1024,4096x512 > /tmp/ab$r.txt 2>&1
  echo "ab$r rc=$?"; grep -E "^== |whole runs with" /tmp/ab$r.txt
  cat /tmp/ab$r.txt >> $OUT/ab-blocked_first_pass.txt
done
if [[ $steps == *" banks "* ]]; then
  for size in 1024x1024 512x512; do
    timeout 120 /usr/local/cuda/bin/ncu --kernel-name-base demangled --kernel-name regex:fast_c2c_one_launch --launch-count 400 \
      --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
      $B/tests/specview-bench --no-sweep --quick --reps 3 --ab blocked_first_pass --sizes $size --csv /dev/null > $OUT/banks-$size.txt 2>&1
    echo "banks $size rc=$? (launches per distinct value)"
    grep -E "l1tex__data" $OUT/banks-$size.txt | awk '{print $1, $NF}' | sort | uniq -c | head -12
  done
fi
if [[ $steps == *" suite "* ]]; then
  timeout 300 $B/tests/specview_gpu_tests > $OUT/gpu-suite.txt 2>&1
  echo "suite rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " $OUT/gpu-suite.txt | head
fi
