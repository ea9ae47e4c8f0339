#!/usr/bin/env python3
"""tools/verdict_table.py — rewrites the model columns of docs/hardware.md's verdict table from the CSV
that tools/model_verdicts.sh writes; the H100 columns (measured) are kept as they are.

    tools/model_verdicts.sh > verdicts.csv && python3 tools/verdict_table.py verdicts.csv

The CSV may hold some presets only (tools/model_verdicts.sh hopper_h100): the others keep their columns.

A trick "pays" when it is at least 5 % faster (speed-up >= 1.05), on both sides.  Prints how many pairs the
hopper_h100 verdict gets right.
"""
import csv
import re
import sys

DOC = "docs/hardware.md"
OTHERS = ["turing_rtx2080", "rdna2", "gcn_vega64", "lavapipe"]


def pays(speedup):
    return speedup >= 1.05


def main():
    rows = {}
    with open(sys.argv[1], newline="") as f:
        for r in csv.DictReader(f):
            key = (r["baseline"].split("/")[-1], r["trick"].split("/")[-1])
            rows.setdefault(key, {})[r["preset"]] = r
    text = open(DOC).read().split("\n")
    right = total = 0
    for i, line in enumerate(text):
        m = re.match(r"\| (\d{3}) \| `([^`]+)` → `([^`]+)` \| ([^|]+) \| (pays|no) \|", line)
        if not m or (m.group(2), m.group(3)) not in rows:
            continue
        art, base, trick, measured, h100 = m.groups()
        model = rows[(base, trick)]
        hop = model["hopper_h100"]
        s = float(hop["speedup"])
        verdict = "pays" if pays(s) else "no"
        cells = ["%.2f× (%.1f → %.1f µs)" % (s, float(hop["baseline_us"]), float(hop["trick_us"])), verdict]
        old = [c.strip() for c in line.strip().strip("|").split("|")]
        for k, p in enumerate(OTHERS):
            if p not in model:  # a preset the CSV does not have keeps its column
                cells.append(old[6 + k])
                continue
            sp = float(model[p]["speedup"])
            cells.append("%.2f× %s" % (sp, "pays" if pays(sp) else "no"))
        ok = verdict == h100
        right += ok
        total += 1
        cells.append("yes" if ok else "**no**")
        text[i] = "| %s | `%s` → `%s` | %s | %s | %s |" % (art, base, trick, measured.strip(), h100, " | ".join(cells))
    open(DOC, "w").write("\n".join(text))
    print("hopper_h100 verdict right on %d of %d pairs" % (right, total))


if __name__ == "__main__":
    main()
