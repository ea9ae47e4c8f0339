#!/usr/bin/env bash
# scripts/reconverge.sh — the reconvergence programs of CI (docs/reconvergence.md):
# tools/reconverge.py's self-test, then programs SEED .. SEED+COUNT-1 (and the
# HLSL twins of the first fifth) written to a temporary directory and run on
# the simulator at every wave size of WAVES against the generator's own
# reference, then a sample of them at wave 8 on a
# Vulkan device through `wavelab check` when one is present (lavapipe's
# subgroup size is 8).
#
#   scripts/reconverge.sh [COUNT [SEED]]     defaults: 200 programs from seed 1
#   WAVES=4,8,16,32,64,128 scripts/reconverge.sh   other wave sizes (default: the
#                                                  tool's DEFAULT_WAVES)
#   WAVELAB=build-asan/wavelab RECONVERGE_DEVICE=0 scripts/reconverge.sh 20
#                                                  another build, no device checks
#   SHARD=2/4 scripts/reconverge.sh 1000           every 4th generated program from the
#                                                  2nd (`wavelab test --shard`): four
#                                                  machines run the thousand once
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-200}"
seed="${2:-1}"
waves="${WAVES:-}"   # empty: the tool's DEFAULT_WAVES
wave_args=()
[[ -n "$waves" ]] && wave_args=(--waves "$waves")
shard_args=()
[[ -n "${SHARD:-}" ]] && shard_args=(--shard "$SHARD")
wavelab="${WAVELAB:-./build/wavelab}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

python3 tools/reconverge.py --self-test
python3 tools/reconverge.py --seed "$seed" --count "$count" "${wave_args[@]}" --out "$dir"
# the HLSL twins of the first fifth, through glslang's HLSL front end
python3 tools/reconverge.py --seed "$seed" --count $(((count + 4) / 5)) "${wave_args[@]}" --out "$dir" --hlsl
"$wavelab" test "$dir" "${shard_args[@]}" >"$dir/test.txt" || {
  grep -A3 -E '^(FAIL|XPASS)' "$dir/test.txt" >&2
  tail -n 1 "$dir/test.txt" >&2
  echo "reconvergence: see one with tools/reconverge.py --seed N --print --wave W" >&2
  exit 1
}
echo "reconvergence programs $seed..$((seed + count - 1)) at waves ${waves:-(default)}: $(tail -n 1 "$dir/test.txt")" \
  "($(grep -c '^XFAIL' "$dir/test.txt" || true) known failures)"

# Through spirv-opt's size passes (`--optimize=size`, where this wavelab has
# it): the programs the optimizer's break-block melding changes fail, and only
# those (tools/reconverge.py --optimized marks them known failures).
if { "$wavelab" 2>&1 || true; } | grep -q -- "--optimize"; then
  opt_count=$(((count + 4) / 5))
  mkdir "$dir/optimized"
  python3 tools/reconverge.py --seed "$seed" --count "$opt_count" "${wave_args[@]}" --out "$dir/optimized" --optimized
  "$wavelab" test "$dir/optimized" --optimize=size "${shard_args[@]}" >"$dir/optimized.txt" || {
    grep -A3 -E '^(FAIL|XPASS)' "$dir/optimized.txt" >&2
    echo "reconvergence --optimize=size: the known-failure rule no longer matches the optimizer" >&2
    exit 1
  }
  echo "reconvergence programs $seed..$((seed + opt_count - 1)) with --optimize=size: $(tail -n 1 "$dir/optimized.txt")" \
    "($(grep -c '^XFAIL' "$dir/optimized.txt" || true) changed by the optimizer, as predicted)"
fi

# The device sees the same SPIR-V: `check` compares every binding.  Every 20th
# program; exit 3 (no device, or it cannot run the case) is a skip.
if [[ "${RECONVERGE_DEVICE:-1}" != 0 && ( -z "$waves" || ",$waves," == *,8,* ) ]]; then
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
