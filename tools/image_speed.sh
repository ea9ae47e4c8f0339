#!/usr/bin/env bash
# tools/image_speed.sh — the dispatch time of the image cases of articles 000
# and 004 (and the 1440p image gather), one host thread, before and after: two
# binaries measured case by case, back to back, so a shared host's load falls
# on both alike.  A Markdown table for docs/performance.md; per binary:
#   wall ms   the fastest of 5 (1440p: 2) `wavelab run --warmup 3 --time` dispatches
#             (what --time prints: wall-clock, so a loaded host inflates it)
#   CPU ms    user+system CPU time per dispatch: the CPU time of a run with
#             N extra (warm-up) dispatches minus that of a run with none, / N
#             (N = 60, 1 for 1440p); steadier than wall time on a shared host
# Usage: [CASES="a.json ..."] tools/image_speed.sh BEFORE_WAVELAB AFTER_WAVELAB [WAVES (default "8 32")]
set -euo pipefail
cd "$(dirname "$0")/.."
A=$1 B=$2 WAVES=${3:-"8 32"}
cpu() { /usr/bin/time -f "%U %S" "$1" run "$2" --wave "$3" --threads 1 --warmup "$4" --quiet 2>&1 >/dev/null |
          tail -1 | awk '{print $1 + $2}'; }
wall() {
  local best= t
  for i in $(seq "$RUNS"); do
    t=$("$1" run "$2" --wave "$3" --threads 1 --warmup 3 --quiet --time | sed -n 's/.*dispatch \([0-9.]*\) ms.*/\1/p')
    if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
  done
  echo "$best"
}
per() { # binary case wave n
  local a b
  a=$(cpu "$1" "$2" "$3" 0) b=$(cpu "$1" "$2" "$3" "$4")
  awk -v a="$a" -v b="$b" -v n="$4" 'BEGIN { printf "%.2f", (b - a) * 1000 / n }'
}
echo "| case | wave | wall ms before | wall ms after | CPU ms before | CPU ms after | CPU before/after |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for w in $WAVES; do
  for c in ${CASES:-kernels/000_uniform_load/uniform_load_image*.json kernels/004_swizzle/swizzle_image_*.json}; do
    case "$c" in *1440p_wide* | *tiled_1440p*) continue ;; esac
    n=60 RUNS=5
    case "$c" in *1440p*) n=1 RUNS=2 ;; esac
    wa=$(wall "$A" "$c" "$w") wb=$(wall "$B" "$c" "$w")
    ca=$(per "$A" "$c" "$w" "$n") cb=$(per "$B" "$c" "$w" "$n")
    echo "| ${c#kernels/} | $w | $wa | $wb | $ca | $cb | $(awk -v a="$ca" -v b="$cb" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }') |"
  done
done
