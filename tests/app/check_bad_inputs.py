#!/usr/bin/env python3
"""Bad input, table-driven: each command line or config file below must
end karman with a non-zero exit, exactly one error line carrying the expected words, no stack
trace, and an output directory that is absent afterwards (or, where it existed, untouched).
Usage: check_bad_inputs.py KARMAN"""
import os
import subprocess
import sys
import tempfile

KARMAN = sys.argv[1]
failures = []
OUT = "@OUT@"  # replaced by a fresh directory per case

CAV = ["cavity", "--n", "16"]

# (name, arguments, words the error line must contain); OUT stands for the output directory.
COMMAND_LINE = [
    ("misspelled command", ["cavitee", "--n", "16"], "unknown command 'cavitee'; did you mean 'cavity'?"),
    ("unknown command", ["flow"], "unknown command 'flow'; the commands are"),
    ("no command", [], "no command given"),
    ("steps zero", CAV + ["--steps", "0"], "0 out of range: at least 1"),
    ("steps negative", CAV + ["--steps", "-1"], "-1 out of range: at least 1"),
    ("steps fraction", CAV + ["--steps", "1.5"], "'1.5' is not a whole number"),
    ("steps text", CAV + ["--steps", "ten"], "'ten' is not a whole number"),
    ("check-every zero", CAV + ["--steps", "10", "--check-every", "0"], "0 out of range: at least 1"),
    ("max-steps zero", CAV + ["--until-steady", "1e-6", "--max-steps", "0"], "0 out of range: at least 1"),
    ("until-steady nan", CAV + ["--until-steady", "nan"], "nan is not a finite number"),
    ("until-steady inf", CAV + ["--until-steady", "inf"], "inf is not a finite number"),
    ("until-steady negative", CAV + ["--until-steady", "-1e-6"], "must be > 0"),
    ("steps and until-steady", CAV + ["--steps", "10", "--until-steady", "1e-6"], "excludes"),
    ("neither steps nor until-steady", CAV, "give --steps S or --until-steady TOL"),
    ("re tiny", CAV + ["--re", "1e-300", "--steps", "10"], "tau = 4.8e+300 out of range (0.5, 100]"),
    ("re nan", CAV + ["--re", "nan", "--steps", "10"], "nan is not a finite number"),
    ("re zero", CAV + ["--re", "0", "--steps", "10"], "must be > 0"),
    ("re negative", CAV + ["--re", "-100", "--steps", "10"], "must be > 0"),
    ("re huge: tau", ["cavity", "--n", "64", "--re", "100000", "--steps", "10"], "tau"),
    ("lid velocity Mach", CAV + ["--lid-velocity", "0.3", "--steps", "10"], "Mach"),
    ("lid velocity inf", CAV + ["--lid-velocity", "inf", "--steps", "10"], "inf is not a finite number"),
    ("n zero", ["cavity", "--n", "0", "--steps", "10"], "--n = 0 out of range"),
    ("n negative", ["cavity", "--n", "-8", "--steps", "10"], "--n = -8 out of range"),
    # Issue 51: set-ups whose outputs mean nothing are refused with the reason.
    ("cavity 2 x 2", ["cavity", "--n", "2", "--steps", "10"], "--n = 2 is below 8: fewer fluid voxels per side"),
    ("cavity 3D 7^3", ["cavity", "--dim", "3", "--n", "7", "--steps", "10"], "--n = 7 is below 8"),
    ("n text", ["cavity", "--n", "big", "--steps", "10"], "--n"),
    ("levels 6", ["cavity", "--n", "62", "--levels", "6", "--steps", "10"], "--levels: Value 6 not in range"),
    ("levels and n", ["cavity", "--n", "128", "--levels", "2", "--steps", "10"],
     "--n 128 with --levels 2: the box (n + 2 wall voxels) must be a multiple of 16"),
    ("channel levels and height", ["channel", "--height", "31", "--levels", "2", "--steps", "10"],
     "--height 31 with --levels 2: the box (height + 2 wall voxels) must be a multiple of 16"),
    ("channel levels and length", ["channel", "--length", "60", "--levels", "2", "--steps", "10"],
     "--length 60 with --levels 2: the box must be a multiple of 16 (coarsest blocks of 8 voxels); "
     "e.g. --length 48 or --length 64"),
    ("cylinder levels and diameter", ["cylinder", "--diameter", "13", "--levels", "2", "--steps", "10"],
     "--diameter 13 with --levels 2: the channel's 53 fluid rows and 286 columns must be whole voxels of the "
     "coarsest level (2 finest voxels); e.g. --diameter 16"),
    ("cylinder levels and ib", ["cylinder", "--diameter", "20", "--levels", "2", "--wall", "ib", "--steps", "10"],
     "--levels runs with a curved wall (bounce-back or Bouzidi), not --wall ib"),
    ("refine depths past the levels", ["cavity", "--n", "126", "--levels", "2", "--refine-depth", "8,16", "--steps",
                                       "10"],
     "--refine-depth: 2 depths for --levels 2: give one, or at most one for each of the 1 finer level(s)"),
    ("refine depth zero", ["cavity", "--n", "126", "--levels", "2", "--refine-depth", "0", "--steps", "10"],
     "--refine-depth: Value 0 not in range 1 to 1048576"),
    ("refine depth alone", ["cavity", "--n", "62", "--refine-depth", "4", "--steps", "10"],
     "--refine-depth requires --levels"),
    ("levels aa", ["cavity", "--n", "62", "--levels", "2", "--pattern", "aa", "--steps", "10"],
     "the aa pattern (ab does) does not run on a refined grid yet"),
    ("memory estimate", ["cavity", "--n", "3000", "--dim", "3", "--steps", "10"], "needs about"),
    ("dim four", CAV + ["--dim", "4", "--steps", "10"], "--dim"),
    ("lattice for 3D in 2D", CAV + ["--lattice", "d3q19", "--steps", "10"], "d3q19"),
    ("layout unknown", CAV + ["--layout", "soa2", "--steps", "10"], "soa2"),
    ("pattern unknown", CAV + ["--pattern", "ba", "--steps", "10"], "ba"),
    ("precision unknown", CAV + ["--precision", "half", "--steps", "10"], "half"),
    ("collision unknown", CAV + ["--collision", "acm", "--steps", "10"], "acm"),
    ("collision not on the lattice", CAV + ["--dim", "3", "--collision", "cm", "--steps", "10"],
     "collision 'cm' is not defined for lattice d3q19; accepted for d3q19: bgk, trt, mrt"),
    ("bulk rate with bgk", CAV + ["--steps", "10", "--bulk-rate", "1.2"], "apply to --collision mrt or cm, not bgk"),
    ("bulk rate two", CAV + ["--steps", "10", "--collision", "cm", "--bulk-rate", "2"], "2 out of range (0, 2)"),
    ("high-order rate zero", CAV + ["--steps", "10", "--collision", "mrt", "--high-order-rate", "0"],
     "0 out of range (0, 2)"),
    ("output-every negative", CAV + ["--steps", "10", "--output-every", "-5"], "-5 out of range: at least 0"),
    ("output-every with no-fields", CAV + ["--steps", "10", "--output-every", "5", "--no-fields"], "excludes"),
    ("unknown option", CAV + ["--steps", "10", "--stpes", "5"], "--stpes"),
    ("checkpoint-every zero", CAV + ["--steps", "10", "--checkpoint-every", "0"], "0 out of range: at least 1"),
    ("checkpoint-every odd with AA", CAV + ["--steps", "10", "--checkpoint-every", "5", "--pattern", "aa"],
     "give an even K"),
    ("checkpoint-interval zero", CAV + ["--steps", "10", "--checkpoint-interval", "0"], "must be > 0"),
    ("checkpoint-interval nan", CAV + ["--steps", "10", "--checkpoint-interval", "nan"], "not a finite number"),
    ("restart latest without checkpoints", CAV + ["--steps", "10", "--restart", "latest"],
     "no complete checkpoint"),
    ("restart missing directory", CAV + ["--steps", "10", "--restart", "/nonexistent/step_1"],
     "no such checkpoint directory"),
    ("force without restart", CAV + ["--steps", "10", "--force"], "--force only applies with --restart"),
    ("overwrite with restart", CAV + ["--steps", "10", "--overwrite", "--restart", "latest"], "contradict"),
    ("inject-nan odd with AA", CAV + ["--steps", "10", "--pattern", "aa", "--inject-nan", "3"], "even step"),
    ("channel height zero", ["channel", "--height", "0", "--steps", "10"], "--height"),
    ("channel one voxel high", ["channel", "--height", "1", "--steps", "10"],
     "--height = 1 is below 3: a Poiseuille profile needs 3 fluid voxels across"),
    ("channel drive unknown", ["channel", "--drive", "wind", "--steps", "10"], "wind"),
    ("channel velocity nan", ["channel", "--max-velocity", "nan", "--steps", "10"], "not a finite number"),
    ("taylor-green n too small", ["taylor-green", "--n", "2", "--steps", "10"], "--n = 2 out of range"),
    ("taylor-green velocity zero", ["taylor-green", "--velocity", "0", "--steps", "10"], "must be > 0"),
    ("taylor-green dim 4", ["taylor-green", "--dim", "4", "--steps", "10"], "--dim"),
    ("taylor-green time in 2D", ["taylor-green", "--time", "5"], "--time applies to --dim 3"),
    ("taylor-green time and steps", ["taylor-green", "--dim", "3", "--n", "8", "--time", "5", "--steps", "10"],
     "contradict"),
]

# (name, config text (bytes for binary), extra arguments, words); the config is passed after the
# subcommand when the extra arguments start with "after".
CONFIG = [
    ("config unknown key", "[cavity]\nnn = 12\nsteps = 10\n", [], "unknown key 'nn' for cavity; did you mean 'n'?"),
    ("config misspelled section", "[cavitee]\nn = 12\n", [], "unknown section [cavitee]; did you mean [cavity]?"),
    ("config duplicate key", "[cavity]\nn = 12\nsteps = 10\nn = 14\n", [], "key 'n' set again (first on line 2)"),
    ("config malformed line", "[cavity]\nn 12\n", [], "line 2: 'n 12' is neither 'key = value' nor '[section]'"),
    ("config key outside section", "n = 12\n", [], "key 'n' outside a section"),
    ("config binary", b"\x89HDF\r\n\x1a\n\x00\x00\x00\x00\xff\xfe", [], "not a text file"),
    ("config empty value", "[cavity]\nn =\n", [], "has no key or value"),
    ("config nan", "[cavity]\nsteps = 10\nre = nan\n", [], "nan is not a finite number"),
    ("config steps zero", "[cavity]\nsteps = 0\n", [], "0 out of range: at least 1"),
    ("config after command, unknown key", "[cavity]\nsteps = 10\nlayuot = \"soa\"\n", ["after"],
     "unknown key 'layuot' for cavity; did you mean 'layout'?"),
    ("config unclosed section", "[cavity\nn = 12\n", [], "is not a [section]"),
]


def check(name, args, words, out, untouched=None):
    proc = subprocess.run([KARMAN] + args, capture_output=True, text=True, timeout=120)
    text = proc.stdout + proc.stderr
    error_lines = [l for l in proc.stderr.splitlines() if "error" in l.lower()]
    problems = []
    if proc.returncode == 0:
        problems.append("exit 0")
    if len(error_lines) != 1:
        problems.append(f"{len(error_lines)} error lines")
    elif words not in error_lines[0]:
        problems.append(f"error line lacks '{words}'")
    if "Traceback" in text or "terminate called" in text or "Aborted" in text:
        problems.append("crash")
    if untouched is not None:
        if sorted(os.listdir(out)) != untouched:
            problems.append("output directory changed")
    elif os.path.exists(out):
        problems.append("output directory created")
    print(f"{'ok  ' if not problems else 'FAIL'} {name}: exit {proc.returncode}")
    if problems:
        print("   ", "; ".join(problems), "\n   ", " ".join(args), "\n", text)
        failures.append(name)


with tempfile.TemporaryDirectory() as tmp:
    count = 0
    for name, args, words in COMMAND_LINE:
        out = os.path.join(tmp, f"out{count}")
        count += 1
        check(name, args + (["--output", out] if args and args[0] in ("cavity", "channel", "taylor-green") else []),
              words, out)
    for name, text, extra, words in CONFIG:
        out = os.path.join(tmp, f"out{count}")
        cfg = os.path.join(tmp, f"case{count}.toml")
        count += 1
        with open(cfg, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode())
        args = ["cavity", "--config", cfg] if extra[:1] == ["after"] else ["--config", cfg, "cavity"]
        check(name, args + ["--output", out], words, out)
    out = os.path.join(tmp, "missing_config_out")
    check("config missing", ["--config", os.path.join(tmp, "none.toml"), "cavity", "--output", out],
          "no such file", out)
    count += 1

    # Output paths: a file, below a file, and a directory holding an earlier run.
    blocker = os.path.join(tmp, "a_file")
    open(blocker, "w").close()
    proc = subprocess.run([KARMAN] + CAV + ["--steps", "10", "--output", blocker], capture_output=True, text=True)
    ok = proc.returncode != 0 and "exists and is not a directory" in proc.stderr and os.path.isfile(blocker)
    print(f"{'ok  ' if ok else 'FAIL'} output is a file: exit {proc.returncode}")
    if not ok:
        print(proc.stderr)
        failures.append("output is a file")
    check("output below a file", CAV + ["--steps", "10", "--output", os.path.join(blocker, "out")], "a_file",
          os.path.join(blocker, "out"))
    earlier = os.path.join(tmp, "earlier")
    subprocess.run([KARMAN] + CAV + ["--steps", "4", "--output", earlier, "--quiet"], check=True,
                   capture_output=True)
    before = sorted(os.listdir(earlier))
    check("output holds an earlier run", CAV + ["--steps", "10", "--output", earlier],
          "holds an earlier run's files", earlier, untouched=before)

    # Restart refusals need a checkpoint: changed physics, precision, case.
    ck = os.path.join(tmp, "ck")
    subprocess.run([KARMAN] + CAV + ["--steps", "20", "--checkpoint-every", "10", "--output", ck, "--quiet"],
                   check=True, capture_output=True)
    before = sorted(os.listdir(ck))
    check("restart with changed re", CAV + ["--re", "200", "--steps", "30", "--output", ck, "--restart", "latest"],
          "physical parameters differ from the checkpoint's (re 100.0 -> 200.0)", ck, untouched=before)
    check("restart with changed precision",
          CAV + ["--precision", "float", "--steps", "30", "--output", ck, "--restart", "latest"],
          "the checkpoint has precision \"double\", this run \"float\"", ck, untouched=before)
    check("restart with changed size", ["cavity", "--n", "18", "--steps", "30", "--output", ck, "--restart", "latest"],
          "the checkpoint's box is [18,18,1], this run's [20,20,1]", ck, untouched=before)
    # A checkpoint at the last step is accepted (the restart writes the run's missing outputs); one
    # past the run's end is refused.
    check("restart with steps before the checkpoint",
          CAV + ["--steps", "10", "--output", ck, "--restart", "latest"], "the checkpoint is at step 20 already", ck,
          untouched=before)
    check("restart of another case", ["taylor-green", "--n", "16", "--steps", "30", "--output", ck, "--restart",
                                      "latest"], "the checkpoint is of case \"cavity\"", ck, untouched=before)
    count += 9
    print(f"{count} bad inputs")

print(f"{len(failures)} failed" if failures else "all passed")
for f in failures:
    print("  FAILED:", f)
sys.exit(1 if failures else 0)
