#!/usr/bin/env bash
# scripts/test.sh — set up, build and run every test: the Check suites (via
# ctest), every kernel case at wave 4..64 with `wavelab test`, and the same
# suites again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs="$(nproc)"

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs" >/dev/null
# generated documentation must be current
if ! ./build/wavelab isa | diff -u docs/isa.md - >/dev/null; then
  echo "docs/isa.md is out of date: run 'build/wavelab isa > docs/isa.md'" >&2
  exit 1
fi
(cd build && ctest --output-on-failure -j"$jobs")
./build/wavelab test kernels --waves 4,8,16,32,64

if [ "${WAVELAB_SKIP_SANITIZERS:-0}" != "1" ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DWAVELAB_SANITIZE=ON >/dev/null
  cmake --build build-asan -j"$jobs" >/dev/null
  export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  [ -f tests/lsan.supp ] && export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"
  (cd build-asan && ctest --output-on-failure -j"$jobs")
  ./build-asan/wavelab test kernels --waves 8,32
fi
