"""The multisampled-image cases of kernels/images/ (ms_resolve, ms_coverage),
their expectations computed here from what the kernels mean, not from
wavelab's output.  A multisampled image's "data" lists each layer's samples
as planes, one after another (docs/case-format.md).  Called by
tools/gen_kernel_cases.py, whose helpers (write_case, binding, expect) it takes
as `g`."""
FOLDER = "images"


def ms_binding(b, kind, fmt, extent, samples, data, layers=1):
    d = {"set": 0, "binding": b, "kind": kind, "format": fmt, "dim": "2d", "extent": list(extent),
         "layers": layers, "samples": samples}
    if data is None:
        d["fill"] = {"value": 0}
    else:
        d["data"] = list(data)
    if kind == "combined_image_sampler":
        d["sampler"] = {}
    return d


def plane_expect(b, data, layer=0, sample=0):
    return {"set": 0, "binding": b, "layer": layer, "sample": sample, "data": list(data), "compare": "exact"}


def ms_resolve(g):
    """ms_resolve.comp: an 8x4 rgba32f image of 2 layers and 4 samples, resolved per layer; layer 1's samples
    copied in reverse order.  Values are multiples of 1/64 below 64: every sum and mean is exact in float32."""
    w, h, layers, n = 8, 4, 2, 4
    def value(x, y, layer, s, c):
        return ((x * 7 + y * 13 + layer * 29 + s * 41 + c * 3) % 97) / 64.0 + 0.5 * c
    src = [[[[[value(x, y, l, s, c) for c in range(4)] for x in range(w)] for y in range(h)] for s in range(n)]
           for l in range(layers)]
    flat = [v for l in src for s in l for row in s for texel in row for v in texel]
    resolved = []
    for l in range(layers):
        plane = []
        for y in range(h):
            for x in range(w):
                plane += [sum(src[l][s][y][x][c] for s in range(n)) / n for c in range(4)]
        resolved.append(plane)
    reversed_planes = [[v for row in src[1][n - 1 - s] for texel in row for v in texel] for s in range(n)]
    g.write_case(FOLDER + "/ms_resolve.json", {
        "description": "a compute resolve of a multisampled array image (2 layers, 4 samples: imageLoad with a "
                       "sample index, imageSamples) and the samples of layer 1 stored in reverse order into another "
                       "multisampled image; expectations: tools/gen_multisample_cases.py",
        "kernel": "ms_resolve.comp",
        "groups": [1, 1, 1],
        "bindings": [ms_binding(0, "storage_image", "rgba32f", (w, h), n, flat, layers=layers),
                     {"set": 0, "binding": 1, "kind": "storage_image", "format": "rgba32f", "dim": "2d",
                      "extent": [w, h], "layers": layers, "fill": {"value": 0}},
                     ms_binding(2, "storage_image", "rgba32f", (w, h), n, None)],
        "expect": [dict(plane_expect(1, resolved[l], layer=l), sample=0) for l in range(layers)] +
                  [plane_expect(2, reversed_planes[s], sample=s) for s in range(n)]})


def ms_coverage(g):
    """ms_coverage.comp: per-sample atomics on 4x4 images of 8 samples from an 8x8 workgroup; per-sample fetches
    of an 8x8 image of 2 samples."""
    n, tn = 8, 2
    sums = [[[s * 1000 + y * 4 + x for x in range(4)] for y in range(4)] for s in range(n)]
    largest = [[[0] * 4 for _ in range(4)] for _ in range(n)]
    tex = [[[(s + 1) * 10000 + y * 8 + x for x in range(8)] for y in range(8)] for s in range(tn)]
    init_sums = [v for s in sums for row in s for v in row]
    fetched = []
    for i in range(64):
        x, y = i % 8, i // 8
        s = (x + y) % n
        sums[s][y // 2][x // 2] += x + 1
        largest[s][y // 2][x // 2] = max(largest[s][y // 2][x // 2], i)
        fetched.append(tex[i % tn][y][x])
    g.write_case(FOLDER + "/ms_coverage.json", {
        "description": "per-sample image atomics (add, max) on multisampled r32ui images of 8 samples, and per-sample "
                       "texelFetch of a multisampled sampled image (textureSamples); expectations: "
                       "tools/gen_multisample_cases.py",
        "kernel": "ms_coverage.comp",
        "groups": [1, 1, 1],
        "bindings": [ms_binding(0, "storage_image", "r32ui", (4, 4), n, init_sums),
                     ms_binding(1, "storage_image", "r32ui", (4, 4), n, None),
                     ms_binding(2, "combined_image_sampler", "r32ui", (8, 8), tn,
                                [v for s in tex for row in s for v in row]),
                     g.binding(3, "u32", count=66, fill={"value": 0})],
        "expect": [plane_expect(0, [v for row in sums[s] for v in row], sample=s) for s in range(n)] +
                  [plane_expect(1, [v for row in largest[s] for v in row], sample=s) for s in range(n)] +
                  [g.expect(3, fetched + [n, tn])]})


def generate(g):
    ms_resolve(g)
    ms_coverage(g)
