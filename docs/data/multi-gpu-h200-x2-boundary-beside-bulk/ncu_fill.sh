#!/bin/bash
# ncu of the wall fill: whole 192^3 box on one rank, and a 2x1x1 half box (two ranks on one GPU)
set -u
cd "$(dirname "$0")/.."
tar xzf .gpu/ompi.tar.gz -C /opt
export PATH=/opt/karman-ompi/bin:/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/opt/karman-ompi/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/cuda/extras/CUPTI/lib64
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gunzip -c .gpu/B.gz > /tmp/B && chmod +x /tmp/B
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
A="cavity --dim 3 --lattice d3q27 --precision float --layout soa --quiet --no-fields --steps 12 --overwrite"
ncu --kernel-name-base mangled --kernel-name regex:FillWallSlots --launch-skip 8 --launch-count 1 --metrics $M --csv /tmp/B $A --n 190 --output /tmp/o1 > $OUT/ncu_whole.csv 2>&1
ncu --kernel-name-base mangled --kernel-name regex:FillWallSlots --launch-skip 8 --launch-count 1 --metrics $M --csv /tmp/B $A --n 126 --output /tmp/o3 > $OUT/ncu_128.csv 2>&1
mpirun -np 2 --oversubscribe --bind-to none ncu --kernel-name-base mangled --kernel-name regex:FillWallSlots --launch-skip 8 --launch-count 1 --metrics $M --csv /tmp/B $A --n 190 --ranks-per-axis 2x1x1 --mpi-gpu-aware on --output /tmp/o2 > $OUT/ncu_half.csv 2>&1
for f in $OUT/*.csv; do grep -v "^==PROF==" $f | tail -14 | cut -c1-300; done
