#!/usr/bin/env bash
# The GPU test binary built HERE without FFmpeg (whose library closure does not fit a carry) and packed for the GPU
# machine: a kernel change checked there in about a minute of device time instead of a 5-minute build. Writes
# build/carry-local (about 37 MB; the working tree's own ~6 MB counts toward the 64 MiB carry too). Then, with the
# device tool, carry `build/carry-local .gl` and run:
#   source tests/device/env.sh; export LD_LIBRARY_PATH=$PWD/build/carry-local/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
#   build/carry-local/specview_gpu_tests --gtest_filter='FftRows.*:VolumeFft.*'
# (seen working on the H100 2026-12-07; the GPU machine has CUDA's own libraries, NVRTC among them.)
set -eu
cd "$(dirname "$0")/../.."
if [ ! -f build-novideo/build.ninja ]; then
  PKG_CONFIG_LIBDIR=/nonexistent cmake -S . -B build-novideo -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSPECVIEW_BUILD_UI=OFF > /dev/null
fi
cmake --build build-novideo -j"$(nproc)" --target specview_gpu_tests
if ldd build-novideo/tests/specview_gpu_tests | grep -q libavcodec; then
  echo "pack_gpu_tests: the binary links FFmpeg: build-novideo was configured with it found" >&2
  exit 1
fi
tests/device/pack_local.sh build-novideo/tests/specview_gpu_tests > /dev/null
rm -f build/carry-local/lib/libnvrtc*  # (the machine's CUDA has it)
du -sh build/carry-local
