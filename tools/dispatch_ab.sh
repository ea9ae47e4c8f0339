#!/usr/bin/env bash
# tools/dispatch_ab.sh — before/after dispatch time of one case: runs each
# wavelab binary given, alternately, N times (`run CASE --wave W --threads 1
# --warmup 100 --quiet --time`) and prints the best dispatch time of each.
# Alternating spreads a shared host's load over both binaries alike.
#   tools/dispatch_ab.sh CASE WAVE N WAVELAB...   e.g. ... 8 5 /tmp/main/wavelab build/wavelab
set -uo pipefail
if [[ $# -lt 4 ]]; then
    echo "usage: tools/dispatch_ab.sh CASE WAVE N WAVELAB..." >&2
    exit 2
fi
c=$1; w=$2; n=$3; shift 3
declare -A best
for ((i = 0; i < n; i++)); do
    for b in "$@"; do
        t=$("$b" run "$c" --wave "$w" --threads 1 --warmup 100 --quiet --time 2>&1 |
            grep -oE "dispatch [0-9.]+" | cut -d" " -f2)
        if [[ -z "$t" ]]; then
            echo "tools/dispatch_ab.sh: $b printed no dispatch time for $c" >&2
            exit 1
        fi
        if [[ -z "${best[$b]:-}" ]] || awk "BEGIN { exit !($t < ${best[$b]}) }"; then
            best[$b]=$t
        fi
    done
done
for b in "$@"; do
    echo "$b $(basename "$c") wave $w: ${best[$b]} ms"
done
