#!/usr/bin/env python3
"""tools/probe_ncu_table.py — the Nsight Compute records of tools/h100_probe.sh as one Markdown table.

    python3 tools/probe_ncu_table.py OUT/log.txt OUT/ncu_twins.csv > table.md

log.txt names each twin launch in order ("launch chase lines=512", ..., "launch copy bytes=... (3
launches)"); ncu_twins.csv (ncu --csv) has one row per launch and metric.  The table: one row per launch
with the L1 and L2 sector read hit rates, DRAM bytes read and the kernel's time.
"""
import csv
import sys

METRICS = ["l1tex__t_sector_hit_rate.pct", "lts__t_sector_op_read_hit_rate.pct", "dram__bytes_read.sum",
           "gpu__time_duration.sum"]


def launches(log):
    names = []
    for line in open(log):
        if line.startswith("launch "):
            what = line[len("launch "):].strip()
            count = 3 if "(3 launches)" in what else 1
            what = what.replace(" (3 launches)", "")
            names += [what] * count
    return names


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    names = launches(sys.argv[1])
    rows = {}
    order = []
    with open(sys.argv[2], newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own ==PROF== lines are not CSV
    for r in csv.DictReader(lines):
        key = r["ID"]
        if key not in rows:
            rows[key] = {}
            order.append(key)
        rows[key][r["Metric Name"]] = "%s %s" % (r["Metric Value"], r["Metric Unit"])
    print("| launch | kernel | L1 hit (sectors) | L2 read hit (sectors) | DRAM read | time |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for i, key in enumerate(order):
        what = names[i] if i < len(names) else "?"
        print("| %s | %s | %s |" % (what, "chase" if what.startswith(("chase", "stride")) else "copy16",
                                    " | ".join(rows[key].get(m, "") for m in METRICS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
