#!/usr/bin/env python3
# tools/direction_table.py — the row-vs-tiled L2 direction of article 004's gather, H100 against the model
# (docs/hardware.md, "The row-vs-tiled direction, repeated"):
#   tools/direction_table.py docs/data/h100_direction/repeats.csv docs/data/h100_ncu_gather.csv < rows.csv
# repeats.csv: tools/h100_direction.sh's repeated profiles; h100_ncu_gather.csv: the L1's global-load sectors per
# row; rows.csv: build/gather_model's rows (docs/data/gather_model_hopper_h100_rows.csv).  Prints two tables:
# the direction in each repeat under both readings of the L2 rate, and the L1's effective reuse (lookup hits plus
# the misses merged in flight, which never reach the L2) beside the model's L1 rate.
import collections, csv, sys
from ncu_l2 import l2_rate_as_model_counts

rep = collections.defaultdict(lambda: collections.defaultdict(dict))
for r in csv.DictReader(open(sys.argv[1])):
    rep[r['config']][int(r['repeat'])][r['metric']] = float(r['value'].replace(',', ''))
sectors = {}
for r in csv.DictReader(open(sys.argv[2])):
    sectors['%sx%s_S%s_%s' % (r['width'], r['height'], r['S'], r['order'])] = float(r['l1_global_ld_sectors'])
model = {}
for line in sys.stdin:
    f = line.strip().split(',')
    if len(f) < 6 or not f[0].isdigit():
        continue
    model['%sx%s_S%s_%s' % (f[0], f[1], f[2], f[3])] = (float(f[4]), float(f[5]))


def reading(x):
    """(1 - misses / sectors, official hit rate, L1 lookup hit %, in-flight merged %, misses per DRAM fill)."""
    misses = (x['lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum'] +
              x['lts__t_sectors_srcunit_ltcfabric_op_read_lookup_miss.sum'])
    req = x['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum']
    l1miss = x['l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum']
    merged = l1miss - x['lts__t_sectors_srcunit_tex_op_read.sum']
    return (l2_rate_as_model_counts(x), x['lts__t_sector_op_read_hit_rate.pct'], 100 * (1 - l1miss / req),
            100 * merged / req, misses / x['lts__d_sectors_fill_device.sum'])


def sign(d):
    return 'up' if d > 0 else 'down'


pairs = [(size, S) for size in ('2560x1440', '3840x2160', '16384x4096') for S in (8, 64)]
print('| size | S | row→tiled, 1 − misses / sectors: repeats 1, 2, 3 | official rate: repeats 1, 2, 3 '
      '| misses per DRAM sector | model | agree |')
print('| --- | ---: | --- | --- | ---: | --- | --- |')
for size, S in pairs:
    row, til = rep['%s_S%d_row' % (size, S)], rep['%s_S%d_tiled' % (size, S)]
    d1 = [reading(til[r])[0] - reading(row[r])[0] for r in sorted(row)]
    d2 = [reading(til[r])[1] - reading(row[r])[1] for r in sorted(row)]
    ratio = [reading(x[r])[4] for x in (row, til) for r in x]
    mk = '%s_S%d_' % (size, S)
    md = model[mk + 'tiled'][1] - model[mk + 'row'][1] if mk + 'row' in model else float('nan')
    steady = len({sign(d) for d in d1}) == 1
    print('| %s | %d | %s | %s | %.3f–%.3f | %s %+.3f | %s |' % (
        size.replace('x', '×'), S, ', '.join('%+.3f' % d for d in d1),
        ', '.join('%+.2f' % d for d in d2) + (' (sign flips)' if len({sign(d) for d in d2}) > 1 else ''),
        min(ratio), max(ratio), sign(md), md, ('yes' if sign(md) == sign(d1[0]) else '**no**') if steady else '—'))
print()
print('| size | S | order | L1 lookup hits ncu | merged in flight | effective reuse ncu | model L1 | '
      'row − tiled effective: ncu / model |')
print('| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |')
for size, S in pairs:
    eff = {}
    for order in ('row', 'tiled'):
        k = '%s_S%d_%s' % (size, S, order)
        v = [reading(rep[k][r]) for r in sorted(rep[k])]
        hits, merged = sum(x[2] for x in v) / len(v), sum(x[3] for x in v) / len(v)
        eff[order] = hits + merged
        m = model.get(k, (float('nan'),))[0]
        eff['m' + order] = m
        last = ''
        if order == 'tiled':
            last = '%+.2f / %+.2f' % (eff['row'] - eff['tiled'], eff['mrow'] - eff['mtiled'])
        print('| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %s |' % (size.replace('x', '×'), S, order, hits, merged,
                                                                hits + merged, m, last))
