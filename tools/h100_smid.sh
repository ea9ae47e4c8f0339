#!/usr/bin/env bash
# tools/h100_smid.sh — the H100's block-to-SM assignment for article 004's gather (tools/cuda/smid004.cu),
# the measurement a dispatcher model for the memory model's L1 needs (docs/hardware.md, "The gather").
# On an NVIDIA machine with CUDA, from the repository root, one command:  OUT=out tools/h100_smid.sh
# Writes $OUT/smid_WxH_S_ORDER.csv.gz (block,sm,start_ns,end_ns) and $OUT/env.txt; about a minute.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
{ nvcc --version; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > "$OUT/env.txt" 2>&1
nvcc -O3 -arch=sm_90 -o /tmp/smid004 tools/cuda/smid004.cu || exit 1
for size in 2560x1440 16384x4096; do
  for S in 8 64; do
    for order in row tiled; do
      /tmp/smid004 "${size%x*}" "${size#*x}" "$S" "$order" | gzip > "$OUT/smid_${size}_S${S}_$order.csv.gz"
    done
  done
done
