#!/usr/bin/env bash
# tools/h100_direction.sh — how reproducible the H100's row-vs-tiled L2 difference of article 004's gather is
# (docs/hardware.md, "The row-vs-tiled direction, repeated"), from the repository root on a machine with CUDA
# and Nsight Compute:   OUT=out bash tools/h100_direction.sh [REPEATS]
# Profiles each of the 12 gathers REPEATS times (default 3; Nsight Compute flushes the caches before every
# profiled launch) with the counters the L2 rate and the L1's effective reuse are read from, and records the
# block placement (tools/cuda/smid004.cu) of the rows the model's direction disagreed on.  Results under $OUT:
#   repeats.csv   config,repeat,metric,value
#   smid_*.csv.gz block,sm,start_ns,end_ns (tools/smid_reuse.py reads them)
#   log.txt       versions, clocks, errors
set -u
OUT=${OUT:-out}
R=${1:-3}
mkdir -p "$OUT"
LOG="$OUT/log.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > "$LOG" 2>&1
nvcc --version | tail -2 >> "$LOG"; ncu --version | tail -1 >> "$LOG"
nvcc -O3 -arch=sm_90 -o /tmp/gather004 tools/cuda/gather004.cu >> "$LOG" 2>&1 || { echo "nvcc gather004 failed" >> "$LOG"; exit 1; }
nvcc -O3 -arch=sm_90 -o /tmp/smid004 tools/cuda/smid004.cu >> "$LOG" 2>&1 || { echo "nvcc smid004 failed" >> "$LOG"; exit 1; }
M=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
M=$M,lts__t_sectors_srcunit_ltcfabric_op_read.sum,lts__t_sectors_srcunit_ltcfabric_op_read_lookup_miss.sum
M=$M,lts__t_sector_op_read_hit_rate.pct,lts__d_sectors_fill_device.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum
M=$M,gpu__time_duration.sum
echo "config,repeat,metric,value" > "$OUT/repeats.csv"
for size in 2560x1440 3840x2160 16384x4096; do
  W=${size%x*}; H=${size#*x}
  for S in 8 64; do for order in row tiled; do
    for r in $(seq 1 "$R"); do
      timeout 120 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics "$M" --csv \
          /tmp/gather004 ncu $W $H $S 7 $order > /tmp/x.csv 2>> "$LOG"
      grep '^"0"' /tmp/x.csv | awk -F'","' -v c="${W}x${H}_S${S}_$order" -v r="$r" \
          '{ v = $15; gsub(/[",]/, "", v); print c "," r "," $13 "," v }' >> "$OUT/repeats.csv"
    done
  done; done
done
for cfg in "3840 2160 64 row" "3840 2160 64 tiled" "16384 4096 8 tiled"; do
  set -- $cfg
  /tmp/smid004 "$1" "$2" "$3" "$4" | gzip > "$OUT/smid_${1}x${2}_S${3}_$4.csv.gz"
done
wc -l "$OUT/repeats.csv"; tail -3 "$LOG"
