#!/bin/bash
# tools/h100_as_written.sh — on an NVIDIA H100 machine, from the repository root with .gl/ carried (the
# binary in .gl/bin, the run-time .debs in .gl, the cases in .gl/cases: docs/hardware.md, "The kernel as
# written"): every case through `wavelab check` at wave 32, results under $OUT.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export WAVELAB_NO_CACHE=1
W=$PWD/.gl/bin/wavelab
cd .gl/cases
$W devices > $OUT/devices.txt 2>&1
for c in served/scalarization_served.json matrix/matrix_layouts.json matrix/matrix_layouts_hlsl.json \
         hlsl_quirks/ternary_wave.json hlsl_quirks/short_circuit.json spirv/dxc.json; do
  echo "=== $c" >> $OUT/check.txt
  $W check $c --wave 32 >> $OUT/check.txt 2>&1; echo "exit $?" >> $OUT/check.txt
done
echo "=== served --optimize=size" >> $OUT/check.txt
$W check served/scalarization_served.json --wave 32 --optimize=size >> $OUT/check.txt 2>&1; echo "exit $?" >> $OUT/check.txt
agree=0; fail=0
for c in rc/rc_*_w32.json; do
  if $W check $c --wave 32 > $OUT/rc_last.txt 2>&1; then agree=$((agree+1)); else fail=$((fail+1)); echo "=== $c" >> $OUT/rc_fail.txt; cat $OUT/rc_last.txt >> $OUT/rc_fail.txt; fi
done
echo "reconvergence programs at wave 32: $agree agree, $fail differ or fail" >> $OUT/check.txt
