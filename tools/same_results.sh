#!/usr/bin/env bash
# tools/same_results.sh — two wavelab binaries (before and after an executor
# change that must not change any result) run every case under kernels/ and
# every case file under tests/ at waves 8 and 32; their exit codes, printed
# output (the run summary with its statistics, or the fault message) and
# `--dump` JSON (bindings, statistics, undefined-behaviour events) and the
# PNG files it writes for 8-bit images must be byte-identical.  The 1440p cases are compared without `--dump` (a dump of
# their 33 M-element bindings takes a minute and gigabytes); their summary
# is still compared.  Prints "N runs, M differ"; exit 1 when any differ.
#   tools/same_results.sh BEFORE AFTER     e.g. /tmp/base/wavelab build/wavelab
# OUTPUTS_ONLY=1 compares what the kernel computed, not how: exit codes, the
# dumped bindings and undefined-behaviour events, the PNGs (for a change to
# the lowering, which changes the statistics by design).
set -uo pipefail
if [[ $# -ne 2 ]]; then
    echo "usage: tools/same_results.sh BEFORE_WAVELAB AFTER_WAVELAB" >&2
    exit 2
fi
before="$(realpath "$1")"
after="$(realpath "$2")"
cd "$(dirname "$0")/.."
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
n=0; bad=0
run() { # binary tag case wave: writes $dir/tag/{out,rc,dump.json,dump.*.png}
    local dump=(--dump "$dir/$2/dump.json")
    [[ $3 == *1440p* ]] && dump=()
    rm -rf "${dir:?}/$2" && mkdir "$dir/$2"
    "$1" run "$3" --wave "$4" --threads 1 "${dump[@]}" >"$dir/$2/out" 2>&1
    echo $? >"$dir/$2/rc"
}
for c in $(find kernels tests -name "*.json" -not -path "*/junit/*" | sort); do
    for w in 8 32; do
        run "$before" a "$c" "$w"
        run "$after" b "$c" "$w"
        n=$((n + 1))
        if [[ -n ${OUTPUTS_ONLY:-} ]]; then
            for t in a b; do
                rm -f "$dir/$t/out"
                [[ -f $dir/$t/dump.json ]] && python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); json.dump({"bindings": d.get("bindings"), "undefined": d.get("undefined")},
                                            open(sys.argv[1], "w"), sort_keys=True)' "$dir/$t/dump.json"
            done
        fi
        if ! diff -r "$dir/a" "$dir/b" >/dev/null; then
            echo "differ: $c wave $w (exit $(cat "$dir/a/rc") before, $(cat "$dir/b/rc") after)"
            diff -r "$dir/a" "$dir/b" | head -5
            bad=$((bad + 1))
        fi
    done
done
echo "$n runs, $bad differ"
[[ $bad == 0 ]]
