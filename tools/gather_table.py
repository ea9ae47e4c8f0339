#!/usr/bin/env python3
# tools/gather_table.py — docs/hardware.md's gather table from build/gather_model's rows (one CSV line each,
# any order, on stdin) and the Nsight Compute records (docs/data/h100_ncu_gather.csv).  Bold: outside the
# issue's bounds (5 points for hit rates, 25 % for time).
#   for each row: WAVELAB_ROOT=$PWD build/gather_model --machine hopper_h100 ... >> rows.csv
#   tools/gather_table.py docs/data/h100_ncu_gather.csv [docs/data/h100_ncu_gather_extra.csv] < rows.csv
# With the second file (tools/h100_gather_sol.sh's extra.csv) a column compares the L2 read requests
# (lts__t_requests_op_read), the count that bounds the H100's time, with the model's (gather_model's 10th column).
import csv, sys

ncu = {(r['width'], r['height'], r['S'], r['order']): r for r in csv.DictReader(open(sys.argv[1]))}
requests = {}
if len(sys.argv) > 2:
    for r in csv.DictReader(open(sys.argv[2])):
        if r['metric'] == 'lts__t_requests_op_read.sum':
            size, S, order = r['config'].split('_')
            requests[tuple(size.split('x')) + (S[1:], order)] = float(r['value'])
model = {}
for r in csv.reader(sys.stdin):
    if len(r) in (9, 10) and r[0].isdigit():
        model[tuple(r[:4])] = r


def bold(text, bad):
    return '**%s**' % text if bad else text


def direction(x):
    return 'up %+.2f' % x if x > 0 else 'down %+.3f' % x if x < 0 else 'flat'


print('| size | S | order | L1 ncu | L1 model | Δ | L2 ncu | L2 model | Δ | row→tiled L2: ncu / model '
      '| DRAM read MB ncu / model | time µs ncu / model | Δ time |' + (' L2 read requests M ncu / model |' if requests else ''))
print('| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |' + (' ---: |' if requests else ''))
for key, h in ncu.items():
    m = model.get(key)
    if not m:
        continue
    w, hgt, S, order = key
    l1n, l2n = float(h['l1_global_ld_hit_pct']), float(h['l2_hit_pct'])
    l1m, l2m = float(m[4]), float(m[5])
    other = 'tiled' if order == 'row' else 'row'
    hr, mr = ncu.get((w, hgt, S, 'row')), model.get((w, hgt, S, 'row'))
    ht, mt = ncu.get((w, hgt, S, 'tiled')), model.get((w, hgt, S, 'tiled'))
    dirs = '%s / %s' % (direction(float(ht['l2_hit_pct']) - float(hr['l2_hit_pct'])),
                        direction(float(mt[5]) - float(mr[5]))) if mr and mt else '?'
    tn, tm = float(h['time_us']), float(m[7])
    dt = 100 * (tm - tn) / tn
    req = ''
    if requests:
        rn = requests.get(key)
        req = ' %s / %s |' % ('%.2f' % (rn / 1e6) if rn else '?', '%.2f' % (float(m[9]) / 1e6) if len(m) > 9 else '?')
    print('| %s×%s | %s | %s | %.2f | %.2f | %s | %.2f | %.2f | %s | %s | %.1f / %.1f | %.0f / %.0f | %s |%s' % (
        w, hgt, S, order, l1n, l1m, bold('%+.1f' % (l1m - l1n), abs(l1m - l1n) > 5), l2n, l2m,
        bold('%+.1f' % (l2m - l2n), abs(l2m - l2n) > 5), dirs, float(h['dram_read_bytes']) / 1e6,
        float(m[6]) / 1e6, tn, tm, bold('%+.0f %%' % dt, abs(dt) > 25), req))
