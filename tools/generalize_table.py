#!/usr/bin/env python3
# tools/generalize_table.py — docs/hardware.md's generalization table ("Generalization: kernels the preset
# was not fitted to"): every case of kernels/generalize/ through `wavelab run --machine M --wave 32` beside
# its CUDA twin's Nsight Compute record (cold: caches flushed before the profiled pass), split into the fit
# and held-out sets that hardware.md declares, and the pay/doesn't-pay direction of the suite's pairs.
#   tools/generalize_table.py [--machine hopper_h100] [--jobs 2] [--wavelab build/wavelab]
#                             [--data docs/data/generalize_2026-11-27]
# Columns: L1 = global-load sector hit rate (l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate; the model's
# L1 read hit rate), L2 = read sector hit rate (lts__t_sector_op_read_hit_rate; the model's L2 read hit
# rate), DRAM = bytes read + written during the kernel (dram__bytes_read.sum + dram__bytes_write.sum; the
# model's dram bytes), time = gpu__time_duration.sum (the model's estimate plus the preset's dispatch_us, the
# probe's near-empty dispatch: a kernel's fixed start and end).
# Bold: outside the bounds (5 points, 10 % DRAM, 25 % time).
import argparse, csv, json, os, re, subprocess, sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

FIT = ['stride_1', 'stride_2', 'stride_4', 'stride_8', 'stride_16', 'stride_32', 'stride_64', 'copy_scale',
       'transpose_naive']
HELD = ['transpose_shared', 'stencil5', 'reduce', 'histogram_lds', 'histogram_global', 'lds_tile', 'random_gather']
PAIRS = [('transpose_naive', 'transpose_shared'), ('histogram_global', 'histogram_lds')] + \
        [('stride_%d' % s, 'stride_%d' % (2 * s)) for s in (1, 2, 4, 8, 16, 32)]
UNITS = {'B': 1, 'KB': 1e3, 'MB': 1e6, 'GB': 1e9}


def dispatch_us(machine):
    path = machine if machine.endswith('.json') else 'machines/%s.json' % machine
    return json.load(open(path)).get('dispatch_us', 0.0)


def run_model(wavelab, machine, name):
    out = subprocess.run([wavelab, 'run', 'kernels/generalize/%s.json' % name, '--machine', machine, '--wave', '32'],
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit('%s: %s' % (name, out.stderr.strip()))
    t = out.stdout
    l1 = re.search(r'l1 +read hit rate [\d.]+% \((\d+) hits, (\d+) misses', t)
    l2 = re.search(r'l2 +read hit rate [\d.]+% \((\d+) hits, (\d+) misses', t)
    dr = re.search(r'dram +([\d.]+) (\w+) read, ([\d.]+) (\w+) written', t)
    est = re.search(r'estimate +(\d+) cycles = [\d.]+ \w+ at ([\d.]+) MHz', t)
    rate = lambda m: 100.0 * int(m.group(1)) / max(1, int(m.group(1)) + int(m.group(2)))
    return {'l1': rate(l1), 'l2': rate(l2),
            'dram': float(dr.group(1)) * UNITS[dr.group(2)] + float(dr.group(3)) * UNITS[dr.group(4)],
            'us': int(est.group(1)) / float(est.group(2)) + dispatch_us(machine)}


def hardware(data):
    m = defaultdict(dict)
    for r in csv.DictReader(open(os.path.join(data, 'ncu.csv'))):
        if r['mode'] == 'cold':
            m[r['config']][r['metric']] = float(r['value'])
    hw = {}
    for c, v in m.items():
        hw[c] = {'l1': v['l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct'],
                 'l2': v['lts__t_sector_op_read_hit_rate.pct'],
                 'dram': v['dram__bytes_read.sum'] + v['dram__bytes_write.sum'],
                 'us': v['gpu__time_duration.sum'] / 1000.0}
    return hw


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--machine', default='hopper_h100')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--wavelab', default='build/wavelab')
    ap.add_argument('--data', default='docs/data/generalize_2026-11-27')
    a = ap.parse_args()
    hw = hardware(a.data)
    names = FIT + HELD
    with ThreadPoolExecutor(a.jobs) as ex:
        model = dict(zip(names, ex.map(lambda n: run_model(a.wavelab, a.machine, n), names)))
    b = lambda text, bad: '**%s**' % text if bad else text
    print('| kernel | split | L1 H100 / model | L2 H100 / model | DRAM MB H100 / model | time us H100 / model |')
    print('| --- | --- | --- | --- | --- | --- |')
    stats = {}
    for split, group in (('fit', FIT), ('held out', HELD)):
        ok = defaultdict(int)
        for n in group:
            h, m = hw[n], model[n]
            dl1, dl2 = m['l1'] - h['l1'], m['l2'] - h['l2']
            edram = 100.0 * (m['dram'] - h['dram']) / h['dram'] if h['dram'] else 0.0
            etime = 100.0 * (m['us'] - h['us']) / h['us']
            ok['l1'] += abs(dl1) <= 5
            ok['l2'] += abs(dl2) <= 5
            ok['dram'] += abs(edram) <= 10
            ok['time'] += abs(etime) <= 25
            print('| %s | %s | %.1f / %s | %.1f / %s | %.1f / %s | %.1f / %s |' % (
                n, split, h['l1'], b('%.1f' % m['l1'], abs(dl1) > 5), h['l2'], b('%.1f' % m['l2'], abs(dl2) > 5),
                h['dram'] / 1e6, b('%.1f (%+.0f %%)' % (m['dram'] / 1e6, edram), abs(edram) > 10),
                h['us'], b('%.1f (%+.0f %%)' % (m['us'], etime), abs(etime) > 25)))
        stats[split] = (len(group), ok)
    print()
    for split, (n, ok) in stats.items():
        print('%s: L1 within 5 points %d of %d, L2 within 5 points %d of %d, DRAM within 10 %% %d of %d, '
              'time within 25 %% %d of %d' % (split, ok['l1'], n, ok['l2'], n, ok['dram'], n, ok['time'], n))
    print()
    print('| pair (a → b) | H100 time b / a | model time b / a | direction |')
    print('| --- | --- | --- | --- |')
    right = 0
    for x, y in PAIRS:
        rh, rm = hw[y]['us'] / hw[x]['us'], model[y]['us'] / model[x]['us']
        # a change "pays" when it is at least 5 % faster; "costs" when at least 5 % slower; else flat
        verdict = lambda r: 'pays' if r < 0.95 else 'costs' if r > 1.05 else 'flat'
        same = verdict(rh) == verdict(rm)
        right += same
        print('| %s → %s | %.2f (%s) | %.2f (%s) | %s |' % (x, y, rh, verdict(rh), rm, verdict(rm),
                                                          'right' if same else '**wrong**'))
    print()
    print('directions right: %d of %d' % (right, len(PAIRS)))


main()
