#!/bin/bash
# 4 x H200: A (197eadc) / B (989adee, = main's code) interleaved, D3Q27 FP32 cavity 192^3, 2000 steps;
# then CUPTI traces of B (2x2x1 blocks, slabs) and the invariance check of B on 4 GPUs (GPU-aware).
reps=${1:-3}
BINS="A B" source "$(dirname "$0")/common.sh"
for r in $(seq $reps); do
  for b in A B; do
    run 1gpu-soa-192 $b 1 --n 190 --steps 2000 --layout soa
    run ${NG}gpu-soa-2x2x1-192 $b $NG --n 190 --steps 2000 --layout soa --ranks-per-axis 2x2x1
    run ${NG}gpu-soa-2x1x2-192 $b $NG --n 190 --steps 2000 --layout soa --ranks-per-axis 2x1x2
    run ${NG}gpu-dis-slabs-192 $b $NG --n 190 --steps 2000 --layout disaggregated
  done
done
trace blocks B --layout soa --ranks-per-axis 2x2x1
trace slabs B --layout disaggregated
MPI_GPU_AWARE=on bash perf/scaling/run_gpu_studies.sh /tmp/bin/B /tmp/check $NG check > $OUT/check.log 2>&1
tail -2 $OUT/check.log
