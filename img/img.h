/*
 * img/img.h — images as wavelab models them: the formats of Vulkan storage and
 * sampled images and their exact conversions (Vulkan "Format Conversion"), the
 * packed texel layout every other module exchanges images in, the sampler
 * (address modes, filters, mip selection, border colours, gather), integer
 * fetch/store, and the device memory layouts (linear, NVIDIA-style
 * block-linear, AMD-style 2D swizzle) the memory model places texels with.
 *
 * The module owns no memory: an img_image points at bytes its owner (a case
 * binding, the simulator) holds.  Functional results never depend on the
 * memory layout; only img_layout_address does.
 */
#ifndef WAVELAB_IMG_H
#define WAVELAB_IMG_H

#include <stddef.h>
#include <stdint.h>

typedef enum img_format {
#define X(id, ...) IMG_FMT_##id,
#include "img/formats.def"
#undef X
    IMG_FMT_COUNT
} img_format;

/* What a shader reads from the format: floats (UNORM/SNORM/SFLOAT/sRGB/packed floats), or integers. */
typedef enum img_numeric { IMG_NUM_FLOAT, IMG_NUM_UINT, IMG_NUM_SINT } img_numeric;

/* How the codec turns the bytes into values (the encoding column of img/formats.def). */
typedef enum img_encoding {
    IMG_ENC_UNORM,
    IMG_ENC_SNORM,
    IMG_ENC_UINT,
    IMG_ENC_SINT,
    IMG_ENC_SFLOAT,
    IMG_ENC_SRGB,              /* 8-bit UNORM with the sRGB EOTF on R, G, B; alpha linear */
    IMG_ENC_B10G11R11_UFLOAT,  /* R: bits 0..10, G: 11..21, B: 22..31, unsigned 11/11/10-bit floats */
    IMG_ENC_A2B10G10R10_UNORM, /* R: bits 0..9, G: 10..19, B: 20..29, A: 30..31 */
    IMG_ENC_A2B10G10R10_UINT
} img_encoding;

typedef struct img_format_info {
    const char *name;        /* Vulkan name, lowercase, without VK_FORMAT_: "r8g8b8a8_unorm" */
    const char *spirv_name;  /* GLSL/SPIR-V format qualifier ("rgba8"), "" if none */
    uint32_t vk_format;      /* VkFormat value */
    uint32_t spirv_format;   /* SPIR-V ImageFormat value, 0 (Unknown) if none */
    uint32_t texel_bytes, components;
    img_numeric numeric;
    int srgb;
    img_encoding encoding;
    uint8_t bits[4];         /* bit width of R, G, B, A (0 = absent) */
} img_format_info;

/* The row of img/formats.def for f (NULL when f is out of range). */
const img_format_info *img_format_get(img_format f);
/* Whether the format's components are 64 bits wide (img_texel.u64). */
static inline int img_format_is_wide(const img_format_info *fi)
{
    return fi->bits[0] == 64;
}
/* "r8g8b8a8_unorm" or "rgba8" (case-sensitive); returns 1 and sets *out when found, else 0. */
int img_format_by_name(const char *name, img_format *out);
/* SPIR-V ImageFormat enum value; returns 1 when wavelab has it, 0 for Unknown or unsupported. */
int img_format_from_spirv(uint32_t spirv_image_format, img_format *out);
/* The VkFormat value; 1 when found. */
int img_format_from_vk(uint32_t vk_format, img_format *out);

/* One texel's values as a shader sees them.  Missing components read as 0, 0, 0, 1 (1 or 1.0f by numeric).  A
 * format of 64-bit components (img_format_is_wide: r64_uint, r64_sint) holds its one component in u64[0] (i64[0])
 * and nothing else: its missing components (0, 0, 1) are the reader's to supply. */
typedef union img_texel {
    float f[4];
    uint32_t u[4];
    int32_t i[4];
    uint64_t u64[2];
    int64_t i64[2];
} img_texel;

/* Decodes one texel of `texel_bytes` bytes by the Vulkan "Format Conversion" rules. */
void img_decode(img_format f, const uint8_t *src, img_texel *out);
/* img_decode specialised to format f (the same bits), for the common formats; NULL for the others. */
typedef void (*img_decode_fn)(const uint8_t *src, img_texel *out);
img_decode_fn img_format_decoder(img_format f);
/* Encodes one texel, rounding and clamping as the Vulkan specification says for stores. */
void img_encode(img_format f, const img_texel *in, uint8_t *dst);

/* The scalar conversions the codec is built from (exposed for the simulator and tests). */
float img_half_to_float(uint16_t h);
uint16_t img_float_to_half(float f);                  /* round to nearest even; a NaN becomes the quiet NaN */
uint16_t img_double_to_half(double d);                /* one rounding from double; a NaN keeps its payload's top */
float img_ufloat_to_float(uint32_t bits, int mantissa_bits); /* unsigned 11-bit (6 mantissa) or 10-bit (5) float */
uint32_t img_float_to_ufloat(float f, int mantissa_bits);    /* NaN -> NaN, negative -> 0, too big -> +inf */

typedef enum img_dim { IMG_DIM_1D, IMG_DIM_2D, IMG_DIM_3D, IMG_DIM_CUBE } img_dim;

typedef struct img_image {
    img_dim dim;
    img_format format;
    uint32_t width, height, depth, layers, mip_levels; /* cube: layers = 6 * cube count */
    uint32_t samples; /* samples per texel (0 or 1: single-sampled); a multisampled image is 2d with one mip */
    uint8_t *bytes;
    size_t size; /* texels tightly packed: mip 0 (layer 0 [z][y][x], layer 1 ...), mip 1 ... --
                  * exactly what vkCmdCopyBufferToImage reads with bufferRowLength = 0 and one
                  * region per mip covering all layers */
} img_image;

/* Samples per texel, at least 1. */
static inline uint32_t img_samples(const img_image *im)
{
    return im->samples > 1 ? im->samples : 1;
}
/* Planes of texels per mip in the packed layout: each layer's samples one after another, so sample s of layer l
 * is plane l * samples + s (a single-sampled image: its layers).  Every `layer` argument below (and of img_view_,
 * img_layout_) is a plane; a caller that has a sample adds it so, after checking it against img_samples. */
static inline uint32_t img_planes(const img_image *im)
{
    return im->layers * img_samples(im);
}

/* Why im's sample count is not one Vulkan allows (1, 2, 4, ... 64; more than 1 only on a 2d image of one mip
 * level), or NULL when it is; im->samples 0 counts as 1. */
const char *img_samples_problem(const img_image *im);

const char *img_dim_name(img_dim d); /* "1d", "2d", "3d", "cube" */
int img_dim_by_name(const char *name, img_dim *out);

uint32_t img_mip_size(uint32_t base, uint32_t mip); /* max(1, base >> mip) */
size_t img_image_bytes(const img_image *im);        /* total packed size */
/* Narrows *im to a view of its level `mip` alone, every layer (a VkImageView with baseMipLevel mip, levelCount 1):
 * the packed layout keeps a level's layers together, so the view's texels are the image's own bytes. */
void img_mip_view(img_image *im, uint32_t mip);
/* Narrows *im, an image of one level, to a view of its layer `layer` alone (baseArrayLayer layer, layerCount 1): a
 * cube's face becomes a 2d image, as a 2D view of a cube-compatible image sees it. */
void img_layer_view(img_image *im, uint32_t layer);
size_t img_image_texels(const img_image *im);       /* total texels over every mip and layer */
size_t img_subresource_offset(const img_image *im, uint32_t mip, uint32_t layer);
size_t img_subresource_bytes(const img_image *im, uint32_t mip); /* one layer of one mip */
size_t img_texel_offset(const img_image *im, uint32_t x, uint32_t y, uint32_t z, uint32_t layer, uint32_t mip);

enum { IMG_FILTER_NEAREST, IMG_FILTER_LINEAR };
enum { IMG_MIPMAP_NEAREST, IMG_MIPMAP_LINEAR };
enum {
    IMG_ADDRESS_REPEAT,
    IMG_ADDRESS_MIRRORED_REPEAT,
    IMG_ADDRESS_CLAMP_TO_EDGE,
    IMG_ADDRESS_CLAMP_TO_BORDER,
    IMG_ADDRESS_MIRROR_CLAMP_TO_EDGE
}; /* VkSamplerAddressMode order */
enum {
    IMG_BORDER_FLOAT_TRANSPARENT_BLACK,
    IMG_BORDER_INT_TRANSPARENT_BLACK,
    IMG_BORDER_FLOAT_OPAQUE_BLACK,
    IMG_BORDER_INT_OPAQUE_BLACK,
    IMG_BORDER_FLOAT_OPAQUE_WHITE,
    IMG_BORDER_INT_OPAQUE_WHITE
}; /* VkBorderColor order */

enum {
    IMG_COMPARE_NONE,
    IMG_COMPARE_NEVER,
    IMG_COMPARE_LESS,
    IMG_COMPARE_EQUAL,
    IMG_COMPARE_LESS_OR_EQUAL,
    IMG_COMPARE_GREATER,
    IMG_COMPARE_NOT_EQUAL,
    IMG_COMPARE_GREATER_OR_EQUAL,
    IMG_COMPARE_ALWAYS
}; /* compare_op: none (compareEnable off), else VkCompareOp + 1 */

typedef struct img_sampler {
    uint8_t mag_filter, min_filter, mipmap_mode, address[3], border, unnormalized;
    uint8_t compare_op;  /* IMG_COMPARE_NONE, or the depth comparison of a shadow sampler */
    float mip_lod_bias, min_lod, max_lod;
    /* Not sampler state: the reference value (Dref) of the depth-comparison sample being taken.  A caller that
     * samples with a compare_op sets it on its own copy of the sampler, per sample. */
    float dref;
    /* Not sampler state either: when set, called with every texel a sample or gather reads from memory (one in
     * the image: not a border texel, nor one past its layers, which reads zero), its integer coordinates (unused
     * axes 0), layer and level; the sanitizer's initcheck sets it on its own copy.  NULL: nothing is called. */
    void (*texel_read)(void *user, const int32_t at[3], uint32_t layer, uint32_t mip);
    void *texel_read_user;
} img_sampler;

/* Whether f is a depth format (d16_unorm, d32_sfloat). */
int img_format_is_depth(img_format f);

/* The defaults of a case's "sampler":{} (nearest, repeat, float transparent black, lod [0, 1000]). */
void img_sampler_default(img_sampler *s);

/* Names of sampler fields' values as the case format spells them ("linear", "clamp_to_edge",
 * "float_opaque_black"); by_name returns 1 when found. */
const char *img_filter_name(int filter);
int img_filter_by_name(const char *name, int *out);
int img_mipmap_by_name(const char *name, int *out);
const char *img_address_name(int mode);
int img_address_by_name(const char *name, int *out);
int img_border_by_name(const char *name, int *out);
int img_compare_by_name(const char *name, int *out);

/*
 * coord: s,t,r (cube: direction x,y,z), coord[3] = array layer (unrounded).  lod is the
 * shader's Lod operand: img_sample applies mip_lod_bias, min/max_lod and the mipmap mode itself.
 * off: a sampling offset (ConstOffset) in texels, one per axis (unused axes ignored), added to the integer
 * texel coordinates of each level read (Vulkan, "Texel Coordinate Offset"), or NULL for none; each component
 * from -65536 to 65535 (devices allow -8..7 at least, wavelab's lowering -128..127).
 * A sampler with a compare_op compares s->dref with each texel's R (its depth) after the border replacement,
 * as Vulkan's "Depth Compare Operation" says (dref clamped to [0, 1] on a UNORM format), and filters the
 * results, 1.0 where the comparison holds and 0.0 where not, into R (G, B 0, A 1); a gather returns the four
 * results.
 * Filtering is done in float32 with exact weights (docs/quirks.md).
 */
void img_sample(const img_image *im, const img_sampler *s, const float coord[4], float lod, const int32_t *off,
                img_texel *out);
/* OpImageGather: component `component` of the four texels of the bilinear footprint at mip 0 (moved by off, as
 * img_sample's), in the order i0j1, i1j1, i1j0, i0j0 (out->f[0..3], or u/i for integer formats). */
void img_gather(const img_image *im, const img_sampler *s, const float coord[4], int component, const int32_t *off,
                img_texel *out);
/* The gradients of a cube sample's face coordinates s, t (in [0, 1] face units) from the gradients ddx, ddy of its
 * direction, on the face the direction selects (Vulkan, "Cube Map Derivative Computation"); the zero vector
 * gives 0. */
void img_cube_gradients(const float dir[3], const float ddx[3], const float ddy[3], float dx[2], float dy[2]);
/* Integer texel read (OpImageFetch / OpImageRead): returns 1 when in bounds; 0 when out of bounds
 * (*out is then zeroed; the caller decides: fault or robust zero). */
int img_fetch(const img_image *im, const int32_t coord[3], uint32_t layer, uint32_t mip, img_texel *out);
/* OpImageWrite: encodes *in into the texel; returns 0 (and writes nothing) when out of bounds. */
int img_store(img_image *im, const int32_t coord[3], uint32_t layer, uint32_t mip, const img_texel *in);

/*
 * A view: what an image instruction needs of its image, resolved once per instruction instead of once per
 * lane -- the format row, a decoder specialised to the format where one exists, and each mip level's extent
 * and byte offsets.  The img_view_ functions give the same bits as img_fetch, img_store, img_sample and
 * img_gather (tests/test_image.c runs both over random inputs); they take fast paths for the common cases
 * and hand the rest to the general functions.  A view points at the image and owns nothing; it stays valid
 * while the image's geometry and bytes pointer do (texel writes do not matter).
 */
enum { IMG_VIEW_MAX_LEVELS = 32 };
typedef struct img_view_level {
    int32_t size[3];     /* extent of the level */
    float size_f[3];     /* the same as floats, as the sampler scales coordinates by them */
    size_t offset;       /* byte offset of the level's layer 0 */
    size_t layer_bytes;  /* bytes of one layer of the level */
    size_t row_bytes, slice_bytes;
} img_view_level;
typedef struct img_view {
    const img_image *im;
    const img_format_info *fi;
    img_decode_fn decode;   /* img_format_decoder: NULL when only img_decode has the format */
    uint32_t texel_bytes;
    int raw_words;          /* the codec stores each component as its 32-bit word unchanged (32-bit UINT, SINT,
                             * SFLOAT formats): a store is a copy */
    uint32_t levels;        /* levels resolved: im->mip_levels, or 0 when the image has more than
                             * IMG_VIEW_MAX_LEVELS (the view then passes everything to the general functions) */
    img_view_level level[IMG_VIEW_MAX_LEVELS];
} img_view;

/* Resolves im into *v; im must be well formed (a format of the table, size >= img_image_bytes). */
void img_view_init(img_view *v, const img_image *im);
/* img_fetch, img_store, img_sample and img_gather through a view: the same results, bit for bit. */
int img_view_fetch(const img_view *v, const int32_t coord[3], uint32_t layer, uint32_t mip, img_texel *out);
int img_view_store(const img_view *v, const int32_t coord[3], uint32_t layer, uint32_t mip, const img_texel *in);
void img_view_sample(const img_view *v, const img_sampler *s, const float coord[4], float lod, const int32_t *off,
                     img_texel *out);
void img_view_gather(const img_view *v, const img_sampler *s, const float coord[4], int component,
                     const int32_t *off, img_texel *out);
/* img_view_sample in two steps, for an instruction whose lanes share a LOD: img_view_lod works out what a
 * shader LOD means under the sampler (filter, level or levels, blend weight), img_view_sample_lod samples
 * with it.  Both need v->levels > 0. */
typedef struct img_lod {
    uint32_t level[2]; /* the level read; the second level of a linear mip blend */
    float delta;       /* the second level's weight */
    int linear, blend; /* linear filtering within a level; blend the two levels */
} img_lod;
void img_view_lod(const img_view *v, const img_sampler *s, float lod, img_lod *plan);
void img_view_sample_lod(const img_view *v, const img_sampler *s, const float coord[4], const img_lod *plan,
                         const int32_t *off, img_texel *out);
/* OpImageQueryLod's answer for a shader lod (Vulkan "LOD Query"): out[0] the level a sample would read less the
 * base level, d_l (fractional under a linear mipmap mode), out[1] lambda' (the lod plus the sampler's bias, before
 * min_lod and max_lod), from the same steps as img_view_lod. */
void img_query_lod(const img_image *im, const img_sampler *s, float lod, float out[2]);
/* Byte offset of texel (x, y, z) of layer/mip in the packed layout: img_texel_offset through the view. */
static inline size_t img_view_texel_offset(const img_view *v, uint32_t x, uint32_t y, uint32_t z, uint32_t layer,
                                           uint32_t mip)
{
    const img_view_level *L = &v->level[mip];
    return L->offset + layer * L->layer_bytes + z * L->slice_bytes + y * L->row_bytes + (size_t)x * v->texel_bytes;
}

/* Device memory layouts, for the memory model only (functional results never depend on them). */
typedef enum img_layout { IMG_LAYOUT_LINEAR, IMG_LAYOUT_NV_BLOCKLINEAR, IMG_LAYOUT_AMD_SWIZZLE, IMG_LAYOUT_COUNT } img_layout;
int img_layout_by_name(const char *name, img_layout *out); /* "linear", "nv_blocklinear", "amd_swizzle" */
const char *img_layout_name(img_layout layout);
/* Byte address within the image's allocation of texel (x, y, z) of layer/mip. */
uint64_t img_layout_address(const img_image *im, img_layout layout, uint32_t x, uint32_t y, uint32_t z,
                            uint32_t layer, uint32_t mip);
/* Bytes the allocation spans in that layout (tiled layouts pad to whole tiles). */
uint64_t img_layout_bytes(const img_image *im, img_layout layout);

#endif
