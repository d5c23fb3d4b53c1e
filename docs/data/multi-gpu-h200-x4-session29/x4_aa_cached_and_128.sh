#!/bin/bash
# 4 x H200. (1) C = 78942a5 against E = C + the AA odd step's neighbour indices found once on Cartesian blocks
# (CachedNeighbours): AA at 192^3 on one 1x1x1 block, Disaggregated slabs (control), 2x1x1 and 2x2x1 blocks, and AB
# 2x2x1 blocks (E changes only the AA odd step), two interleaved rounds; every pair must give one fingerprint.
# (2) the 128^3 layout runs on 4 GPUs with overlap on and off, three interleaved rounds, C only.
# As run: E's first run (AA, one 1x1x1 block) never finished (no step in 450 s; alone at 64^3, 20 steps, none in 60 s),
# so the command ran out of time after C's first round (aa_C_first_round.jsonl); part (2) then ran as two rounds in a
# command of its own (layout128_first_x4_C.jsonl), and x4_layout_overlap.sh added three more.
BINS="C E" source "$(dirname "$0")/../multi-gpu-h200-x4-session28/common.sh"
for round in 1 2; do
  for b in C E; do
    run aa-1-block1x1x1 $b 1 --pattern aa --n 190 --steps 2000 --layout soa --ranks-per-axis 1x1x1
    run aa-1-dis $b 1 --pattern aa --n 190 --steps 2000 --layout disaggregated
    run aa-2-blocks2x1x1 $b 2 --pattern aa --n 190 --steps 2000 --layout soa --ranks-per-axis 2x1x1
    run aa-4-blocks2x2x1 $b 4 --pattern aa --n 190 --steps 2000 --layout soa --ranks-per-axis 2x2x1
    run ab-4-blocks2x2x1 $b 4 --n 190 --steps 2000 --layout soa --ranks-per-axis 2x2x1
  done
done
for round in 1 2 3; do
  for o in on off; do
    run l128-dis-$o C 4 --n 126 --steps 2000 --layout disaggregated --overlap $o
    run l128-soapack-$o C 4 --n 126 --steps 2000 --layout soa --halo-pack --overlap $o
  done
done
