#!/usr/bin/env python3
"""The lattice Mach number's share of a `karman cylinder` quantity, from three runs of one case whose
inflow velocity halves from run to run (U, U/2, U/4, all else equal).

A weakly compressible LBM carries an O(Ma^2) error, so the quantity's successive changes shrink by
about 4 when U halves; their ratio must lie in [3, 5]. Richardson's extrapolation to Ma -> 0,
q0 = q(U/4) - (q(U/2) - q(U/4)) / 3, and q(U/4) itself must then lie within the published interval
of refdata/schaefer_turek_2d.csv widened by --slack (a fraction of its centre). Prints the figures;
exits non-zero when one is off.
Usage: check_mach_share.py DIR_U DIR_U/2 DIR_U/4 --case 2D-1 --quantity c_D [--slack S]"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_cylinder import bounds  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outputs", nargs=3, help="the runs at U, U/2 and U/4")
    parser.add_argument("--case", required=True, choices=["2D-1", "2D-2"])
    parser.add_argument("--quantity", required=True)
    parser.add_argument("--slack", type=float, default=0.0)
    args = parser.parse_args()
    runs = [json.load(open(os.path.join(d, "summary.json"))) for d in args.outputs]
    velocities = [r.get("parameters", {}).get("velocity") for r in runs]
    if None in velocities or any(abs(b - a / 2) > 1e-12 * a for a, b in zip(velocities, velocities[1:])):
        print(f"the runs' velocities {velocities} do not halve from run to run")
        return 1
    q = [r[args.quantity] for r in runs]
    d1, d2 = q[0] - q[1], q[1] - q[2]
    ratio = d1 / d2 if d2 != 0 else float("inf")
    q0 = q[2] - d2 / 3
    lo, hi = bounds(args.case)[args.quantity]
    centre = 0.5 * (lo + hi)
    lo, hi = lo - args.slack * abs(centre), hi + args.slack * abs(centre)
    print(f"{args.quantity} at U, U/2, U/4: {q[0]:.6g} {q[1]:.6g} {q[2]:.6g} (velocities {velocities})")
    print(f"changes {d1:.4g}, {d2:.4g}: ratio {ratio:.3f} (O(Ma^2): 4; accepted [3, 5])")
    print(f"extrapolated to Ma -> 0: {q0:.6g}; interval [{lo:.6g}, {hi:.6g}]")
    failed = False
    for what, ok in (("ratio", 3 <= ratio <= 5), ("q(U/4) in the interval", lo <= q[2] <= hi),
                     ("extrapolation in the interval", lo <= q0 <= hi)):
        print(f"  {what}: {'ok' if ok else 'OFF'}")
        failed |= not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
