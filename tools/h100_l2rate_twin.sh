#!/usr/bin/env bash
# tools/h100_l2rate_twin.sh — the probe's L2 rate sweep as CUDA (tools/cuda/l2rate_twin.cu), with each of its
# differences from tools/cuda/l2bw.cu switched off in turn (docs/probe.md, "The L2's rates on the H100").
# On a machine with CUDA, from the repository root:   OUT=out bash tools/h100_l2rate_twin.sh   (about 20 s)
# Writes $OUT/l2rate_twin.csv (one line per variant and mode) and $OUT/log.txt.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
LOG="$OUT/log.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$LOG" 2>&1
nvcc -O3 -arch=sm_90 -o /tmp/l2rate_twin tools/cuda/l2rate_twin.cu >> "$LOG" 2>&1 || { echo "nvcc failed" >> "$LOG"; exit 1; }
cuobjdump -sass /tmp/l2rate_twin > "$OUT/l2rate_twin.sass" 2>> "$LOG"
echo "variant,mode,footprint,groups,threads,rounds,xor,fill,median_us,empty_us,gsectors_per_s" > "$OUT/l2rate_twin.csv"
run() { # variant MODE FOOTPRINT GROUPS THREADS ROUNDS XOR FILL
  local v=$1; shift
  line=$(timeout 30 /tmp/l2rate_twin "$@" 20 2>> "$LOG") && echo "$v,$line" >> "$OUT/l2rate_twin.csv"
}
for mode in 0 1 2; do
  run probe $mode 16777216 4096 256 64 1 0        # the probe's own dispatch (cli/probe_sweeps.c)
  run no_xor $mode 16777216 4096 256 64 0 0
  run ones $mode 16777216 4096 256 64 1 1
  run resident $mode 16777216 264 1024 248 1 0    # l2bw.cu's geometry: 64 warps per SM, one wave
  run resident_no_xor $mode 16777216 264 1024 248 0 0
  run probe_8MiB $mode 8388608 4096 256 64 1 0
done
cat "$OUT/l2rate_twin.csv"
