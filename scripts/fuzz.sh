#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] — builds the libFuzzer harnesses (fuzz/, with
# clang), makes seed corpora from kernels/ (case files as they are, kernels
# compiled to SPIR-V by build/wavelab), runs every kept regression input
# (fuzz/regressions/), then fuzzes the harnesses side by side for SECONDS
# (default 30) of wall time.
# A crash leaves its input in build-fuzz/artifacts/: fix the bug, then keep
# the input under fuzz/regressions/<harness>/ so this script replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"

CC=clang CXX=clang++ SOURCE=fuzz scripts/build.sh build-fuzz -DCMAKE_BUILD_TYPE=Debug
[ -x build/wavelab ] || scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo

seeds=build-fuzz/seeds
rm -rf "$seeds" build-fuzz/artifacts
mkdir -p "$seeds/case" "$seeds/spirv" "$seeds/amber" build-fuzz/corpus/case build-fuzz/corpus/spirv \
  build-fuzz/corpus/amber build-fuzz/artifacts
cp tests/amber/*.amber "$seeds/amber/"  # both formats: AmberScript and VkScript
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  cp "$f" "$seeds/case/$n.json"
  # the same kernel as SPIR-V (cases sharing a kernel give the same module; libFuzzer keeps one)
  ./build/wavelab compile "$f" --spirv "$seeds/spirv/$n.spv" >/dev/null 2>&1 || rm -f "$seeds/spirv/$n.spv"
done < <({
  # kernels/' model studies (no "expect": the 1440p gathers, kernels/generalize; `wavelab test` skips them too)
  # fill tens of millions of elements, which takes the instrumented reader past libFuzzer's timeout
  find kernels -name '*.json' -print0 | xargs -0 grep -lZ '"expect"'
  find tests/sanitize tests/cases -name '*.json' -print0
} | sort -z)

export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
harnesses=(case spirv amber)
for h in "${harnesses[@]}"; do
  regress=(fuzz/regressions/"$h"/*)
  if [ -e "${regress[0]}" ]; then
    ./build-fuzz/fuzz_"$h" "${regress[@]}" >/dev/null 2>build-fuzz/regress_"$h".log || {
      cat build-fuzz/regress_"$h".log >&2
      echo "fuzz: a kept regression input of fuzz_$h fails again" >&2
      exit 1
    }
  fi
done
# the harnesses fuzz side by side, each for SECONDS of wall time (the test machines have two cores: this leg
# took three times SECONDS one after another)
fuzz_one() {
  local h="$1" dict=()
  [ -f fuzz/"$h".dict ] && dict=(-dict=fuzz/"$h".dict)
  ./build-fuzz/fuzz_"$h" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=build-fuzz/artifacts/"$h"- -print_final_stats=1 \
    build-fuzz/corpus/"$h" "$seeds/$h" >build-fuzz/fuzz_"$h".log 2>&1
}
pids=()
for h in "${harnesses[@]}"; do
  fuzz_one "$h" &
  pids+=($!)
done
failed=0
for k in "${!harnesses[@]}"; do
  h="${harnesses[$k]}"
  if ! wait "${pids[$k]}"; then
    tail -60 build-fuzz/fuzz_"$h".log >&2
    echo "fuzz: fuzz_$h found a failure; its input is in build-fuzz/artifacts/" >&2
    failed=1
    continue
  fi
  grep -E "stat::number_of_executed_units|stat::new_units_added" build-fuzz/fuzz_"$h".log | tr '\n' ' ' |
    sed "s/^/fuzz_$h: /; s/\$/\n/"
done
exit "$failed"
