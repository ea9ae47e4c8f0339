/*
 * img/layout.c — where a texel lives in device memory, for the memory model only
 * (functional results never depend on the layout).  Three layouts:
 *
 * linear          row by row: the packed layout of img_texel_offset.
 *
 * nv_blocklinear  NVIDIA-style block-linear.  A GOB ("group of bytes") is 64 bytes
 *                 wide and 8 rows tall (512 B); inside it, bytes follow the swizzle the
 *                 NVIDIA Tegra X1 Technical Reference Manual gives for block-linear
 *                 surfaces (16-byte x 2-row sectors: offset = (x/32)*256 + (y/2)*64 +
 *                 ((x%32)/16)*32 + (y%2)*16 + x%16).  GOBs stack in y into a block of
 *                 block_height GOBs (and block_depth slices for 3D); blocks run along x,
 *                 then y, then z.  The block height is chosen as the driver heuristic
 *                 described in Mesa's nouveau "nil" image library does: the smallest
 *                 power of two of GOBs that covers the level's height, at most 16
 *                 (block depth likewise, at most 16).  Model values, not a measurement.
 *
 * amd_swizzle     AMD-style 2D swizzle: a tile of 64 KiB (images of 64 KiB or more at
 *                 mip 0) or 4 KiB (smaller ones) holds a square (or 2:1) 2D block of
 *                 texels, whose addresses interleave the x and y bits (Morton order,
 *                 x first), which is the "standard swizzle" pattern of AMD's addrlib
 *                 (GPUOpen, github.com/GPUOpen-Drivers/pal, src/core/imported/addrlib)
 *                 and Direct3D 12's "64KB standard swizzle", without the pipe/bank XOR
 *                 bits real GFX9+ modes add.  Tiles run row by row; 3D slices are tiled
 *                 one by one.  Model values.
 *
 * Subresources of tiled layouts are placed layer by layer, each layer holding its mip
 * chain, each level padded to whole blocks/tiles (as both vendors do).
 */
#include "img/img.h"

#include <string.h>

static const char *const layout_names[IMG_LAYOUT_COUNT] = {"linear", "nv_blocklinear", "amd_swizzle"};

int img_layout_by_name(const char *name, img_layout *out)
{
    for (int l = 0; l < IMG_LAYOUT_COUNT; l++)
        if (strcmp(layout_names[l], name) == 0) {
            *out = (img_layout)l;
            return 1;
        }
    return 0;
}

const char *img_layout_name(img_layout layout)
{
    return (unsigned)layout < IMG_LAYOUT_COUNT ? layout_names[layout] : "?";
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static uint32_t next_pow2(uint32_t v)
{
    uint32_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

static uint32_t log2_pow2(uint32_t v)
{
    uint32_t l = 0;
    while ((1u << l) < v)
        l++;
    return l;
}

/* ---- NVIDIA block-linear ------------------------------------------------------------------------------ */

enum { GOB_WIDTH_BYTES = 64, GOB_ROWS = 8, GOB_BYTES = 512, NV_MAX_BLOCK_GOBS = 16 };

typedef struct nv_level {
    uint64_t gobs_x, blocks_y, blocks_z;
    uint32_t block_height, block_depth; /* in GOBs / slices */
    uint64_t bytes;
} nv_level;

static nv_level nv_level_of(const img_image *im, uint32_t mip)
{
    const img_format_info *fi = img_format_get(im->format);
    uint32_t w = img_mip_size(im->width, mip), h = img_mip_size(im->height, mip), d = img_mip_size(im->depth, mip);
    nv_level l;
    uint64_t gob_rows = div_up(h, GOB_ROWS);
    l.block_height = next_pow2((uint32_t)gob_rows);
    if (l.block_height > NV_MAX_BLOCK_GOBS)
        l.block_height = NV_MAX_BLOCK_GOBS;
    l.block_depth = next_pow2(d);
    if (l.block_depth > NV_MAX_BLOCK_GOBS)
        l.block_depth = NV_MAX_BLOCK_GOBS;
    l.gobs_x = div_up((uint64_t)w * fi->texel_bytes, GOB_WIDTH_BYTES);
    l.blocks_y = div_up(gob_rows, l.block_height);
    l.blocks_z = div_up(d, l.block_depth);
    l.bytes = l.gobs_x * l.blocks_y * l.blocks_z * (uint64_t)GOB_BYTES * l.block_height * l.block_depth;
    return l;
}

/* The byte's place inside its GOB (Tegra X1 TRM, "Block Linear" surface layout). */
static uint32_t gob_offset(uint32_t x_byte, uint32_t row)
{
    return (x_byte / 32) * 256 + (row / 2) * 64 + ((x_byte % 32) / 16) * 32 + (row % 2) * 16 + x_byte % 16;
}

static uint64_t nv_address(const img_image *im, uint32_t x, uint32_t y, uint32_t z, uint32_t mip)
{
    const img_format_info *fi = img_format_get(im->format);
    nv_level l = nv_level_of(im, mip);
    uint64_t x_byte = (uint64_t)x * fi->texel_bytes;
    uint64_t gx = x_byte / GOB_WIDTH_BYTES, gob_row = y / GOB_ROWS;
    uint64_t by = gob_row / l.block_height, bz = z / l.block_depth;
    uint64_t block = (bz * l.blocks_y + by) * l.gobs_x + gx;
    uint64_t gob_in_block = (uint64_t)(z % l.block_depth) * l.block_height + gob_row % l.block_height;
    return block * GOB_BYTES * l.block_height * l.block_depth + gob_in_block * GOB_BYTES +
           gob_offset((uint32_t)(x_byte % GOB_WIDTH_BYTES), y % GOB_ROWS);
}

/* ---- AMD 2D swizzle ----------------------------------------------------------------------------------- */

typedef struct amd_level {
    uint32_t tile_bytes, tile_w, tile_h; /* tile_w, tile_h in texels */
    uint64_t tiles_x, tiles_y;
    uint64_t bytes;
} amd_level;

static uint32_t amd_tile_bytes(const img_image *im)
{
    img_image mip0 = *im;
    mip0.mip_levels = 1;
    mip0.layers = 1;
    mip0.samples = 1;
    return img_image_bytes(&mip0) >= 65536 ? 65536 : 4096;
}

static amd_level amd_level_of(const img_image *im, uint32_t mip)
{
    const img_format_info *fi = img_format_get(im->format);
    amd_level l;
    l.tile_bytes = amd_tile_bytes(im);
    uint32_t texel_bits = log2_pow2(l.tile_bytes / fi->texel_bytes);
    l.tile_w = 1u << (texel_bits - texel_bits / 2);
    l.tile_h = 1u << (texel_bits / 2);
    l.tiles_x = div_up(img_mip_size(im->width, mip), l.tile_w);
    l.tiles_y = div_up(img_mip_size(im->height, mip), l.tile_h);
    l.bytes = l.tiles_x * l.tiles_y * img_mip_size(im->depth, mip) * l.tile_bytes;
    return l;
}

/* Interleaves the bits of x and y, x first, while both have bits left within the tile. */
static uint32_t morton(uint32_t x, uint32_t y, uint32_t x_bits, uint32_t y_bits)
{
    uint32_t out = 0, pos = 0, xi = 0, yi = 0;
    while (xi < x_bits || yi < y_bits) {
        if (xi < x_bits)
            out |= (x >> xi++ & 1u) << pos++;
        if (yi < y_bits)
            out |= (y >> yi++ & 1u) << pos++;
    }
    return out;
}

static uint64_t amd_address(const img_image *im, uint32_t x, uint32_t y, uint32_t z, uint32_t mip)
{
    const img_format_info *fi = img_format_get(im->format);
    amd_level l = amd_level_of(im, mip);
    uint64_t tile = ((uint64_t)z * l.tiles_y + y / l.tile_h) * l.tiles_x + x / l.tile_w;
    uint32_t inside = morton(x % l.tile_w, y % l.tile_h, log2_pow2(l.tile_w), log2_pow2(l.tile_h));
    return tile * l.tile_bytes + (uint64_t)inside * fi->texel_bytes;
}

/* ---- placement of levels and layers ------------------------------------------------------------------- */

static uint64_t level_bytes(const img_image *im, img_layout layout, uint32_t mip)
{
    return layout == IMG_LAYOUT_NV_BLOCKLINEAR ? nv_level_of(im, mip).bytes : amd_level_of(im, mip).bytes;
}

/* Bytes of one layer's mip chain in a tiled layout. */
static uint64_t layer_stride(const img_image *im, img_layout layout)
{
    uint64_t total = 0;
    for (uint32_t m = 0; m < im->mip_levels; m++)
        total += level_bytes(im, layout, m);
    return total;
}

uint64_t img_layout_address(const img_image *im, img_layout layout, uint32_t x, uint32_t y, uint32_t z,
                            uint32_t layer, uint32_t mip)
{
    if (layout == IMG_LAYOUT_LINEAR || (unsigned)layout >= IMG_LAYOUT_COUNT)
        return img_texel_offset(im, x, y, z, layer, mip);
    uint64_t base = (uint64_t)layer * layer_stride(im, layout);
    for (uint32_t m = 0; m < mip; m++)
        base += level_bytes(im, layout, m);
    return base + (layout == IMG_LAYOUT_NV_BLOCKLINEAR ? nv_address(im, x, y, z, mip) : amd_address(im, x, y, z, mip));
}

uint64_t img_layout_bytes(const img_image *im, img_layout layout)
{
    if (layout == IMG_LAYOUT_LINEAR || (unsigned)layout >= IMG_LAYOUT_COUNT)
        return img_image_bytes(im);
    return (uint64_t)img_planes(im) * layer_stride(im, layout);
}
