#!/usr/bin/env python3
"""Drives the karman executable as a user would: help and version, a short run of every case with
its output files, a --config file, and bad input (non-zero exit, a one-line message
naming the value, no crash, no partial files)."""
import json
import os
import subprocess
import sys
import tempfile

KARMAN = sys.argv[1]
failures = []


def run(args, expect_ok=True, must_contain=()):
    proc = subprocess.run([KARMAN] + args, capture_output=True, text=True, timeout=300)
    text = proc.stdout + proc.stderr
    ok = (proc.returncode == 0) == expect_ok and all(s in text for s in must_contain)
    if not expect_ok:
        error_lines = [l for l in proc.stderr.splitlines() if "error" in l.lower()]
        ok = ok and len(error_lines) == 1 and "Traceback" not in text and "terminate called" not in text
    print(f"{'ok  ' if ok else 'FAIL'} exit {proc.returncode}: karman {' '.join(args)}")
    if not ok:
        print(text)
        failures.append(" ".join(args))
    return proc


with tempfile.TemporaryDirectory() as tmp:
    run(["--help"], must_contain=["cavity", "channel", "taylor-green"])
    run(["cavity", "--help"], must_contain=["--until-steady", "--layout", "--output-every"])
    run(["--version"], must_contain=["karman"])
    # A direct run as a newcomer types it: Karman's help, not Kokkos's, and no OMP_PROC_BIND warning.
    bare = subprocess.run([KARMAN, "--help"], capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if k != "OMP_PROC_BIND"})
    if not bare.stdout.startswith("Karman") or "Kokkos command line arguments" in bare.stdout + bare.stderr or \
            "OMP_PROC_BIND" in bare.stdout + bare.stderr:
        failures.append("karman --help: Kokkos help or warning first")
    run(["cavity", "--n", "8", "--steps", "2", "--config", "/nonexistent.toml"], False, ["no such file"])
    run(["--backend-info"], must_contain=["Kokkos version", "concurrency"])

    # Every case runs and writes what it promises.
    cav = os.path.join(tmp, "cav")
    # Its only residual check is at step 50: no residual yet (n/a, not inf); the last line says done.
    run(["cavity", "--n", "16", "--re", "10", "--steps", "50", "--output-every", "25", "--output", cav],
        must_contain=["residual n/a  done", "residual n/a, mass"])
    expected = {"summary.json", "fields.xdmf", "centerline_u.csv", "centerline_v.csv", "vortex.json",
                "fields_000000.h5", "fields_000025.h5", "fields_000050.h5"}
    present = set(os.listdir(cav)) if os.path.isdir(cav) else set()
    if not expected <= present:
        failures.append(f"cavity output missing {expected - present}")
    else:
        s = json.load(open(os.path.join(cav, "summary.json")))
        for key in ("case", "parameters", "steps_run", "mlups", "final_residual", "total_mass", "wall_seconds",
                    "backend"):
            if key not in s:
                failures.append(f"summary.json lacks {key}")
        if s.get("steps_run") != 50:
            failures.append(f"steps_run {s.get('steps_run')} != 50")
        # The warm-up is the first tenth of the steps; the rate after it counts the other 45.
        if s.get("warmup_steps") != 5 or not (s.get("mlups_after_warmup") or 0) > 0:
            failures.append(f"warmup_steps {s.get('warmup_steps')} != 5 or mlups_after_warmup "
                            f"{s.get('mlups_after_warmup')} not positive")
    run(["cavity", "--dim", "3", "--n", "8", "--steps", "4", "--lattice", "d3q27", "--output", os.path.join(tmp, "c3")])
    run(["channel", "--height", "8", "--length", "6", "--steps", "20", "--output", os.path.join(tmp, "ch")])
    run(["taylor-green", "--n", "16", "--steps", "20", "--output", os.path.join(tmp, "tg")])
    tg3 = os.path.join(tmp, "tg3")
    run(["taylor-green", "--dim", "3", "--n", "8", "--time", "0.5", "--no-fields", "--output", tg3])
    s3 = json.load(open(os.path.join(tg3, "summary.json")))
    if s3.get("variant", {}).get("collision") != "cm" or "taylor_green_3d" not in s3:
        failures.append("taylor-green --dim 3: not cm or no taylor_green_3d summary")
    with open(os.path.join(tg3, "energy.csv")) as f:
        if f.readline().strip() != "t,kinetic_energy,dissipation_rate" or len(f.readlines()) < 10:
            failures.append("taylor-green --dim 3: energy.csv header or samples")
    # A steady-state run's progress gives no --max-steps bound as its ETA ("ETA <= 7.5 h" for a run
    # of seconds) and ends with done.
    proc = run(["cavity", "--n", "16", "--re", "10", "--until-steady", "1e-4", "--output", os.path.join(tmp, "st")],
               must_contain=["(steady)", "done"])
    if "ETA <=" in proc.stdout:
        failures.append("--until-steady progress shows the --max-steps bound as ETA")
    nf = os.path.join(tmp, "nofields")
    run(["cavity", "--n", "8", "--steps", "5", "--no-fields", "--output", nf])
    if any(f.endswith(".h5") for f in os.listdir(nf)) or "summary.json" not in os.listdir(nf):
        failures.append("--no-fields wrote fields or no summary")

    # Options from a config file.
    cfg = os.path.join(tmp, "case.toml")
    with open(cfg, "w") as f:
        f.write("[cavity]\nn = 12\nre = 20\nsteps = 7\noutput = \"%s\"\nlayout = \"disaggregated\"\n" % os.path.join(tmp, "cfg"))
    run(["--config", cfg, "cavity"])
    s = json.load(open(os.path.join(tmp, "cfg", "summary.json"))) if os.path.exists(os.path.join(tmp, "cfg", "summary.json")) else {}
    if s.get("steps_run") != 7 or s.get("parameters", {}).get("n") != 12 or s.get("variant", {}).get("layout") != "disaggregated":
        failures.append("config file options not applied")

    # Bad input: refused with the value and nothing written.
    bad = os.path.join(tmp, "bad")
    run(["cavity", "--n", "64", "--re", "100000", "--steps", "10", "--output", bad], False, ["tau"])
    run(["cavity", "--lid-velocity", "0.3", "--steps", "10", "--output", bad], False, ["Mach"])
    run(["cavity", "--lattice", "d3q19", "--steps", "10", "--output", bad], False, ["d3q19"])
    run(["cavity", "--layout", "soa2", "--steps", "10", "--output", bad], False, ["soa2"])
    run(["cavity", "--n", "0", "--steps", "10", "--output", bad], False, ["--n"])
    run(["cavity", "--n", "16", "--output", bad], False, ["--steps"])
    if os.path.exists(bad):
        failures.append("a refused run left files in " + bad)
    blocker = os.path.join(tmp, "file")
    open(blocker, "w").close()
    run(["cavity", "--n", "16", "--steps", "10", "--output", os.path.join(blocker, "out")], False, ["file"])

print(f"{len(failures)} failed" if failures else "all passed")
for f in failures:
    print("  FAILED:", f)
sys.exit(1 if failures else 0)
