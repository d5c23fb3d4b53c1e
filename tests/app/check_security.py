#!/usr/bin/env python3
"""Security and fault holes of issue 51, table-driven: no user text reaches a shell (an output
path with quotes and semicolons, from the command line and from --config), no file is written
through a link planted at an output name, a checkpoint manifest cannot make a restart read files
outside its directory, Each case names what it checks; every one fails on the code before its fix.
--overwrite removes only what the earlier run listed, a second run on a held directory is
refused, input files are checked before they are read, integers past a long are refused.
Usage: check_security.py KARMAN"""
import os
import shutil
import subprocess
import sys
import tempfile

KARMAN = sys.argv[1]
failures = []
# A short 2D-1 cylinder: it writes every kind of output (fields, XDMF, CSV, JSON, gnuplot script
# and plot, checkpoints).
CYLINDER = ["cylinder", "--diameter", "8", "--sample-time", "0.05"]


def run(args, timeout=300):
    return subprocess.run([KARMAN] + args, capture_output=True, text=True, timeout=timeout)


def expect(condition, what, proc=None):
    print(f"{'ok  ' if condition else 'FAIL'} {what}")
    if not condition:
        failures.append(what)
        if proc is not None:
            print(proc.stdout + proc.stderr)


def check_no_shell(tmp):
    """Output paths that a shell would run as commands; the plot still appears where gnuplot is."""
    owned = os.path.join(tmp, "owned")
    for name, output, via_config in [
        ("quote and semicolon", f"x'; touch {owned}; echo '", False),
        ("command substitution", f"y$(touch {owned})`touch {owned}`", False),
        ("quote from --config", f"z'; touch {owned}; echo '", True),
        ("a folder named O'Brien run", "O'Brien run", False),
    ]:
        out = os.path.join(tmp, output)
        args = CYLINDER + ["--steps", "40"]
        if via_config:
            config = os.path.join(tmp, "shell.toml")
            with open(config, "w") as f:
                f.write(f'[cylinder]\noutput = "{out}"\n')
            args += ["--config", config]
        else:
            args += ["--output", out]
        proc = run(args)
        expect(proc.returncode == 0, f"no shell, {name}: the run succeeds", proc)
        expect(not os.path.exists(owned), f"no shell, {name}: nothing ran the injected command")
        if shutil.which("gnuplot"):
            expect(os.path.isfile(os.path.join(out, "forces.png")), f"no shell, {name}: forces.png drawn", proc)


def base_run(tmp):
    """A run with checkpoints at steps 20 and 40 and fields, to restart from."""
    base = os.path.join(tmp, "base")
    proc = run(CYLINDER + ["--steps", "40", "--checkpoint-every", "20", "--output-every", "20", "--output", base])
    expect(proc.returncode == 0, "links: the run to restart from succeeds", proc)
    return base


# (name planted as a link, whether the restart must refuse): final names are refused, a link at
# a name Karman used to pick for its temporary files is simply never opened; a field file after
# the checkpoint's step is removed by the restart (the link itself, never its target).
PLANTED = [
    (".fields_000060.h5.tmp", False),
    (".summary.json.tmp", False),
    (".forces.png.tmp", False),
    ("fields_000060.h5", None),
    ("fields.xdmf", True),
    ("summary.json", True),
    ("forces.csv", True),
    ("forces.gp", True),
    ("forces.png", True),
]


def check_links(tmp):
    base = base_run(tmp)
    for name, refused in PLANTED:
        out = os.path.join(tmp, "links", name.strip("."))
        shutil.copytree(base, out, symlinks=True)
        victim = os.path.join(tmp, "victim_" + name.strip("."))
        with open(victim, "w") as f:
            f.write("somebody else's file\n")
        link = os.path.join(out, name)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(victim, link)
        proc = run(CYLINDER + ["--steps", "60", "--output-every", "20", "--restart", "latest", "--output", out])
        expect(open(victim).read() == "somebody else's file\n", f"links: {name} -> victim left intact", proc)
        if refused is None:
            expect(not os.path.islink(link) or proc.returncode != 0, f"links: {name} not written through", proc)
        elif refused:
            expect(proc.returncode != 0 and "symbolic link" in proc.stderr,
                   f"links: {name} as a link is refused with a message", proc)
        else:
            expect(proc.returncode == 0, f"links: {name} as a link is not used, the run succeeds", proc)


def manifest_naming(base, tmp, name):
    """A copy of the newest checkpoint of `base` whose manifest names `name` for rank 0's file."""
    import json
    out = os.path.join(tmp, "confined", str(abs(hash(name))))
    shutil.copytree(base, out, symlinks=True)
    step = sorted(os.listdir(os.path.join(out, "checkpoints")))[-1]
    directory = os.path.join(out, "checkpoints", step)
    path = os.path.join(directory, "manifest.json")
    manifest = json.load(open(path))
    manifest["files"][0]["file"] = name
    json.dump(manifest, open(path, "w"))
    return out, directory


def check_confined(tmp):
    base = os.path.join(tmp, "base")
    outside = os.path.join(tmp, "outside.h5")
    shutil.copy(os.path.join(base, "checkpoints", sorted(os.listdir(os.path.join(base, "checkpoints")))[-1],
                             "rank_0000.h5"), outside)
    for what, name in [
        ("an absolute name", outside),
        ("a ../ name", "../../../outside.h5"),
        ("a link leading outside", "link.h5"),
    ]:
        out, directory = manifest_naming(base, tmp, name)
        if name == "link.h5":
            os.symlink(outside, os.path.join(directory, "link.h5"))
        # The directory itself: 'latest' would fall back to the checkpoint before.
        proc = run(CYLINDER + ["--steps", "60", "--restart", directory, "--output", out])
        expect(proc.returncode != 0 and "checkpoint" in proc.stderr and name in proc.stderr,
               f"confined: a manifest with {what} is refused naming it", proc)


CAVITY = ["cavity", "--n", "16", "--steps", "20"]


def check_overwrite(tmp):
    """--overwrite removes the earlier run's files and says so; somebody else's stay."""
    out = os.path.join(tmp, "overwrite")
    proc = run(CAVITY + ["--checkpoint-every", "10", "--output", out])
    expect(proc.returncode == 0, "overwrite: the first run succeeds", proc)
    foreign = [os.path.join(out, "checkpoints", "model.pt"), os.path.join(out, "profile.csv"),
               os.path.join(out, "fields_archive.h5", "part.h5")]
    for path in foreign:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("somebody else's\n")
    proc = run(CAVITY + ["--overwrite", "--output", out])
    expect(proc.returncode == 0 and "--overwrite removed" in proc.stdout and "summary.json" in proc.stdout,
           "overwrite: the second run says what it removed", proc)
    for path in foreign:
        expect(os.path.isfile(path), f"overwrite: {os.path.relpath(path, out)} kept")
    expect(not os.path.exists(os.path.join(out, "checkpoints", "step_000000000010")),
           "overwrite: the earlier run's checkpoint removed")


def check_lock(tmp):
    """A second run on a directory a running one holds is refused; a killed run leaves no lock."""
    out = os.path.join(tmp, "locked")
    first = subprocess.Popen([KARMAN, "cavity", "--n", "64", "--steps", "10000000", "--output", out],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        started = first.stdout.readline()  # printed once the directory is held
        expect("karman cavity" in started, f"lock: the first run started ({started.strip()})")
        proc = run(CAVITY + ["--overwrite", "--output", out])
        expect(proc.returncode != 0 and "in use by another karman run" in proc.stderr,
               "lock: a second run on the same --output is refused", proc)
    finally:
        first.kill()
        first.wait()
    proc = run(CAVITY + ["--overwrite", "--output", out])
    expect(proc.returncode == 0, "lock: after the holder was killed the directory is free", proc)


def check_inputs(tmp):
    """Inputs checked before reading; integers parsed exactly."""
    fifo = os.path.join(tmp, "fifo.toml")
    os.mkfifo(fifo)
    big = os.path.join(tmp, "big.toml")
    with open(big, "w") as f:
        f.write("#" * (2 << 20))
    out = os.path.join(tmp, "inputs")
    for name, args, words in [
        ("--config /dev/zero", ["--config", "/dev/zero"] + CAVITY, ["/dev/zero", "character device"]),
        ("--config a FIFO", ["--config", fifo] + CAVITY, ["fifo.toml", "FIFO"]),
        ("--config a directory", ["--config", tmp] + CAVITY, ["directory"]),
        ("--config of 2 MiB", ["--config", big] + CAVITY, ["big.toml", "1048576 bytes"]),
        ("--steps 1e20", ["cavity", "--n", "16", "--steps", "1e20"], ["1e20 out of range", "9223372036854775807"]),
        ("--steps 2^64", ["cavity", "--n", "16", "--steps", "18446744073709551616"],
         ["18446744073709551616 out of range", "9223372036854775807"]),
        ("--output-every 1e19", CAVITY + ["--output-every", "1e19"], ["1e19 out of range"]),
    ]:
        try:
            proc = run(args + ["--output", out], timeout=20)
        except subprocess.TimeoutExpired:
            expect(False, f"inputs: {name} refused within 20 s")
            continue
        expect(proc.returncode != 0 and all(w in proc.stderr for w in words), f"inputs: {name} refused", proc)
        expect(not os.path.exists(out), f"inputs: {name} wrote nothing")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for check in (check_no_shell, check_links, check_confined, check_overwrite, check_lock, check_inputs):
            check(tmp)
    if failures:
        print(f"{len(failures)} failure(s):\n  " + "\n  ".join(failures))
        return 1
    print("all security checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
