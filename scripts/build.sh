#!/usr/bin/env bash
# scripts/build.sh DIR [CMAKE_OPTION...] [-- BUILD_OPTION...] — configures and
# builds the project in DIR with every core, the way the other scripts build
# (test.sh, demo.sh, fuzz.sh).  SOURCE defaults to the repository (set it for
# fuzz/); options before `--` go to the configure step, after it to the build
# (`--target wavelab`).  A new build directory uses Ninja where it is
# installed (scripts/setup.sh installs it): CMake's makefiles finish
# sim/exec.c, the longest compile, after the other targets' objects and
# leave a core idle meanwhile (on two cores 100 s against Ninja's 75 s:
# docs/performance.md, "Ninja, one sanitized `check` per set of
# features").  An existing directory keeps the generator it was made with.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$1"
shift
configure=() build=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do configure+=("$1"); shift; done
[ $# -gt 0 ] && shift
build=("$@")
if [ ! -f "$dir/CMakeCache.txt" ] && [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null; then
  export CMAKE_GENERATOR=Ninja
fi
cmake -S "${SOURCE:-.}" -B "$dir" "${configure[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)" "${build[@]}" >/dev/null
