#!/usr/bin/env bash
# tools/h100_l2bw.sh — the L1-miss / L2 read throughput behind the gather's time
# (docs/hardware.md, "What bounds the gather"), from the repository root on a
# machine with CUDA and Nsight Compute:   OUT=out bash tools/h100_l2bw.sh
# Results under $OUT: l2bw.csv (tools/cuda/l2bw.cu's sweep), req.csv (Nsight
# Compute's L2 requests and sectors for the merge test), log.txt.  About a minute.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
LOG="$OUT/log.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$LOG" 2>&1
nvcc -O3 -arch=sm_90 -o /tmp/l2bw tools/cuda/l2bw.cu >> "$LOG" 2>&1 || { echo "nvcc l2bw failed" >> "$LOG"; exit 1; }
F=16777216
echo "path,k,footprint,warps_per_sm,sms,adj,sectors,median_us,gsectors_per_s" > "$OUT/l2bw.csv"
run() { timeout 60 /tmp/l2bw "$@" >> "$OUT/l2bw.csv" 2>> "$LOG"; }
# every SM: path x sectors per line x warps per SM
for path in cg ca; do for k in 1 2 4; do for wps in 64 32 16 8; do run $path $k $F $wps 20; done; done; done
# L1 hits: a footprint the L1 holds
for k in 1 4; do run ca $k 65536 64 20; done
# fewer SMs: is the limit each SM's or the L2's?
for k in 1 4; do for sms in 1 2 4 8 16 33 66 99; do run ca $k $F 64 20 $sms; done; done
# adjacent sectors from consecutive loads: does the L1 merge the misses into one request?
run ca 1 $F 64 20 0 1
run ca 1 $F 64 20 0 0
echo "adj,metric,unit,value" > "$OUT/req.csv"
M=lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum,gpu__time_duration.sum
for adj in 0 1; do
  timeout 120 ncu --clock-control none --launch-skip 5 --launch-count 1 --metrics "$M" --csv \
      /tmp/l2bw ca 1 $F 64 1 0 $adj > /tmp/r.csv 2>> "$LOG"
  grep '^"0"' /tmp/r.csv | awk -F'","' -v c="$adj" '{ v = $15; gsub(/[",]/, "", v); print c "," $13 "," $14 "," v }' >> "$OUT/req.csv"
done
cat "$OUT/l2bw.csv" "$OUT/req.csv"; tail -3 "$LOG"
