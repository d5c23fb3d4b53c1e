#!/usr/bin/env python3
"""Compares a `karman cylinder` output directory with Schäfer & Turek (1996).

Reads summary.json and the case's rows of refdata/schaefer_turek_2d.csv (2D-1, 2D-2) or
refdata/schaefer_turek_3d.csv (3D-1Z, 3D-2Z). Each quantity must lie within the published
[lower, upper] interval widened by its slack (a fraction of the interval's centre) for resolutions
coarser than the benchmark's own: the slack is the grid's known error, stated by the test that
calls this script, never a fit to the result. A quantity named `c_D:0.05` takes its own slack,
the others --slack. With --reference each quantity is compared with its single high-accuracy value
(the row `<quantity>_ref`), and the slack is the relative tolerance. Prints a table; exits non-zero
when a quantity is off or missing.
"""
import argparse
import csv
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def bounds(case):
    name = "schaefer_turek_3d.csv" if case.startswith("3D") else "schaefer_turek_2d.csv"
    with open(os.path.join(HERE, "refdata", name)) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return {r["quantity"]: (float(r["lower"]), float(r["upper"])) for r in rows if r["case"] == case}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output", help="karman cylinder output directory")
    parser.add_argument("--case", required=True, choices=["2D-1", "2D-2", "3D-1Z", "3D-2Z"])
    parser.add_argument("--quantity", action="append", required=True,
                        help="summary.json key and its refdata quantity, e.g. c_D or c_D_max, optionally with its "
                             "own slack, e.g. c_L:0.2 (repeatable)")
    parser.add_argument("--slack", type=float, default=0.0,
                        help="widen each interval by this fraction of its centre on both sides")
    parser.add_argument("--reference", action="store_true",
                        help="compare with the <quantity>_ref rows (a single value) instead of the bounds")
    args = parser.parse_args()
    summary = json.load(open(os.path.join(args.output, "summary.json")))
    ref = bounds(args.case)
    failed = False
    print(f"{'quantity':10} {'value':>10} {'lower':>10} {'upper':>10}  (slack {args.slack:.3%})")
    for item in args.quantity:
        q, _, own = item.partition(":")
        slack = float(own) if own else args.slack
        lo, hi = ref[q + "_ref" if args.reference else q]
        centre = 0.5 * (lo + hi)
        lo, hi = lo - slack * abs(centre), hi + slack * abs(centre)
        value = summary.get(q)
        ok = isinstance(value, (int, float)) and math.isfinite(value) and lo <= value <= hi
        failed |= not ok
        print(f"{q:10} {value if value is not None else 'missing':>10} {lo:10.5f} {hi:10.5f}  {'ok' if ok else 'OFF'}"
              f"{f'  (slack {slack:.1%})' if own else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
