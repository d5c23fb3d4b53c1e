#!/usr/bin/env bash
# Multi-GPU studies (Meneghin & Mahmoud Fig. 6 and 7) with karman cases, one MPI rank per GPU:
#   layout    - D3Q19/D3Q27 FP32 cubes on NGPU GPUs: disaggregated vs soa vs soa + --halo-pack, overlap on/off
#   strong    - 192^3 D3Q27 FP32 (STRONG_N + 2, STRONG_LATTICE) on RANKS GPUs, disaggregated vs soa + pack (slabs)
#   cartesian - the strong case on NGPU GPUs cut into Cartesian blocks (--ranks-per-axis auto), soa
#   weak      - 256^3 per GPU on RANKS GPUs (3D channel growing along z)
#   trace     - 192^3 D3Q27 disaggregated on 2 GPUs under the CUPTI tracer (TRACER): OUT/trace-<mode>/trace_rank*.csv,
#               read by perf/timeline/plot_timeline.py
#   check     - decomposition invariance: a CHECK_N^3 D3Q27 cavity (64), 101 steps, AB and AA, disaggregated and
#               soa + pack, on 1 and NGPU GPUs (slabs) and on NGPU Cartesian blocks (soa); every run must give one
#               fields fingerprint (OUT/check.txt); exits 1 otherwise
# Usage: run_gpu_studies.sh KARMAN_EXE OUT_DIR NGPU [study ...]
# Environment: STEPS (300); MPI_GPU_AWARE, the --mpi-gpu-aware modes to run each study with (default "auto";
# "on off" runs GPU-aware and staged); RANKS (default 1..NGPU); LAYOUT_SIZES (cube edges less the two walls,
# default "62 126 254"), LAYOUT_LATTICES ("d3q19 d3q27"), LAYOUT_OVERLAP ("on off"); TRACER (the tracer library);
# DEVICE_FLAGS (default --kokkos-map-device-id-by=mpi_rank, a GPU per rank with Kokkos 4; empty on CPU builds).
# Writes OUT_DIR/<study>.jsonl, one summary.json per line (plot with plot_scaling.py); each run writes
# OUT_DIR/runs/<study>-<ranks>-<mode>-<case><options>, replaced when the same run comes again.
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
device_flags=${DEVICE_FLAGS---kokkos-map-device-id-by=mpi_rank}
check_n=${CHECK_N:-64}

run() {  # run STUDY NP MODE [--case NAME] ARGS...: one run, its summary appended to STUDY.jsonl
  local study=$1 np=$2 mode=$3 case=cavity; shift 3
  if [ "$1" = "--case" ]; then case=$2; shift 2; fi
  local dir="$out/runs/$study-$np-$mode-$case$(echo "$*" | tr ' -' '_' | tr -s _)"
  mpirun -np "$np" --oversubscribe --bind-to none ${MPIRUN_FLAGS:-} "$exe" "$case" --precision float --steps "${RUN_STEPS:-$steps}" \
    --quiet --no-fields --mpi-gpu-aware "$mode" --output "$dir" --overwrite "$@" $device_flags \
    >"$dir.log" 2>&1 || { echo "FAILED: $study $np $mode $*"; tail -3 "$dir.log"; return 0; }
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['ranks']=int(sys.argv[2]); print(json.dumps(d))" \
    "$dir/summary.json" "$np" >>"$out/$study.jsonl"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d.get('comm',{}); print(f\"{sys.argv[2]:>2} ranks {d['extents']} {d['variant']['lattice']} {d['variant']['layout']:>13} pack={d['run']['halo_pack']!s:5} overlap={d['run']['overlap']!s:5} gpu_aware={c.get('gpu_aware')!s:5} {d['mlups']:9.0f} MLUPS, {d.get('mlups_after_warmup') or 0:9.0f} after the warm-up\")" "$dir/summary.json" "$np"
}

mkdir -p "$out/runs"
rm -f "$out/check.jsonl"  # the check compares this invocation's runs only
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
      check)
        for pattern in ab aa; do
          for run_args in "1 disaggregated" "1 soa --halo-pack" "$ngpu disaggregated" "$ngpu soa --halo-pack" \
                          "$ngpu soa --ranks-per-axis auto"; do
            set -- $run_args
            RUN_STEPS=101 run check "$1" "$mode" --dim 3 --n "$check_n" --lattice d3q27 --pattern $pattern --layout "${@:2}"
          done
        done ;;
      trace)
        mkdir -p "$out/trace-$mode"
        MPIRUN_FLAGS="-x KOKKOS_TOOLS_LIBS=$TRACER -x KARMAN_TRACE_DIR=$out/trace-$mode" RUN_STEPS=60 \
          run trace 2 "$mode" --dim 3 --n 190 --lattice d3q27 --layout disaggregated ;;
    esac
  done
done

if [[ " $studies " == *" check "* ]]; then
  # One fingerprint over every check run (1 GPU, slabs, blocks, both patterns and layouts), or exit 1.
  python3 - "$out/check.jsonl" "$out/check.txt" <<'PY'
import json, os, sys
runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()] if os.path.exists(sys.argv[1]) else []
lines = [f"{r['ranks']} ranks {r['variant']['pattern']} {r['variant']['layout']}{' pack' if r['run']['halo_pack'] else ''}"
         f" {r['run'].get('ranks_per_axis') or 'slabs'} gpu_aware={r.get('comm', {}).get('gpu_aware')}: {r['fields_fnv1a64']}"
         for r in runs]
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
fingerprints = {r["fields_fnv1a64"] for r in runs}
if len(runs) < 2 or len(fingerprints) != 1:
    sys.exit(f"check: {len(runs)} runs, {len(fingerprints)} fingerprints (one expected)")
print(f"check: {len(runs)} runs, one fingerprint {fingerprints.pop()}")
PY
fi
