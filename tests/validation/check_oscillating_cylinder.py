#!/usr/bin/env python3
"""Compares `karman cylinder --case oscillating` with Wang's (1968) small-amplitude coefficients.

Reads summary.json: the measured Morison coefficients C_d and C_m, and stokes_wang.C_d, .C_m beside them.
Each must lie within the stated relative tolerance of Wang's value; the tolerances are the method's known
error at the resolution the test runs, stated by the test that calls this script. Prints a table; exits
non-zero when a coefficient is off or missing.
"""
import argparse
import json
import math
import os
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output", help="karman cylinder --case oscillating output directory")
    parser.add_argument("--drag-tolerance", type=float, required=True, help="relative tolerance of C_d")
    parser.add_argument("--inertia-tolerance", type=float, required=True, help="relative tolerance of C_m")
    args = parser.parse_args()
    summary = json.load(open(os.path.join(args.output, "summary.json")))
    wang = summary.get("stokes_wang", {})
    failed = False
    print(f"{'coefficient':12} {'value':>10} {'Wang':>10} {'error':>9} {'tolerance':>9}")
    for key, tolerance in (("C_d", args.drag_tolerance), ("C_m", args.inertia_tolerance)):
        value, reference = summary.get(key), wang.get(key)
        ok = all(isinstance(v, (int, float)) and math.isfinite(v) for v in (value, reference))
        error = value / reference - 1.0 if ok else float("nan")
        ok = ok and abs(error) <= tolerance
        failed |= not ok
        print(f"{key:12} {value!s:>10.8} {reference!s:>10.8} {error:9.2%} {tolerance:9.2%}  {'ok' if ok else 'OFF'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
