#!/usr/bin/env bash
# tools/bench/test_cache.sh — wall and CPU time of `wavelab test kernels --waves 4,8,16,32,64`
# with a cold SPIR-V cache (empty directory), a warm one, and with --no-cache; ROUNDS rounds
# interleaved (default 3), so that load from other processes spreads over all three.
# Usage: tools/bench/test_cache.sh [BINARY] [ROUNDS]     (docs/performance.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:-build/wavelab}"
rounds="${2:-3}"
XDG_CACHE_HOME="$(mktemp -d)"
export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
run() { # label, extra args
  /usr/bin/time -f "$1 %e s wall, %U s user, %S s sys" "$bin" test kernels --waves 4,8,16,32,64 "${@:2}" >/dev/null
}
for _ in $(seq "$rounds"); do
  rm -rf "$XDG_CACHE_HOME/wavelab"
  run cold
  run warm
  run no-cache --no-cache
done
