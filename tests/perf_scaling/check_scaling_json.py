#!/usr/bin/env python3
"""Checks the JSON of `mpirun -np N karman bench --scaling weak|strong`: one record per variant with
the box grown (weak) or fixed (strong), every rank's line, and Meneghin & Mahmoud Table III message counts
(disaggregated: one message per neighbour; soa: one per crossing population)."""
import json
import sys

path, mode, ranks, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
records = json.load(open(path))
errors = []
crossing = {"d2q9": 3, "d3q19": 5, "d3q27": 9}
for r in records:
    where = f"{r['lattice']}/{r['layout']}"
    planes = n * ranks if mode == "weak" else n
    if r["ranks"] != ranks or len(r["per_rank"]) != ranks:
        errors.append(f"{where}: {r['ranks']} ranks, {len(r['per_rank'])} lines, expected {ranks}")
    if r["global"][2] != planes:
        errors.append(f"{where}: {r['global'][2]} planes along z, expected {planes}")
    if not r["mlups_total"] > 0 or any(not p["mlups"] > 0 for p in r["per_rank"]):
        errors.append(f"{where}: non-positive MLUPS")
    for p in r["per_rank"]:
        # Periodic slab ends: every rank has two neighbours (itself twice on one rank: no MPI then).
        expected = 0 if ranks == 1 else 2 * (1 if r["layout"] == "disaggregated" else crossing[r["lattice"]])
        if p["messages_sent_per_step"] != expected:
            errors.append(f"{where} rank {p['rank']}: {p['messages_sent_per_step']} messages per step, expected {expected}")
print("\n".join(errors) if errors else f"{len(records)} records OK")
sys.exit(1 if errors else 0)
