#!/usr/bin/env bash
# tools/h100_verdicts.sh — the hardware side of docs/hardware.md, "Verdicts": times both variants of
# every article pair (the pairs of tools/model_verdicts.sh) on an NVIDIA GPU through the Vulkan backend.
# One command on the device machine, from the repository root, set up as for tools/h100_run.sh (the
# binary and the Vulkan loader's .debs under .gl/):   OUT=out tools/h100_verdicts.sh
# Writes $OUT/verdicts_h100.csv (case,median_us,sm_clock) and $OUT/env.txt; about 2 minutes.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
B=${WAVELAB:-.gl/bin/wavelab}
OUT=${OUT:-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/env.txt" 2>&1
echo "case,median_us,sm_clock" > "$OUT/verdicts_h100.csv"
CASES=$(sed -n 's/^\(00[0-4]\) \([^ ]*\) \([^ ]*\)$/\2\n\3/p' tools/model_verdicts.sh | sort -u)
for c in $CASES; do
  nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits -lms 50 > "$OUT/clk.tmp" 2>/dev/null &
  sampler=$!
  t=$("$B" run "kernels/$c.json" --backend vulkan --device nvidia --wave 32 --warmup 2000 --repeat 200 2>&1 |
      sed -n 's/.*median \([0-9.]*\) *us.*/\1/p' | head -1)
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
  clk=$(sort -n "$OUT/clk.tmp" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }')
  echo "$c,${t:-failed},$clk" >> "$OUT/verdicts_h100.csv"
done
rm -f "$OUT/clk.tmp"
