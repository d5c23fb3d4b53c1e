#!/usr/bin/env python3
"""Checks the "comm" object of a karman summary.json against Meneghin & Mahmoud Table III.

Table III gives, per lattice and layout, the messages (alpha) and values (beta) a rank with two
neighbours sends per time step in total; a rank with one neighbour (an end rank between walls)
sends half of each. Values are populations and s is the number of voxels in one plane across
the slab axis: (n + 2)^2 for the 3D cavity (slabs along z), n + 2 in 2D (slabs along y).

With --halo-pack every layout packs each transfer into one buffer per neighbour (the classical
"SoA + pack" of Meneghin & Mahmoud Fig. 6): one message per neighbour carrying the crossing populations,
the Disaggregated row of Table III.

Usage: check_comm_counts.py SUMMARY --ranks 3 --dim 3 --n 10 --steps 4 --lattice d3q19
                            --layout soa --pattern ab --overlap on [--halo-pack]
Exit status 0 when every check holds, 1 otherwise (each failed check is printed).
"""

import argparse
import json
import math
import sys

# Meneghin & Mahmoud Table III: (alpha, beta / s) for a rank with two neighbours.
TABLE_III = {
    "d2q9": {"aos": (2, 18), "soa": (6, 6), "disaggregated": (2, 6)},
    "d3q19": {"aos": (2, 38), "soa": (10, 10), "disaggregated": (2, 10)},
    "d3q27": {"aos": (2, 54), "soa": (18, 18), "disaggregated": (2, 18)},
}
# CSoA is not in Table III: Karman packs its crossing populations into one message per
# neighbour, so it sends what Disaggregated sends (karman/comm/exchange_method.hpp).
for row in TABLE_III.values():
    row["csoa"] = row["disaggregated"]


def expected_counts(lattice, layout, plane_voxels, neighbours, halo_pack):
    """Messages and values a rank with `neighbours` neighbours sends per step."""
    alpha, beta_per_plane = TABLE_III[lattice]["disaggregated" if halo_pack else layout]
    return alpha * neighbours / 2, beta_per_plane * plane_voxels * neighbours / 2


def check(summary, args):
    """Returns the list of failed checks (empty when all hold)."""
    failures = []

    def expect(condition, text):
        if not condition:
            failures.append(text)

    variant = summary.get("variant", {})
    for key in ("lattice", "layout", "pattern"):
        wanted = getattr(args, key)
        expect(variant.get(key) == wanted, f"variant.{key} = {variant.get(key)!r}, expected {wanted!r}")
    overlap = args.overlap == "on"
    run = summary.get("run", {})
    expect(run.get("steps") == args.steps, f"run.steps = {run.get('steps')!r}, expected {args.steps}")
    expect(run.get("overlap") == overlap, f"run.overlap = {run.get('overlap')!r}, expected {overlap}")

    width = args.n + 2
    extents = [width, width, width if args.dim == 3 else 1]
    expect(summary.get("extents") == extents, f"extents = {summary.get('extents')!r}, expected {extents}")
    plane_voxels = width * width if args.dim == 3 else width

    comm = summary.get("comm")
    if not isinstance(comm, dict):
        failures.append("summary has no 'comm' object")
        return failures
    expect(comm.get("ranks") == args.ranks, f"comm.ranks = {comm.get('ranks')!r}, expected {args.ranks}")
    expect(comm.get("layout") == args.layout, f"comm.layout = {comm.get('layout')!r}, expected {args.layout!r}")
    expect(comm.get("overlap") == (overlap and args.ranks > 1),
           f"comm.overlap = {comm.get('overlap')!r}, expected {overlap and args.ranks > 1}")
    expect(isinstance(comm.get("gpu_aware"), bool), f"comm.gpu_aware = {comm.get('gpu_aware')!r}, expected true|false")
    expect(comm.get("halo_pack") == args.halo_pack,
           f"comm.halo_pack = {comm.get('halo_pack')!r}, expected {args.halo_pack}")
    per_rank = comm.get("per_rank", [])
    expect(len(per_rank) == args.ranks, f"comm.per_rank has {len(per_rank)} lines, expected {args.ranks}")

    for r, line in enumerate(per_rank):
        where = f"rank {r}"
        expect(line.get("rank") == r, f"{where}: rank = {line.get('rank')!r}")
        if args.ranks == 1:
            neighbours = 0
        else:
            neighbours = 1 if r in (0, args.ranks - 1) else 2
        messages, values = expected_counts(args.lattice, args.layout, plane_voxels, neighbours, args.halo_pack)
        expect(line.get("neighbours") == neighbours,
               f"{where}: neighbours = {line.get('neighbours')!r}, expected {neighbours}")
        got = line.get("messages_sent_per_step")
        expect(isinstance(got, (int, float)) and math.isclose(got, messages, rel_tol=1e-12, abs_tol=1e-12),
               f"{where}: messages_sent_per_step = {got!r}, Table III expects {messages:g}")
        got = line.get("values_sent_per_step")
        expect(isinstance(got, (int, float)) and math.isclose(got, values, rel_tol=1e-12, abs_tol=1e-12),
               f"{where}: values_sent_per_step = {got!r}, Table III expects {values:g} (s = {plane_voxels})")
        # A slab's neighbours are faces: the by-kind split puts every message there.
        by_kind = line.get("by_neighbour_kind") or {}
        face = by_kind.get("face") or {}
        expect(face.get("messages_sent_per_step") == line.get("messages_sent_per_step")
               and face.get("values_sent_per_step") == line.get("values_sent_per_step"),
               f"{where}: by_neighbour_kind.face = {face!r}, expected the totals")
        for kind in ("edge", "corner"):
            other = by_kind.get(kind) or {}
            expect(other.get("messages_sent_per_step") == 0 and other.get("values_sent_per_step") == 0,
                   f"{where}: by_neighbour_kind.{kind} = {other!r}, expected no messages")
        seconds = line.get("exchange_seconds")
        expect(isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds >= 0,
               f"{where}: exchange_seconds = {seconds!r}, expected a finite time >= 0")
        hidden = line.get("hidden_fraction")
        expect(isinstance(hidden, (int, float)) and 0 <= hidden <= 1,
               f"{where}: hidden_fraction = {hidden!r}, expected in [0, 1]")
        print(f"{where}: {line.get('neighbours')} neighbour(s), {line.get('messages_sent_per_step')} messages and "
              f"{line.get('values_sent_per_step')} values per step (Table III: {messages:g} and {values:g})")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("summary", help="summary.json of the run")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--dim", type=int, choices=(2, 3), required=True)
    parser.add_argument("--n", type=int, required=True, help="fluid voxels per side of the cavity")
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--lattice", choices=sorted(TABLE_III), required=True)
    parser.add_argument("--layout", choices=("aos", "soa", "csoa", "disaggregated"), required=True)
    parser.add_argument("--pattern", choices=("ab", "aa"), required=True)
    parser.add_argument("--overlap", choices=("on", "off"), required=True)
    parser.add_argument("--halo-pack", action="store_true", help="the run packed every halo transfer")
    args = parser.parse_args()
    try:
        with open(args.summary, encoding="utf-8") as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_comm_counts: cannot read {args.summary}: {e}", file=sys.stderr)
        return 1
    failures = check(summary, args)
    for text in failures:
        print(f"FAILED: {text}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
