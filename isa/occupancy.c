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
    /* workgroup-granular limits, spread over the CU's SIMDs */
    uint32_t groups_by_lds = lds_bytes ? (m->lds_bytes_per_cu / lds_bytes) : UINT32_MAX;
    o.by_lds = groups_by_lds == UINT32_MAX ? o.by_max : (uint32_t)((uint64_t)groups_by_lds * wpg / simds);
    o.by_workgroups = m->max_workgroups_per_cu ? (uint32_t)((uint64_t)m->max_workgroups_per_cu * wpg / simds) : o.by_max;
    uint32_t best = o.by_max;
    o.limiter = ISA_LIMIT_WAVES;
    struct { uint32_t v; isa_limiter l; } c[] = {{o.by_vgprs, ISA_LIMIT_VGPRS}, {o.by_sgprs, ISA_LIMIT_SGPRS},
                                                 {o.by_lds, ISA_LIMIT_LDS}, {o.by_workgroups, ISA_LIMIT_WORKGROUPS}};
    for (unsigned k = 0; k < sizeof c / sizeof c[0]; k++)
        if (c[k].v < best)
            best = c[k].v, o.limiter = c[k].l;
    o.waves_per_simd = best;
    /* a workgroup's waves must all be resident at once */
    uint64_t resident = (uint64_t)best * simds;
    o.workgroups_per_cu = (uint32_t)(resident / wpg);
    if (lds_bytes > m->lds_bytes_per_cu || o.workgroups_per_cu == 0) {
        o.waves_per_simd = 0;
        o.workgroups_per_cu = 0;
        o.limiter = lds_bytes > m->lds_bytes_per_cu ? ISA_LIMIT_LDS : ISA_LIMIT_TOO_BIG;
    }
    return o;
}
