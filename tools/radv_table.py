#!/usr/bin/env python3
"""tools/radv_table.py — wavelab's registers and occupancy beside ACO's for the
articles' kernels on RADV's null devices (`wavelab disasm CASE --against
radv:FAMILY`; no AMD GPU needed).  Prints the Markdown table of
docs/hardware.md ("AMD's compiler as the judge"); --check compares it with
the table there (exit 1 when they differ, 77 when RADV is absent); --update
rewrites it.
--all measures every kernels/ case with expectations (the model studies
excluded, as `wavelab test` excludes them) on the three generations at each
wave size they run (vega10 64; navi21 and gfx1100 32 and 64) and prints the
fidelity summary of docs/hardware.md ("Every kernel against ACO"); with
--check it compares that instead (about 10 minutes on two cores).

    python3 tools/radv_table.py [--wavelab build/wavelab] [--all] [--check | --update]
"""
import argparse
import concurrent.futures
import json
import math
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
ALL_TARGETS = [("vega10", 64), ("navi21", 32), ("navi21", 64), ("gfx1100", 32), ("gfx1100", 64)]
ALL_BEGIN, ALL_END = "<!-- radv_summary begin -->", "<!-- radv_summary end -->"


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
             "| waves per SIMD: wavelab's rule; in ACO's units wavelab / ACO | SMEM loads wavelab / ACO |",
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
            v, s, o = row(out, "VGPRs"), row(out, "SGPRs"), row(out, "occupancy in ACO's units")
            own = row(out, "occupancy (waves per SIMD)")[0]
            loads = row(out, "scalar loads (SMEM)")
            lines.append(f"| {case} | {family} | {wave} | {v[0]} / {v[1]} ({statistic(out, 'Pre-Sched VGPRs')}) "
                         f"| {s[0]} / {s[1]} ({statistic(out, 'Pre-Sched SGPRs')}) | {own}; {o[0]} / {o[1]} "
                         f"| {loads[0]} / {loads[1]} |")
    return "\n".join(lines) + "\n"


def study(path):
    """A case without "expect" is a model study at its real size (run/run.c, run_case_file_has_expect)."""
    try:
        return "expect" not in json.load(open(path))
    except (OSError, ValueError):
        return False


def measure(wavelab, root, case, family, wave):
    """One comparison: (case, family, wave, numbers or None, why not)."""
    args = [wavelab, "disasm", os.path.join(root, "kernels", case), "--against", f"radv:{family}", "--wave", str(wave)]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        why = (run.stdout + run.stderr).strip().splitlines()
        return case, family, wave, None, f"exit {run.returncode}: {why[-1] if why else ''}"
    out = run.stdout
    num = lambda x: None if x == "-" else int(x)
    v, s_, o = row(out, "VGPRs"), row(out, "SGPRs"), row(out, "occupancy in ACO's units")
    unpacked = re.search(r"\((\d+) with 16-bit values unpacked\)", out)
    d = {"vgprs": num(v[0]), "aco_vgprs": num(v[1]), "unpacked": int(unpacked.group(1)) if unpacked else num(v[0]), "aco_vgpr_demand": num(statistic(out, "Pre-Sched VGPRs")),
         "sgprs": num(s_[0]), "aco_sgpr_demand": num(statistic(out, "Pre-Sched SGPRs")),
         "abi_sgprs": num(row(out, "SGPRs with the ABI (demand)")[0]),
         "occupancy": num(o[0]), "aco_occupancy": num(o[1]), "lds": row(out, "LDS bytes")}
    return case, family, wave, d, ""


def correlation(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else float("nan")


def summary(wavelab, root):
    cases = []
    for d, _, files in os.walk(os.path.join(root, "kernels")):
        for f in files:
            path = os.path.join(d, f)
            if f.endswith(".json") and not study(path):
                cases.append(os.path.relpath(path, os.path.join(root, "kernels")))
    cases.sort()
    jobs = [(c, fam, w) for c in cases for fam, w in ALL_TARGETS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(lambda j: measure(wavelab, root, *j), jobs))
    if all(r[3] is None and "RADV knows no" in r[4] for r in results):
        sys.stderr.write("radv_table: RADV's null devices are absent\n")
        sys.exit(77)
    lines = ["| GPU | wave | modules | VGPRs: correlation, mean abs. error (wavelab - ACO's demand); 16-bit values "
             "unpacked | SGPRs: correlation with ACO's demand, wavelab's values; with the ABI (mean abs. error) | waves per SIMD in ACO's units equal to ACO's |",
             "| --- | --- | ---: | --- | --- | --- |"]
    refused, unequal = {}, {}
    for fam, w in ALL_TARGETS:
        rows = [r[3] for r in results if r[1] == fam and r[2] == w and r[3] is not None]
        cases_of = [r[0] for r in results if r[1] == fam and r[2] == w and r[3] is not None]
        for r in results:
            if r[1] == fam and r[2] == w and r[3] is None:
                refused.setdefault(r[4], []).append(f"{r[0]} ({fam}, {w})")
        vx = [r["vgprs"] for r in rows if r["aco_vgpr_demand"] is not None]
        vy = [r["aco_vgpr_demand"] for r in rows if r["aco_vgpr_demand"] is not None]
        ux = [r["unpacked"] for r in rows if r["aco_vgpr_demand"] is not None]
        sx = [r["sgprs"] for r in rows if r["aco_sgpr_demand"] is not None]
        sy = [r["aco_sgpr_demand"] for r in rows if r["aco_sgpr_demand"] is not None]
        ax = [r["abi_sgprs"] for r in rows if r["aco_sgpr_demand"] is not None]
        occ = [r for r in rows if r["occupancy"] is not None and r["aco_occupancy"] is not None]
        eq = sum(1 for r in occ if r["occupancy"] == r["aco_occupancy"])
        for r, c in ((r, c) for r, c in zip(rows, cases_of) if r in occ and r["occupancy"] != r["aco_occupancy"]):
            cause = ("wavelab's VGPRs above ACO's allocation" if r["vgprs"] > r["aco_vgprs"] else
                     "wavelab's VGPRs below ACO's allocation, by a granule or more" if r["occupancy"] > r["aco_occupancy"]
                     else "LDS bytes differ" if r["lds"][0] != r["lds"][1] else "not the VGPRs or LDS")
            unequal.setdefault(cause, []).append(f"{c} ({fam}, {w}): {r['occupancy']} / {r['aco_occupancy']}")
        mae = sum(abs(x - y) for x, y in zip(vx, vy)) / len(vx) if vx else float("nan")
        umae = sum(abs(x - y) for x, y in zip(ux, vy)) / len(ux) if ux else float("nan")
        amae = sum(abs(x - y) for x, y in zip(ax, sy)) / len(ax) if ax else float("nan")
        lines.append(f"| {fam} | {w} | {len(rows)} | {correlation(vx, vy):.2f}, {mae:.1f}; "
                     f"{correlation(ux, vy):.2f}, {umae:.1f} "
                     f"| {correlation(sx, sy):.2f}; {correlation(ax, sy):.2f} ({amae:.1f}) | {eq} of {len(occ)} |")
    text = "\n".join(lines) + "\n"
    if unequal:
        text += "\nOccupancy in ACO's units unequal to ACO's (wavelab / ACO), by cause:\n\n"
        for why, what in sorted(unequal.items()):
            text += f"* {why}: {len(what)}: " + "; ".join(what) + "\n"
    if refused:
        text += "\nNot compared (the device or wavelab refused the module):\n\n"
        for why, what in sorted(refused.items()):
            text += f"* {len(what)}: {why}\n"
    return text


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--wavelab", default=os.path.join(root, "build", "wavelab"))
    ap.add_argument("--check", action="store_true", help="compare with docs/hardware.md's table")
    ap.add_argument("--update", action="store_true", help="rewrite docs/hardware.md's table with this RADV's")
    ap.add_argument("--all", action="store_true", help="every kernels/ case: the fidelity summary")
    a = ap.parse_args()
    text = summary(a.wavelab, root) if a.all else table(a.wavelab, root)
    begin, end = (ALL_BEGIN, ALL_END) if a.all else (BEGIN, END)
    if not a.check and not a.update:
        sys.stdout.write(text)
        return 0
    page = os.path.join(root, "docs", "hardware.md")
    doc = open(page).read()
    if begin not in doc or end not in doc:
        sys.exit("radv_table: docs/hardware.md has no %s markers" % begin)
    if a.update:
        head, rest = doc.split(begin, 1)
        open(page, "w").write(head + begin + "\n" + text + end + rest.split(end, 1)[1])
        print("radv_table: docs/hardware.md rewritten")
        return 0
    recorded = doc.split(begin, 1)[1].split(end, 1)[0].strip() + "\n"
    if recorded != text:
        sys.stdout.write("docs/hardware.md's table differs from this RADV's:\n" + text)
        return 1
    print("radv_table: docs/hardware.md agrees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
