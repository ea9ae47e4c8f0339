#!/usr/bin/env bash
# tools/h100_run.sh — the hardware run behind docs/hardware.md.
#
# Runs on an NVIDIA H100 machine (Ubuntu 24.04, no Vulkan loader installed) from the
# repository root, with the Vulkan loader's .debs in .gl/ and a wavelab
# binary built here in build-dev/.  For every case in kernels/: `wavelab
# check` at wave 32 (simulator vs device, every binding), then device
# timings after a warm-up, with the SM clock sampled while they are taken.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
B=${WAVELAB:-build-dev/wavelab}
OUT=${OUT:-out}
mkdir -p "$OUT/check" "$OUT/time"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/nvidia-smi.txt" 2>&1
"$B" devices > "$OUT/devices.txt" 2>&1
# the SM clock, sampled every 50 ms while a case is timed: the clock the timing was taken at
clock_during() {
  nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits -lms 50 > "$OUT/clk.tmp" 2>/dev/null &
  local sampler=$!
  "$@"
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
  sort -n "$OUT/clk.tmp" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "sm clock %s..%s MHz\n", lo, hi }'
}
: > "$OUT/summary.txt"
for c in $(find kernels -name '*.json' | sort); do
  name=$(echo "$c" | tr '/' '_')
  "$B" check "$c" --wave 32 --device nvidia --warmup 5 --repeat 5 > "$OUT/check/$name.txt" 2>&1
  rc=$?
  clock_during "$B" run "$c" --backend vulkan --device nvidia --wave 32 --warmup 2000 --repeat 200 \
    > "$OUT/time/$name.txt" 2>&1
  grep -E "device time|sm clock" "$OUT/time/$name.txt" > "$OUT/time/$name.tmp"; mv "$OUT/time/$name.tmp" "$OUT/time/$name.txt"
  echo "$c check-exit $rc" >> "$OUT/summary.txt"
done
