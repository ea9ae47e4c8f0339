#!/usr/bin/env bash
# tools/perf_vs_lavapipe.sh — the simulator's speed against lavapipe's on
# every kernel case, same machine, same wave size (8), printed as the
# Markdown table of docs/performance.md.
#
#   sim dispatch   host time of sim_run alone (`wavelab run --time`), after one
#                  untimed warm-up dispatch, as lavapipe's (a process's first
#                  dispatch also faults in the executor's code: docs/performance.md)
#   sim process    the whole `wavelab run` process (glslang, lowering, run)
#   lvp dispatch   lavapipe's timestamp-query time of the dispatch (median of
#                  LVP_REPEAT dispatches, default 15: medians of 5 moved up to
#                  5x between runs on a loaded host, e.g. uniform_load_wave_ssbo
#                  0.201 ms in the 2026-11-24 evening table, 0.036-0.053 later)
#   lvp process    the whole `wavelab run --backend vulkan` process (glslang,
#                  lavapipe's LLVM compile, buffers, 1 dispatch)
#
# lavapipe runs with LP_NUM_THREADS=1 so both sides use one core.  After the
# table: the geometric mean of the dispatch ratio over every case and over the
# ALU-heavy half (000, 002, 004 and 003's all-true branch).
# On a loaded host, SIM_RUNS=N takes the fastest of N simulator dispatches.
# Usage: [SIM_RUNS=N] tools/perf_vs_lavapipe.sh [build/wavelab]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build/wavelab}
export LP_NUM_THREADS=1
now() { date +%s.%N; }
echo "| case | sim dispatch ms | sim process s | lavapipe dispatch ms | lavapipe process s | dispatch ratio sim/lvp |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for c in $(find kernels -name '*.json' | sort); do
  t0=$(now)
  "$B" run "$c" --wave 8 --threads 1 --quiet >/dev/null || true
  t1=$(now)
  simd=$(for k in $(seq "${SIM_RUNS:-1}"); do
           "$B" run "$c" --wave 8 --threads 1 --warmup 1 --quiet --time | sed -n 's/.*dispatch \([0-9.]*\) ms.*/\1/p'
         done | sort -g | head -1)
  t1b=$(now)
  "$B" run "$c" --backend vulkan --wave 8 --warmup 0 --repeat 1 >/dev/null 2>&1 || true
  t2=$(now)
  # a case whose expectation fails on lavapipe (a recorded device difference) still has a timing
  lvp=$({ "$B" run "$c" --backend vulkan --wave 8 --warmup 1 --repeat "${LVP_REPEAT:-15}" 2>/dev/null || true; } |
        sed -n 's/.*device time  median \([0-9.]*\) us.*/\1/p')
  if [ -z "$lvp" ]; then lvp_ms="-"; ratio="-"; else
    lvp_ms=$(awk -v u="$lvp" 'BEGIN { printf "%.3f", u / 1000 }')
    ratio=$(awk -v s="$simd" -v l="$lvp" 'BEGIN { printf "%.2f", s / (l / 1000) }')
  fi
  awk -v c="${c#kernels/}" -v sd="$simd" -v sp="$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" \
      -v ld="$lvp_ms" -v lp="$(awk -v a="$t1b" -v b="$t2" 'BEGIN{print b-a}')" -v r="$ratio" \
      'BEGIN { printf "| %s | %s | %.2f | %s | %.2f | %s |\n", c, sd, sp, ld, lp, r }' | tee -a "$rows"
done
awk -F'|' '$7 + 0 > 0 { r = $7 + 0; n++; s += log(r)
                         if ($2 ~ /^ (000|002|004)_/ || $2 ~ /all_true_branch/) { m++; t += log(r) } }
     END { if (n) printf "\ngeometric mean of the dispatch ratio: %.2f over %d cases, %.2f over the %d ALU-heavy ones\n",
                         exp(s / n), n, (m ? exp(t / m) : 0), m }' "$rows"
