#!/usr/bin/env python3
"""Reads the traces of perf/timeline/cupti_tracer.cpp (DIR/trace_rank<R>.csv), measures per rank how
much of the halo exchange's GPU work ran beside the interior kernel, and draws a few steps.

Per step (one step = from one step's first interior kernel to the next one's, on the GPU): the interior kernels
(labels karman::stream_collide_interior*), the exchange's device work (every copy, and the pack and
unpack kernels karman::comm::*), the shared-voxel kernels (karman::stream_collide_shared*).
Printed per rank, over every step but the first and last few: the mean step time, interior kernel
time, exchange device time, the share of the exchange's device time inside the interior kernel's
interval ("hidden"), and the gap between the interior kernel's end and the first shared kernel's
start (the time the GPU waited for the halo: the exposed exchange). Then the CUDA driver calls the
host made inside the halo regions (MPI's IPC handle opens, synchronisations, ...), the longest first:
where the host spent an exchange that the GPU did not.

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
    kernels of the stream that ran most of them are the interior's, the others the shared voxels';
    the wall fill and the halo pack/unpack kernels by their functor's name."""
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
        elif e["kind"] == "kernel" and ("PackHalo" in e["name"] or "UnpackHalo" in e["name"]):
            e["name"] = "karman::comm::" + ("unpack_halo" if "UnpackHalo" in e["name"] else "pack_halo")


def role(e):
    name = e["name"]
    if e["kind"] in ("region", "driver"):
        return e["kind"]
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


def interior_groups(events):
    """The interior kernels of each step: consecutive interior launches (the bulk and boundary kernels of one
    update) up to the next shared kernel, as [(start, end)] in GPU order. Steps are told apart on the GPU's
    clock, not the host's: the host runs ahead of the GPU by up to a step once nothing fences it."""
    groups, closed = [], True
    for e in sorted((e for e in events if role(e) in ("interior", "shared")), key=lambda e: e["start"]):
        if role(e) == "shared":
            closed = True
        elif closed:
            groups.append([e["start"], e["end"]])
            closed = False
        else:
            groups[-1][1] = max(groups[-1][1], e["end"])
    return groups


def analyse(events):
    """Per step (from one step's first interior kernel to the next one's): the step and interior times, the
    exchange's device work (copies, pack/unpack kernels) and its share inside the interior interval, the gap
    from the interior's end to the first shared kernel, and the bytes copied. Leaves out 3 steps at each end."""
    steps = steps_of(events)
    groups = interior_groups(events)
    if len(groups) < 8:
        return None, steps
    device = sorted((e for e in events if role(e) in ("copy", "exchange_kernel", "shared")), key=lambda e: e["start"])
    rows = []
    for (i0, i1), (n0, _) in list(zip(groups, groups[1:]))[3:-3]:
        inside = [e for e in device if i0 <= e["start"] < n0]
        exchange = [e for e in inside if role(e) != "shared"]
        shared = [e["start"] for e in inside if role(e) == "shared"]
        rows.append({"step": n0 - i0, "interior": i1 - i0, "exchange": sum(e["end"] - e["start"] for e in exchange),
                     "hidden": sum(within(e["start"], e["end"], i0, i1) for e in exchange),
                     "gap": (min(shared) - i1) if shared else 0,
                     "bytes": sum(e["bytes"] for e in exchange if role(e) == "copy")})
    return rows, steps


def summary(rank, rows):
    def mean(key):
        return statistics.mean(r[key] for r in rows) / 1e3

    ex = sum(r["exchange"] for r in rows)
    share = sum(r["hidden"] for r in rows) / ex if ex else float("nan")
    return (f"| {rank} | {len(rows)} | {mean('step'):.1f} | {mean('interior'):.1f} | {mean('exchange'):.1f} | "
            f"{share:.2f} | {mean('gap'):.1f} | {statistics.mean(r['bytes'] for r in rows) / 1e6:.2f} |")


def driver_calls(events, steps, top=6):
    """Per step, the time and count of each CUDA driver call made inside the halo regions."""
    regions = [e for e in events if e["kind"] == "region" and e["name"] in ("karman::halo_start", "karman::halo_finish")]
    t0, t1 = steps[3][0], steps[-3][0]
    regions = [r for r in regions if t0 <= r["start"] < t1]
    calls = sorted((e for e in events if e["kind"] == "driver" and t0 <= e["start"] < t1), key=lambda e: e["start"])
    total, count = {}, {}
    i = 0
    for r in sorted(regions, key=lambda r: r["start"]):
        while i < len(calls) and calls[i]["start"] < r["start"]:
            i += 1
        j = i
        while j < len(calls) and calls[j]["start"] < r["end"]:
            key = (r["name"].split("::")[1], calls[j]["name"])
            total[key] = total.get(key, 0) + calls[j]["end"] - calls[j]["start"]
            count[key] = count.get(key, 0) + 1
            j += 1
    n = max(1, len(steps) - 6)
    return [(k, total[k] / n / 1e3, count[k] / n) for k in sorted(total, key=total.get, reverse=True)[:top]]


def lane_of(e, streams):
    if e["kind"] == "region":
        return "host regions"
    if e["kind"] == "driver":
        return "host CUDA calls"
    return f"stream {streams.index(e['stream'])}"


def plot(traces, k, png, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {"interior": "tab:blue", "shared": "tab:orange", "copy": "tab:red", "exchange_kernel": "tab:purple",
               "walls": "tab:olive", "region": "tab:gray", "other": "tab:green", "driver": "black"}
    fig, axes = plt.subplots(len(traces), 1, figsize=(13, 2.2 + 1.1 * len(traces)), squeeze=False, sharex=True)
    origin = None
    for ax, (rank, events) in zip(axes[:, 0], traces):
        steps = steps_of(events)
        mid = len(steps) // 2
        t0, t1 = steps[mid][0], steps[min(mid + k, len(steps)) - 1][1]
        if origin is None:
            origin = t0
        # Driver calls shorter than 2 µs (launches, queries) would only blacken the lane.
        shown = [e for e in events if e["end"] > t0 and e["start"] < t1 and
                 (e["kind"] != "driver" or e["end"] - e["start"] >= 2000)]
        streams = sorted({e["stream"] for e in shown if e["stream"] >= 0})
        lanes = ["host regions", "host CUDA calls"] + [f"stream {i}" for i in range(len(streams))]
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
                         "pack/unpack kernels", "wall slots", "host regions (halo_start, halo_finish)", "other",
                         "CUDA driver calls ≥ 2 µs"],
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
    calls = []
    for rank, events in traces:
        rows, steps = analyse(events)
        if rows:
            print(summary(rank, rows))
            calls += [(rank,) + c for c in driver_calls(events, steps)]
        else:
            print(f"| {rank} | too few steps traced | | | | | | |")
    if calls:
        print("\n| rank | region | CUDA driver call | µs a step | calls a step |\n| ---: | --- | --- | ---: | ---: |")
        for rank, (region, name), us, n in calls:
            print(f"| {rank} | {region} | {name} | {us:.1f} | {n:.1f} |")
    if args.png:
        plot(traces, args.steps, args.png, args.title)


if __name__ == "__main__":
    main()
