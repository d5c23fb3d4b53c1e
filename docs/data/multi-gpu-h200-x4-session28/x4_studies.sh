#!/bin/bash
# 4 x H200 with the code of 78942a5 (binary C): the strong study on 1, 2, 4 GPUs (Disaggregated and SoA + pack slabs),
# the layout comparison at 128^3 and 256^3 (D3Q27, overlap on), AA at 192^3 on 2x2x1 blocks and Disaggregated slabs.
BINS=C source "$(dirname "$0")/common.sh"
S=perf/scaling/run_gpu_studies.sh
MPI_GPU_AWARE=on RANKS="1 2 4" STEPS=2000 bash $S /tmp/bin/C /tmp/res 4 strong > $OUT/strong.log 2>&1
MPI_GPU_AWARE=on LAYOUT_SIZES="126 254" LAYOUT_LATTICES=d3q27 LAYOUT_OVERLAP=on STEPS=1000 bash $S /tmp/bin/C /tmp/res 4 layout > $OUT/layout.log 2>&1
for a in "1 --layout soa --ranks-per-axis 1x1x1" "1 --layout disaggregated" "4 --layout soa --ranks-per-axis 2x2x1" \
         "4 --layout disaggregated"; do
  set -- $a; np=$1; shift
  run aa-$np-$2 C $np --pattern aa --n 190 --steps 2000 "$@"  # aa.jsonl: these lines of runs.jsonl
done
cp /tmp/res/*.jsonl $OUT/
cat $OUT/strong.log $OUT/layout.log
