#!/usr/bin/env bash
# tools/model_verdicts.sh — the model's side of docs/hardware.md, "Verdicts": for every article pair
# (baseline, trick) of kernels/000..004, the memory model's estimate on each preset, as CSV:
#   pair,baseline,trick,preset,baseline_us,trick_us,speedup
# speedup = baseline time / trick time, where a time is the estimate plus the preset's dispatch_us
# (the measured floor of one dispatch; 0 when the preset has none).  Run from the repository root
# after building: tools/model_verdicts.sh [PRESET...] > verdicts.csv   (about 10 minutes on one core)
set -eu
B=${WAVELAB:-build/wavelab}
PRESETS=${*:-hopper_h100 turing_rtx2080 rdna2 gcn_vega64 lavapipe}
K=kernels
PAIRS="
000 000_uniform_load/uniform_load_naive 000_uniform_load/uniform_load_wave
000 000_uniform_load/uniform_load_naive_ssbo 000_uniform_load/uniform_load_wave_ssbo
000 000_uniform_load/uniform_load_naive_many 000_uniform_load/uniform_load_wave_many
000 000_uniform_load/uniform_load_naive_many_ssbo 000_uniform_load/uniform_load_wave_many_ssbo
001 001_compaction/compaction_naive 001_compaction/compaction_lds
001 001_compaction/compaction_naive 001_compaction/compaction_wave
001 001_compaction/compaction_naive 001_compaction/compaction_wave_global
002 002_lds_fp16/neighborhood_fp32_split 002_lds_fp16/neighborhood_fp32_interleaved
002 002_lds_fp16/neighborhood_fp16_split 002_lds_fp16/neighborhood_fp16_interleaved
002 002_lds_fp16/neighborhood_fp32_split 002_lds_fp16/neighborhood_fp16_split
003 003_wave_tricks/all_true_branch_naive 003_wave_tricks/all_true_branch_wave
003 003_wave_tricks/multi_wave_groups_naive 003_wave_tricks/multi_wave_groups_wave
003 003_wave_tricks/one_lane_atomic_naive 003_wave_tricks/one_lane_atomic_wave
003 003_wave_tricks/prefix_sum_writes_naive 003_wave_tricks/prefix_sum_writes_wave
003 003_wave_tricks/scalarization_naive 003_wave_tricks/scalarization_scalarized
003 003_wave_tricks/scalarization_naive 003_wave_tricks/scalarization_scalarized_fast
004 004_swizzle/swizzle_row_major_168x24 004_swizzle/swizzle_tiled_168x24
004 004_swizzle/swizzle_row_major_72x40 004_swizzle/swizzle_tiled_72x40
004 004_swizzle/swizzle_row_major_1440p 004_swizzle/swizzle_tiled_1440p
004 004_swizzle/swizzle_row_major_1440p_wide 004_swizzle/swizzle_tiled_1440p_wide
"
# the estimate plus the dispatch floor, in microseconds (stats.memory.estimate.dispatch_microseconds)
est() {
  local d
  d=$(mktemp)
  "$B" run "$K/$1.json" --machine "$2" --dump "$d" > /dev/null 2>&1 || true
  grep -o '"dispatch_microseconds":[^,}]*' "$d" | head -1 | awk -F: '{ printf "%.4f\n", $2 }'
  rm -f "$d"
}
echo "pair,baseline,trick,preset,baseline_us,trick_us,speedup"
echo "$PAIRS" | while read -r art base trick; do
  [ -n "$art" ] || continue
  for p in $PRESETS; do
    a=$(est "$base" "$p"); b=$(est "$trick" "$p")
    echo "$art,$base,$trick,$p,$a,$b,$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }')"
  done
done
