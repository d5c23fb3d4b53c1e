#!/bin/bash
# B (989adee) / D (session 28: CartesianNeighbours' within-a-cell path) interleaved on every GPU of the machine,
# D3Q27 FP32 cavity 192^3, 2000 steps: AA and AB on Cartesian blocks (1x1x1 on one GPU, 2x1x1 on two), AA on a slab,
# Disaggregated slabs as a control; then the invariance check of D (GPU-aware and staged).
reps=${1:-2}
BINS="B D" source "$(dirname "$0")/common.sh"
for r in $(seq $reps); do
  for b in B D; do
    run 1gpu-aa-slab $b 1 --n 190 --steps 2000 --layout soa --pattern aa
    run 1gpu-aa-1x1x1 $b 1 --n 190 --steps 2000 --layout soa --pattern aa --ranks-per-axis 1x1x1
    run 1gpu-ab-1x1x1 $b 1 --n 190 --steps 2000 --layout soa --ranks-per-axis 1x1x1
    run 1gpu-ab-slab $b 1 --n 190 --steps 2000 --layout soa
    if [ "$NG" -gt 1 ]; then
      run ${NG}gpu-aa-2x1x1 $b $NG --n 190 --steps 2000 --layout soa --pattern aa --ranks-per-axis 2x1x1
      run ${NG}gpu-ab-2x1x1 $b $NG --n 190 --steps 2000 --layout soa --ranks-per-axis 2x1x1
      run ${NG}gpu-ab-dis-slabs $b $NG --n 190 --steps 2000 --layout disaggregated
    fi
  done
done
NC=$NG; [ "$NG" = 1 ] && NC=2
MPI_GPU_AWARE="on off" bash perf/scaling/run_gpu_studies.sh /tmp/bin/D /tmp/check $NC check > $OUT/check.log 2>&1
tail -2 $OUT/check.log
