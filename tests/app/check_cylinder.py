#!/usr/bin/env python3
"""`karman cylinder` as a user drives it: help, a short 2D-1 run of each wall treatment at a small
diameter with every promised output (summary numbers, force history, fields, plot or a note why
not), short 3D-1Z and 3D-2Z runs in the square duct, and bad input refused with a message naming
the value and what is accepted."""
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

KARMAN = sys.argv[1]
failures = []


def run(args, expect_ok=True, must_contain=(), threads=None):
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    proc = subprocess.run([KARMAN] + args, capture_output=True, text=True, timeout=300, env=env)
    text = proc.stdout + proc.stderr
    ok = (proc.returncode == 0) == expect_ok and all(s in text for s in must_contain)
    print(f"{'ok  ' if ok else 'FAIL'} exit {proc.returncode}: karman {' '.join(args)}")
    if not ok:
        print(text)
        failures.append(" ".join(args))
    return proc


with tempfile.TemporaryDirectory() as tmp:
    run(["cylinder", "--help"], must_contain=["--case", "--diameter", "--wall", "bouzidi-quadratic", "--velocity",
                                              "--time", "--pattern", "--output", "--overwrite", "3d-1z", "3d-2z"])
    for wall in ("bounce-back", "bouzidi-linear", "bouzidi-quadratic", "ib"):
        out = os.path.join(tmp, wall)
        proc = run(["cylinder", "--diameter", "8", "--wall", wall, "--steps", "400", "--sample-time", "0.05",
                    "--output", out], must_contain=["c_D"])
        if proc.returncode != 0:
            continue
        s = json.load(open(os.path.join(out, "summary.json")))
        for key in ("c_D", "c_L", "dp"):
            if not isinstance(s.get(key), (int, float)) or not math.isfinite(s[key]):
                failures.append(f"{wall}: summary.json {key} = {s.get(key)!r}")
        if "L_a" not in s:
            failures.append(f"{wall}: summary.json lacks L_a")
        if s.get("cylinder", {}).get("wall") != wall:
            failures.append(f"{wall}: summary.json cylinder.wall = {s.get('cylinder', {}).get('wall')!r}")
        if wall == "ib":
            # The markers around the circle (radius D/2 less the retraction, about one voxel apart)
            # and the immersed-boundary settings.
            c = s.get("cylinder", {})
            if not (isinstance(c.get("markers"), int) and 20 <= c["markers"] <= 26):
                failures.append(f"ib: summary.json cylinder.markers = {c.get('markers')!r}, expected 20 to 26 at D = 8")
            for key, value in (("ib_kernel", "roma3"), ("ib_iterations", 3), ("ib_retraction", 0.3)):
                if c.get(key) != value:
                    failures.append(f"ib: summary.json cylinder.{key} = {c.get(key)!r}, expected {value!r}")
        rows = list(csv.reader(open(os.path.join(out, "forces.csv"))))
        if rows[0] != ["step", "time", "c_D", "c_L"] or len(rows) < 3:
            failures.append(f"{wall}: forces.csv header {rows[0]} with {len(rows) - 1} rows")
        else:
            # 2D-1 reports the mean over the last quarter of the history.
            samples = len(rows) - 1
            last = [float(r[2]) for r in rows[1 + samples - samples // 4:]]
            if not min(last) <= s["c_D"] <= max(last):
                failures.append(f"{wall}: c_D {s['c_D']} outside the last quarter of forces.csv [{min(last)}, {max(last)}]")
        for name in ("fields.xdmf", "forces.gp"):
            if not os.path.exists(os.path.join(out, name)):
                failures.append(f"{wall}: {name} missing")
        if shutil.which("gnuplot") and not os.path.exists(os.path.join(out, "forces.png")):
            failures.append(f"{wall}: gnuplot is installed but forces.png is missing")
    # The oscillating cylinder (immersed boundaries, prescribed motion): Morison coefficients with
    # Wang's beside them, and the force history.
    out = os.path.join(tmp, "oscillating")
    proc = run(["cylinder", "--case", "oscillating", "--diameter", "8", "--beta", "20", "--periods", "2",
                "--no-fields", "--output", out], must_contain=["C_d", "C_m", "Wang"])
    if proc.returncode == 0:
        s = json.load(open(os.path.join(out, "summary.json")))
        for key in ("C_d", "C_m", "C_d_error", "C_m_error"):
            if not isinstance(s.get(key), (int, float)) or not math.isfinite(s[key]):
                failures.append(f"oscillating: summary.json {key} = {s.get(key)!r}")
        if not all(isinstance(s.get("stokes_wang", {}).get(k), float) for k in ("C_d", "C_m")):
            failures.append(f"oscillating: summary.json stokes_wang = {s.get('stokes_wang')!r}")
        c = s.get("cylinder", {})
        if c.get("case") != "oscillating" or not isinstance(c.get("markers"), int) or c["markers"] < 20:
            failures.append(f"oscillating: summary.json cylinder = {c!r}")
        rows = list(csv.reader(open(os.path.join(out, "forces.csv"))))
        if rows[0] != ["step", "period", "F_x", "F_y"] or len(rows) < 100:
            failures.append(f"oscillating: forces.csv header {rows[0]} with {len(rows) - 1} rows")

    # Immersed boundaries give the same bits on any thread count: the oscillating cylinder (markers
    # that move, stencils that overlap) on 1 and 2 threads, same fields and forces.
    outputs = {}
    for threads in (1, 2):
        out = os.path.join(tmp, f"oscillating-{threads}")
        proc = run(["cylinder", "--case", "oscillating", "--diameter", "8", "--beta", "20", "--periods", "2",
                    "--output", out], threads=threads)
        if proc.returncode == 0:
            s = json.load(open(os.path.join(out, "summary.json")))
            outputs[threads] = (s.get("fields_fnv1a64"), open(os.path.join(out, "forces.csv")).read())
    if len(outputs) == 2 and (outputs[1] != outputs[2] or not outputs[1][0]):
        failures.append(f"oscillating: fields fingerprint {outputs[1][0]!r} on 1 thread, {outputs[2][0]!r} on 2, "
                        f"forces.csv {'equal' if outputs[1][1] == outputs[2][1] else 'different'}")

    # The 3D cases at D = 6 (151 x 27 x 27 voxels), a few dozen steps: D3Q19 by default, the duct's
    # extents, the same outputs as 2D but no L_a (not defined in 3D), and with --wall ib a ring of
    # markers per fluid layer (25 layers of 17 markers: ceil(2 pi (3 - 0.3))).
    for case, wall in (("3d-1z", "bouzidi-quadratic"), ("3d-1z", "ib"), ("3d-2z", "bounce-back")):
        out = os.path.join(tmp, f"{case}-{wall}")
        proc = run(["cylinder", "--case", case, "--diameter", "6", "--wall", wall, "--steps", "60", "--sample-time",
                    "0.002", "--output", out], must_contain=[f"cylinder {case}, D = 6", "151x27x27", "d3q19"])
        if proc.returncode != 0:
            continue
        s = json.load(open(os.path.join(out, "summary.json")))
        c = s.get("cylinder", {})
        if s.get("extents") != [151, 27, 27] or c.get("dimension") != 3 or c.get("case") != case:
            failures.append(f"{case} {wall}: extents {s.get('extents')}, cylinder {c!r}")
        if s.get("variant", {}).get("lattice") != "d3q19":
            failures.append(f"{case} {wall}: lattice {s.get('variant')!r}, expected d3q19 by default")
        for key in ("c_D", "c_L", "dp"):
            if not isinstance(s.get(key), (int, float)) or not math.isfinite(s[key]):
                failures.append(f"{case} {wall}: summary.json {key} = {s.get(key)!r}")
        if "L_a" in s:
            failures.append(f"{case} {wall}: summary.json has L_a, which 3D does not define")
        if case == "3d-2z" and not all(k in s for k in ("c_D_max", "c_L_max", "St")):
            failures.append(f"3d-2z: summary.json lacks c_D_max, c_L_max or St: {sorted(s)}")
        if case == "3d-2z":
            # A drag swing that dies out (ratio of the last eighths below 0.8) is no shedding: no St.
            ratio = c.get("c_D_swing_ratio")
            if not isinstance(ratio, (int, float)) or (ratio < 0.8) != (s.get("St") is None):
                failures.append(f"3d-2z: c_D_swing_ratio {ratio!r} with St {s.get('St')!r}")
        if wall == "ib" and c.get("markers") != 25 * 17:
            failures.append(f"{case} ib: summary.json cylinder.markers = {c.get('markers')!r}, expected {25 * 17}")
        rows = list(csv.reader(open(os.path.join(out, "forces.csv"))))
        if rows[0] != ["step", "time", "c_D", "c_L"] or len(rows) < 3:
            failures.append(f"{case} {wall}: forces.csv header {rows[0]} with {len(rows) - 1} rows")
        if not os.path.exists(os.path.join(out, "fields.xdmf")):
            failures.append(f"{case} {wall}: fields.xdmf missing")

    # Without gnuplot on the PATH the run still succeeds and says why there is no plot.
    out = os.path.join(tmp, "noplot")
    # A PATH with every program of this one but gnuplot (MPI's singleton start needs its daemon).
    bin_dir = os.path.join(tmp, "bin")
    os.mkdir(bin_dir)
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            target = os.path.join(d, name)
            if not name.startswith("gnuplot") and not os.path.lexists(os.path.join(bin_dir, name)):
                os.symlink(target, os.path.join(bin_dir, name))
    env = dict(os.environ, PATH=bin_dir)
    proc = subprocess.run([KARMAN, "cylinder", "--diameter", "8", "--steps", "40", "--output", out], env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 or "gnuplot not found" not in proc.stdout:
        failures.append(f"without gnuplot: exit {proc.returncode}, output {proc.stdout + proc.stderr}")

    bad = os.path.join(tmp, "bad")
    run(["cylinder", "--diameter", "2", "--steps", "5", "--output", bad], False, ["--diameter", "2", "4"])
    run(["cylinder", "--case", "3d-1", "--steps", "5", "--output", bad], False, ["3d-1", "2d-1", "2d-2"])
    run(["cylinder", "--wall", "slip", "--steps", "5", "--output", bad], False, ["slip", "bouzidi-linear", "ib"])
    run(["cylinder", "--wall", "ib", "--ib-kernel", "gauss", "--steps", "5", "--output", bad], False,
        ["gauss", "roma3", "peskin4"])
    run(["cylinder", "--wall", "ib", "--ib-iterations", "0", "--steps", "5", "--output", bad], False,
        ["--ib-iterations", "0", "1", "100"])
    run(["cylinder", "--wall", "ib", "--ib-retraction", "0.7", "--steps", "5", "--output", bad], False,
        ["--ib-retraction", "0.7", "0.5"])
    run(["cylinder", "--diameter", "8", "--wall", "ib", "--collision", "mrt", "--steps", "4", "--output", bad], False,
        ["--collision bgk or trt", "mrt"])
    run(["cylinder", "--case", "oscillating", "--wall", "bounce-back", "--steps", "5", "--output", bad], False,
        ["--wall ib", "bounce-back"])
    run(["cylinder", "--case", "oscillating", "--kc", "0", "--steps", "5", "--output", bad], False, ["--kc", "0"])
    run(["cylinder", "--velocity", "0.2", "--steps", "5", "--output", bad], False, ["Mach", "0.3"])
    run(["cylinder", "--diameter", "8", "--pattern", "aa", "--steps", "4", "--output", bad], False,
        ["--pattern ab", "aa"])
    run(["cylinder", "--case", "3d-1z", "--diameter", "300", "--steps", "5", "--output", bad], False,
        ["--diameter", "300", "256"])
    run(["cylinder", "--case", "3d-1z", "--diameter", "6", "--lattice", "d2q9", "--steps", "5", "--output", bad], False,
        ["d2q9", "d3q19"])
    run(["cylinder", "--case", "3d-2z", "--diameter", "6", "--velocity", "0.01", "--steps", "5", "--output", bad],
        False, ["tau", "1/2"])
    if os.path.exists(os.path.join(bad, "summary.json")):
        failures.append("a refused run wrote summary.json")

if failures:
    print(f"{len(failures)} failure(s):")
    for f in failures:
        print("  " + f)
    sys.exit(1)
