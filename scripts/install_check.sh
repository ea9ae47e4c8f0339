#!/usr/bin/env bash
# scripts/install_check.sh BUILD_DIR — wavelab as an outside project sees it
# (scripts/test.sh runs it after the build):
#   1. `cmake --install` into a temporary prefix;
#   2. the installed `wavelab`, run from / with no WAVELAB_ROOT, finds every
#      preset of machines/ and loads each one; WAVELAB_ROOT overrides them; a
#      moved tree still finds them;
#   3. examples/hlsl_unit_test configures against the prefix with
#      find_package(wavelab), builds and passes its tests; again with pkg-config;
#   4. `cpack -G DEB` makes a .deb that holds the command, the libraries, the
#      header, the package files and the presets.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
build="$(cd "${1:-build}" && pwd)"
jobs="$(nproc)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
fail() { echo "install_check: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null

# 2. presets from anywhere
listed="$(cd / && env -u WAVELAB_ROOT "$prefix/bin/wavelab" machines)"
for preset in machines/*.json; do
  name="$(basename "$preset" .json)"
  grep -qw -- "$name" <<<"$listed" || fail "installed wavelab run from / does not list preset $name"
  (cd / && env -u WAVELAB_ROOT "$prefix/bin/wavelab" run "$repo/kernels/000_uniform_load/uniform_load_wave.json" \
     --machine "$name" --quiet >/dev/null) || fail "installed wavelab run from / cannot use preset $name"
done

# WAVELAB_ROOT still overrides the installed presets
mkdir -p "$tmp/root/machines"
cp machines/rdna2.json "$tmp/root/machines/only_this_one.json"
listed="$(cd / && WAVELAB_ROOT="$tmp/root" "$prefix/bin/wavelab" machines)"
! grep -qw turing_rtx2080 <<<"$listed" || fail "with WAVELAB_ROOT set, the installed presets are still listed"
(cd / && WAVELAB_ROOT="$tmp/root" "$prefix/bin/wavelab" run "$repo/kernels/000_uniform_load/uniform_load_wave.json" \
   --machine only_this_one --quiet >/dev/null) || fail "WAVELAB_ROOT's preset only_this_one is not found"
# the installed wavelab finds the probe's kernels beside its presets (--from-sweeps needs no device, only them)
(cd / && env -u WAVELAB_ROOT "$prefix/bin/wavelab" probe --from-sweeps "$repo/docs/probe" -o "$tmp/probe.json" \
   >/dev/null 2>&1) || fail "installed wavelab probe does not find its kernels (share/wavelab/probe)"
# (the sources name the sweep folder as given: the absolute path here, docs/probe in the committed preset)
sed "s|$repo/docs/probe|docs/probe|g" "$tmp/probe.json" | cmp -s - "$repo/machines/lavapipe_measured.json" ||
  fail "installed wavelab probe --from-sweeps docs/probe does not rebuild machines/lavapipe_measured.json"
# a moved tree still finds its presets: they are found relative to the binary, not where it was installed
mv "$prefix" "$tmp/moved"
(cd / && env -u WAVELAB_ROOT "$tmp/moved/bin/wavelab" machines | grep -qw rdna2) || fail "a moved install loses its presets"
mv "$tmp/moved" "$prefix"

# 3. the example project, both ways of finding wavelab; WAVELAB_ROOT unset so nothing comes from this tree
env -u WAVELAB_ROOT cmake -S examples/hlsl_unit_test -B "$tmp/example" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/example" -j"$jobs" >/dev/null
(cd "$tmp/example" && env -u WAVELAB_ROOT ctest --output-on-failure -j"$jobs" >/dev/null) ||
  fail "examples/hlsl_unit_test (find_package) fails against the installed tree"
pkgdir="$(dirname "$(find "$prefix" -name wavelab.pc | head -n1)")"
env -u WAVELAB_ROOT PKG_CONFIG_PATH="$pkgdir" cmake -S examples/hlsl_unit_test -B "$tmp/example-pc" \
  -DREDUCE_USE_PKG_CONFIG=ON >/dev/null
cmake --build "$tmp/example-pc" -j"$jobs" >/dev/null
(cd "$tmp/example-pc" && env -u WAVELAB_ROOT ctest --output-on-failure -j"$jobs" >/dev/null) ||
  fail "examples/hlsl_unit_test (pkg-config) fails against the installed tree"

# a plain cc command as docs/api.md shows it: the rpath lets it start without LD_LIBRARY_PATH
printf '#include <stdio.h>\n#include <wavelab.h>\nint main(void) { puts(wavelab_version()); return 0; }\n' \
  >"$tmp/version.c"
PKG_CONFIG_PATH="$pkgdir" sh -c 'cc "$1" -o "$2" $(pkg-config --cflags --libs wavelab) \
  -Wl,-rpath,$(pkg-config --variable=libdir wavelab)' - "$tmp/version.c" "$tmp/version" ||
  fail "the cc command of docs/api.md does not build against the installed tree"
[ "$(env -u LD_LIBRARY_PATH "$tmp/version")" = "$("$prefix/bin/wavelab" --version | cut -d' ' -f2)" ] ||
  fail "a program built with the cc command of docs/api.md does not start or reports another version"

# 4. the Debian package
(cd "$build" && cpack -G DEB -B "$tmp/deb" >"$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log" >&2; fail "cpack failed"; }
deb="$(ls "$tmp"/deb/wavelab_*.deb)"
contents="$(dpkg-deb -c "$deb")"
for path in ./usr/bin/wavelab ./usr/include/wavelab.h ./usr/share/wavelab/machines/rdna2.json \
            ./usr/share/wavelab/probe/chase.comp \
            /libwavelab.a /libwavelab.so.0 /pkgconfig/wavelab.pc /cmake/wavelab/wavelabConfig.cmake; do
  grep -q -- "$path" <<<"$contents" || fail "$(basename "$deb") lacks $path"
done
echo "install_check: installed tree, presets from /, example project (CMake and pkg-config) and .deb all good"
