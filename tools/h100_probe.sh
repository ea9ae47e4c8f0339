#!/bin/bash
# tools/h100_probe.sh — `wavelab probe` and its CUDA twins on an NVIDIA machine, in one command, for
# docs/probe.md and machines/hopper_h100_measured.json.  From the repository root, with .gl/ carried as
# docs/hardware.md describes (the Vulkan loader's and libcjson/libnettle's .debs in .gl/, a wavelab binary
# built here in .gl/bin/wavelab, else build/wavelab; WAVELAB=PATH overrides):
#
#   bash tools/h100_probe.sh          results under $OUT (at most 8 files: the device tool's limit)
#
# Steps (each logged to $OUT/log.txt; a failing step does not stop the others):
#   1. nvcc -O2 -arch=sm_90 tools/cuda/probe_twins.cu
#   2. the twins' sweeps, timed in SM cycles            -> $OUT/cuda_sweeps.csv
#   3. Nsight Compute on the twins' short launch list   -> $OUT/ncu_twins.csv
#      (L1 and L2 sector read hit rates, DRAM bytes read, kernel time; --clock-control none)
#   4. wavelab probe on the Vulkan device               -> $OUT/hopper_h100_measured.json, $OUT/vk_sweeps.tar
# About 3 to 5 minutes on an H100; every step has a time limit so the whole stays under 8.
set -u
. tools/h100_env.sh   # OUT, LOG, step, the .debs, W (the wavelab binary), the NVIDIA manifest
TW=/tmp/probe_twins

step "nvidia-smi"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv >> "$LOG" 2>&1
step "nvcc"
(nvcc --version | tail -2; timeout 90 nvcc -O2 -arch=sm_90 -o "$TW" tools/cuda/probe_twins.cu) >> "$LOG" 2>&1
echo "exit $?" >> "$LOG"

step "twins: sweeps"
timeout 120 "$TW" sweeps "$OUT/cuda_sweeps.csv" >> "$LOG" 2>&1
echo "exit $?" >> "$LOG"

step "twins: ncu"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-not found}" >> "$LOG"
if [ -n "$NCU" ]; then
  "$NCU" --version >> "$LOG" 2>&1
  timeout 120 "$NCU" --clock-control none --csv --kernel-name regex:'chase|copy16' \
    --metrics lts__t_sector_op_read_hit_rate.pct,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum,gpu__time_duration.sum \
    "$TW" ncu > "$OUT/ncu_twins.csv" 2>> "$LOG"
  echo "exit $?" >> "$LOG"
fi

step "wavelab probe"
"$W" devices >> "$LOG" 2>&1
mkdir -p /tmp/vk_sweeps
timeout 130 "$W" probe --device nvidia --base hopper_h100 --name hopper_h100_measured --sweeps /tmp/vk_sweeps \
  -o "$OUT/hopper_h100_measured.json" >> "$LOG" 2>&1
echo "exit $?" >> "$LOG"
tar -C /tmp/vk_sweeps -cf "$OUT/vk_sweeps.tar" . >> "$LOG" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv >> "$LOG" 2>&1
step "done"
