#!/usr/bin/env python3
# tools/sm_durations.py — how much of a block's duration is a property of the SM it runs on, from records of
# tools/h100_smid.sh or tools/h100_direction.sh (block,sm,start_ns,end_ns per block of article 004's gather).
# For each record, over the blocks that start in the middle 80 % of the launch (the steady state): the spread
# of durations (coefficient of variation), the share of its variance that the SM explains (between-SM variance
# over total), the SMs' mean durations relative to the mean (10th and 90th percentile), and the SMs faster
# than 0.85 of the mean.  With two or more records, the correlation of the SMs' mean durations between them.
# docs/hardware.md, "The row-vs-tiled direction, repeated".
#   tools/sm_durations.py RECORD.csv[.gz] [RECORD.csv[.gz] ...]
import csv, gzip, statistics, sys
from collections import defaultdict


def load(path):
    f = gzip.open(path, 'rt') if path.endswith('.gz') else open(path)
    return [(int(r['sm']), int(r['start_ns']), int(r['end_ns'])) for r in csv.DictReader(f)]


def ranges(sms):
    """SM numbers as runs: [32, 33, 34, 40] -> '32-34, 40'."""
    out, start = [], None
    for k, s in enumerate(sms):
        if start is None:
            start = s
        if k + 1 == len(sms) or sms[k + 1] != s + 1:
            out.append(str(start) if start == s else '%d-%d' % (start, s))
            start = None
    return ', '.join(out)


means = {}
for path in sys.argv[1:]:
    rows = sorted(load(path), key=lambda r: r[1])
    cut = len(rows) // 10
    steady = rows[cut:len(rows) - cut]
    d = [e - s for _, s, e in steady]
    mu, var = statistics.fmean(d), statistics.pvariance(d)
    by_sm = defaultdict(list)
    for sm, s, e in steady:
        by_sm[sm].append(e - s)
    between = sum(len(v) * (statistics.fmean(v) - mu) ** 2 for v in by_sm.values()) / len(d)
    rel = {sm: statistics.fmean(v) / mu for sm, v in by_sm.items()}
    order = sorted(rel.values())
    fast = sorted(sm for sm, r in rel.items() if r < 0.85)
    means[path] = rel
    print('%s: %d blocks, duration cv %.3f, SM explains %.2f of the variance; SM means p10 %.2f p90 %.2f; '
          '%d SMs under 0.85 (%s)' % (path, len(d), var ** 0.5 / mu, between / var, order[len(order) // 10],
                                      order[9 * len(order) // 10], len(fast), ranges(fast) or 'none'))
paths = list(means)
for i, a in enumerate(paths):
    for b in paths[i + 1:]:
        common = sorted(set(means[a]) & set(means[b]))
        r = statistics.correlation([means[a][s] for s in common], [means[b][s] for s in common])
        print('SM means correlate %.2f: %s / %s' % (r, a, b))
