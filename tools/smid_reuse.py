#!/usr/bin/env python3
# tools/smid_reuse.py — from a record of tools/h100_smid.sh (block,sm,start_ns,end_ns per block of article
# 004's 7x7-tap gather), the share of a block's sectors that a block which started before it on the same SM
# (or the same TPC: SMs 2k and 2k+1) and was still running, or had ended less than 2 us earlier, also read:
# the L1 hit rate an L1 that keeps everything for that long would give.  docs/hardware.md, "The gather".
#   tools/smid_reuse.py RECORD.csv.gz S GROUPS_X [SAMPLE]     (SAMPLE: every SAMPLE-th block, default 7)
import csv, gzip, sys

path, S, GX = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
SAMPLE = int(sys.argv[4]) if len(sys.argv) > 4 else 7
rows = csv.reader(gzip.open(path, 'rt'))
next(rows)
B = {int(r[0]): (int(r[1]), int(r[2]), int(r[3])) for r in rows}
GY = len(B) // GX
tiled = 'tiled' in path


def pos(flat):
    """The workgroup whose pixels block `flat` computes (the kernels' thread-group tiling, N = 16)."""
    if not tiled:
        return flat % GX, flat // GX
    per = 16 * GY
    s = flat // per * 16 + (flat % per) // 16 * GX + flat % 16
    return s % GX, s // GX


P = {pos(k): k for k in B}
step = S // 8
same = tpc = total = 0
for k, (sm, t0, _) in B.items():
    if k % SAMPLE:
        continue
    gx, gy = pos(k)
    mine = {(gx + step * (i - 3), gy + step * (j - 3)) for i in range(7) for j in range(7)}
    hit_sm, hit_tpc = set(), set()
    for dx in range(-6 * step, 6 * step + 1, step):
        for dy in range(-6 * step, 6 * step + 1, step):
            q = P.get((gx + dx, gy + dy))
            if q is None or q == k:
                continue
            sq, a0, a1 = B[q]
            if a0 <= t0 and a1 >= t0 - 2000:
                other = {(gx + dx + step * (i - 3), gy + dy + step * (j - 3)) for i in range(7) for j in range(7)}
                if sq == sm:
                    hit_sm |= mine & other
                if sq // 2 == sm // 2:
                    hit_tpc |= mine & other
    same += len(hit_sm)
    tpc += len(hit_tpc)
    total += len(mine)
print('%s: same-SM reuse %.1f %%, same-TPC reuse %.1f %%' % (path, 100 * same / total, 100 * tpc / total))
