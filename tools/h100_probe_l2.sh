#!/bin/bash
# tools/h100_probe_l2.sh — `wavelab probe`'s L2 rate sweep (l2_rate.csv: docs/probe.md) on the H100, beside the
# CUDA twin's same three access shapes (tools/cuda/l2bw.cu), so that the probe's l2_requests_per_cycle,
# l2_bytes_per_cycle and l1_miss_merge can be compared with the values machines/hopper_h100.json has from the
# twin (68.1, 3979, 0.30).  One command, from the repository root, with .gl/ carried as for
# tools/h100_probe.sh (the Vulkan loader's and libcjson/libnettle's .debs in .gl/, a wavelab binary in
# .gl/bin/wavelab, else build/wavelab; WAVELAB=PATH overrides):
#
#   bash tools/h100_probe_l2.sh          results under $OUT (6 files; DEVICE=llvmpipe tries it on lavapipe)
#
#   log.txt              every step's output and exit status
#   twin_l2bw.csv        l2bw.cu, 16 MiB, 64 warps per SM, every SM, the L1 path (ld.ca, as a Vulkan load):
#                        one sector of 4 lines per load, whole lines, adjacent sectors (its docs/data/h100_l2bw.csv
#                        rows ca,1 / ca,4 / adj 1)
#   probe_run1.json      wavelab probe --device nvidia --base hopper_h100 (full sweeps), its sweeps in
#   sweeps_run1.tar      (l2_rate.csv among them)
#   probe_run2.json      the same again: how much the three values move from run to run
#   summary.txt          the three fields and the sweep's rates of both runs, and the twin's rates
# About a minute on an H100; every step has a time limit.
set -u
. tools/h100_env.sh   # OUT, LOG, step, the .debs, W (the wavelab binary), the NVIDIA manifest

step "nvidia-smi"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$LOG" 2>&1

step "twin: l2bw.cu"
echo "path,k,footprint,warps_per_sm,sms,adj,sectors,median_us,gsectors_per_s" > "$OUT/twin_l2bw.csv"
if timeout 90 nvcc -O3 -arch=sm_90 -o /tmp/l2bw tools/cuda/l2bw.cu >> "$LOG" 2>&1; then
  for args in "1 16777216 64 20 0 0" "4 16777216 64 20" "1 16777216 64 20 0 1"; do
    timeout 60 /tmp/l2bw ca $args >> "$OUT/twin_l2bw.csv" 2>> "$LOG"
    echo "l2bw ca $args: exit $?" >> "$LOG"
  done
else
  echo "nvcc failed: no twin rows" >> "$LOG"
fi

for run in 1 2; do
  step "wavelab probe, run $run"
  rm -rf /tmp/sweeps_run$run && mkdir -p /tmp/sweeps_run$run
  timeout 150 "$W" probe --device "${DEVICE:-nvidia}" --base hopper_h100 --name hopper_h100_measured --sweeps /tmp/sweeps_run$run \
    -o "$OUT/probe_run$run.json" >> "$LOG" 2>&1
  echo "exit $?" >> "$LOG"
done
tar -C /tmp/sweeps_run1 -cf "$OUT/sweeps_run1.tar" . >> "$LOG" 2>&1

step "summary"
{
  for run in 1 2; do
    echo "# run $run: l2_rate.csv (mode 0 scattered one-sector, 1 whole lines, 2 adjacent; G sectors/s)"
    cat /tmp/sweeps_run$run/l2_rate.csv 2>/dev/null
    echo "# run $run: l2_footprint.csv (the scattered mode at each buffer size; l2_rate.csv used the largest within 10 % of the fastest)"
    cat /tmp/sweeps_run$run/l2_footprint.csv 2>/dev/null
    echo "# run $run: the preset's fields and their sources"
    grep -E '^\s*"(l2_bytes_per_cycle|l2_requests_per_cycle|l1_miss_merge|dram_bytes_per_cycle)":\s*[0-9.]+' \
      "$OUT/probe_run$run.json" 2>/dev/null
    grep -E '"(l2_bytes_per_cycle|l2_requests_per_cycle|l1_miss_merge)":\s*"' "$OUT/probe_run$run.json" 2>/dev/null |
      cut -c1-400
  done
  echo "# twin (l2bw.cu, ca path): scattered, whole lines, adjacent"
  cat "$OUT/twin_l2bw.csv"
} > "$OUT/summary.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv >> "$LOG" 2>&1
step "done"
cat "$OUT/summary.txt"
