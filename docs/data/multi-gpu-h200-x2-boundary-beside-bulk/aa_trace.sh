#!/bin/bash
# AA traces of the B build on 1 and 2 GPUs (second command); Open MPI, PATH and LD_LIBRARY_PATH set up as in extra.sh.
set -u
cd "$(dirname "$0")/.."
gunzip -c .gpu/B.gz > /tmp/B && chmod +x /tmp/B
run() {  # run NAME NP ARGS...
  local name=$1 np=$2; shift 2
  T=/tmp/traces/$name; mkdir -p $T
  mpirun -np $np --bind-to none -x KOKKOS_TOOLS_LIBS=$PWD/.gpu/tracer.so -x KARMAN_TRACE_DIR=$T /tmp/B cavity --dim 3 \
    --lattice d3q27 --precision float --quiet --no-fields --kokkos-map-device-id-by=mpi_rank --mpi-gpu-aware on \
    --n 190 --steps 60 --pattern aa --output /tmp/o-$name --overwrite "$@" > $T/log 2>&1
  echo "$name $(grep -o '"mlups_after_warmup": [0-9.]*' /tmp/o-$name/summary.json)"
}
run aa-1-cart111 1 --layout soa --ranks-per-axis 1x1x1
run aa-2-soa-slabs 2 --layout soa
run aa-2-dis-slabs 2 --layout disaggregated
run aa-2-soa-1x1x2 2 --layout soa --ranks-per-axis 1x1x2
tar czf $OUT/aatraces.tar.gz -C /tmp traces
