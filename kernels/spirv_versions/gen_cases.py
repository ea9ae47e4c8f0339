#!/usr/bin/env python3
"""Writes the case files of kernels/spirv_versions/ with expectations computed
here, from what versions.comp means in GLSL (not from wavelab's output)."""
import json
import os

GROUPS, SIZE = 3, 64
v = [(i * 37 + 11) % 1000 for i in range(GROUPS * SIZE)]
out = []
for i, x in enumerate(v):
    g, l = divmod(i, SIZE)
    neighbour = v[g * SIZE + SIZE - 1 - l]   # tile[63 - l] after the barrier
    out.append(x * 1 if x & 1 else neighbour * 2)

here = os.path.dirname(os.path.abspath(__file__))
for name, spv in (("versions_spv15", "versions_spv15.spv"), ("versions_spv16", "versions_spv16.spv"),
                  ("versions_glsl_vulkan13", None)):
    case = {
        "description": "versions.comp as " + (spv or "GLSL compiled in process for target_env vulkan1.3 (SPIR-V 1.6)"),
        "kernel": spv or "versions.comp",
        "groups": [GROUPS, 1, 1],
        "bindings": [
            {"set": 0, "binding": 0, "type": "u32", "data": v},
            {"set": 0, "binding": 1, "type": "u32", "count": len(v), "fill": {"value": 0}},
            {"set": 0, "binding": 2, "type": "u32", "data": [0]},
        ],
        "expect": [
            {"set": 0, "binding": 1, "data": out},
            {"set": 0, "binding": 2, "data": [sum(v)]},
        ],
    }
    if not spv:
        case["target_env"] = "vulkan1.3"
    with open(os.path.join(here, name + ".json"), "w") as f:
        json.dump(case, f, indent=1)
        f.write("\n")
