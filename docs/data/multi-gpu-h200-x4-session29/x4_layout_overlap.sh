#!/bin/bash
# 4 x H200, C = 78942a5: the layout comparison with overlap on and off (128^3 three more rounds, 64^3 and 256^3 two),
# then 60 traced steps of each 128^3 configuration (CUPTI tracer) into traces.tar.gz.
BINS="C" source "$(dirname "$0")/../multi-gpu-h200-x4-session28/common.sh"
for round in 3 4 5; do
  for o in on off; do
    run l128-dis-$o C 4 --n 126 --steps 2000 --layout disaggregated --overlap $o
    run l128-soapack-$o C 4 --n 126 --steps 2000 --layout soa --halo-pack --overlap $o
  done
done
for round in 1 2; do for n in 62 254; do for o in on off; do
  run l$((n + 2))-dis-$o C 4 --n $n --steps 1000 --layout disaggregated --overlap $o
  run l$((n + 2))-soapack-$o C 4 --n $n --steps 1000 --layout soa --halo-pack --overlap $o
done; done; done
for o in on off; do for l in "dis --layout disaggregated" "soapack --layout soa --halo-pack"; do
  set -- $l; T=/tmp/traces/l128-$1-$o; mkdir -p $T; shift
  MPIFLAGS="-x KOKKOS_TOOLS_LIBS=/tmp/bin/tracer.so -x KARMAN_TRACE_DIR=$T" run trace-l128 C 4 --n 126 --steps 60 --overlap $o "$@"
done; done
tar czf $OUT/traces.tar.gz -C /tmp traces
