#!/usr/bin/env bash
# The CSoA chunk-size sweep of issue 14 item 2 (Chen et al. Eq. 9-11: alpha voxels' populations stored
# together). alpha is a compile-time constant of the layout, so each value is a rebuild: the build
# directory BUILD (configured already, e.g. with the cuda preset and the KARMAN_VARIANTS to sweep) is
# reconfigured with -DKARMAN_CSOA_ALPHA=alpha, its karman rebuilt, and `karman bench --layout csoa`
# run with the remaining arguments. Writes OUT/alpha<alpha>.json per value and prints, per lattice,
# precision and pattern, the MLUPS of every alpha and the best; ends with BUILD back at the backend's
# default (KARMAN_CSOA_ALPHA empty).
# Usage: perf/csoa_alpha_sweep.sh BUILD OUT "8 16 32 64 128" [karman bench options...]
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD OUT \"ALPHAS\" [karman bench options...]" >&2
  exit 2
fi
build=$1; out=$2; alphas=$3; shift 3
mkdir -p "$out"
for alpha in $alphas; do
  cmake -B "$build" -DKARMAN_CSOA_ALPHA="$alpha" >"$out/configure-alpha$alpha.log"
  cmake --build "$build" --target karman -j "$(nproc)" >"$out/build-alpha$alpha.log"
  "$build/apps/karman/karman" bench --layout csoa --json "$out/alpha$alpha.json" "$@" >"$out/bench-alpha$alpha.log"
  echo "alpha $alpha: $(grep -c '"csoa_alpha"' "$out/alpha$alpha.json") records"
done
cmake -B "$build" -DKARMAN_CSOA_ALPHA= >/dev/null
python3 - "$out" $alphas <<'EOF'
import json, os, sys
out, alphas = sys.argv[1], sys.argv[2:]
table = {}
for a in alphas:
    for r in json.load(open(os.path.join(out, f"alpha{a}.json"))):
        key = (r["case"], r["lattice"], r["precision"], r["pattern"], r["n"]) + (
            (f"l={r['marker_block']}",) if "marker_block" in r else ())
        table.setdefault(key, {})[int(a)] = r["mlups"]
print("case lattice precision pattern n [l] | " + " ".join(f"a={a:>5}" for a in alphas) + " | best")
for key, row in sorted(table.items()):
    best = max(row, key=row.get)
    cells = " ".join(f"{row.get(int(a), float('nan')):7.0f}" for a in alphas)
    print(" ".join(str(k) for k in key) + " | " + cells + f" | {best}")
EOF
