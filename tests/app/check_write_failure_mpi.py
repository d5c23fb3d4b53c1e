#!/usr/bin/env python3
"""A write that fails on one rank mid-way (a disk that fills while the ranks write) ends every
rank within seconds, with an error, and leaves no hidden temporary file: no rank waits for
another that failed. Rank 0 runs under a file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored, so
that its writes past the limit fail with EFBIG as on a full disk), which the free-space check
before a write cannot see. The fields of a step are one HDF5 file shared through MPI-IO
(parallel HDF5), whose calls are collective: before, rank 1 waited forever in them. (A checkpoint,
one file per rank, fails on its rank alone; io_hdf5_failed_write_test covers its files, which the
file size limit cannot: the limit holds for the memory file that replaces a failed file too.)
Usage: check_write_failure_mpi.py KARMAN MPIEXEC"""
import os
import subprocess
import sys
import tempfile

KARMAN, MPIEXEC = sys.argv[1], sys.argv[2]
# Under Open MPI (OMPI_COMM_WORLD_RANK) or MPICH (PMI_RANK): rank 0 may write 400 KB per file.
LIMIT_RANK_0 = ('rank="${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}"; '
                'if [ "$rank" = 0 ]; then ulimit -f 400; trap "" XFSZ; fi; exec "$@"')
CASE = ["cavity", "--dim", "3", "--n", "40", "--steps", "4", "--quiet"]
failures = []

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "fields")
    cmd = [MPIEXEC, "-np", "2", "bash", "-c", LIMIT_RANK_0, "limit", KARMAN] + CASE + ["--output", out]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90,
                              env=dict(os.environ, OMP_NUM_THREADS="1"))
    except subprocess.TimeoutExpired:
        failures.append("the ranks still ran 90 s after rank 0's write failed (a rank waits forever)")
        proc = None
    if proc is not None:
        text = proc.stdout + proc.stderr
        # 1: every rank left through its error (or MPI_Abort); 0 hides the failure, more is a crash.
        if proc.returncode != 1:
            failures.append(f"exit {proc.returncode}, not 1: {text[-1500:]}")
        if "karman: error" not in text:
            failures.append(f"no 'karman: error' line: {text[-800:]}")
        left = [n for n in os.listdir(out) if n.endswith(".tmp")] if os.path.isdir(out) else []
        if left:
            failures.append(f"hidden temporary files left: {left}")
        if os.path.exists(os.path.join(out, "fields_000004.h5")):
            failures.append("a step file was published although its write failed")
        print(f"exit {proc.returncode}, {'error line' if 'karman: error' in text else 'no error line'}")

for f in failures:
    print("FAIL:", f)
print("PASS" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
