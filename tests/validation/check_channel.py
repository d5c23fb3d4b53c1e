#!/usr/bin/env python3
"""Checks a `karman channel` output directory against the Poiseuille parabola.

Reads summary.json: the L2 error of the velocity profile across the middle of the channel against
the analytic parabola (profile.csv) must stay under --max-error; with --levels N the run must have
been on N levels, each holding leaf voxels. Prints what it read and exits non-zero when a check
fails.
"""
import argparse
import json
import os
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output", help="the karman channel output directory")
    parser.add_argument("--max-error", type=float, required=True, help="largest L2 error against the parabola")
    parser.add_argument("--levels", type=int, default=1, help="levels the grid must have, each with leaf voxels")
    args = parser.parse_args()
    with open(os.path.join(args.output, "summary.json")) as f:
        summary = json.load(f)
    failures = []
    error = summary["l2_error_vs_poiseuille"]
    print(f"L2 error against the parabola: {error:.6f} (at most {args.max_error})")
    if not error < args.max_error:
        failures.append(f"L2 error {error} is not below {args.max_error}")
    if args.levels > 1:
        leaves = [level["leaf_voxels"] for level in summary.get("levels", [])]
        print(f"leaf voxels per level, finest first: {leaves}")
        if len(leaves) != args.levels or not all(n > 0 for n in leaves):
            failures.append(f"expected {args.levels} levels each with leaf voxels, got {leaves}")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
