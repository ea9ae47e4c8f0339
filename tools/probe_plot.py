#!/usr/bin/env python3
"""tools/probe_plot.py — SVG plots of `wavelab probe`'s sweeps (docs/probe.md).

    python3 tools/probe_plot.py docs/probe                # every CSV in the folder -> NAME.svg beside it
    python3 tools/probe_plot.py --split-cuda OUT/cuda_sweeps.csv --prefix h100_cuda_ docs/probe
        # first splits the CUDA twins' one-file CSV (sweep,x,cycles_per_load,ns_at_max_clock) into
        # PREFIX<sweep>.csv files in the probe's format (x, y, min, max; y in SM cycles), then plots all

A sweep CSV: an optional '# ...' line (what and where), a header "X_NAME,Y_NAME,min,max", rows.  The plot:
median as a line with points, the repetitions' min..max as a whisker, x on a log2 axis when it spans more
than 16x (l2_rate.csv's x is a mode, its ticks named), y on a log10 axis when the medians span more than 20x.  Plain SVG written here (no plotting library), so the files are the same for the same data.
"""
import argparse
import csv
import math
import os
import sys

W, H = 640, 400
ML, MR, MT, MB = 70, 20, 40, 50


def read_sweep(path):
    title, header, rows = "", None, []
    with open(path, newline="") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                # the first comment says what and where; a later "# measured DATE" adds the day
                title = line[1:].strip() if not title else "%s, %s" % (title, line[1:].strip())
                continue
            cells = line.split(",")
            if header is None:
                header = cells
                continue
            try:
                rows.append([float(c) for c in cells[:4]])
            except ValueError:
                continue
    return title, header, rows


def nice_ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1
    span = hi - lo
    step = 10 ** math.floor(math.log10(span / n))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= n:
            step *= m
            break
    t = math.floor(lo / step) * step
    out = []
    while t <= hi + 1e-9:
        if t >= lo - 1e-9:
            out.append(t)
        t += step
    return out


def fmt(v):
    if v >= 1 << 20 and v % (1 << 20) == 0:
        return "%dM" % (v // (1 << 20))
    if v >= 1 << 10 and v % (1 << 10) == 0:
        return "%dK" % (v // (1 << 10))
    if v == int(v):
        return "%d" % v
    return "%.3g" % v


# x columns whose values name cases rather than measure something: value -> tick label
X_NAMES = {"mode": {0: "0 scattered sectors", 1: "1 whole lines", 2: "2 adjacent sectors"}}


def plot(path, out):
    title, header, rows = read_sweep(path)
    if not header or not rows:
        return False
    xs = [r[0] for r in rows]
    ys = [r[1] for r in rows]
    lo = [r[2] if len(r) > 2 else r[1] for r in rows]
    hi = [r[3] if len(r) > 3 else r[1] for r in rows]
    logx = min(xs) > 0 and max(xs) / min(xs) > 16
    fx = (lambda v: math.log2(v)) if logx else (lambda v: v)
    x0, x1 = fx(min(xs)), fx(max(xs))
    if x1 == x0:
        x1 = x0 + 1
    y1 = max(max(hi), max(ys)) * 1.05
    y0 = 0.0
    # a whisker far above the medians (one noisy repetition) should not flatten the plot
    top = sorted(ys)[-1] * 3
    if y1 > top:
        y1 = top
    # latencies spanning cache levels and DRAM: a log10 axis, so every plateau shows
    logy = min(ys) > 0 and max(ys) / min(ys) > 20
    if logy:
        y0 = 10 ** math.floor(math.log10(min(min(ys), min(v for v in lo if v > 0) if any(v > 0 for v in lo) else min(ys))))
        y1 = 10 ** math.ceil(math.log10(y1))
    gy = (lambda v: math.log10(max(v, y0))) if logy else (lambda v: v)

    def px(v):
        return ML + (fx(v) - x0) / (x1 - x0) * (W - ML - MR)

    def py(v):
        v = min(v, y1)
        return H - MB - (gy(v) - gy(y0)) / (gy(y1) - gy(y0)) * (H - MT - MB)

    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
         'font-size="11">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="18" font-size="13">%s</text>' % (ML, os.path.basename(path)),
         '<text x="%d" y="32" fill="#555">%s</text>' % (ML, title.replace("&", "&amp;").replace("<", "&lt;"))]
    # axes and ticks
    s.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (ML, H - MB, W - MR, H - MB))
    s.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (ML, MT, ML, H - MB))
    # a sweep over named cases (l2_rate.csv's modes): one tick per case, named
    names = X_NAMES.get(header[0], {})
    if names:
        ticks = xs
    elif logx:
        e0, e1 = math.floor(x0), math.ceil(x1)
        step = max(1, (e1 - e0) // 10)
        ticks = [2 ** e for e in range(e0, e1 + 1, step) if x0 - 1e-9 <= e <= x1 + 1e-9]
    else:
        ticks = nice_ticks(min(xs), max(xs), 8)
    for t in ticks:
        x = px(t)
        s.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, MT, x, H - MB))
        s.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (x, H - MB + 14, names.get(t, fmt(t))))
    yt = [m * 10 ** e for e in range(int(math.log10(y0)), int(math.log10(y1)) + 1) for m in (1, 2, 5)
          if y0 <= m * 10 ** e <= y1] if logy else nice_ticks(y0, y1, 6)
    for t in yt:
        y = py(t)
        s.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (ML, y, W - MR, y))
        s.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (ML - 4, y + 4, fmt(t)))
    s.append('<text x="%d" y="%d" text-anchor="middle">%s%s</text>' %
             ((ML + W - MR) // 2, H - 12, header[0], " (log2 axis)" if logx else ""))
    s.append('<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">%s (median; bar: min..max)'
             '%s</text>' % ((MT + H - MB) // 2, (MT + H - MB) // 2, header[1] if len(header) > 1 else "y",
                             ", log10 axis" if logy else ""))
    # whiskers, line, points
    for x, a, b in zip(xs, lo, hi):
        s.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#9bb"/>' % (px(x), py(a), px(x), py(b)))
    s.append('<polyline fill="none" stroke="#1f5fa8" stroke-width="1.5" points="%s"/>' %
             " ".join("%.1f,%.1f" % (px(x), py(y)) for x, y in zip(xs, ys)))
    for x, y in zip(xs, ys):
        s.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="#1f5fa8"><title>%s: %s</title></circle>' %
                 (px(x), py(y), fmt(x), "%.4g" % y))
    s.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(s) + "\n")
    return True


def split_cuda(path, folder, prefix):
    groups = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            groups.setdefault(row["sweep"], []).append(row)
    for name, rows in groups.items():
        ycol = "ns_at_max_clock" if name == "copy" else "cycles_per_load"
        yname = "gb_per_s" if name == "copy" else "cycles_per_load"
        with open(os.path.join(folder, prefix + name + ".csv"), "w") as f:
            f.write("# %s: CUDA twin (tools/cuda/probe_twins.cu) from %s\n" % (name, os.path.basename(path)))
            f.write("x,%s,min,max\n" % yname)
            for r in rows:
                y = float(r[ycol])
                f.write("%s,%.4f,%.4f,%.4f\n" % (r["x"], y, y, y))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--split-cuda", metavar="CSV")
    ap.add_argument("--prefix", default="h100_cuda_")
    a = ap.parse_args()
    if a.split_cuda:
        split_cuda(a.split_cuda, a.folder, a.prefix)
    n = 0
    for name in sorted(os.listdir(a.folder)):
        if name.endswith(".csv"):
            n += plot(os.path.join(a.folder, name), os.path.join(a.folder, name[:-4] + ".svg"))
    print("%d plots in %s" % (n, a.folder))
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
