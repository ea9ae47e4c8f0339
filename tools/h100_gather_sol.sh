#!/usr/bin/env bash
# tools/h100_gather_sol.sh — what bounds article 004's gather on an NVIDIA GPU
# (docs/hardware.md, "What bounds the gather"), from the repository root on a
# machine with CUDA and Nsight Compute:   OUT=out bash tools/h100_gather_sol.sh
# Results under $OUT:
#   raw.tar.gz   Nsight Compute's full set (--set full, raw page, CSV) for the
#                1440p and 4K gathers, S = 8 and 64, both orders
#   extra.csv    config,metric,unit,value: the L2 fabric, request and per-slice
#                metrics (those this ncu knows) for all 12 gathers
#   log.txt      versions, clocks, errors
# About 90 s on an H100.  The read throughput behind it: tools/h100_l2bw.sh.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT/raw"
LOG="$OUT/log.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > "$LOG" 2>&1
nvcc --version | tail -2 >> "$LOG"; ncu --version | tail -1 >> "$LOG"
nvcc -O3 -arch=sm_90 -o /tmp/gather004 tools/cuda/gather004.cu >> "$LOG" 2>&1 || { echo "nvcc gather004 failed" >> "$LOG"; exit 1; }

# the metrics this ncu knows, so one unknown name cannot spoil a run
ncu --query-metrics > "$OUT/metrics.txt" 2>> "$LOG"
want="lts__t_sectors_srcunit_ltcfabric lts__t_sectors_srcunit_ltcfabric_op_read lts__t_sectors_srcunit_ltcfabric_op_read_lookup_hit lts__t_sectors_srcunit_ltcfabric_op_read_lookup_miss lts__t_sectors_srcunit_tex_op_read lts__t_sectors_srcunit_tex_op_read_lookup_hit lts__t_sectors_srcunit_tex_op_read_lookup_miss lts__t_requests_srcunit_tex_op_read lts__t_requests_op_read lts__t_sectors_op_read lts__t_sectors lts__d_sectors_fill_device lts__t_sectors_srcnode_gpc lts__t_sectors_srcunit_tex l1tex__m_xbar2l1tex_read_sectors l1tex__m_l1tex2xbar_req l1tex__t_requests_pipe_lsu_mem_global_op_ld l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss l1tex__data_pipe_lsu_wavefronts_mem_lg sm__cycles_elapsed lts__cycles_elapsed"
M=""
for b in $want; do
  if grep -qw "^ *$b" "$OUT/metrics.txt" || grep -qw "$b" "$OUT/metrics.txt"; then
    for r in sum max min; do M="$M,$b.$r"; done
  else echo "not known to this ncu: $b" >> "$LOG"; fi
done
M="${M#,},lts__t_sectors.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,lts__cycles_elapsed.avg.per_second,gpu__time_duration.sum"
gzip -f "$OUT/metrics.txt"
echo "config,metric,unit,value" > "$OUT/extra.csv"
for size in 2560x1440 3840x2160 16384x4096; do
  W=${size%x*}; H=${size#*x}
  for S in 8 64; do for order in row tiled; do
    cfg=${W}x${H}_S${S}_$order
    timeout 120 ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics "$M" --csv \
        /tmp/gather004 ncu $W $H $S 7 $order > /tmp/x.csv 2>> "$LOG"
    grep '^"0"' /tmp/x.csv | awk -F'","' -v c="$cfg" '{ v = $15; gsub(/[",]/, "", v); print c "," $13 "," $14 "," v }' >> "$OUT/extra.csv"
    if [ "$W" != 16384 ]; then
      timeout 150 ncu --clock-control none --launch-skip 1 --launch-count 1 --set full --page raw --csv \
          /tmp/gather004 ncu $W $H $S 7 $order > "$OUT/raw/$cfg.csv" 2>> "$LOG"
    fi
  done; done
done
tar -C "$OUT" -czf "$OUT/raw.tar.gz" raw && rm -rf "$OUT/raw"
wc -l "$OUT/extra.csv"; tail -5 "$LOG"
