#!/bin/bash
# tools/h100_sync_latency.sh — the cycles of a dependent shared-memory load, a store-then-load round trip
# through __syncwarp() and through __syncthreads() at block sizes 32..1024, and a dependent FFMA and integer
# add on an NVIDIA GPU (tools/cuda/sync_latency.cu; docs/hardware.md, "Barrier and ALU latency"), in one command
# from the repository root on a machine with CUDA:
#   bash tools/h100_sync_latency.sh   results under $OUT: sync_latency.csv, log.txt
# Seconds on an H100.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
LOG="$OUT/log.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$LOG" 2>&1
nvcc --version | tail -2 >> "$LOG"
timeout 120 nvcc -O2 -arch=sm_90 -o /tmp/sync_latency tools/cuda/sync_latency.cu >> "$LOG" 2>&1 || { echo "nvcc failed" >> "$LOG"; exit 1; }
timeout 60 /tmp/sync_latency > "$OUT/sync_latency.csv" 2>> "$LOG"
echo "exit $?" >> "$LOG"
cat "$OUT/sync_latency.csv"
