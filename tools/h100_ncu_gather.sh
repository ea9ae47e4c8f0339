#!/usr/bin/env bash
# tools/h100_ncu_gather.sh — hardware truth for the memory model (docs/hardware.md,
# "Cache hit rates: model vs Nsight Compute").  Runs on an NVIDIA H100 machine with
# CUDA and Nsight Compute, from the repository root:  OUT=out tools/h100_ncu_gather.sh
# Builds the CUDA twin of article 004's gather, checks it against the case file's
# expected output, then for every (size, S, order): median time over 50 launches
# (cudaEvent, after 20 warm-up launches) and one Nsight Compute profile of the launch.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT/ncu"
nvcc --version > "$OUT/nvcc.txt" 2>&1; ncu --version > "$OUT/ncu.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/nvidia-smi.txt" 2>&1
nvcc -O3 -arch=sm_90 -o /tmp/gather004 tools/cuda/gather004.cu || exit 1
# the twin computes what the simulator computes: the 168x24 case (TAPS 5, S 8, seed 4021)
/tmp/gather004 check 168 24 8 5 row 4021 > "$OUT/check_row_168x24.txt"
/tmp/gather004 check 168 24 8 5 tiled 4021 > "$OUT/check_tiled_168x24.txt"
M=lts__t_sector_op_read_hit_rate.pct,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum,gpu__time_duration.sum
M=$M,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_hit.sum,lts__t_sectors_op_write.sum
echo "width,height,S,taps,order,median_us,min_us,max_us" > "$OUT/time.csv"
for size in 2560x1440 3840x2160 16384x4096; do
  W=${size%x*}; H=${size#*x}
  for S in 8 64; do
    for order in row tiled; do
      /tmp/gather004 time $W $H $S 7 $order 50 >> "$OUT/time.csv"
      ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics "$M" --csv \
          /tmp/gather004 ncu $W $H $S 7 $order > "$OUT/ncu/${W}x${H}_S${S}_$order.csv" 2> "$OUT/ncu/${W}x${H}_S${S}_$order.err"
    done
  done
done
# one file per run comes back more easily than 24: the raw profiles in one archive,
# the metrics of every run in one long CSV (config, metric, unit, value)
tar -C "$OUT" -czf "$OUT/ncu_raw.tar.gz" ncu
echo "config,metric,unit,value" > "$OUT/ncu.csv"
for f in "$OUT"/ncu/*.csv; do
  cfg=$(basename "$f" .csv)
  grep '^"0"' "$f" | awk -F'","' -v c="$cfg" '{ v = $15; gsub(/[",]/, "", v); print c "," $13 "," $14 "," v }' >> "$OUT/ncu.csv"
done
rm -rf "$OUT/ncu"
