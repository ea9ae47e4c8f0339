#!/usr/bin/env python3
# tools/gather_table.py — docs/hardware.md's gather table from build/gather_model's rows (one CSV line each,
# any order, on stdin) and the Nsight Compute records (docs/data/h100_ncu_gather.csv).  Bold: outside the
# issue's bounds (5 points for hit rates, 25 % for time).
#   for each row: WAVELAB_ROOT=$PWD build/gather_model --machine hopper_h100 ... >> rows.csv
#   tools/gather_table.py docs/data/h100_ncu_gather.csv [docs/data/h100_ncu_gather_extra.csv] < rows.csv
# With the second file (tools/h100_gather_sol.sh's extra.csv):
#  * the H100's L2 rate is read the way the model counts, 1 - lookup misses / sectors looked up (the SMs'
#    and the fabric's read sectors), with Nsight Compute's lts__t_sector_op_read_hit_rate (lookup hits /
#    sectors, which counts some missed sectors again as hits: docs/hardware.md, "Two readings of the L2
#    hit rate") beside it;
#  * a column compares the L2 read requests (lts__t_requests_op_read), the count that bounds the H100's
#    time, with the model's (gather_model's 10th column).
import csv, sys
from collections import defaultdict
from ncu_l2 import l2_rate_as_model_counts

ncu = {(r['width'], r['height'], r['S'], r['order']): r for r in csv.DictReader(open(sys.argv[1]))}
extra = defaultdict(dict)
if len(sys.argv) > 2:
    for r in csv.DictReader(open(sys.argv[2])):
        size, S, order = r['config'].split('_')
        extra[tuple(size.split('x')) + (S[1:], order)][r['metric']] = float(r['value'])
model = {}
for r in csv.reader(sys.stdin):
    if len(r) in (9, 10) and r[0].isdigit():
        model[tuple(r[:4])] = r


def bold(text, bad):
    return '**%s**' % text if bad else text


def direction(x):
    return 'up %+.2f' % x if x > 0 else 'down %+.3f' % x if x < 0 else 'flat'


def l2_hw(key):
    """The H100's L2 read rate as the model counts it (miss-based) where the extra record has it, else the
    official hit rate."""
    e = extra.get(key)
    return l2_rate_as_model_counts(e) if e else float(ncu[key]['l2_hit_pct'])


head = ('| size | S | order | L1 ncu | L1 model | Δ | L2 ncu%s | L2 model | Δ | row→tiled L2: ncu / model '
        '| DRAM read MB ncu / model | time µs ncu / model | Δ time |' % (' (1 − miss / sectors)' if extra else ''))
rule = '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |'
if extra:
    head += ' L2 ncu hit rate (official) | L2 read requests M ncu / model |'
    rule += ' ---: | ---: |'
print(head)
print(rule)
for key, h in ncu.items():
    m = model.get(key)
    if not m:
        continue
    w, hgt, S, order = key
    l1n, l2n = float(h['l1_global_ld_hit_pct']), l2_hw(key)
    l1m, l2m = float(m[4]), float(m[5])
    rk, tk = (w, hgt, S, 'row'), (w, hgt, S, 'tiled')
    mr, mt = model.get(rk), model.get(tk)
    dirs = '%s / %s' % (direction(l2_hw(tk) - l2_hw(rk)), direction(float(mt[5]) - float(mr[5]))) if mr and mt else '?'
    tn, tm = float(h['time_us']), float(m[7])
    dt = 100 * (tm - tn) / tn
    tail = ''
    if extra:
        rn = extra.get(key, {}).get('lts__t_requests_op_read.sum')
        tail = ' %.2f | %s / %s |' % (float(h['l2_hit_pct']), '%.2f' % (rn / 1e6) if rn else '?',
                                      '%.2f' % (float(m[9]) / 1e6) if len(m) > 9 else '?')
    print('| %s×%s | %s | %s | %.2f | %.2f | %s | %.2f | %.2f | %s | %s | %.1f / %.1f | %.0f / %.0f | %s |%s' % (
        w, hgt, S, order, l1n, l1m, bold('%+.1f' % (l1m - l1n), abs(l1m - l1n) > 5), l2n, l2m,
        bold('%+.1f' % (l2m - l2n), abs(l2m - l2n) > 5), dirs, float(h['dram_read_bytes']) / 1e6,
        float(m[6]) / 1e6, tn, tm, bold('%+.0f %%' % dt, abs(dt) > 25), tail))
