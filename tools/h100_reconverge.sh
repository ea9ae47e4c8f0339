#!/bin/bash
# tools/h100_reconverge.sh — on an NVIDIA H100 machine, from the repository root with .gl/ carried (the
# binary in .gl/bin, the run-time .debs in .gl, generated programs in .gl/cases/rc: docs/hardware.md,
# "Reconvergence"): every reconvergence program through `wavelab check` at wave 32, once as compiled
# and once with --maximal-reconvergence.  Results under $OUT: summary.txt, and the first failures.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export WAVELAB_NO_CACHE=1
W=$PWD/.gl/bin/wavelab
cd .gl/cases
$W devices > $OUT/devices.txt 2>&1
for mode in ${MODES-plain maximal}; do
  flag=; [ $mode = maximal ] && flag=--maximal-reconvergence
  agree=0; fail=0; : > $OUT/fail_$mode.txt
  for c in rc/rc_*_w32.json; do
    if $W check $c --wave 32 $flag > $OUT/last.txt 2>&1; then agree=$((agree+1)); else
      fail=$((fail+1)); echo "$c" >> $OUT/failed_$mode.txt
      [ $fail -le 5 ] && { echo "=== $c"; cat $OUT/last.txt; } >> $OUT/fail_$mode.txt; fi
  done
  echo "$mode: $agree agree, $fail differ or fail" >> $OUT/summary.txt
done
rm -f $OUT/last.txt
# one construct at a time (kernels/reconvergence/constructs_*.json, copied to .gl/cases/constructs)
for c in constructs/constructs_*.json; do
  for flag in "" --maximal-reconvergence; do
    echo "=== $c $flag" >> $OUT/constructs.txt
    $W check $c --wave 32 $flag 2>&1 | grep -E "^\s+\[|DIFFER|AGREE|SKIP|error" | head -6 >> $OUT/constructs.txt
  done
done
