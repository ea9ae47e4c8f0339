#!/usr/bin/env bash
# tools/lesson_reports.sh — one `wavelab report` per lesson, and the
# screenshot of each that docs/lessons/ shows (img_NNN_report.png), taken by
# headless Chromium exactly as tests/test_report.c loads a report.
#
#   tools/lesson_reports.sh [OUT_DIR]     # reports in OUT_DIR (default build/reports)
#
# Add --backend vulkan to a line to put the lavapipe check in its report
# (wave 8 there: lavapipe runs only subgroup size 8).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/reports}
mkdir -p "$out"
out=$(realpath "$out")
B=${WAVELAB:-build/wavelab}
lessons=(
  "000 kernels/000_uniform_load/uniform_load_wave.json --machine rdna2 --wave 32"
  "001 kernels/001_compaction/compaction_wave.json --machine rdna2 --wave 32"
  "002 kernels/002_lds_fp16/neighborhood_fp16_split.json --machine gcn_vega64 --wave 64"
  "003 kernels/003_wave_tricks/scalarization_scalarized.json --machine rdna2 --wave 32"
  "004 kernels/004_swizzle/swizzle_tiled_168x24.json --machine turing_rtx2080 --wave 32"
)
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
for line in "${lessons[@]}"; do
  read -r n case args <<<"$line"
  # shellcheck disable=SC2086
  "$B" report "$case" $args -o "$out/lesson_$n.html"
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$profile/$n" --hide-scrollbars \
    --window-size=1100,4200 --screenshot="docs/lessons/img_${n}_report.png" "file://$out/lesson_$n.html" \
    >/dev/null 2>&1
  echo "lesson $n: $out/lesson_$n.html, docs/lessons/img_${n}_report.png"
done
