#!/bin/bash
# B (989adee) / D (session 28: CartesianNeighbours' within-a-cell path) interleaved on every GPU of the machine,
# D3Q27 FP32 cavity 192^3, 2000 steps: AA and AB on Cartesian blocks (1x1x1 on one GPU, 2x1x1 on two), AA on a slab,
# Disaggregated slabs as a control; then the invariance check of D (GPU-aware and staged).
set -u
reps=${1:-2}
cd "$(dirname "$0")/.."
tar xzf .gpu/ompi.tar.gz -C /opt
export PATH=/opt/karman-ompi/bin:$PATH
export LD_LIBRARY_PATH=/opt/karman-ompi/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/cuda/extras/CUPTI/lib64
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
mkdir -p /tmp/bin /tmp/r
for b in B D; do gunzip -c .gpu/$b.gz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
NG=$(nvidia-smi -L | wc -l)
{ date; nvidia-smi; nvidia-smi topo -m; ompi_info --parsable --all | grep cuda_support; } > $OUT/machine.txt 2>&1
run() {  # run TAG BIN NP ARGS...
  local tag=$1 bin=$2 np=$3; shift 3
  local dir=/tmp/r/$tag-$bin
  mpirun -np $np --bind-to none /tmp/bin/$bin cavity --dim 3 --lattice d3q27 --precision float --quiet \
    --no-fields --mpi-gpu-aware on --kokkos-map-device-id-by=mpi_rank --output $dir --overwrite "$@" > $dir.log 2>&1 \
    || { echo "FAILED $tag $bin"; tail -5 $dir.log; return; }
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({'tag':sys.argv[2],'bin':sys.argv[3],'np':int(sys.argv[4]),'mlups':d['mlups'],'after':d.get('mlups_after_warmup'),'fp':d['fields_fnv1a64']}))" \
    $dir/summary.json $tag $bin $np | tee -a $OUT/runs.jsonl
}
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
