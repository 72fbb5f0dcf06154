#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# plot.py — figures from wanka HDF5 traces (run by `wanka plot`): cluster time
# series and job-completion-time CDFs, several runs overlaid; per-run Gantt
# charts, per-pod heatmaps and recovery breakdowns; the `wanka perf --scale`
# curve. Reads traces with h5py only (docs/trace-format.md); draws with
# matplotlib's Agg backend. analysis/html_report.py draws through figure().
"""usage: plot.py INPUT... -o OUT.png|OUT.svg --what WHAT [--top N] [--force]
                 [--ci] [--baseline TRACE] [--smooth DURATION]

WHAT is one of:
  utilization  allocated GPUs / GPUs over time (timeseries/cluster)
  queue        jobs waiting over time (timeseries/cluster)
  power        facility power over time, MW (timeseries/cluster)
  jct-cdf      CDF of job completion time of completed jobs, hours (jobs)
  incidents    cumulative incidents over time (incidents; exit 2 if absent)
  gantt        the cluster's nodes over time (placement, schema 1.6): nodes on
               the y axis grouped by pod and rack, each job segment a bar
               colored by job; a trace without placement: as gantt-jobs
  gantt-jobs   the --top N jobs with the most GPU-time as bars over time, each
               as tall as its GPUs; incidents that stopped jobs marked (jobs)
  fragmentation free GPUs and the free GPUs no waiting job can use
               (stranded) over time, GPUs down for repair apart (placement,
               schema 1.6; incidents)
  heatmap      each pod's utilization over time (timeseries/pods, schema 1.2)
  recovery     per incident that stopped a job: detection, wait and restart
               stacked, and the work lost (incidents)
  scaling      throughput and scaling efficiency against GPUs; INPUT is the
               JSON of `wanka perf JOB.yaml --scale N1,N2,... --json`
  wan          a network's WAN links: each directed link's traffic as a share
               of its bandwidth over time, the --top N busiest (timeseries/wan,
               schema 1.5)
  sites        a network's sites, a panel each: utilization, and jobs waiting
               on a second axis (timeseries/sites, schema 1.4)

Options for utilization, queue, power and jct-cdf:
  --ci         traces of the same scenario, scheduler and overrides that differ
               only in their seed are one curve: the mean over the seeds with
               its 95 % confidence band (Student's t, n - 1 degrees of freedom)
  --baseline TRACE
               draw each trace's difference from TRACE (not drawn itself): the
               series minus TRACE's at the same times; jct-cdf: each
               percentile's job completion time divided by TRACE's
  --smooth DURATION
               a centred moving average over DURATION (e.g. 6h, 2d; time series
               only), time-weighted, so a long run's daily swings do not hide
               its trend
power also draws the facility's budget and electricity price (right axis)
where the trace has timeseries/facility (schema 1.3, a `facility:` section);
a network drawn site by site draws each site's budget (where the site has
one) dashed in the colour of that site's power.
Legends are placed beside the plot, never over data; runs overlaid get a line
style each, so two identical series stay visible as one solid and one dashed.
An input that is a sweep index (DIR/sweep.h5 of `wanka sweep`) stands for
the traces of its points that ran, as in `wanka compare`.

gantt, heatmap, recovery and wan draw one panel per trace. One trace of a
network of sites (schema 1.4: timeseries/sites, the root attribute `sites`)
is drawn site by site: utilization, queue and power one line per site beside
the network's total, jct-cdf one curve per site (docs/brokers.md).

The output is not replaced unless --force is given.

Exit status: 0 written, 2 bad arguments / an existing output without --force
/ missing file / a trace lacking the dataset or malformed (one line: "wanka: FILE: what is wrong", never a
traceback), 1 missing Python packages or an unexpected error. The image is
written under a temporary name and renamed, so no partial image is left.
"""
import argparse
import os
import signal
import sys

PROG = "wanka plot"
EXIT_USAGE = 2
EXIT_ENV = 1
SCHEMA_MAJOR = 1
NS_PER_DAY = 86400e9
NS_PER_HOUR = 3600e9

# --what -> (the dataset it needs, title); scaling reads JSON, not a trace
WHATS = {
    "utilization": ("timeseries/cluster", "GPU utilization (allocated)"),
    "queue": ("timeseries/cluster", "Jobs waiting in the queue"),
    "power": ("timeseries/cluster", "Facility power"),
    "jct-cdf": ("jobs", "Job completion time, completed jobs"),
    "incidents": ("incidents", "Incidents"),
    "gantt": ("jobs", "Jobs over time"),
    "gantt-jobs": ("jobs", "Largest jobs over time"),
    "fragmentation": ("placement", "Fragmentation: free GPUs no waiting job can use"),
    "heatmap": ("timeseries/pods", "Per-pod utilization"),
    "recovery": ("incidents", "Recovery of the incidents that stopped jobs"),
    "scaling": (None, "Scaling (wanka perf --scale)"),
    "wan": ("timeseries/wan", "WAN traffic per link"),
    "sites": ("timeseries/sites", "Sites of the network"),
}
PER_TRACE = ("gantt", "gantt-jobs", "heatmap", "recovery", "wan", "fragmentation")  # one panel per trace
SERIES = ("utilization", "queue", "power")  # time series: --smooth applies
AGGREGABLE = SERIES + ("jct-cdf",)  # --ci and --baseline apply
# runs overlaid: a line style and width each, so that identical series stay visible
STYLES = (("-", 1.8), ((0, (5, 3)), 1.4), ((0, (1, 2)), 1.8), ((0, (6, 2, 1, 2)), 1.4))
# Student's t, 0.975 quantile, by degrees of freedom 1..30 (beyond: 1.96)
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042)
DEFAULT_TOP = 30


class PlotError(Exception):
    """Bad input (exit status 2): the message names the file."""


# --what -> the columns of its dataset that it reads
COLUMNS = {
    "utilization": ("time", "allocated_gpus"),
    "queue": ("time", "queued_jobs"),
    "power": ("time", "power"),
    "jct-cdf": ("submit", "end"),
    "incidents": (),
}

# The trace being read, named in the message when reading it fails.
READING = [None]


def die(msg, status=EXIT_USAGE):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(status)


def die_file(path, msg):
    """Bad input naming its file: raised as PlotError, so that `wanka plot`
    prints it as one line ("wanka: FILE: what is wrong", status 2) and
    html_report.py can put the reason in place of the figure."""
    raise PlotError(f"{path}: {msg}")


def fail(msg, status=EXIT_USAGE):
    """One line as wanka's own messages are ("wanka: FILE: ..."), then exit."""
    print(f"wanka: {msg}", file=sys.stderr)
    sys.exit(status)


def import_deps():
    """Import numpy, h5py and matplotlib (Agg), or exit naming the Debian packages."""
    missing = []
    mods = {}
    # the stop signals held back while the packages load (a second or so): numpy turns an exception raised
    # inside its import, the handler's too, into an ImportError, which would read as a missing package
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        for mod, pkg in (("numpy", "python3-numpy"), ("h5py", "python3-h5py"),
                         ("matplotlib", "python3-matplotlib")):
            try:
                mods[mod] = __import__(mod)
            except ImportError:
                missing.append((mod, pkg))
        if missing:
            die(f"{sys.executable} cannot import {', '.join(m for m, _ in missing)}; "
                f"on Debian/Ubuntu install them with: "
                f"sudo apt-get install python3 {' '.join(p for _, p in missing)}", EXIT_ENV)
        mods["matplotlib"].use("Agg")
        # names from traces are drawn as they are: a '$' is not TeX math
        mods["matplotlib"].rcParams["text.usetex"] = False
        if "text.parse_math" in mods["matplotlib"].rcParams:
            mods["matplotlib"].rcParams["text.parse_math"] = False
        import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
        from matplotlib.ticker import MaxNLocator
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)  # a signal that came meanwhile is handled here
    mods["plt"] = plt
    globals()["MaxNLocator"] = MaxNLocator
    globals()["MPL_COLORMAPS"] = mods["matplotlib"].colormaps
    return mods


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description="Plot wanka HDF5 traces.",
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("traces", nargs="+", metavar="INPUT",
                   help="traces to overlay (TRACE.h5), or perf JSON files for --what scaling")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="output image: .png or .svg")
    p.add_argument("--what", required=True, choices=sorted(WHATS), help="what to plot")
    p.add_argument("--top", type=int, default=DEFAULT_TOP, metavar="N",
                   help=f"gantt: the N jobs with the most GPU-time; recovery: the N longest "
                        f"recoveries (default {DEFAULT_TOP})")
    p.add_argument("--force", action="store_true", help="replace OUT when it exists")
    p.add_argument("--ci", action="store_true",
                   help="seeds of one configuration as their mean with a 95 %% confidence band")
    p.add_argument("--baseline", metavar="TRACE", help="draw differences from TRACE")
    p.add_argument("--smooth", metavar="DURATION", help="centred moving average over DURATION (e.g. 6h, 2d)")
    a = p.parse_args(argv)
    if not 1 <= a.top <= 10000:
        die(f"--top {a.top}: expected a count from 1 to 10000")
    if (a.ci or a.baseline) and a.what not in AGGREGABLE:
        die(f"--{'ci' if a.ci else 'baseline'} applies to --what {', '.join(AGGREGABLE)}, not {a.what}")
    a.smooth_ns = 0
    if a.smooth is not None:
        if a.what not in SERIES:
            die(f"--smooth applies to --what {', '.join(SERIES)}, not {a.what}")
        a.smooth_ns = parse_duration(a.smooth)
    ext = os.path.splitext(a.output)[1].lower()
    if ext not in (".png", ".svg"):
        die(f"-o {a.output}: the output must end in .png or .svg")
    outdir = os.path.dirname(os.path.abspath(a.output))
    if not os.path.isdir(outdir):
        die(f"-o {a.output}: directory {outdir} does not exist")
    return a


def parse_duration(text):
    """A duration as wanka's scenarios write it (90s, 30m, 6h, 2d, 1w), in ns;
    exit 2 naming --smooth when it is not one."""
    units = {"s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9, "w": 7 * 86400e9}
    t = text.strip()
    try:
        ns = float(t[:-1]) * units[t[-1]] if t and t[-1] in units else float("nan")
    except ValueError:
        ns = float("nan")
    if not ns > 0 or ns > 1e20:
        die(f"--smooth {text}: expected a positive duration such as 90s, 30m, 6h, 2d or 1w")
    return ns


def printable(s):
    """s with each control character but newline and tab as \\xHH: names
    from a trace are drawn and shown as text, never acted on."""
    return "".join(c if c in "\n\t" or not (ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f) else f"\\x{ord(c):02x}"
                   for c in s)


def attr_str(f, name, default=""):
    """A root string attribute (h5py gives str or bytes; invalid UTF-8 as
    U+FFFD, control characters escaped), default when absent."""
    if name not in f.attrs:
        return default
    v = f.attrs[name]
    return printable(v.decode("utf-8", errors="replace") if isinstance(v, bytes) else str(v))


class Trace:
    """One trace, opened and checked; its label is 'scheduler/seed'."""

    def __init__(self, h5py, path):
        READING[0] = path
        if not os.path.exists(path):
            die_file(path, "no such file")
        if not os.path.isfile(path):
            die_file(path, "not a regular file, not a trace")
        self.h5py = h5py
        try:
            self.f = h5py.File(path, "r")
        except OSError as e:
            die_file(path, f"not a readable HDF5 file ({one_line(e)})")
        version = attr_str(self.f, "schema_version", None)
        if version is None:
            die_file(path, "not a wanka trace: no root attribute 'schema_version'")
        try:
            major = int(version.split(".")[0])
        except ValueError:
            die_file(path, f"malformed schema_version '{version}'")
        if major != SCHEMA_MAJOR:
            die_file(path, f"trace schema version {version} is not supported: "
                     f"this plot.py reads schema {SCHEMA_MAJOR}.x")
        self.path = path
        sched = attr_str(self.f, "scheduler") or "?"
        seed = self.f.attrs.get("seed")
        self.sched = sched
        self.overrides = attr_str(self.f, "overrides").strip()
        self.label = f"{sched}/{seed if seed is not None else '?'}"
        self.scenario = attr_str(self.f, "scenario_name")
        try:
            self.gpus = int(self.f.attrs.get("gpus", 0))
        except (TypeError, ValueError):
            die_file(path, "root attribute 'gpus': not an integer")

    def need(self, dataset, what):
        """The dataset --what reads: a one-dimensional table with its columns, numeric."""
        READING[0] = self.path
        if dataset not in self.f:
            if dataset == "incidents":
                die_file(self.path, "no 'incidents' table: this run recorded no incidents "
                         f"(failures are off or this wanka does not write them); nothing to plot for --what {what}")
            die_file(self.path, f"the trace lacks the dataset '{dataset}' needed by --what {what}")
        ds = self.f[dataset]
        if not isinstance(ds, self.h5py.Dataset):
            die_file(self.path, f"{dataset}: not a dataset")
        names = ds.dtype.names or ()
        if len(ds.shape) != 1 or not names:
            die_file(self.path, f"{dataset}: not a table (shape {ds.shape}, columns {', '.join(names) or 'none'})")
        for c in COLUMNS.get(what, ()):
            if c not in names:
                die_file(self.path, f"{dataset}: no column '{c}' (columns: {', '.join(names)})")
            kind = ds.dtype[c].kind
            if kind not in "iuf" or ds.dtype[c].shape != ():
                die_file(self.path, f"{dataset}: column '{c}' is not a number (type {ds.dtype[c]})")
        return ds


def site_names(t):
    """The site names of a network's trace (schema 1.4), or [] for one cluster."""
    names = attr_str(t.f, "sites")
    return names.split(",") if names and "timeseries/sites" in t.f else []


def site_gpus(t, name):
    """A site's GPUs from the summary row site.NAME.gpus (0 when absent)."""
    try:
        return int(t.f["summary"].attrs.get(f"site.{name}.gpus", 0))
    except (KeyError, TypeError, ValueError):
        return 0


def disambiguate(traces):
    """Labels two traces share get the file name appended, or the path if those match too."""
    for key in (lambda t: os.path.basename(t.path), lambda t: t.path):
        seen = {}
        for t in traces:
            seen.setdefault(t.label, []).append(t)
        for group in seen.values():
            if len(group) > 1:
                for t in group:
                    t.label = f"{t.label} [{key(t)}]"


def series_y(np, ts, what, gpus, path):
    if what == "utilization":
        if gpus <= 0:
            die_file(path, "GPU count missing or 0; cannot compute utilization")
        return ts["allocated_gpus"].astype(np.float64) / gpus
    if what == "queue":
        return ts["queued_jobs"].astype(np.float64)
    return ts["power"].astype(np.float64) / 1e6


def step_at(np, xs, ys, x):
    """The step series (xs, ys) (ys[i] holds from xs[i] to xs[i + 1]) at the
    times x; NaN before its first and after its last time."""
    k = np.searchsorted(xs, x, side="right") - 1
    out = ys[np.clip(k, 0, max(len(ys) - 1, 0))] if len(ys) else np.full(np.shape(x), np.nan)
    return np.where((k < 0) | (x > (xs[-1] if len(xs) else -np.inf)), np.nan, out)


def smooth(np, xs, ys, w):
    """The step series (xs, ys) averaged over the window [x - w/2, x + w/2]
    (clipped to the run) at each xs: exact for a step function, from its
    running integral."""
    if len(xs) < 2:
        return ys.copy()
    cum = np.concatenate(([0.0], np.cumsum(ys[:-1] * np.diff(xs))))

    def integral(x):
        k = np.clip(np.searchsorted(xs, x, side="right") - 1, 0, len(xs) - 1)
        return cum[k] + ys[k] * (x - xs[k])
    lo, hi = np.maximum(xs - w / 2, xs[0]), np.minimum(xs + w / 2, xs[-1])
    span = hi - lo
    return np.where(span > 0, (integral(hi) - integral(lo)) / np.where(span > 0, span, 1), ys)


def mean_ci(np, Y):
    """Column means of Y (rows: seeds; NaN: a seed without a value there), the
    half-width of their 95 % confidence interval (Student's t, n - 1 degrees
    of freedom; 0 where n < 2) and the count n."""
    n = np.isfinite(Y).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.nansum(Y, axis=0) / n
        sd = np.sqrt(np.nansum((Y - m) ** 2, axis=0) / (n - 1))
    tq = np.array(T975 + (1.96,))[np.clip(n - 2, 0, len(T975))]
    return np.where(n > 0, m, np.nan), np.where(n > 1, tq * sd / np.sqrt(np.maximum(n, 1)), 0.0), n


def seed_groups(traces, ci):
    """The traces as groups drawn as one curve: with ci, those of one scenario,
    scheduler and overrides (differing in their seed only), in first-seen
    order; else each trace alone."""
    if not ci:
        return [[t] for t in traces]
    groups = {}
    for t in traces:
        groups.setdefault((t.scenario, t.sched, t.overrides), []).append(t)
    return list(groups.values())


def group_label(g):
    """A group's legend label: the trace's label, or 'scheduler (mean of n seeds)'."""
    if len(g) == 1:
        return g[0].label
    return f"{g[0].sched} (mean of {len(g)} seeds, 95 % CI)"


def series_xy(np, t, dataset, what, smooth_ns):
    """A trace's time series for --what: (times in ns, values), smoothed when asked."""
    ts = t.need(dataset, what)[:]
    if what == "utilization" and t.gpus <= 0:
        die_file(t.path, "root attribute 'gpus' is missing or 0; cannot compute utilization")
    order = np.argsort(ts["time"], kind="stable")
    x, y = ts["time"][order].astype(np.float64), series_y(np, ts[order], what, t.gpus, t.path)
    return x, (smooth(np, x, y, smooth_ns) if smooth_ns else y)


def draw_curve(ax, np, x, y, style, label, color=None, band=None, steps=True):
    """One curve in style (STYLES entry) with an optional band (lo, hi) behind it."""
    ls, lw = style
    line, = ax.plot(x, y, drawstyle="steps-post" if steps else "default", linestyle=ls, linewidth=lw,
                    color=color, label=label)
    if band is not None:
        ax.fill_between(x, band[0], band[1], step="post" if steps else None, color=line.get_color(),
                        alpha=0.22, linewidth=0)
    return line


def series(ax, np, traces, dataset, what, opts=None):
    """utilization, queue or power over time: each trace (or with --ci each
    group of seeds as mean and band), as differences from --baseline when
    given, smoothed over --smooth. Returns extra legend handles (power's price
    axis)."""
    ci, base, w = (opts.ci, opts.base, opts.smooth_ns) if opts else (False, None, 0)
    steps = not w
    bx = by = None
    if base is not None:
        bx, by = series_xy(np, base, dataset, what, w)
    sites = site_names(traces[0]) if len(traces) == 1 and not ci and base is None else []
    site_color = {}
    for t in traces[:1] if sites else ():
        ss = t.need("timeseries/sites", what)[:]
        for k, name in enumerate(sites):  # one network: each site, then the total
            rows = ss[ss["site"] == k]
            x = rows["time"].astype(np.float64)
            y = series_y(np, rows, what, site_gpus(t, name), t.path)
            line, = ax.plot(x / NS_PER_DAY, smooth(np, x, y, w) if w else y,
                            drawstyle="steps-post" if steps else "default", linewidth=0.9, label=name)
            site_color[k] = line.get_color()
    for gi, g in enumerate(seed_groups(traces, ci)):
        style = STYLES[gi % len(STYLES)]
        curves = [series_xy(np, t, dataset, what, w) for t in g]
        if bx is not None:
            curves = [(x, y - step_at(np, bx, by, x)) for x, y in curves]
        if sites:
            draw_curve(ax, np, curves[0][0] / NS_PER_DAY, curves[0][1], (STYLES[1][0], 1.8),
                       f"{g[0].label} (network)", color="black", steps=steps)
            continue
        if len(curves) == 1:
            draw_curve(ax, np, curves[0][0] / NS_PER_DAY, curves[0][1], style, group_label(g), steps=steps)
            continue
        grid = np.unique(np.concatenate([x for x, _ in curves]))
        if grid.size > 20000:
            grid = np.linspace(grid[0], grid[-1], 20000)
        m, half, _ = mean_ci(np, np.vstack([step_at(np, x, y, grid) for x, y in curves]))
        draw_curve(ax, np, grid / NS_PER_DAY, m, style, group_label(g), band=(m - half, m + half), steps=steps)
    ylabel = {"utilization": "allocated GPUs / GPUs", "queue": "jobs waiting", "power": "facility power (MW)"}[what]
    ax.set_xlabel("time (days)")
    if base is not None:
        ax.axhline(0, color="black", linewidth=0.8, label=f"baseline: {base.label}")
        ax.set_ylabel(f"{ylabel}: difference from the baseline")
    else:
        ax.set_ylabel(ylabel)
    if w:
        ax.set_xlabel(f"time (days); moving average over {opts.smooth}")
    if what == "utilization" and base is None:
        ax.set_ylim(0, 1.05)
    elif what == "queue":
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if what == "power" and base is None:
        if sites:
            site_budgets(ax, np, traces[0], sites, site_color)
            return []
        return facility_lines(ax, np, traces)
    return []


def same_steps(np, xa, ya, xb, yb):
    """Whether two step series hold the same values at every time either changes."""
    grid = np.union1d(xa, xb)
    return bool(np.allclose(step_at(np, xa, ya, grid), step_at(np, xb, yb, grid), equal_nan=True))


def facility_lines(ax, np, traces):
    """power: each trace's facility budget (MW, dashed red; identical budgets
    once, the first labelled "facility budget", others by their run) on the
    power axis and the first trace's electricity price on a right axis, from
    timeseries/facility (single-site traces: a network's sites each have
    their own). Returns the price axis' legend handles."""
    budgets, handles, price_ax = [], [], None
    for t in traces:
        if "timeseries/facility" not in t.f or site_names(t):
            continue
        fac = t.f["timeseries/facility"][:]
        names = fac.dtype.names or ()
        if "time" not in names:
            continue
        x = fac["time"].astype(np.float64) / NS_PER_DAY
        if "budget" in names and np.isfinite(fac["budget"]).any():
            b = fac["budget"].astype(np.float64) / 1e6
            xs = fac["time"].astype(np.float64)
            if not any(same_steps(np, xs, b, ox, ob) for ox, ob in budgets):
                budgets.append((xs, b))
                ax.plot(x, b, drawstyle="steps-post", color="tab:red", linestyle=(0, (4, 3)), linewidth=1.6, zorder=4,
                        label="facility budget" if len(budgets) == 1 else f"budget ({t.label})")
        if "price" in names and np.isfinite(fac["price"]).any() and price_ax is None:
            price_ax = ax.twinx()
            h, = price_ax.plot(x, fac["price"], drawstyle="steps-post", color="tab:gray", linewidth=0.8, alpha=0.8,
                               label="electricity price")
            price_ax.set_ylabel("electricity price (per MWh)", color="dimgray")
            price_ax.set_ylim(bottom=0)
            ax.set_zorder(price_ax.get_zorder() + 1)  # power and budget over the price
            ax.patch.set_visible(False)
            handles.append(h)
    return handles


def site_budgets(ax, np, t, sites, colors):
    """power of one network drawn site by site: each site's facility budget
    (MW, timeseries/facility rows of that site with a finite budget) as a
    dashed step line in the colour of the site's power, labelled "NAME
    budget"; a site without a budget draws none. The network's total has no
    budget of its own: the budgets are per site (docs/brokers.md)."""
    if "timeseries/facility" not in t.f:
        return
    fac = t.f["timeseries/facility"][:]
    names = fac.dtype.names or ()
    if not {"time", "site", "budget"} <= set(names):
        return
    for k, name in enumerate(sites):
        rows = fac[fac["site"] == k]
        b = rows["budget"].astype(np.float64) / 1e6
        if not np.isfinite(b).any():
            continue
        order = np.argsort(rows["time"], kind="stable")
        ax.plot(rows["time"][order].astype(np.float64) / NS_PER_DAY, b[order], drawstyle="steps-post",
                color=colors.get(k, "tab:red"), linestyle=(0, (4, 3)), linewidth=1.6, zorder=4,
                label=f"{name} budget")


def wan(ax, np, t, top):
    """A network's WAN links (schema 1.5, timeseries/wan): each directed
    link's mean traffic per bin as a share of its bandwidth, the `top`
    links that carried the most bytes (a legend entry each)."""
    ds = t.need("timeseries/wan", "wan")
    need_columns(t, ds, ("time", "from", "to", "bytes_per_s", "capacity"), "wan")
    rows = ds[:]
    names = attr_str(t.f, "sites")
    names = names.split(",") if names else []
    if rows.size == 0:
        raise PlotError(f"{t.path}: timeseries/wan has no rows: the WAN carried nothing")
    key = rows["from"].astype(np.int64) * 65536 + rows["to"].astype(np.int64)
    links = np.unique(key)
    total = {k: float(rows["bytes_per_s"][key == k].sum()) for k in links}
    shown = sorted(links, key=lambda k: -total[k])[:top]

    def name(i):
        return names[i] if 0 <= i < len(names) else f"site {i}"
    for n, k in enumerate(shown):
        r = rows[key == k]
        order = np.argsort(r["time"], kind="stable")
        r = r[order]
        cap = r["capacity"].astype(np.float64)
        share = np.where(cap > 0, r["bytes_per_s"] / np.where(cap > 0, cap, 1), 0)
        ls, lw = STYLES[n % len(STYLES)]  # both directions often carry the same ring traffic: a style each
        ax.plot(r["time"].astype(np.float64) / NS_PER_DAY, 100 * share, drawstyle="steps-post", linestyle=ls,
                linewidth=lw,
                label=f"{name(int(k // 65536))} → {name(int(k % 65536))}")
    ax.set_xlabel("time (days)")
    ax.set_ylabel("traffic / link bandwidth (%)")
    ax.set_ylim(0, 105)
    ax.set_title(t.label)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small",
              title=f"{len(shown)} of {len(links)} links" if len(links) > len(shown) else None)


def sites_panels(fig, np, t):
    """A network's sites (timeseries/sites), a panel each in a grid of two
    columns: utilization (left axis) and jobs waiting (right axis) over time."""
    names = site_names(t)
    if not names:
        raise PlotError(f"{t.path}: not a network's trace (no root attribute 'sites'); --what sites draws a network")
    ds = t.need("timeseries/sites", "sites")
    need_columns(t, ds, ("time", "site", "allocated_gpus", "queued_jobs"), "sites")
    ss = ds[:]
    cols = 2 if len(names) > 1 else 1
    rows = (len(names) + cols - 1) // cols
    fig.set_size_inches(11, 2.6 * rows + 0.8)
    axes = fig.subplots(rows, cols, squeeze=False, sharex=True)
    for k, name in enumerate(names):
        ax = axes[k // cols][k % cols]
        r = ss[ss["site"] == k]
        r = r[np.argsort(r["time"], kind="stable")]
        x = r["time"].astype(np.float64) / NS_PER_DAY
        g = site_gpus(t, name)
        u = r["allocated_gpus"] / g if g > 0 else np.zeros(len(r))
        ax.plot(x, u, drawstyle="steps-post", color="tab:blue", linewidth=1.0, label="utilization")
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("allocated / GPUs", color="tab:blue", fontsize="small")
        q = ax.twinx()
        q.plot(x, r["queued_jobs"], drawstyle="steps-post", color="tab:orange", linewidth=0.9, linestyle=(0, (4, 2)),
               label="jobs waiting")
        q.set_ylim(0, max(3, int(r["queued_jobs"].max(initial=0)) + 1))
        q.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4, min_n_ticks=3))
        q.set_ylabel("jobs waiting", color="tab:orange", fontsize="small")
        ax.set_title(f"{name}: {g} GPUs" if g else name, fontsize="small")
        ax.grid(True, alpha=0.3)
        if k // cols == rows - 1 or k + cols >= len(names):
            ax.set_xlabel("time (days)")
            ax.xaxis.set_tick_params(labelbottom=True)
    for k in range(len(names), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    return axes


def enum_names(h5py, dtype, field):
    """{value: name} of an enum column, or {} when it is not one."""
    m = h5py.check_enum_dtype(dtype[field]) if field in (dtype.names or ()) else None
    return {v: k for k, v in m.items()} if m else {}


def completed_jct(np, h5py, t, site=None):
    """The sorted completion times (hours) of t's completed jobs (of one site)."""
    ds = t.need("jobs", "jct-cdf")
    rows = ds[:]
    status = enum_names(h5py, ds.dtype, "status")
    done = rows["end"] >= 0
    completed = [v for v, k in status.items() if k == "completed"]
    if completed:
        done &= rows["status"] == completed[0]
    if site is not None:
        done &= rows["site"] == site
    return np.sort((rows["end"][done] - rows["submit"][done]).astype(np.float64) / NS_PER_HOUR)


# percentiles at which --ci and --baseline compare completion-time distributions
PCTS = (0.5, 1, 2, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 92.5, 95, 97.5, 99, 99.5)


def jct_cdf(ax, np, h5py, traces, opts=None):
    """CDFs of completed jobs' completion times; with --ci a group's mean
    percentiles and their band; with --baseline each percentile's ratio to
    the baseline's."""
    ci, base = (opts.ci, opts.base) if opts else (False, None)
    drawn, positive = 0, True
    pct = np.array(PCTS)
    bq = None
    if base is not None:
        bj = completed_jct(np, h5py, base)
        if bj.size == 0:
            raise PlotError(f"{base.path}: the baseline has no completed jobs; no ratio to draw")
        bq = np.percentile(bj, pct)
    for gi, g in enumerate(seed_groups(traces, ci)):
        style = STYLES[gi % len(STYLES)]
        t = g[0]
        sites = site_names(t) if len(traces) == 1 and not ci and base is None and \
            "site" in (t.f["jobs"].dtype.names or ()) else []
        parts = [(name, [completed_jct(np, h5py, t, k)]) for k, name in enumerate(sites)] or \
            [(group_label(g), [completed_jct(np, h5py, u) for u in g])]
        for label, jcts in parts:
            jcts = [j for j in jcts if j.size]
            if not jcts:
                print(f"{PROG}: {t.path}: {label}: no completed jobs; its CDF is empty", file=sys.stderr)
                continue
            positive = positive and min(j[0] for j in jcts) > 0
            drawn += 1
            if bq is None and len(jcts) == 1:
                j = jcts[0]
                y = np.arange(1, j.size + 1) / j.size
                ax.plot(j, y, drawstyle="steps-post", linestyle=style[0], linewidth=style[1],
                        label=f"{label} ({j.size} jobs)")
                continue
            Q = np.vstack([np.percentile(j, pct) for j in jcts])
            if bq is not None:  # ratios: mean and band of their logarithms (a geometric mean)
                with np.errstate(divide="ignore", invalid="ignore"):
                    m, half, _ = mean_ci(np, np.log(Q / np.where(bq > 0, bq, np.nan)))
                line, = ax.plot(pct, np.exp(m), marker="o", markersize=3, linestyle=style[0], linewidth=style[1],
                                label=label.replace("mean of", "geometric mean of"))
                if len(jcts) > 1:
                    ax.fill_between(pct, np.exp(m - half), np.exp(m + half), color=line.get_color(), alpha=0.22,
                                    linewidth=0)
                continue
            m, half, _ = mean_ci(np, Q)
            line, = ax.plot(m, pct / 100, linestyle=style[0], linewidth=style[1], label=label)
            ax.fill_betweenx(pct / 100, m - half, m + half, color=line.get_color(), alpha=0.22, linewidth=0)
    if bq is not None:
        ax.axhline(1, color="black", linewidth=0.8, label=f"baseline: {base.label}")
        ax.set_xlabel("percentile of completed jobs' completion time")
        ax.set_ylabel("completion time / the baseline's at that percentile")
        ax.set_yscale("log")
        log_ticks(ax.yaxis)
        return
    if drawn and positive:
        ax.set_xscale("log")
        log_ticks(ax.xaxis)
    ax.set_xlabel("job completion time, end − submit (hours)")
    ax.set_ylabel("fraction of completed jobs")
    ax.set_ylim(0, 1.02)


def log_ticks(axis):
    """A log axis labelled in plain numbers at each power of ten, or at 1, 2
    and 5 times it (a range of 1 to 3 decades), or at 1 to 9 times it (under
    a decade), so that a narrow range still gets several ticks."""
    import numpy as np
    from matplotlib.ticker import LogLocator, FuncFormatter, NullFormatter
    axis.axes.autoscale_view()
    lo, hi = sorted(axis.get_view_interval())
    decades = np.log10(hi / lo) if lo > 0 and hi > lo else 3
    subs = (1.0,) if decades > 3 else (1.0, 2.0, 5.0) if decades > 1 else tuple(float(k) for k in range(1, 10))
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def time_column(ds):
    """The incidents table's time column: 'time' or another ns column."""
    names = ds.dtype.names or ()
    for c in ("time", "start", "failure", "at"):
        if c in names:
            return c
    for c in names:
        u = ds.attrs.get(f"{c}_units", b"")
        if (u.decode("utf-8", errors="replace") if isinstance(u, bytes) else str(u)) == "ns":
            return c
    return None


def incidents(ax, np, h5py, traces):
    """Cumulative incidents over time: a color per trace and kind, a line
    style per trace (so that runs with the same incidents stay visible, a
    dashed line over a solid one); a kind with none is a legend entry
    without a line."""
    colors = {}
    for ti, t in enumerate(traces):
        ls, lw = STYLES[ti % len(STYLES)]
        ds = t.need("incidents", "incidents")
        col = time_column(ds)
        if col is None:
            die_file(t.path, f"the 'incidents' table has no time column (columns: {', '.join(ds.dtype.names or ())})")
        rows = ds[:]
        kind_col = next((c for c in ("kind", "type", "cause") if c in (ds.dtype.names or ())), None)
        names = enum_names(h5py, ds.dtype, kind_col) if kind_col else {}
        groups = [(None, np.ones(rows.shape, dtype=bool))]
        if kind_col is not None and rows.size:
            groups = [(names.get(v, str(v)), rows[kind_col] == v) for v in np.unique(rows[kind_col])]
        for kind, mask in groups:
            days = np.sort(rows[col][mask].astype(np.float64)) / NS_PER_DAY
            label = t.label if kind is None else f"{t.label} {kind}"
            if days.size == 0:
                ax.plot([], [], " ", label=f"{label}: none")
                continue
            color = colors.setdefault((ti, kind), f"C{len(colors) % 10}")
            if "timeseries/cluster" in t.f and t.f["timeseries/cluster"].shape[0]:
                end = max(float(t.f["timeseries/cluster"]["time"][-1]) / NS_PER_DAY, days[-1])
            else:
                end = days[-1]
            ax.step(np.concatenate(([0.0], days, [end])), np.concatenate((np.arange(days.size + 1), [days.size])),
                    where="post", color=color, linestyle=ls, linewidth=lw, label=f"{label} ({days.size})")
    ax.set_xlabel("time (days)")
    ax.set_ylabel("incidents so far")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def need_columns(t, ds, cols, what):
    """Raise PlotError naming the trace when ds lacks any of cols."""
    names = ds.dtype.names or ()
    missing = [c for c in cols if c not in names]
    if missing:
        raise PlotError(f"{t.path}: the '{ds.name.lstrip('/')}' table lacks the column(s) "
                        f"{', '.join(missing)} needed by --what {what}")


def run_end(np, t, rows):
    """The end of the run, ns: the last cluster sample, else the last job event."""
    if "timeseries/cluster" in t.f and t.f["timeseries/cluster"].shape[0]:
        return int(t.f["timeseries/cluster"]["time"][-1])
    ev = np.concatenate((rows["submit"], rows["start"], rows["end"]))
    return int(ev.max()) if ev.size else 0


def placement_tables(t, what):
    """The trace's placement, nodes and jobs rows (schema 1.6), checked for
    the columns --what reads."""
    for name, cols in (("placement", ("job", "segment", "start", "end", "node", "nodes", "gpu", "gpus")),
                       ("nodes", ("node", "pod", "rack", "gpus")), ("jobs", ("id", "submit", "end", "gpus", "status"))):
        need_columns(t, t.need(name, what), cols, what)
    return t.f["placement"][:], t.f["nodes"][:], t.f["jobs"][:]


def job_colors(np, jobs):
    """A color per job id: tab20, neighbours apart."""
    cmap = MPL_COLORMAPS["tab20"]
    return [cmap((j * 7) % 20) for j in jobs]


def gantt_nodes(ax, np, t):
    """Nodes on the y axis (node 0 at the top), pods and racks marked by
    lines; each job segment a bar over its nodes [start, end), as tall as
    the share of a node's GPUs it held; colored by job. Returns the bars drawn."""
    from matplotlib.collections import PolyCollection
    place, nodes, jobs = placement_tables(t, "gantt")
    end = run_end(np, t, jobs) if "start" in (jobs.dtype.names or ()) else int(place["end"].max(initial=0))
    ng = nodes["gpus"].astype(np.float64)
    rects, colors = [], []
    for r, c in zip(place, job_colors(np, place["job"].astype(np.int64))):
        x0, x1 = r["start"] / NS_PER_DAY, max(r["end"] / NS_PER_DAY, r["start"] / NS_PER_DAY + 1e-9)
        n0, k = int(r["node"]), int(r["nodes"])
        if int(r["gpu"]) == 0 and np.all(ng[n0:n0 + k] == r["gpus"]):  # whole nodes: one bar
            spans = [(n0, n0 + k)]
        else:
            spans = [(n + r["gpu"] / ng[n], n + (r["gpu"] + r["gpus"]) / ng[n]) for n in range(n0, n0 + k)]
        for y0, y1 in spans:
            rects.append([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
            colors.append(c)
    ax.add_collection(PolyCollection(rects, facecolors=colors, edgecolors="none", linewidths=0))
    nn = len(nodes)
    pods, racks = nodes["pod"].astype(np.int64), nodes["rack"].astype(np.int64)
    xmax = end / NS_PER_DAY if end > 0 else 1
    for n in range(1, nn):
        if pods[n] != pods[n - 1]:
            ax.axhline(n, color="black", linewidth=0.8)
        elif racks[n] != racks[n - 1] and nn <= 512:
            ax.axhline(n, color="#bbbbbb", linewidth=0.3)
    starts = [0] + [n for n in range(1, nn) if pods[n] != pods[n - 1]]
    step = max(1, len(starts) // 24)
    ax.set_yticks([(a + b) / 2 for a, b in zip(starts, starts[1:] + [nn])][::step])
    ax.set_yticklabels([f"pod {pods[a]}" for a in starts][::step], fontsize="x-small")
    ax.set_xlim(0, xmax)
    ax.set_ylim(nn, 0)
    ax.set_xlabel("time (days)")
    ax.set_ylabel(f"nodes ({nn}), by pod; racks of {int(np.bincount(racks).max()) if nn else 0} nodes")
    njobs = len(np.unique(place["job"])) if len(place) else 0
    ax.set_title(f"{t.label}: {njobs} jobs on {nn} nodes ({len(rects)} bars)", fontsize="medium")
    return len(rects)


def fragmentation_plot(ax, np, t):
    """Free GPUs and the stranded ones (free, yet no waiting job can use
    them: analysis/placement.py) over time, as steps; GPUs down for repair
    (the incidents table) are neither, and drawn as their own line when
    any are down."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import placement as P  # analysis/placement.py, installed beside this file
    place, nodes, jobs = placement_tables(t, "fragmentation")
    ts = t.f["timeseries/cluster"]["time"][:] if "timeseries/cluster" in t.f else np.zeros(0, np.int64)
    end = int(ts.max()) if ts.size else int(place["end"].max(initial=0))
    times = P.sample_times(ts, end)
    inc = t.f["incidents"][:] if "incidents" in t.f else None
    fr = P.fragmentation(jobs, place, nodes, times, end, inc)
    x = fr["time"] / NS_PER_DAY
    ax.step(x, fr["free"], where="post", color="tab:gray", label="free GPUs (not down)")
    if fr["down"].any():
        ax.step(x, fr["down"], where="post", color="black", linestyle=(0, (3, 2)), linewidth=1.0,
                label="down for repair (neither free nor stranded)")
    ax.fill_between(x, fr["stranded"], step="post", color="tab:red", alpha=0.5,
                    label="stranded: free, no waiting job can use them")
    ax.set_xlim(0, end / NS_PER_DAY if end > 0 else 1)
    ax.set_ylim(0, max(int(nodes["gpus"].sum()), 1))
    ax.set_xlabel("time (days)")
    ax.set_ylabel("GPUs")
    mean = float(np.mean(fr["stranded"])) if len(times) else 0.0
    ax.set_title(f"{t.label}: {mean:.1f} GPUs stranded on average", fontsize="medium")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="x-small")
    return fr


def gantt(ax, np, h5py, t, top):
    """The per-node Gantt when the trace has placement (gantt_nodes), else
    the top jobs by GPU-time."""
    if "placement" in t.f and "nodes" in t.f:
        return gantt_nodes(ax, np, t)
    return gantt_jobs(ax, np, h5py, t, top)


def gantt_jobs(ax, np, h5py, t, top):
    """The top jobs by GPU-time held as bars [start, end), each as tall as its
    GPUs, stacked in start order; the wait before the start in a light shade;
    incidents that stopped jobs as red ticks at the top."""
    ds = t.need("jobs", "gantt")
    need_columns(t, ds, ("id", "submit", "start", "end", "gpus"), "gantt")
    rows = ds[:]
    end = run_end(np, t, rows)
    started = rows[rows["start"] >= 0]
    stop = np.where(started["end"] >= 0, started["end"], end)
    gpu_ns = started["gpus"].astype(np.float64) * (stop - started["start"]).astype(np.float64)
    pick = np.argsort(-gpu_ns, kind="stable")[:top]
    pick = pick[np.argsort(started["start"][pick], kind="stable")]
    status = enum_names(h5py, ds.dtype, "status")
    y = 0.0
    cmap = MPL_COLORMAPS["viridis"]
    for n, k in enumerate(pick):
        j = started[k]
        g = float(j["gpus"])
        s0, s1 = j["start"] / NS_PER_DAY, stop[k] / NS_PER_DAY
        sub = j["submit"] / NS_PER_DAY
        color = cmap(0.15 + 0.7 * (n % 8) / 7)
        if s0 > sub:
            ax.broken_barh([(sub, s0 - sub)], (y, g), facecolors="#d9d9d9", edgecolor="none")
        ax.broken_barh([(s0, max(s1 - s0, 1e-9))], (y, g), facecolors=color, edgecolor="white", linewidth=0.3)
        st = status.get(int(j["status"]), "") if status else ""
        mark = "" if st in ("", "completed") else f" ({st})"
        ax.text(s0, y + g / 2, f" #{int(j['id'])} · {int(g)} GPUs{mark}", va="center", fontsize=6, clip_on=True)
        y += g
    hits = 0
    if "incidents" in t.f:
        inc = t.f["incidents"]
        if "start" in (inc.dtype.names or ()) and "jobs_hit" in (inc.dtype.names or ()):
            r = inc[:]
            when = r["start"][r["jobs_hit"] > 0] / NS_PER_DAY
            hits = when.size
            if hits:
                ax.plot(when, np.full(when.shape, y * 1.01 if y else 1), "v", color="tab:red", markersize=4,
                        label=f"incident that stopped jobs ({hits})", clip_on=False)
    ax.plot([], [], "s", color="#d9d9d9", label="waiting (submit → start)")
    ax.set_xlim(0, end / NS_PER_DAY if end > 0 else 1)
    ax.set_ylim(0, y * 1.04 if y else 1)
    ax.set_xlabel("time (days)")
    ax.set_ylabel("GPUs (jobs stacked)")
    ax.set_title(f"{t.label}: the {len(pick)} jobs with the most GPU-time", fontsize="medium")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0, fontsize="x-small")


def heatmap(ax, fig, np, t):
    """Each pod's allocated / GPUs per time bin (timeseries/pods) as an image."""
    ds = t.need("timeseries/pods", "heatmap")
    need_columns(t, ds, ("time", "span", "pod", "gpus", "allocated"), "heatmap")
    r = ds[:]
    if r.size == 0:
        raise PlotError(f"{t.path}: the 'timeseries/pods' table is empty; nothing to plot for --what heatmap")
    pods = int(r["pod"].max()) + 1
    times = np.unique(r["time"])
    if r.size != pods * times.size:
        raise PlotError(f"{t.path}: 'timeseries/pods' has {r.size} rows, not one per bin and pod "
                        f"({times.size} bins x {pods} pods)")
    order = np.lexsort((r["pod"], r["time"]))
    r = r[order]
    util = (r["allocated"] / np.maximum(r["gpus"], 1)).reshape(times.size, pods).T
    edges = np.concatenate((times, [times[-1] + r["span"][-1]])) / NS_PER_DAY
    im = ax.pcolormesh(edges, np.arange(pods + 1), util, vmin=0, vmax=1, cmap="viridis", shading="flat",
                       rasterized=True)
    ax.set_xlabel("time (days)")
    ax.set_ylabel("pod")
    step = max(1, pods // 16)
    ax.set_yticks(np.arange(0, pods, step) + 0.5, [str(p) for p in range(0, pods, step)])
    ax.set_title(f"{t.label}: {pods} pods", fontsize="medium")
    fig.colorbar(im, ax=ax, label="allocated GPUs / pod GPUs", pad=0.01)


def recovery(axes, np, t, top):
    """The incidents that stopped a job, grouped by recovery: incidents whose
    detection, wait and restart agree to within a resolution (a fiftieth of
    the longest recovery, at least a second) are one bar, their mean parts
    stacked (minutes) on axes[0] with their count, their summed work rolled
    back (GPU-h) on axes[1]; the `top` longest groups. Many incidents with
    the same recovery are thus one bar "x N", not N identical bars."""
    ds = t.need("incidents", "recovery")
    need_columns(t, ds, ("start", "jobs_hit", "detection", "wait", "restart", "lost_work"), "recovery")
    r = ds[:]
    r = r[r["jobs_hit"] > 0]
    parts = [np.nan_to_num(r[c].astype(np.float64)) for c in ("detection", "wait", "restart")]
    total = parts[0] + parts[1] + parts[2]
    res = max(float(total.max(initial=0)) / 50, 1.0)
    keys = np.stack([np.round(p / res) for p in parts], axis=1) if r.size else np.zeros((0, 3))
    uniq, inv = np.unique(keys, axis=0, return_inverse=True) if r.size else (keys, np.zeros(0, np.int64))
    inv = np.asarray(inv).reshape(-1)
    count = np.bincount(inv, minlength=len(uniq))
    mean = [np.bincount(inv, weights=p, minlength=len(uniq)) / np.maximum(count, 1) / 60 for p in parts]
    lost = np.bincount(inv, weights=np.nan_to_num(r["lost_work"].astype(np.float64)), minlength=len(uniq))
    gtotal = mean[0] + mean[1] + mean[2]
    pick = np.argsort(-gtotal, kind="stable")[:top]
    x = np.arange(pick.size)
    bottom = np.zeros(pick.size)
    for name, v, c in zip(("detection", "wait", "restart"), mean, ("tab:orange", "tab:gray", "tab:blue")):
        axes[0].bar(x, v[pick], bottom=bottom, color=c, label=name, width=0.8)
        bottom += v[pick]
    for k, (xx, h) in enumerate(zip(x, bottom)):
        axes[0].text(xx, h, f"×{count[pick[k]]}", ha="center", va="bottom", fontsize="x-small")
    axes[1].bar(x, lost[pick], color="tab:red", width=0.8, label="lost work (all its incidents)")
    shown = "" if pick.size == len(uniq) else f"the {pick.size} longest of "
    axes[0].set_title(f"{t.label}: {r.size} incidents, {shown}{len(uniq)} distinct recoveries "
                      f"(parts within {res / 60:.2g} min)", fontsize="medium")
    if r.size == 0:
        axes[0].text(0.5, 0.5, "no incident stopped a job", transform=axes[0].transAxes, ha="center")
    axes[0].set_ylabel("minutes (mean)")
    axes[0].set_ylim(0, max(float(bottom.max(initial=0)) * 1.15, 1e-3))
    axes[1].set_ylabel("lost work (GPU-h)")
    axes[1].yaxis.set_major_locator(MaxNLocator(nbins=4, min_n_ticks=3))
    labels = [f"{mean[0][k]:.3g}+{mean[1][k]:.3g}+{mean[2][k]:.3g}" for k in pick]
    step = max(1, pick.size // 20)
    axes[1].set_xticks(x[::step], labels[::step], rotation=60 if pick.size > 6 else 0, fontsize="x-small")
    axes[0].tick_params(labelbottom=False)
    axes[1].set_xlabel("recovery: detection + wait + restart (minutes), longest first")
    for a in axes:
        a.grid(True, alpha=0.3)
        a.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="x-small")


SCALING_KEYS = ("gpus", "throughput_per_s", "scaling_efficiency")


def load_scaling(path):
    """The JSON array `wanka perf --scale ... --json` prints, checked."""
    import json
    if not os.path.exists(path):
        raise PlotError(f"{path}: no such file")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise PlotError(f"{path}: cannot read: {e}") from None
    except ValueError as e:  # UnicodeDecodeError included
        raise PlotError(f"{path}: not the JSON of `wanka perf --scale ... --json` ({e})") from None
    if not isinstance(data, list) or not data:
        raise PlotError(f"{path}: expected the non-empty JSON array of `wanka perf --scale ... --json`")
    for i, row in enumerate(data):
        if not isinstance(row, dict) or any(not isinstance(row.get(k), (int, float)) for k in SCALING_KEYS):
            raise PlotError(f"{path}: element {i} lacks the numbers {', '.join(SCALING_KEYS)} "
                            f"(expected the output of `wanka perf --scale ... --json`)")
    return data


def scaling(axes, np, paths):
    """Throughput (log) and scaling efficiency against GPUs (log 2), one curve
    per JSON file; the GPU counts measured are the x ticks."""
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator
    sizes = set()
    for p in paths:
        data = load_scaling(p)
        g = np.array([r["gpus"] for r in data], dtype=np.float64)
        sizes.update(g.tolist())
        tput = np.array([r["throughput_per_s"] for r in data], dtype=np.float64)
        eff = np.array([r["scaling_efficiency"] for r in data], dtype=np.float64)
        label = os.path.basename(p)
        line, = axes[0].plot(g, tput, "o-", label=label, zorder=3)
        # linear scaling as a wide pale band behind the curve: visible where the curve follows it
        axes[0].plot(g, tput[0] * g / g[0], "-", color=line.get_color(), alpha=0.25, linewidth=6,
                     label=f"{label}: linear", zorder=2)
        axes[1].plot(g, eff * 100, "o-", color=line.get_color(), label=label)
    ticks = sorted(sizes)
    if len(ticks) > 12:  # thinned, the largest kept
        ticks = ticks[::-(-len(ticks) // 12)]
    for a in axes:
        a.set_xscale("log", base=2)
        a.xaxis.set_major_locator(FixedLocator(ticks))
        a.set_xticks(ticks, [f"{v:g}" for v in ticks], rotation=45 if len(ticks) > 6 else 0)
        a.xaxis.set_minor_locator(NullLocator())
        a.xaxis.set_minor_formatter(NullFormatter())
        a.set_xlabel("GPUs")
        a.grid(True, alpha=0.3)
    axes[0].set_yscale("log")
    log_ticks(axes[0].yaxis)  # a curve within one decade still gets several labelled ticks
    axes[0].legend(loc="upper left", bbox_to_anchor=(0, -0.16), fontsize="small", ncol=2)
    axes[1].legend(loc="upper left", bbox_to_anchor=(0, -0.16), fontsize="small")
    axes[0].set_ylabel("throughput (samples/s)")
    axes[1].set_ylabel("scaling efficiency (%)")
    axes[1].set_ylim(0, 105)


class Opts:
    """The options of utilization, queue, power and jct-cdf: ci (seeds as mean
    and band), base (the --baseline Trace, or None), smooth (its text) and
    smooth_ns."""

    def __init__(self, ci=False, base=None, smooth=None, smooth_ns=0):
        self.ci, self.base, self.smooth, self.smooth_ns = ci, base, smooth, smooth_ns


def legend_beside(ax, handles=None, **kw):
    """The legend to the right of ax, outside the data."""
    h, lab = ax.get_legend_handles_labels()
    h += handles or []
    lab += [x.get_label() for x in handles or []]
    if h:
        ax.legend(h, lab, loc="upper left", bbox_to_anchor=(1.01 if not handles else 1.09, 1), borderaxespad=0,
                  fontsize="small", **kw)


def figure(mods, what, traces, top=DEFAULT_TOP, paths=None, opts=None):
    """Draw --what of traces (opened Trace objects, checked) into a new figure
    and return it; raises PlotError on data that cannot be drawn. scaling
    takes paths (perf JSON files) instead of traces; opts (Opts) the options
    of the time series and jct-cdf."""
    np, h5py, plt = mods["numpy"], mods["h5py"], mods["plt"]
    dataset, title = WHATS[what]
    if what == "scaling":
        fig, axes = plt.subplots(1, 2, figsize=(10, 5), dpi=120)
        scaling(axes, np, paths)
        fig.suptitle(title)
        fig.tight_layout()
        return fig
    for t in traces:  # every trace checked before anything is drawn
        if what == "sites" and not site_names(t):
            raise PlotError(f"{t.path}: not a network's trace (no root attribute 'sites' and timeseries/sites); "
                            "--what sites draws a network of sites")
        t.need(dataset, what)
    scen = sorted({t.scenario for t in traces if t.scenario})
    if what == "sites":
        fig = plt.figure(dpi=120)
        axes = sites_panels(fig, np, traces[0])
        ql = fig.axes[-1].get_lines()
        fig.legend([axes[0][0].get_lines()[0], ql[0]], ["utilization", "jobs waiting"], loc="upper right",
                   fontsize="small", ncol=2)
        t = traces[0]
        seed = t.f.attrs.get("seed", "?")
        fig.suptitle(f"{title} — broker {t.sched}, seed {seed}" + (f" — {scen[0]}" if scen else ""), x=0.02, ha="left")
        fig.tight_layout(rect=(0, 0, 1, 0.97))
        return fig
    if what in PER_TRACE:
        n = len(traces)
        if what == "recovery":  # a subfigure per trace: the gap between its two panels is its own
            fig = plt.figure(figsize=(11, 5 * n), dpi=120, layout="constrained")
            for t, sub in zip(traces, np.atleast_1d(fig.subfigures(n, 1))):
                axes = sub.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2, 1]})
                recovery(axes, np, t, top)
            fig.suptitle(f"{title} — {', '.join(scen)}" if scen else title)
            return fig
        else:
            fig, axes = plt.subplots(n, 1, figsize=(11, (6 if what.startswith("gantt") else 4) * n), dpi=120,
                                     squeeze=False)
            for i, t in enumerate(traces):
                if what == "gantt":
                    gantt(axes[i][0], np, h5py, t, top)
                elif what == "gantt-jobs":
                    gantt_jobs(axes[i][0], np, h5py, t, top)
                elif what == "fragmentation":
                    fragmentation_plot(axes[i][0], np, t)
                elif what == "wan":
                    wan(axes[i][0], np, t, top)
                else:
                    heatmap(axes[i][0], fig, np, t)
        fig.suptitle(f"{title} — {', '.join(scen)}" if scen else title)
        fig.tight_layout()
        return fig
    fig, ax = plt.subplots(figsize=(11, 5), dpi=120)
    extra = []
    if what in SERIES:
        extra = series(ax, np, traces, dataset, what, opts)
    elif what == "jct-cdf":
        jct_cdf(ax, np, h5py, traces, opts)
    else:
        incidents(ax, np, h5py, traces)
    ax.set_title(f"{title} — {', '.join(scen)}" if scen else title)
    ax.grid(True, alpha=0.3)
    legend_beside(ax, extra)
    fig.tight_layout()
    return fig


def expand_sweeps(h5py, paths):
    """Each path that is a sweep index (root attribute format
    "wanka-sweep-index") replaced by the traces of its points that ran, as
    `wanka compare` reads it; other paths as they are."""
    out = []
    for p in paths:
        try:
            with h5py.File(p, "r") as f:
                if attr_str(f, "format") != "wanka-sweep-index":
                    out.append(p)
                    continue
                if "points" not in f or "trace" not in (f["points"].dtype.names or ()):
                    die_file(p, "sweep index without a 'points' table naming traces")
                pts = f["points"][:]
        except OSError:
            out.append(p)  # not HDF5, missing: Trace() says so
            continue
        status = enum_names(h5py, pts.dtype, "status")
        ok = [v for v, k in status.items() if k == "ok"]
        got = []
        for row in pts:
            name = row["trace"].decode("utf-8", errors="replace") if isinstance(row["trace"], bytes) else str(row["trace"])
            if name and (not ok or row["status"] == ok[0]):
                got.append(name if os.path.isabs(name) else os.path.join(os.path.dirname(p), name))
        if not got:
            die_file(p, "the sweep index holds no point that ran with a trace (wanka sweep --no-traces?)")
        out += got
    return out


def main(argv):
    a = parse_args(argv)
    for p in a.traces + ([a.baseline] if a.baseline else []):  # the image never replaces what it is drawn from
        try:
            if os.path.exists(a.output) and os.path.samefile(a.output, p):
                die_file(a.output, f"is an input ({p}); choose another -o")
        except OSError:
            pass
    if os.path.lexists(a.output) and not a.force:
        die_file(a.output, "exists; pass --force to replace it, or choose another -o")
    mods = import_deps()
    traces = []
    try:
        opts = Opts(a.ci, None, a.smooth, a.smooth_ns)
        if a.what != "scaling":
            traces = [Trace(mods["h5py"], p) for p in expand_sweeps(mods["h5py"], a.traces)]
            disambiguate(traces)
            if a.baseline:
                opts.base = Trace(mods["h5py"], a.baseline)
                opts.base.need(WHATS[a.what][0], a.what)
        fig = figure(mods, a.what, traces, a.top, a.traces, opts)
    except PlotError as e:
        fail(str(e))
    READING[0] = None
    tmp = None
    try:
        tmp, f = create_tmp(a.output)
        with f:
            fig.savefig(f, format=os.path.splitext(a.output)[1][1:].lower())
            commit_tmp(tmp, f, a.output)
    except FileExistsError:
        die_file(a.output, f"cannot create: its temporary {a.output}.tmp.{os.getpid()} already exists "
                           "(not made by this run; a link there is never followed): remove it")
    except OSError as e:
        remove_quietly(tmp)
        die_file(a.output, f"cannot write: {one_line(e)}")
    except BaseException:
        remove_quietly(tmp)
        raise
    mods["plt"].close(fig)
    for t in traces:
        t.f.close()
    return 0


# The temporaries this process has open: a SIGINT, SIGTERM or SIGHUP removes them
# (on_signal) so an interrupted plot or report leaves nothing behind.
OPEN_TMPS = set()


def create_tmp(path, mode="wb"):
    """The temporary an output is written through before a rename over path:
    "<path>.tmp.<pid>" (the name wanka's clean-up of a killed run knows),
    created exclusively and never through a symbolic link or FIFO already
    there (O_EXCL | O_NOFOLLOW: FileExistsError or OSError instead), as
    sim/core/file.c's wk_file_create_tmp. Returns (name, open file); the
    name is removed on SIGINT/SIGTERM/SIGHUP (remove_tmps_on_signal) until
    commit_tmp renames it."""
    tmp = f"{path}.tmp.{os.getpid()}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    # the stop signals held back from the file's creation until its name is known to on_signal and its
    # descriptor owned by a file object: a signal in between would leave the temporary behind, or close
    # the descriptor twice (the second time perhaps another file's)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        fd = os.open(tmp, flags, 0o666)
        OPEN_TMPS.add(tmp)
        try:
            f = os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"}))
        except BaseException:
            os.close(fd)
            remove_quietly(tmp)
            raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return tmp, f


def commit_tmp(tmp, f, path):
    """Finish an output written through create_tmp's (tmp, f): flush and
    fsync f (on disk before the rename makes it visible), close it, rename
    tmp over path. OSError on failure (the caller removes tmp)."""
    f.flush()
    os.fsync(f.fileno())
    f.close()
    os.replace(tmp, path)
    OPEN_TMPS.discard(tmp)


# The signals that interrupt a plot or a report: Ctrl-C, kill, a closed terminal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def on_signal(sig, frame):
    """SIGINT/SIGTERM/SIGHUP: remove the open temporaries, say so on one line,
    end with 128 + the signal (no traceback)."""
    for t in list(OPEN_TMPS):
        remove_quietly(t)
    name = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}.get(sig, "SIGHUP")
    try:
        sys.stderr.write(f"{PROG}: interrupted by {name}; no output written\n")
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(128 + sig)


def remove_tmps_on_signal():
    """Install on_signal for SIGINT, SIGTERM and SIGHUP (not where they are
    ignored)."""
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, on_signal)


def one_line(e):
    """An exception's message on one line."""
    return " ".join(str(e).split()) or type(e).__name__


def remove_quietly(path):
    if not path:
        return
    OPEN_TMPS.discard(path)
    try:
        os.unlink(path)
    except OSError:
        pass


def run(argv):
    """main(), with every failure a one-line message: a malformed trace
    (whatever h5py or numpy raise while reading it) is status 2 naming it."""
    remove_tmps_on_signal()  # Ctrl-C ends quietly, like SIGTERM, leaving no temporary
    try:
        return main(argv)
    except SystemExit:
        raise
    except PlotError as e:
        fail(str(e))
    except MemoryError:
        if READING[0] is not None:
            fail(f"{READING[0]}: out of memory reading the trace (malformed row counts?)")
        die("out of memory", EXIT_ENV)
    except Exception as e:  # noqa: BLE001 (the point: no traceback)
        if READING[0] is not None:
            fail(f"{READING[0]}: malformed trace: {type(e).__name__}: {one_line(e)}")
        die(f"unexpected error: {type(e).__name__}: {one_line(e)}", EXIT_ENV)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
