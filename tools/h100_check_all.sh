#!/usr/bin/env bash
# tools/h100_check_all.sh — on an NVIDIA H100 machine, from the repository root, with a prebuilt wavelab
# ($WAVELAB, default build/wavelab; the run-time .debs in .gl/ are unpacked first when carried, as
# docs/hardware.md says): every case under kernels/ and tests/compare/ and every Amber script under tests/amber/
# through `wavelab check` at wave 32, without timings (tools/h100_run.sh times them).  The 1440p cases and the
# full-size kernels/generalize/ cases are left out: the simulator needs minutes for each and they hold no
# expectation (tools/h100_generalize.sh measures those).  Results under $OUT:
#   check.txt     every check's report and exit code
#   summary.txt   one line per case (exit code, case), then the counts by exit code
set -u
for f in .gl/*.deb; do [ -e "$f" ] && dpkg -x "$f" /; done
ldconfig 2>/dev/null
export WAVELAB_NO_CACHE=1
W=${WAVELAB:-$PWD/build/wavelab}
OUT=${OUT:-out}
mkdir -p "$OUT"
"$W" devices > "$OUT/devices.txt" 2>&1
: > "$OUT/check.txt"; : > "$OUT/summary.txt"
for c in $(find kernels tests/compare tests/amber \( -name '*.json' -o -name '*.amber' \) ! -name '*1440p*' \
           ! -path '*/generalize/*' | sort); do
  echo "=== $c" >> "$OUT/check.txt"
  "$W" check "$c" --wave 32 --device nvidia >> "$OUT/check.txt" 2>&1; rc=$?
  echo "exit $rc" >> "$OUT/check.txt"
  echo "$rc $c" >> "$OUT/summary.txt"
done
awk '{ n[$1]++ } END { printf "cases at wave 32 by exit code:"; for (k in n) printf " %s: %d", k, n[k]; print "" }' \
  "$OUT/summary.txt" >> "$OUT/summary.txt"
