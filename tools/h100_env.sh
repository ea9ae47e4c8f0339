# tools/h100_env.sh — what every wavelab script on the H100 machine sets up first; sourced from the repository
# root (tools/h100_probe.sh, tools/h100_probe_l2.sh).  Sets OUT (default out) and LOG ($OUT/log.txt, emptied),
# defines step (a heading in the log), unpacks the Vulkan loader's and libraries' .debs carried in .gl/, picks
# the wavelab binary (WAVELAB, else .gl/bin/wavelab, else build/wavelab) as W, and points the loader at the
# NVIDIA driver's manifest where it does not find it by itself.
OUT=${OUT:-out}
mkdir -p "$OUT"
LOG="$OUT/log.txt"
: > "$LOG"
step() { echo "=== $*" >> "$LOG"; }
if ls .gl/*.deb > /dev/null 2>&1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
W=${WAVELAB:-$PWD/.gl/bin/wavelab}
[ -x "$W" ] || W=$PWD/build/wavelab
ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$ICD" ]; then export VK_DRIVER_FILES=$ICD; fi
export WAVELAB_NO_CACHE=1
