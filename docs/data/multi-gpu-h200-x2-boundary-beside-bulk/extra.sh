#!/bin/bash
# B on 2 GPUs with --overlap off (the plain step with an exchanger and the boundary kernel apart): fingerprints of
# the invariance check's 64^3 cavity; then AA A/B at 192^3 on 1 and 2 GPUs.
set -u
cd "$(dirname "$0")/.."
tar xzf .gpu/ompi.tar.gz -C /opt
export PATH=/opt/karman-ompi/bin:$PATH
export LD_LIBRARY_PATH=/opt/karman-ompi/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/cuda/extras/CUPTI/lib64
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
mkdir -p /tmp/bin /tmp/r
for b in A B; do gunzip -c .gpu/$b.gz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
run() {  # run TAG BIN NP ARGS...
  local tag=$1 bin=$2 np=$3; shift 3
  local dir=/tmp/r/$tag-$bin
  mpirun -np $np --bind-to none /tmp/bin/$bin cavity --dim 3 --lattice d3q27 --precision float --quiet \
    --no-fields --kokkos-map-device-id-by=mpi_rank --output $dir --overwrite "$@" > $dir.log 2>&1 \
    || { echo "FAILED $tag $bin"; tail -5 $dir.log; return; }
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({'tag':sys.argv[2],'bin':sys.argv[3],'np':int(sys.argv[4]),'mlups':d['mlups'],'after':d.get('mlups_after_warmup'),'fp':d['fields_fnv1a64']}))" \
    $dir/summary.json $tag $bin $np | tee -a $OUT/extra.jsonl
}
for p in ab aa; do
  for m in on off; do
    run check-off-$p-dis-$m B 2 --n 64 --steps 101 --pattern $p --layout disaggregated --overlap off --mpi-gpu-aware $m
    run check-off-$p-blocks-$m B 2 --n 64 --steps 101 --pattern $p --layout soa --ranks-per-axis 2x1x1 --overlap off --mpi-gpu-aware $m
  done
done
for r in 1 2; do
  for b in A B; do
    run aa-1gpu-soa-192 $b 1 --n 190 --steps 2000 --pattern aa --layout soa
    run aa-2gpu-soa-2x1x1-192 $b 2 --n 190 --steps 2000 --pattern aa --layout soa --ranks-per-axis 2x1x1 --mpi-gpu-aware on
    run ab-2gpu-soa-2x1x1-192-overlap-off $b 2 --n 190 --steps 2000 --layout soa --ranks-per-axis 2x1x1 --mpi-gpu-aware on --overlap off
  done
done
