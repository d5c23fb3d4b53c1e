#!/usr/bin/env python3
"""Runs every command line of the README's "Quick start" and "Long runs" sections as a newcomer
would type them , at small sizes: `karman` is the built executable, sizes, step
counts and Reynolds numbers are scaled down, everything else (options, output layout, mpirun lines
with their environment) is kept. A line the README shows must exit 0 (a restart line continues the
run before it)."""
import os
import re
import shlex
import subprocess
import sys
import tempfile

README, KARMAN = sys.argv[1], sys.argv[2]
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else None
SECTIONS = ("## Quick start", "## Long runs")

# Small stand-ins for the sizes a reader would run: (option, value).
SMALL = {"--n": "16", "--height": "8", "--steps": "40", "--re": "20", "--checkpoint-every": "10",
         "--until-steady": "1e-4", "--diameter": "8"}


def readme_command_lines():
    """Command lines of the fenced blocks in SECTIONS, in order, comments stripped."""
    text = open(README, encoding="utf-8").read()
    lines, section, fenced = [], None, False
    for line in text.splitlines():
        if line.startswith("## "):
            section = line if line.startswith(SECTIONS) else None
        elif line.startswith("```"):
            fenced = not fenced
        elif fenced and section:
            code = line.split("#", 1)[0].strip()
            if code:
                lines.append(code)
    return lines


def shrink(words):
    out = list(words)
    for i, w in enumerate(out[:-1]):
        if w in SMALL:
            out[i + 1] = SMALL[w]
    if "--restart" in out and "--steps" in out:
        # Continues the run of the line before, which stopped at the small step count.
        out[out.index("--steps") + 1] = str(2 * int(SMALL["--steps"]))
    if "cylinder" in out and "--steps" not in out:
        # A cylinder runs a number of benchmark time units by default: a few steps show the line works.
        out += ["--steps", SMALL["--steps"]]
    if "--levels" in out:
        # A refined grid's box is a whole number of coarsest blocks: 32 voxels (30 fluid between two
        # wall rows) for two levels.
        tile = 16 * 2 ** (int(out[out.index("--levels") + 1]) - 1)
        for option, walls in (("--n", 2), ("--height", 2), ("--length", 0)):
            if option in out:
                out[out.index(option) + 1] = str(tile - walls)
        if "--diameter" in out:
            # The cylinder's channel lies on whole coarse voxels from D = 20 (82 rows, 440 columns).
            out[out.index("--diameter") + 1] = "20"
    if "bench" in out:
        # Case ib's spheres need room: 100 markers on one sphere of a 16^3 box.
        edge = "16" if "--markers" in out else "8"
        if "--markers" in out:
            out[out.index("--markers") + 1] = "100"
        for option, value in (("--n", edge), ("--steps", "4"), ("--warmup", "2"), ("--repeat", "1")):
            if option in out:
                out[out.index(option) + 1] = value
            else:
                out += [option, value]
    return out


def main():
    commands = readme_command_lines()
    if not any("karman" in c for c in commands):
        print(f"FAIL: no karman command found in the README sections {SECTIONS}")
        return 1
    failures = []
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as work:
        for line in commands:
            words = shlex.split(line)
            if words[0] == "export":  # the README's environment lines, kept for the lines below
                for assignment in words[1:]:
                    key, _, value = assignment.partition("=")
                    env[key] = value.replace("$PWD", work).replace("$PATH", env.get("PATH", ""))
                continue
            words = shrink(words)
            if words[0] == "mpirun":
                if MPIEXEC is None:
                    print(f"skip (no MPI): {line}")
                    continue
                words[0] = MPIEXEC
            words = [KARMAN if w in ("karman", "build/default/apps/karman/karman") else w for w in words]
            if "--output" in words and "--restart" not in words and "--overwrite" not in words:
                words.append("--overwrite")  # the README's lines may reuse a directory
            proc = subprocess.run(words, cwd=work, env=env, capture_output=True, text=True, timeout=600)
            ok = proc.returncode == 0
            print(f"{'ok  ' if ok else 'FAIL'} exit {proc.returncode}: {line}")
            if not ok:
                print("  ran: " + " ".join(words))
                print(proc.stdout[-2000:] + proc.stderr[-2000:])
                failures.append(line)
    print(f"{len(commands) - len(failures)} of {len(commands)} README lines passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
