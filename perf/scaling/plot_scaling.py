#!/usr/bin/env python3
"""Plots the multi-GPU studies written by run_gpu_studies.sh (one summary.json per line):
layout.jsonl -> layout.png (MLUPS vs cube size per exchange variant, Meneghin & Mahmoud Fig. 6),
strong.jsonl -> strong.png (speedup vs GPUs, Fig. 7), weak.jsonl -> weak.png (efficiency vs GPUs).
Rates are those after the run's warm-up (summary.json's mlups_after_warmup: the first tenth of the
steps left out) where a summary has one, else over every step (mlups).
Usage: plot_scaling.py DIR  (reads DIR/*.jsonl, writes DIR/*.png, prints the tables as Markdown)."""
import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def rate(d):
    """MLUPS after the warm-up where the summary has it."""
    return d.get("mlups_after_warmup") or d["mlups"]


def variant(d):
    name = d["variant"]["layout"] + (" + pack" if d["run"].get("halo_pack") else "")
    grid = d.get("decomposition", {}).get("process_grid")
    if d.get("decomposition", {}).get("kind") == "blocks" and grid:
        name += " blocks " + "x".join(str(g) for g in grid)
    if d.get("ranks", 1) > 1:
        name += ", GPU-aware" if d.get("comm", {}).get("gpu_aware") else ", staged"
    return name + (" (overlap)" if d["run"]["overlap"] else " (no overlap)")


def layout_plot(rows, out):
    by = defaultdict(lambda: defaultdict(dict))
    for d in rows:
        by[d["variant"]["lattice"]][variant(d)][d["extents"][0]] = rate(d)
    fig, axes = plt.subplots(1, len(by), figsize=(6 * len(by), 4.5), squeeze=False)
    print("| lattice | variant | " + " | ".join(f"{n}³" for n in sorted({d['extents'][0] for d in rows})) + " |")
    for ax, (lattice, series) in zip(axes[0], sorted(by.items())):
        for name, points in sorted(series.items()):
            xs = sorted(points)
            ax.plot(xs, [points[x] / 1000 for x in xs], marker="o", label=name)
            print(f"| {lattice} | {name} | " + " | ".join(f"{points[x]:.0f}" for x in xs) + " |")
        ax.set_title(f"{lattice} FP32, {rows[0]['ranks']} GPUs")
        ax.set_xlabel("cube edge (voxels)")
        ax.set_ylabel("GLUPS (all GPUs)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def scaling_plot(rows, out, weak):
    # A one-GPU run exchanges nothing (packing, blocks and GPU-awareness change nothing there): it is
    # the first point of every series of its layout.
    by, single = defaultdict(dict), {}
    for d in rows:
        if d["ranks"] == 1:
            single[(d["variant"]["layout"], d["run"]["overlap"])] = rate(d)
        else:
            by[variant(d)][d["ranks"]] = rate(d)
    for d in rows:
        one = single.get((d["variant"]["layout"], d["run"]["overlap"]))
        if d["ranks"] > 1 and one is not None:
            by[variant(d)][1] = one
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for name, points in sorted(by.items()):
        xs = sorted(points)
        base = points[xs[0]]
        ys = [points[x] / base / (x if weak else 1) for x in xs]
        ax.plot(xs, ys, marker="o", label=name)
        label = "efficiency" if weak else "speedup"
        print(f"| {name} | " + " | ".join(f"{x} GPU: {points[x]:.0f} MLUPS ({label} {y:.2f})" for x, y in zip(xs, ys)) + " |")
    xs = sorted({d["ranks"] for d in rows})
    ax.plot(xs, [1.0] * len(xs) if weak else xs, "k--", lw=0.8, label="ideal")
    ax.set_xlabel("GPUs")
    ax.set_ylabel("weak-scaling efficiency" if weak else "speedup over 1 GPU")
    lattice = rows[0]["variant"]["lattice"].upper()
    edge = rows[0]["extents"][0]
    ax.set_title(f"weak scaling, 256³ per GPU ({lattice} FP32)" if weak else f"strong scaling, {edge}³ {lattice} FP32")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    d = sys.argv[1]
    rows = load(os.path.join(d, "layout.jsonl"))
    if rows:
        layout_plot(rows, os.path.join(d, "layout.png"))
    for study in ("strong", "weak"):
        rows = load(os.path.join(d, f"{study}.jsonl"))
        if rows:
            scaling_plot(rows, os.path.join(d, f"{study}.png"), study == "weak")


if __name__ == "__main__":
    main()
