#!/usr/bin/env python3
"""tools/radv_table.py — wavelab's registers and occupancy beside ACO's for the
articles' kernels on RADV's null devices (`wavelab disasm CASE --against
radv:FAMILY`; no AMD GPU needed).  Prints the Markdown table of
docs/hardware.md ("AMD's compiler as the judge"); --check compares it with
the table there (exit 1 when they differ, 77 when RADV is absent).

    python3 tools/radv_table.py [--wavelab build/wavelab] [--check]
"""
import argparse
import os
import re
import subprocess
import sys

CASES = [
    "000_uniform_load/uniform_load_naive.json",
    "000_uniform_load/uniform_load_wave.json",
    "001_compaction/compaction_naive.json",
    "001_compaction/compaction_wave.json",
    "001_compaction/compaction_lds.json",
    "002_lds_fp16/neighborhood_fp32_split.json",
    "002_lds_fp16/neighborhood_fp16_split.json",
    "003_wave_tricks/scalarization_naive.json",
    "003_wave_tricks/scalarization_scalarized.json",
    "004_swizzle/swizzle_image_load_tiled_168x24.json",
]
# (family, wave): each generation at its drivers' usual compute wave size
TARGETS = [("vega10", 64), ("navi21", 32), ("gfx1100", 32)]
BEGIN, END = "<!-- radv_table begin -->", "<!-- radv_table end -->"


def row(out, name):
    """The two columns (wavelab, ACO) of a comparison row of `disasm --against`."""
    m = re.search(r"^; " + re.escape(name) + r" +(\S+) +(\S+)$", out, re.M)
    if not m:
        sys.exit(f"radv_table: no '{name}' row in:\n{out}")
    return m.groups()


def statistic(out, name):
    m = re.search(re.escape(name) + r" (\d+)", out)
    return m.group(1) if m else "-"


def table(wavelab, root):
    lines = ["| case | GPU | wave | VGPRs wavelab / ACO (ACO's demand) | SGPRs wavelab / ACO (ACO's demand) "
             "| waves per SIMD wavelab / ACO | SMEM loads wavelab / ACO |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for case in CASES:
        for family, wave in TARGETS:
            args = [wavelab, "disasm", os.path.join(root, "kernels", case), "--against", f"radv:{family}",
                    "--wave", str(wave)]
            run = subprocess.run(args, capture_output=True, text=True)
            if run.returncode == 3 or (run.returncode == 2 and "RADV knows no" in run.stderr):
                sys.stderr.write(f"radv_table: skipped: {run.stdout}{run.stderr}")
                sys.exit(77)
            if run.returncode != 0:
                sys.exit(f"radv_table: {' '.join(args)}: exit {run.returncode}\n{run.stdout}{run.stderr}")
            out = run.stdout
            v, s, o = row(out, "VGPRs"), row(out, "SGPRs"), row(out, "occupancy (waves per SIMD)")
            loads = row(out, "scalar loads (SMEM)")
            lines.append(f"| {case} | {family} | {wave} | {v[0]} / {v[1]} ({statistic(out, 'Pre-Sched VGPRs')}) "
                         f"| {s[0]} / {s[1]} ({statistic(out, 'Pre-Sched SGPRs')}) | {o[0]} / {o[1]} "
                         f"| {loads[0]} / {loads[1]} |")
    return "\n".join(lines) + "\n"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--wavelab", default=os.path.join(root, "build", "wavelab"))
    ap.add_argument("--check", action="store_true", help="compare with docs/hardware.md's table")
    a = ap.parse_args()
    text = table(a.wavelab, root)
    if not a.check:
        sys.stdout.write(text)
        return 0
    doc = open(os.path.join(root, "docs", "hardware.md")).read()
    if BEGIN not in doc or END not in doc:
        sys.exit("radv_table: docs/hardware.md has no radv_table markers")
    recorded = doc.split(BEGIN, 1)[1].split(END, 1)[0].strip() + "\n"
    if recorded != text:
        sys.stdout.write("docs/hardware.md's table differs from this RADV's:\n" + text)
        return 1
    print("radv_table: docs/hardware.md agrees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
