#!/usr/bin/env python3
"""Writes the 1D, 3D and cube image cases under kernels/images/ with
expectations computed here, independently of wavelab.

Python 3 standard library only (the number helpers, the case format's random
fill and the JSON layout come from tools/gen_kernel_cases.py).  The sampling
reference follows the Vulkan specification, chapter "Textures", in binary64:

* "Cube Map Face Selection": the major axis and the (sc, tc, ma) table; equal
  magnitudes go to z, then y, then x, the order the specification says the
  rules should have;
* "Texel Coordinate Systems": u = s * width (and v, w), i = floor(u) for
  nearest, i0 = floor(u - 0.5) and alpha = frac(u - 0.5) for linear;
* "Wrapping Operation": the address modes per axis; cube maps ignore them
  (nearest: clamp to edge on the face);
* "Cube Map Edge Handling": a linear tap off the face is read from the
  adjacent face.  The reference finds that texel geometrically, by unfolding
  the cube about the shared edge (the texel one step past the edge of face A
  is the texel one step inside face B), not from the specification's table or
  from wavelab's code;
* "Texel Filtering": the weighted sum of the 2, 4 or 8 taps.

Tolerances (the case's "compare"): nearest filtering, fetches and stores are
exact.  A device may quantize each filter weight to subTexelPrecisionBits
(Vulkan's minimum is 4; lavapipe, NVIDIA and AMD report 8), so a weight may
be off by 2^-8 per axis when it truncates; with texels in [0, 1] the result
moves by at most 2^-8 per filtered axis.  The 1D table reads coordinates
whose weights are multiples of 1/64, exact with 6 or more bits, so only
float rounding is left (epsilon 1e-6).

Usage:  python3 tools/gen_image_dims.py [--check]
        (--check: write nothing, exit 1 if a committed case file differs)
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_kernel_cases as g  # noqa: E402  (helpers only: its main() does not run on import)

f32, random_fill = g.f32, g.random_fill

# --------------------------------------------------------------------------
# the reference


def wrap(i, size, mode):
    """The wrapping operation; returns None for a border texel."""
    if mode == "repeat":
        return i % size
    if mode == "mirrored_repeat":
        return (size - 1) - g.mirror((i % (2 * size)) - size)
    if mode == "clamp_to_edge":
        return min(max(i, 0), size - 1)
    if mode == "clamp_to_border":
        return i if 0 <= i < size else None
    if mode == "mirror_clamp_to_edge":
        return min(g.mirror(i), size - 1)
    raise ValueError(mode)


class Volume:
    """An RGBA float image of 1 to 3 dimensions, texels in packed [z][y][x] order."""

    def __init__(self, extent, texels):
        self.extent = list(extent)
        self.texels = texels

    def at(self, idx):
        off = 0
        for a in reversed(range(len(self.extent))):
            off = off * self.extent[a] + idx[a]
        return self.texels[off]


def sample(vol, coord, filt, modes):
    """textureLod(vol, coord, 0) with the given filter and per-axis address modes (normalized coordinates)."""
    axes = len(vol.extent)
    u = [coord[a] * vol.extent[a] for a in range(axes)]
    if filt == "nearest":
        idx = [wrap(math.floor(u[a]), vol.extent[a], modes[a]) for a in range(axes)]
        return vol.at(idx)
    i0 = [math.floor(u[a] - 0.5) for a in range(axes)]
    alpha = [(u[a] - 0.5) - i0[a] for a in range(axes)]
    out = [0.0] * 4
    for corner in range(1 << axes):
        w = 1.0
        idx = []
        for a in range(axes):
            hi = corner >> a & 1
            w *= alpha[a] if hi else 1.0 - alpha[a]
            idx.append(wrap(i0[a] + hi, vol.extent[a], modes[a]))
        t = vol.at(idx)
        out = [out[c] + w * t[c] for c in range(4)]
    return out


# Cube faces in Vulkan's layer order +x, -x, +y, -y, +z, -z: the face normal N and the
# directions U, V in which sc and tc grow (the specification's table: on +x, sc = -rz, tc = -ry).
CUBE_FACES = [((1, 0, 0), (0, 0, -1), (0, -1, 0)), ((-1, 0, 0), (0, 0, 1), (0, -1, 0)),
              ((0, 1, 0), (1, 0, 0), (0, 0, 1)), ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
              ((0, 0, 1), (1, 0, 0), (0, -1, 0)), ((0, 0, -1), (-1, 0, 0), (0, -1, 0))]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def cube_face(d):
    """Face selection: the face and s, t in [0, 1] on it ("Cube Map Face Selection")."""
    ax, ay, az = (abs(c) for c in d)
    if az >= ax and az >= ay:
        face = 4 if d[2] >= 0 else 5
    elif ay >= ax:
        face = 2 if d[1] >= 0 else 3
    else:
        face = 0 if d[0] >= 0 else 1
    n, u, v = CUBE_FACES[face]
    ma = dot(d, n)
    return face, 0.5 * dot(d, u) / ma + 0.5, 0.5 * dot(d, v) / ma + 0.5


def cube_direction(face, s, t, ma=1.0):
    n, u, v = CUBE_FACES[face]
    sc, tc = 2 * s - 1, 2 * t - 1
    return [ma * (n[k] + sc * u[k] + tc * v[k]) for k in range(3)]


def cube_texel(size, face, i, j):
    """(face, i, j) of the texel at (i, j) of `face`, read from the adjacent face when (i, j) is off the
    face: the cube unfolded about the shared edge, so the point d past the edge lies d inside the next face."""
    if 0 <= i < size and 0 <= j < size:
        return face, i, j
    assert (0 <= i < size) or (0 <= j < size), "a corner: see corner_texels"
    n, u, v = CUBE_FACES[face]
    sc, tc = (2 * i + 1) / size - 1, (2 * j + 1) / size - 1
    if i < 0 or i >= size:
        d, edge, along, other = abs(sc) - 1, u if sc > 0 else [-c for c in u], v, tc
    else:
        d, edge, along, other = abs(tc) - 1, v if tc > 0 else [-c for c in v], u, sc
    p = [n[k] * (1 - d) + edge[k] + other * along[k] for k in range(3)]
    f, s, t = cube_face(p)
    return f, math.floor(s * size), math.floor(t * size)


def corner_texels(size, face, i, j):
    """A linear tap off two edges of the face at once points at a corner of the cube, where three texels
    meet: the face's corner texel and its neighbours across the two edges.  lavapipe reads the mean of the
    three (measured: tools/gen_image_dims.py's cube_linear_edges case), as OpenGL's seamless cube maps
    (ARB_seamless_cube_map) suggest; wavelab does the same."""
    ci, cj = min(max(i, 0), size - 1), min(max(j, 0), size - 1)
    return [(face, ci, cj), cube_texel(size, face, i, cj), cube_texel(size, face, ci, j)]


def sample_cube(faces, size, d, filt):
    """textureLod(samplerCube, d, 0): faces[f][j][i] are RGBA texels."""
    face, s, t = cube_face(d)
    u, v = s * size, t * size
    if filt == "nearest":
        i, j = min(max(math.floor(u), 0), size - 1), min(max(math.floor(v), 0), size - 1)
        return faces[face][j][i]
    i0, j0 = math.floor(u - 0.5), math.floor(v - 0.5)
    a, b = (u - 0.5) - i0, (v - 0.5) - j0
    out = [0.0] * 4
    for di, dj, w in ((0, 0, (1 - a) * (1 - b)), (1, 0, a * (1 - b)), (0, 1, (1 - a) * b), (1, 1, a * b)):
        i, j = i0 + di, j0 + dj
        if (0 <= i < size) or (0 <= j < size):
            f, i, j = cube_texel(size, face, i, j)
            t = faces[f][j][i]
        else:
            three = [faces[f][jj][ii] for f, ii, jj in corner_texels(size, face, i, j)]
            t = [sum(x[c] for x in three) / 3 for c in range(4)]
        out = [out[c] + w * t[c] for c in range(4)]
    return out


# --------------------------------------------------------------------------
# case files


def rgba_texels(count, seed):
    flat = random_fill("f32", 4 * count, seed, 0.0, 1.0)
    return [flat[4 * k:4 * k + 4] for k in range(count)]


def flat(texels):
    return [c for t in texels for c in t]


def image(b, kind, dim, extent, data, mip_levels=None, sampler=None, fmt="rgba32f", layers=None):
    d = {"set": 0, "binding": b, "kind": kind, "format": fmt, "dim": dim, "extent": list(extent)}
    if layers:
        d["layers"] = layers
    if mip_levels:
        d["mip_levels"] = mip_levels
    d["data"] = list(data)
    if sampler is not None:
        d["sampler"] = sampler
    return d


def buf(b, data=None, count=None, type_="f32"):
    d = {"set": 0, "binding": b, "type": type_}
    if data is not None:
        d["data"] = list(data)
    else:
        d["count"] = count
        d["fill"] = {"value": 0}
    return d


def sampler(filt, address="clamp_to_edge"):
    return {"mag_filter": filt, "min_filter": filt, "address_mode": address}


def out_expect(b, values, compare):
    return {"set": 0, "binding": b, "data": [f32(x) for x in values], "compare": compare}


def gen_volume_box3d():
    w, h, dep = 8, 8, 4
    def texel(x, y, z):
        return [x + 8 * y + 64 * z, (3 * x + 5 * y + 7 * z) % 11, 0, z]
    src = [texel(x, y, z) for z in range(dep) for y in range(h) for x in range(w)]
    out = []
    for z in range(dep):
        for y in range(h):
            for x in range(w):
                sx = sy = n = 0
                for dz in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        for dx in (-1, 0, 1):
                            q = (x + dx, y + dy, z + dz)
                            if 0 <= q[0] < w and 0 <= q[1] < h and 0 <= q[2] < dep:
                                t = texel(*q)
                                sx, sy, n = sx + t[0], sy + t[1], n + 1
                out += [sx, sy, n, z]
    return {"description": "3D box filter with imageLoad/imageStore on an 8x8x4 volume; the expectation is the "
                           "sums of the in-volume 3x3x3 neighbourhood (tools/gen_image_dims.py)",
            "kernel": "volume_box3d.comp", "groups": [2, 2, 1],
            "bindings": [image(0, "storage_image", "3d", (w, h, dep), flat(src)),
                         image(1, "storage_image", "3d", (w, h, dep), [0.0] * (4 * w * h * dep))],
            "expect": [{"set": 0, "binding": 1, "mip": 0, "layer": 0, "data": out, "compare": "exact"}]}


def gen_volume_slice():
    n = 8   # 8x8x8 at mip 0, 4x4x4 at mip 1
    def texel(x, y, z, m):
        return [x + 10 * y + 100 * z + 1000 * m, 0.5 * x, 0.25 * z - y, m]
    mip0 = [texel(x, y, z, 0) for z in range(n) for y in range(n) for x in range(n)]
    mip1 = [texel(x, y, z, 1) for z in range(n // 2) for y in range(n // 2) for x in range(n // 2)]
    out = []
    for z in range(n):
        for y in range(n):
            for x in range(n):
                a, b = texel(z, x, y, 0), texel(x >> 1, y >> 1, z >> 1, 1)
                out += [2 * a[c] + b[c] for c in range(4)]
    return {"description": "texelFetch from mips 0 and 1 of an 8x8x8 texture3D, imageStore into a 3D storage "
                           "image (dst(x,y,z) = 2 src0(z,x,y) + src1(x/2,y/2,z/2)); textureSize of both levels",
            "kernel": "volume_slice.comp", "groups": [2, 2, 2],
            "bindings": [image(0, "sampled_image", "3d", (n, n, n), flat(mip0 + mip1), mip_levels=2),
                         image(1, "storage_image", "3d", (n, n, n), [0.0] * (4 * n ** 3)),
                         buf(2, count=8, type_="i32")],
            "expect": [{"set": 0, "binding": 1, "mip": 0, "layer": 0, "data": out, "compare": "exact"},
                       {"set": 0, "binding": 2, "data": [n, n, n, 0, n // 2, n // 2, n // 2, 0],
                        "compare": "exact"}]}


def gen_sample3d(filt):
    extent = (5, 4, 3)                         # unequal sides: a swapped axis shows
    modes = ["clamp_to_edge", "repeat", "mirrored_repeat"]
    texels = rgba_texels(extent[0] * extent[1] * extent[2], 9301)
    vol = Volume(extent, texels)
    rnd = random_fill("f32", 3 * 64, 9302 if filt == "linear" else 9303, 0.0, 1.0)
    coords = []
    for k in range(64):
        r = rnd[3 * k:3 * k + 3]
        if filt == "linear":   # anywhere from a texel before the volume to one past it, on every axis
            c = [f32(-1.0 / extent[a] + r[a] * (1.0 + 2.0 / extent[a])) for a in range(3)]
        else:                  # a quarter texel or more from every texel edge, some texels outside the volume
            c = []
            for a in range(3):
                i = math.floor(r[a] * (extent[a] + 2)) - 1
                frac = 0.25 + 0.5 * ((r[a] * 977) % 1.0)
                c.append(f32((i + frac) / extent[a]))
        coords.append(c)
    out = []
    for c in coords:
        out += sample(vol, c, filt, modes)
    if filt == "linear":
        compare = {"epsilon": 0.012}
        why = ("linear, at arbitrary coordinates: a device may round each of the three weights to "
               "subTexelPrecisionBits (8 here), 2^-8 per axis for texels in [0, 1], hence epsilon 0.012 (3 x 2^-8)")
    else:
        compare = "exact"
        why = "nearest, a quarter texel or more from every texel edge: the texel is never in doubt, so exact"
    return {"description": "textureLod of a 5x4x3 rgba32f sampler3D, address modes clamp_to_edge / repeat / "
                           "mirrored_repeat on u / v / w; " + why + " (reference: tools/gen_image_dims.py)",
            "kernel": "sample3d.comp", "groups": [2, 1, 1],
            "bindings": [image(0, "combined_image_sampler", "3d", extent, flat(texels),
                               sampler=dict(sampler(filt), address_mode=modes)),
                         buf(1, [x for c in coords for x in c + [0.0]]),
                         buf(2, count=4 * 64)],
            "expect": [out_expect(2, out, compare)]}


def gen_lut1d():
    n = 16
    texels = rgba_texels(n, 9401)
    vol = Volume((n,), texels)
    out = []
    for i in range(80):
        x = (i - 8) / 64
        out += sample(vol, [x * (n - 1) / n + 0.5 / n], "linear", ["clamp_to_edge"])
        out += sample(vol, [x], "linear", ["clamp_to_edge"])
    return {"description": "a 16-entry rgba32f 1D lookup table (sampler1D, linear, clamp to edge) read at the "
                           "texel-centre remap and at x itself, x = -1/8 .. 71/64; every weight is a multiple of "
                           "1/64 (exact with 6 or more subTexelPrecisionBits), so only float rounding is left: "
                           "epsilon 1e-6 (reference: tools/gen_image_dims.py)",
            "kernel": "lut1d.comp", "groups": [5, 1, 1],
            "bindings": [image(0, "combined_image_sampler", "1d", (n,), flat(texels), sampler=sampler("linear")),
                         buf(1, count=4 * 160)],
            "expect": [out_expect(1, out, {"epsilon": 1e-6})]}


CUBE = 4


def cube_nearest_dirs():
    dirs = []
    for f in range(6):             # face centres, at a length other than 1
        dirs.append(cube_direction(f, 0.5 + 0.3 / CUBE, 0.5 - 0.3 / CUBE, 2.5))
    for a, b in ((0, 1), (0, 2), (1, 2)):     # the 12 edges: two equal magnitudes (ties go to z, then y)
        for sa in (1, -1):
            for sb in (1, -1):
                d = [0.0, 0.0, 0.0]
                d[3 - a - b] = 0.3 if sa == sb else -0.45
                d[a], d[b] = sa * 1.0, sb * 1.0
                dirs.append(d)
    for sx in (1, -1):             # the 8 corners: three equal magnitudes
        for sy in (1, -1):
            for sz in (1, -1):
                dirs.append([sx * 0.75, sy * 0.75, sz * 0.75])
    for a, b in ((0, 1), (0, 2), (1, 2)):     # just off each edge, on either side
        for sa in (1, -1):
            d = [0.2, 0.2, 0.2]
            d[a], d[b] = sa * 1.0, -sa * 0.99
            dirs.append(d)
            d = list(d)
            d[a], d[b] = sa * 0.99, -sa * 1.0
            dirs.append(d)
    rnd = random_fill("f32", 3 * 64, 9501, 0.0, 1.0)
    k = 0
    while len(dirs) < 64:          # inside each face, a quarter texel or more from texel edges
        r = rnd[3 * k:3 * k + 3]
        k += 1
        f = len(dirs) % 6
        s = (math.floor(r[0] * CUBE) + 0.25 + 0.5 * r[1]) / CUBE
        t = (math.floor(r[1] * CUBE) + 0.25 + 0.5 * r[2]) / CUBE
        dirs.append(cube_direction(f, s, t, 0.5 + 3 * r[2]))
    return [[f32(c) for c in d] for d in dirs]


def cube_linear_dirs(edges):
    rnd = random_fill("f32", 3 * 64, 9601 if edges else 9602, 0.0, 1.0)
    dirs = []
    for k in range(64):
        r = rnd[3 * k:3 * k + 3]
        f = k % 6
        if not edges:   # every tap on the face: u - 0.5 in [0, size - 1] on both axes
            s = (0.5 + r[0] * (CUBE - 1)) / CUBE
            t = (0.5 + r[1] * (CUBE - 1)) / CUBE
        elif k % 3 < 2:  # one axis in the outer half texel (taps on the next face), the other well inside
            out = (0.5 * r[0]) / CUBE if k % 4 < 2 else 1 - (0.5 * r[0]) / CUBE
            inside = (1.0 + r[1] * (CUBE - 2)) / CUBE
            s, t = (out, inside) if k % 2 == 0 else (inside, out)
        else:           # both axes in the outer half texel: one tap off two edges, at the cube's corner
            s = (0.5 * r[0]) / CUBE if k % 4 < 2 else 1 - (0.5 * r[0]) / CUBE
            t = (0.5 * r[1]) / CUBE if k % 8 < 4 else 1 - (0.5 * r[1]) / CUBE
        dirs.append([f32(c) for c in cube_direction(f, s, t, 0.5 + 3 * r[2])])
    return dirs


def gen_cube(filt, edges=False):
    if filt == "nearest":          # each texel names itself: face, i, j and face*16 + j*4 + i
        faces = [[[[f, i, j, 16 * f + 4 * j + i] for i in range(CUBE)] for j in range(CUBE)] for f in range(6)]
        dirs = cube_nearest_dirs()
    else:
        rt = rgba_texels(6 * CUBE * CUBE, 9701)
        faces = [[[rt[(f * CUBE + j) * CUBE + i] for i in range(CUBE)] for j in range(CUBE)] for f in range(6)]
        dirs = cube_linear_dirs(edges)
    out = []
    for d in dirs:
        out += sample_cube(faces, CUBE, d, filt)
    texels = [c for f in range(6) for j in range(CUBE) for i in range(CUBE) for c in faces[f][j][i]]
    if filt == "nearest":
        compare = "exact"
        what = ("nearest: face centres, the 12 edges and 8 corners (equal magnitudes: z, then y, then x), "
                "directions just off each edge and inside each face; a texel holds (face, i, j, 16 face + 4 j + i); "
                "exact")
    else:
        compare = {"epsilon": 0.008}
        what = ("linear, " + ("within half a texel of a face edge: taps on the adjacent face (Vulkan's cube map "
                              "edge handling), a third of them at a corner of the cube, where the tap off both "
                              "edges is the mean of the three texels that meet there (lavapipe's choice)"
                              if edges else "every tap inside the face") +
                "; two weights of subTexelPrecisionBits (8 here) move a blend of texels in [0, 1] by at most "
                "2 x 2^-8: epsilon 0.008")
    return {"description": "textureLod(samplerCube, dir, 0) of a 4x4 rgba32f cube map, " + what +
                           " (reference: tools/gen_image_dims.py)",
            "kernel": "cube_dir.comp", "groups": [2, 1, 1],
            "bindings": [image(0, "combined_image_sampler", "cube", (CUBE, CUBE), texels, sampler=sampler(filt)),
                         buf(1, [x for d in dirs for x in d + [0.0]]),
                         buf(2, count=4 * 64)],
            "expect": [out_expect(2, out, compare)]}


def gather_cube(faces, size, d, comp):
    """textureGather(samplerCube, d, comp): the linear footprint's texels in the order (i0, j1), (i1, j1),
    (i1, j0), (i0, j0) ("Texel Gathering"), across edges as linear filtering reads them."""
    face, s, t = cube_face(d)
    i0, j0 = math.floor(s * size - 0.5), math.floor(t * size - 0.5)
    out = []
    for di, dj in ((0, 1), (1, 1), (1, 0), (0, 0)):
        i, j = i0 + di, j0 + dj
        if (0 <= i < size) or (0 <= j < size):
            f, i, j = cube_texel(size, face, i, j)
            out.append(faces[f][j][i][comp])
        else:
            out.append(sum(faces[f][jj][ii][comp] for f, ii, jj in corner_texels(size, face, i, j)) / 3)
    return out


def gen_cube_gather():
    faces = [[[[f, i, j, 16 * f + 4 * j + i] for i in range(CUBE)] for j in range(CUBE)] for f in range(6)]
    dirs = []
    for f in range(6):     # corners of the face (the tap off both edges), each edge, and inside
        for s, t in ((0.05, 0.05), (0.95, 0.03), (0.02, 0.97), (0.9, 0.9), (0.05, 0.5), (0.6, 0.95),
                     (0.97, 0.3), (0.4, 0.06), (0.3, 0.7), (0.55, 0.45)):
            dirs.append([f32(c) for c in cube_direction(f, s, t, 0.5 + 0.25 * f)])
    dirs += cube_nearest_dirs()[:64 - len(dirs)]
    out = []
    for d in dirs:
        out += gather_cube(faces, CUBE, d, 3)
    texels = [c for f in range(6) for j in range(CUBE) for i in range(CUBE) for c in faces[f][j][i]]
    return {"description": "textureGather(samplerCube, dir, 3) of a 4x4 rgba32f cube map whose alpha numbers each "
                           "texel (16 face + 4 j + i): the footprint across face edges (Vulkan's cube map edge "
                           "handling) and at the cube's corners, where the tap off both edges is the mean of the "
                           "three texels that meet there (lavapipe's choice); epsilon 1e-5 for that mean's "
                           "rounding (reference: tools/gen_image_dims.py)",
            "kernel": "cube_gather.comp", "groups": [2, 1, 1],
            "bindings": [image(0, "combined_image_sampler", "cube", (CUBE, CUBE), texels, sampler=sampler("linear")),
                         buf(1, [x for d in dirs for x in d + [0.0]]),
                         buf(2, count=4 * 64)],
            "expect": [out_expect(2, out, {"epsilon": 1e-5})],
            # measured on the H100 with tools/h100_images.sh (docs/hardware.md, "Images on the H100")
            "device_differences": [{"device": "NVIDIA", "reason":
                                    "the H100 returns another value than the mean of the three texels for the 24 "
                                    "taps off two face edges at once (a corner of the cube, where the specification "
                                    "leaves the value to the implementation), e.g. 37.85 where the mean is 38; every "
                                    "other tap agrees (docs/quirks.md, 'Cube edges')"}]}


def array_layer(a, layers):
    """The layer of an array coordinate: round to nearest, ties to even (Python's round), clamped
    ("(u,v,w,a) to (i,j,k,l,n) Transformation and Array Layer Selection")."""
    return min(max(round(a), 0), layers - 1)


def gen_array_sample(dim1):
    extent, layers = ((8,), 4) if dim1 else ((4, 3), 3)
    per_layer = math.prod(extent)
    texels = rgba_texels(per_layer * layers, 9801 if dim1 else 9802)
    vols = [Volume(extent, texels[l * per_layer:(l + 1) * per_layer]) for l in range(layers)]
    rnd = random_fill("f32", 3 * 64, 9803 if dim1 else 9804, 0.0, 1.0)
    # layer coordinates: whole, near whole, the ties (0.5, 1.5, 2.5: to even), below 0 and past the last layer
    layer_coords = [0.0, 1.0, 2.0, 0.25, 0.75, 1.4, 1.6, 0.5, 1.5, 2.5, -0.7, -3.0, 2.45, 5.0, 3.49, 3.5]
    coords = []
    for k in range(64):
        r = rnd[3 * k:3 * k + 3]
        st = [f32(-0.5 / extent[a] + r[a] * (1.0 + 1.0 / extent[a])) for a in range(len(extent))]
        coords.append(st + [0.0] * (2 - len(st)) + [f32(layer_coords[k % len(layer_coords)])])
    out = []
    for c in coords:
        out += sample(vols[array_layer(c[2], layers)], c[:len(extent)], "linear", ["clamp_to_edge"] * len(extent))
    name = "sampler1DArray 8 wide, 4 layers" if dim1 else "sampler2DArray 4x3, 3 layers"
    case = {"description": "textureLod of a " + name + " (rgba32f, linear, clamp to edge) at layer coordinates "
                           "whole, fractional, on the ties .5 (to even) and outside the layers (clamped); "
                           "epsilon %s: %s filtered axes of 2^-8 (reference: tools/gen_image_dims.py)"
                           % ("0.004" if dim1 else "0.008", "one" if dim1 else "two"),
            "kernel": "array_sample.comp"}
    if dim1:
        case["defines"] = {"DIM1": "1"}
    case.update({"groups": [2, 1, 1],
                 "bindings": [image(0, "combined_image_sampler", "1d" if dim1 else "2d", extent, flat(texels),
                                    sampler=sampler("linear"), layers=layers),
                              buf(1, [x for c in coords for x in c + [0.0]]),
                              buf(2, count=4 * 64)],
                 "expect": [out_expect(2, out, {"epsilon": 0.004 if dim1 else 0.008})]})
    return case


def gen_array_reverse():
    w, h, layers = 8, 4, 3
    def texel(x, y, l):
        return [x + 8 * y, y - x, 100 * l, 0.5 * l]
    src = [texel(x, y, l) for l in range(layers) for y in range(h) for x in range(w)]
    expects = []
    for lo in range(layers):
        l = layers - 1 - lo      # dst layer lo comes from src layer l
        data = []
        for y in range(h):
            for x in range(w):
                data += [2 * v + o for v, o in zip(texel(x, y, l), (x, y, l, 1))]
        expects.append({"set": 0, "binding": 1, "mip": 0, "layer": lo, "data": data, "compare": "exact"})
    return {"description": "image2DArray: imageLoad of each layer, imageStore into the mirrored layer "
                           "(reference: tools/gen_image_dims.py)",
            "kernel": "array_reverse.comp", "groups": [2, 1, layers],
            "bindings": [image(0, "storage_image", "2d", (w, h), flat(src), layers=layers),
                         image(1, "storage_image", "2d", (w, h), [0.0] * (4 * w * h * layers), layers=layers)],
            "expect": expects}


def gen_cube_array():
    cubes = 2
    rt = rgba_texels(cubes * 6 * CUBE * CUBE, 9901)
    per_cube = [[[[rt[((n * 6 + f) * CUBE + j) * CUBE + i] for i in range(CUBE)] for j in range(CUBE)]
                 for f in range(6)] for n in range(cubes)]
    cube_coords = [0.0, 1.0, 0.4, 0.6, 0.5, 1.5, -1.0, 3.0]     # .5 -> 0 and 1.5 -> 2 -> clamped to 1 (ties to even)
    dirs = [d + [f32(cube_coords[k % len(cube_coords)])]
            for k, d in enumerate(cube_linear_dirs(False)[:32] + cube_linear_dirs(True)[:32])]
    out = []
    for d in dirs:
        out += sample_cube(per_cube[array_layer(d[3], cubes)], CUBE, d[:3], "linear")
    texels = [c for n in range(cubes) for f in range(6) for j in range(CUBE) for i in range(CUBE)
              for c in per_cube[n][f][j][i]]
    return {"description": "textureLod(samplerCubeArray, vec4(dir, cube), 0) of two 4x4 rgba32f cubes (12 layers), "
                           "linear: directions inside faces and near edges and corners, cube coordinates whole, "
                           "fractional, on ties (to even) and outside (clamped); epsilon 0.008 as cube_linear.json "
                           "(reference: tools/gen_image_dims.py)",
            "kernel": "cube_array.comp", "groups": [2, 1, 1],
            "bindings": [image(0, "combined_image_sampler", "cube", (CUBE, CUBE), texels, sampler=sampler("linear"),
                               layers=6 * cubes),
                         buf(1, [x for d in dirs for x in d]),
                         buf(2, count=4 * 64)],
            "expect": [out_expect(2, out, {"epsilon": 0.008})]}


CASES = [
    ("volume_box3d.json", gen_volume_box3d),
    ("volume_slice.json", gen_volume_slice),
    ("sample3d_linear.json", lambda: gen_sample3d("linear")),
    ("sample3d_nearest.json", lambda: gen_sample3d("nearest")),
    ("lut1d_linear.json", gen_lut1d),
    ("cube_nearest.json", lambda: gen_cube("nearest")),
    ("cube_linear.json", lambda: gen_cube("linear")),
    ("cube_linear_edges.json", lambda: gen_cube("linear", edges=True)),
    ("cube_gather.json", gen_cube_gather),
    ("array1d_linear.json", lambda: gen_array_sample(True)),
    ("array2d_linear.json", lambda: gen_array_sample(False)),
    ("array_reverse.json", gen_array_reverse),
    ("cube_array.json", gen_cube_array),
]


def main():
    g.CHECK = "--check" in sys.argv  # gen_kernel_cases.write_case writes, or compares with --check
    for name, make in CASES:
        g.write_case("images/" + name, make())
    print("%d case files %s" % (len(CASES), "checked" if g.CHECK else "written"))
    sys.exit(1 if g.CHECK_FAILED else 0)


if __name__ == "__main__":
    main()
