#!/usr/bin/env bash
# Packs programs built HERE (no GPU) for the GPU machine, to check a change there without its 5-minute build:
#   tests/device/pack_local.sh build/specview build/specview-decoder build/tests/specview_glsl_tests ...
# writes build/carry-local/ (the programs and the libraries this machine links that the GPU machine lacks: GLFW, X11,
# FFTW; see gpu-machine-libs.txt). Carry `build/carry-local` with `.debs .gl` (64 MiB in all: the programs are ~30 MB
# each, mostly device code), and there: `source tests/device/env.sh; export
# LD_LIBRARY_PATH=$PWD/build/carry-local/lib:$LD_LIBRARY_PATH; build/carry-local/specview ...`.
# The viewer built here has GLFW and EGL: `--offscreen` there. (Seen working 2026-12-06 with the GL/OpenCL tests.)
set -eu
[ $# -ge 1 ] || { sed -n 2,8p "$0"; exit 2; }
out=build/carry-local
rm -rf "$out"
mkdir -p "$out/lib"
have=$(dirname "$0")/gpu-machine-libs.txt
for p in "$@"; do
  cp "$p" "$out/"
  strip "$out/$(basename "$p")" 2>/dev/null || true
  ldd "$p" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
    case "$name" in libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*|libpthread*|libdl.so*|librt.so*|libcuda*|libcufft*|libcudart*|libEGL*|libGL*|libOpenGL*) continue ;; esac
    grep -qs "^$name" "$have" 2>/dev/null && continue
    cp -L -n "$path" "$out/lib/"
  done
done
du -sh "$out"
