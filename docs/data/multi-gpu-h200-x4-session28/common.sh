# Sourced by this folder's scripts, which run on the device (binaries and the Open MPI install under the checkout's .gpu/):
# the CUDA-aware Open MPI, the binaries named in BINS unpacked to /tmp/bin, NG = the machine's GPUs, machine.txt,
# and run TAG BIN NP ARGS...: one D3Q27 FP32 cavity run, GPU-aware, its summary as one JSON line in $OUT/runs.jsonl.
set -u
cd "$(dirname "$0")/../../.."
tar xzf .gpu/ompi.tar.gz -C /opt
export PATH=/opt/karman-ompi/bin:$PATH
export LD_LIBRARY_PATH=/opt/karman-ompi/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/cuda/extras/CUPTI/lib64
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
mkdir -p /tmp/bin /tmp/r
for b in $BINS; do gunzip -c .gpu/$b.gz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
cp .gpu/tracer.so /tmp/bin/ 2>/dev/null
NG=$(nvidia-smi -L | wc -l)
{ date; nvidia-smi; nvidia-smi topo -m; ompi_info --parsable --all | grep cuda_support; } > $OUT/machine.txt 2>&1
run() {
  local tag=$1 bin=$2 np=$3; shift 3
  local dir=/tmp/r/$tag-$bin
  mpirun -np $np --bind-to none ${MPIFLAGS:-} /tmp/bin/$bin cavity --dim 3 --lattice d3q27 --precision float --quiet \
    --no-fields --mpi-gpu-aware on --kokkos-map-device-id-by=mpi_rank --output $dir --overwrite "$@" > $dir.log 2>&1 \
    || { echo "FAILED $tag $bin"; tail -5 $dir.log; return; }
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({'tag':sys.argv[2],'bin':sys.argv[3],'np':int(sys.argv[4]),'mlups':d['mlups'],'after':d.get('mlups_after_warmup'),'fp':d['fields_fnv1a64']}))" \
    $dir/summary.json $tag $bin $np | tee -a $OUT/runs.jsonl
}
# trace NAME BIN ARGS...: 60 steps of BIN on every GPU under the CUPTI tracer, CSVs in $OUT/traces.tar.gz.
trace() {
  local name=$1 bin=$2; shift 2
  local T=/tmp/traces/$bin-$NG-$name; mkdir -p $T
  MPIFLAGS="-x KOKKOS_TOOLS_LIBS=/tmp/bin/tracer.so -x KARMAN_TRACE_DIR=$T" run trace-$name $bin $NG --n 190 --steps 60 "$@"
  cp /tmp/r/trace-*.log /tmp/traces/ 2>/dev/null
  tar czf $OUT/traces.tar.gz -C /tmp traces
}
