#!/usr/bin/env python3
"""The multi-GPU analysis scripts on inputs whose answers are known: perf/timeline/plot_timeline.py's
overlap figures from a synthetic CUPTI trace (labelled, and with mangled kernel names only), and
perf/scaling/exchange_model.py's fit, path and layout filters from synthetic summary lines.
Usage: check_scaling_tools.py SOURCE_DIR"""
import importlib.util
import os
import sys
import tempfile


def module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def require(condition, what):
    if not condition:
        raise SystemExit(f"FAIL: {what}")


def write_trace(path, interior_name, shared_name):
    """20 steps of 200 us: interior kernel [-5, 100) us around halo_start at 0, a 18 us copy inside it and a
    15 us copy from 95 us (5 of them inside), the shared kernel from 112 us; in the halo_finish region a
    90 us cuEventSynchronize, and a launch outside the halo regions."""
    with open(path, "w") as f:
        f.write("kind,name,stream,start_ns,end_ns,bytes\n")
        for s in range(20):
            t = 1_000_000 + s * 200_000
            f.write(f"kernel,{interior_name},13,{t - 5_000},{t + 100_000},0\n")
            f.write(f"driver,cuLaunchKernel,-1,{t - 6_000},{t - 5_000},0\n")
            f.write(f"region,karman::halo_start,-1,{t},{t + 3_000},0\n")
            f.write(f"region,karman::halo_finish,-1,{t + 3_000},{t + 110_000},0\n")
            f.write(f"driver,cuEventSynchronize,-1,{t + 5_000},{t + 95_000},0\n")
            f.write(f"memcpy_dtoh,,7,{t + 2_000},{t + 20_000},1000000\n")
            f.write(f"memcpy_htod,,7,{t + 95_000},{t + 110_000},1000000\n")
            f.write(f"kernel,{shared_name},14,{t + 112_000},{t + 120_000},0\n")


def check_timeline(source):
    timeline = module(os.path.join(source, "perf/timeline/plot_timeline.py"), "plot_timeline")
    with tempfile.TemporaryDirectory() as d:
        for interior, shared in (("karman::stream_collide_interior_bulk", "karman::stream_collide_shared_lo"),
                                 ("_ZN6Kokkos4Impl11StreamCollideBig", "_ZN6Kokkos4Impl11StreamCollideSmall")):
            path = os.path.join(d, "trace_rank0.csv")
            write_trace(path, interior, shared)
            rows, steps = timeline.analyse(timeline.load(path))
            require(len(steps) == 19, f"19 steps between 20 halo_start regions, got {len(steps)}")
            require(rows and len(rows) == 13, f"13 steps analysed (3 left out at each end), got {rows and len(rows)}")
            hidden = sum(r["hidden"] for r in rows) / sum(r["exchange"] for r in rows)
            require(abs(hidden - 23 / 33) < 1e-12, f"hidden share 23/33 ({interior}), got {hidden}")
            require(all(r["gap"] == 12_000 for r in rows), f"interior end to shared start 12 us ({interior})")
            require(all(r["interior"] == 105_000 for r in rows), "interior kernel 105 us")
            require(all(r["bytes"] == 2_000_000 for r in rows), "2 MB copied a step")
            calls = timeline.driver_calls(timeline.load(path), steps)
            require(calls == [(("halo_finish", "cuEventSynchronize"), 90.0, 1.0)],
                    f"one 90 us cuEventSynchronize a step in halo_finish, nothing else, got {calls}")
    mangled = [{"kind": "kernel", "name": n, "stream": st, "start": 0, "end": e, "bytes": 0}
               for n, st, e in (("_ZN6Kokkos4Impl3StreamCollideA", 13, 90), ("_ZN6Kokkos4Impl3StreamCollideB", 14, 10),
                                ("_ZN6Kokkos4Impl8PackHaloINS", 7, 5), ("_ZN6Kokkos4Impl10UnpackHaloINS", 7, 5),
                                ("_ZN6Kokkos4Impl13FillWallSlotsI", 7, 5))]
    timeline.name_unlabelled_kernels(mangled)
    roles = [timeline.role(e) for e in mangled]
    require(roles == ["interior", "shared", "exchange_kernel", "exchange_kernel", "walls"],
            f"mangled kernel names: interior, shared, pack, unpack, walls; got {roles}")
    print("plot_timeline.py: hidden share, gap, interior time, bytes and driver calls as constructed, labelled and not")


def summary(ranks, layout, pack, gpu_aware, overlap, mlups, values_sent, messages=1, edge=128):
    return {"ranks": ranks, "extents": [edge] * 3, "mlups": mlups,
            "variant": {"lattice": "d3q27", "layout": layout, "precision": "float"},
            "run": {"halo_pack": pack, "overlap": overlap},
            "comm": {"halo_pack": pack, "overlap": overlap and ranks > 1, "gpu_aware": gpu_aware,
                     "per_rank": [{"messages_sent_per_step": messages, "neighbours": 1,
                                   "values_sent_per_step": values_sent}] * ranks}}


def check_model(source):
    model = module(os.path.join(source, "perf/scaling/exchange_model.py"), "exchange_model")
    voxels = 128 ** 3
    rate = 8e9  # one-GPU updates per second
    alpha, beta = 50e-6, 10e9  # the exchange the GPU-aware runs are built with
    # One-GPU runs of another box come last: the 128^3 runs must still be measured against 128^3's rate.
    runs = [summary(1, "disaggregated", False, False, False, rate / 1e6, 0),
            summary(1, "soa", True, False, False, rate / 1e6, 0),
            summary(1, "disaggregated", False, False, False, 2 * rate / 1e6, 0, edge=256),
            summary(1, "soa", True, False, False, 2 * rate / 1e6, 0, edge=256)]
    for ranks, values in ((2, 150_000), (4, 300_000)):
        for layout, pack in (("disaggregated", False), ("soa", True)):
            exposed = alpha + values * 4 / beta
            step = voxels / ranks / rate + exposed
            runs.append(summary(ranks, layout, pack, True, False, voxels / step / 1e6, values))
            # staged runs twice as slow, and per-population SoA runs, must be left out by the filters
            runs.append(summary(ranks, layout, pack, False, False, voxels / (step + exposed) / 1e6, values))
        runs.append(summary(ranks, "soa", False, True, False, 1.0, values, messages=9))
    points = model.exchange_points(runs, "gpu-aware", ["disaggregated", "soa+pack"])
    require(len(points) == 4, f"4 GPU-aware one-message runs without overlap, got {len(points)}")
    a, inv_b = model.fit(points)
    require(abs(a - alpha) < 1e-9 and abs(1 / inv_b - beta) < 1e3, f"fit alpha {a}, beta {1 / inv_b}")
    require(len(model.exchange_points(runs, "staged", None)) == 4, "4 staged runs")
    # The per-population SoA runs have no one-GPU run of their kind (SoA unpacked) to measure against.
    require(len(model.exchange_points(runs, "any", None)) == 8, "8 runs without overlap that have a one-GPU rate")
    require(model.balanced_grid(8) == [2, 2, 2] and model.balanced_grid(4) == [1, 2, 2], "MPI_Dims_create grids")
    try:
        model.fit(points[:1] * 3)
        require(False, "a fit of runs that all send the same bytes must be refused")
    except SystemExit as refusal:
        require("same bytes" in str(refusal), f"the refusal names the cause: {refusal}")
    m, b = model.exchange("d3q19", [64, 64, 64], [2, 2, 2], 4, periodic=(True, True, True))
    require(m == 18 and b == (6 * 5 * 64 * 64 + 12 * 64) * 4, f"D3Q19 2x2x2 periodic: 18 messages, got {m}, {b}")
    m, b = model.exchange("d3q19", [64, 64, 64], [2, 2, 2], 4)
    require(m == 6 and b == (3 * 5 * 64 * 64 + 3 * 64) * 4, f"D3Q19 2x2x2 walled: 3 faces, 3 edges, got {m}, {b}")
    m, _ = model.exchange("d3q27", [64, 64, 64], [3, 3, 3], 4)
    require(m == 26, f"D3Q27 3x3x3 centre block: 26 messages, got {m}")
    m, b = model.exchange("d3q27", [64, 64, 32], [1, 1, 2], 4)
    require(m == 1 and b == 9 * 64 * 64 * 4, f"D3Q27 two walled slabs: one face of 9 populations, got {m}, {b}")
    print("exchange_model.py: alpha and beta recovered, path and layout filters, the one-GPU rate of the run's box, "
          "a degenerate fit refused, block exchange counts")


def main():
    source = sys.argv[1]
    check_timeline(source)
    check_model(source)


if __name__ == "__main__":
    main()
