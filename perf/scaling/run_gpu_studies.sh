#!/usr/bin/env bash
# Multi-GPU studies of issue 7 (seed 000 Fig. 6 and 7) with karman cases, one MPI rank per GPU:
#   layout  - D3Q19/D3Q27 FP32 cubes on NGPU GPUs: disaggregated vs soa vs soa + --halo-pack, overlap on/off
#   strong  - 192^3 D3Q27 FP32 on 1..NGPU GPUs, disaggregated vs soa + pack
#   weak    - 256^3 per GPU, 1..NGPU GPUs (3D channel growing along z)
# Usage: run_gpu_studies.sh KARMAN_EXE OUT_DIR NGPU [study ...]
# Writes OUT_DIR/<study>.jsonl, one summary.json per line (plot with plot_scaling.py).
set -euo pipefail
exe=$1; out=$2; ngpu=$3; shift 3
studies=${*:-layout strong weak}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# NVLink multicast stays off (shared machines; see the device notes).
export NCCL_NVLS_ENABLE=0
steps=${STEPS:-300}

run() {  # run STUDY NP [--case NAME] ARGS...: one run, its summary appended to STUDY.jsonl
  local study=$1 np=$2 case=cavity; shift 2
  if [ "$1" = "--case" ]; then case=$2; shift 2; fi
  local dir="$out/runs/$study-$np-$case$(echo "$*" | tr ' -' '_' | tr -s _)"
  mpirun -np "$np" --oversubscribe --bind-to none "$exe" "$case" --precision float --steps "$steps" --quiet --no-fields \
    --output "$dir" "$@" --kokkos-map-device-id-by=mpi_rank >"$dir.log" 2>&1 || { echo "FAILED: $*"; tail -3 "$dir.log"; return 0; }
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['ranks']=int(sys.argv[2]); print(json.dumps(d))" \
    "$dir/summary.json" "$np" >>"$out/$study.jsonl"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d.get('comm',{}); print(f\"{sys.argv[2]:>2} ranks {d['extents']} {d['variant']['lattice']} {d['variant']['layout']:>13} pack={d['run']['halo_pack']!s:5} overlap={d['run']['overlap']!s:5} {d['mlups']:9.0f} MLUPS\")" "$dir/summary.json" "$np"
}

mkdir -p "$out/runs"
for study in $studies; do
  case $study in
    layout)
      for lattice in d3q19 d3q27; do
        for n in 62 126 254; do
          for overlap in on off; do
            run layout "$ngpu" --dim 3 --n $n --lattice $lattice --layout disaggregated --overlap $overlap
            run layout "$ngpu" --dim 3 --n $n --lattice $lattice --layout soa --overlap $overlap
            run layout "$ngpu" --dim 3 --n $n --lattice $lattice --layout soa --halo-pack --overlap $overlap
          done
        done
      done ;;
    strong)
      for np in $(seq 1 "$ngpu"); do
        run strong "$np" --dim 3 --n 190 --lattice d3q27 --layout disaggregated
        run strong "$np" --dim 3 --n 190 --lattice d3q27 --layout soa --halo-pack
      done ;;
    weak)
      # A 3D channel periodic along z grows by one 256^3 block per GPU: exactly 256^3 voxels each.
      for np in $(seq 1 "$ngpu"); do
        run weak "$np" --case channel --dim 3 --length 256 --height 254 --depth $((256 * np)) --lattice d3q19 \
          --layout disaggregated
      done ;;
  esac
done
