#!/usr/bin/env python3
"""Writes determinant_inverse.json: four 4x4 integer matrices and their determinants and inverses (of the
matrix, its upper-left 3x3 and 2x2), computed exactly with fractions by Laplace expansion and the adjugate.
Every determinant is a power of two, so each inverse element is exactly a float."""
import json
from fractions import Fraction

# rows of each matrix (row r, column c); the buffer holds them column after column, as GLSL's mat4 does
MATS = [
    [[-1, -1, 1, -1], [-2, -3, -1, -2], [-1, -2, -3, -1], [0, -3, 0, -1]],
    [[0, 2, 2, 3], [1, -2, 1, 3], [1, 1, 3, 3], [3, -3, 3, 2]],
    [[0, -2, -2, -3], [1, -3, -2, 2], [1, -1, -1, -2], [1, 3, 2, 1]],
    [[0, 2, -2, 1], [2, -1, 0, -3], [-2, -1, 1, 2], [0, -3, 2, -2]],
]


def det(m):
    if len(m) == 1:
        return m[0][0]
    return sum((-1) ** j * m[0][j] * det([row[:j] + row[j + 1:] for row in m[1:]]) for j in range(len(m)))


def inverse(m):
    n, d = len(m), det(m)
    minor = lambda r, c: [row[:c] + row[c + 1:] for k, row in enumerate(m) if k != r]
    return [[Fraction((-1) ** (r + c) * det(minor(c, r)), d) for c in range(n)] for r in range(n)]


def columns(m):
    return [float(m[r][c]) for c in range(len(m)) for r in range(len(m))]


data, expect = [], []
for m in MATS:
    data += columns(m)
    m3, m2 = [row[:3] for row in m[:3]], [row[:2] for row in m[:2]]
    out = [float(det(m)), float(det(m3)), float(det(m2)), 0.0]
    out += columns(inverse(m)) + columns(inverse(m3)) + columns(inverse(m2))
    expect += out + [0.0] * (40 - len(out))
case = {
    "description": "GLSL.std.450 Determinant and MatrixInverse on mat4, mat3, mat2 (exact but for the sign of a zero, which the formula decides: integer cofactors, "
                   "power-of-two determinants); expectations from gen_determinant_inverse.py",
    "kernel": "determinant_inverse.comp",
    "bindings": [
        {"set": 0, "binding": 0, "type": "f32", "data": data},
        {"set": 0, "binding": 1, "type": "f32", "count": 160, "fill": {"value": 0}},
    ],
    "expect": [{"set": 0, "binding": 1, "data": expect, "compare": {"ulp": 0}}],
}
with open(__file__.replace("gen_determinant_inverse.py", "determinant_inverse.json"), "w") as f:
    json.dump(case, f, indent=1)
    f.write("\n")
