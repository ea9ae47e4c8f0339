#!/usr/bin/env bash
# tools/h100_generalize.sh — hardware truth for the generalization suite (docs/hardware.md,
# "Generalization"; issue 26).  Runs on an NVIDIA H100 machine with CUDA and Nsight Compute, from the
# repository root:  OUT=out tools/h100_generalize.sh
# Builds tools/cuda/gen_suite.cu, then for every kernel of the suite: the median time over 50 launches
# (cudaEvent, after 0.3 s of warm-up launches: the GPU idles at a low clock), and two Nsight Compute
# profiles of the second of two launches: cold (ncu's default --cache-control all: caches flushed and
# invalidated before every replay pass) and warm (--cache-control none: the first launch left its data in
# the L2).  Writes $OUT/time.csv and $OUT/ncu.csv (config, mode, metric, unit, value).
set -u
OUT=${OUT:-out}
mkdir -p "$OUT/ncu"
nvcc --version > "$OUT/nvcc.txt" 2>&1; ncu --version > "$OUT/ncu.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > "$OUT/nvidia-smi.txt" 2>&1
nvcc -O3 -arch=sm_90 -o /tmp/gen_suite tools/cuda/gen_suite.cu || exit 1
M=lts__t_sector_op_read_hit_rate.pct,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum
M=$M,gpu__time_duration.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
M=$M,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum
M=$M,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second,dram__cycles_elapsed.avg.per_second
CONFIGS="transpose_naive:0 transpose_shared:0 copy_scale:0 stencil5:0 reduce:0 histogram_lds:0 histogram_global:0
lds_tile:0 random_gather:0 stride:1 stride:2 stride:4 stride:8 stride:16 stride:32 stride:64"
echo "name,arg,median_us,min_us,max_us" > "$OUT/time.csv"
for c in $CONFIGS; do
  n=${c%:*}; a=${c#*:}
  cfg=$n; [ "$n" = stride ] && cfg=stride_$a
  /tmp/gen_suite $n $a time 50 >> "$OUT/time.csv"
  ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics "$M" --csv \
      /tmp/gen_suite $n $a ncu > "$OUT/ncu/${cfg}_cold.csv" 2> "$OUT/ncu/${cfg}_cold.err"
  ncu --clock-control none --cache-control none --launch-skip 1 --launch-count 1 --metrics "$M" --csv \
      /tmp/gen_suite $n $a ncu > "$OUT/ncu/${cfg}_warm.csv" 2> "$OUT/ncu/${cfg}_warm.err"
done
echo "config,mode,metric,unit,value" > "$OUT/ncu.csv"
for f in "$OUT"/ncu/*.csv; do
  b=$(basename "$f" .csv); cfg=${b%_*}; mode=${b##*_}
  grep '^"0"' "$f" | awk -F'","' -v c="$cfg" -v m="$mode" '{ v = $15; gsub(/[",]/, "", v); print c "," m "," $13 "," $14 "," v }' >> "$OUT/ncu.csv"
done
tar -C "$OUT" -czf "$OUT/ncu_raw.tar.gz" ncu
rm -rf "$OUT/ncu"
