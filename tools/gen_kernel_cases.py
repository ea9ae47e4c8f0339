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

# (start, count) per tile: empty list, fewer lights than the smallest wave,
# exactly 32 and 64, one past 64, and lists longer than two waves of 64.
TILES_000 = [(7, 0), (255, 1), (10, 3), (40, 32), (100, 64), (3, 65), (150, 100), (120, 130)]


def gen_000():
    gen_000_lights(256, TILES_000, "", ("glsl", "hlsl"))
    # long light lists (1024 per tile, a multiple of every wave size): the
    # article's claim, one vector load per wave-size lights, shows exactly
    gen_000_lights(1024, [(0, 1024)] * 8, "_many", ("glsl",))


def lights_reference(n_lights, tiles, light_seed, groups_x, groups_y):
    """Article 000's output, one float4 per pixel (row-major): the tile's lights added in list order."""
    lights = random_fill("f32", 4 * n_lights, light_seed, -1.0, 1.0)
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
    return out


def gen_000_lights(n_lights, tiles, suffix, langs):
    groups_x, groups_y = 4, 2
    light_seed = 1000
    width, height = 8 * groups_x, 8 * groups_y
    out = lights_reference(n_lights, tiles, light_seed, groups_x, groups_y)
    start_counts = [v for t in tiles for v in t]

    for lang, naive_k, wave_k in (("glsl", "uniform_load_naive.comp", "uniform_load_wave.comp"),
                                  ("hlsl", "uniform_load.hlsl", "uniform_load.hlsl")):
        if lang not in langs:
            continue
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
                if variant == "wave":
                    # one load per lane of a full wave: an 8x8 group has no lanes 64..127 at wave 128
                    case["max_subgroup_size"] = 64
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
                name = "uniform_load_%s%s%s%s.json" % (
                    "hlsl_" if lang == "hlsl" else "", variant, suffix,
                    "_ssbo" if lights_kind == "ssbo" else "")
                write_case("000_uniform_load/" + name, case)


# --------------------------------------------------------------------------
# article 003: wave intrinsics tricks

class Rng:
    """A splitmix64 stream for data that is written out explicitly."""

    def __init__(self, seed):
        self.g = splitmix64_stream(seed)

    def int(self, lo, hi):
        return lo + next(self.g) % (hi - lo + 1)


def with_full_waves(case, max_wave=64):
    """The case's expectations assume full waves of its workgroup: `max_subgroup_size`
    (right after "groups") makes `wavelab test --waves` skip bigger wave sizes."""
    out = {}
    for k, v in case.items():
        out[k] = v
        if k == "groups":
            out["max_subgroup_size"] = max_wave
    return out


def pair_cases(folder, stem, hlsl_file, variants, make, full_wave_variants=()):
    """One case per (language, variant): GLSL files stem_<variant>.comp,
    HLSL entry points from `variants` [(variant, entry)]; the variants in
    `full_wave_variants` assume full 64-lane waves (with_full_waves)."""
    for variant, entry in variants:
        for lang in ("glsl", "hlsl"):
            case = {}
            if lang == "glsl":
                case["kernel"] = "%s_%s.comp" % (stem, variant)
            else:
                case["kernel"] = hlsl_file
                case["entry"] = entry
            case.update(make())
            if variant in full_wave_variants:
                case = with_full_waves(case)
            write_case("%s/%s_%s%s.json" % (folder, stem, "hlsl_" if lang == "hlsl" else "", variant), case)


def gen_003():
    folder = "003_wave_tricks"

    # (1) WaveActiveAllTrue branch: f(x) = (x mod 1024)^2 on both paths.
    r = Rng(3001)
    data = []
    for i in range(1024):
        block = i // 256
        if block == 0:
            x = r.int(0, 1023)                       # every wave fast
        elif block == 1:
            x = r.int(1024, 5000) if i % 16 == 5 else r.int(0, 1023)   # fast only at wave 4
        elif block == 2:
            x = r.int(0, 5000) if r.int(0, 1) else r.int(0, 1023)    # mixed
        else:
            x = r.int(1024, 5000)                    # every wave slow
        data.append(x)
    out = [((x & 1023) ** 2) & MASK32 for x in data]

    def make1():
        return {"groups": [len(data) // 64, 1, 1],
                "bindings": [binding(0, "u32", data=data),
                             binding(1, "u32", count=len(data), fill={"value": 0})],
                "expect": [expect(1, out)]}
    pair_cases(folder, "all_true_branch", "all_true_branch.hlsl",
               [("naive", "CSNaive"), ("wave", "CSWave")], make1)

    # (2)+(3, one item per lane) one-lane atomic with a prefix count.
    n = 512
    values = random_fill("u32", n, 3002, 0, 99)
    adders = [i for i in range(n) if values[i] % 3 == 0]

    def make2():
        return {"groups": [n // 64, 1, 1],
                "bindings": [binding(0, "u32", count=n, fill={"random": {"seed": 3002, "min": 0, "max": 99}}),
                             binding(1, "u32", data=[0]),
                             binding(2, "u32", count=len(adders), fill={"value": 0})],
                "expect": [expect(1, [len(adders)]), expect(2, adders, "sorted")]}
    pair_cases(folder, "one_lane_atomic", "one_lane_atomic.hlsl",
               [("naive", "CSNaive"), ("wave", "CSWave")], make2)

    # (3) several items per lane: exclusive prefix sum, one atomic per wave.
    counts = random_fill("u32", n, 3003, 0, 5)
    items = [(t << 4) | k for t in range(n) for k in range(counts[t])]

    def make3():
        return {"groups": [n // 64, 1, 1],
                "bindings": [binding(0, "u32", count=n, fill={"random": {"seed": 3003, "min": 0, "max": 5}}),
                             binding(1, "u32", data=[0]),
                             binding(2, "u32", count=len(items), fill={"value": 0})],
                "expect": [expect(1, [len(items)]), expect(2, items, "sorted")]}
    # the wave variant reads lane gl_SubgroupSize - 1: a 64-invocation group has no lane 127 at wave 128
    pair_cases(folder, "prefix_sum_writes", "prefix_sum_writes.hlsl",
               [("naive", "CSNaive"), ("wave", "CSWave")], make3, full_wave_variants=("wave",))

    # (4) scalarization over light types.
    r = Rng(3004)
    lights = []
    for i in range(n):
        g = i // 64
        if g == 0:
            t = 2                                    # one type in the whole group
        elif g == 1:
            t = (i // 4) % 4                         # uniform in each 4 lanes
        elif g == 2:
            t = (i // 16 * 3) % 4                    # uniform in each 16 lanes
        elif g == 3:
            t = 3 if i % 32 == 31 else 1             # one odd lane per 32
        else:
            t = r.int(0, 3)
        lights.append((t, r.int(0, MASK32)))

    def calc(t, p):
        if t == 0:
            return (p * 3 + 1) & MASK32
        if t == 1:
            return p ^ 0x5A5A5A5A
        if t == 2:
            return ((p >> 3) + p * 7) & MASK32
        return (p * p + 11) & MASK32
    out4 = [calc(t, p) for t, p in lights]

    def make4():
        return {"groups": [n // 64, 1, 1],
                "bindings": [binding(0, "u32", data=[v for l in lights for v in l]),
                             binding(1, "u32", count=n, fill={"value": 0})],
                "expect": [expect(1, out4)]}
    pair_cases(folder, "scalarization", "scalarization.hlsl",
               [("naive", "CSNaive"), ("scalarized", "CSScalarized"),
                ("scalarized_fast", "CSScalarizedFast")], make4)

    # (6) several waves per group, groupshared cache, one atomic per wave.
    num_groups, num_inputs = 2, 20
    src = random_fill("u32", 128, 3006, 0, 1000)
    cache = [(v * 3 + 1) & MASK32 for v in src]
    r = Rng(3016)
    item_counts = [0, 1, 3, 4, 5, 31, 32, 33, 64, 65, 127, 128, 129, 200, 255, 7, 63, 16, 2, 100]
    assert len(item_counts) == num_inputs
    inputs = [(r.int(0, 127), c, r.int(1, 9), 0) for c in item_counts]
    per_input = []
    for start, count, scale, _ in inputs:
        acc = 0
        for j in range(count):
            acc = (acc + cache[(start + j) % 128] * scale) & MASK32
        per_input.append(acc)
    total = sum(per_input) & MASK32

    def make6():
        return {"defines": {"NUM_GROUPS": str(num_groups), "NUM_INPUTS": str(num_inputs)},
                "groups": [num_groups, 1, 1],
                "bindings": [binding(0, "u32", count=128, fill={"random": {"seed": 3006, "min": 0, "max": 1000}}),
                             binding(1, "u32", data=[v for t in inputs for v in t]),
                             binding(2, "u32", data=[0]),
                             binding(3, "u32", count=num_inputs, fill={"value": 0})],
                "expect": [expect(2, [total]), expect(3, per_input)]}
    pair_cases(folder, "multi_wave_groups", "multi_wave_groups.hlsl",
               [("naive", "CSNaive"), ("wave", "CSWave")], make6)

    # (7) indirect dispatch arguments.
    n7 = 512
    items7 = random_fill("u32", n7, 3007, 1, 20)
    total7 = sum(items7)
    for lang in ("glsl", "hlsl"):
        case = {"kernel": "indirect_args.comp" if lang == "glsl" else "indirect_args.hlsl"}
        if lang == "hlsl":
            case["entry"] = "CSMain"
        case.update({"groups": [n7 // 128, 1, 1],
                     "bindings": [binding(0, "u32", count=n7, fill={"random": {"seed": 3007, "min": 1, "max": 20}}),
                                  binding(1, "u32", data=[0]),
                                  binding(2, "u32", data=[0, 0, 0])],
                     "expect": [expect(1, [total7]), expect(2, [1 + (total7 >> 8), 1, 1])]})
        write_case("%s/indirect_args%s.json" % (folder, "_hlsl" if lang == "hlsl" else ""), case)


# --------------------------------------------------------------------------
# article 001: stream compaction

def gen_001():
    folder = "001_compaction"
    n, groups, threshold = 600, 5, 400     # 5 groups of 128: the last one is partly past the end
    r = Rng(1001)
    values = []
    for i in range(n):
        g = i // 128
        if g == 0:
            v = r.int(0, threshold - 1)                  # all visible
        elif g == 1:
            v = r.int(threshold, 999)                    # none visible: waves with no survivor
        elif g == 3:
            v = r.int(0, threshold - 1) if i % 8 == 3 else r.int(threshold, 999)   # 1 in 8
        else:
            v = r.int(0, 999)                            # about 40 %
        values.append(v)
    visible = [i for i in range(n) if values[i] < threshold]
    group_counts = [sum(1 for i in visible if i // 128 == g) for g in range(groups)]
    variants = [("naive", "CSNaive"), ("lds", "CSLds"), ("wave", "CSWave"), ("wave_global", "CSWaveGlobal")]
    for variant, entry in variants:
        for lang in ("glsl", "hlsl"):
            case = {}
            if lang == "glsl":
                case["kernel"] = "compaction_%s.comp" % variant
            else:
                case["kernel"] = "compaction.hlsl"
                case["entry"] = entry
            case["defines"] = {"NUM_ELEMENTS": str(n)}
            case["groups"] = [groups, 1, 1]
            b = [binding(0, "u32", data=values),
                 binding(1, "u32", data=[0]),
                 binding(2, "u32", count=len(visible), fill={"value": 0})]
            e = [expect(1, [len(visible)]), expect(2, visible, "sorted")]
            if variant in ("lds", "wave"):
                b.append(binding(3, "u32", count=groups, fill={"value": 0}))
                e.append(expect(3, group_counts))
            case["bindings"] = b
            case["expect"] = e
            write_case("%s/compaction_%s%s.json" % (folder, "hlsl_" if lang == "hlsl" else "", variant), case)


def gen_001_pipeline():
    """Article 001's three passes as one multi-dispatch case (docs/case-format.md, "Several dispatches"):
    cull writes flags, compact lists the flagged ids, consume reads the list.  Expected contents from the
    same values as gen_001, computed here from the kernels' definitions."""
    folder = "001_compaction"
    n, threshold, scale = 600, 400, 3
    r = Rng(1002)
    values = [r.int(0, 999) for _ in range(n)]
    flags = [1 if v < threshold else 0 for v in values]
    visible = [i for i in range(n) if flags[i]]
    consumed = sorted(values[i] * scale + 1 for i in visible)
    defines = {"NUM_ELEMENTS": str(n)}
    case = {
        "description": "article 001's pipeline: cull -> compact -> consume on shared bindings",
        "dispatches": [
            {"name": "cull", "kernel": "pass_cull.comp", "defines": defines, "groups": [(n + 127) // 128, 1, 1]},
            {"name": "compact", "kernel": "pass_compact.comp", "defines": defines,
             "groups": [(n + 127) // 128, 1, 1]},
            {"name": "consume", "kernel": "pass_consume.comp", "defines": defines, "groups": [(n + 63) // 64, 1, 1],
             "push_constants": {"type": "u32", "data": [scale]}},
        ],
        "bindings": [binding(0, "u32", data=values),
                     binding(1, "u32", data=[0]),
                     binding(2, "u32", count=n, fill={"value": 0}),
                     binding(3, "u32", count=n, fill={"value": 0}),
                     binding(4, "u32", count=n, fill={"value": 0}),
                     binding(5, "u32", data=[0])],
        # compacted ids and consumed values come in the schedule's order: compared as multisets, padded with the
        # untouched zeros past `count`
        "expect": [expect(1, [len(visible)]),
                   expect(2, visible + [0] * (n - len(visible)), "sorted"),
                   expect(3, flags),
                   expect(4, consumed + [0] * (n - len(visible)), "sorted"),
                   expect(5, [sum(values[i] for i in visible)])],
    }
    write_case("%s/pipeline.json" % folder, case)


# --------------------------------------------------------------------------
# article 002: 9x9 neighbourhood from a 16x16 LDS tile, fp32 and fp16

def neighborhood(radiance, width, height, rnd, mode):
    """Per pixel (mean.rgb, weight, variance.rgb, 0) as the kernel computes them.
    rnd: f32 or f16, the arithmetic's precision.
    mode "source":     every operation rounded, in source order (the expectation);
         "contracted": every a*b+c of the source fused (one rounding), as HLSL
                       compilers do (glslang's HLSL path emits Fma, DXC mad) and
                       as SPIR-V allows where NoContraction is absent."""
    weights = [1.0, 0.875, 0.625, 0.375, 0.125]

    def fma(a, b, c):        # a*b is exact in binary64 for binary32/16 inputs
        return rnd(a * b + c)

    out = []
    for y in range(height):
        for x in range(width):
            mean = [0.0] * 3
            var = [0.0] * 3
            accw = 0.0
            for j in range(-4, 5):
                for i in range(-4, 5):
                    sx = min(max(x + i, 0), width - 1)
                    sy = min(max(y + j, 0), height - 1)
                    r = radiance[sy * width + sx]
                    wi, wj = weights[abs(i)], weights[abs(j)]
                    weight = rnd(wi * wj)
                    if mode == "contracted":
                        accw = fma(wi, wj, accw)
                        for c in range(3):
                            mean[c] = fma(r[c], weight, mean[c])
                            var[c] = fma(rnd(r[c] * r[c]), weight, var[c])
                    else:
                        accw = rnd(accw + weight)
                        for c in range(3):
                            mean[c] = rnd(mean[c] + rnd(r[c] * weight))
                            var[c] = rnd(var[c] + rnd(rnd(r[c] * r[c]) * weight))
            for c in range(3):
                mean[c] = rnd(mean[c] / accw)
                var[c] = rnd(var[c] / accw)
                if mode == "contracted":
                    var[c] = abs(fma(-mean[c], mean[c], var[c]))
                else:
                    var[c] = abs(rnd(var[c] - rnd(mean[c] * mean[c])))
            out.append((mean + [accw], var + [0.0]))
    return out


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def ulp_distance(a, b, rnd):
    if rnd is f16:
        return f16_ulp_distance(a, b)
    def key(v):
        h = f32_bits(v)
        return -(h & 0x7FFFFFFF) if h & 0x80000000 else h
    return abs(key(a) - key(b))


NEIGHBORHOOD_TOLERANCE = {}


def gen_002():
    """Tolerance per output buffer: N = 2*d + 3 ulp, d = the largest distance (in
    ulp of the output type) between the source-order evaluation (the expectation)
    and the fully contracted one over this case's data; 2*d for other
    contraction choices, +3 for Vulkan's 2.5-ulp OpFDiv."""
    folder = "002_lds_fp16"
    width, height = 24, 16
    seed, lo, hi = 2002, 0.0625, 4.0
    texels = random_fill("f16", 4 * width * height, seed, lo, hi)
    assert all(v >= 2.0 ** -14 for v in texels)   # no binary16 subnormals
    radiance = [texels[4 * p: 4 * p + 3] for p in range(width * height)]
    for prec, rnd in (("fp32", f32), ("fp16", f16)):
        src = neighborhood(radiance, width, height, rnd, "source")
        alt = neighborhood(radiance, width, height, rnd, "contracted")
        outs = []
        for k in range(2):   # 0: moments (mean.rgb, weight), 1: variance (variance.rgb, 0)
            e = [v for px in src for v in px[k]]
            a = [v for px in alt for v in px[k]]
            d = max(ulp_distance(x, y, rnd) for x, y in zip(e, a))
            outs.append((e, 2 * d + 3))
            NEIGHBORHOOD_TOLERANCE[(prec, ("moments", "variance")[k])] = (d, 2 * d + 3)
        for lang in ("glsl", "hlsl"):
            for layout in ("split", "interleaved"):
                case = {}
                if lang == "glsl":
                    case["kernel"] = "neighborhood_%s.comp" % prec
                else:
                    case["kernel"] = "neighborhood.hlsl"
                    case["entry"] = "CSMain"
                defines = {"WIDTH": str(width), "HEIGHT": str(height)}
                if layout == "interleaved":
                    defines["INTERLEAVED"] = "1"
                if lang == "hlsl" and prec == "fp16":
                    defines["USE_FP16"] = "1"
                case["defines"] = defines
                case["groups"] = [width // 8, height // 8, 1]
                out_type = "f32" if prec == "fp32" else "f16"
                case["bindings"] = [
                    binding(0, "f16", count=4 * width * height,
                            fill={"random": {"seed": seed, "min": lo, "max": hi}}),
                    binding(1, out_type, count=4 * width * height, fill={"value": 0}),
                    binding(2, out_type, count=4 * width * height, fill={"value": 0}),
                ]
                case["expect"] = [expect(1, outs[0][0], {"ulp": outs[0][1]}),
                                  expect(2, outs[1][0], {"ulp": outs[1][1]})]
                write_case("%s/neighborhood_%s%s_%s.json" % (folder, "hlsl_" if lang == "hlsl" else "", prec, layout), case)
    if not CHECK:
        print("002 (d, ulp tolerance):", NEIGHBORHOOD_TOLERANCE)


# --------------------------------------------------------------------------
# article 004: thread-group ID swizzling

def tiled_group_order(grid_w, grid_h, n):
    """The launch order thread-group tiling along X simulates, from the
    article's description: the grid is cut into column tiles n groups wide (the
    last one narrower), each tile is walked row by row, tile after tile.
    Returns the group (x, y) that the i-th launched group processes."""
    order = []
    for tile_x0 in range(0, grid_w, n):
        width = min(n, grid_w - tile_x0)
        for y in range(grid_h):
            for x in range(tile_x0, tile_x0 + width):
                order.append((x, y))
    return order


def swizzle_gather(img, w, h, taps, spacing):
    """Article 004's gather: per pixel, TAPS x TAPS taps SPACING apart, clamped to the image, weighted 1 + i + TAPS*j,
    summed mod 2^32 (row-major output)."""
    out = []
    for y in range(h):
        for x in range(w):
            acc = 0
            for j in range(taps):
                for i in range(taps):
                    px = min(max(x + (i - taps // 2) * spacing, 0), w - 1)
                    py = min(max(y + (j - taps // 2) * spacing, 0), h - 1)
                    acc += img[py * w + px] * (1 + i + taps * j)
            out.append(acc & MASK32)
    return out


def gen_004():
    folder = "004_swizzle"
    taps, spacing, n = 5, 8, 16
    sizes = [(21, 3), (9, 5)]       # 168x24: one full tile + a 5-wide one; 72x40: narrower than N
    for gw, gh in sizes:
        order = tiled_group_order(gw, gh, n)
        assert sorted(order) == [(x, y) for x in range(gw) for y in range(gh)]   # a bijection
        w, h = 8 * gw, 8 * gh
        seed = 4000 + gw
        img = random_fill("u32", w * h, seed, 0, 65535)
        out = swizzle_gather(img, w, h, taps, spacing)
        for variant, entry in (("row_major", "CSRowMajor"), ("tiled", "CSTiled")):
            for lang in ("glsl", "hlsl"):
                case = {}
                if lang == "glsl":
                    case["kernel"] = "swizzle_%s.comp" % variant
                else:
                    case["kernel"] = "swizzle.hlsl"
                    case["entry"] = entry
                case["groups"] = [gw, gh, 1]
                case["push_constants"] = {"type": "u32", "data": [gw, gh, w, h]}
                case["bindings"] = [binding(0, "u32", count=w * h, fill={"random": {"seed": seed, "min": 0, "max": 65535}}),
                                    binding(1, "u32", count=w * h, fill={"value": 0})]
                case["expect"] = [expect(1, out)]
                write_case("%s/swizzle_%s%s_%dx%d.json" % (folder, "hlsl_" if lang == "hlsl" else "", variant, w, h), case)
    # 2560x1440 for the memory study: no expectation (the output is the same for
    # both; compare them with `wavelab run --dump`).
    gw, gh = 2560 // 8, 1440 // 8
    for variant in ("row_major", "tiled"):
        case = {"kernel": "swizzle_%s.comp" % variant,
                "groups": [gw, gh, 1],
                "push_constants": {"type": "u32", "data": [gw, gh, 2560, 1440]},
                "bindings": [binding(0, "u32", count=2560 * 1440, fill={"random": {"seed": 4440, "min": 0, "max": 65535}}),
                             binding(1, "u32", count=2560 * 1440, fill={"value": 0})]}
        write_case("%s/swizzle_%s_1440p.json" % (folder, variant), case)


# --------------------------------------------------------------------------
# Article 003: a wave operation in the break branch of the scalarization loop

def gen_003_served():
    n = 128
    # aligned runs of 4 equal keys, each run's key unique in the dispatch: every iteration serves exactly the
    # 4 lanes of one run, at any wave size >= 4
    keys = [((i // 4) * 7) % 37 for i in range(n)]
    assert len(set(keys)) == n // 4
    served = [sum(1 for k in keys if k == keys[i]) for i in range(n)]
    case = {"kernel": "scalarization_served.comp", "groups": [n // 64, 1, 1],
            "bindings": [binding(0, "u32", data=keys), binding(1, "u32", count=n, fill={"value": 0})],
            "expect": [expect(1, served)]}
    write_case("003_wave_tricks/scalarization_served.json", case)


# --------------------------------------------------------------------------
# Matrices in buffers: MatrixStride and RowMajor/ColMajor, both languages

def gen_matrix():
    f = [k * 0.5 + 1.0 for k in range(48)]        # In: cm (0..15), rm (16..31), rm34 (32..47)
    g = [1000.0 + k for k in range(16)]           # U: um, row-major, std140
    cols_cm = [f[i * 4 + r] for i in range(4) for r in range(4)]            # cm[i][r]: column i, row r
    cols_rm = [f[16 + r * 4 + i] for i in range(4) for r in range(4)]       # row-major: (c, r) at r*4 + c
    elems = [f[32 + i * 4 + (i % 3)] for i in range(4)]                     # rm34[i % 3][i]: rows of vec3, stride 16
    copy_rm = [f[16 + r * 4 + c] + f[c * 4 + r] for r in range(4) for c in range(4)]  # stored row by row
    out = cols_cm + cols_rm + elems + copy_rm
    cols_um = [g[r * 4 + i] for i in range(4) for r in range(4)]
    case = {"kernel": "matrix_layouts.comp",
            "bindings": [binding(0, "f32", data=f),
                         binding(1, "f32", count=len(out), fill={"value": 0}),
                         binding(2, "f32", data=g, kind="uniform_buffer"),
                         binding(3, "f32", count=16, fill={"value": 0})],
            "expect": [expect(1, out), expect(3, cols_um)]}
    write_case("matrix/matrix_layouts.json", case)
    # HLSL: m[i] is row i; column_major stores (row r, col c) at c*4 + r, row_major at r*4 + c
    h = f[:32]
    rows = [h[c * 4 + i] for i in range(4) for c in range(4)] + [h[16 + i * 4 + c] for i in range(4) for c in range(4)]
    helems = [h[(3 - i) * 4 + i] + 100.0 * h[16 + (3 - i) * 4 + i] for i in range(4)]
    copy = [h[16 + (k % 4) * 4 + k // 4] for k in range(16)] + [h[(k % 4) * 4 + k // 4] for k in range(16)]
    CM = [[h[c * 4 + r] for c in range(4)] for r in range(4)]          # CM[r][c]
    RM = [[h[16 + r * 4 + c] for c in range(4)] for r in range(4)]
    v = [1.0, -1.0, 2.0, 0.5]
    def f32sum(terms):                                                  # in order, rounding after each step
        acc = f32(terms[0])
        for t in terms[1:]:
            acc = f32(acc + f32(t))
        return acc
    prods = [f32sum([CM[i][j] * v[j] for j in range(4)]) for i in range(4)]
    prods += [f32sum([v[i] * RM[i][j] for i in range(4)]) for j in range(4)]
    prods += [RM[r][1] for r in range(4)]
    prods += [CM[2][c] * 2.0 for c in range(4)]
    prods += [f32sum([CM[i][k] * RM[k][j] for k in range(4)]) for i in range(4) for j in range(4)]
    case = {"kernel": "matrix_layouts.hlsl", "entry": "CSMain",
            "bindings": [binding(0, "f32", data=h),
                         binding(1, "f32", count=32, fill={"value": 0}),
                         binding(2, "f32", count=4, fill={"value": 0}),
                         binding(3, "f32", count=32, fill={"value": 0}),
                         binding(4, "f32", count=32, fill={"value": 0})],
            "expect": [expect(1, rows), expect(2, helems), expect(3, copy), expect(4, prods)]}
    write_case("matrix/matrix_layouts_hlsl.json", case)


# --------------------------------------------------------------------------
# Robust buffer access: out-of-bounds loads read 0, stores are dropped

def gen_robust():
    src = [100 + i for i in range(16)]
    dst = [0xdead] * 96
    out = [src[i] + 1 if i < len(src) else 0 + 1 for i in range(64)]          # src[i] reads 0 past the end
    for i in range(64):
        if 64 + 2 * i < len(dst):                                               # stores past the end: dropped
            dst[64 + 2 * i] = 7
    case = {"kernel": "robust_oob.comp", "robust_access": True,
            "bindings": [binding(0, "u32", data=src), binding(1, "u32", data=[0xdead] * 96)],
            "expect": [expect(1, out + dst[64:])]}
    write_case("robust/robust_oob.json", case)


# --------------------------------------------------------------------------
# HLSL 2021 short-circuit semantics: wave operations and guarded reads under ?:, && and ||

def gen_hlsl_quirks():
    r = Rng(9001)
    n = 256
    values = []
    for i in range(n):
        v = r.int(0, 999)
        if i % 4 == 2:
            v &= ~1          # an even value in every 4 lanes
        if i % 4 == 1:
            v |= 1           # and an odd one
        values.append(v)
    flags = [1 if v & 1 else 2 for v in values]
    counts = [0 if v & 1 else 7 for v in values]
    case = {"kernel": "ternary_wave.hlsl",
            "entry": "CSMain", "groups": [n // 64, 1, 1],
            "bindings": [binding(0, "u32", data=values),
                         binding(1, "u32", count=n, fill={"value": 0}),
                         binding(2, "u32", count=n, fill={"value": 0})],
            "expect": [expect(1, flags), expect(2, counts)]}
    write_case("hlsl_quirks/ternary_wave.json", case)
    small = [r.int(0, 100) for _ in range(100)]
    odd = [v & 1 for v in values]
    case = {"kernel": "short_circuit.hlsl",
            "entry": "CSMain", "groups": [n // 64, 1, 1],
            "bindings": [binding(0, "u32", data=values),
                         binding(1, "u32", data=small),
                         binding(2, "u32", count=n, fill={"value": 0}),
                         binding(3, "u32", count=n, fill={"value": 0}),
                         binding(4, "u32", count=n, fill={"value": 0})],
            "expect": [expect(2, odd), expect(3, odd),
                       expect(4, [1 if i < len(small) and small[i] > 50 else 0 for i in range(n)])]}
    write_case("hlsl_quirks/short_circuit.json", case)



# --------------------------------------------------------------------------
# Images (issue 14): storage images, fetch from mips, atomics, linear sampling, the HLSL forms.
# Packed texel order as the case format defines it: mip-major, then layer, z, y, x; components last.

def img_pattern(x, y, z=0, layer=0, mip=0, c=0):
    return x + 16 * y + 256 * z + 1000 * layer + 5000 * mip + 0.25 * c


def image_binding_packed(b, kind, fmt, extent, data, mips=1, sampler=None):
    d = {"set": 0, "binding": b, "kind": kind, "format": fmt, "dim": "2d", "extent": list(extent),
         "layers": 1, "mip_levels": mips, "data": list(data)}
    if sampler is not None:
        d["sampler"] = sampler
    return d


def image_expect(b, data, compare="exact"):
    return {"set": 0, "binding": b, "mip": 0, "layer": 0, "data": list(data), "compare": compare}


def packed_pattern(w, h, mips):
    out = []
    for m in range(mips):
        for y in range(max(1, h >> m)):
            for x in range(max(1, w >> m)):
                out += [img_pattern(x, y, 0, 0, m, c) for c in range(4)]
    return out


def gen_images():
    folder = "images"
    w, h = 16, 8
    # storage_mirror: dst(w-1-x, y) = 2 src(x, y) + (x, y, 0, 1)
    dst = [0.0] * (w * h * 4)
    for y in range(h):
        for x in range(w):
            for c in range(4):
                dst[(y * w + (w - 1 - x)) * 4 + c] = f32(2 * img_pattern(x, y, 0, 0, 0, c) +
                                                         (x, y, 0, 1)[c])
    case = {"kernel": "storage_mirror.comp", "groups": [2, 2, 1],
            "bindings": [image_binding_packed(0, "storage_image", "rgba32f", [w, h], packed_pattern(w, h, 1)),
                         image_binding_packed(1, "storage_image", "rgba32f", [w, h], [0.0] * (w * h * 4))],
            "expect": [image_expect(1, dst)]}
    write_case("%s/storage_mirror.json" % folder, case)

    # fetch_mips: lane i reads mip i % 3 at ((i/3) % mip width, (i/7) % mip height)
    texels, sizes = [], []
    for i in range(64):
        m = i % 3
        mw, mh = w >> m, h >> m
        x, y = (i // 3) % mw, (i // 7) % mh
        texels += [img_pattern(x, y, 0, 0, m, c) for c in range(4)]
        sizes += [mw, mh, 3, 0]
    case = {"kernel": "fetch_mips.comp",
            "bindings": [image_binding_packed(0, "combined_image_sampler", "rgba32f", [w, h], packed_pattern(w, h, 3),
                                       mips=3, sampler={}),
                         binding(1, "f32", count=256, fill={"value": 0}),
                         binding(2, "u32", count=256, fill={"value": 0})],
            "expect": [expect(1, texels), expect(2, sizes)],
            "device_differences": [{"device": "llvmpipe",
                                    "reason": "lavapipe (Mesa 22.3) takes the Lod of texelFetch and textureSize from "
                                              "the first lane of each subgroup (docs/quirks.md); "
                                              "fetch_mips_uniform.json is the form it can check"}]}
    write_case("%s/fetch_mips.json" % folder, case)

    # fetch_offset: lane i at p = (2 + i % 12, 1 + i / 16): mip 0 at p + (-2, 3), mip 1 at p / 2 + (1, 1)
    texels = []
    for i in range(64):
        x, y = 2 + i % 12, 1 + i // 16
        texels += [img_pattern(x - 2, y + 3, 0, 0, 0, c) for c in range(4)]
    for i in range(64):
        x, y = 2 + i % 12, 1 + i // 16
        texels += [img_pattern(x // 2 + 1, y // 2 + 1, 0, 0, 1, c) for c in range(4)]
    case = {"kernel": "fetch_offset.comp",
            "bindings": [image_binding_packed(0, "combined_image_sampler", "rgba32f", [w, h], packed_pattern(w, h, 2),
                                       mips=2, sampler={}),
                         binding(1, "f32", count=512, fill={"value": 0})],
            "expect": [expect(1, texels)]}
    write_case("%s/fetch_offset.json" % folder, case)

    # sample_offset: lane i at p = (i % 12, i / 12); offsets move the level's integer texel coordinates, then
    # clamp to edge.  Nearest at texel centres reads one texel; the gather and linear samples at texel corners
    # read the 2x2 footprint whose low corner is p (each weight 1/2 on each axis: exact in float32).
    def edge(x, y, m, c):
        mw, mh = w >> m, h >> m
        return img_pattern(min(max(x, 0), mw - 1), min(max(y, 0), mh - 1), 0, 0, m, c)
    lanes = [(i % 12, i // 12) for i in range(64)]
    texels = []
    texels += [edge(x + 3, y - 1, 0, c) for x, y in lanes for c in range(4)]
    texels += [edge(x - 2, y + 1, 1, c) for x, y in lanes for c in range(4)]
    for x, y in lanes:  # gather: i0j1, i1j1, i1j0, i0j0 of component 1, moved by (2, 1)
        texels += [edge(x + 2 + di, y + 1 + dj, 0, 1) for di, dj in ((0, 1), (1, 1), (1, 0), (0, 0))]
    for (dx, dy, m) in ((-1, 2, 0), (1, -1, 1)):
        for x, y in lanes:
            texels += [sum(edge(x + dx + di, y + dy + dj, m, c) for di in (0, 1) for dj in (0, 1)) / 4
                       for c in range(4)]
    for x, y in lanes:  # textureGatherOffsets: component 1 of the (i0, j0) texel moved by each offset
        texels += [edge(x + ox, y + oy, 0, 1) for ox, oy in ((0, 0), (1, -1), (-2, 1), (2, 2))]
    near = {"mag_filter": "nearest", "min_filter": "nearest", "mipmap_mode": "nearest",
            "address_mode": "clamp_to_edge"}
    lin = {"mag_filter": "linear", "min_filter": "linear", "mipmap_mode": "nearest", "address_mode": "clamp_to_edge"}
    case = {"kernel": "sample_offset.comp",
            "bindings": [image_binding_packed(0, "combined_image_sampler", "rgba32f", [w, h], packed_pattern(w, h, 2),
                                              mips=2, sampler=near),
                         image_binding_packed(1, "combined_image_sampler", "rgba32f", [w, h], packed_pattern(w, h, 2),
                                              mips=2, sampler=lin),
                         binding(2, "f32", count=1536, fill={"value": 0})],
            "expect": [expect(2, texels)]}
    write_case("%s/sample_offset.json" % folder, case)

    # cube_grad: a 16x16 cube with 5 mips, nearest; lane i samples direction dir with gradients (ddx, 0), ddx
    # either along the face (its s axis) or off it (half along the normal), scaled so that the projected
    # gradient is 2^L texels of the face for L = 0..3; the lane reads level L at the texel the direction hits
    # (the spec's face table, and s = sc / 2|ma| + 1/2 on each level).  The unprojected length would
    # read a coarser level on every lane whose gradient leaves the face's plane or whose scale is not 1/2.
    faces = [  # normal N, s axis U, t axis V (Vulkan's face table, layers +x -x +y -y +z -z)
        ((1, 0, 0), (0, 0, -1), (0, -1, 0)), ((-1, 0, 0), (0, 0, 1), (0, -1, 0)),
        ((0, 1, 0), (1, 0, 0), (0, 0, 1)), ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
        ((0, 0, 1), (1, 0, 0), (0, -1, 0)), ((0, 0, -1), (-1, 0, 0), (0, -1, 0))]
    def dot(a, b):
        return sum(x * y for x, y in zip(a, b))
    def comb(*terms):  # sum of scalar * vector
        return tuple(sum(k * v[j] for k, v in terms) for j in range(3))
    cw, mips = 16, 5
    rays, texels = [], []
    for i in range(64):
        f, kind, level = i % 6, (i // 6) % 2, (i // 12) % 4
        N, U, V = faces[f]
        # inside the face and at least 0.04 texels off every texel edge of every level (s * 16 = 8 + 8 sc)
        sc, tc = (0.3, 0.17, -0.07, -0.23, 0.41)[i % 5], (-0.45, -0.13, 0.09, 0.37)[i % 4]
        d = comb((1.0, N), (sc, U), (tc, V))
        v = U if kind == 0 else comb((1.0, U), (0.5, N), (0.25, V))
        # projected: ds = (ma dsc - sc dma) / 2 ma^2, ma = 1; its length in texels of the face for unit v
        ds, dt = (dot(U, v) - sc * dot(N, v)) / 2, (dot(V, v) - tc * dot(N, v)) / 2
        g = 2.0 ** level / (cw * (ds * ds + dt * dt) ** 0.5)
        ddx = tuple(f32(g * x) for x in v)
        rays += list(d) + [0.0] + list(ddx) + [0.0] + [0.0] * 4
        size = cw >> level
        x = min(int((sc / 2 + 0.5) * size), size - 1)
        y = min(int((tc / 2 + 0.5) * size), size - 1)
        texels += [img_pattern(x, y, 0, f, level, c) for c in range(4)]
    cube = []
    for m in range(mips):
        for layer in range(6):
            for y in range(cw >> m):
                for x in range(cw >> m):
                    cube += [img_pattern(x, y, 0, layer, m, c) for c in range(4)]
    env = {"set": 0, "binding": 0, "kind": "combined_image_sampler", "format": "rgba32f", "dim": "cube",
           "extent": [cw, cw], "layers": 6, "mip_levels": mips, "data": cube,
           "sampler": {"mag_filter": "nearest", "min_filter": "nearest", "mipmap_mode": "nearest",
                       "address_mode": "clamp_to_edge"}}
    case = {"kernel": "cube_grad.comp",
            "bindings": [env, binding(1, "f32", data=[f32(x) for x in rays]),
                         binding(2, "f32", count=256, fill={"value": 0})],
            "expect": [expect(2, texels)],
            "device_differences": [{"device": "NVIDIA",
                                    "reason": "the H100 (driver 580.159.04) reads level 2 where the specification's "
                                              "cube derivatives give level 3 on 5 of the 6 lanes with large gradients "
                                              "off the face's plane (docs/quirks.md, 'Grad')"}]}
    write_case("%s/cube_grad.json" % folder, case)

    # shadow_compare: depth D(x, y) = ((3x + 5y) % 8) / 8 + 1/16 in a d32_sfloat 8x8; each texel compared with the
    # reference (Dref op D), then the 0/1 results filtered; clamp to edge.  A d16_unorm image of 1.0 where
    # (x + y) % 3 == 0, else 0, compared for equality with 1.5, which the UNORM format clamps to 1.0.
    sw = 8
    depth = [((3 * x + 5 * y) % 8) / 8 + 1 / 16 for y in range(sw) for x in range(sw)]
    ones = [1.0 if (x + y) % 3 == 0 else 0.0 for y in range(sw) for x in range(sw)]
    def dz(x, y):
        return depth[min(max(y, 0), sw - 1) * sw + min(max(x, 0), sw - 1)]
    lanes = [(i % 8, i // 8) for i in range(64)]
    near = [1.0 if 0.5 <= dz(x, y) else 0.0 for x, y in lanes]
    # linear at the corner (x + 1, y + 1) / 8: u = x + 1 - 0.5 + 0.5 -> i0 = x, weights 1/2 on each axis
    lin = [sum(1.0 if 0.4 < dz(x + di, y + dj) else 0.0 for di in (0, 1) for dj in (0, 1)) / 4 for x, y in lanes]
    gath = []
    for x, y in lanes:  # i0j1, i1j1, i1j0, i0j0 of (0.5 < D)
        gath += [1.0 if 0.5 < dz(x + di, y + dj) else 0.0 for di, dj in ((0, 1), (1, 1), (1, 0), (0, 0))]
    eq = [1.0 if ones[y * sw + x] == 1.0 else 0.0 for x, y in lanes]
    def shadow(b, fmt, data, sampler):
        return {"set": 0, "binding": b, "kind": "combined_image_sampler", "format": fmt, "dim": "2d",
                "extent": [sw, sw], "layers": 1, "mip_levels": 1, "data": data, "sampler": sampler}
    case = {"kernel": "shadow_compare.comp",
            "bindings": [shadow(0, "d32_sfloat", depth, {"address_mode": "clamp_to_edge",
                                                         "compare_op": "less_or_equal"}),
                         shadow(1, "d32_sfloat", depth, {"mag_filter": "linear", "min_filter": "linear",
                                                         "address_mode": "clamp_to_edge", "compare_op": "less"}),
                         shadow(2, "d16_unorm", ones, {"address_mode": "clamp_to_edge", "compare_op": "equal"}),
                         binding(3, "f32", count=448, fill={"value": 0})],
            "expect": [expect(3, near + lin + gath + eq)]}
    write_case("%s/shadow_compare.json" % folder, case)

    # sample_proj: projective sampling divides the coordinates (and a depth reference) by q, a power of two per
    # lane, so nearest at texel centres reads lane i's texel p = (i % 12, i / 12) of mip 0, of mip 1 (clamped to
    # its 8x4), and p moved by (2, -1); the shadow sample compares 0.5 <= D at (i % 8, i / 8) of the depth above.
    lanes12 = [(i % 12, i // 12) for i in range(64)]
    texels = [edge(x, y, 0, c) for x, y in lanes12 for c in range(4)]
    texels += [edge(x, y, 1, c) for x, y in lanes12 for c in range(4)]
    texels += [edge(x + 2, y - 1, 0, c) for x, y in lanes12 for c in range(4)]
    proj_shadow = [1.0 if 0.5 <= dz(i % 8, i // 8) else 0.0 for i in range(64)]
    case = {"kernel": "sample_proj.comp",
            "bindings": [image_binding_packed(0, "combined_image_sampler", "rgba32f", [w, h], packed_pattern(w, h, 2),
                                              mips=2, sampler={"mag_filter": "nearest", "min_filter": "nearest",
                                                               "mipmap_mode": "nearest",
                                                               "address_mode": "clamp_to_edge"}),
                         shadow(1, "d32_sfloat", depth, {"address_mode": "clamp_to_edge",
                                                         "compare_op": "less_or_equal"}),
                         binding(2, "f32", count=832, fill={"value": 0})],
            "expect": [expect(2, texels + proj_shadow)]}
    write_case("%s/sample_proj.json" % folder, case)

    # fetch_mips_uniform: workgroup g reads mip g % 3 (one mip per wave) at (l % mip width, (l / 8) % mip height)
    texels, sizes = [], []
    for g in range(3):
        for l in range(64):
            mw, mh = w >> g, h >> g
            texels += [img_pattern(l % mw, (l // 8) % mh, 0, 0, g, c) for c in range(4)]
            sizes += [mw, mh, 3, 0]
    case = {"kernel": "fetch_mips_uniform.comp", "groups": [3, 1, 1],
            "bindings": [image_binding_packed(0, "combined_image_sampler", "rgba32f", [w, h], packed_pattern(w, h, 3),
                                       mips=3, sampler={}),
                         binding(1, "f32", count=768, fill={"value": 0}),
                         binding(2, "u32", count=768, fill={"value": 0})],
            "expect": [expect(1, texels), expect(2, sizes)]}
    write_case("%s/fetch_mips_uniform.json" % folder, case)

    # atomic_histogram: 256 values into 16 x 2 bins
    r = Rng(1414)
    values = [r.int(0, 1000) for _ in range(256)]
    bins = [0] * 32
    for v in values:
        bins[(v // 16 % 2) * 16 + v % 16] += 1
    case = {"kernel": "atomic_histogram.comp", "groups": [4, 1, 1],
            "bindings": [binding(0, "u32", data=values),
                         image_binding_packed(1, "storage_image", "r32ui", [16, 2], [0] * 32)],
            "expect": [image_expect(1, bins)]}
    write_case("%s/atomic_histogram.json" % folder, case)

    # sample_linear: Vulkan linear filtering, i0 = floor(u * 8 - 0.5), clamp to edge; weights 0 or 1/2
    sw = 8
    src = [[[img_pattern(x, y, 0, 0, 0, c) for c in range(4)] for x in range(sw)] for y in range(sw)]

    def at(i, j, c):
        return src[min(max(j, 0), sw - 1)][min(max(i, 0), sw - 1)][c]

    out = []
    for i in range(128):
        fx, fy = (i % 17) * 0.5, (i // 17) * 0.5
        i0, j0 = math.floor(fx), math.floor(fy)
        a, b = fx - i0, fy - j0
        for c in range(4):
            out.append(f32((1 - a) * (1 - b) * at(i0, j0, c) + a * (1 - b) * at(i0 + 1, j0, c) +
                           (1 - a) * b * at(i0, j0 + 1, c) + a * b * at(i0 + 1, j0 + 1, c)))
    linear = {"mag_filter": "linear", "min_filter": "linear", "address_mode": "clamp_to_edge"}
    case = {"kernel": "sample_linear.comp", "groups": [2, 1, 1],
            "bindings": [image_binding_packed(0, "sampled_image", "rgba32f", [sw, sw], packed_pattern(sw, sw, 1)),
                         {"set": 0, "binding": 1, "kind": "sampler", "sampler": linear},
                         binding(2, "f32", count=512, fill={"value": 0})],
            "expect": [expect(2, out, compare={"ulp": 1})]}
    write_case("%s/sample_linear.json" % folder, case)

    # texture_load.hlsl: dst = src.Load + SampleLevel (nearest, at the texel centre) in x + dst
    start = [float(c) for _ in range(w * h) for c in range(4)]
    want = []
    for y in range(h):
        for x in range(w):
            want += [f32(img_pattern(x, y, 0, 0, 0, c) * (2 if c == 0 else 1) + c) for c in range(4)]
    case = {"kernel": "texture_load.hlsl", "entry": "main", "groups": [2, 1, 1],
            "bindings": [image_binding_packed(0, "sampled_image", "rgba32f", [w, h], packed_pattern(w, h, 1)),
                         {"set": 0, "binding": 1, "kind": "sampler", "sampler": {}},
                         image_binding_packed(2, "storage_image", "rgba32f", [w, h], start)],
            "expect": [image_expect(2, want)]}
    write_case("%s/texture_load.json" % folder, case)


# --------------------------------------------------------------------------
# reconvergence, one construct at a time: the kernel compares each ballot with the set its own
# arithmetic promises (constructs.comp), so every lane that takes the ballot stores 1, the others 7

RECONVERGENCE_CONSTRUCTS = ["switch_default", "switch_fallthrough", "loop_break", "if_else_merge",
                            "early_return", "inner_loop_merge", "loop_continue"]


# devices measured to differ (docs/hardware.md, "Reconvergence, construct by construct")
RECONVERGENCE_DEVICE_DIFFERENCES = {
    "loop_break": [{"device": "llvmpipe",
                    "reason": "lavapipe (Mesa 22.3) takes a ballot whose value is only used after the loop at the "
                              "loop's exit, with the lanes of every iteration (docs/quirks.md)"}],
    "switch_default": [{"device": "NVIDIA",
                        "reason": "the H100 (driver 580.159.04) runs each selector value of a switch apart, even "
                                  "values that share one label, with or without --maximal-reconvergence "
                                  "(docs/quirks.md)"}],
    "switch_fallthrough": [{"device": "NVIDIA",
                            "reason": "the H100 (driver 580.159.04) runs each selector value of a switch apart, "
                                      "also into a fall-through, with or without --maximal-reconvergence "
                                      "(docs/quirks.md)"}],
}


def gen_reconvergence_constructs():
    for n, name in enumerate(RECONVERGENCE_CONSTRUCTS):
        reach = [7 if name == "early_return" and i & 1 else 1 for i in range(64)]
        case = {"description": "reconvergence at a %s: every lane's ballot holds exactly the lanes the source "
                               "promises (1), or the lane never takes it (7)" % name.replace("_", " "),
                "kernel": "constructs.comp", "defines": {"CONSTRUCT": str(n)},
                "bindings": [binding(0, "u32", count=64, fill={"value": 0})],
                "expect": [expect(0, reach)]}
        if name in RECONVERGENCE_DEVICE_DIFFERENCES:
            case["device_differences"] = RECONVERGENCE_DEVICE_DIFFERENCES[name]
        write_case("reconvergence/constructs_%s.json" % name, case)


# --------------------------------------------------------------------------
# Images (docs/case-format.md, "Images"): the articles' kernels in their own form,
# and the sampling suite.  Image contents and expectations are component values in
# shader terms (floats for UNORM/SFLOAT formats, integers for UINT), texels in
# packed order: mip 0 ([y][x]), then mip 1, ...

def image_binding(b, kind, fmt, extent, data=None, fill=None, mip_levels=None, sampler=None):
    d = {"set": 0, "binding": b, "kind": kind, "format": fmt, "extent": list(extent)}
    if mip_levels:
        d["mip_levels"] = mip_levels
    if data is not None:
        d["data"] = list(data)
    elif fill is not None:
        d["fill"] = fill
    if sampler is not None:
        d["sampler"] = sampler
    return d


def sampler_state(filt="nearest", mipmap="nearest", address="clamp_to_edge", border=None, unnormalized=False,
                  mag=None):
    d = {"mag_filter": mag or filt, "min_filter": filt, "mipmap_mode": mipmap, "address_mode": address}
    if border:
        d["border_color"] = border
    if unnormalized:   # the specification allows only level of detail 0 with them
        d["unnormalized_coordinates"] = True
        d["min_lod"] = 0
        d["max_lod"] = 0
    return d


def gen_images_000():
    """Article 000 as written: Texture2D<uint2> lightStartCounts (a texel per tile), RWTexture2D<float4> output."""
    groups_x, groups_y, n_lights, light_seed = 4, 2, 256, 1000
    width, height = 8 * groups_x, 8 * groups_y
    out = lights_reference(n_lights, TILES_000, light_seed, groups_x, groups_y)
    start_counts = [v for t in TILES_000 for v in t]        # texel (x, y) = tile y * groups_x + x
    for lang, kernel, entries in (("glsl", None, (("naive", None), ("wave", None))),
                                  ("hlsl", "uniform_load_image.hlsl", (("naive", "CSMain"), ("wave", "CSMainWave")))):
        for variant, entry in entries:
            case = {"kernel": kernel or "uniform_load_image_%s.comp" % variant}
            if entry:
                case["entry"] = entry
            case["groups"] = [groups_x, groups_y, 1]
            if variant == "wave":
                case["max_subgroup_size"] = 64
            case["bindings"] = [
                binding(0, "f32", count=4 * n_lights, fill={"random": {"seed": light_seed, "min": -1, "max": 1}},
                        kind="uniform_texel_buffer", fmt="rgba32f"),
                image_binding(1, "sampled_image", "r32g32_uint", (groups_x, groups_y), data=start_counts),
                image_binding(2, "storage_image", "r32g32b32a32_sfloat", (width, height), fill={"value": 0}),
            ]
            case["expect"] = [image_expect(2, out)]
            write_case("000_uniform_load/uniform_load_image_%s%s.json" % ("hlsl_" if lang == "hlsl" else "", variant),
                       case)


def gen_images_004():
    """Article 004's gather through Texture2D.Load and through SampleLevel (nearest, clamp to edge), row-major and
    tiled launch: the same input and the same expected image as the buffer cases of the same size."""
    folder = "004_swizzle"
    taps, spacing = 5, 8
    for gw, gh in [(21, 3), (9, 5)]:
        w, h = 8 * gw, 8 * gh
        seed = 4000 + gw
        img = random_fill("u32", w * h, seed, 0, 65535)
        out = swizzle_gather(img, w, h, taps, spacing)
        for fetch in ("load", "sample_level"):
            for launch, hlsl_launch in (("row_major", "RowMajor"), ("tiled", "Tiled")):
                for lang in ("glsl", "hlsl"):
                    case = {}
                    if lang == "glsl":
                        case["kernel"] = "swizzle_image.comp"
                        defines = {}
                        if launch == "tiled":
                            defines["TILED"] = "1"
                        if fetch == "sample_level":
                            defines["SAMPLE_LEVEL"] = "1"
                        if defines:
                            case["defines"] = defines
                    else:
                        case["kernel"] = "swizzle_image.hlsl"
                        case["entry"] = "CS%s%s" % (hlsl_launch, "Load" if fetch == "load" else "SampleLevel")
                    case["groups"] = [gw, gh, 1]
                    case["push_constants"] = {"type": "u32", "data": [gw, gh, w, h]}
                    if fetch == "load":
                        bindings = [image_binding(0, "sampled_image", "r32_uint", (w, h),
                                                  fill={"random": {"seed": seed, "min": 0, "max": 65535}})]
                    else:   # the same values as floats (exact below 2^24)
                        bindings = [image_binding(2, "sampled_image", "r32_sfloat", (w, h), data=img),
                                    {"set": 0, "binding": 3, "kind": "sampler", "sampler": sampler_state()}]
                    bindings.insert(1 if fetch == "load" else 0,
                                    image_binding(1, "storage_image", "r32_uint", (w, h), fill={"value": 0}))
                    case["bindings"] = bindings
                    case["expect"] = [image_expect(1, out)]
                    write_case("%s/swizzle_image_%s%s_%s_%dx%d.json" % (folder, "hlsl_" if lang == "hlsl" else "",
                                                                       fetch, launch, w, h), case)
    # 2560x1440, Load, for the memory study (row-major vs tiled launch on an image): no expectation
    # (and _wide: taps 128 px apart, the footprint that outgrows a 4 MB L2, as swizzle_*_1440p_wide.json)
    gw, gh = 2560 // 8, 1440 // 8
    for launch in ("row_major", "tiled"):
        for wide in (False, True):
            case = {"kernel": "swizzle_image.comp"}
            defines = {}
            if launch == "tiled":
                defines["TILED"] = "1"
            if wide:
                defines["SPACING"] = "128"
            if defines:
                case["defines"] = defines
            case["groups"] = [gw, gh, 1]
            case["push_constants"] = {"type": "u32", "data": [gw, gh, 2560, 1440]}
            case["bindings"] = [
                image_binding(0, "sampled_image", "r32_uint", (2560, 1440),
                              fill={"random": {"seed": 4440, "min": 0, "max": 65535}}),
                image_binding(1, "storage_image", "r32_uint", (2560, 1440), fill={"value": 0})]
            write_case("%s/swizzle_image_load_%s_1440p%s.json" % (folder, launch, "_wide" if wide else ""), case)


# The sampling reference: Vulkan 1.3, chapter "Textures", sections "Texel Coordinate
# Systems" (unnormalized u = s * width), "Wrapping Operation", "Texel Filtering"
# and "Texel Selection" (level of detail), written from the formulas, in binary64.

ADDRESS_MODES = ("repeat", "mirrored_repeat", "clamp_to_edge", "clamp_to_border", "mirror_clamp_to_edge")
BORDER_COLORS = {"float_transparent_black": (0.0, 0.0, 0.0, 0.0), "float_opaque_black": (0.0, 0.0, 0.0, 1.0),
                 "float_opaque_white": (1.0, 1.0, 1.0, 1.0)}
# Linear filtering: the specification lets a device quantize the filter weights to
# subTexelPrecisionBits (lavapipe: 8) and filter 8-bit UNORM texels in fixed point.
# A bilinear blend of values in [0, 1] with weights off by at most 2^-9 each is off
# by at most 2^-8; the fixed-point blends may each lose one more step of 1/255
# (horizontal, vertical, and between mip levels): 2^-8 + 3/255 < 0.016.
LINEAR_TOLERANCE = 0.016
# Nearest filtering returns a texel: UNORM8 decoded as c / 255 in binary32, which a
# device may compute as c * (1 / 255.0f), one rounding away.
NEAREST_TOLERANCE = 1e-6


def mirror(n):
    return n if n >= 0 else -(1 + n)


def wrap(i, size, mode):
    """Texel index after the address mode ("Wrapping Operation"); -1 or size mean the border."""
    if mode == "repeat":
        return i % size
    if mode == "mirrored_repeat":
        return (size - 1) - mirror((i % (2 * size)) - size)
    if mode == "clamp_to_edge":
        return min(max(i, 0), size - 1)
    if mode == "clamp_to_border":
        return min(max(i, -1), size)
    if mode == "mirror_clamp_to_edge":
        return min(max(mirror(i), 0), size - 1)
    raise ValueError(mode)


def texel_at(level, i, j, modes, border):
    w, h, texels = level
    i, j = wrap(i, w, modes[0]), wrap(j, h, modes[1])
    if i < 0 or i >= w or j < 0 or j >= h:
        return border
    return texels[j * w + i]


def filter_level(level, s, t, filt, modes, border, unnormalized):
    w, h, _ = level
    u, v = (s, t) if unnormalized else (s * w, t * h)
    if filt == "nearest":
        return texel_at(level, math.floor(u), math.floor(v), modes, border)
    i0, j0 = math.floor(u - 0.5), math.floor(v - 0.5)
    a, b = (u - 0.5) - i0, (v - 0.5) - j0
    t00 = texel_at(level, i0, j0, modes, border)
    t10 = texel_at(level, i0 + 1, j0, modes, border)
    t01 = texel_at(level, i0, j0 + 1, modes, border)
    t11 = texel_at(level, i0 + 1, j0 + 1, modes, border)
    return tuple((1 - a) * (1 - b) * t00[c] + a * (1 - b) * t10[c] + (1 - a) * b * t01[c] + a * b * t11[c]
                 for c in range(4))


def sample_reference(levels, sampler, s, t, lod):
    """textureLod(tex, (s, t), lod) for a 2D image of RGBA texels."""
    modes = sampler["address_mode"]
    if isinstance(modes, str):
        modes = (modes, modes)
    border = BORDER_COLORS[sampler.get("border_color", "float_transparent_black")]
    unnormalized = sampler.get("unnormalized_coordinates", False)
    lam = min(max(lod, sampler.get("min_lod", 0.0)), sampler.get("max_lod", 1000.0))     # no bias
    filt = sampler["mag_filter"] if lam <= 0 else sampler["min_filter"]
    q = len(levels) - 1
    d = min(max(lam, 0.0), q)
    if sampler["mipmap_mode"] == "nearest" or q == 0:
        level = math.ceil(d + 0.5) - 1
        return filter_level(levels[level], s, t, filt, modes, border, unnormalized)
    hi = math.floor(d)
    lo = min(hi + 1, q)
    delta = d - hi
    a = filter_level(levels[hi], s, t, filt, modes, border, unnormalized)
    b = filter_level(levels[lo], s, t, filt, modes, border, unnormalized)
    return tuple((1 - delta) * a[c] + delta * b[c] for c in range(4))


def unorm8_levels(seed, width, height, mips):
    """Random RGBA8 UNORM texels per mip level (each level its own values, so a wrong level shows)."""
    r = Rng(seed)
    levels, data = [], []
    for m in range(mips):
        w, h = max(1, width >> m), max(1, height >> m)
        codes = [r.int(0, 255) for _ in range(4 * w * h)]
        data += [c / 255 for c in codes]
        levels.append((w, h, [tuple(codes[4 * k + c] / 255 for c in range(4)) for k in range(w * h)]))
    return levels, data


def sampling_case(name, sampler, coords, levels, data, tolerance, lod0=False):
    results = []
    for s, t, lod in coords:
        results += sample_reference(levels, sampler, s, t, 0.0 if lod0 else lod)
    n = len(coords)
    assert n % 8 == 0
    w, h = levels[0][0], levels[0][1]
    case = {"kernel": "sampling.comp"}
    if lod0:
        case["defines"] = {"LOD0": "1"}
    case["groups"] = [n // 8, 1, 1]
    case["bindings"] = [
        image_binding(0, "combined_image_sampler", "r8g8b8a8_unorm", (w, h), data=data,
                      mip_levels=len(levels) if len(levels) > 1 else None, sampler=sampler),
        binding(1, "f32", data=[x for s, t, lod in coords for x in (s, t, lod, 0.0)]),
        binding(2, "f32", count=4 * n, fill={"value": 0}),
    ]
    e = expect(2, [f32(x) for x in results], {"epsilon": tolerance})
    case["expect"] = [e]
    write_case("images/sampling_%s.json" % name, case)


def gen_images_sampling():
    width, height = 8, 4                        # not square: an x/y swap shows
    levels, data = unorm8_levels(7000, width, height, 1)
    r = Rng(7001)
    # nearest: texel coordinates 1/4 .. 3/4 texel away from every texel edge, inside and
    # up to one and a half images outside [0, 1] (the address modes' territory)
    fracs = (0.25, 0.375, 0.625, 0.75)

    def nearest_coords(n, w, h):
        out = []
        for _ in range(n):
            i, j = r.int(-w - w // 2, 2 * w + w // 2), r.int(-h - h // 2, 2 * h + h // 2)
            out.append(((i + fracs[r.int(0, 3)]) / w, (j + fracs[r.int(0, 3)]) / h, 0.0))
        return out

    def linear_coords(n, w, h):
        # anywhere, on a 1/1024-texel grid (binary32 holds these exactly)
        return [((r.int(-(w + w // 2) * 1024, (2 * w + w // 2) * 1024)) / (1024 * w),
                 (r.int(-(h + h // 2) * 1024, (2 * h + h // 2) * 1024)) / (1024 * h), 0.0) for _ in range(n)]

    for mode in ADDRESS_MODES:
        border = "float_opaque_white" if mode == "clamp_to_border" else None
        sampling_case("nearest_" + mode, sampler_state("nearest", address=mode, border=border),
                      nearest_coords(64, width, height), levels, data, NEAREST_TOLERANCE)
        sampling_case("linear_" + mode, sampler_state("linear", address=mode, border=border),
                      linear_coords(64, width, height), levels, data, LINEAR_TOLERANCE)
    # border colours: linear, so texels next to the edge blend with the border
    for color in BORDER_COLORS:
        sampling_case("border_" + color, sampler_state("linear", address="clamp_to_border", border=color),
                      linear_coords(32, width, height), levels, data, LINEAR_TOLERANCE)
    # unnormalized coordinates (texel units; clamp to edge in u, to border in v; level of detail 0)
    for filt in ("nearest", "linear"):
        coords = [(s * width, t * height, 0.0) for s, t, _ in
                  (nearest_coords if filt == "nearest" else linear_coords)(32, width, height)]
        sampling_case("unnormalized_" + filt,
                      sampler_state(filt, address=["clamp_to_edge", "clamp_to_border"],
                                    border="float_opaque_black", unnormalized=True),
                      coords, levels, data, NEAREST_TOLERANCE if filt == "nearest" else LINEAR_TOLERANCE, lod0=True)
    # a mip chain, 8x8 with 4 levels, sampled between levels: minification linear, magnification
    # nearest (lod <= 0 picks magnification); lods on quarters (exact at any mipmapPrecisionBits >= 2),
    # none on a half for the nearest mipmap mode (where the specification lets the rounding go either way)
    mip_levels, mip_data = unorm8_levels(7002, 8, 8, 4)
    for mipmap in ("nearest", "linear"):
        lods = (-0.5, 0.0, 0.25, 0.75, 1.0, 1.25, 1.75, 2.25, 2.75, 3.0, 3.25, 5.0)
        if mipmap == "linear":
            lods += (0.5, 1.5, 2.5)
        coords = []
        while len(coords) < 64:
            s, t, _ = nearest_coords(1, 8, 8)[0]
            coords.append((s, t, lods[len(coords) % len(lods)]))
        sampling_case("mip_" + mipmap, sampler_state("linear", mipmap=mipmap, address="repeat", mag="nearest"),
                      coords, mip_levels, mip_data, LINEAR_TOLERANCE)


# --------------------------------------------------------------------------

def main():
    gen_000()
    for name in sorted(n for n in dir(sys.modules[__name__])
                       if n.startswith("gen_") and n not in ("gen_000", "gen_000_lights")):
        getattr(sys.modules[__name__], name)()
    import gen_descriptor_cases  # kernels/descriptors/: its own file, this one is long
    gen_descriptor_cases.generate(sys.modules[__name__])
    import gen_bindless_cases  # kernels/bindless/: descriptor arrays indexed at run time
    gen_bindless_cases.generate(sys.modules[__name__])
    import gen_image_ms_int64_cases  # kernels/images/ms_*, atomic64*: multisampled and 64-bit images
    gen_image_ms_int64_cases.generate(sys.modules[__name__])
    if CHECK:
        print("%d case files checked" % len(WRITTEN))
        sys.exit(1 if CHECK_FAILED else 0)
    print("%d case files written" % len(WRITTEN))


if __name__ == "__main__":
    main()
