#!/usr/bin/env bash
# Multi-GPU studies (Meneghin & Mahmoud Fig. 6 and 7) with karman cases, one MPI rank per GPU:
#   layout    - D3Q19/D3Q27 FP32 cubes on NGPU GPUs: disaggregated vs soa vs soa + --halo-pack, overlap on/off
#   strong    - 192^3 D3Q27 FP32 (STRONG_N + 2, STRONG_LATTICE) on RANKS GPUs, disaggregated vs soa + pack (slabs)
#   cartesian - the strong case on NGPU GPUs cut into Cartesian blocks (--ranks-per-axis auto), soa
#   weak      - 256^3 per GPU on RANKS GPUs (3D channel growing along z)
#   trace     - 192^3 D3Q27 disaggregated on 2 GPUs under the CUPTI tracer (TRACER): OUT/trace-<mode>/trace_rank*.csv,
#               read by perf/timeline/plot_timeline.py
# Usage: run_gpu_studies.sh KARMAN_EXE OUT_DIR NGPU [study ...]
# Environment: STEPS (300); MPI_GPU_AWARE, the --mpi-gpu-aware modes to run each study with (default "auto";
# "on off" runs GPU-aware and staged); RANKS (default 1..NGPU); LAYOUT_SIZES (cube edges less the two walls,
# default "62 126 254"), LAYOUT_LATTICES ("d3q19 d3q27"), LAYOUT_OVERLAP ("on off"); TRACER (the tracer library).
# Writes OUT_DIR/<study>.jsonl, one summary.json per line (plot with plot_scaling.py).
set -euo pipefail
exe=$1; out=$2; ngpu=$3; shift 3
studies=${*:-layout strong weak}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# NVLink multicast stays off (shared machines; see the device notes).
export NCCL_NVLS_ENABLE=0
steps=${STEPS:-300}
modes=${MPI_GPU_AWARE:-auto}
ranks=${RANKS:-$(seq -s " " 1 "$ngpu")}
sizes=${LAYOUT_SIZES:-62 126 254}
lattices=${LAYOUT_LATTICES:-d3q19 d3q27}
overlaps=${LAYOUT_OVERLAP:-on off}
strong_n=${STRONG_N:-190}
strong_lattice=${STRONG_LATTICE:-d3q27}

run() {  # run STUDY NP MODE [--case NAME] ARGS...: one run, its summary appended to STUDY.jsonl
  local study=$1 np=$2 mode=$3 case=cavity; shift 3
  if [ "$1" = "--case" ]; then case=$2; shift 2; fi
  local dir="$out/runs/$study-$np-$mode-$case$(echo "$*" | tr ' -' '_' | tr -s _)"
  mpirun -np "$np" --oversubscribe --bind-to none ${MPIRUN_FLAGS:-} "$exe" "$case" --precision float --steps "${RUN_STEPS:-$steps}" \
    --quiet --no-fields --mpi-gpu-aware "$mode" --output "$dir" "$@" --kokkos-map-device-id-by=mpi_rank \
    >"$dir.log" 2>&1 || { echo "FAILED: $study $np $mode $*"; tail -3 "$dir.log"; return 0; }
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['ranks']=int(sys.argv[2]); print(json.dumps(d))" \
    "$dir/summary.json" "$np" >>"$out/$study.jsonl"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d.get('comm',{}); print(f\"{sys.argv[2]:>2} ranks {d['extents']} {d['variant']['lattice']} {d['variant']['layout']:>13} pack={d['run']['halo_pack']!s:5} overlap={d['run']['overlap']!s:5} gpu_aware={c.get('gpu_aware')!s:5} {d['mlups']:9.0f} MLUPS, {d.get('mlups_after_warmup') or 0:9.0f} after the warm-up\")" "$dir/summary.json" "$np"
}

mkdir -p "$out/runs"
for study in $studies; do
  for mode in $modes; do
    case $study in
      layout)
        for lattice in $lattices; do
          for n in $sizes; do
            for overlap in $overlaps; do
              run layout "$ngpu" "$mode" --dim 3 --n $n --lattice $lattice --layout disaggregated --overlap $overlap
              run layout "$ngpu" "$mode" --dim 3 --n $n --lattice $lattice --layout soa --overlap $overlap
              run layout "$ngpu" "$mode" --dim 3 --n $n --lattice $lattice --layout soa --halo-pack --overlap $overlap
            done
          done
        done ;;
      strong)
        for np in $ranks; do
          run strong "$np" "$mode" --dim 3 --n $strong_n --lattice $strong_lattice --layout disaggregated
          run strong "$np" "$mode" --dim 3 --n $strong_n --lattice $strong_lattice --layout soa --halo-pack
        done ;;
      cartesian)
        run cartesian "$ngpu" "$mode" --dim 3 --n $strong_n --lattice $strong_lattice --layout soa --ranks-per-axis auto ;;
      weak)
        # A 3D channel periodic along z grows by one 256^3 block per GPU: exactly 256^3 voxels each.
        for np in $ranks; do
          run weak "$np" "$mode" --case channel --dim 3 --length 256 --height 254 --depth $((256 * np)) \
            --lattice d3q19 --layout disaggregated
        done ;;
      trace)
        mkdir -p "$out/trace-$mode"
        MPIRUN_FLAGS="-x KOKKOS_TOOLS_LIBS=$TRACER -x KARMAN_TRACE_DIR=$out/trace-$mode" RUN_STEPS=60 \
          run trace 2 "$mode" --dim 3 --n 190 --lattice d3q27 --layout disaggregated ;;
    esac
  done
done
