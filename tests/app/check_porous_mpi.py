#!/usr/bin/env python3
"""karman porous under mpirun (the block-sparse grid's block planes divided between the ranks):
the same sample on 1, 2 and 3 ranks gives the same porosity, fluid voxels and blocks, and the
same superficial velocity, permeability and pressure gradient to rounding (the ranks sum their
shares in another order), for a body-force and a pressure drive; summary.json lists each rank's
memory, adding up to the grid's; rank 0 alone writes the fields
and summary.json; too many ranks for the block planes are refused before anything is written.
Usage: check_porous_mpi.py KARMAN MPIEXEC"""
import json
import os
import subprocess
import sys
import tempfile

KARMAN, MPIEXEC = sys.argv[1], sys.argv[2]
failures = []


def run(ranks, args):
    cmd = ([MPIEXEC, "-np", str(ranks), "--oversubscribe"] if ranks > 1 else []) + [KARMAN, "porous"] + args
    return subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))


def summary(path):
    with open(os.path.join(path, "summary.json")) as f:
        return json.load(f)


with tempfile.TemporaryDirectory() as tmp:
    for drive in ["body-force", "pressure"]:
        sample = ["--n", "32", "--porosity", "0.6", "--seed", "3", "--precision", "double", "--steps", "60",
                  "--drive", drive, "--quiet"]
        results = {}
        for ranks in [1, 2, 3]:
            out = os.path.join(tmp, f"{drive}-{ranks}")
            proc = run(ranks, sample + ["--output", out])
            if proc.returncode != 0:
                failures.append(f"{drive} drive on {ranks} rank(s): exit {proc.returncode}: {proc.stderr[-600:]}")
                continue
            # Karman's own bookkeeping (.karman-manifest, .karman.lock) aside: the run's outputs.
            names = sorted(n for n in os.listdir(out) if not n.startswith(".karman"))
            if names != ["fields.xdmf", "fields_000060.h5", "summary.json"]:
                failures.append(f"{drive} drive on {ranks} rank(s) wrote {names}")
            results[ranks] = summary(out)
        if 1 not in results:
            continue
        one = results[1]
        for ranks, s in results.items():
            if s["grid"]["ranks"] != ranks:
                failures.append(f"{drive} drive: summary says {s['grid']['ranks']} ranks, ran {ranks}")
            # Each rank's memory in summary.json: one entry a rank, its lattices and stored voxels
            # adding up to the grid's, its host peak after set-up never above the final one.
            memory = s.get("memory_per_rank", [])
            if [m["rank"] for m in memory] != list(range(ranks)):
                failures.append(f"{drive} drive, {ranks} ranks: memory_per_rank lists ranks "
                                f"{[m['rank'] for m in memory]}")
            else:
                for key, total in [("population_bytes", "population_bytes"), ("stored_voxels", "stored_voxels")]:
                    if sum(m[key] for m in memory) != s["grid"][total]:
                        failures.append(f"{drive} drive, {ranks} ranks: memory_per_rank {key} sum "
                                        f"{sum(m[key] for m in memory)}, grid.{total} {s['grid'][total]}")
                for m in memory:
                    if not 0 < m["host_peak_bytes_after_setup"] <= m["host_peak_bytes"]:
                        failures.append(f"{drive} drive, {ranks} ranks: rank {m['rank']} host peaks "
                                        f"{m['host_peak_bytes_after_setup']}, {m['host_peak_bytes']}")
            for key in ["fluid_voxels", "blocks"]:
                if s["grid"][key] != one["grid"][key]:
                    failures.append(f"{drive} drive, {ranks} ranks: grid.{key} {s['grid'][key]}, 1 rank "
                                    f"{one['grid'][key]}")
            keys = ["porosity", "superficial_velocity", "permeability_lattice"]
            if drive == "pressure":
                keys.append("pressure_gradient")
            for key in keys:
                a, b = one[key], s[key]
                if not abs(b - a) <= 1e-9 * abs(a):
                    failures.append(f"{drive} drive, {ranks} ranks: {key} {b!r}, 1 rank {a!r}")
            if not one["superficial_velocity"] > 0:
                failures.append(f"{drive} drive: no flow ({one['superficial_velocity']})")

    # 16 voxels are 4 block planes of 4: at most 2 ranks.
    out = os.path.join(tmp, "too-many")
    proc = run(3, ["--n", "16", "--porosity", "0.6", "--steps", "10", "--output", out])
    message = "3 ranks share the 4 block planes"
    if proc.returncode != 1 or message not in proc.stdout + proc.stderr or os.path.exists(out):
        failures.append(f"3 ranks on 4 block planes: exit {proc.returncode}, output "
                        f"{'written' if os.path.exists(out) else 'absent'}: {proc.stderr[-400:]}")

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
