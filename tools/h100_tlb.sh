#!/bin/bash
# tools/h100_tlb.sh — address translation on an NVIDIA GPU (docs/hardware.md, "Address translation"), in one
# command from the repository root on a machine with CUDA:
#   bash tools/h100_tlb.sh        results under $OUT: tlb.csv (tools/cuda/tlb_chase.cu's sweep), log.txt
# About a minute on an H100.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
LOG="$OUT/log.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$LOG" 2>&1
nvcc --version | tail -2 >> "$LOG"
timeout 120 nvcc -O2 -arch=sm_90 -o /tmp/tlb_chase tools/cuda/tlb_chase.cu >> "$LOG" 2>&1 || { echo "nvcc failed" >> "$LOG"; exit 1; }
timeout 400 /tmp/tlb_chase > "$OUT/tlb.csv" 2>> "$LOG"
echo "exit $?" >> "$LOG"
tail -3 "$OUT/tlb.csv"
