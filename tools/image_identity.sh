#!/usr/bin/env bash
# tools/image_identity.sh — shows that a change to the image path (img/,
# sim/image_exec.c) changed no result: runs every case that binds an image or
# a sampler (kernels/, tests/backend/cases, tests/errors) with two wavelab
# binaries at waves 8 and 32 and compares, byte for byte,
#   * the run summary with --profile (statistics, per-instruction counts,
#     expectations, faults) and its exit status,
#   * the --dump output (every binding after the run: the JSON and the PNGs
#     it writes beside it),
#   * the summary under --machine turing_rtx2080 (the memory model, which
#     sees each image lane's texel address), except for the 1440p gathers.
# Prints one line per difference and "N runs compared, N differ"; exit 1 when
# any differ.
# Usage: [CASES="a.json b.json"] tools/image_identity.sh OLD_WAVELAB NEW_WAVELAB [WAVES (default "8 32")]
set -uo pipefail
cd "$(dirname "$0")/.."
OLD=$1 NEW=$2 WAVES=${3:-"8 32"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=0 differ=0
cases=${CASES:-$(grep -rlE '"kind": *"[a-z_]*(image|sampler)' kernels tests/backend/cases tests/errors --include='*.json' | sort)}
for c in $cases; do
  for w in $WAVES; do
    variants="plain"
    case "$c" in *1440p*) ;; *) variants="plain machine" ;; esac
    for v in $variants; do
      for side in old new; do
        bin=$OLD; [ "$side" = new ] && bin=$NEW
        # each side dumps under the same name in its own folder: the JSON names its side files (PNGs)
        rm -rf "${tmp:?}/$side" && mkdir "$tmp/$side"
        extra=(--profile --dump "$tmp/$side/dump.json")
        [ "$v" = machine ] && extra=(--machine turing_rtx2080)
        "$bin" run "$c" --wave "$w" --threads 1 "${extra[@]}" >"$tmp/$side.out" 2>&1
        echo "exit $?" >>"$tmp/$side.out"
        sed -i "s|$tmp/$side/|DIR/|g" "$tmp/$side.out" # a fault message may name the dump's path
      done
      runs=$((runs + 1))
      if ! cmp -s "$tmp/old.out" "$tmp/new.out"; then
        echo "DIFFER summary: $c wave $w ($v)"; differ=$((differ + 1)); continue
      fi
      if ! diff -r -q "$tmp/old" "$tmp/new" >/dev/null; then
        echo "DIFFER dump: $c wave $w"; differ=$((differ + 1))
      fi
    done
  done
done
echo "$runs runs compared, $differ differ"
[ "$differ" -eq 0 ]
