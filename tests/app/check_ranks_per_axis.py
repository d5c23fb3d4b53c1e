#!/usr/bin/env python3
"""karman cavity on Cartesian blocks (--ranks-per-axis, issue 18): under mpirun the blocks of
2x2x1, auto and 1x1x1 give the fields of the one-rank slab run bitwise (summary.json's
fingerprint of the fields gathered on rank 0 in global order, and the centre-line profile drawn
from them), the same mass and residual to rounding, record the process grid and the edge
messages of a block; rank 0 writes the fields.
Bad grids (product, form, text, zero) are refused before anything is written. A checkpoint of
2x2x1 blocks restarts bitwise on blocks, slabs, one rank and another grid.
Usage: check_ranks_per_axis.py KARMAN MPIEXEC"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

KARMAN, MPIEXEC = sys.argv[1], sys.argv[2]
H5DIFF = shutil.which("h5diff")  # hdf5-tools; the field files are compared where it is installed
failures = []


def run(ranks, args):
    cmd = ([MPIEXEC, "-np", str(ranks), "--oversubscribe"] if ranks > 1 else []) + [KARMAN, "cavity"] + args
    return subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))


def summary(path):
    with open(os.path.join(path, "summary.json")) as f:
        return json.load(f)


with tempfile.TemporaryDirectory() as tmp:
    for dim, n, grid in [(3, 14, "2x2x1"), (2, 22, "2x2")]:
        case = ["--dim", str(dim), "--n", str(n), "--re", "20", "--precision", "double", "--layout", "soa",
                "--steps", "20", "--check-every", "10", "--quiet"]
        runs = {"slabs 1": (1, []), f"{grid} 4": (4, ["--ranks-per-axis", grid]),
                "auto 4": (4, ["--ranks-per-axis", "auto"]), "slabs 4": (4, [])}
        if dim == 3:
            runs["1x1x1 1"] = (1, ["--ranks-per-axis", "1x1x1"])
        results, profiles = {}, {}
        for name, (ranks, extra) in runs.items():
            out = os.path.join(tmp, f"{dim}d-{name.replace(' ', '-')}")
            proc = run(ranks, case + extra + ["--output", out])
            if proc.returncode != 0:
                failures.append(f"{dim}D {name}: exit {proc.returncode}: {proc.stderr[-600:]}")
                continue
            names = sorted(os.listdir(out))
            if not {"fields.xdmf", "fields_000020.h5", "summary.json", "centerline_u.csv"} <= set(names):
                failures.append(f"{dim}D {name} wrote {names}")
            results[name] = summary(out)
            with open(os.path.join(out, "centerline_u.csv")) as f:
                profiles[name] = f.read()
        if "slabs 1" not in results:
            continue
        one = results["slabs 1"]
        for name, s in results.items():
            if s["fields_fnv1a64"] != one["fields_fnv1a64"]:
                failures.append(f"{dim}D {name}: fields {s['fields_fnv1a64']}, one rank {one['fields_fnv1a64']}")
            if profiles[name] != profiles["slabs 1"]:
                failures.append(f"{dim}D {name}: centerline_u.csv differs from one rank's")
            # The field file rank 0 writes for blocks holds the one-rank values in global order.
            if H5DIFF:
                files = [os.path.join(tmp, f"{dim}d-{k.replace(' ', '-')}", "fields_000020.h5") for k in (name, "slabs 1")]
                for dataset in ["/rho", "/ux", "/uy"]:
                    if subprocess.run([H5DIFF, *files, dataset, dataset], capture_output=True).returncode != 0:
                        failures.append(f"{dim}D {name}: {dataset} of fields_000020.h5 differs from one rank's")
            for key in ["total_mass", "final_residual"]:
                if not abs(s[key] - one[key]) <= 1e-12 * abs(one[key]):
                    failures.append(f"{dim}D {name}: {key} {s[key]!r}, one rank {one[key]!r}")
        expected_grid = [2, 2, 1] if dim == 2 or grid == "2x2x1" else None
        blocks = results.get(f"{grid} 4")
        if blocks is not None:
            if blocks["decomposition"] != {"kind": "blocks", "process_grid": expected_grid}:
                failures.append(f"{dim}D {grid}: decomposition {blocks['decomposition']}")
            # Table III per neighbour kind: every block of a closed 2x2 grid has two face neighbours
            # and one diagonal (an edge), one message each; a face carries the populations crossing
            # it over the block's side (D3Q19: 5 of 8 x 16 voxels, D2Q9: 3 of 12), the edge one
            # population over 16 voxels (a line along z) or 1 (2D).
            face_values, edge_values = (2 * 5 * 8 * 16, 16) if dim == 3 else (2 * 3 * 12, 1)
            expected = {"face": [2, face_values], "edge": [1, edge_values], "corner": [0, 0]}
            for r in blocks["comm"]["per_rank"]:
                counts = {k: [v["messages_sent_per_step"], v["values_sent_per_step"]]
                          for k, v in r["by_neighbour_kind"].items()}
                if counts != expected:
                    failures.append(f"{dim}D {grid}: rank {r['rank']} sends {counts}, expected {expected}")
        slabs = results.get("slabs 4")
        if slabs is not None and slabs["decomposition"]["kind"] != "slabs":
            failures.append(f"{dim}D slabs: decomposition {slabs['decomposition']}")

    # Refused on every rank before anything is written, naming the value and the accepted form.
    bad = [("3x1x1", "product 3 is not 4"), ("2x2", "expected 3 counts"), ("axb", "'a' is not a count"),
           ("0x4x1", "a count of 0")]
    for text, reason in bad:
        out = os.path.join(tmp, f"bad-{text}")
        proc = run(4, ["--dim", "3", "--n", "14", "--steps", "2", "--ranks-per-axis", text, "--output", out])
        message = f"--ranks-per-axis {text}: {reason}; accepted: AxBxC"
        if proc.returncode == 0 or message not in proc.stderr or os.path.exists(out):
            failures.append(f"--ranks-per-axis {text} on 4 ranks: exit {proc.returncode}, output "
                            f"{'written' if os.path.exists(out) else 'absent'}: {proc.stderr[-400:]}")
    # Checkpoints on blocks: each rank's file holds its block; a run restarted from step 10 of a
    # 2x2x1 run continues bitwise, on 2x2x1 blocks, on 2 slabs, on one rank and on 1x2x2 blocks
    # (the files' boxes cut and joined for the new ranks).
    case = ["--dim", "3", "--n", "14", "--re", "20", "--precision", "double", "--layout", "soa", "--quiet"]
    straight = os.path.join(tmp, "cp-straight")
    proc = run(1, case + ["--steps", "20", "--output", straight])
    written = os.path.join(tmp, "cp-blocks")
    proc = run(4, case + ["--steps", "10", "--ranks-per-axis", "2x2x1", "--checkpoint-every", "10", "--output", written])
    step10 = os.path.join(written, "checkpoints", "step_000000000010")
    if proc.returncode != 0 or not os.path.exists(os.path.join(step10, "manifest.json")):
        failures.append(f"2x2x1 with --checkpoint-every: exit {proc.returncode}: {proc.stderr[-400:]}")
    else:
        with open(os.path.join(step10, "manifest.json")) as f:
            boxes = sorted((e["box_begin"], e["box_extents"]) for e in json.load(f)["files"])
        if boxes != [([0, 0, 0], [8, 8, 16]), ([0, 8, 0], [8, 8, 16]), ([8, 0, 0], [8, 8, 16]), ([8, 8, 0], [8, 8, 16])]:
            failures.append(f"2x2x1 checkpoint: the files' boxes are {boxes}")
        for name, ranks, extra in [("2x2x1", 4, ["--ranks-per-axis", "2x2x1"]), ("slabs 2", 2, []),
                                   ("one rank", 1, []), ("1x2x2", 4, ["--ranks-per-axis", "1x2x2"])]:
            out = os.path.join(tmp, "cp-restart-" + name.replace(" ", "-"))
            proc = run(ranks, case + ["--steps", "20", "--output", out, "--restart", step10] + extra)
            if proc.returncode != 0:
                failures.append(f"restart of the 2x2x1 checkpoint on {name}: exit {proc.returncode}: {proc.stderr[-400:]}")
            elif summary(out)["fields_fnv1a64"] != summary(straight)["fields_fnv1a64"]:
                failures.append(f"restart of the 2x2x1 checkpoint on {name}: fields {summary(out)['fields_fnv1a64']}, "
                                f"straight run {summary(straight)['fields_fnv1a64']}")

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
