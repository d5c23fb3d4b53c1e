#!/usr/bin/env python3
"""A variant the build lacks is refused before anything is written, with the configure line that
adds it (docs/building.md, "Variant sets"). CMake passes, per grid, a triple this build does not
compile (or '-' where it compiles every triple a command accepts) and the lists it does compile.
Usage: check_variant_refusal.py KARMAN BUILD_DIR DENSE_MISSING DENSE_LIST BLOCK_MISSING BLOCK_LIST
                                SPARSE_MISSING SPARSE_LIST"""
import os
import subprocess
import sys
import tempfile

KARMAN, BUILD_DIR = sys.argv[1], sys.argv[2]
GRIDS = [  # (name, missing triple, compiled list, option, command line without the variant)
    ("slabs", sys.argv[3], sys.argv[4], "KARMAN_VARIANTS", ["cavity", "--n", "16", "--steps", "10"]),
    ("Cartesian blocks", sys.argv[5], sys.argv[6], "KARMAN_CARTESIAN_VARIANTS",
     ["cavity", "--n", "16", "--steps", "10", "--ranks-per-axis", "1x1x1"]),
    ("block-sparse", sys.argv[7], sys.argv[8], "KARMAN_SPARSE_VARIANTS",
     ["porous", "--n", "16", "--porosity", "0.5", "--steps", "10"]),
]
failures, checked = [], 0
for grid, missing, compiled, option, command in GRIDS:
    if missing == "-":
        print(f"{grid}: every triple the command accepts is compiled, nothing to refuse")
        continue
    compiled = ";".join(t for t in compiled.split(",") if t != "-")
    lattice, precision, layout = missing.split("/")
    dim = "2" if lattice == "d2q9" else "3"
    args = command + ["--lattice", lattice, "--precision", precision, "--layout", layout]
    if command[0] == "cavity":
        args += ["--dim", dim]
        if dim == "2" and "--ranks-per-axis" in args:
            args[args.index("--ranks-per-axis") + 1] = "1x1"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        proc = subprocess.run([KARMAN] + args + ["--output", out], capture_output=True, text=True, timeout=120)
        line = f'cmake -B {BUILD_DIR} -D{option}="{compiled + ";" if compiled else ""}{missing}"'
        problems = []
        if proc.returncode == 0:
            problems.append("exit code 0")
        if f"{missing}" not in proc.stderr or "is not compiled into this build" not in proc.stderr:
            problems.append("no refusal naming the variant")
        if line not in proc.stderr:
            problems.append(f"no configure line '{line}'")
        if f"cmake -B {BUILD_DIR} -DKARMAN_VARIANT_SET=full" not in proc.stderr:
            problems.append("no full-set line")
        if os.path.exists(out):
            problems.append("the output directory was created")
        checked += 1
        if problems:
            failures.append(f"{grid} {missing}: {', '.join(problems)}\n{proc.stderr}")
        else:
            print(f"{grid} {missing}: refused with the configure line")
for f in failures:
    print("FAIL", f)
if not failures and checked == 0:
    print("every triple is compiled on every grid: nothing was checked")
sys.exit(1 if failures else 0)
