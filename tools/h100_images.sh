#!/bin/bash
# tools/h100_images.sh — on an NVIDIA H100 machine, from the repository root, with a prebuilt wavelab
# (build/wavelab, or $WAVELAB; run-time .debs in .gl/ are unpacked first when carried, as for
# tools/h100_as_written.sh): builds nothing; every image case (articles 000 and 004 as written, the sampling
# suite and the other cases under kernels/images/, the 1D, 3D and cube ones of tools/gen_image_dims.py included:
# the glob picks up every case there) through `wavelab check` at wave 32, and the 1440p image gathers of article 004 timed
# on the device (row-major vs tiled launch).  Results under $OUT:
#   devices.txt   the device list;   check.txt   every check's report and exit code;
#   summary.txt   one line per case (exit code, case), then the counts;
#   timing_1440p.txt   `run --backend vulkan --repeat 20` of the two 1440p image cases.
set -u
for f in .gl/*.deb; do [ -e "$f" ] && dpkg -x "$f" /; done
ldconfig 2>/dev/null
export WAVELAB_NO_CACHE=1
W=${WAVELAB:-$PWD/build/wavelab}
$W devices > "$OUT/devices.txt" 2>&1
: > "$OUT/check.txt"; : > "$OUT/summary.txt"
agree=0; differ=0; skipped=0; other=0
for c in kernels/000_uniform_load/uniform_load_image_*.json kernels/004_swizzle/swizzle_image_*_[0-9]*x[0-9]*.json \
         kernels/images/*.json; do
  echo "=== $c" >> "$OUT/check.txt"
  $W check "$c" --wave 32 >> "$OUT/check.txt" 2>&1; rc=$?
  echo "exit $rc" >> "$OUT/check.txt"
  echo "$rc $c" >> "$OUT/summary.txt"
  case $rc in 0) agree=$((agree+1));; 1) differ=$((differ+1));; 3) skipped=$((skipped+1));; *) other=$((other+1));; esac
done
echo "image cases at wave 32: $agree agree, $differ differ, $skipped skipped (device cannot run), $other other exits" \
  >> "$OUT/summary.txt"
: > "$OUT/timing_1440p.txt"
for c in kernels/004_swizzle/swizzle_image_load_row_major_1440p.json kernels/004_swizzle/swizzle_image_load_tiled_1440p.json; do
  echo "=== $c" >> "$OUT/timing_1440p.txt"
  $W run "$c" --backend vulkan --wave 32 --repeat 20 >> "$OUT/timing_1440p.txt" 2>&1
  echo "exit $?" >> "$OUT/timing_1440p.txt"
done
cat "$OUT/summary.txt" | tail -1
