#!/bin/bash
set -u
cd "$(dirname "$0")/.."
tar xzf .gpu/ompi.tar.gz -C /opt
export PATH=/opt/karman-ompi/bin:$PATH
export LD_LIBRARY_PATH=/opt/karman-ompi/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/cuda/extras/CUPTI/lib64
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
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
