#!/usr/bin/env python3
"""Reads the traces of perf/timeline/cupti_tracer.cpp (DIR/trace_rank<R>.csv), measures per rank how
much of the halo exchange's GPU work ran beside the interior kernel, and draws a few steps.

Per step (one step = from one karman::halo_start region to the next): the interior kernels
(labels karman::stream_collide_interior*), the exchange's device work (every copy, and the pack and
unpack kernels karman::comm::*), the shared-voxel kernels (karman::stream_collide_shared*).
Printed per rank, over every step but the first and last few: the mean step time, interior kernel
time, exchange device time, the share of the exchange's device time inside the interior kernel's
interval ("hidden"), and the gap between the interior kernel's end and the first shared kernel's
start (the time the GPU waited for the halo: the exposed exchange).

Usage: plot_timeline.py DIR [--steps K] [--png FILE] [--title TEXT]
The PNG (matplotlib) shows K consecutive steps from the middle of the run, a lane per stream and
one for the host's regions, per rank."""
import argparse
import csv
import glob
import os
import re
import statistics


def load(path):
    with open(path) as f:
        events = [dict(r, stream=int(r["stream"]), start=int(r["start_ns"]), end=int(r["end_ns"]), bytes=int(r["bytes"]))
                  for r in csv.DictReader(f)]
    name_unlabelled_kernels(events)
    return events


def name_unlabelled_kernels(events):
    """A trace whose kernels kept their mangled names (no Kokkos label found): the stream-collide
    kernels of the stream that ran most of them are the interior's, the others the shared voxels'."""
    if any(e["name"].startswith("karman::stream_collide") for e in events):
        return
    busy = {}
    for e in events:
        if e["kind"] == "kernel" and "StreamCollide" in e["name"]:
            busy[e["stream"]] = busy.get(e["stream"], 0) + e["end"] - e["start"]
    if not busy:
        return
    interior = max(busy, key=busy.get)
    for e in events:
        if e["kind"] == "kernel" and "StreamCollide" in e["name"]:
            e["name"] = "karman::stream_collide_" + ("interior" if e["stream"] == interior else "shared")
        elif e["kind"] == "kernel" and "FillWallSlots" in e["name"]:
            e["name"] = "karman::fill_wall_slots"


def role(e):
    name = e["name"]
    if e["kind"] == "region":
        return "region"
    if e["kind"].startswith("memcpy") or e["kind"] == "memset":
        return "copy"
    if name.startswith("karman::stream_collide_interior"):
        return "interior"
    if name.startswith("karman::stream_collide_shared"):
        return "shared"
    if name.startswith("karman::comm::"):
        return "exchange_kernel"
    if name.startswith("karman::fill_wall"):
        return "walls"
    return "other"


def steps_of(events):
    starts = sorted(e["start"] for e in events if e["kind"] == "region" and e["name"] == "karman::halo_start")
    return list(zip(starts, starts[1:]))


def within(a0, a1, b0, b1):
    return max(0, min(a1, b1) - max(a0, b0))


def analyse(events):
    steps = steps_of(events)
    if len(steps) < 8:
        return None, steps
    rows = []
    for t0, t1 in steps[3:-3]:
        # The interior kernel is queued just before halo_start on a device: take it from a little before.
        lead = (t1 - t0) // 4
        inside = [e for e in events if e["start"] >= t0 - lead and e["start"] < t1 - lead and e["kind"] != "region"]
        interior = [e for e in inside if role(e) == "interior"]
        exchange = [e for e in inside if role(e) in ("copy", "exchange_kernel")]
        shared = [e for e in inside if role(e) == "shared"]
        if not interior:
            continue
        i0, i1 = min(e["start"] for e in interior), max(e["end"] for e in interior)
        ex_time = sum(e["end"] - e["start"] for e in exchange)
        hidden = sum(within(e["start"], e["end"], i0, i1) for e in exchange)
        gap = (min(e["start"] for e in shared) - i1) if shared else 0
        rows.append({"step": t1 - t0, "interior": i1 - i0, "exchange": ex_time, "hidden": hidden, "gap": gap,
                     "bytes": sum(e["bytes"] for e in exchange if role(e) == "copy")})
    return rows, steps


def summary(rank, rows):
    def mean(key):
        return statistics.mean(r[key] for r in rows) / 1e3

    ex = sum(r["exchange"] for r in rows)
    share = sum(r["hidden"] for r in rows) / ex if ex else float("nan")
    return (f"| {rank} | {len(rows)} | {mean('step'):.1f} | {mean('interior'):.1f} | {mean('exchange'):.1f} | "
            f"{share:.2f} | {mean('gap'):.1f} | {statistics.mean(r['bytes'] for r in rows) / 1e6:.2f} |")


def lane_of(e, streams):
    if e["kind"] == "region":
        return "host regions"
    return f"stream {streams.index(e['stream'])}"


def plot(traces, k, png, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {"interior": "tab:blue", "shared": "tab:orange", "copy": "tab:red", "exchange_kernel": "tab:purple",
               "walls": "tab:olive", "region": "tab:gray", "other": "tab:green"}
    fig, axes = plt.subplots(len(traces), 1, figsize=(13, 2.2 + 1.1 * len(traces)), squeeze=False, sharex=True)
    origin = None
    for ax, (rank, events) in zip(axes[:, 0], traces):
        steps = steps_of(events)
        mid = len(steps) // 2
        t0, t1 = steps[mid][0], steps[min(mid + k, len(steps)) - 1][1]
        if origin is None:
            origin = t0
        shown = [e for e in events if e["end"] > t0 and e["start"] < t1]
        streams = sorted({e["stream"] for e in shown if e["kind"] != "region"})
        lanes = ["host regions"] + [f"stream {i}" for i in range(len(streams))]
        for e in shown:
            y = lanes.index(lane_of(e, streams))
            ax.broken_barh([((e["start"] - origin) / 1e3, max((e["end"] - e["start"]) / 1e3, 0.5))], (y - 0.4, 0.8),
                           color=colours[role(e)])
        ax.set_yticks(range(len(lanes)))
        ax.set_yticklabels(lanes)
        ax.invert_yaxis()
        ax.set_title(f"rank {rank}", fontsize=9, loc="left")
    axes[-1, 0].set_xlabel("µs")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()]
    fig.legend(handles, ["interior kernel", "shared kernels", "copies (staging, MPI's CUDA IPC)",
                         "pack/unpack kernels", "wall slots", "host regions (halo_start, halo_finish)", "other"],
               loc="upper right", fontsize=8, ncol=3)
    fig.suptitle(title, fontsize=10, x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    fig.savefig(png, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--png")
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    files = sorted(glob.glob(os.path.join(args.dir, "trace_rank*.csv")),
                   key=lambda p: int(re.search(r"trace_rank(\d+)", p).group(1)))
    if not files:
        raise SystemExit(f"plot_timeline.py: no trace_rank*.csv in {args.dir}")
    traces = [(int(re.search(r"trace_rank(\d+)", p).group(1)), load(p)) for p in files]
    print("| rank | steps | step µs | interior µs | exchange device µs | hidden | interior end → shared start µs | "
          "MB copied |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for rank, events in traces:
        rows, _ = analyse(events)
        if rows:
            print(summary(rank, rows))
        else:
            print(f"| {rank} | too few steps traced | | | | | | |")
    if args.png:
        plot(traces, args.steps, args.png, args.title)


if __name__ == "__main__":
    main()
