#!/usr/bin/env bash
# tools/lean_ab.sh — lean programs against the programs as lowered (--no-lean):
# every case in kernels/ (but the 1440p ones) at waves 4, 8, 32 and 64, and the
# reconvergence programs of tools/reconverge.py (seeds 1..COUNT, default 100:
# random nests of if/else, loops with break and continue, switch and early
# returns, a ballot at every step) at the same waves.  The dumped bindings and
# the undefined-behaviour events must be identical (statistics differ by
# design).  Prints "N runs, M differ"; exit 1 when any differ.
#   tools/lean_ab.sh [WAVELAB [COUNT [DIR]]]   default build/wavelab, 100, kernels
#   (COUNT 0: no generated programs; DIR: only the cases under it)
set -uo pipefail
cd "$(dirname "$0")/.."
wavelab="${1:-build/wavelab}"
count="${2:-100}"
cases="${3:-kernels}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/lean" "$dir/off"
n=0; bad=0
# one run of case $1 at wave $2, lean and as lowered
ab() {
    # the same file name on both sides: a dump names the PNG files of image bindings after it
    "$wavelab" run "$1" --wave "$2" --quiet --dump "$dir/lean/out.json" >/dev/null 2>&1; r1=$?
    "$wavelab" run "$1" --wave "$2" --quiet --no-lean --dump "$dir/off/out.json" >/dev/null 2>&1; r2=$?
    n=$((n + 1))
    if [[ $r1 != "$r2" ]] || ! python3 - "$dir/lean/out.json" "$dir/off/out.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["bindings"] == b["bindings"] and a["undefined"] == b["undefined"] else 1)
PY
    then
        echo "differ: $1 wave $2 (exit $r1 lean, $r2 as lowered)"
        bad=$((bad + 1))
    fi
}
for c in $(find "$cases" -name "*.json" | grep -v 1440p | sort); do
    for w in 4 8 32 64; do
        ab "$c" "$w"
    done
done
mkdir "$dir/rc"
[[ $count -gt 0 ]] && python3 tools/reconverge.py --seed 1 --count "$count" --waves 4,8,32,64 --out "$dir/rc" >/dev/null
for c in $(find "$dir/rc" -name "rc_*_w*.json" | sort -V); do
    w="${c##*_w}"
    ab "$c" "${w%.json}"
done
echo "$n runs, $bad differ"
[[ $bad == 0 ]]
