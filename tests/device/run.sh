#!/usr/bin/env bash
# Builds and checks specview on the GPU machine (the `device` tool's H100): configure without the UI, build,
# GPU + CPU tests, compute-sanitizer memcheck/racecheck, the benchmark. Logs land in $OUT.
#   tests/device/run.sh [build] [test] [memcheck] [racecheck] [bench] [decode] [big] [cli] [latency] [viewer] [labviewer] [tiff16] [stack] [video] [mixed] [volume] [multigpu] [volviewer] [opencl] [api] [glviewer] [ncu] [faults]
#   (BUILD_TARGETS="specview specview_gui_tests ..." builds only those: a short call)
#   (default: all but ncu; MEMCHECK_FILTER / RACECHECK_FILTER narrow the sanitizers' gtest filters)
# The viewer builds there too (offscreen EGL platform) when .debs carries libimgui-dev and .glad a pre-generated
# glad (the machine has no generator): `cp -r build/ui/glad .glad` here.
set -u
OUT=${OUT:-/tmp/specview-device}
mkdir -p "$OUT"
steps=${*:-build test memcheck racecheck bench decode cli latency viewer faults}
has() { [[ " $steps " == *" $1 "* ]]; }
B=${B:-build-device}  # (B=build/carry-local: programs built here, tests/device/pack_local.sh)

# The carried packages unpacked and the variables exported (stb, CLI11, FFmpeg, the GL/EGL loaders).
source "$(dirname "$0")/env.sh"

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"

if has build; then
  start=$(date +%s)
  ui=OFF
  [ -d .glad ] && ui=AUTO
  cmake -S . -B $B -G Ninja -DSPECVIEW_BUILD_UI=$ui -DSPECVIEW_GLAD_DIR="$PWD/.glad" -DCMAKE_BUILD_TYPE=Release \
    > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
  grep "specview:" "$OUT/configure.log"
  cmake --build $B -j"$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS} > "$OUT/build.log" 2>&1 ||
    { grep -E "error" -A3 "$OUT/build.log" | head -60; exit 1; }
  echo "build: $(( $(date +%s) - start )) s"
fi
rc=0
if has test; then
  start=$(date +%s)
  $B/tests/specview_gpu_tests > "$OUT/gpu-tests.log" 2>&1; r=$?; rc=$((rc | r))
  grep -E "^\[ (rows|custom2d|cufft|fast|nvdec) |PASSED|FAILED|SKIPPED|Failure|: model " -A3 "$OUT/gpu-tests.log" | head -60
  echo "gpu tests rc=$r ($(( $(date +%s) - start )) s)"
  if [ -x $B/tests/specview_interop_tests ]; then
    $B/tests/specview_interop_tests > "$OUT/interop.log" 2>&1; r=$?; rc=$((rc | r))
    grep -E "interop|PASSED|FAILED|SKIPPED|Failure" "$OUT/interop.log" | head -10
  fi
  start=$(date +%s)
  # The tests that make the GPU fault on purpose (SPECVIEW_TEST_GPU_FAULT: *LostGpu*) are the step `faults`, the
  # last of all: after their faults the H100's offscreen GL rendered black frames for a few minutes (seen
  # 2026-12-06), and every viewer started there on a GPU backend later in that call hung (seen 2026-12-06 too).
  (cd $B && ctest -L cpu -E LostGpu -j8 --output-on-failure > "$OUT/cpu-tests.log" 2>&1); r=$?; rc=$((rc | r))
  tail -4 "$OUT/cpu-tests.log"
  echo "cpu tests rc=$r ($(( $(date +%s) - start )) s)"
  if [ -x $B/tests/specview_gui_tests ]; then  # the real viewer, offscreen on the GPU (no X here)
    start=$(date +%s)
    # NVDEC is there (tests/device/run.sh video checks it): the viewer's GPU video test must use it.
    SPECVIEW_EXPECT_NVDEC=1 SPECVIEW_GUI_OFFSCREEN=1 $B/tests/specview_gui_tests --gtest_filter='-*LostGpu*' \
      > "$OUT/gui-tests.log" 2>&1; r=$?; rc=$((rc | r))
    grep -E "texture|nvdec|PASSED|FAILED|SKIPPED|Failure" -A2 "$OUT/gui-tests.log" | head -30
    echo "gui tests (offscreen) rc=$r ($(( $(date +%s) - start )) s)"
  fi
fi
for tool in memcheck racecheck; do
  if has $tool; then
    start=$(date +%s)
    filter=${MEMCHECK_FILTER:-'*'}
    [ $tool = racecheck ] && filter=${RACECHECK_FILTER:-'FftRows.*:Transpose.*:Custom2D.EveryStop*:PostKernels.*:FastFft.*:Live.*'}
    SPECVIEW_TEST_SMALL=1 compute-sanitizer --tool $tool --error-exitcode 99 $B/tests/specview_gpu_tests \
      --gtest_filter="$filter" > "$OUT/$tool.log" 2>&1; r=$?; rc=$((rc | r))
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$OUT/$tool.log" | head -10
    echo "$tool rc=$r ($(( $(date +%s) - start )) s)"
  fi
done
if has bench; then
  start=$(date +%s)
  $B/tests/specview-bench --csv "$OUT/bench.csv" ${BENCH_ARGS:-} > "$OUT/bench.txt" 2>&1; r=$?; rc=$((rc | r))
  sed -n '/^Summary/,$p' "$OUT/bench.txt"
  echo "bench rc=$r ($(( $(date +%s) - start )) s)"
fi
if has decode; then  # what the sandboxed decoder processes cost per image, on this machine's cores
  $B/tests/specview-decode-bench 40 5 > "$OUT/decode.txt" 2>&1; r=$?; rc=$((rc | r))
  cat "$OUT/decode.txt"
fi
if has big; then  # a 16384^2 8-bit gray PNG through the CLI on every backend: wall, peak memory (issue: untrusted images)
  python3 - <<'EOP'
import struct, zlib, random
w = h = 16384
random.seed(1)
row = bytes(random.randrange(256) for _ in range(w))
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
co = zlib.compressobj(1)
data = b''.join(co.compress(b'\x00' + row[y % 97:] + row[:y % 97]) for y in range(h)) + co.flush()
open('/tmp/g16k.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0)) +
                             chunk(b'IDAT', data) + chunk(b'IEND', b''))
EOP
  for b in cpu cufft custom-fast custom; do
    t0=$(date +%s.%N)
    $B/specview --headless /tmp/g16k.png -o /tmp/g16k_$b.png --force --backend $b --timings > "$OUT/big-$b.txt" 2>&1
    r=$?; rc=$((rc | r))
    echo "$b: rc=$r, $(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" $t0 $(date +%s.%N)) s wall"
    grep -E "peak resident|total|error|specview:" "$OUT/big-$b.txt"
  done
fi
if has cli; then  # the whole process against the numpy script: single photos and a batch of JPEGs
  bash tests/bench/cli_bench.sh $B ${CLI_REPS:-3} ${CLI_BATCH:-200} "${CLI_BACKENDS:-cpu cufft custom-fast}" \
    > "$OUT/cli.txt" 2>&1; r=$?; rc=$((rc | r))
  cat "$OUT/cli.txt"
fi
if has latency; then
  start=$(date +%s)
  $B/tests/specview-latency --csv "$OUT/latency.csv" ${LATENCY_ARGS:-} > "$OUT/latency.txt" 2>&1; r=$?; rc=$((rc | r))
  cat "$OUT/latency.txt"
  echo "latency rc=$r ($(( $(date +%s) - start )) s)"
fi
if has viewer && [ -x $B/specview ]; then
  # The viewer itself, scripted, offscreen: drag the custom kernels' knobs on an 8192^2 photo, then a plane
  # setting on cuFFT; frame times and change latencies from its report.
  start=$(date +%s)
  $B/tests/specview-latency --write-photo /tmp/photo8192.png 8192
  cat > /tmp/drag.txt <<EOS
set backend custom
wait-ready
drag threads-per-block 32 1024 30
wait-ready
drag block-height 1 64 30
wait-ready
drag threads-per-block 1024 64 30
wait-ready
hover 12 -7
wait 3
screenshot $OUT/viewer-8192.png
quit
EOS
  cat > /tmp/tukey.txt <<EOS
set backend cufft
set window tukey
wait-ready
drag tukey-alpha 0 1 30
wait-ready
set backend custom-fast
wait-ready
drag colormap gray turbo 30
wait-ready
quit
EOS
  for s in drag tukey; do
    # (timeout: after the fault tests every GPU viewer there hung, 2026-12-06; a hang is a failure, not a lost call)
    timeout 240 $B/specview --offscreen --script /tmp/$s.txt --report "$OUT/viewer-$s.json" /tmp/photo8192.png > "$OUT/viewer-$s.log" 2>&1
    r=$?; rc=$((rc | r)); echo "viewer $s rc=$r"; tail -3 "$OUT/viewer-$s.log"
    python3 - "$OUT/viewer-$s.json" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1])); f = sorted(r["frame_ms"]); n = len(f)
print(f'{r["device"]} | {r["backend"]} | image {r["image"]} | {n} frames: median {f[n//2]:.2f} ms, p95 {f[int(0.95*(n-1))]:.2f}, max {f[-1]:.2f}, over 16.7 ms: {sum(x > 16.7 for x in f)}')
by = {}
for c in r["changes"]: by.setdefault(c["action"], []).append(c["ready_ms"])
for a, v in by.items():
    got = sorted(x for x in v if x is not None)
    med = f"{got[len(got)//2]:.2f}" if got else "-"
    print(f'  {a}: {len(v)} changes, {len(got)} shown, median ready {med} ms, last {v[-1]}')
EOP
  done
  echo "viewer rc=$rc ($(( $(date +%s) - start )) s)"
fi
if has labviewer && [ -x $B/specview ]; then
  # The frequency lab live, scripted, offscreen: on 4096^2 and 8192^2 photos, per GPU backend, a filter then 20
  # brush dabs, each waited for: the report's ready_ms is the wall time from the change to the filtered image
  # (and the masked spectrum) in their textures.
  start=$(date +%s)
  for n in ${LAB_SIZES:-4096 8192}; do
    [ -f /tmp/photo$n.png ] || $B/tests/specview-latency --write-photo /tmp/photo$n.png $n
    for b in ${LAB_BACKENDS:-cufft custom-fast custom}; do
      { echo "set backend $b"; echo "filter lowpass:0.2,gauss"; echo "wait-ready"; echo "wait 5"
        for i in $(seq 1 20); do echo "paint $((i * 7)) $((i * 3 - 30)) 4"; echo "wait-ready"; done
        echo "set lab-view difference"; echo "wait-ready"
        for i in $(seq 1 10); do echo "erase $((i * 7)) $((i * 3 - 30)) 4"; echo "wait-ready"; done
        [ $n = 4096 ] && [ $b = cufft ] && echo "screenshot $OUT/lab-4096.png"
        echo "quit"; } > /tmp/lab-$b.txt
      $B/specview --offscreen --script /tmp/lab-$b.txt --report "$OUT/lab-$n-$b.json" /tmp/photo$n.png > "$OUT/lab-$n-$b.log" 2>&1
      r=$?; rc=$((rc | r)); echo "lab viewer $n $b rc=$r"; tail -2 "$OUT/lab-$n-$b.log"
      python3 - "$OUT/lab-$n-$b.json" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1])); f = sorted(r["frame_ms"]); n = len(f)
print(f'{r["device"]} | {r["backend"]} | image {r["image"]} | {n} frames: median {f[n//2]:.2f} ms, p95 {f[int(0.95*(n-1))]:.2f}')
for verb in ("paint", "erase"):
    cs = [c for c in r["changes"] if c["action"].startswith(verb) and c["ready_ms"] is not None]
    if not cs: continue
    med = lambda v: sorted(v)[len(v) // 2]
    v = sorted(c["ready_ms"] for c in cs)
    work = [c["ready_ms"] - c["frame_wait_ms"] for c in cs]
    print(f'  {verb}: {len(v)} mask changes, change -> textures written median {med(v):.2f} ms (min {v[0]:.2f}, max {v[-1]:.2f}); '
          f'without the wait for the next frame median {med(work):.2f} ms (max {max(work):.2f}); noticed at a frame median {med([c["seen_ms"] for c in cs]):.2f} ms')
    print('    of which (medians): ' + ', '.join(f'{k} {med([c[k] for c in cs]):.2f} ms' for k in ("pickup_ms", "slot_wait_ms", "engine_ms", "after_engine_ms", "frame_wait_ms")))
    for t in ("copy", "lab_copy"):
        got = [c[t] for c in cs if t in c]
        if got: print(f'    {t} into its texture (medians): ' + ', '.join(f'{k} {med([g[k] for g in got]):.3f} ms' for k in ("issue_ms", "map_ms", "copy_ms", "unmap_ms")))
EOP
    done
  done
  echo "lab viewer rc=$rc ($(( $(date +%s) - start )) s)"
fi
if has tiff16; then  # an 8192^2 16-bit TIFF: the viewer's first picture against its decode (target: decode + 80 ms)
  start=$(date +%s)
  [ -f /tmp/t16.tif ] || $B/tests/specview-latency --write-tiff16 /tmp/t16.tif 8192
  [ -f /tmp/tiny.png ] || $B/tests/specview-latency --write-photo /tmp/tiny.png 64
  cat /tmp/t16.tif > /dev/null
  printf 'wait-ready\nquit\n' > /tmp/first.txt
  for b in cufft custom-fast custom; do
    for f in /tmp/tiny.png /tmp/t16.tif; do
      $B/specview --offscreen --backend $b --script /tmp/first.txt --report "$OUT/first-$b.json" "$f" > "$OUT/first-$b.log" 2>&1
      r=$?; rc=$((rc | r))
      python3 -c "import json,sys; r=json.load(open(sys.argv[1])); s=max(r.get('slow_frames', []), key=lambda f: f['ms'], default=None); print(f'first picture {sys.argv[2]} {sys.argv[3]}: rc={sys.argv[4]}, viewer start -> textures {r[\"first_picture_ms\"]:.1f} ms, of which read + decode {r[\"first_decode_ms\"]:.1f} ms; slowest frame: {s}'); print('  steps (ms on the viewer clock): ' + ', '.join(f'{k} {v:.1f}' for k, v in r.get('startup', {}).items())); print('  first run: ' + ', '.join(f'{n} {v:.2f}' for n, v in r.get('first_run_timings', []) if v > 0.5))" "$OUT/first-$b.json" "$b" "$f" "$r"
    done
  done
  # The same file opened in a running viewer (started on the tiny PNG), twice, per backend: the open taken up ->
  # decoded -> its first picture in the textures (the report's "opens").
  printf 'wait-ready\nopen /tmp/t16.tif\nwait-ready\nopen /tmp/tiny.png\nwait-ready\nopen /tmp/t16.tif\nwait-ready\nquit\n' > /tmp/reopen.txt
  for b in cufft custom-fast custom; do
    $B/specview --offscreen --backend $b --script /tmp/reopen.txt --report "$OUT/reopen-$b.json" /tmp/tiny.png > "$OUT/reopen-$b.log" 2>&1
    r=$?; rc=$((rc | r))
    python3 - "$OUT/reopen-$b.json" $b $r <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))
for o in r.get("opens", []):
    if o["path"].endswith(".tif"):
        print(f'open in the running viewer {sys.argv[2]} (rc={sys.argv[3]}): read + decode {o["decode_ms"]:.1f} ms, open -> decoded {o["decoded"] - o["started"]:.1f} ms, '
              f'decoded -> picture {o["picture"] - o["decoded"]:.1f} ms, open -> picture {o["picture"] - o["started"]:.1f} ms')
EOP
  done
  # What the CUDA driver, the runtime and an EGL display cost any process here, apart from specview (the floor
  # under a first picture counted from the process start), and the driver's persistence mode.
  nvidia-smi -q | grep -i -E "persistence mode" | head -2
  if g++ -O2 -std=c++17 -I/usr/local/cuda/include tests/device/startup_probe.cpp -o /tmp/startup-probe -lcuda -ldl -lpthread; then
    for i in 1 2 3; do
      for m in driver runtime egl runtime+egl; do /tmp/startup-probe $m | tr '\n' ';'; echo; done
    done | tee "$OUT/startup-probe.txt"
  fi
  for i in 1 2 3; do  # the process start to main and out (the dynamic loader: libcufft, libcudart, FFmpeg, ...)
    t0=$(date +%s.%N); $B/specview --help > /dev/null; t1=$(date +%s.%N)
    python3 -c "import sys; print(f'specview --help: {1e3*(float(sys.argv[2])-float(sys.argv[1])):.1f} ms wall')" $t0 $t1
  done
  echo "tiff16 rc=$rc ($(( $(date +%s) - start )) s)"
fi
if has stack; then  # the 512-page 1024^2 float32 TIFF stack (2 GiB): --average wall, decode included, per backend
  [ -f /tmp/stack512.tif ] || $B/tests/specview-latency --write-stack /tmp/stack512.tif 512 1024
  cat /tmp/stack512.tif > /dev/null  # the page cache warm, as the target says
  $B/tests/specview-decode-bench --stack /tmp/stack512.tif 1 2 4 8 | tee "$OUT/stack-decode.txt"  # the decoding side alone
  for b in cufft custom-fast custom cpu; do
    t0=$(date +%s.%N)
    $B/specview --headless /tmp/stack512.tif --average --backend $b -o /tmp/avg-$b.png --force --timings > "$OUT/stack-$b.txt" 2>&1
    r=$?; rc=$((rc | r))
    echo "stack average $b: rc=$r, $(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" $t0 $(date +%s.%N)) s wall"
    grep -E "transforms|wall|frames|error" "$OUT/stack-$b.txt"
  done
fi
if has video; then  # NVDEC: the driver's library, FFmpeg's cuvid decoders, a CUDA hw device (needs FFmpeg carried)
  ls -la /usr/lib/x86_64-linux-gnu/libnvcuvid* /usr/local/nvidia/lib64/libnvcuvid* 2>&1 | head -5
  if [ -x $B/tests/specview-video-probe ]; then
    $B/tests/specview-video-probe | tee "$OUT/video-probe.txt"
    # A 3840x2160 60 fps H.264 video: frames a second through decode + spectrum (the CLI's --average: every frame
    # decoded and transformed, nothing written per frame), and decoding alone.
    n=${VIDEO_FRAMES:-240}
    [ -f /tmp/v4k.mp4 ] || $B/tests/specview-latency --write-video /tmp/v4k.mp4 3840 2160 $n
    $B/tests/specview-decode-bench --stack /tmp/v4k.mp4 1 2 | tee "$OUT/video-decode.txt"
    $B/tests/specview-decode-bench --nvdec /tmp/v4k.mp4 | tee -a "$OUT/video-decode.txt"
    # --video-decode: gpu = NVDEC in this process, cpu = the isolated CPU decoder (auto picks gpu for these backends).
    for run in "cufft pow2 gpu" "cufft pow2 cpu" "cufft none gpu" "custom-fast none gpu" "custom-fast none cpu" "custom-fast pow2 gpu" "custom-fast crop gpu" "custom-fast crop cpu" "custom pow2 gpu"; do
      set -- $run
      t0=$(date +%s.%N)
      $B/specview --headless /tmp/v4k.mp4 --average --backend $1 --pad $2 --video-decode $3 -o /tmp/v4k-avg-$1-$3.png --force --timings > "$OUT/video-$1-$2-$3.txt" 2>&1
      r=$?; rc=$((rc | r))
      python3 -c "import sys; w=float(sys.argv[2])-float(sys.argv[1]); print(f'video {sys.argv[3]} --pad {sys.argv[4]} --video-decode {sys.argv[7]}: rc={sys.argv[5]}, {w:.2f} s wall, {int(sys.argv[6])/w:.1f} frames/s (decode + spectrum of each frame)')" $t0 $(date +%s.%N) $1 $2 $r $n $3
      grep -E "transforms|wall|error|decoded by" "$OUT/video-$1-$2-$3.txt"
    done
    # The same average whichever decoder ran (H.264 decodes exactly): the two pictures' bytes compared.
    cmp /tmp/v4k-avg-custom-fast-gpu.png /tmp/v4k-avg-custom-fast-cpu.png && echo "average pictures (custom-fast, crop): NVDEC = CPU decoder, identical"
    # The viewer's first picture of it (start -> spectrum in the texture), NVDEC against the CPU decoder.
    printf 'wait-ready\nquit\n' > /tmp/first-video.txt
    for how in auto cpu; do
      $B/specview --offscreen --backend cufft --video-decode $how --script /tmp/first-video.txt --report "$OUT/first-video-$how.json" /tmp/v4k.mp4 > /dev/null 2>&1
      r=$?; rc=$((rc | r))
      python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(f'first picture of the 4K video, --video-decode {sys.argv[2]}: rc={sys.argv[3]}, {r[\"first_picture_ms\"]:.0f} ms from the viewer start, decode {r[\"first_decode_ms\"]:.0f} ms')" "$OUT/first-video-$how.json" $how $r
    done
    # The viewer playing it at 60 frames/s for ~5 s: how many frames' spectra reached the textures a second (the
    # report's stack_frames), the image view following each frame.
    printf 'wait-ready\nplay 60\nwait 300\npause\nwait-ready\nquit\n' > /tmp/play.txt
    for run in "cufft auto" "custom-fast auto" "cufft cpu"; do
      set -- $run
      b=$1-$2
      $B/specview --offscreen --backend $1 --video-decode $2 --script /tmp/play.txt --report "$OUT/play-$b.json" /tmp/v4k.mp4 > "$OUT/play-$b.log" 2>&1
      r=$?; rc=$((rc | r))
      python3 - "$OUT/play-$b.json" "$1 --video-decode $2" $r <<'EOP'
import json, sys
r = json.load(open(sys.argv[1])); f = r.get("stack_frames", [])
rate = (len(f) - 3) / ((f[-2][1] - f[1][1]) / 1e3) if len(f) > 4 else 0  # intervals from the second to the one before the pause
print(f'viewer playing {sys.argv[2]}: rc={sys.argv[3]}, {len(f)} frames\' spectra shown, {rate:.1f} a second while playing; last frame {f[-1][0] + 1 if f else 0}')
EOP
    done
  else echo "no specview-video-probe: this build found no FFmpeg (carry .ffmpeg: tests/device/fetch-ffmpeg.sh)"; fi
fi
if has mixed; then  # custom-fast at exact sizes (issue 13): its tests, then the benchmark at the users' sizes
  start=$(date +%s)
  $B/tests/specview_gpu_tests --gtest_filter='FastFft.*:EngineGpu.NonPowerOfTwo*:Lab.*' > "$OUT/mixed-tests.log" 2>&1; r=$?; rc=$((rc | r))
  grep -E "^\[ fast|PASSED|FAILED|Failure" -A3 "$OUT/mixed-tests.log" | head -60
  echo "mixed tests rc=$r ($(( $(date +%s) - start )) s)"
  SPECVIEW_TEST_SMALL=1 compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/specview_gpu_tests \
    --gtest_filter='FastFft.CompiledIn*:FastFft.MixedRadix*:FastFft.ComplexTransform*' > "$OUT/mixed-memcheck.log" 2>&1
  r=$?; rc=$((rc | r)); grep -E "ERROR SUMMARY" "$OUT/mixed-memcheck.log"; echo "mixed memcheck rc=$r"
  # the photo and frame sizes both ways round (their plans are compiled in, PERF_NOTES.md m9) and a Bluestein size;
  # MIXED_SIZES to choose
  $B/tests/specview-bench --csv "$OUT/bench-mixed.csv" --no-sweep \
    --sizes "${MIXED_SIZES:-1920x1080,1080x1920,2560x1440,3000x2000,3840x2160,4000x3000,4032x3024,3024x4032,6000x4000,1009x1013}" \
    > "$OUT/bench-mixed.txt" 2>&1; r=$?; rc=$((rc | r))
  grep -E "unpadded / faster|compiled-in plans /|^==" "$OUT/bench-mixed.txt"
  sed -n '/^Issue 13/,$p' "$OUT/bench-mixed.txt"
fi
if has ncu; then
  start=$(date +%s)
  ncu --kernel-name regex:${NCU_KERNEL:-fft_rows_local} --launch-skip 3 --launch-count ${NCU_COUNT:-1} --section SpeedOfLight \
      --section Occupancy --section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
      $B/tests/specview-bench --sizes 4096 --no-sweep --reps 5 --csv /dev/null > "$OUT/ncu.txt" 2>&1; r=$?
  grep -E "^  [a-z_]+.*\(|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Issued Warp|No Eligible|Block Limit (Reg|Shared)|Bank" "$OUT/ncu.txt" | head -60
  echo "ncu rc=$r ($(( $(date +%s) - start )) s)"
fi
if has volume; then  # issue 61: the GPU's 3D FFTs (unit tests, the CLI against the CPU) and their benchmark
  start=$(date +%s)
  $B/tests/specview_gpu_tests --gtest_filter='VolumeFft.*:Transpose.*' > "$OUT/volume-tests.log" 2>&1; r=$?; rc=$((rc | r))
  $B/tests/specview_cpu_tests --gtest_filter='Cli.*Volume*' >> "$OUT/volume-tests.log" 2>&1; r2=$?; r=$((r | r2)); rc=$((rc | r2))
  grep -E "PASSED|FAILED|SKIPPED|Failure" -A3 "$OUT/volume-tests.log" | head -30
  echo "volume tests rc=$r ($(( $(date +%s) - start )) s)"
  start=$(date +%s)
  timeout 400 $B/tests/specview-volume-bench --reps ${VOLUME_REPS:-20} ${VOLUME_SIZES:+--sizes $VOLUME_SIZES} \
    --csv "$OUT/volume-bench.csv" > "$OUT/volume-bench.txt" 2>&1; r=$?; rc=$((rc | r))
  cat "$OUT/volume-bench.txt"
  echo "volume bench rc=$r ($(( $(date +%s) - start )) s)"
fi
if has multigpu; then  # issue 64 on a machine of several GPUs: --gpus batches, --split-volume against one GPU
  start=$(date +%s)
  $B/tests/specview_gpu_tests --gtest_filter='VolumeFft.TheSplit*' > "$OUT/multigpu-tests.log" 2>&1; r=$?; rc=$((rc | r))
  $B/tests/specview_cpu_tests --gtest_filter='Cli.Gpus*:Cli.AVolumeSplit*' >> "$OUT/multigpu-tests.log" 2>&1; r2=$?
  rc=$((rc | r2)); grep -E "PASSED|FAILED|SKIPPED|Failure" -A3 "$OUT/multigpu-tests.log" | head -20
  tests/bench/multi_gpu_batch.sh $B 3 200 cufft "0 0,1 0,1,2,3 all" 2>&1 | tee "$OUT/multigpu-batch.txt"
  SPLIT_DIR=$B/split tests/bench/split_volume.sh $B "${SPLIT_GPUS:-0,1}" "${SPLIT_SIDES:-512 1024}" 2>&1 |
    tee "$OUT/split-volume.txt"
  echo "multigpu rc=$rc ($(( $(date +%s) - start )) s)"
fi
if has opencl; then  # issue 62: gpu/opencl on every OpenCL device the loader lists there (NVIDIA's, PoCL)
  if [ -x $B/tests/specview_opencl_tests ]; then
    SPECVIEW_EXPECT_OPENCL=1 $B/tests/specview_opencl_tests > "$OUT/opencl-tests.log" 2>&1; r=$?; rc=$((rc | r))
    grep -E "OK|PASSED|FAILED|Failure|SKIPPED" -A2 "$OUT/opencl-tests.log" | head -20; echo "opencl tests rc=$r"
  else
    echo "opencl: not built (no OpenCL headers or loader: see configure.log)"; grep -i opencl "$OUT/configure.log"
  fi
  ls /etc/OpenCL/vendors 2>/dev/null
  if [ -x $B/tests/specview_glsl_tests ]; then  # gpu/glsl on the EGL device platform (NVIDIA's driver there)
    SPECVIEW_EXPECT_GL=1 $B/tests/specview_glsl_tests > "$OUT/glsl-tests.log" 2>&1; r=$?; rc=$((rc | r))
    grep -E "gl  |OK|PASSED|FAILED|Failure|SKIPPED" -A2 "$OUT/glsl-tests.log" | head -20; echo "glsl tests rc=$r"
  fi
fi
if has api; then  # issue 62: seed 001's table, every backend and device there (CUDA's three, OpenCL's, FFTW)
  timeout 400 $B/tests/specview-api-bench --reps ${API_REPS:-10} ${API_SIZES:+--sizes $API_SIZES} > "$OUT/api-bench.txt" 2>&1
  r=$?; rc=$((rc | r)); cat "$OUT/api-bench.txt"; echo "api bench rc=$r"
fi
if has volviewer && [ -x $B/specview ]; then  # issue 61: the viewer's volume mode on the GPU, 512^3 uint16
  start=$(date +%s)
  # a 512^3 uint16 .npy from the standard library alone (numpy may be missing there): header + random voxels
  python3 - /tmp/vol512.npy ${VOLVIEWER_SIZE:-512} <<'EOP'
import os, sys
n = int(sys.argv[2])
h = "{'descr': '<u2', 'fortran_order': False, 'shape': (%d, %d, %d), }" % (n, n, n)
h += " " * (127 - 10 - len(h)) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode())
    for _ in range(n):
        f.write(os.urandom(2 * n * n))
EOP
  for be in ${VOLVIEWER_BACKENDS:-cufft custom-fast custom}; do
    {
      echo "set backend $be"; echo "set volume true"; echo "wait-ready"
      for k in 1 2 3 4 5 6 7 8; do echo "slice z $k"; echo "wait-ready"; done
      for k in 10 20 30; do echo "image-slice x $k"; echo "wait-ready"; done
      echo "projection max"; echo "wait-ready"; echo "projection none"; echo "wait-ready"
      echo "set window none"; echo "wait-ready"; echo "set window hann"; echo "wait-ready"; echo "set colormap turbo"; echo "wait-ready"; echo "wait 3"; echo "screenshot $OUT/volviewer-$be.png"; echo "quit"
    } > /tmp/vol-$be.txt
    timeout 300 $B/specview --offscreen --script /tmp/vol-$be.txt --report "$OUT/volviewer-$be.json" /tmp/vol512.npy \
      > "$OUT/volviewer-$be.log" 2>&1
    r=$?; rc=$((rc | r)); echo "volume viewer $be rc=$r"; tail -3 "$OUT/volviewer-$be.log"
    python3 - "$OUT/volviewer-$be.json" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1])); f = sorted(r["frame_ms"]); n = len(f)
print(f'{r["device"]} | {r["backend"]} | {n} frames: median {f[n//2]:.2f} ms, p95 {f[int(0.95*(n-1))]:.2f}, max {f[-1]:.2f}, over 16.7 ms: {sum(x > 16.7 for x in f)}')
for c in r.get("volume_changes", []):
    print("  ", {k: c[k] for k in ("action", "ready_ms", "transformed", "decode_ms", "transform_ms", "shape_ms", "frames_ms", "frames_resident", "fft_ms", "copy_ms", "shell_ms", "pictures_ms", "range_ms", "queue_ms", "work_ms", "taken_ms") if k in c})
EOP
  done
  echo "volume viewer ($(( $(date +%s) - start )) s)"
fi
if has glviewer && [ -x $B/specview ]; then  # issue 62: the viewer's GL backend, its picture into the texture, 4096^2
  python3 - /tmp/noise4k.npy 4096 <<'EOP'
import array, random, sys
n = int(sys.argv[2]); h = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (n, n)
h += " " * (127 - 10 - len(h)) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode())
    f.write(array.array("f", (random.random() for _ in range(n * n))).tobytes())
EOP
  for be in gl custom-fast; do
    # (the screenshot's layout file says where the GL picture went: "gl-picture texture" or "host: why")
    printf 'wait-ready\nset window none\nwait-ready\nset window hann\nwait-ready\nset colormap viridis\nwait-ready\nset window none\nwait-ready\nset view power\nwait-ready\nscreenshot %s\nquit\n' \
      "$OUT/glviewer-$be.png" > /tmp/glviewer.txt
    timeout 120 $B/specview --offscreen --backend $be --script /tmp/glviewer.txt --report "$OUT/glviewer-$be.json" \
      /tmp/noise4k.npy > "$OUT/glviewer-$be.log" 2>&1
    r=$?; rc=$((rc | r)); echo "gl viewer $be rc=$r"; tail -2 "$OUT/glviewer-$be.log"; grep -E "gl-picture" "$OUT/glviewer-$be.png.txt"
    python3 - "$OUT/glviewer-$be.json" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1])); f = sorted(r["frame_ms"]); n = len(f)
print(f'{r["backend"]} | {n} frames: median {f[n//2]:.2f} ms, max {f[-1]:.2f}, over 16.7 ms: {sum(x > 16.7 for x in f)}')
print("   first run:", ", ".join(f"{n} {ms:.2f}" for n, ms in r.get("first_run_timings", []) if "GL" in n or "texture" in n))
for c in r.get("changes", []):
    print("  ", {k: c.get(k) for k in ("action", "ready_ms", "engine_ms", "after_engine_ms", "frame_wait_ms")})
EOP
  done
fi
if has faults; then  # the GPU faulted on purpose: last of all (see the test step)
  start=$(date +%s)
  (cd $B && ctest -R LostGpu -L cpu --output-on-failure > "$OUT/fault-tests.log" 2>&1); r=$?; rc=$((rc | r))
  if [ -x $B/tests/specview_gui_tests ]; then
    SPECVIEW_GUI_OFFSCREEN=1 $B/tests/specview_gui_tests --gtest_filter='*LostGpu*' >> "$OUT/fault-tests.log" 2>&1
    r2=$?; r=$((r | r2)); rc=$((rc | r2))
  fi
  grep -E "LostGpu|PASSED|FAILED|Failure" "$OUT/fault-tests.log" | head -12
  echo "lost-context tests rc=$r ($(( $(date +%s) - start )) s)"
fi
exit $rc
