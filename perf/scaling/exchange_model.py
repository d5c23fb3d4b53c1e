#!/usr/bin/env python3
"""Latency-bandwidth model of the halo exchange (Meneghin & Mahmoud Eq. 2), fitted to measured runs,
and what it predicts for slabs and Cartesian blocks on many GPUs (issue 18 item 4).

Fit: the exchange time a step exposes, t = alpha + b / beta, where b is the bytes a rank sends per
step (the largest over the ranks) and alpha the latency of one exchange: a rank posts the receives
and sends of all its neighbours at once, so their latencies overlap and count once. From the summary.json lines of
run_gpu_studies.sh (JSONL) whose exchange did not overlap computation (`run.overlap` false). The
exposed time is the step time (the box's voxels over the run's MLUPS) less the update time of a
rank's voxels at the one-GPU rate of the same lattice, layout and packing (a one-rank line of the
input): the exchangers' own seconds include waiting for the kernels before them, so they do not
time the transport. Least squares, both coefficients >= 0.

Prediction for P GPUs on a global box (strong scaling) or a box per GPU (weak scaling): the update
time of N^3 / P voxels at the one-GPU rate R (from the one-rank run of the same lattice and layout
whose box is nearest N, assumed independent of the block size) plus the exchange time of the busiest
rank: slabs cut the slowest axis (2 neighbours, 1 on 2 GPUs of a walled box, the populations crossing
a face; the weak case is a channel periodic along that axis), Cartesian blocks the balanced grid
of MPI_Dims_create (faces, edges and corners; only the populations crossing each, D3Q19: 5 per
face and 1 per edge, D3Q27: 9, 3 and 1). Two bounds: no overlap (t_update + t_exchange) and
perfect overlap (max of the two). Assumes the transport measured (fabric, staging) holds at any P,
that one rank's messages to its neighbours share its bandwidth beta, and that the update rate does
not fall with the block size.

Usage: exchange_model.py STUDY.jsonl [...] [--lattice d3q27 --n 192 --layout disaggregated]
                         [--path gpu-aware|staged] [--fit-layouts disaggregated,soa+pack]
"""
import argparse
import itertools
import json
import math

CROSSING = {"d3q19": {1: 5, 2: 1, 3: 0}, "d3q27": {1: 9, 2: 3, 3: 1}}  # populations per face/edge/corner


def load(paths):
    runs = []
    for path in paths:
        with open(path) as f:
            runs += [json.loads(line) for line in f if line.strip()]
    return runs


VALUE_BYTES = {"float": 4, "double": 8, "fp16s": 2, "fp16c": 2}


def kind(r):
    """What the one-GPU rate must match: lattice, layout and packing."""
    return (r["variant"]["lattice"], r["variant"]["layout"], bool(r["comm"].get("halo_pack")))


def rate(r):
    """Voxel updates per second after the run's warm-up where the summary has it (plot_scaling.py)."""
    return (r.get("mlups_after_warmup") or r["mlups"]) * 1e6


def one_gpu_rates(runs):
    """Voxel updates per second of the one-rank runs, by kind() and by (kind(), extents): a run's
    update time is taken at the one-GPU rate of its own box where there is one (the rate moves
    with the box: 64^3 runs slower than 256^3), else at its kind's."""
    rates = {}
    for r in runs:
        if r.get("ranks", 1) == 1:
            rates[kind(r)] = rates[(kind(r), tuple(r["extents"]))] = rate(r)
    return rates


def one_gpu_rate(rates, r):
    """The one-GPU rate for run r (one_gpu_rates()), None where its kind has none."""
    return rates.get((kind(r), tuple(r["extents"])), rates.get(kind(r)))


def variant_name(r):
    """disaggregated, soa or soa+pack: how the run's messages were formed."""
    return r["variant"]["layout"] + ("+pack" if r["comm"].get("halo_pack") else "")


def exchange_points(runs, path="any", layouts=None):
    """(messages, bytes, exposed seconds, run) per step of every run without overlap that has a
    one-GPU rate of its kind, taken through `path` (gpu-aware, staged or any) by one of `layouts`
    (variant_name()s; None: all)."""
    rates = one_gpu_rates(runs)
    points = []
    for r in runs:
        comm = r.get("comm", {})
        one_rate = one_gpu_rate(rates, r)
        if r.get("ranks", 1) < 2 or comm.get("overlap") or one_rate is None:
            continue
        if path != "any" and bool(comm.get("gpu_aware")) != (path == "gpu-aware"):
            continue
        if layouts and variant_name(r) not in layouts:
            continue
        voxels = math.prod(r["extents"])
        exposed = voxels / rate(r) - voxels / r["ranks"] / one_rate
        m = max(p["messages_sent_per_step"] * p["neighbours"] for p in comm["per_rank"])
        b = max(p["values_sent_per_step"] for p in comm["per_rank"]) * VALUE_BYTES[r["variant"]["precision"]]
        points.append((m, b, exposed, r))
    return points


def fit(points):
    """Least squares t = alpha + b / beta with alpha, 1/beta >= 0 (2x2 normal equations)."""
    smm = float(len(points))
    sbb = sum(b * b for _, b, _, _ in points)
    smb = sum(b for _, b, _, _ in points)
    smt = sum(t for _, _, t, _ in points)
    sbt = sum(b * t for _, b, t, _ in points)
    det = smm * sbb - smb * smb
    if det <= 1e-12 * smm * sbb:
        raise SystemExit("exchange_model.py: every run fitted sends the same bytes a step, which fixes "
                         "alpha + b / beta but not alpha and beta apart; add runs of other box sizes")
    alpha, inv_beta = (smt * sbb - sbt * smb) / det, (smm * sbt - smb * smt) / det
    if alpha < 0:
        alpha, inv_beta = 0.0, sbt / sbb
    if inv_beta < 0:
        alpha, inv_beta = smt / smm, 0.0
    return alpha, inv_beta


def balanced_grid(p):
    """MPI_Dims_create's balanced 3D grid, largest factor on the slowest axis."""
    best = None
    for a in range(1, p + 1):
        for b in range(1, p // a + 1):
            if p % (a * b):
                continue
            c = p // (a * b)
            dims = sorted((a, b, c))
            if best is None or dims[2] - dims[0] < best[2] - best[0]:
                best = dims
    return best


def exchange(lattice, block, dims, value_bytes, periodic=(False, False, False)):
    """Messages and bytes per step of the busiest block `block` (voxels per axis) of a box cut along
    the axes with dims > 1: one message per neighbour that some population crosses into. The busiest
    block is an inner one: it has neighbours on both sides along an axis cut in three or more or
    periodic, on one side along a walled axis cut in two."""
    messages, values = 0, 0
    for step in itertools.product((-1, 0, 1), repeat=3):
        moved = [a for a in range(3) if step[a] != 0]
        if not moved or any(dims[a] == 1 or (dims[a] == 2 and not periodic[a] and step[a] < 0) for a in moved):
            continue
        crossing = CROSSING[lattice][len(moved)]
        if crossing == 0:
            continue
        area = math.prod(block[a] for a in range(3) if step[a] == 0)
        messages += 1
        values += crossing * area
    return messages, values * value_bytes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("jsonl", nargs="+")
    parser.add_argument("--lattice", default="d3q27")
    parser.add_argument("--layout", default="disaggregated")
    parser.add_argument("--n", type=int, default=192, help="box edge (strong) or edge per GPU (weak)")
    parser.add_argument("--weak", action="store_true", help="an n^3 box per GPU instead of one n^3 box")
    parser.add_argument("--gpus", default="2,8,64,512")
    parser.add_argument("--alpha-us", type=float, help="predict with this latency per exchange instead of the fit's")
    parser.add_argument("--beta-gbps", type=float, help="predict with this bandwidth instead of the fit's")
    parser.add_argument("--path", choices=("any", "gpu-aware", "staged"), default="any",
                        help="fit the runs whose messages took this path only")
    parser.add_argument("--fit-layouts", help="fit these variants only, comma-separated: disaggregated, soa, soa+pack "
                        "(the model's one latency per exchange suits one message a neighbour)")
    args = parser.parse_args()

    runs = load(args.jsonl)
    points = exchange_points(runs, args.path, args.fit_layouts.split(",") if args.fit_layouts else None)
    if not points:
        raise SystemExit("exchange_model.py: no run without overlap matches (and none has a one-GPU rate of its kind)")
    alpha, inv_beta = fit(points)
    print(f"fit over {len(points)} runs without overlap: alpha = {alpha * 1e6:.1f} us per exchange, "
          f"beta = {1e-9 / inv_beta:.2f} GB/s" if inv_beta > 0 else f"alpha = {alpha * 1e6:.1f} us, beta infinite")
    for m, b, t, r in points:
        model = alpha + b * inv_beta
        print(f"  {r['variant']['lattice']} {r['extents'][0]}^3 {r['variant']['layout']:>13}"
              f"{' pack' if r['comm'].get('halo_pack') else '     '} {r['ranks']} ranks: {m:4.0f} msgs "
              f"{b / 1e6:7.3f} MB  measured {t * 1e6:7.1f} us  model {model * 1e6:7.1f} us")

    if args.alpha_us is not None or args.beta_gbps is not None:
        alpha = alpha if args.alpha_us is None else args.alpha_us * 1e-6
        inv_beta = inv_beta if args.beta_gbps is None else 1.0 / (args.beta_gbps * 1e9)
        print(f"predicting with alpha = {alpha * 1e6:.1f} us, beta = {1e-9 / inv_beta:.1f} GB/s (given)")
    one_rank_runs = [r for r in runs if r.get("ranks", 1) == 1 and r["variant"]["lattice"] == args.lattice
                     and r["variant"]["layout"] == args.layout]
    if not one_rank_runs:
        print(f"no one-rank run of {args.lattice}/{args.layout} to take the update rate from")
        return
    nearest = min(one_rank_runs, key=lambda r: abs(r["extents"][0] - args.n))  # the box nearest the predicted n
    one_rate = rate(nearest)  # voxel updates per second on one GPU
    value_bytes = VALUE_BYTES[nearest["variant"]["precision"]]
    print(f"\nupdate rate from the one-GPU run: {one_rate / 1e9:.2f} GLUPS ({args.lattice}, {args.layout}, "
          f"{nearest['extents'][0]}^3)")
    kind = "weak, n^3 per GPU" if args.weak else "strong, one box"
    print(f"{kind}, n = {args.n}: speedup over one GPU (efficiency), no overlap / perfect overlap")
    print(f"{'GPUs':>5} | {'slabs':>50} | {'Cartesian blocks':>50}")
    n = args.n
    for p in (int(g) for g in args.gpus.split(",")):
        voxels = n ** 3 if not args.weak else n ** 3 * p
        t_update = voxels / p / one_rate
        cells = []
        for dims in ([1, 1, p], balanced_grid(p)):
            edges = [n * dims[a] for a in range(3)] if args.weak else [n, n, n]
            block = [edges[a] / dims[a] for a in range(3)]
            if min(block[a] for a in range(3) if dims[a] > 1) < 2:
                cells.append(f"{'x'.join(map(str, dims))}: blocks thinner than 2 voxels")
                continue
            m, b = exchange(args.lattice, block, dims, value_bytes, periodic=(False, False, args.weak))
            t_ex = alpha + b * inv_beta
            t_one = voxels / one_rate
            s_none, s_overlap = t_one / (t_update + t_ex), t_one / max(t_update, t_ex)
            cells.append(f"{'x'.join(map(str, dims))}, {m} msgs, {b / 1e6:.2f} MB: {s_none:5.1f}x ({s_none / p:4.0%}) / "
                         f"{s_overlap:5.1f}x ({s_overlap / p:4.0%})")
        print(f"{p:5d} | {cells[0]:>50} | {cells[1]:>50}")


if __name__ == "__main__":
    main()
