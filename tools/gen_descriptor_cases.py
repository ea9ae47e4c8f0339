"""The cases of kernels/descriptors/ (descriptor arrays), their expectations
computed here from what the kernels mean, not from wavelab's output.  Called
by tools/gen_kernel_cases.py, whose helpers (write_case, random_fill, f32
arithmetic) it takes as `g`."""
FOLDER = "descriptors"


def elements(bindings):
    """The bindings as the elements of one descriptor array: each gets its index in the list as its "element"."""
    for e, b in enumerate(bindings):
        b["element"] = e
    return bindings


def write_in(g, folder, name, description, kernel, bindings, expect, groups=(1, 1, 1), **extra):
    """kernels/FOLDER/NAME.json: the fields in the order the case format lists them."""
    case = {"description": description, "kernel": kernel}
    case.update(extra)
    case.update({"groups": list(groups), "bindings": bindings, "expect": expect})
    g.write_case(folder + "/" + name + ".json", case)


def write(g, name, *args, **kwargs):
    """kernels/descriptors/NAME.json."""
    write_in(g, FOLDER, name, *args, **kwargs)


def buffer_array(g):
    """kernels/descriptors/buffer_array.comp: three storage buffers as one array, plus a runtime-length query."""
    n = 64
    src = [[(i * 7 + 3 * e) % 11 for i in range(n + e)] for e in range(3)]
    out = [src[0][i] + 10 * src[1][i] + 100 * src[2][i] + 1000 * len(src[2]) for i in range(n)]
    write(g, "buffer_array", "three storage buffers as the elements of one descriptor array, indexed by constants",
          "buffer_array.comp", elements([g.binding(0, "u32", data=d) for d in src]) +
          [g.binding(1, "u32", count=n, fill={"value": 0})], [g.expect(1, out)])


def sampler_array(g):
    """kernels/descriptors/sampler_array.comp: two textures and two samplers, each an array, combined by constants."""
    w = h = 4
    tex = [[float(e * 100 + y * w + x) for y in range(h) for x in range(w)] for e in range(2)]
    # element 0 clamps to the edge, element 1 repeats: both nearest
    samplers = [{"set": 0, "binding": 1, "kind": "sampler",
                 "sampler": {"mag_filter": "nearest", "min_filter": "nearest", "address_mode": mode}}
                for mode in ("clamp_to_edge", "repeat")]
    n = 64
    out = []
    for i in range(n):
        # texel coordinates -2 .. 5 on both axes, sampled at texel centres
        x, y = i % 8 - 2, i // 8 - 2
        clamp = lambda v: min(max(v, 0), w - 1)
        out.append(tex[0][clamp(y) * w + clamp(x)] + 1000.0 * tex[1][(y % h) * w + (x % w)])
    write(g, "sampler_array", "two textures and two samplers, each a descriptor array, paired by constant indices",
          "sampler_array.comp",
          elements([g.image_binding_packed(0, "sampled_image", "r32_sfloat", (w, h), t) for t in tex]) +
          elements(samplers) + [g.binding(2, "f32", count=n, fill={"value": 0})], [g.expect(2, out)])


def texture_array_hlsl(g):
    """kernels/descriptors/texture_array.hlsl: Texture2D tex[2] read by Load at every texel of a 4x4."""
    tex = [[float(e * 100 + i) for i in range(16)] for e in range(2)]
    write(g, "texture_array_hlsl", "two textures as one descriptor array in HLSL (t0), the output at u2",
          "texture_array.hlsl",
          elements([g.image_binding_packed(0, "sampled_image", "r32f", (4, 4), t) for t in tex]) +
          [g.binding(2, "f32", count=16, fill={"value": 0})],
          [g.expect(2, [tex[0][i] + 1000.0 * tex[1][i] for i in range(16)])])


def layer_views(g, name, layers, defines=None):
    """kernels/descriptors/layer_views.comp: a 4x4 r32ui image of `layers` layers bound as uimage2D layer[LAYERS]:
    the output is the sum of layer l's texel times 11^l (mod 2^32), written to the output and to the last layer."""
    texels = [[(x * 3 + y * 5 + l) % 7 for y in range(4) for x in range(4)] for l in range(layers)]
    out = [sum(texels[l][i] * 11 ** l for l in range(layers)) & g.MASK32 for i in range(16)]
    img = {"set": 0, "binding": 0, "kind": "storage_image", "format": "r32ui", "dim": "2d", "extent": [4, 4],
           "layers": layers, "mip_levels": 1, "views": "layers", "data": [t for layer in texels for t in layer]}
    expects = [{"set": 0, "binding": 0, "mip": 0, "layer": l, "data": texels[l] if l < layers - 1 else out,
                "compare": "exact"} for l in range(layers)]
    extra = {"defines": defines} if defines else {}
    write(g, name, "one image of %d layers as %d descriptors, a view of one layer each" % (layers, layers),
          "layer_views.comp", [img, g.binding(1, "u32", count=16, fill={"value": 0})], expects + [g.expect(1, out)],
          **extra)


def spec_index(g):
    """kernels/descriptors/spec_index.comp: the element picked by a specialization constant WHICH = 1."""
    src = [[1, 2, 3, 4], [5, 6, 7, 8]]
    which = 1
    out = [src[which][i] + 10 * src[which ^ 1][i] for i in range(4)]
    write(g, "spec_index", "a descriptor array indexed by a specialization constant and an expression of it",
          "spec_index.comp", elements([g.binding(0, "u32", data=d) for d in src]) +
          [g.binding(1, "u32", count=4, fill={"value": 0})], [g.expect(1, out)], specialization={"0": which})


def avg4(g, a00, a10, a01, a11):
    """((a00 + a10) + (a01 + a11)) * 0.25 in f32, each operation rounded as the kernel's."""
    return g.mul32(g.add32(g.add32(a00, a10), g.add32(a01, a11)), 0.25)


def next_level(g, prev, pw, ph):
    """The 2x2 box filter of downsample.comp's LEVEL: an odd edge repeats its last texel."""
    w, h = max(1, pw // 2), max(1, ph // 2)
    out = []
    for y in range(h):
        for x in range(w):
            x0, y0 = 2 * x, 2 * y
            x1, y1 = min(x0 + 1, pw - 1), min(y0 + 1, ph - 1)
            out.append(avg4(g, prev[y0 * pw + x0], prev[y0 * pw + x1], prev[y1 * pw + x0], prev[y1 * pw + x1]))
    return out, w, h


def downsample(g, name, width, height, levels, fill, source):
    """kernels/descriptors/downsample.comp on a width x height source: every level of the chain, by the box filter
    (in the tile steps the same sums in the same order, see the kernel)."""
    chain, w, h = [], width, height
    cur = source
    for _ in range(levels):
        cur, w, h = next_level(g, cur, w, h)
        chain.append(cur)
    src = {"set": 0, "binding": 0, "kind": "storage_image", "format": "r32f", "dim": "2d",
           "extent": [width, height], "layers": 1, "mip_levels": 1, "fill": fill}
    dst = {"set": 0, "binding": 1, "kind": "storage_image", "format": "r32f", "dim": "2d",
           "extent": [width // 2, height // 2], "layers": 1, "mip_levels": levels, "views": "mips",
           "fill": {"value": 0}}
    expects = [{"set": 0, "binding": 1, "mip": k, "layer": 0, "data": chain[k], "compare": "exact"}
               for k in range(levels)]
    write(g, name, "a single-pass %d-level mip chain of a %dx%d source: one dispatch, an array of %d mip views"
          % (levels, width, height, levels), "downsample.comp", [src, dst, g.binding(2, "u32", data=[0])],
          expects + [g.expect(2, [(width // 64) * (height // 64)])], groups=(width // 64, height // 64, 1),
          defines={"LEVELS": str(levels)})


def generate(g):
    buffer_array(g)
    sampler_array(g)
    spec_index(g)
    texture_array_hlsl(g)
    layer_views(g, "layer_views", 3)
    # more layers than the 32 views the Vulkan backend once held in a fixed array
    layer_views(g, "layer_views_40", 40, {"LAYERS": "40"})
    seed = 2511
    downsample(g, "downsample_7_levels", 128, 128, 7, {"random": {"seed": seed, "min": 0, "max": 1}},
               g.random_fill("f32", 128 * 128, seed, 0, 1))
    # 12 levels; the source value at (x, y) is y * 4096 + x (an iota fill), exact in f32
    downsample(g, "downsample_12_levels", 4096, 64, 12, {"iota": {"start": 0, "step": 1}},
               [float(i) for i in range(4096 * 64)])
