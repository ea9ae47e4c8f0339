#!/usr/bin/env bash
# tools/h100_run.sh — the hardware run behind docs/hardware.md.
#
# Runs on the lent GPU machine (see ../shared/device-vulkan.md) from the
# repository root, with the Vulkan loader's .debs in .gl/ and a wavelab
# binary built here in build-dev/.  For every case in kernels/: `wavelab
# check` at wave 32 (simulator vs device, every binding), then device
# timings after a warm-up long enough to hold the GPU clock up, with a fixed
# reference kernel timed before and after as a clock witness.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
B=${WAVELAB:-build-dev/wavelab}
OUT=${OUT:-out}
mkdir -p "$OUT/check" "$OUT/time"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/nvidia-smi.txt" 2>&1
"$B" devices > "$OUT/devices.txt" 2>&1
ref=kernels/003_wave_tricks/multi_wave_groups_wave.json
# ~1 s of back-to-back dispatches: the clock needs ~0.3 s of work to ramp up
witness() { "$B" run "$ref" --backend vulkan --device nvidia --wave 32 --warmup 20000 --repeat 200 2>&1 | grep "device time"; }
: > "$OUT/summary.txt"
for c in $(find kernels -name '*.json' | sort); do
  name=$(echo "$c" | tr '/' '_')
  "$B" check "$c" --wave 32 --device nvidia --warmup 5 --repeat 5 > "$OUT/check/$name.txt" 2>&1
  rc=$?
  {
    echo "witness-before $(witness)"
    "$B" run "$c" --backend vulkan --device nvidia --wave 32 --warmup 20000 --repeat 200 2>&1 | grep "device time"
    echo "witness-after $(witness)"
  } > "$OUT/time/$name.txt"
  echo "$c check-exit $rc" >> "$OUT/summary.txt"
done
