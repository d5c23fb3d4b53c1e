#!/bin/bash
# 4 x H200 with the code of 78942a5 (binary C): the strong study on 1, 2, 4 GPUs (Disaggregated and SoA + pack slabs),
# the layout comparison at 128^3 and 256^3 (D3Q27, overlap on), AA at 192^3 on 2x2x1 blocks and Disaggregated slabs.
set -u
cd "$(dirname "$0")/.."
tar xzf .gpu/ompi.tar.gz -C /opt
export PATH=/opt/karman-ompi/bin:$PATH
export LD_LIBRARY_PATH=/opt/karman-ompi/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/cuda/extras/CUPTI/lib64
mkdir -p /tmp/bin; gunzip -c .gpu/C.gz > /tmp/bin/C && chmod +x /tmp/bin/C
nvidia-smi -L > $OUT/machine.txt
S=perf/scaling/run_gpu_studies.sh
MPI_GPU_AWARE=on RANKS="1 2 4" STEPS=2000 bash $S /tmp/bin/C /tmp/res 4 strong > $OUT/strong.log 2>&1
MPI_GPU_AWARE=on LAYOUT_SIZES="126 254" LAYOUT_LATTICES=d3q27 LAYOUT_OVERLAP=on STEPS=1000 bash $S /tmp/bin/C /tmp/res 4 layout > $OUT/layout.log 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
for a in "1 --layout soa --ranks-per-axis 1x1x1" "1 --layout disaggregated" "4 --layout soa --ranks-per-axis 2x2x1" "4 --layout disaggregated"; do
  set -- $a; np=$1; shift
  mpirun -np $np --bind-to none /tmp/bin/C cavity --dim 3 --lattice d3q27 --precision float --quiet --no-fields --pattern aa \
    --mpi-gpu-aware on --kokkos-map-device-id-by=mpi_rank --n 190 --steps 2000 --output /tmp/aa --overwrite "$@" > /tmp/aa.log 2>&1
  python3 -c "import json,sys; d=json.load(open('/tmp/aa/summary.json')); print(json.dumps({'np':int(sys.argv[1]),'args':sys.argv[2],'mlups':d['mlups'],'after':d.get('mlups_after_warmup'),'fp':d['fields_fnv1a64']}))" $np "$*" | tee -a $OUT/aa.jsonl
done
cp /tmp/res/*.jsonl $OUT/
cat $OUT/strong.log $OUT/layout.log
