#!/usr/bin/env bash
# tools/lean_ab.sh — every case in kernels/ (but the 1440p ones) at waves 4, 8, 32
# and 64, run lean and with --no-lean: the dumped bindings and the undefined-behaviour
# events must be identical (statistics differ by design).  Prints "N runs, M differ";
# exit 1 when any differ.
#   tools/lean_ab.sh [WAVELAB]     default build/wavelab
set -uo pipefail
cd "$(dirname "$0")/.."
wavelab="${1:-build/wavelab}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
n=0; bad=0
for c in $(find kernels -name "*.json" | grep -v 1440p | sort); do
    for w in 4 8 32 64; do
        "$wavelab" run "$c" --wave "$w" --quiet --dump "$dir/lean.json" >/dev/null 2>&1; r1=$?
        "$wavelab" run "$c" --wave "$w" --quiet --no-lean --dump "$dir/off.json" >/dev/null 2>&1; r2=$?
        n=$((n + 1))
        if [[ $r1 != "$r2" ]] || ! python3 - "$dir/lean.json" "$dir/off.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["bindings"] == b["bindings"] and a["undefined"] == b["undefined"] else 1)
PY
        then
            echo "differ: $c wave $w (exit $r1 lean, $r2 as lowered)"
            bad=$((bad + 1))
        fi
    done
done
echo "$n runs, $bad differ"
[[ $bad == 0 ]]
