#!/usr/bin/env bash
# tools/image_speed.sh — the dispatch time of the image cases of articles 000
# and 004 (and the 1440p image gather), one host thread, as a Markdown table
# for docs/performance.md.  Two figures per case and wave size:
#   wall ms   the fastest of 5 `wavelab run --warmup 3 --time` dispatches
#             (what --time prints: wall-clock, so a loaded host inflates it)
#   CPU ms    user+system CPU time per dispatch: the CPU time of a run with
#             N extra (warm-up) dispatches minus that of a run with none, / N
#             (N = 150, 2 for 1440p); steadier than wall time on a shared host
# Usage: tools/image_speed.sh [build/wavelab] [WAVES (default "8 32")]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build/wavelab} WAVES=${2:-"8 32"}
cpu() { /usr/bin/time -f "%U %S" "$B" run "$1" --wave "$2" --threads 1 --warmup "$3" --quiet 2>&1 >/dev/null |
          tail -1 | awk '{print $1 + $2}'; }
echo "| case | wave | wall ms (best of 5) | CPU ms per dispatch |"
echo "| --- | ---: | ---: | ---: |"
for w in $WAVES; do
  for c in kernels/000_uniform_load/uniform_load_image*.json kernels/004_swizzle/swizzle_image_*.json; do
    case "$c" in *1440p_wide* | *tiled_1440p*) continue ;; esac
    best=
    for i in 1 2 3 4 5; do
      t=$("$B" run "$c" --wave "$w" --threads 1 --warmup 3 --quiet --time | sed -n 's/.*dispatch \([0-9.]*\) ms.*/\1/p')
      if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
    done
    n=150
    case "$c" in *1440p*) n=2 ;; esac
    a=$(cpu "$c" "$w" 0) b=$(cpu "$c" "$w" "$n")
    echo "| ${c#kernels/} | $w | $best | $(awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%.2f", (b - a) * 1000 / n }') |"
  done
done
