#!/usr/bin/env bash
# specview set-up: installs what is missing (Debian 12 packages; the CUDA 13 toolkit is expected in
# /usr/local/cuda), builds, then opens the viewer or runs the tests.
#
#   ./setup.sh run [IMAGE]   build, then open the viewer on IMAGE or a bundled sample
#                            (no display: write the sample's spectrum PNG and say where)
#   ./setup.sh test          build, then run the whole test suite (GUI tests under xvfb-run)
#   ./setup.sh build         only install and build
#   ./setup.sh install [PREFIX]  build, then install into PREFIX (default ~/.local): PREFIX/bin/specview
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-run}
shift || true

packages=(build-essential cmake ninja-build libglfw3-dev libimgui-dev libstb-dev python3-glad libfftw3-dev
          libcli11-dev nlohmann-json3-dev libjpeg-dev libpng-dev libspng-dev libdeflate-dev libtiff-dev libgif-dev libavformat-dev libavcodec-dev libswscale-dev pkgconf python3-numpy python3-pil python3-tifffile python3-yaml libseccomp-dev libgtest-dev clang libgl-dev libegl-dev xvfb xauth desktop-file-utils appstream slurm-wlm munge
          ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo libegl-mesa0 libgl1-mesa-dri)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
    echo "setup: the CUDA toolkit (nvcc) is not in /usr/local/cuda; install CUDA 13 first" >&2
    exit 1
fi

cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"

case "$mode" in
    build) ;;
    install)
        prefix=${1:-$HOME/.local}
        cmake --install build --prefix "$prefix"
        echo "setup: installed $prefix/bin/specview (its helpers in $prefix/libexec/specview, samples in $prefix/share/specview)"
        case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "setup: $prefix/bin is not on PATH: add it to run specview from anywhere" ;; esac
        ;;
    run)
        image=${1:-assets/grating_rotated.png}
        if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
            exec build/specview "$image"
        fi
        out=$(pwd)/build/$(basename "${image%.*}")_spectrum.png
        echo "setup: no display, so no window; writing the spectrum instead"
        build/specview --headless "$image" -o "$out" --force --timings
        echo "setup: the spectrum picture is $out"
        ;;
    test)
        cd build
        # The GPU tests skip (saying why) without a GPU; the GUI tests need X, which xvfb-run provides. -noreset:
        # Xvfb otherwise resets when its last client leaves, and a viewer connecting during the reset fails to
        # open the display (seen once in CI between two GUI tests).
        xvfb-run -a -s "-screen 0 1500x920x24 -noreset" ctest --output-on-failure -j"$(nproc)"
        ;;
    *)
        echo "usage: $0 run [IMAGE] | test | build | install [PREFIX]" >&2
        exit 2
        ;;
esac
