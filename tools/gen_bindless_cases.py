"""The cases of kernels/bindless/ (descriptor arrays indexed by values known only
when the kernel runs: dynamically uniform, and per lane with NonUniform), their
expectations computed here from what the kernels mean, not from wavelab's
output.  Called by tools/gen_kernel_cases.py, whose helpers (write_case,
binding, expect, image_binding_packed) it takes as `g`."""
FOLDER = "bindless"

from gen_descriptor_cases import elements, write_in  # noqa: E402 (one writer for both folders)


def push(pick):
    return {"type": "u32", "data": [pick]}


def write(g, name, *args, **kwargs):
    """kernels/bindless/NAME.json."""
    write_in(g, FOLDER, name, *args, **kwargs)


def buffer_index(g):
    """buffer_index.comp: src[pick] (uniform), src[k] per lane, src[pick]'s length, dst[i & 1] per lane."""
    pick, groups = 2, 2
    total = 64 * groups
    src = [[(e * 37 + i * 11) % 97 for i in range(total + 16 * e)] for e in range(4)]
    dst = [[0] * (total // 2) for _ in range(2)]
    for i in range(total):
        k = (i * 7 // 3) % 4
        dst[i & 1][i >> 1] = (src[pick][i] + 1000 * src[k][i] + 1000000 * len(src[pick])) % 2**32
    write(g, "buffer_index", "storage buffers picked at run time: by a push constant, per lane (nonuniformEXT), "
          "the length of a picked element, stores to a buffer picked per lane", "buffer_index.comp",
          elements([g.binding(0, "u32", data=d) for d in src]) +
          elements([g.binding(1, "u32", count=total // 2, fill={"value": 0}) for _ in range(2)]),
          [dict(g.expect(1, d), element=e) for e, d in enumerate(dst)], groups=(groups, 1, 1),
          push_constants=push(pick))


MODES = ("clamp_to_edge", "repeat", "mirrored_repeat")


def address(mode, n, size):
    """Texel n of a texture `size` wide under an address mode (the Vulkan specification's formulas)."""
    if mode == "clamp_to_edge":
        return min(max(n, 0), size - 1)
    if mode == "repeat":
        return n % size
    mirror = lambda v: v if v >= 0 else -(1 + v)
    return (size - 1) - mirror((n % (2 * size)) - size)


def texture_index(g):
    """texture_index.comp: combined samplers tex[3] per lane, each its own address mode; plain[pick] clamped."""
    w = h = 4
    pick = 1
    tex = [[float(e * 100 + y * w + x) for y in range(h) for x in range(w)] for e in range(3)]
    plain = [[float(1000 * (e + 1) + y * w + x) for y in range(h) for x in range(w)] for e in range(2)]
    sampler = lambda mode: {"mag_filter": "nearest", "min_filter": "nearest", "address_mode": mode}
    out = []
    for i in range(64):
        k = i % 3
        px, py = i % 4, (i // 4) % 4
        x, y = i % 8 - 2, i // 8 - 2
        a = tex[k][py * w + px]
        b = tex[k][address(MODES[k], y, h) * w + address(MODES[k], x, w)]
        d = plain[pick][address("clamp_to_edge", y, h) * w + address("clamp_to_edge", x, w)]
        out.append(a + 10.0 * b + 100.0 * d)
    write(g, "texture_index", "combined image samplers picked per lane (each brings its own sampler) and textures "
          "picked by a push constant", "texture_index.comp",
          elements([g.image_binding_packed(0, "combined_image_sampler", "r32_sfloat", (w, h), t,
                                           sampler=sampler(MODES[e])) for e, t in enumerate(tex)]) +
          elements([g.image_binding_packed(1, "sampled_image", "r32_sfloat", (w, h), t) for t in plain]) +
          [{"set": 0, "binding": 2, "kind": "sampler", "sampler": sampler("clamp_to_edge")},
           g.binding(3, "f32", count=64, fill={"value": 0})],
          [g.expect(3, out)], push_constants=push(pick))


def image_index(g):
    """image_index.comp: per lane, image (x + y) % 3 loaded, stored, and its size asked; an atomic on img[pick]."""
    pick = 2
    imgs, sizes = [], []
    for e in range(3):
        w, h = 8 + 2 * e, 8
        sizes.append((w, h))
        imgs.append([(x * 3 + y * 5 + e * 7) % 11 for y in range(h) for x in range(w)])
    final = [list(t) for t in imgs]
    out = [0] * 64
    for y in range(8):
        for x in range(8):
            k = (x + y) % 3
            w = sizes[k][0]
            before = imgs[k][y * w + x]
            final[k][y * w + x] = before * 2 + k
            out[y * 8 + x] = before + 1000 * (sizes[k][0] * 100 + sizes[k][1])
    final[pick][3 * sizes[pick][0] + 9] += 64
    bindings = []
    for e in range(3):
        b = g.image_binding_packed(0, "storage_image", "r32ui", sizes[e], imgs[e])
        bindings.append(b)
    expects = [{"set": 0, "binding": 0, "element": e, "mip": 0, "layer": 0, "data": final[e], "compare": "exact"}
               for e in range(3)]
    write(g, "image_index", "storage images picked per lane (load, store, size) and by a push constant (atomic)",
          "image_index.comp", elements(bindings) + [g.binding(1, "u32", count=64, fill={"value": 0})],
          expects + [g.expect(1, out)], push_constants=push(pick))


def sampler_index(g):
    """sampler_index.comp: separate samplers smp[3] (one address mode each) picked per lane beside one texture and
    beside tex[i & 1], and smp[pick + 1] beside tex[pick]; nearest filtering, texels -2..5 of 4x4 textures."""
    w = h = 4
    pick = 1
    tex = [[float(e * 100 + y * w + x) for y in range(h) for x in range(w)] for e in range(2)]
    single = [float(1000 + y * w + x) for y in range(h) for x in range(w)]
    sampler = lambda mode: {"mag_filter": "nearest", "min_filter": "nearest", "address_mode": mode}
    at = lambda texels, mode, x, y: texels[address(mode, y, h) * w + address(mode, x, w)]
    out = []
    for i in range(64):
        k = i % 3
        x, y = i % 8 - 2, i // 8 - 2
        a = at(single, MODES[k], x, y)
        b = at(tex[i & 1], MODES[k], x, y)
        d = at(tex[pick], MODES[pick + 1], x, y)
        out.append(a + 10.0 * b + 100.0 * d)
    write(g, "sampler_index", "separate samplers picked at run time: per lane beside one texture, per lane beside a "
          "texture picked per lane (a waterfall over distinct pairs), by a push constant beside a texture picked so",
          "sampler_index.comp",
          elements([g.image_binding_packed(0, "sampled_image", "r32_sfloat", (w, h), t) for t in tex]) +
          elements([{"set": 0, "binding": 1, "kind": "sampler", "sampler": sampler(m)} for m in MODES]) +
          [g.image_binding_packed(2, "sampled_image", "r32_sfloat", (w, h), single),
           g.binding(3, "f32", count=64, fill={"value": 0})],
          [g.expect(3, out)], push_constants=push(pick))


def texel_index(g):
    """texel_index.comp: uniform texel buffers src[i % 3] per lane, the storage texel buffer dst[pick] written."""
    pick = 1
    src = [[(e * 13 + i * 5) % 23 for i in range(32 + 4 * e)] for e in range(3)]
    dst = [[0] * 32 for _ in range(2)]
    for i in range(32):
        k = i % 3
        dst[pick][i] = src[k][i] * 3 + len(src[k])
    write(g, "texel_index", "uniform texel buffers picked per lane, a storage texel buffer picked by a push constant",
          "texel_index.comp",
          elements([g.binding(0, "u32", data=d, kind="uniform_texel_buffer", fmt="r32ui") for d in src]) +
          elements([g.binding(1, "u32", count=32, fill={"value": 0}, kind="storage_texel_buffer", fmt="r32ui")
                    for _ in range(2)]),
          [dict(g.expect(1, d), element=e) for e, d in enumerate(dst)], push_constants=push(pick))


def texture_index_hlsl(g):
    """texture_index.hlsl: tex[NonUniformResourceIndex(i % 3)] and tex[pick] (a constant buffer), Load at 4x4."""
    pick = 2
    tex = [[float(e * 100 + i) for i in range(16)] for e in range(3)]
    out = [tex[i % 3][i] + 1000.0 * tex[pick][i] for i in range(16)]
    write(g, "texture_index_hlsl", "HLSL textures picked per lane (NonUniformResourceIndex) and by a constant "
          "buffer", "texture_index.hlsl",
          elements([g.image_binding_packed(0, "sampled_image", "r32f", (4, 4), t) for t in tex]) +
          [g.binding(3, "f32", count=16, fill={"value": 0}),
           g.binding(4, "u32", data=[pick, 0, 0, 0], kind="uniform_buffer")],
          [g.expect(3, out)])


def texel_index_hlsl(g):
    """texel_index.hlsl: Buffer<uint> src[3], src[k] with k = NonUniformResourceIndex(i % 3) in a variable, and
    src[NonUniformResourceIndex((i + 1) % 3)] inline."""
    src = [[e * 1000 + i for i in range(16)] for e in range(3)]
    out = [src[i % 3][i] + 100 * src[(i + 1) % 3][i] for i in range(16)]
    write(g, "texel_index_hlsl", "HLSL texel buffers picked per lane with NonUniformResourceIndex, through a local "
          "variable and inline", "texel_index.hlsl",
          elements([g.binding(0, "u32", data=d, kind="uniform_texel_buffer", fmt="r32ui") for d in src]) +
          [g.binding(3, "u32", count=16, fill={"value": 0})], [g.expect(3, out)])


def runtime_array(g):
    """runtime_array.comp: src[] (5 bound) and textures[] (3 bound), each lane its own element of both."""
    w = h = 4
    src = [[(e * 17 + i * 3) % 29 for i in range(32)] for e in range(5)]
    tex = [[float(e * 100 + y * w + x) for y in range(h) for x in range(w)] for e in range(3)]
    out = [float(src[i % 5][i]) + 1000.0 * tex[i % 3][((i // 4) % 4) * w + i % 4] for i in range(32)]
    write(g, "runtime_array", "runtime arrays of buffers and textures (no length in the kernel): 5 and 3 bound, "
          "indexed per lane", "runtime_array.comp",
          elements([g.binding(0, "u32", data=d) for d in src]) +
          elements([g.image_binding_packed(1, "sampled_image", "r32_sfloat", (w, h), t) for t in tex]) +
          [{"set": 0, "binding": 2, "kind": "sampler",
            "sampler": {"mag_filter": "nearest", "min_filter": "nearest", "address_mode": "clamp_to_edge"}},
           g.binding(3, "f32", count=32, fill={"value": 0})], [g.expect(3, out)])


def generate(g):
    buffer_index(g)
    texture_index(g)
    image_index(g)
    texel_index(g)
    sampler_index(g)
    texture_index_hlsl(g)
    texel_index_hlsl(g)
    runtime_array(g)
