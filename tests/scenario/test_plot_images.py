#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_plot_images.py — every `wanka plot --what` kind drawn from small runs
# and checked as a picture: each PNG (written by `wanka plot`, or for most
# kinds by plot.py's figure() in-process, which `wanka plot` calls) is not blank
# (non-white and coloured pixels); and each figure, drawn again in-process
# by analysis/plot.py's figure(), has: axes with at least three labelled
# ticks on each axis that shows numbers, legends outside every axes' data
# area, the expected number of drawn lines, and no two lines drawn with the
# same data and line style (one would hide the other, whatever the colors). Also the paper
# options: --ci (seeds as mean and band), --baseline, --smooth, budget and
# price on power (a network's: each site's budget beside its power), GPUs
# down on fragmentation, a sweep index as input, -o refused without --force.
# The PNGs stay in BUILDDIR/plot-images for a look.
# usage: test_plot_images.py WANKA SRCROOT BUILDDIR   (exit 77 = skipped: no h5py/matplotlib)
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import h5py  # noqa: F401
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mi
except ImportError as e:
    print(f"skipped: {sys.executable} cannot import {e.name}")
    sys.exit(77)

WANKA, SRC, BUILD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
sys.path.insert(0, os.path.join(SRC, "analysis"))
import plot as P  # noqa: E402

failures = []


def check(cond, what):
    if cond:
        print(f"ok: {what}")
    else:
        print(f"FAIL: {what}")
        failures.append(what)


def run(*args, expect=0):
    r = subprocess.run([WANKA, *args], capture_output=True, text=True, timeout=300)
    if r.returncode != expect:
        print(f"FAIL: wanka {' '.join(args)}: status {r.returncode}, want {expect}: {r.stderr.strip()}")
        failures.append(f"wanka {args[0]} status")
    return r


PRICES = os.path.join(SRC, "scenarios", "data", "diurnal-prices.csv")
CLUSTER = f"""name: tiny-plots
seed: 1
sim: {{sample_interval: 30m}}
cluster: {{sku: H100-SXM-80G, nodes: 8, gpus_per_node: 8, nodes_per_pod: 2}}
facility: {{budget_mw: 0.06, on_budget: cap, prices: {PRICES}, prices_repeat: true}}
failures:
  enabled: false
  incidents:
    - {{at: 3h, kind: down, node: 1, duration: 6h}}
    - {{at: 10h, kind: down, node: 5, duration: 2h}}
    - {{at: 20h, kind: software, gpu: 9}}
    - {{at: 30h, kind: software, gpu: 40}}
workload:
  source: synthetic
  jobs: 60
  interarrival: {{dist: exponential, mean: 40m}}
  duration: {{dist: lognormal, median: 3h, sigma: 1}}
  gpus: [{{gpus: 4, weight: 2}}, {{gpus: 8, weight: 2}}, {{gpus: 16, weight: 1}}]
"""
NETWORK = """name: tiny-net
seed: 1
sim: {sample_interval: 30m}
sites:
  - {name: alpha, cluster: {sku: H100-SXM-80G, nodes: 4, gpus_per_node: 8}}
  - {name: beta, cluster: {sku: H100-SXM-80G, nodes: 4, gpus_per_node: 8}}
  - {name: gamma, cluster: {sku: H100-SXM-80G, nodes: 2, gpus_per_node: 8}}
wan:
  default: {bandwidth: 10Gbps, latency: 5ms}
span: {sites: 2, sync: 1s}
broker: least-loaded
failures: {enabled: false}
workload:
  source: inline
  jobs:
    - {gpus: 64, model: {base: llama3-8b, global_batch: 128}, iterations: 300, submit: 0s}
    - {gpus: 8, duration: 5h, submit: 1h}
    - {gpus: 16, duration: 3h, submit: 2h}
    - {gpus: 8, duration: 9h, submit: 2h}
    - {gpus: 32, duration: 4h, submit: 3h}
    - {gpus: 8, duration: 2h, submit: 6h}
"""
# a network whose sites have facility budgets (alpha and beta; gamma none): the power plot draws
# each site's budget beside that site's power
NETWORK_BUDGETS = NETWORK.replace("name: tiny-net", "name: tiny-net-budgets").replace(
    "{name: alpha, cluster: {sku: H100-SXM-80G, nodes: 4, gpus_per_node: 8}}",
    "{name: alpha, cluster: {sku: H100-SXM-80G, nodes: 4, gpus_per_node: 8}, facility: {budget_mw: 0.045, on_budget: cap}}").replace(
    "{name: beta, cluster: {sku: H100-SXM-80G, nodes: 4, gpus_per_node: 8}}",
    "{name: beta, cluster: {sku: H100-SXM-80G, nodes: 4, gpus_per_node: 8}, facility: {budget_mw: 0.03, on_budget: cap}}")
SWEEP = """name: tiny-sweep
base: cluster.yaml
schedulers: [fifo, backfill]
"""


def png_ok(path):
    """The PNG is a picture: enough non-white and coloured pixels."""
    im = mi.imread(path)[..., :3]
    dark = float((im.mean(axis=2) < 0.9).mean())
    colour = float((im.std(axis=2) > 0.1).mean())
    check(dark > 0.01 and colour > 0.002,
          f"{os.path.basename(path)}: {im.shape[1]}x{im.shape[0]}, {100 * dark:.1f} % non-white, "
          f"{100 * colour:.1f} % coloured")


def numeric_ticks(axis, lo, hi):
    """The tick labels of axis inside [lo, hi] that show text."""
    return [t for t, v in zip(axis.get_ticklabels(), axis.get_ticklocs())
            if t.get_text() and min(lo, hi) - 1e-12 <= v <= max(lo, hi) + 1e-12]


def data_lines(ax):
    """The lines of ax that draw data (more than one point, visible)."""
    out = []
    for ln in ax.get_lines():
        x = np.asarray(ln.get_xdata(), dtype=float)
        if ln.get_visible() and x.size > 1 and ln.get_linestyle() not in ("None", " ", ""):
            out.append(ln)
    return out


def check_figure(name, fig, lines=None, ticks=True):
    """Structural checks of a drawn figure (see the header)."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    main = [a for a in fig.axes if a.get_visible() and not hasattr(a, "_colorbar") and a.get_label() != "<colorbar>"]
    for k, ax in enumerate(main):
        box = ax.get_window_extent(r)
        for other in fig.axes:
            leg = other.get_legend()
            if leg is None:
                continue
            lb = leg.get_window_extent(r)
            overlap = min(lb.x1, box.x1) - max(lb.x0, box.x0) > 1 and min(lb.y1, box.y1) - max(lb.y0, box.y0) > 1
            check(not overlap, f"{name}: the legend of axes {fig.axes.index(other)} is outside axes {k}'s data")
        for t in ax.get_xticklabels() + ax.get_yticklabels():
            check("$" not in t.get_text(), f"{name}: tick label '{t.get_text()}' is plain text, not unrendered TeX")
        if ticks and ax.get_ylabel():
            lo, hi = ax.get_ylim()
            n = len(numeric_ticks(ax.yaxis, lo, hi))
            check(n >= 3, f"{name}: axes {k} '{ax.get_ylabel()}' has {n} labelled y ticks (want >= 3)")
        drawn = data_lines(ax)
        seen = set()
        for ln in drawn:
            # the same data in the same line style hides the line below, whatever its color
            key = (np.asarray(ln.get_xdata(), dtype=float).tobytes(), np.asarray(ln.get_ydata(), dtype=float).tobytes(),
                   str(ln.get_linestyle()), ln.get_drawstyle())
            check(key not in seen, f"{name}: line '{ln.get_label()}' is not drawn over an identical one")
            seen.add(key)
    if lines is not None:
        n = sum(len(data_lines(a)) for a in main)
        check(n == lines, f"{name}: {n} lines drawn, want {lines}")


def draw(mods, what, paths, opts=None, top=P.DEFAULT_TOP):
    traces = [P.Trace(mods["h5py"], p) for p in P.expand_sweeps(mods["h5py"], paths)]
    P.disambiguate(traces)
    return P.figure(mods, what, traces, top, paths, opts)


def main():
    out_dir = os.path.join(BUILD, "plot-images")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    with tempfile.TemporaryDirectory() as T:
        cl, net = os.path.join(T, "cluster.yaml"), os.path.join(T, "net.yaml")
        with open(cl, "w") as f:
            f.write(CLUSTER)
        with open(net, "w") as f:
            f.write(NETWORK)
        with open(os.path.join(T, "sweep.yaml"), "w") as f:
            f.write(SWEEP)
        h = {}
        for sched in ("fifo", "backfill"):
            for seed in (1, 2, 3):
                h[sched, seed] = os.path.join(T, f"{sched}-{seed}.h5")
                run("run", cl, "-q", "--scheduler", sched, "--seed", str(seed), "-o", h[sched, seed])
        run("run", net, "-q", "-o", os.path.join(T, "net.h5"))
        netb = os.path.join(T, "net-budgets.yaml")
        with open(netb, "w") as f:
            f.write(NETWORK_BUDGETS)
        nb = os.path.join(T, "net-budgets.h5")
        run("run", netb, "-q", "-o", nb)
        run("sweep", os.path.join(T, "sweep.yaml"), "-q", "-o", os.path.join(T, "sw"))
        perf = os.path.join(T, "scale.json")
        with open(os.path.join(T, "j.yaml"), "w") as f:
            f.write("model: llama3-70b\ngpus: 1024\n")
        r = run("perf", os.path.join(T, "j.yaml"), "--scale", "512,1024,2048", "--json")
        with open(perf, "w") as f:
            f.write(r.stdout)
        a, b, nh = h["fifo", 1], h["backfill", 1], os.path.join(T, "net.h5")
        seeds = [h[s, k] for s in ("fifo", "backfill") for k in (1, 2, 3)]
        # (name, wanka plot arguments, expected data lines or None)
        cases = [
            ("utilization", [a, b, "--what", "utilization"], 2),
            ("queue", [a, b, "--what", "queue"], 2),
            ("power", [a, b, "--what", "power"], 2 + 1 + 1),  # two runs, one budget (the same), the price
            ("jct-cdf", [a, b, "--what", "jct-cdf"], 2),
            ("incidents", [a, b, "--what", "incidents"], 4),  # two runs x (down, software)
            ("gantt", [a, "--what", "gantt"], None),
            ("gantt-jobs", [a, "--what", "gantt-jobs", "--top", "8"], None),
            ("fragmentation", [a, "--what", "fragmentation"], 2),  # free, and down (two node outages)
            ("heatmap", [a, "--what", "heatmap"], None),
            ("recovery", [a, "--what", "recovery"], None),
            ("scaling", [perf, "--what", "scaling"], 3),
            ("wan", [nh, "--what", "wan"], 2),  # both directions of the ring between alpha and beta
            ("sites", [nh, "--what", "sites"], 6),  # three sites x (utilization, waiting)
            ("net-utilization", [nh, "--what", "utilization"], 4),  # three sites and the network
            # three sites, the network, and the budgets of alpha and beta (gamma has none)
            ("net-power-budgets", [nb, "--what", "power"], 4 + 2),
            ("utilization-ci", seeds + ["--what", "utilization", "--ci"], 2),
            ("utilization-smooth", [a, b, "--what", "utilization", "--smooth", "6h"], 2),
            ("queue-baseline", [b, h["backfill", 2], "--what", "queue", "--baseline", a], 2 + 1),
            ("jct-cdf-ci", seeds + ["--what", "jct-cdf", "--ci"], 2),
            ("jct-cdf-baseline", seeds[3:] + ["--what", "jct-cdf", "--ci", "--baseline", a], 1 + 1),
            ("sweep-index", [os.path.join(T, "sw", "sweep.h5"), "--what", "utilization"], 2),
        ]
        # these through `wanka plot` itself; the others drawn in-process (one python start each is slow)
        cli = {"utilization", "power", "utilization-ci", "queue-baseline", "jct-cdf-baseline", "sweep-index", "sites",
               "net-power-budgets"}
        mods = P.import_deps()
        for name, args, lines in cases:
            png = os.path.join(out_dir, f"{name}.png")
            what = args[args.index("--what") + 1]
            paths = args[:args.index("--what")]
            opts = P.Opts("--ci" in args, None, None, 0)
            if "--smooth" in args:
                opts.smooth, opts.smooth_ns = "6h", 6 * 3600e9
            if "--baseline" in args:
                opts.base = P.Trace(mods["h5py"], args[args.index("--baseline") + 1])
            top = int(args[args.index("--top") + 1]) if "--top" in args else P.DEFAULT_TOP
            fig = draw(mods, what, paths, opts, top) if what != "scaling" else P.figure(mods, what, [], top, paths)
            check_figure(name, fig, lines, ticks=what not in ("gantt", "heatmap", "gantt-jobs"))
            if name == "net-power-budgets":  # each budget in its site's colour, at the site's budget (MW)
                ls = {ln.get_label(): ln for ln in data_lines(fig.axes[0])}
                for site, mw in (("alpha", 0.045), ("beta", 0.03)):
                    b, p = ls.get(f"{site} budget"), ls.get(site)
                    check(b is not None and p is not None and b.get_color() == p.get_color()
                          and np.allclose(np.asarray(b.get_ydata(), float), mw),
                          f"{name}: {site}'s budget line at {mw} MW in the colour of {site}'s power")
                    if p is not None:
                        check(float(np.max(p.get_ydata())) <= mw + 1e-9, f"{name}: {site}'s power stays under its budget")
                check("gamma budget" not in ls, f"{name}: gamma has no budget, so no budget line")
            if name == "fragmentation":  # node 1 down 3 h..9 h, node 5 10 h..12 h: a down line, never free
                ls = {ln.get_label(): ln for ln in data_lines(fig.axes[0])}
                d = ls.get("down for repair (neither free nor stranded)")
                check(d is not None and float(np.max(d.get_ydata())) == 8.0, f"{name}: a line of the GPUs down (8 at most)")
            if name in cli:
                run("plot", *paths, "-o", png, *args[args.index("--what"):])
            else:
                fig.savefig(png)
            mods["plt"].close(fig)
            if os.path.exists(png):
                png_ok(png)
            else:
                check(False, f"{name}: no PNG written")
        # --ci: the band is the mean ± t(0.975, 2) s / sqrt(3) of the three seeds at each time
        m, half, n = P.mean_ci(np, np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 4.0]]))
        check(np.allclose(m, [2.0, 3.0]) and np.allclose(half, [4.303 * 1.0 / np.sqrt(3), 12.706 * np.sqrt(2) / np.sqrt(2)])
              and list(n) == [3, 2], f"mean_ci: {m}, {half}, {n}")
        # --smooth: a step 0 then 1 averaged over 2 units is a ramp at the step
        s = P.smooth(np, np.array([0.0, 1.0, 2.0, 3.0, 4.0]), np.array([0.0, 0.0, 1.0, 1.0, 1.0]), 2.0)
        check(np.allclose(s, [0.0, 0.0, 0.5, 1.0, 1.0]), f"smooth: {s}")
        # -o is not replaced without --force; with it, it is
        png = os.path.join(out_dir, "utilization.png")
        before = os.path.getmtime(png)
        r = run("plot", a, "-o", png, "--what", "queue", expect=2)
        check("exists; pass --force" in r.stderr and os.path.getmtime(png) == before,
              f"plot -o EXISTING refused: {r.stderr.strip()}")
        run("plot", a, "-o", png, "--what", "utilization", "--force")
        r = run("plot", a, "-o", os.path.join(T, "x.png"), "--what", "heatmap", "--ci", expect=2)
        check("--ci applies to" in r.stderr, f"--ci on heatmap refused: {r.stderr.strip()}")
        r = run("plot", a, "-o", os.path.join(T, "x.png"), "--what", "queue", "--smooth", "fast", expect=2)
        check("--smooth fast: expected a positive duration" in r.stderr, f"--smooth fast refused: {r.stderr.strip()}")
        r = run("plot", a, "-o", os.path.join(T, "x.png"), "--what", "sites", expect=2)
        check("not a network's trace" in r.stderr, f"--what sites of one cluster refused: {r.stderr.strip()}")
    print(f"PNGs in {out_dir}")
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
