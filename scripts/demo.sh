#!/usr/bin/env bash
# scripts/demo.sh — the flagship demo: set up, build, and run article 000's
# uniform-load kernels at wave 8, 32 and 64 with a readable summary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target wavelab >/dev/null
for c in kernels/000_uniform_load/naive_glsl.json kernels/000_uniform_load/wave_glsl.json; do
  [ -f "$c" ] || continue
  for w in 8 32 64; do
    ./build/wavelab run "$c" --wave "$w"
    echo
  done
done
