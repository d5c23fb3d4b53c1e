#!/usr/bin/env python3
"""karman porous on the run loop every case shares (issue 50): a porous run killed with SIGKILL
after a checkpoint continues with --restart latest to bitwise the same fields, permeability and
field files as an uninterrupted run (1 and 2 ranks, AB and AA), and onto another rank count;
SIGTERM writes a checkpoint and exits 143 with the restart hint; --until-steady stops at the same
step after a restart; a NaN is caught with its voxel; options of the dense grids that the
block-sparse grid does not take are refused; every case command takes the same run options.
Usage: check_porous_restart.py KARMAN [MPIEXEC]"""
import os
import re
import subprocess
import sys
import tempfile

from run_control import Checks, kill_after_checkpoint, manifests, summary

KARMAN = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else None
checks = Checks(KARMAN, MPIEXEC)
command, run, expect = checks.command, checks.run, checks.expect


def options(help_text):
    return set(re.findall(r"^\s+(--[a-z][a-z-]*)", help_text, re.M))


# A random pack in 32^3 voxels (8^3 blocks of 4^3): a few seconds per thousand steps on one thread.
SAMPLE = ["porous", "--n", "32", "--porosity", "0.6", "--seed", "3", "--radius", "3", "--quiet"]

with tempfile.TemporaryDirectory() as tmp:
    # Bitwise continuation after kill -9.
    base = SAMPLE + ["--steps", "1200", "--output-every", "400"]
    for ranks, pattern in ((1, "ab"), (1, "aa"), (2, "ab")):
        if ranks > 1 and not MPIEXEC:
            continue
        tag = f"np{ranks}_{pattern}"
        straight = os.path.join(tmp, "straight_" + tag)
        run(base + ["--pattern", pattern, "--output", straight], ranks)
        killed = os.path.join(tmp, "killed_" + tag)
        resumed = base + ["--pattern", pattern, "--checkpoint-every", "400", "--output", killed]
        kill_after_checkpoint(command(resumed, ranks), killed)
        expect(manifests(killed) and not os.path.exists(os.path.join(killed, "summary.json")),
               f"{tag}: killed mid-run with a checkpoint and no summary")
        run(resumed + ["--restart", "latest"], ranks, must_contain=["restarting from"])
        a, b = summary(straight), summary(killed)
        expect(a.get("steps_run") == 1200 and b.get("steps_run") == 1200, f"{tag}: both runs end at step 1200")
        expect(a.get("fields_fnv1a64") and a.get("fields_fnv1a64") == b.get("fields_fnv1a64") and
               a.get("permeability_lattice") == b.get("permeability_lattice"),
               f"{tag}: restarted fields and permeability bitwise equal to the straight run's")
        xdmf_path = os.path.join(killed, "fields.xdmf")
        xdmf = open(xdmf_path).read() if os.path.exists(xdmf_path) else ""
        expect(all(f"fields_{s:06d}" in xdmf for s in (0, 400, 800, 1200)) and 'Name="solid"' in xdmf,
               f"{tag}: fields.xdmf lists the steps before and after the restart, with the solid marker")
        if ranks == 2:
            # The checkpoint tiles the box: one rank continues it to the same fields.
            other = os.path.join(tmp, "other_" + tag)
            run(base + ["--output", other, "--restart", os.path.dirname(manifests(killed)[0])], 1)
            expect(summary(other).get("fields_fnv1a64") == a.get("fields_fnv1a64"),
                   f"{tag}: the 2-rank checkpoint continued on 1 rank gives the same fields")

    # SIGTERM: the run finishes its step, writes a checkpoint, says how to continue, exits 143.
    term = os.path.join(tmp, "term")
    long_run = SAMPLE + ["--pattern", "aa", "--output", term]
    checks.check_sigterm(long_run, term)

    # --until-steady: the superficial velocity's last value is in the checkpoint, so a restarted run
    # stops at the straight run's step with its fields.
    steady = SAMPLE + ["--until-steady", "1e-4", "--check-every", "100", "--no-fields"]
    run(steady + ["--output", os.path.join(tmp, "steady_a")])
    b = os.path.join(tmp, "steady_b")
    run(steady + ["--checkpoint-every", "200", "--max-steps", "200", "--output", b], expect=4)
    run(steady + ["--checkpoint-every", "200", "--output", b, "--restart", "latest"])
    sa, sb = summary(os.path.join(tmp, "steady_a")), summary(b)
    expect(sa.get("steady") and sa.get("steps_run", 0) > 200 and sa.get("steps_run") == sb.get("steps_run") and
           sa.get("fields_fnv1a64") == sb.get("fields_fnv1a64"),
           f"--until-steady after a restart stops at step {sb.get('steps_run')} like the straight run "
           f"({sa.get('steps_run')}) with the same fields")

    # A NaN in the pores (the centre of a slit between solid plates) is caught at the next check
    # with its voxel and the case's advice; nothing is written from it.
    n = 16
    slit = os.path.join(tmp, "slit.raw")
    with open(slit, "wb") as f:
        f.write(bytes(1 if z < 2 or z >= n - 2 else 0 for z in range(n) for y in range(n) for x in range(n)))
    nan = os.path.join(tmp, "nan")
    run(["porous", "--geometry", slit, "--dims", f"{n},{n},{n}", "--steps", "200", "--check-every", "20",
         "--output-every", "20", "--inject-nan", "40", "--output", nan, "--quiet"], expect=3,
        must_contain=["diverged by step 40", "(x, y, z) = (", "rho = nan", "raise --tau"])
    expect(not os.path.exists(os.path.join(nan, "fields_000040.h5")) and
           os.path.exists(os.path.join(nan, "fields_000020.h5")), "NaN: no field written from the diverged state")

    # Options of the dense grids that the block-sparse grid does not take: refused, nothing written.
    for extra, words in ((["--ranks-per-axis", "1x1x1"], "leave --ranks-per-axis out"),
                         (["--schedule", "fused"], "--schedule applies to the dense grids")):
        refused = os.path.join(tmp, "refused")
        run(SAMPLE + ["--steps", "10", "--output", refused] + extra, expect=1, must_contain=[words])
        expect(not os.path.exists(refused), f"{extra[0]}: nothing written")

    # Every case command takes the run options the dense cases share (checkpoints, restart, output,
    # the variant, MPI), by construction: the options common to the dense commands are in each.
    helps = {name: subprocess.run([KARMAN, name, "--help"], capture_output=True, text=True).stdout
             for name in ("cavity", "channel", "taylor-green", "cylinder", "porous")}
    shared = set.intersection(*(options(helps[name]) for name in ("cavity", "channel", "taylor-green", "cylinder")))
    for name, text in helps.items():
        missing = sorted(shared - options(text))
        expect(len(shared) > 20 and not missing, f"{name} takes the {len(shared)} shared run options "
                                                 f"(missing: {', '.join(missing) or 'none'})")

checks.finish()
