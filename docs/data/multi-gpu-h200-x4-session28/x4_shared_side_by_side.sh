#!/bin/bash
# 4 x H200: B (989adee) / C (session 28 variant C2, the code of 78942a5: shared kernels side by side) interleaved,
# D3Q27 FP32 cavity 192^3, 2000 steps; then a CUPTI trace of C (2x2x1 blocks) and the strong study of B at 4 ranks.
reps=${1:-3}
BINS="B C" source "$(dirname "$0")/common.sh"
for r in $(seq $reps); do
  for b in B C; do
    run 1gpu-soa-192 $b 1 --n 190 --steps 2000 --layout soa
    run 1gpu-dis-192 $b 1 --n 190 --steps 2000 --layout disaggregated
    run ${NG}gpu-soa-2x2x1-192 $b $NG --n 190 --steps 2000 --layout soa --ranks-per-axis 2x2x1
    run ${NG}gpu-dis-slabs-192 $b $NG --n 190 --steps 2000 --layout disaggregated
  done
done
trace blocks C --layout soa --ranks-per-axis 2x2x1
MPI_GPU_AWARE=on RANKS=4 STEPS=2000 bash perf/scaling/run_gpu_studies.sh /tmp/bin/B /tmp/strong $NG strong > $OUT/strong.log 2>&1
cp /tmp/strong/strong.jsonl $OUT/
tail -3 $OUT/strong.log
