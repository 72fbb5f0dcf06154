#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# plot.py — figures from wanka HDF5 traces (run by `wanka plot`): cluster time
# series and job-completion-time CDFs, several runs overlaid. Reads traces with
# h5py only (docs/trace-format.md); draws with matplotlib's Agg backend.
"""usage: plot.py TRACE.h5... -o OUT.png|OUT.svg --what WHAT

WHAT is one of:
  utilization  allocated GPUs / GPUs over time (timeseries/cluster)
  queue        jobs waiting over time (timeseries/cluster)
  power        facility power over time, MW (timeseries/cluster)
  jct-cdf      CDF of job completion time of completed jobs, hours (jobs)
  incidents    cumulative incidents over time (incidents; exit 2 if absent)

Exit status: 0 written, 2 bad arguments / missing file / a trace lacking
the dataset or malformed (one line: "wanka: FILE: what is wrong", never a
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

# --what -> (the dataset it needs, title)
WHATS = {
    "utilization": ("timeseries/cluster", "GPU utilization (allocated)"),
    "queue": ("timeseries/cluster", "Jobs waiting in the queue"),
    "power": ("timeseries/cluster", "Facility power"),
    "jct-cdf": ("jobs", "Job completion time, completed jobs"),
    "incidents": ("incidents", "Incidents"),
}


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


def die_file(path, msg, status=EXIT_USAGE):
    """One line naming the file, as wanka's own messages do."""
    print(f"wanka: {path}: {msg}", file=sys.stderr)
    sys.exit(status)


def import_deps():
    """Import numpy, h5py and matplotlib (Agg), or exit naming the Debian packages."""
    missing = []
    mods = {}
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
    import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
    from matplotlib.ticker import MaxNLocator
    mods["plt"] = plt
    globals()["MaxNLocator"] = MaxNLocator
    return mods


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description="Plot wanka HDF5 traces.",
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("traces", nargs="+", metavar="TRACE.h5", help="traces to overlay")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="output image: .png or .svg")
    p.add_argument("--what", required=True, choices=sorted(WHATS), help="what to plot")
    a = p.parse_args(argv)
    ext = os.path.splitext(a.output)[1].lower()
    if ext not in (".png", ".svg"):
        die(f"-o {a.output}: the output must end in .png or .svg")
    outdir = os.path.dirname(os.path.abspath(a.output))
    if not os.path.isdir(outdir):
        die(f"-o {a.output}: directory {outdir} does not exist")
    return a


def attr_str(f, name, default=""):
    """A root string attribute (h5py gives str or bytes), default when absent."""
    if name not in f.attrs:
        return default
    v = f.attrs[name]
    return v.decode() if isinstance(v, bytes) else str(v)


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
        for c in COLUMNS[what]:
            if c not in names:
                die_file(self.path, f"{dataset}: no column '{c}' (columns: {', '.join(names)})")
            kind = ds.dtype[c].kind
            if kind not in "iuf" or ds.dtype[c].shape != ():
                die_file(self.path, f"{dataset}: column '{c}' is not a number (type {ds.dtype[c]})")
        return ds


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


def series(ax, np, traces, dataset, what):
    for t in traces:
        ts = t.need(dataset, what)[:]
        days = ts["time"].astype(np.float64) / NS_PER_DAY
        if what == "utilization":
            if t.gpus <= 0:
                die_file(t.path, "root attribute 'gpus' is missing or 0; cannot compute utilization")
            y = ts["allocated_gpus"].astype(np.float64) / t.gpus
        elif what == "queue":
            y = ts["queued_jobs"].astype(np.float64)
        else:
            y = ts["power"].astype(np.float64) / 1e6
        ax.plot(days, y, drawstyle="steps-post", linewidth=1.2, label=t.label)
    ax.set_xlabel("time (days)")
    ax.set_ylabel({"utilization": "allocated GPUs / GPUs", "queue": "jobs waiting",
                   "power": "facility power (MW)"}[what])
    if what == "utilization":
        ax.set_ylim(0, 1.05)
    elif what == "queue":
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def enum_names(h5py, dtype, field):
    """{value: name} of an enum column, or {} when it is not one."""
    m = h5py.check_enum_dtype(dtype[field]) if field in (dtype.names or ()) else None
    return {v: k for k, v in m.items()} if m else {}


def jct_cdf(ax, np, h5py, traces):
    drawn, positive = 0, True
    for t in traces:
        ds = t.need("jobs", "jct-cdf")
        rows = ds[:]
        status = enum_names(h5py, ds.dtype, "status")
        done = rows["end"] >= 0
        if status:
            completed = [v for v, k in status.items() if k == "completed"]
            if completed:
                done &= rows["status"] == completed[0]
        jct = np.sort((rows["end"][done] - rows["submit"][done]).astype(np.float64) / NS_PER_HOUR)
        if jct.size == 0:
            print(f"{PROG}: {t.path}: no completed jobs; its CDF is empty", file=sys.stderr)
            continue
        positive = positive and jct[0] > 0
        y = np.arange(1, jct.size + 1) / jct.size
        ax.plot(jct, y, drawstyle="steps-post", linewidth=1.2, label=f"{t.label} ({jct.size} jobs)")
        drawn += 1
    if drawn and positive:
        ax.set_xscale("log")
    ax.set_xlabel("job completion time, end − submit (hours)")
    ax.set_ylabel("fraction of completed jobs")
    ax.set_ylim(0, 1.02)


def time_column(ds):
    """The incidents table's time column: 'time' or another ns column."""
    names = ds.dtype.names or ()
    for c in ("time", "start", "failure", "at"):
        if c in names:
            return c
    for c in names:
        u = ds.attrs.get(f"{c}_units", b"")
        if (u.decode() if isinstance(u, bytes) else str(u)) == "ns":
            return c
    return None


def incidents(ax, np, h5py, traces):
    for t in traces:
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
                ax.plot([0], [0], label=f"{label} (none)")
                continue
            ax.step(np.concatenate(([0.0], days)), np.arange(days.size + 1), where="post",
                    linewidth=1.2, label=f"{label} ({days.size})")
    ax.set_xlabel("time (days)")
    ax.set_ylabel("incidents so far")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def main(argv):
    a = parse_args(argv)
    mods = import_deps()
    np, h5py, plt = mods["numpy"], mods["h5py"], mods["plt"]
    traces = [Trace(h5py, p) for p in a.traces]
    dataset, title = WHATS[a.what]
    for t in traces:  # every trace checked before anything is drawn
        t.need(dataset, a.what)
    disambiguate(traces)

    fig, ax = plt.subplots(figsize=(9, 5), dpi=120)
    if a.what in ("utilization", "queue", "power"):
        series(ax, np, traces, dataset, a.what)
    elif a.what == "jct-cdf":
        jct_cdf(ax, np, h5py, traces)
    else:
        incidents(ax, np, h5py, traces)
    scen = sorted({t.scenario for t in traces if t.scenario})
    ax.set_title(f"{title} — {', '.join(scen)}" if scen else title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    READING[0] = None
    tmp = f"{a.output}.tmp.{os.getpid()}"
    try:
        fig.savefig(tmp, format=os.path.splitext(a.output)[1][1:].lower())
        os.replace(tmp, a.output)
    except OSError as e:
        remove_quietly(tmp)
        die_file(a.output, f"cannot write: {one_line(e)}")
    except BaseException:
        remove_quietly(tmp)
        raise
    plt.close(fig)
    for t in traces:
        t.f.close()
    return 0


def one_line(e):
    """An exception's message on one line."""
    return " ".join(str(e).split()) or type(e).__name__


def remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def run(argv):
    """main(), with every failure a one-line message: a malformed trace
    (whatever h5py or numpy raise while reading it) is status 2 naming it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends quietly, like SIGTERM
    try:
        return main(argv)
    except SystemExit:
        raise
    except MemoryError:
        if READING[0] is not None:
            die_file(READING[0], "out of memory reading the trace (malformed row counts?)")
        die("out of memory", EXIT_ENV)
    except Exception as e:  # noqa: BLE001 (the point: no traceback)
        if READING[0] is not None:
            die_file(READING[0], f"malformed trace: {type(e).__name__}: {one_line(e)}")
        die(f"unexpected error: {type(e).__name__}: {one_line(e)}", EXIT_ENV)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
