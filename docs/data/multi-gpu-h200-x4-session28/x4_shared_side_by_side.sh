#!/bin/bash
# 4 x H200: B (989adee) / C (session 28 variant C2, the code of 78942a5: shared kernels side by side) interleaved, 192^3;
# then a CUPTI trace of C (2x2x1 blocks) and the strong study of B at 4 ranks (run_gpu_studies.sh, 2000 steps).
set -u
reps=${1:-3}
cd "$(dirname "$0")/.."
tar xzf .gpu/ompi.tar.gz -C /opt
export PATH=/opt/karman-ompi/bin:$PATH
export LD_LIBRARY_PATH=/opt/karman-ompi/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/cuda/extras/CUPTI/lib64
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
mkdir -p /tmp/bin /tmp/r
for b in B C; do gunzip -c .gpu/$b.gz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
cp .gpu/tracer.so /tmp/bin/
NG=$(nvidia-smi -L | wc -l)
blocks=2x1x1; other=1x1x2; [ "$NG" = 4 ] && blocks=2x2x1 && other=2x1x2
{ date; nvidia-smi; nvidia-smi topo -m; ompi_info --parsable --all | grep cuda_support; } > $OUT/machine.txt 2>&1
run() {  # run TAG BIN NP ARGS...
  local tag=$1 bin=$2 np=$3; shift 3
  local dir=/tmp/r/$tag-$bin
  mpirun -np $np --bind-to none ${MPIFLAGS:-} /tmp/bin/$bin cavity --dim 3 --lattice d3q27 --precision float --quiet \
    --no-fields --mpi-gpu-aware on --kokkos-map-device-id-by=mpi_rank --output $dir --overwrite "$@" > $dir.log 2>&1 \
    || { echo "FAILED $tag $bin"; tail -5 $dir.log; return; }
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({'tag':sys.argv[2],'bin':sys.argv[3],'np':int(sys.argv[4]),'mlups':d['mlups'],'after':d.get('mlups_after_warmup'),'fp':d['fields_fnv1a64']}))" \
    $dir/summary.json $tag $bin $np | tee -a $OUT/runs.jsonl
}
for r in $(seq $reps); do
  for b in B C; do
    run 1gpu-soa-192 $b 1 --n 190 --steps 2000 --layout soa
    run 1gpu-dis-192 $b 1 --n 190 --steps 2000 --layout disaggregated

    run ${NG}gpu-soa-$blocks-192 $b $NG --n 190 --steps 2000 --layout soa --ranks-per-axis $blocks

    run ${NG}gpu-dis-slabs-192 $b $NG --n 190 --steps 2000 --layout disaggregated
  done
done
for cfg in "blocks --layout soa --ranks-per-axis $blocks"; do
  set -- $cfg; name=$1; shift
  T=/tmp/traces/C-$NG-$name; mkdir -p $T
  MPIFLAGS="-x KOKKOS_TOOLS_LIBS=/tmp/bin/tracer.so -x KARMAN_TRACE_DIR=$T" run trace-$name C $NG --n 190 --steps 60 "$@"
done
cp /tmp/r/trace-*.log /tmp/traces/ 2>/dev/null
tar czf $OUT/traces.tar.gz -C /tmp traces
MPI_GPU_AWARE=on RANKS=4 STEPS=2000 bash perf/scaling/run_gpu_studies.sh /tmp/bin/B /tmp/strong $NG strong > $OUT/strong.log 2>&1; cp /tmp/strong/strong.jsonl $OUT/ 2>/dev/null
tail -3 $OUT/strong.log
