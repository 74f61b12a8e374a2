# The steps the pending scripts (run_m*.sh) share, sourced by them from the repository root on the device: the
# carried packages' environment, then `pending_steps SWITCH SIZES TESTS SANITIZED "$@"` runs the steps named in
# "$@": build (the benchmark and the GPU tests, no UI), tests (gtest filter TESTS), memcheck (memcheck and racecheck
# of the filter SANITIZED, a small run), ab1 ab2 ab3 (rounds of --ab SWITCH at SIZES), quick (two --quick runs),
# suite (the whole GPU suite). Logs and results land in $OUT. On a fresh machine build (~285 s) + quick (~90 s) +
# suite (~220 s) overran one 600 s call in the thirty-first session: give the suite a warm call of its own.
source tests/device/env.sh
B=build-device
pending_steps() {
  local switch=$1 sizes=$2 tests=$3 sanitized=$4
  shift 4
  local steps=" $* "
  if [[ $steps == *" build "* ]]; then
    cmake -S . -B $B -G Ninja -DSPECVIEW_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null || return 1
    cmake --build $B -j16 --target specview-bench specview_gpu_tests > /tmp/build.log 2>&1 || { grep -A3 error /tmp/build.log | head -40; return 1; }
    echo "build done $SECONDS s"
  fi
  if [[ $steps == *" tests "* ]]; then
    timeout 300 $B/tests/specview_gpu_tests --gtest_filter="$tests" > $OUT/tests.txt 2>&1
    echo "tests rc=$? $SECONDS s"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" -A2 $OUT/tests.txt | head -30
  fi
  if [[ $steps == *" memcheck "* ]]; then
    for tool in memcheck racecheck; do
      SPECVIEW_TEST_SMALL=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool $tool --error-exitcode 99 \
        $B/tests/specview_gpu_tests --gtest_filter="$sanitized" > $OUT/$tool.txt 2>&1
      echo "$tool rc=$? $SECONDS s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/$tool.txt
    done
  fi
  for r in 1 2 3; do
    [[ $steps == *" ab$r "* ]] || continue
    timeout 100 $B/tests/specview-bench --no-sweep --quick --ab "$switch" --sizes "$sizes" > /tmp/ab$r.txt 2>&1
    echo "ab$r rc=$?"; grep -E "^== |whole runs with" /tmp/ab$r.txt
    cat /tmp/ab$r.txt >> $OUT/ab-$switch.txt
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
}
