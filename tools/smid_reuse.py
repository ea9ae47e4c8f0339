#!/usr/bin/env python3
# tools/smid_reuse.py — from a record of tools/h100_smid.sh (block,sm,start_ns,end_ns per block of article
# 004's 7x7-tap gather), the share of a block's sectors that a block which started before it on the same SM
# (or the same TPC: SMs 2k and 2k+1) and was still running, or had ended less than 2 us earlier, also read:
# the L1 hit rate an L1 that keeps everything for that long would give.  docs/hardware.md, "The gather".
# Also the placement's lag profile: how often block k + d runs on block k's SM (1/132 when placement is
# random), the dispatcher statistic that the memory model's "dispatch" preset object is fitted to; which
# partners the same-SM reuse comes from (h: same group row, v: same group column, d: diagonal); and how
# blocks that land on one SM within 20 launches of each other run: how far apart they start and how alike
# their durations are (docs/hardware.md, "The row-vs-tiled direction, repeated").
#   tools/smid_reuse.py RECORD.csv[.gz] S GROUPS_X [SAMPLE] [--tiled] [--step-ns NS]
#     SAMPLE: every SAMPLE-th block (default 7); --tiled: the blocks follow the tiled order (default: when the
#     file name says "tiled"); --step-ns: the record is the model's (build/gather_model --placement: times in
#     replay steps), NS nanoseconds per step for the 2 us window.
import csv, gzip, sys

args = [a for a in sys.argv[1:]]
step_ns = 1.0
if '--step-ns' in args:
    i = args.index('--step-ns')
    step_ns = float(args[i + 1])
    del args[i:i + 2]
tiled_flag = '--tiled' in args
args = [a for a in args if a != '--tiled']
path, S, GX = args[0], int(args[1]), int(args[2])
SAMPLE = int(args[3]) if len(args) > 3 else 7
rows = csv.reader(gzip.open(path, 'rt') if path.endswith('.gz') else open(path))
next(rows)
B = {int(r[0]): (int(r[1]), float(r[2]) * step_ns, float(r[3]) * step_ns) for r in rows}
GY = len(B) // GX
tiled = tiled_flag or 'tiled' in path


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
source = {'h': 0, 'v': 0, 'd': 0}
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
                    new = (mine & other) - hit_sm
                    source['h' if dy == 0 else 'v' if dx == 0 else 'd'] += len(new)
                    hit_sm |= new
                if sq // 2 == sm // 2:
                    hit_tpc |= mine & other
    same += len(hit_sm)
    tpc += len(hit_tpc)
    total += len(mine)
print('%s: same-SM reuse %.1f %%, same-TPC reuse %.1f %%' % (path, 100 * same / total, 100 * tpc / total))
print('  same-SM reuse from partners in the same group row %.1f %%, column %.1f %%, diagonal %.1f %%'
      % tuple(100 * source[k] / total for k in 'hvd'))
# lag profile over the steady state (after the first 5000 blocks, or the second half of a small record)
first = min(5000, len(B) // 2)
lags = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 50, 132, 320]
prof = []
for d in lags:
    n = sum(1 for k in range(first, len(B) - d, SAMPLE))
    hit = sum(1 for k in range(first, len(B) - d, SAMPLE) if B[k][0] == B[k + d][0])
    prof.append('%d:%.3f' % (d, hit / n if n else 0))
print('  same SM at lag d: ' + ' '.join(prof))
# blocks on one SM launched within 20 of each other, in the steady state: start difference and durations
near = [(k, k + d) for k in range(first, len(B) - 20, SAMPLE) for d in range(1, 21) if B[k][0] == B[k + d][0]]
if len(near) > 2:
    dur = {k: B[k][2] - B[k][1] for k in B}
    starts = sorted(abs(B[b][1] - B[a][1]) for a, b in near)
    x = [dur[a] for a, _ in near]
    y = [dur[b] for _, b in near]
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((u - mx) * (v - my) for u, v in zip(x, y))
    sxx = sum((u - mx) ** 2 for u in x)
    syy = sum((v - my) ** 2 for v in y)
    corr = sxy / (sxx * syy) ** 0.5 if sxx and syy else 0.0
    ddiff = sorted(abs(u - v) for u, v in zip(x, y))
    alld = sorted(dur.values())
    print('  same-SM blocks <= 20 launches apart: %d pairs, start difference median %.0f ns (p90 %.0f), '
          'duration correlation %.2f, |duration difference| median %.0f ns (block duration median %.0f ns)'
          % (len(near), starts[len(starts) // 2], starts[9 * len(starts) // 10], corr, ddiff[len(ddiff) // 2],
             alld[len(alld) // 2]))
