# The GPU machine's environment for specview: unpacks the carried packages (.debs, .ffmpeg, .gl) and exports
# what the build and the programs need. run.sh sources it; for commands of your own there, `source
# tests/device/env.sh` first (the programs need LD_LIBRARY_PATH for the carried libraries: libgif, FFmpeg, ...).
# Unpacking again is harmless.
# stb and CLI11 travel as Debian packages (.debs, see ../shared/gpu/fetch-dev-debs.sh); GL/EGL loaders in .gl.
if [ -d .debs ]; then
  mkdir -p /opt/extra
  for f in .debs/*.deb; do dpkg -x "$f" /opt/extra; done
  # The multiarch include dir too: libjpeg's jconfig.h lives there, and the machine's own (another libjpeg
  # version) must not be found first.
  export PKG_CONFIG_PATH=/opt/extra/usr/lib/x86_64-linux-gnu/pkgconfig:/opt/extra/usr/share/pkgconfig
  export CMAKE_PREFIX_PATH=/opt/extra/usr \
         CPATH=/opt/extra/usr/include/x86_64-linux-gnu:/opt/extra/usr/include:/opt/extra/usr/include/stb \
         LIBRARY_PATH=/opt/extra/usr/lib/x86_64-linux-gnu LD_LIBRARY_PATH=/opt/extra/usr/lib/x86_64-linux-gnu
fi
# FFmpeg (tests/device/fetch-ffmpeg.sh): its -dev packages and its libraries with their closure, into the same prefix.
if [ -d .ffmpeg ]; then
  mkdir -p /opt/extra/usr/lib/x86_64-linux-gnu
  for f in .ffmpeg/*.deb; do dpkg -x "$f" /opt/extra; done
  tar -xJf .ffmpeg/runtime.tar.xz -C /opt/extra/usr/lib/x86_64-linux-gnu --strip-components=1
fi
if [ -d .gl ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  [ -f "$vendor" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
fi

# NVIDIA's OpenCL is there (libnvidia-opencl.so) but not registered with the ICD loader (only pocl.icd in
# /etc/OpenCL/vendors, seen 2026-12-06): a vendors folder of our own naming both.
for l in /usr/local/nvidia/lib64/libnvidia-opencl.so /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1; do
  if [ -e "$l" ] && ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
    mkdir -p /tmp/specview-icd
    echo "$l" > /tmp/specview-icd/nvidia.icd
    cp /etc/OpenCL/vendors/*.icd /tmp/specview-icd/ 2>/dev/null
    export OCL_ICD_VENDORS=/tmp/specview-icd
    break
  fi
done
