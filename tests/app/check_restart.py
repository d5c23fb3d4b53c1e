#!/usr/bin/env python3
"""Checkpoint and restart as a user on a shared machine meets them: a run killed with
SIGKILL after a checkpoint continues with --restart latest to bitwise the same fields and step
count as an uninterrupted run (1 and 3 ranks, AB and AA, FP64 and FP16 storage, and onto another
rank count, layout and pattern); SIGTERM writes a checkpoint and exits 143 with a restart hint; a corrupted or truncated
checkpoint is refused and --restart latest falls back to the one before; a NaN is caught at the
next check with its voxel (in FP16C storage, which saturates it, too) and nothing is written
from it; --max-steps before --until-steady exits 4; a cylinder's force history continues through
a restart, and a run killed after its last checkpoint gets its outputs from a restart; a refined cavity
(--levels 2) continues bitwise after kill -9 and SIGTERM under both level schedules, and so does a
refined cylinder's force history.
Usage: check_restart.py KARMAN [MPIEXEC]"""
import os
import signal
import subprocess
import sys
import tempfile
import time

from run_control import Checks, kill_after_checkpoint, manifests, summary, terminate_when_running

KARMAN = sys.argv[1]
MPIEXEC = sys.argv[2] if len(sys.argv) > 2 else None
checks = Checks(KARMAN, MPIEXEC)
command, run, expect = checks.command, checks.run, checks.expect


# Entries of summary.json that describe how a run went (time, checkpoints written, where it
# restarted from) rather than what it computed.
RUN_RECORD = ("wall_seconds", "setup_seconds", "mlups", "mlups_after_warmup", "warmup_steps", "checkpoints",
              "restarted_from", "backend", "memory_per_rank")


def results(s):
    kept = {k: v for k, v in s.items() if k not in RUN_RECORD}
    kept["run"] = {k: v for k, v in s.get("run", {}).items() if k != "output"}
    return kept


def same_results(a, b):
    """Whether the runs in directories a and b computed the same summary and force history."""
    csv = [open(os.path.join(d, "forces.csv")).read() if os.path.exists(os.path.join(d, "forces.csv")) else None
           for d in (a, b)]
    return bool(summary(a)) and results(summary(a)) == results(summary(b)) and csv[0] is not None and csv[0] == csv[1]


with tempfile.TemporaryDirectory() as tmp:
    # Bitwise continuation after kill -9: the straight run and the killed-then-restarted run end
    # with the same field fingerprint and step count.
    base = ["cavity", "--n", "48", "--re", "400", "--steps", "3000", "--output-every", "1000", "--quiet"]
    # FP16 storage words are checkpointed as they are (16-bit), so FP16 runs continue bitwise too.
    for ranks, pattern, layout, precision in ((1, "ab", "soa", "double"), (1, "aa", "csoa", "double"),
                                              (1, "aa", "csoa", "fp16c"), (3, "ab", "disaggregated", "double"),
                                              (3, "aa", "aos", "double")):
        if ranks > 1 and not MPIEXEC:
            continue
        tag = f"np{ranks}_{pattern}_{precision}"
        variant = ["--pattern", pattern, "--layout", layout, "--precision", precision]
        straight = os.path.join(tmp, "straight_" + tag)
        run(base + variant + ["--output", straight], ranks)
        killed = os.path.join(tmp, "killed_" + tag)
        kill_after_checkpoint(command(base + variant + ["--checkpoint-every", "500", "--output", killed], ranks),
                              killed)
        expect(manifests(killed) and not os.path.exists(os.path.join(killed, "summary.json")),
               f"{tag}: killed mid-run with a checkpoint and no summary")
        run(base + variant + ["--checkpoint-every", "500", "--output", killed, "--restart", "latest"], ranks,
            must_contain=["restarting from"])
        a, b = summary(straight), summary(killed)
        expect(a.get("steps_run") == 3000 and b.get("steps_run") == 3000, f"{tag}: both runs end at step 3000")
        expect(a.get("fields_fnv1a64") and a.get("fields_fnv1a64") == b.get("fields_fnv1a64"),
               f"{tag}: restarted fields bitwise equal to the straight run's")
        expect(len(manifests(killed)) <= 2, f"{tag}: at most two checkpoints kept")
        xdmf = open(os.path.join(killed, "fields.xdmf")).read() if os.path.exists(os.path.join(killed, "fields.xdmf")) else ""
        expect(all(f"fields_{s:06d}" in xdmf for s in (0, 1000, 2000, 3000)),
               f"{tag}: fields.xdmf lists the steps before and after the restart")
        if ranks == 3:
            # The global field is in the checkpoint: 2 ranks, another layout and pattern continue it.
            other = os.path.join(tmp, "other_" + tag)
            older = os.path.dirname(manifests(killed)[0])  # step 2500: steps remain to run
            run(["cavity", "--n", "48", "--re", "400", "--steps", "3000", "--quiet", "--pattern", "ab", "--layout",
                 "soa", "--output", other, "--restart", older], 2, must_contain=["converted"])
            expect(summary(other).get("fields_fnv1a64") == a.get("fields_fnv1a64"),
                   f"{tag}: restart on 2 ranks, SoA, AB gives the same fields")

    # A refined grid (two levels, the finest in a shell along the walls) on the same run loop:
    # bitwise after kill -9 with either schedule, SIGTERM, a NaN caught with its voxel, and on
    # two ranks.
    refined = ["cavity", "--n", "62", "--levels", "2", "--re", "400", "--steps", "2000", "--output-every", "1000",
               "--quiet"]
    for schedule in ("disaggregated", "baseline"):
        tag = "refined_" + schedule
        variant = ["--level-schedule", schedule]
        straight = os.path.join(tmp, "straight_" + tag)
        run(refined + variant + ["--output", straight])
        killed = os.path.join(tmp, "killed_" + tag)
        kill_after_checkpoint(command(refined + variant + ["--checkpoint-every", "500", "--output", killed]), killed)
        expect(manifests(killed) and not os.path.exists(os.path.join(killed, "summary.json")),
               f"{tag}: killed mid-run with a checkpoint and no summary")
        run(refined + variant + ["--checkpoint-every", "500", "--output", killed, "--restart", "latest"],
            must_contain=["restarting from"])
        a, b = summary(straight), summary(killed)
        expect(a.get("steps_run") == 2000 and b.get("steps_run") == 2000, f"{tag}: both runs end at step 2000")
        expect(a.get("fields_fnv1a64") and a.get("fields_fnv1a64") == b.get("fields_fnv1a64"),
               f"{tag}: restarted fields bitwise equal to the straight run's")
        expect([level.get("leaf_voxels") for level in a.get("levels", [])] == [3072, 256],
               f"{tag}: summary.json gives each level's leaf voxels")
        # Two D2Q9 double lattices a leaf voxel, and less than as much again for the overlap
        # blocks and the states kept next to the jumps.
        expect(144 <= a.get("population_bytes_per_leaf_voxel", 0) < 288,
               f"{tag}: population bytes a leaf voxel {a.get('population_bytes_per_leaf_voxel')}")
    expect(summary(os.path.join(tmp, "straight_refined_disaggregated")).get("fields_fnv1a64") ==
           summary(os.path.join(tmp, "straight_refined_baseline")).get("fields_fnv1a64"),
           "refined: both schedules give the same fields")
    checks.check_sigterm(["cavity", "--n", "62", "--levels", "2", "--output", os.path.join(tmp, "refined_term")],
                         os.path.join(tmp, "refined_term"))
    nan = os.path.join(tmp, "refined_nan")
    # Injected in the coarse interior one step before the check: found there, its level named.
    run(["cavity", "--n", "62", "--levels", "2", "--steps", "200", "--check-every", "20", "--inject-nan", "39",
         "--output", nan], expect=3,
        must_contain=["diverged by step 40", "(x, y, z) = (30, 30, 0) has rho = nan",
                      ", on level 1 (of 2, 0 the finest), its voxel (15, 15, 0)"])
    if MPIEXEC:
        # Two ranks cut the coarsest block planes where the work of every level is shared out: the
        # same fields as one rank, and a one-rank checkpoint continues on two.
        np2 = os.path.join(tmp, "refined_np2")
        run(refined + ["--output", np2], 2)
        one = summary(os.path.join(tmp, "straight_refined_disaggregated")).get("fields_fnv1a64")
        expect(one and summary(np2).get("fields_fnv1a64") == one, "refined: 2 ranks give one rank's fields")
        onto2 = os.path.join(tmp, "refined_onto2")
        older = os.path.dirname(manifests(os.path.join(tmp, "killed_refined_disaggregated"))[0])
        run(refined + ["--output", onto2, "--restart", older], 2, must_contain=["restarting from"])
        expect(summary(onto2).get("fields_fnv1a64") == one, "refined: a one-rank checkpoint continues on 2 ranks")

    # SIGTERM: the run finishes its step, writes a checkpoint, says how to continue, exits 143.
    term = os.path.join(tmp, "term")
    long_run = ["cavity", "--n", "48", "--re", "400", "--pattern", "aa", "--output", term]
    checks.check_sigterm(long_run, term)

    if MPIEXEC:
        # mpiexec forwards SIGTERM to the ranks, which agree at a step boundary and checkpoint together.
        term3 = os.path.join(tmp, "term3")
        # settle: every rank past its own set-up.
        code, out, err = terminate_when_running(
            command(["cavity", "--n", "48", "--steps", "10000000", "--quiet", "--output", term3], 3), term3, settle=1.0)
        expect(code != 0 and "stopped by SIGTERM" in err and len(manifests(term3)) == 1,
               f"SIGTERM to mpiexec, 3 ranks: exit {code}, one checkpoint")

    # --checkpoint-interval: rank 0's clock decides, the ranks agree at a step boundary. The run is
    # watched until it has written three (however fast the machine), then stopped with SIGTERM.
    timed = os.path.join(tmp, "timed")
    proc = subprocess.Popen([KARMAN, "cavity", "--n", "48", "--steps", "100000000", "--checkpoint-interval", "0.2",
                             "--quiet", "--output", timed], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen, deadline = set(), time.time() + 120
    while len(seen) < 3 and proc.poll() is None and time.time() < deadline:
        seen.update(manifests(timed))
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    expect(len(seen) >= 3 and len(manifests(timed)) == 2,
           f"--checkpoint-interval 0.2: {len(seen)} written while running, {len(manifests(timed))} kept")

    # Damaged checkpoints: the newest is refused by name; latest falls back to the one before.
    for damage in ("corrupt", "truncate"):
        d = os.path.join(tmp, damage)
        args = ["cavity", "--n", "16", "--steps", "200", "--checkpoint-every", "50", "--quiet"]
        run(args + ["--output", d])
        newest = os.path.dirname(manifests(d)[-1])
        rank_file = os.path.join(newest, "rank_0000.h5")
        size = os.path.getsize(rank_file)
        with open(rank_file, "r+b") as f:
            if damage == "corrupt":
                f.seek(size // 2)  # the populations are most of the file
                byte = f.read(1)
                f.seek(size // 2)
                f.write(bytes([byte[0] ^ 0xFF]))
            else:
                f.truncate(size // 2)
        run(["cavity", "--n", "16", "--steps", "260", "--quiet", "--output", d, "--restart", newest], expect=1,
            must_contain=["checksum mismatch" if damage == "corrupt" else "rank_0000.h5"])
        run(["cavity", "--n", "16", "--steps", "260", "--quiet", "--output", d, "--restart", "latest"],
            must_contain=["skipped damaged", "step 150"])
        expect(summary(d).get("restarted_from", {}).get("step") == 150, f"{damage}: latest fell back to step 150")

    # A run killed while writing its checkpoint of step 150 left the rank file's temporary copy and
    # no manifest: latest ignores it, and the continued run replaces it with a complete one.
    part = os.path.join(tmp, "partial")
    args = ["cavity", "--n", "16", "--checkpoint-every", "50", "--quiet", "--output", part]
    run(args + ["--steps", "100"])
    broken = os.path.join(part, "checkpoints", "step_000000000150")
    os.makedirs(broken)
    with open(os.path.join(broken, ".rank_0000.h5.4242.0.tmp"), "wb") as f:
        f.write(b"\x89HDF\r\n\x1a\n")
    run(args + ["--steps", "200", "--restart", "latest"], must_contain=["step 100"])
    expect([os.path.basename(os.path.dirname(m)) for m in manifests(part)] ==
           ["step_000000000150", "step_000000000200"] and not os.path.exists(
               os.path.join(broken, ".rank_0000.h5.4242.0.tmp")), "partial checkpoint ignored, then replaced")

    # A NaN put into the populations of the box centre, (9, 9) of 18 x 18, after step 40 is caught
    # by that step's check; the moments pull their populations from the neighbours, so the first
    # voxel in global order that shows it is the lower diagonal neighbour (8, 8). No field or
    # checkpoint of step 40 is written. A NaN put in between checks is caught at the next one.
    nan = os.path.join(tmp, "nan")
    run(["cavity", "--n", "16", "--steps", "200", "--check-every", "20", "--output-every", "20",
         "--checkpoint-every", "20", "--inject-nan", "40", "--output", nan, "--quiet"], expect=3,
        must_contain=["diverged by step 40", "(x, y, z) = (8, 8, 0)", "rho = nan", "step 20) is kept"])
    run(["cavity", "--n", "16", "--steps", "200", "--check-every", "20", "--inject-nan", "27", "--output",
         os.path.join(tmp, "nan_between"), "--quiet"], expect=3, must_contain=["diverged by step 40"])
    expect(not os.path.exists(os.path.join(nan, "fields_000040.h5")) and
           os.path.exists(os.path.join(nan, "fields_000020.h5")), "NaN: no field written from the diverged state")
    expect([os.path.basename(os.path.dirname(m)) for m in manifests(nan)] == ["step_000000000020"],
           "NaN: the last good checkpoint is kept, none after it")
    # 16-bit storage: FP16S keeps the NaN; FP16C has none and saturates the stored deviations at
    # about +-2, which the check catches as a density out of range rather than letting the flow
    # absorb them.
    for precision in ("fp16s", "fp16c"):
        run(["cavity", "--n", "16", "--steps", "200", "--check-every", "20", "--precision", precision,
             "--inject-nan", "40", "--output", os.path.join(tmp, "nan_" + precision), "--quiet"], expect=3,
            must_contain=["diverged by step 40", "(x, y, z) = (8, 8, 0)"])
    # An FP16C run that blows up by itself (tau 0.5048) saturates to finite densities in range; its
    # velocity, tens of lattice units, gives it away.
    run(["cavity", "--n", "32", "--re", "2000", "--steps", "400", "--precision", "fp16c", "--output",
         os.path.join(tmp, "unstable_fp16c"), "--quiet"], expect=3,
        must_contain=["diverged by step 340", "try --collision trt"])
    # The advice names a collision the run does not use already: TRT diverges too, CM and MRT do not.
    run(["cavity", "--n", "32", "--re", "2000", "--steps", "1000", "--collision", "trt", "--output",
         os.path.join(tmp, "unstable_trt"), "--quiet"], expect=3,
        must_contain=["diverged by step 680", "or try --collision cm or mrt"])
    if MPIEXEC:
        run(["cavity", "--dim", "3", "--n", "12", "--steps", "40", "--check-every", "10", "--inject-nan", "10",
             "--output", os.path.join(tmp, "nan3"), "--quiet"], 3, expect=3,
            must_contain=["diverged by step 10", "(x, y, z) = (7, 6, 6)"])

    # --until-steady continues bitwise (same stopping step) when checkpoints fall on residual checks.
    steady = ["cavity", "--n", "16", "--until-steady", "1e-6", "--check-every", "100", "--quiet"]
    run(steady + ["--output", os.path.join(tmp, "steady_a")])
    b = os.path.join(tmp, "steady_b")
    run(steady + ["--checkpoint-every", "200", "--max-steps", "400", "--output", b], expect=4)
    run(steady + ["--checkpoint-every", "200", "--output", b, "--restart", "latest"])
    sa, sb = summary(os.path.join(tmp, "steady_a")), summary(b)
    expect(sa.get("steady") and sa.get("steps_run") == sb.get("steps_run") and
           sa.get("fields_fnv1a64") == sb.get("fields_fnv1a64"),
           f"--until-steady after a restart stops at step {sb.get('steps_run')} like the straight run "
           f"({sa.get('steps_run')}) with the same fields")

    # Not converged by --max-steps: results written, a warning, exit code 4.
    slow = os.path.join(tmp, "slow")
    run(["cavity", "--n", "16", "--until-steady", "1e-12", "--max-steps", "100", "--output", slow, "--quiet"],
        expect=4, must_contain=["--max-steps 100 reached"])
    expect(summary(slow).get("steady") is False, "not converged: summary written, steady false")

    # The force history is in the checkpoint: a cylinder run stopped at step 200 and continued to
    # 400 reports the coefficients, residual, fields and forces.csv of a run straight to 400.
    cylinder = ["cylinder", "--diameter", "8", "--sample-time", "0.05", "--check-every", "100",
                "--checkpoint-every", "200", "--quiet"]
    whole, parts = os.path.join(tmp, "cylinder_whole"), os.path.join(tmp, "cylinder_parts")
    run(cylinder + ["--steps", "400", "--output", whole])
    run(cylinder + ["--steps", "200", "--output", parts])
    run(cylinder + ["--steps", "400", "--output", parts, "--restart", "latest"], must_contain=["step 200"])
    expect(same_results(whole, parts), "cylinder: a restarted run's summary and forces.csv equal the straight run's")

    # The same on two levels (--diameter 16: the channel on whole coarse voxels), its steps the
    # coarse level's.
    refined_cylinder = [w if w != "8" else "16" for w in cylinder] + ["--levels", "2"]
    whole2, parts2 = os.path.join(tmp, "cylinder_levels_whole"), os.path.join(tmp, "cylinder_levels_parts")
    run(refined_cylinder + ["--steps", "400", "--output", whole2])
    run(refined_cylinder + ["--steps", "200", "--output", parts2])
    run(refined_cylinder + ["--steps", "400", "--output", parts2, "--restart", "latest"], must_contain=["step 200"])
    expect(same_results(whole2, parts2),
           "cylinder --levels 2: a restarted run's summary and forces.csv equal the straight run's")

    # Killed after its last checkpoint, before its summary: the restart steps no more and writes
    # the outputs, equal to those the run would have written.
    reference = summary(whole)
    os.remove(os.path.join(whole, "summary.json"))
    os.remove(os.path.join(whole, "forces.csv"))
    run(cylinder + ["--steps", "400", "--output", whole, "--restart", "latest"], must_contain=["step 400"])
    expect(results(summary(whole)) == results(reference) and same_results(whole, parts),
           "cylinder: a restart from the last step's checkpoint writes the missing summary and forces.csv")

checks.finish()
