"""What the restart checks share: runs of karman on one rank or under mpiexec with their exit codes
and messages checked, a run's summary and checkpoints on disk, and a run killed with SIGKILL after
its first complete checkpoint, ranks and launcher alike (a node failure)."""
import glob
import json
import os
import signal
import subprocess
import sys
import time


class Checks:
    """Runs karman and records what failed; `finish()` prints the failures and exits with them."""

    def __init__(self, karman, mpiexec=None):
        self.karman, self.mpiexec, self.failures = karman, mpiexec, []

    def command(self, args, ranks=1):
        if ranks == 1:
            return [self.karman] + args
        return [self.mpiexec, "-np", str(ranks), "--oversubscribe", self.karman] + args

    def run(self, args, ranks=1, expect=0, must_contain=()):
        """Runs karman with `args`; a failure unless it exits with `expect` and prints every string
        of `must_contain`."""
        proc = subprocess.run(self.command(args, ranks), capture_output=True, text=True, timeout=300)
        text = proc.stdout + proc.stderr
        ok = proc.returncode == expect and all(s in text for s in must_contain)
        print(f"{'ok  ' if ok else 'FAIL'} exit {proc.returncode} (want {expect}): {' '.join(self.command(args, ranks))}")
        if not ok:
            print(text)
            self.failures.append(" ".join(args))
        return proc

    def expect(self, condition, what):
        print(f"{'ok  ' if condition else 'FAIL'} {what}")
        if not condition:
            self.failures.append(what)

    def check_sigterm(self, args, directory):
        """A run of `args` (no --steps) stopped by SIGTERM finishes its step, writes one checkpoint
        (at an even step for AA), says how to continue and exits 143; --restart latest completes
        it 20 steps later."""
        code, out, err = terminate_when_running(self.command(args + ["--steps", "10000000"]), directory)
        self.expect(code == 143 and "--restart latest" in err, f"SIGTERM: exit {code}, hint given")
        self.expect(len(manifests(directory)) == 1, "SIGTERM: one checkpoint written")
        if not manifests(directory):
            return
        step = json.load(open(manifests(directory)[0]))["step"]
        if "aa" in args:
            self.expect(step % 2 == 0, f"SIGTERM: AA checkpoint at an even step ({step})")
        self.run(args + ["--steps", str(step + 20), "--restart", "latest", "--quiet"])
        self.expect(summary(directory).get("steps_run") == step + 20, "SIGTERM: the restart completes")

    def finish(self):
        print(f"{len(self.failures)} failed" if self.failures else "all passed")
        for f in self.failures:
            print("  FAILED:", f)
        sys.exit(1 if self.failures else 0)


def summary(directory):
    """A run's summary.json, or {} when it wrote none."""
    path = os.path.join(directory, "summary.json")
    return json.load(open(path)) if os.path.exists(path) else {}


def manifests(directory):
    """The manifests of the complete checkpoints under an output directory, oldest first."""
    return sorted(glob.glob(os.path.join(directory, "checkpoints", "step_*", "manifest.json")))


def descendants(pid):
    """Process ids below `pid` (mpiexec's ranks), from /proc."""
    found = []
    for task in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            children = [int(c) for c in open(task).read().split()]
        except OSError:
            continue
        for child in children:
            found += [child] + descendants(child)
    return found


def alive(pid):
    try:
        return "zombie" not in open(f"/proc/{pid}/status").read()
    except OSError:
        return False


def terminate_when_running(command, directory, settle=0.5):
    """Starts `command`, waits until it has created its output `directory` (it records stop signals
    before, so a SIGTERM is then the run's to handle however slowly the machine started it) and
    `settle` seconds more, sends SIGTERM and returns (exit code, stdout, stderr)."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not os.path.isdir(directory) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(settle)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def kill_after_checkpoint(command, directory):
    """Starts `command`, waits for the first complete checkpoint under `directory`, then SIGKILLs
    every process of it (the ranks first, then the launcher) and waits until none is left."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not manifests(directory) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    victims = descendants(proc.pid)
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.kill()
    proc.wait()
    while any(alive(pid) for pid in victims):
        time.sleep(0.05)
    return proc.returncode
