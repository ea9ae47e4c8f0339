# tools/ncu_l2.py — one reading of the H100's L2 read hit rate, shared by tools/gather_table.py and
# tools/direction_table.py: the rate as the model counts it, 1 - lookup misses / sectors looked up (the SMs' and
# the fabric's read sectors).  Nsight Compute's own lts__t_sector_op_read_hit_rate counts some missed sectors
# again as hits (docs/hardware.md, "Two readings of the L2 hit rate").


def l2_rate_as_model_counts(m):
    """m: Nsight Compute metric name -> value for one profiled launch; the rate in percent."""
    sectors = m['lts__t_sectors_srcunit_tex_op_read.sum'] + m['lts__t_sectors_srcunit_ltcfabric_op_read.sum']
    misses = (m['lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum'] +
              m['lts__t_sectors_srcunit_ltcfabric_op_read_lookup_miss.sum'])
    return 100 * (1 - misses / sectors)
