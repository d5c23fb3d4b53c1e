#!/bin/bash
# 4 x H200, 128^3 and 192^3 D3Q27 cavity, slabs, overlap on and off, three builds interleaved: A = 197eadc (before the boundary
# kernel beside the bulk kernel of B = 989adee), C1 = the shared kernels joined through one instance (session 28, not kept), C = 78942a5
# (the shared kernels side by side, main since session 28). Three rounds at 128^3, one at 192^3.
BINS="A C1 C" source "$(dirname "$0")/../multi-gpu-h200-x4-session28/common.sh"
for round in 1 2 3; do
  for b in A C1 C; do
    for o in on off; do
      run s128-dis-$o $b 4 --n 126 --steps 2000 --layout disaggregated --overlap $o
      run s128-soapack-$o $b 4 --n 126 --steps 2000 --layout soa --halo-pack --overlap $o
    done
  done
done
for b in A C1 C; do
  run s192-dis-on $b 4 --n 190 --steps 2000 --layout disaggregated
  run s192-blocks-on $b 4 --n 190 --steps 2000 --layout soa --ranks-per-axis 2x2x1
done
