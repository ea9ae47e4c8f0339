#!/usr/bin/env python3
"""tools/lean_registers.py — registers and program size of every case in kernels/,
with and without the lean pass (isa/lean.c; `--no-lean`), beside the NVIDIA
register counts recorded in docs/hardware.md.  Prints a Markdown table
(docs/registers.md, "Lean wave programs").

    python3 tools/lean_registers.py [--wavelab build/wavelab]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

HEADER = re.compile(r"; entry \S+, workgroup \S+, (\d+) instructions")
REGS = re.compile(r"; registers: peak (\d+) VGPRs .*?, (\d+) SGPRs")


def counts(wavelab, case, lean):
    args = [wavelab, "disasm", case] + ([] if lean else ["--no-lean"])
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    insts = int(HEADER.search(out).group(1))
    v, s = REGS.search(out).groups()
    return insts, int(v), int(s)


def nvidia_counts(root):
    """case path (relative to kernels/) -> NVIDIA registers, from docs/hardware.md's table."""
    table = {}
    with open(os.path.join(root, "docs", "hardware.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 8 and cells[0].endswith(".json") and cells[6].isdigit():
                table[cells[0]] = int(cells[6])
    return table


def table_lines(wavelab, root):
    """The table's lines (tools/doccheck.py keeps docs/registers.md's copy current through this)."""
    nv = nvidia_counts(root)
    lines = ["| case | instructions as lowered → lean | VGPRs+SGPRs as lowered | lean | NVIDIA registers |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for case in sorted(glob.glob(os.path.join(root, "kernels", "**", "*.json"), recursive=True)):
        rel = os.path.relpath(case, os.path.join(root, "kernels"))
        try:
            i0, v0, s0 = counts(wavelab, case, False)
            i1, v1, s1 = counts(wavelab, case, True)
        except (subprocess.CalledProcessError, AttributeError):
            continue  # a case whose kernel does not lower (an error case)
        lines.append(f"| {rel} | {i0} → {i1} | {v0}+{s0} | {v1}+{s1} | {nv.get(rel, '-')} |")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wavelab", default="build/wavelab")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print("\n".join(table_lines(a.wavelab, root)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
