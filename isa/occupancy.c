/*
 * isa/occupancy.c — waves per SIMD from a kernel's registers and shared
 * memory and a machine's limits (the fields of a machines/NAME.json preset).
 * The formula is the one AMD's occupancy calculators use; see isa.h.
 */
#include "isa/isa.h"

const char *isa_limiter_name(isa_limiter l)
{
    static const char *const names[] = {"max waves per SIMD", "VGPRs", "SGPRs", "LDS", "workgroups per CU",
                                        "does not fit"};
    return (unsigned)l < sizeof names / sizeof names[0] ? names[l] : "?";
}

static uint32_t round_up(uint32_t x, uint32_t granule) { return granule ? (x + granule - 1) / granule * granule : x; }

/* Waves per SIMD that `groups` workgroups of `wpg` waves put on the busiest of `simds` SIMDs. */
static uint32_t waves_of_groups(uint64_t groups, uint32_t wpg, uint32_t simds)
{
    uint64_t w = (groups * wpg + simds - 1) / simds;
    return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

isa_occupancy isa_compute_occupancy(const isa_machine_limits *m, uint32_t vgprs, uint32_t sgprs, uint32_t lds_bytes,
                                    uint32_t waves_per_group)
{
    isa_occupancy o = {0};
    uint32_t simds = m->simds_per_cu ? m->simds_per_cu : 1;
    uint32_t wpg = waves_per_group ? waves_per_group : 1;
    o.by_max = m->max_waves_per_simd;
    o.vgprs_allocated = round_up(vgprs ? vgprs : 1, m->vgpr_granule);
    o.by_vgprs = m->vgprs_per_simd_lane ? m->vgprs_per_simd_lane / o.vgprs_allocated : o.by_max;
    if (m->max_vgprs_per_wave && o.vgprs_allocated > m->max_vgprs_per_wave)
        o.by_vgprs = 0;
    if (m->max_sgprs_per_wave && m->sgprs_per_simd) {
        o.sgprs_allocated = round_up(sgprs ? sgprs : 1, m->sgpr_granule);
        o.by_sgprs = o.sgprs_allocated > m->max_sgprs_per_wave ? 0 : m->sgprs_per_simd / o.sgprs_allocated;
    } else {
        o.by_sgprs = o.by_max; /* no scalar register file: uniform values are in vector registers */
    }
    /* Per-SIMD limits cap each SIMD's waves; LDS and the workgroup cap count whole workgroups per CU.  A
     * CU holds as many workgroups as every limit allows, and its waves per SIMD are that many workgroups'
     * waves spread over the SIMDs, rounded UP: one 64-wide workgroup alone on a four-SIMD CU (its LDS
     * allows no second) is one wave on one SIMD, not 1/4 rounded to 0.  ACO states the same rule
     * (Mesa, src/amd/compiler/aco_live_var_analysis.cpp, max_suitable_waves: "DIV_ROUND_UP"). */
    uint32_t per_simd = o.by_max;
    o.limiter = ISA_LIMIT_WAVES;
    if (o.by_vgprs < per_simd)
        per_simd = o.by_vgprs, o.limiter = ISA_LIMIT_VGPRS;
    if (o.by_sgprs < per_simd)
        per_simd = o.by_sgprs, o.limiter = ISA_LIMIT_SGPRS;
    uint64_t groups = (uint64_t)per_simd * simds / wpg;
    uint64_t groups_by_lds = lds_bytes ? m->lds_bytes_per_cu / lds_bytes : UINT64_MAX;
    uint64_t groups_by_cap = m->max_workgroups_per_cu ? m->max_workgroups_per_cu : UINT64_MAX;
    o.by_lds = lds_bytes ? waves_of_groups(groups_by_lds, wpg, simds) : o.by_max;
    o.by_workgroups = m->max_workgroups_per_cu ? waves_of_groups(groups_by_cap, wpg, simds) : o.by_max;
    if (groups_by_lds < groups)
        groups = groups_by_lds, o.limiter = ISA_LIMIT_LDS;
    if (groups_by_cap < groups)
        groups = groups_by_cap, o.limiter = ISA_LIMIT_WORKGROUPS;
    o.workgroups_per_cu = (uint32_t)groups;
    o.waves_per_simd = waves_of_groups(groups, wpg, simds);
    if (lds_bytes > m->lds_bytes_per_cu || groups == 0) {
        o.waves_per_simd = 0;
        o.workgroups_per_cu = 0;
        o.limiter = lds_bytes > m->lds_bytes_per_cu ? ISA_LIMIT_LDS : ISA_LIMIT_TOO_BIG;
    }
    return o;
}

/* Mesa 22.3, src/amd/vulkan/radv_shader.c, radv_get_max_waves (the value RADV reports as "Subgroups per SIMD"),
 * with rad_info's fields from src/amd/common/ac_gpu_info.c (lds_encode/alloc_granularity, the wave64 register
 * file, max_wave64_per_simd) read from the preset; isa.h has the formula in one piece. */
uint32_t isa_radv_subgroups_per_simd(const isa_machine_limits *m, uint32_t machine_wave, unsigned gfx, uint32_t vgprs,
                                     uint32_t sgprs, uint32_t lds_bytes, uint32_t invocations, uint32_t wave)
{
    if (wave != 32 && wave != 64)
        return 0;
    uint32_t file64 = m->vgprs_per_simd_lane * machine_wave / 64;
    uint32_t granule = gfx >= 103 ? file64 / 64 * (64 / wave) : (wave == 32 ? 8 : 4);
    uint32_t w = m->max_waves_per_simd * 64 / wave;
    uint32_t allocated = round_up(vgprs ? vgprs : 1, granule);
    if (file64 * 64 / wave / allocated < w)
        w = file64 * 64 / wave / allocated;
    if (gfx < 100 && sgprs && m->sgprs_per_simd / round_up(sgprs + 2, 16) < w)
        w = m->sgprs_per_simd / round_up(sgprs + 2, 16);
    if (lds_bytes) {
        uint32_t waves_per_group = (invocations + wave - 1) / wave;
        uint32_t lds_wave = round_up(lds_bytes, gfx >= 103 ? 1024 : 512) / (waves_per_group ? waves_per_group : 1);
        uint32_t per_simd = m->lds_bytes_per_cu / (m->simds_per_cu ? m->simds_per_cu : 1);
        if (lds_wave && (per_simd + lds_wave - 1) / lds_wave < w)
            w = (per_simd + lds_wave - 1) / lds_wave;
    }
    return gfx >= 100 ? w * wave / 32 : w;
}

/* Whether any instruction reads register r. */
static int reads_reg(const isa_program *p, uint32_t r)
{
    for (uint32_t i = 0; i < p->code_count; i++) {
        isa_span reads[6], writes[2];
        int nr = 0, nw = 0;
        isa_inst_regs(&p->code[i], reads, &nr, writes, &nw);
        for (int k = 0; k < nr; k++)
            if (r >= reads[k].first && r < reads[k].first + reads[k].count)
                return 1;
    }
    return 0;
}

/* Mesa 22.3: radv_shader_args.c (declare_global_input_sgprs and the compute case of
 * radv_declare_shader_args: ring offsets, one user SGPR per descriptor set, the push-constant pointer, the
 * workgroup count, the workgroup IDs as used, tg_size, the scratch offset) and ACO's descriptor loads
 * (s_load_dwordx4 / dwordx8 from the set's pointer, widened with a constant high half). */
uint32_t isa_radv_abi_sgprs(const isa_program *p)
{
    uint64_t sets = 0;
    int push = 0;
    uint32_t descriptor = 0;
    int has_sampler = 0;
    for (uint32_t i = 0; i < p->slot_count; i++)
        has_sampler |= p->slots[i].space == ISA_SPACE_SAMPLER;
    for (uint32_t i = 0; i < p->slot_count; i++) {
        const isa_slot *s = &p->slots[i];
        uint32_t words = 0;
        if (s->alias_of)
            continue; /* a variable pointer's second name for a descriptor counted at its own slot */
        switch (s->space) {
        case ISA_SPACE_PUSH:
            push = 1;
            continue;
        case ISA_SPACE_WORKGROUP:
        case ISA_SPACE_PRIVATE:
            continue;
        case ISA_SPACE_STORAGE:
        case ISA_SPACE_UNIFORM:
        case ISA_SPACE_STORAGE_TEXEL:
        case ISA_SPACE_UNIFORM_TEXEL:
        case ISA_SPACE_SAMPLER:
            words = 4;
            break;
        case ISA_SPACE_STORAGE_IMAGE:
            words = 8;
            break;
        case ISA_SPACE_SAMPLED_IMAGE: /* a sample holds the image's 8 words and its sampler's 4 at once */
            words = 8 + (s->image_combined || has_sampler ? 4 : 0);
            break;
        }
        sets |= (uint64_t)1 << (s->set < 63 ? s->set : 63);
        if (words > descriptor)
            descriptor = words;
    }
    uint32_t nsets = (uint32_t)__builtin_popcountll(sets);
    int ids[3] = {0, 0, 0}, count = 0, tg = 0;
    for (uint32_t i = 0; i < p->builtin_count; i++) {
        const isa_builtin_reg *b = &p->builtins[i];
        int wg = b->builtin == ISA_BI_WORKGROUP_ID || b->builtin == ISA_BI_GLOBAL_ID;
        int nwg = b->builtin == ISA_BI_NUM_WORKGROUPS;
        int sub = b->builtin == ISA_BI_SUBGROUP_ID || b->builtin == ISA_BI_NUM_SUBGROUPS;
        if (!(wg || nwg || sub) || !reads_reg(p, b->reg))
            continue;
        if (wg && b->component < 3)
            ids[b->component] = 1;
        count |= nwg;
        tg |= sub;
    }
    uint32_t start = 2 + nsets + (uint32_t)push + 3u * (uint32_t)count + (uint32_t)(ids[0] + ids[1] + ids[2]) +
                     (uint32_t)tg + 1;
    uint32_t body = p->res.sgprs + 2 * nsets + 2u * (uint32_t)push + descriptor;
    return start > body ? start : body;
}
