#!/usr/bin/env python3
"""tools/atomic_table.py — docs/hardware.md's "Atomics against the H100" table: every case of kernels/atomics/
(and generalize/histogram_global) through `wavelab run --machine hopper_h100 --wave 32` beside the same case
through the Vulkan backend on the H100 (docs/data/atomics_2026-11-27/vulkan_time.csv: median of 50 timed
dispatches after 20, GPU timestamps).  Model time: the estimate with the dispatch (estimate.dispatch_microseconds).
--check compares the table with the one between the markers in docs/hardware.md (exit 1 when they differ).

    python3 tools/atomic_table.py [--wavelab build/wavelab] [--check]
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, 'docs/data/atomics_2026-11-27/vulkan_time.csv')
BEGIN, END = '<!-- atomic_table begin -->', '<!-- atomic_table end -->'


def cases():
    names = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, 'kernels/atomics')) if f.endswith('.json'))
    return [('kernels/atomics/%s.json' % n, n) for n in names] + \
           [('kernels/generalize/histogram_global.json', 'histogram_global')]


def model(wavelab, path):
    out = subprocess.run([wavelab, 'run', path, '--machine', 'hopper_h100', '--wave', '32'],
                         capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        sys.exit('%s: %s' % (path, out.stderr.strip()))
    est = re.search(r'^  estimate .* bound by (\w+);.*; with the dispatch ([\d.]+) (us|ms)', out.stdout, re.M)
    passes = re.search(r'^  atomic +the busiest L2 atomic unit \(\d+ bytes\) does (\d+) passes', out.stdout, re.M)
    us = float(est.group(2)) * (1000 if est.group(3) == 'ms' else 1)
    return us, est.group(1), int(passes.group(1)) if passes else 0


def table(wavelab):
    h100 = {r['case']: float(r['median_us']) for r in csv.DictReader(open(DATA))}
    rows = ['| case | what | H100 µs | model µs | | bound by | busiest unit\'s passes |',
            '| --- | --- | ---: | ---: | ---: | --- | ---: |']
    for path, name in cases():
        what = json.load(open(os.path.join(ROOT, path)))['description']
        what = what.split(': ', 1)[1].split('; no expect')[0] if name != 'histogram_global' else \
            'the generalization suite\'s held-out kernel (the same as hist_256_bins)'
        us, bound, passes = model(wavelab, path)
        rows.append('| %s | %s | %.0f | %.0f | %+.0f %% | %s | %d |' % (
            name, what, h100[name], us, 100 * (us / h100[name] - 1), bound, passes))
    return '\n'.join(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--wavelab', default='build/wavelab')
    ap.add_argument('--check', action='store_true')
    a = ap.parse_args()
    t = table(a.wavelab)
    if not a.check:
        print(t)
        return 0
    doc = open(os.path.join(ROOT, 'docs/hardware.md')).read()
    old = doc.split(BEGIN, 1)[1].split(END, 1)[0].strip('\n')
    if old != t:
        print('docs/hardware.md: the atomics table differs from tools/atomic_table.py:\n' + t, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
