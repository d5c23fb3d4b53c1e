#!/usr/bin/env python3
"""Compares a 3D Taylor-Green run (`karman taylor-green --dim 3`) with the spectral reference.

Reads DIR/energy.csv (t, kinetic_energy, dissipation_rate) and DIR/summary.json, and the dissipation
rate of the 512^3 spectral DNS at Re 1600 (refdata/taylor_green_re1600_dissipation.csv). Prints the
peak of each curve and their relative difference, and the RMS difference of the two curves over the
reference points inside the run from t = 1 on (before, the run's rate holds the acoustic adjustment
of its initial state), relative to the reference peak. Exits 1 when the run went unstable
(a non-finite energy, or energy that grows), or when a limit given is exceeded.
"""
import argparse
import csv
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_rows(path):
    with open(path) as f:
        rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))]
    header, body = rows[0], rows[1:]
    return {name: [float(r[i]) for r in body] for i, name in enumerate(header)}


def interpolate(ts, vs, t):
    """Linear interpolation of (ts, vs) at t, ts ascending and t inside."""
    for i in range(1, len(ts)):
        if ts[i] >= t:
            w = (t - ts[i - 1]) / (ts[i] - ts[i - 1])
            return vs[i - 1] + w * (vs[i] - vs[i - 1])
    return vs[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dir", help="output directory of the run")
    parser.add_argument("--peak-tolerance", type=float, default=None,
                        help="largest accepted |peak - reference peak| / reference peak")
    parser.add_argument("--peak-time-tolerance", type=float, default=None,
                        help="largest accepted |t_peak - reference t_peak|, in L/U0")
    parser.add_argument("--rms-tolerance", type=float, default=None,
                        help="largest accepted RMS difference of the curves / reference peak")
    args = parser.parse_args()

    if not os.path.exists(os.path.join(args.dir, "energy.csv")):
        print(f"FAIL: no energy.csv in {args.dir}")
        return 1
    run = read_rows(os.path.join(args.dir, "energy.csv"))
    with open(os.path.join(args.dir, "summary.json")) as f:
        summary = json.load(f)
    ref = read_rows(os.path.join(HERE, "refdata", "taylor_green_re1600_dissipation.csv"))

    t, e, eps = run["t"], run["kinetic_energy"], run["dissipation_rate"]
    if not t or any(not math.isfinite(v) for v in e + eps):
        print("FAIL: no samples or non-finite energy")
        return 1
    if max(e) > e[0] * 1.05:  # a few per mille of acoustic exchange with the density is not growth
        print(f"FAIL: kinetic energy grows ({e[0]:.6g} -> {max(e):.6g})")
        return 1

    # From t = 1 on: the first samples hold the acoustic adjustment of the initial state.
    late = [i for i in range(1, len(t) - 1) if t[i] >= 1.0]
    if not late:
        print("FAIL: the run ends before t = 1")
        return 1
    peak_index = max(late, key=lambda i: eps[i])
    peak_run, t_run = eps[peak_index], t[peak_index]
    inside = [i for i, tr in enumerate(ref["t"]) if max(1.0, t[0]) <= tr <= t[-1]]
    peak_ref = max(ref["dissipation_rate"])
    t_ref = ref["t"][ref["dissipation_rate"].index(peak_ref)]
    peak_error = (peak_run - peak_ref) / peak_ref
    rms = math.sqrt(sum((interpolate(t, eps, ref["t"][i]) - ref["dissipation_rate"][i]) ** 2 for i in inside)
                    / max(1, len(inside))) / peak_ref
    re = summary.get("parameters", {}).get("re", "?")
    n = summary.get("parameters", {}).get("n", "?")
    print(f"Re {re}, N = {n}: run to t = {t[-1]:.2f}, E/U0^2 = {e[-1]:.5f}")
    print(f"peak dissipation {peak_run:.5f} at t = {t_run:.2f}; reference {peak_ref:.5f} at t = {t_ref:.2f}: "
          f"{100 * peak_error:+.1f} %")
    print(f"RMS difference over {len(inside)} reference points in [{max(1.0, t[0]):.2f}, {t[-1]:.2f}]: "
          f"{100 * rms:.1f} % of the reference peak")
    ok = True
    if args.peak_tolerance is not None and abs(peak_error) > args.peak_tolerance:
        print(f"FAIL: peak differs by more than {100 * args.peak_tolerance:.1f} %")
        ok = False
    if args.peak_time_tolerance is not None and abs(t_run - t_ref) > args.peak_time_tolerance:
        print(f"FAIL: peak time differs by more than {args.peak_time_tolerance:.2f} L/U0")
        ok = False
    if args.rms_tolerance is not None and rms > args.rms_tolerance:
        print(f"FAIL: RMS difference above {100 * args.rms_tolerance:.1f} % of the peak")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
