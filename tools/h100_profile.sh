#!/bin/bash
# tools/h100_profile.sh — article 001's profiler on an NVIDIA H100: from the repository root with .gl/ carried
# as for tools/h100_as_written.sh (the binary in .gl/bin, the run-time .debs in .gl, the cases in .gl/cases,
# where .gl/cases/001_compaction is a copy of kernels/001_compaction).  Checks the pipeline case against the
# simulator at wave 32, then profiles its three passes (cull, compact, consume) from the GPU timestamps, 200
# runs, and the four compaction variants alone; pictures, traces and text under $OUT.  The figures go in
# docs/hardware.md ("Article 001's profiler") with this command.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export WAVELAB_NO_CACHE=1
W=$PWD/.gl/bin/wavelab
cd .gl/cases/001_compaction || exit 2
$W devices > $OUT/devices.txt 2>&1
$W check pipeline.json --wave 32 > $OUT/check.txt 2>&1; echo "exit $?" >> $OUT/check.txt
$W profile pipeline.json --wave 32 --repeat 200 --svg $OUT/profile_h100.svg --trace $OUT/profile_h100.json \
  > $OUT/profile.txt 2>&1; echo "exit $?" >> $OUT/profile.txt
for v in naive lds wave wave_global; do
  echo "=== compaction_$v" >> $OUT/variants.txt
  $W profile compaction_$v.json --wave 32 --repeat 200 --svg $OUT/variant_$v.svg >> $OUT/variants.txt 2>&1
  echo "exit $?" >> $OUT/variants.txt
done
