"""The multisampled-image cases of kernels/images/ (ms_resolve, ms_coverage, ms_load_hlsl) and
the 64-bit image atomics one (atomic64), their expectations computed here from
what the kernels mean, not from wavelab's output.  A multisampled image's
"data" lists each layer's samples as planes, one after another
(docs/case-format.md).  Called by
tools/gen_kernel_cases.py, whose helpers (write_case, binding, expect) it takes
as `g`."""
FOLDER = "images"

from gen_descriptor_cases import write_in  # noqa: E402 (one case writer for the generators)


def write(g, name, *args, **kwargs):
    """kernels/images/NAME.json."""
    write_in(g, FOLDER, name, *args, **kwargs)


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
    write(g, "ms_resolve", "a compute resolve of a multisampled array image (2 layers, 4 samples: imageLoad with a "
          "sample index, imageSamples) and the samples of layer 1 stored in reverse order into another "
          "multisampled image; expectations: tools/gen_image_ms_int64_cases.py", "ms_resolve.comp",
          [ms_binding(0, "storage_image", "rgba32f", (w, h), n, flat, layers=layers),
           {"set": 0, "binding": 1, "kind": "storage_image", "format": "rgba32f", "dim": "2d",
            "extent": [w, h], "layers": layers, "fill": {"value": 0}},
           ms_binding(2, "storage_image", "rgba32f", (w, h), n, None)],
          [plane_expect(1, resolved[l], layer=l) for l in range(layers)] +
          [plane_expect(2, reversed_planes[s], sample=s) for s in range(n)])


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
    write(g, "ms_coverage", "per-sample image atomics (add, max) on multisampled r32ui images of 8 samples, and "
          "per-sample texelFetch of a multisampled sampled image (textureSamples); expectations: "
          "tools/gen_image_ms_int64_cases.py", "ms_coverage.comp",
          [ms_binding(0, "storage_image", "r32ui", (4, 4), n, init_sums),
           ms_binding(1, "storage_image", "r32ui", (4, 4), n, None),
           ms_binding(2, "combined_image_sampler", "r32ui", (8, 8), tn, [v for s in tex for row in s for v in row]),
           g.binding(3, "u32", count=66, fill={"value": 0})],
          [plane_expect(0, [v for row in sums[s] for v in row], sample=s) for s in range(n)] +
          [plane_expect(1, [v for row in largest[s] for v in row], sample=s) for s in range(n)] +
          [g.expect(3, fetched + [n, tn])])


def ms_load_hlsl(g):
    """ms_load.hlsl: Texture2DMS<float4, 4> of 4x2 texels; per thread the sum of the four samples, and
    GetDimensions' width, height and samples packed into w (samples * 100 + width * 10 + height)."""
    w, h, n = 4, 2, 4
    texel = lambda x, y, s: [x * 0.5 + s, y * 0.25 - s, (x + y) * s, 1.0 + s * 0.125]
    data = [c for s in range(n) for y in range(h) for x in range(w) for c in texel(x, y, s)]
    out = []
    for y in range(h):
        for x in range(w):
            sums = [sum(texel(x, y, s)[c] for s in range(n)) for c in range(4)]
            sums[3] += n * 100 + w * 10 + h
            out += sums
    write(g, "ms_load_hlsl", "HLSL Texture2DMS<float4, 4>: Load(p, s) of every sample and GetDimensions with the "
          "sample count; expectations: tools/gen_image_ms_int64_cases.py", "ms_load.hlsl",
          [ms_binding(0, "sampled_image", "rgba32f", (w, h), n, data),
           g.binding(1, "f32", count=w * h * 4, fill={"value": 0})],
          [g.expect(1, out)], language="hlsl", entry="main")


def wrap64(v, signed):
    """v as a 64-bit two's-complement integer (signed or not)."""
    v &= (1 << 64) - 1
    return v - (1 << 64) if signed and v >= 1 << 63 else v


def exact(values):
    """64-bit integers for JSON: past 2^53 as decimal strings (the case format reads them exactly so)."""
    return [v if abs(v) <= 2 ** 53 else str(v) for v in values]


def atomic64(g):
    """atomic64.comp: 128 invocations; imageAtomicMin of (depth << 32 | id) on a 4x4 r64ui image, and the signed
    r64i operations on a 128x8 image (row = the operation)."""
    n = 128
    vis = [2 ** 64 - 1] * 16
    w, h = 128, 8
    acc = [[wrap64(-((x + 1) << 40) + (y << 33) + x * 977 + y, True) for x in range(w)] for y in range(h)]
    init = [v for row in acc for v in row]
    old = [[0, 0, 0] for _ in range(n)]
    for i in range(n):
        px = (i % 4) + 4 * ((i // 4) % 4)
        depth = ((i * 2654435761) % 2 ** 32) >> 8
        vis[px] = min(vis[px], (depth << 32) | i)
        op = i % 7
        x = i % 8
        big = wrap64((i << 36) - 0x0123456789, True)
        if op == 0:
            acc[0][x] = wrap64(acc[0][x] + big, True)
        elif op == 1:
            acc[1][x] = max(acc[1][x], wrap64(-big, True))
        elif op == 2:
            acc[2][x] = min(acc[2][x], big)
        elif op == 3:
            acc[3][x] = wrap64(acc[3][x] & ~(1 << (i % 64)), True)
        elif op == 4:
            acc[4][x] = wrap64(acc[4][x] | (1 << (32 + i % 31)), True)
        elif op == 5:
            acc[5][x] = wrap64(acc[5][x] ^ big, True)
        else:
            old[i][0] = acc[6][i]
            acc[6][i] = big
            old[i][1] = big
            acc[6][i] = wrap64(big + 1, True)
            old[i][2] = acc[7][i]  # never 12345: kept
    write(g, "atomic64", "64-bit image atomics (GL_EXT_shader_image_int64): a visibility buffer kept by "
          "imageAtomicMin of packed (depth, id) keys on r64ui, and add, max, min, and, or, xor, exchange and "
          "compare-exchange on r64i values past 32 bits; expectations: tools/gen_image_ms_int64_cases.py",
          "atomic64.comp",
          [{"set": 0, "binding": 0, "kind": "storage_image", "format": "r64ui", "dim": "2d", "extent": [4, 4],
            "fill": {"value": str(2 ** 64 - 1)}},
           {"set": 0, "binding": 1, "kind": "storage_image", "format": "r64i", "dim": "2d", "extent": [w, h],
            "data": exact(init)},
           g.binding(2, "i64", count=3 * n, fill={"value": 0})],
          [{"set": 0, "binding": 0, "data": exact(vis), "compare": "exact"},
           {"set": 0, "binding": 1, "data": exact([v for row in acc for v in row]), "compare": "exact"},
           g.expect(2, exact([v for o3 in old for v in o3]))], groups=(2, 1, 1))


def generate(g):
    ms_resolve(g)
    ms_coverage(g)
    ms_load_hlsl(g)
    atomic64(g)
