#!/usr/bin/env python3
"""Plots docs/img/taylor_green_re1600.png: the dissipation rate of the H100 runs in this folder
(energy.csv of `karman taylor-green --dim 3 --re 1600`, docs/validation.md) against the spectral DNS."""
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")


def columns(path):
    with open(path) as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    return [[float(r[i]) for r in rows[1:]] for i in range(len(rows[0]))]


ref_t, ref_eps = columns(os.path.join(ROOT, "tests", "validation", "refdata", "taylor_green_re1600_dissipation.csv"))
fig, ax = plt.subplots(figsize=(7, 4.2))
ax.plot(ref_t, ref_eps, "k.", label="spectral DNS 512³ (Wang et al. 2013)")
for name, label in [("re1600_n64_u01", "cm, 64³, U₀ = 0.1"), ("re1600_n128", "cm, 128³"),
                    ("re1600_n256", "cm, 256³"), ("re1600_n128_bgk", "bgk, 128³")]:
    t, _, eps = columns(os.path.join(HERE, name + ".csv"))
    ax.plot(t, eps, "--" if "bgk" in name else "-", label=label)
ax.set_xlabel("t U₀ / L")
ax.set_ylabel("−dE/dt  (U₀³ / L)")
ax.set_xlim(0, 12)
ax.set_ylim(0, 0.016)  # the first sample holds the initial acoustic adjustment
ax.set_title("3D Taylor–Green vortex, Re 1600, D3Q27 (H100)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(os.path.join(ROOT, "docs", "img", "taylor_green_re1600.png"), dpi=110)
