#!/usr/bin/env bash
# A/B on the GPU machine: the code before (A) and after (B) a change, built side by side and benchmarked alternately
# on one machine in one session (the way PERF_NOTES.md's before/after figures are taken).
#
# Here, where git is:
#   tests/device/ab.sh prepare [REV]   A = REV (default HEAD): copies REV's version of every file the working tree
#                                      changes, adds or deletes into .ab-base/ (.gitignore has it; carry it). B = the tree.
#                                      Also fetches .debs (tests/device/debs.txt) and copies .vkfft where missing.
#                                      AB_MID=PATCH: a third side M = REV with PATCH applied (two steps measured in one
#                                      build: A = before, M = the first step, B = the tree with both), its changed
#                                      files kept in .ab-base/mid/; build, bench and the comparison then take all three.
# There (the `device` tool; carry .ab-base, .debs and .vkfft), in as many calls as the 10-minute limit needs, on one
# warm machine:
#   tests/device/ab.sh build           builds A and B (specview-bench; B also specview_gpu_tests) in parallel (and M)
#   tests/device/ab.sh bench           each side's specview-bench AB_RUNS times, alternately (A B A B ...), then the
#                                      comparison (tests/bench/ab_compare.py) into $OUT/ab.txt
#   tests/device/ab.sh test            B's GPU tests matching AB_TESTS (a gtest filter)
#   tests/device/ab.sh sass            both sides' static SASS counts of fft_mixed.cu (AB_SASS_OBJ), kernel by kernel
#                                      (AB_SASS_MATCH: a regex), into $OUT/sass.md; needs the toolkit's cuobjdump
#   tests/device/ab.sh ncu             Nsight Compute on both sides' kernels matching AB_NCU_KERNEL at AB_NCU_SIZE
#                                      (default 3000x2000), the first AB_NCU_COUNT (4) launches after AB_NCU_SKIP (0);
#                                      AB_NCU_BASE=demangled matches the regex against the name with its template
#                                      arguments (the benchmark runs other variants of a kernel before the engine's:
#                                      e.g. 'fast_cols_kernel<\(bool\)0, \(int\)1024' for 2048^2 C2C's columns: ncu
#                                      writes the arguments with their casts; VkFFT's ~40 launches come first, so
#                                      AB_NCU_SKIP or a larger AB_NCU_COUNT); $OUT/ncu-{a,b}.txt
# Variables: AB_SIZES (the bench's --sizes; default the users' exact sizes), AB_RUNS (2), AB_BENCH_ARGS (default
# --no-sweep), AB_TESTS (default FastFft.*:EngineGpu.*), AB_MATCH (a regex for the comparison's lines).
# Both builds live in build-ab/ (ignored), which stays on the machine between calls while it is warm.
set -u
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
base_dir=.ab-base
work=build-ab
step=${1:-}

if [ "$step" = prepare ]; then
  rev=${2:-HEAD}
  git rev-parse --verify -q "$rev^{commit}" > /dev/null || { echo "ab.sh: no such revision: $rev" >&2; exit 2; }
  rm -rf "$base_dir" && mkdir -p "$base_dir/files"
  : > "$base_dir/absent"
  # changed or deleted since REV: REV's copy; added (tracked or not): absent from A
  { git diff --name-only "$rev"; git ls-files --others --exclude-standard; } | sort -u | while read -r f; do
    case "$f" in "$base_dir"/*) continue ;; esac
    if git cat-file -e "$rev:$f" 2>/dev/null; then
      mkdir -p "$base_dir/files/$(dirname "$f")"
      git show "$rev:$f" > "$base_dir/files/$f"
    else
      echo "$f" >> "$base_dir/absent"
    fi
  done
  git rev-parse "$rev" > "$base_dir/rev"
  if [ -n "${AB_MID:-}" ]; then
    # M = REV with AB_MID applied: REV's copies of the files it touches, patched in a scratch folder (git apply works
    # outside a repository), kept whole so that the device needs neither git nor patch
    [ -f "$AB_MID" ] || { echo "ab.sh: no such patch: $AB_MID" >&2; exit 2; }
    mid_abs=$(cd "$(dirname "$AB_MID")" && pwd)/$(basename "$AB_MID")
    tmp=$(mktemp -d)
    git apply --numstat "$mid_abs" | cut -f3 | while read -r f; do
      mkdir -p "$tmp/$(dirname "$f")"
      git cat-file -e "$rev:$f" 2>/dev/null && git show "$rev:$f" > "$tmp/$f"
    done
    if ! (cd "$tmp" && git apply "$mid_abs"); then
      echo "ab.sh: $AB_MID does not apply to $rev" >&2; rm -rf "$tmp"; exit 2
    fi
    mkdir -p "$base_dir/mid" && cp -r "$tmp/." "$base_dir/mid/" && rm -rf "$tmp"
    echo "$AB_MID" > "$base_dir/mid.name"
  fi
  # what the build there needs and the checkout does not keep: the Debian packages (.debs) and VkFFT's headers
  if [ ! -f .debs/.from-debs-txt ] || ! cmp -s tests/device/debs.txt .debs/.from-debs-txt; then
    fetch=../shared/gpu/fetch-dev-debs.sh
    [ -x "$fetch" ] || fetch="bash $fetch"
    # shellcheck disable=SC2046  # the list's words are the package names
    if ! { rm -rf .debs && $fetch $(grep -v '^#' tests/device/debs.txt) > /dev/null; }; then
      echo "ab.sh: could not fetch .debs (see tests/device/debs.txt)" >&2
      exit 1
    fi
    cp tests/device/debs.txt .debs/.from-debs-txt
  fi
  if [ ! -d .vkfft/vkFFT ] && [ -d ../shared/third_party/vkfft/vkFFT ]; then
    mkdir -p .vkfft && cp -r ../shared/third_party/vkfft/vkFFT ../shared/third_party/vkfft/LICENSE .vkfft/
  fi
  echo "A = $(git log -1 --format='%h %s' "$rev" | cut -c1-100)"
  echo "B = the working tree; files that differ: $(cd "$base_dir/files" && find . -type f | sed 's|^\./||' | tr '\n' ' ')"
  [ -d "$base_dir/mid" ] && echo "M = A with $(cat "$base_dir/mid.name"): $(cd "$base_dir/mid" && find . -type f | sed 's|^\./||' | tr '\n' ' ')"
  [ -s "$base_dir/absent" ] && echo "absent from A: $(tr '\n' ' ' < "$base_dir/absent")"
  echo "carry: [\"$base_dir\", \".debs\", \".vkfft\"]"
  exit 0
fi

OUT=${OUT:-/tmp/specview-ab}
mkdir -p "$OUT"
# the carried packages unpacked and the variables exported (stb, CLI11)
# shellcheck source=tests/device/env.sh
source tests/device/env.sh

case "$step" in
build)
  [ -d "$base_dir/files" ] || { echo "ab.sh: no $base_dir (run 'tests/device/ab.sh prepare' here first, and carry it)" >&2; exit 2; }
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
  rm -rf "$work/a-src" && mkdir -p "$work/a-src"
  # A's sources: the tree (without build outputs) with .ab-base laid over it
  tar -cf - --exclude=./build* --exclude=./.git --exclude=./.ab-base . | tar -xf - -C "$work/a-src"
  cp -r "$base_dir/files/." "$work/a-src/"
  while read -r f; do [ -n "$f" ] && rm -f "$work/a-src/$f"; done < "$base_dir/absent"
  sides=2
  if [ -d "$base_dir/mid" ]; then
    # M's sources: A's with the patched files laid over them
    rm -rf "$work/m-src" && mkdir -p "$work/m-src" && cp -r "$work/a-src/." "$work/m-src/" && cp -r "$base_dir/mid/." "$work/m-src/"
    sides=3
  fi
  [ "${AB_DRY:-0}" = 1 ] && { echo "sources laid out ($sides sides); AB_DRY=1: not built"; exit 0; }
  start=$(date +%s)
  jobs=$(( $(nproc) / sides )); [ "$jobs" -lt 1 ] && jobs=1
  one() {  # one() SIDE SOURCE TARGETS...
    local side=$1 src=$2; shift 2
    cmake -S "$src" -B "$root/$work/$side" -G Ninja -DSPECVIEW_BUILD_UI=OFF -DCMAKE_BUILD_TYPE=Release \
      > "$OUT/configure-$side.log" 2>&1 || { echo "$side: configure failed"; tail -20 "$OUT/configure-$side.log"; return 1; }
    cmake --build "$root/$work/$side" -j"$jobs" --target "$@" > "$OUT/build-$side.log" 2>&1 ||
      { echo "$side: build failed"; grep -E "error" -A3 "$OUT/build-$side.log" | head -30; return 1; }
    echo "$side: built"
  }
  one a "$root/$work/a-src" specview-bench & pa=$!
  one b "$root" specview-bench specview_gpu_tests & pb=$!
  rmid=0
  if [ "$sides" = 3 ]; then one m "$root/$work/m-src" specview-bench & pm=$!; fi
  wait $pa; ra=$?; wait $pb; rb=$?
  [ "$sides" = 3 ] && { wait "$pm"; rmid=$?; }
  echo "builds: $(( $(date +%s) - start )) s"
  exit $(( ra | rb | rmid ))
  ;;
bench)
  sides="a b"
  [ -d "$base_dir/mid" ] && sides="a m b"
  for side in $sides; do
    [ -x "$work/$side/tests/specview-bench" ] || { echo "ab.sh: $work/$side has no specview-bench (run 'ab.sh build' on this machine first)" >&2; exit 2; }
  done
  sizes=${AB_SIZES:-1920x1080,1080x1920,2560x1440,3000x2000,3840x2160,4000x3000,4032x3024}
  runs=${AB_RUNS:-2}
  rc=0
  for r in $(seq 1 "$runs"); do
    for side in $sides; do
      start=$(date +%s)
      # shellcheck disable=SC2086
      "$work/$side/tests/specview-bench" ${AB_BENCH_ARGS:---no-sweep} --sizes "$sizes" --csv "$OUT/$side-$r.csv" \
        > "$OUT/$side-$r.txt" 2>&1
      x=$?; rc=$((rc | x))
      echo "$side run $r: rc=$x, $(( $(date +%s) - start )) s"
    done
  done
  compare() {  # compare FROM TO OUTFILE: the comparison of two sides' runs, and its key lines
    local from_csv to_csv
    from_csv=$(ls "$OUT"/"$1"-*.csv 2>/dev/null); to_csv=$(ls "$OUT"/"$2"-*.csv 2>/dev/null)
    if [ -n "$from_csv" ] && [ -n "$to_csv" ]; then
      # shellcheck disable=SC2086
      python3 tests/bench/ab_compare.py $from_csv -- $to_csv ${AB_MATCH:+--match "$AB_MATCH"} > "$OUT/$3"
      echo "== $3 ($1 -> $2)"
      grep -E "^\| .*(FastFft's block sizes|, whole \||vkfft_c2c)" "$OUT/$3" |
        cut -c1-200
    else
      echo "ab.sh: side $1 or $2 wrote no CSV; their output:"; tail -n 5 "$OUT"/"$1"-*.txt "$OUT"/"$2"-*.txt
    fi
  }
  compare a b ab.txt
  if [ "$sides" = "a m b" ]; then compare a m ab-am.txt; compare m b ab-mb.txt; fi
  # the runs' text and CSVs in one file (the device tool brings back at most 8)
  (cd "$OUT" && shopt -s nullglob && tar -czf runs.tgz [amb]-*.txt [amb]-*.csv && rm -f [amb]-*.txt [amb]-*.csv)
  exit $rc
  ;;
test)
  [ -x "$work/b/tests/specview_gpu_tests" ] || { echo "ab.sh: $work/b has no specview_gpu_tests (run 'ab.sh build' first)" >&2; exit 2; }
  start=$(date +%s)
  "$work/b/tests/specview_gpu_tests" --gtest_filter="${AB_TESTS:-FastFft.*:EngineGpu.*}" > "$OUT/tests.log" 2>&1; r=$?
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure" -A3 "$OUT/tests.log" | head -40
  echo "tests rc=$r ($(( $(date +%s) - start )) s)"
  exit $r
  ;;
sass)
  # Static SASS counts of both sides' fft_mixed.cu (or AB_SASS_OBJ) object: what a register cap or a rewrite did to
  # each kernel's instructions, side by side (tests/bench/sass_counts.py --against).
  obj_name=${AB_SASS_OBJ:-fft_mixed.cu.o}
  dump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  for side in a b; do
    obj=$(find "$work/$side" -name "$obj_name" -print -quit)
    [ -n "$obj" ] || { echo "ab.sh: no $obj_name under $work/$side (run 'ab.sh build' on this machine first)" >&2; exit 2; }
    "$dump" -sass "$obj" > "/tmp/ab-$side.sass" || { echo "ab.sh: cuobjdump failed on $obj" >&2; exit 1; }
  done
  python3 tests/bench/sass_counts.py /tmp/ab-a.sass --against /tmp/ab-b.sass --match "${AB_SASS_MATCH:-.}" > "$OUT/sass.md"
  r=$?
  cat "$OUT/sass.md"
  exit $r
  ;;
ncu)
  # Nsight Compute on both sides' kernels matching AB_NCU_KERNEL at one size (AB_NCU_SIZE), the first AB_NCU_COUNT
  # launches each: throughput, occupancy, launch shape (with the shared-memory carveout the driver chose: PERF_NOTES.md
  # m51), warp stalls; $OUT/ncu-a.txt, ncu-b.txt and their key lines.
  size=${AB_NCU_SIZE:-3000x2000}
  kernel=${AB_NCU_KERNEL:-mixed_(rows_c2c|cols_interleaved)}
  for side in a b; do
    [ -x "$work/$side/tests/specview-bench" ] || { echo "ab.sh: $work/$side has no specview-bench" >&2; exit 2; }
    start=$(date +%s)
    ncu --kernel-name-base "${AB_NCU_BASE:-function}" --kernel-name "regex:$kernel" --launch-skip "${AB_NCU_SKIP:-0}" \
      --launch-count "${AB_NCU_COUNT:-4}" --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
      "$work/$side/tests/specview-bench" --sizes "$size" --no-sweep --reps 5 --csv /dev/null > "$OUT/ncu-$side.txt" 2>&1
    r=$?
    echo "== $side: ncu rc=$r ($(( $(date +%s) - start )) s)"
    grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per Thread|Issued Warp Per|No Eligible|Warp Cycles Per Issued|Stall Long Scoreboard|Block Limit (Registers|Shared Mem)|Waves Per SM|Shared Memory Configuration Size|Dynamic Shared Memory Per Block" \
      "$OUT/ncu-$side.txt" | cut -c1-160 | head -120
  done
  ;;
*)
  echo "usage: tests/device/ab.sh prepare [REV] | build | bench | test | sass | ncu" >&2
  exit 2
  ;;
esac
