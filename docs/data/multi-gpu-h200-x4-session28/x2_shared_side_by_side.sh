#!/bin/bash
# Every GPU of the machine (run on 2): B (989adee) / C (session 28 variants C1 and C2: the shared kernels side by side,
# the pack before start()'s one host wait) interleaved, D3Q27 FP32 cavity 192^3, 2000 steps; then CUPTI traces of C
# (blocks, slabs) and the invariance check of C (GPU-aware and staged).
reps=${1:-3}
BINS="B C" source "$(dirname "$0")/common.sh"
blocks=2x1x1; other=1x1x2; [ "$NG" = 4 ] && blocks=2x2x1 && other=2x1x2
for r in $(seq $reps); do
  for b in B C; do
    run 1gpu-soa-192 $b 1 --n 190 --steps 2000 --layout soa
    run 1gpu-dis-192 $b 1 --n 190 --steps 2000 --layout disaggregated
    run ${NG}gpu-soapack-slabs-192 $b $NG --n 190 --steps 2000 --layout soa --halo-pack
    run ${NG}gpu-soa-$blocks-192 $b $NG --n 190 --steps 2000 --layout soa --ranks-per-axis $blocks
    run ${NG}gpu-soa-$other-192 $b $NG --n 190 --steps 2000 --layout soa --ranks-per-axis $other
    run ${NG}gpu-dis-slabs-192 $b $NG --n 190 --steps 2000 --layout disaggregated
  done
done
trace blocks C --layout soa --ranks-per-axis $blocks
trace slabs C --layout disaggregated
MPI_GPU_AWARE="on off" bash perf/scaling/run_gpu_studies.sh /tmp/bin/C /tmp/check $NG check > $OUT/check.log 2>&1
tail -2 $OUT/check.log
