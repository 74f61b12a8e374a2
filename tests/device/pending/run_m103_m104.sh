#!/bin/bash
# m103 and m104 (prepared in the twenty-ninth session, not yet run on the device; gpu/PERF_NOTES.md "m103", "m104").
# From the repository root on the device, after `git apply tests/device/pending/m103-m104.patch`, carry [".debs", ".vkfft"]:
#   bash tests/device/pending/run_m103_m104.sh build tests memcheck ab1 ab2 ab3 banks     (first call, ~500 s fresh)
#   bash tests/device/pending/run_m103_m104.sh suite                                      (warm: the whole GPU suite)
# abN: round N of --ab blocked_first_elsewhere (R2C both layouts and the picture at 1024^2, 2048^2, 2048 x 1024; the
# columns-first C2C at 2048 x 512) and of --ab blocked_first_tma (C2C 2048^2 and 4096 x 2048).
# banks: ncu's shared-store wavefronts and bank conflicts of the TMA column kernel at 2048^2, both sides.
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
  SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.BlockedFirst*' > $OUT/memcheck.txt 2>&1
  echo "memcheck rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt
  SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool racecheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.BlockedFirst*' > $OUT/racecheck.txt 2>&1
  echo "racecheck rc=$? $SECONDS s"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" $OUT/racecheck.txt
fi
for r in 1 2 3; do
  [[ $steps == *" ab$r "* ]] || continue
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab blocked_first_elsewhere --sizes 1024x1024,2048x2048,2048x1024,2048x512 > /tmp/abe$r.txt 2>&1
  echo "ab$r elsewhere rc=$?"; grep -E "^== |whole runs with" /tmp/abe$r.txt
  cat /tmp/abe$r.txt >> $OUT/ab-blocked_first_elsewhere.txt
  timeout 100 $B/tests/specview-bench --no-sweep --quick --ab blocked_first_tma --sizes 2048x2048,4096x2048 > /tmp/abt$r.txt 2>&1
  echo "ab$r tma rc=$?"; grep -E "^== |whole runs with" /tmp/abt$r.txt
  cat /tmp/abt$r.txt >> $OUT/ab-blocked_first_tma.txt
done
if [[ $steps == *" banks "* ]]; then
  timeout 120 /usr/local/cuda/bin/ncu --kernel-name-base demangled --kernel-name regex:fast_cols_tma_kernel --launch-count 200 \
    --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
    $B/tests/specview-bench --no-sweep --quick --reps 3 --ab blocked_first_tma --sizes 2048x2048 --csv /dev/null > $OUT/banks-tma-2048.txt 2>&1
  echo "banks rc=$? (launches per metric and value, in thousands)"
  grep -E "l1tex__data" $OUT/banks-tma-2048.txt | awk '{gsub(",","",$NF); print $1, int($NF/1000)"k"}' | sort | uniq -c
fi
if [[ $steps == *" suite "* ]]; then
  timeout 300 $B/tests/specview_gpu_tests > $OUT/gpu-suite.txt 2>&1
  echo "suite rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) " $OUT/gpu-suite.txt | head
fi
