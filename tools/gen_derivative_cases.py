#!/usr/bin/env python3
"""Expectations of kernels/derivatives/ (docs/quirks.md, "Derivatives in compute
kernels"), computed from the Vulkan specification's definitions, not by
wavelab: a derivative quad holds invocations 0 1 / 2 3 (quads: the 2x2 blocks
of LocalInvocationID; linear: LocalInvocationIndex 4n..4n+3); fine dx is
P1 - P0 on the top row and P3 - P2 on the bottom one, fine dy P2 - P0 on the
left column and P3 - P1 on the right one; coarse takes the top-left
invocation's; fwidth is |dx| + |dy|.  Every value is a small integer, exact
in f32.  Run from the repository root: python3 tools/gen_derivative_cases.py
(--check: write nothing, exit 1 if a committed case file differs)
"""
import json
import math
import os
import sys

CHECK = "--check" in sys.argv
DIFFERS = []

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "derivatives")


def fine(P, i):
    """(dx, dy) of invocation i (0..3) of a quad whose values are P[0..3]."""
    dx = P[1] - P[0] if i < 2 else P[3] - P[2]
    dy = P[2] - P[0] if i % 2 == 0 else P[3] - P[1]
    return dx, dy


def coarse(P):
    return P[1] - P[0], P[2] - P[0]


def p_of(x, y):
    return x * x + 3 * y * y + x * y


def q_of(x, y):
    return x * x + 3 * y * y


def quads():
    # 2 x 2 workgroups of 8 x 4: global (gx, gy), 8 floats each, row-major over a 16-wide grid
    width, height = 16, 8
    out = [0.0] * (width * height * 8)
    for gy in range(height):
        for gx in range(width):
            x0, y0 = gx & ~1, gy & ~1
            quad = [(x0, y0), (x0 + 1, y0), (x0, y0 + 1), (x0 + 1, y0 + 1)]
            i = (gy & 1) * 2 + (gx & 1)
            P = [p_of(*c) for c in quad]
            Q = [q_of(*c) for c in quad]
            L = [c[0] + 2 * c[1] for c in quad]
            fdx, fdy = fine(P, i)
            cdx, cdy = coarse(Q)
            ldx, ldy = fine(L, i)
            # LocalInvocationIndex of the quad's invocation 0 (its top-left), within the 8 x 4 workgroup
            top_left = (y0 % 4) * 8 + (x0 % 8)
            o = (gy * width + gx) * 8
            out[o:o + 8] = [fdx, fdy, cdx, cdy, abs(fdx) + abs(fdy), abs(cdx) + abs(cdy), ldx + 10 * ldy, top_left]
    return out


def linear():
    out = [0.0] * (64 * 6)
    for g in range(64):
        def xy(k):
            return (k & 1) + (k >> 2), ((k >> 1) & 1) + ((k >> 2) % 3)
        quad = [xy((g & ~3) + k) for k in range(4)]
        i = g & 3
        P = [p_of(*c) for c in quad]
        Q = [q_of(*c) for c in quad]
        fdx, fdy = fine(P, i)
        cdx, cdy = coarse(Q)
        out[g * 6:g * 6 + 6] = [fdx, fdy, cdx, cdy, abs(fdx) + abs(fdy), abs(cdx) + abs(cdy)]
    return out


def implicit_lod():
    """implicit_lod.comp: mip level m of the 16x16 image holds m in every component; the sampler's mipmap mode
    is linear.  The level of detail is the Vulkan specification's lambda = log2(rho), rho the larger length of
    (du/dx, dv/dx) and (du/dy, dv/dy) in texels of mip 0, plus the bias; at a whole lambda the linear mipmap
    mode reads that level alone."""
    out = []
    for i in range(256):
        def uv(k):
            n = k >> 2
            gx, gy = 2 * (n % 8) + (k & 1), 2 * (n // 8) + ((k >> 1) & 1)
            s = 1 << (((gx >> 1) + (gy >> 1)) % 4)
            return ((gx * s + 0.5) / 16.0, (gy * s + 0.5) / 16.0)
        quad = [uv((i & ~3) + k) for k in range(4)]
        q = i & 3
        dx = [(quad[1][c] - quad[0][c] if q < 2 else quad[3][c] - quad[2][c]) * 16 for c in range(2)]
        dy = [(quad[2][c] - quad[0][c] if q % 2 == 0 else quad[3][c] - quad[1][c]) * 16 for c in range(2)]
        rho = max(math.hypot(*dx), math.hypot(*dy))
        for bias in (0.0, 1.0):
            level = min(max(math.log2(rho) + bias, 0.0), 4.0)
            assert level == int(level)
            out += [level] * 4
    return out


def query_lod():
    """query_lod.comp: OpImageQueryLod's (d_l - level_base, lambda') (Vulkan "LOD Query"): lambda' = log2(rho)
    (no bias), d_l = clamp(lambda', 0, 4) under the linear mipmap mode of the five-level image."""
    out = []
    for i in range(256):
        def uv(k):
            n = k >> 2
            gx, gy = 2 * (n % 8) + (k & 1), 2 * (n // 8) + ((k >> 1) & 1)
            s = 1 << (((gx >> 1) + (gy >> 1)) % 6)
            return ((gx * s + 0.5) / 16.0, (gy * s + 0.5) / 16.0)
        quad = [uv((i & ~3) + k) for k in range(4)]
        q = i & 3
        dx = [(quad[1][c] - quad[0][c] if q < 2 else quad[3][c] - quad[2][c]) * 16 for c in range(2)]
        dy = [(quad[2][c] - quad[0][c] if q % 2 == 0 else quad[3][c] - quad[1][c]) * 16 for c in range(2)]
        lam = math.log2(max(math.hypot(*dx), math.hypot(*dy)))
        out += [min(max(lam, 0.0), 4.0), lam]
    return out


def write_expect(name, data, binding=0):
    path = os.path.join(HERE, name)
    with open(path) as f:
        case = json.load(f)
    case["expect"] = [{"set": 0, "binding": binding, "data": [float(v) for v in data]}]
    text = json.dumps(case, indent=2) + "\n"
    if CHECK:
        with open(path) as f:
            if f.read() != text:
                DIFFERS.append(name)
        return
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    for name in ("quads.json", "quads_hlsl.json"):
        if os.path.exists(os.path.join(HERE, name)):
            write_expect(name, quads())
    write_expect("linear.json", linear())
    write_expect("implicit_lod.json", implicit_lod(), binding=1)
    write_expect("query_lod.json", query_lod(), binding=1)
    for name in DIFFERS:
        print("differs: kernels/derivatives/" + name)
    sys.exit(1 if DIFFERS else 0)
