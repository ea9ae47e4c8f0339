#!/usr/bin/env python3
"""Writes the case files under kernels/ with expectations computed here,
independently of wavelab.

Python 3 standard library only.  Every expectation is a direct model of what
the kernel means (HLSL semantics for HLSL kernels: WavePrefixSum is exclusive,
`c ? WaveOp(x) : y` short-circuits), evaluated without any wave machine:
integer results are computed exactly; float results are rounded to the
kernel's type (binary32 or binary16) after every operation, in the order the
kernel's source performs them, so that an IEEE implementation which keeps the
source order gives the same bits.

The random fill reproduces the case format's documented generator
(case/case.h, docs/case-format.md): splitmix64 from `seed`, element i takes
the i-th output; integers min + x % (max-min+1); floats
min + (max-min) * ((x >> 11) * 2^-53) in double, rounded to the element type.

Usage:  python3 tools/gen_kernel_cases.py [--check]
        (--check: write nothing, exit 1 if a committed case file differs)
"""

import json
import math
import os
import struct
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
KDIR = os.path.join(ROOT, "kernels")
MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1

# --------------------------------------------------------------------------
# numbers


def f32(x):
    """Round a Python float (binary64) to binary32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f16(x):
    """Round a Python float (binary64) to binary16 (round to nearest even)."""
    return struct.unpack("<e", struct.pack("<e", x))[0]


# Sums, products and quotients of two binary32 (binary16) numbers computed in
# binary64 and then rounded are correctly rounded (53 >= 2*24+2), so these are
# exactly IEEE single (half) precision operations.
def add32(a, b):
    return f32(a + b)


def mul32(a, b):
    return f32(a * b)


def div32(a, b):
    return f32(a / b)


def add16(a, b):
    return f16(a + b)


def mul16(a, b):
    return f16(a * b)


def div16(a, b):
    return f16(a / b)


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def f16_from_bits(h):
    return struct.unpack("<e", struct.pack("<H", h))[0]


def f16_ulp_distance(a, b):
    """Distance in binary16 units in the last place (both finite, same sign)."""
    def key(x):
        h = f16_bits(x)
        return -(h & 0x7FFF) if h & 0x8000 else h
    return abs(key(a) - key(b))


def splitmix64_stream(seed):
    state = seed & MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def random_fill(type_, count, seed, lo, hi):
    """The case format's {"random": {"seed", "min", "max"}} fill."""
    g = splitmix64_stream(seed)
    out = []
    for _ in range(count):
        x = next(g)
        if type_ in ("f32", "f16", "f64"):
            v = lo + (hi - lo) * ((x >> 11) * 2.0 ** -53)
            out.append(f32(v) if type_ == "f32" else f16(v) if type_ == "f16" else v)
        else:
            out.append(int(lo) + x % (int(hi) - int(lo) + 1))
    return out


# --------------------------------------------------------------------------
# case files

WRITTEN = []
CHECK = "--check" in sys.argv


def fmt_num(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if math.isnan(v):
        return '"nan"'
    if math.isinf(v):
        return '"inf"' if v > 0 else '"-inf"'
    r = repr(float(v))
    return r


def dump(obj, indent=0):
    """JSON with one field per line and number lists on one line."""
    pad = "  " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = []
        for k, v in obj.items():
            items.append(pad + "  " + json.dumps(k) + ": " + dump(v, indent + 1))
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(isinstance(x, (int, float)) for x in obj):
            return "[" + ", ".join(fmt_num(x) for x in obj) + "]"
        if all(isinstance(x, str) for x in obj):
            return json.dumps(obj)
        return "[\n" + ",\n".join(pad + "  " + dump(x, indent + 1) for x in obj) + "\n" + pad + "]"
    if isinstance(obj, float):
        return fmt_num(obj)
    return json.dumps(obj)


def write_case(relpath, case):
    path = os.path.join(KDIR, relpath)
    text = dump(case) + "\n"
    WRITTEN.append(relpath)
    if CHECK:
        try:
            with open(path) as f:
                old = f.read()
        except OSError:
            old = None
        if old != text:
            print("differs: kernels/" + relpath)
            global CHECK_FAILED
            CHECK_FAILED = True
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


CHECK_FAILED = False


def binding(b, type_, data=None, count=None, fill=None, kind=None, fmt=None):
    d = {"set": 0, "binding": b}
    if kind:
        d["kind"] = kind
    if fmt:
        d["format"] = fmt
    d["type"] = type_
    if data is not None:
        d["data"] = list(data)
    else:
        d["count"] = count
        d["fill"] = fill
    return d


def expect(b, data, compare="exact"):
    return {"set": 0, "binding": b, "data": list(data), "compare": compare}


# --------------------------------------------------------------------------
# article 000: uniform load

def gen_000():
    groups_x, groups_y = 4, 2
    n_lights = 256
    light_seed = 1000
    lights = random_fill("f32", 4 * n_lights, light_seed, -1.0, 1.0)
    # (start, count) per tile: empty list, fewer lights than the smallest wave,
    # exactly 32 and 64, one past 64, and lists longer than two waves of 64.
    tiles = [(7, 0), (255, 1), (10, 3), (40, 32), (100, 64), (3, 65), (150, 100), (120, 130)]
    assert len(tiles) == groups_x * groups_y
    assert all(s + c <= n_lights for s, c in tiles)
    width, height = 8 * groups_x, 8 * groups_y
    out = [0.0] * (4 * width * height)
    for y in range(height):
        for x in range(width):
            start, count = tiles[(y // 8) * groups_x + (x // 8)]
            acc = [0.0, 0.0, 0.0, 0.0]
            for i in range(count):  # lights added in list order, component-wise
                for c in range(4):
                    acc[c] = add32(acc[c], lights[4 * (start + i) + c])
            out[4 * (y * width + x): 4 * (y * width + x) + 4] = acc
    start_counts = [v for t in tiles for v in t]

    for lang, naive_k, wave_k in (("glsl", "uniform_load_naive.comp", "uniform_load_wave.comp"),
                                  ("hlsl", "uniform_load.hlsl", "uniform_load.hlsl")):
        for variant in ("naive", "wave"):
            for lights_kind in ("texel", "ssbo"):
                case = {"kernel": naive_k if variant == "naive" else wave_k}
                if lang == "hlsl":
                    case["entry"] = "CSMain" if variant == "naive" else "CSMainWave"
                defines = {"GROUPS_X": str(groups_x)}
                if lights_kind == "ssbo":
                    defines["LIGHTS_STRUCTURED"] = "1"
                case["defines"] = defines
                case["groups"] = [groups_x, groups_y, 1]
                fill = {"random": {"seed": light_seed, "min": -1, "max": 1}}
                if lights_kind == "texel":
                    lb = binding(0, "f32", count=4 * n_lights, fill=fill,
                                 kind="uniform_texel_buffer", fmt="rgba32f")
                else:
                    lb = binding(0, "f32", count=4 * n_lights, fill=fill)
                case["bindings"] = [
                    lb,
                    binding(1, "u32", data=start_counts),
                    binding(2, "f32", count=4 * width * height, fill={"value": 0}),
                ]
                case["expect"] = [expect(2, out)]
                name = "uniform_load_%s%s%s.json" % (
                    "hlsl_" if lang == "hlsl" else "", variant,
                    "_ssbo" if lights_kind == "ssbo" else "")
                write_case("000_uniform_load/" + name, case)


# --------------------------------------------------------------------------

def main():
    gen_000()
    for name in sorted(n for n in dir(sys.modules[__name__]) if n.startswith("gen_") and n != "gen_000"):
        getattr(sys.modules[__name__], name)()
    if CHECK:
        print("%d case files checked" % len(WRITTEN))
        sys.exit(1 if CHECK_FAILED else 0)
    print("%d case files written" % len(WRITTEN))


if __name__ == "__main__":
    main()
