#!/usr/bin/env bash
# scripts/demo.sh — the flagship demo: set up, build, and run article 000's
# tiled light loop (naive per-lane uniform loads vs one cooperative load per
# wave + a broadcast) at wave 8, 32 and 64, then compare their memory
# instructions.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target wavelab >/dev/null

dir=kernels/000_uniform_load
for w in 8 32 64; do
  for v in naive wave; do
    ./build/wavelab run "$dir/uniform_load_$v.json" --wave "$w"
    echo
  done
done

echo "Article 000 in numbers: light loads (texel-buffer reads, one per wave instruction) per dispatch"
printf '%-6s %14s %14s %8s\n' wave naive wave ratio
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for w in 8 32 64; do
  ./build/wavelab run "$dir/uniform_load_naive.json" --wave "$w" --quiet --dump "$tmp/n.json"
  ./build/wavelab run "$dir/uniform_load_wave.json" --wave "$w" --quiet --dump "$tmp/w.json"
  n=$(sed -n 's/.*"img_read":[[:space:]]*\([0-9]*\).*/\1/p' "$tmp/n.json")
  o=$(sed -n 's/.*"img_read":[[:space:]]*\([0-9]*\).*/\1/p' "$tmp/w.json")
  awk -v w="$w" -v n="$n" -v o="$o" 'BEGIN { printf "%-6s %14d %14d %7.1fx\n", w, n, o, n / o }'
done
echo "(a tile's light count is not a multiple of the wave size, so the ratio stays below the wave size;"
echo " see docs/lessons/ for the article's claim and kernels/000_uniform_load/README.md)"
