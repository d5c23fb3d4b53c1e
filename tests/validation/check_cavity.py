#!/usr/bin/env python3
"""Compares a `karman cavity` output directory with Ghia, Ghia & Shin (1982).

Checks u/U on the vertical and v/U on the horizontal centre line at every tabulated point
(linear interpolation of Karman's profile, walls included) against a tolerance in lid-velocity
units, and psi_min of the primary vortex against a relative tolerance. Prints a table and exits
non-zero when any point is off.
"""
import argparse
import csv
import json
import os
import sys


# Ghia Table II, Re 400, x = 0.9063: v = -0.23827 breaks the smooth profile between its
# neighbours (-0.44993 at 0.8594, -0.22847 at 0.9453) and disagrees with every later solution
# of this benchmark; it is a known misprint, shown but not counted.
KNOWN_MISPRINTS = {(400, "v", 0.9063)}


def read_csv(path):
    with open(path) as f:
        rows = [line for line in f if not line.startswith("#")]
    reader = csv.reader(rows)
    next(reader)  # header
    return [tuple(float(x) for x in row) for row in reader if row]


def interpolate(profile, x):
    for (x0, y0), (x1, y1) in zip(profile, profile[1:]):
        if x0 <= x <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    raise ValueError(f"{x} outside the profile")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output", help="karman cavity output directory")
    parser.add_argument("--re", type=int, required=True, choices=[100, 400, 1000])
    parser.add_argument("--refdata", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "refdata"))
    parser.add_argument("--tolerance", type=float, default=0.02, help="centre-line tolerance in units of U")
    parser.add_argument("--psi-tolerance", type=float, default=0.02, help="relative tolerance on psi_min")
    args = parser.parse_args()

    failures = 0
    for name, column in (("u", "y"), ("v", "x")):
        ours = read_csv(os.path.join(args.output, f"centerline_{name}.csv"))
        ghia = read_csv(os.path.join(args.refdata, f"ghia_re{args.re}_{name}.csv"))
        worst = 0.0
        for pos, ref in ghia:
            got = interpolate(ours, pos)
            err = abs(got - ref)
            misprint = (args.re, name, pos) in KNOWN_MISPRINTS
            flag = "  (known misprint in Ghia's table, not counted)" if misprint else (
                "" if err <= args.tolerance else "  <-- off")
            if misprint:
                print(f"  {name}({column}={pos:.4f}) = {got:+.5f}   Ghia {ref:+.5f}   |diff| {err:.5f}{flag}")
                continue
            worst = max(worst, err)
            failures += err > args.tolerance
            print(f"  {name}({column}={pos:.4f}) = {got:+.5f}   Ghia {ref:+.5f}   |diff| {err:.5f}{flag}")
        print(f"Re {args.re} {name}: max |diff| {worst:.5f} (tolerance {args.tolerance})")

    vortex_path = os.path.join(args.output, "vortex.json")
    with open(vortex_path) as f:
        vortex = json.load(f)
    ref = {int(r[0]): r[1:] for r in read_csv(os.path.join(args.refdata, "ghia_primary_vortex.csv"))}[args.re]
    rel = abs(vortex["psi_min"] - ref[0]) / abs(ref[0])
    print(f"Re {args.re} psi_min {vortex['psi_min']:.6f} at ({vortex['x']:.4f}, {vortex['y']:.4f});"
          f" Ghia {ref[0]:.6f} at ({ref[1]:.4f}, {ref[2]:.4f}); relative diff {rel:.4f} (tolerance {args.psi_tolerance})")
    failures += rel > args.psi_tolerance
    print("PASS" if failures == 0 else f"FAIL: {failures} value(s) out of tolerance")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
