#!/usr/bin/env bash
# scripts/reconverge.sh — the reconvergence programs of CI (docs/reconvergence.md):
# tools/reconverge.py's self-test, then programs SEED .. SEED+COUNT-1 written to a
# temporary directory and run on the simulator at every wave size of WAVES
# against the generator's own reference, then a sample of them at wave 8 on a
# Vulkan device through `wavelab check` when one is present (lavapipe's
# subgroup size is 8).
#
#   scripts/reconverge.sh [COUNT [SEED]]     defaults: 200 programs from seed 1
#   WAVES=4,8,16,32,64,128 scripts/reconverge.sh   other wave sizes
#   WAVELAB=build-asan/wavelab scripts/reconverge.sh
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-200}"
seed="${2:-1}"
waves="${WAVES:-4,8,16,32,64}"
wavelab="${WAVELAB:-./build/wavelab}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

python3 tools/reconverge.py --self-test
python3 tools/reconverge.py --seed "$seed" --count "$count" --waves "$waves" --out "$dir"
"$wavelab" test "$dir" >"$dir/test.txt" || {
  grep -A3 -E '^(FAIL|XPASS)' "$dir/test.txt" >&2
  tail -n 1 "$dir/test.txt" >&2
  echo "reconvergence: see one with tools/reconverge.py --seed N --print --wave W" >&2
  exit 1
}
echo "reconvergence programs $seed..$((seed + count - 1)) at waves $waves: $(tail -n 1 "$dir/test.txt")" \
  "($(grep -c '^XFAIL' "$dir/test.txt" || true) known failures)"

# The device sees the same SPIR-V: `check` compares every binding.  Every 20th
# program; exit 3 (no device, or it cannot run the case) is a skip.
if [[ ",$waves," == *,8,* ]]; then
  agree=0 skipped=0
  for ((s = seed; s < seed + count; s += 20)); do
    rc=0
    "$wavelab" check "$dir/rc_${s}_w8.json" --wave 8 >"$dir/check.txt" 2>&1 || rc=$?
    case $rc in
      0) agree=$((agree + 1)) ;;
      3) skipped=$((skipped + 1)) ;;
      *) cat "$dir/check.txt" >&2; echo "reconvergence: program $s differs on the device at wave 8" >&2; exit 1 ;;
    esac
  done
  echo "reconvergence on a Vulkan device at wave 8: $agree agree, $skipped skipped"
fi
