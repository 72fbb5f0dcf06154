# SPDX-License-Identifier: Apache-2.0
"""wanka_trace — read a wanka run trace (HDF5, docs/trace-format.md) into
pandas DataFrames.

    import wanka_trace
    t = wanka_trace.load("run.h5")
    t.jobs          # one row per job, workload order
    t.incidents     # one row per incident, time order (empty if the trace has none)
    t.timeseries    # the cluster's sampled state (timeseries/cluster)
    t.summary       # pandas Series: summary metric -> value (NaN = undefined)
    t.attrs         # dict: root attributes (scenario_name, scheduler, seed, ...)
    t.sites         # a network's site names, [] otherwise; a network's `site` columns are
                    # Categoricals of these names (NaN: no site), `site_index` their index
    t.site_series   # a network's timeseries/sites (empty DataFrame otherwise)
    t.placement     # schema 1.6: job segments' node ranges (empty DataFrame otherwise)
    t.nodes         # schema 1.6: each node's pod, rack, GPUs (empty DataFrame otherwise)
    t.node_segments()  # one row per job segment and node: job, segment, node, pod, rack, ...
    t.locality()    # per job: nodes, racks and pods spanned (most of any segment), segments
    t.fragmentation()  # over time: free GPUs, GPUs down, waiting jobs, stranded GPUs no waiting job can use
    t.users()       # per user: jobs, completed, gpu_h, wait_mean_s, bsld_mean, ftf (empty without users)

Column names carry their units the way `wanka export --format csv` writes
them: a column whose trace units are ns, s, W or GPU-h gets the suffix
_ns, _s, _w or _gpu_h (submit_ns, iteration_time_s, power_w,
lost_work_gpu_h); counts (GPUs, jobs) and names that already say their unit
(tflops_per_gpu) keep their name. Enum columns (jobs.status,
jobs.path_class, incidents.class, incidents.kind) are pandas Categoricals
of the names the trace stores, in value order. Times stay int64
nanoseconds from the start of the run, -1 meaning "did not happen", as in
the trace; `t.jobs[t.jobs.end_ns >= 0]` selects the jobs that finished.

A trace whose schema major version is not 1 raises ValueError naming the
file. Needs h5py and pandas (Debian: python3-h5py, python3-pandas).
"""
import os
import sys
import types

import h5py
import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import placement as _placement  # noqa: E402  (analysis/placement.py, beside this file)

SCHEMA_MAJOR = 1
TABLES = {"jobs": "jobs", "incidents": "incidents", "timeseries": "timeseries/cluster",
          "site_series": "timeseries/sites", "placement": "placement", "nodes": "nodes"}
# an older trace without incidents; a single-cluster run; a trace before schema 1.6 or of a network
OPTIONAL = ("incidents", "site_series", "placement", "nodes")
UNIT_SUFFIX = {"ns": "_ns", "s": "_s", "W": "_w", "GPU-h": "_gpu_h"}

__all__ = ["load", "column_name", "SCHEMA_MAJOR", "node_segments", "locality", "fragmentation"]


def _text(v):
    return v.decode("utf-8", errors="replace") if isinstance(v, bytes) else v


def column_name(column, units):
    """The DataFrame (and CSV) name of a trace column with these units."""
    suffix = UNIT_SUFFIX.get(units or "", "")
    return column if not suffix or column.endswith(suffix) else column + suffix


def _table(f, path):
    """The table at path as a DataFrame: enums decoded, units in names."""
    ds = f[path]
    data = ds[:]
    cols = {}
    for name in data.dtype.names:
        units = _text(ds.attrs.get(name + "_units", ""))
        enum = h5py.check_enum_dtype(ds.dtype[name])
        values = data[name]
        if enum:
            names = [k for k, _ in sorted(enum.items(), key=lambda kv: kv[1])]
            codes = np.asarray(values).astype(np.int64)
            known = [v for _, v in sorted(enum.items(), key=lambda kv: kv[1])]
            if known != list(range(len(known))):
                raise ValueError(f"{f.filename}: {path}.{name}: enum values are not 0..{len(known) - 1}")
            if len(codes) and (codes.min() < 0 or codes.max() >= len(names)):
                raise ValueError(f"{f.filename}: {path}.{name}: a value outside the enum's names")
            cols[name] = pd.Categorical.from_codes(codes, categories=names)
        else:
            cols[column_name(name, units)] = np.asarray(values)
    return pd.DataFrame(cols)


def load(path):
    """Read the trace at path. Returns a namespace with jobs, incidents and
    timeseries (pandas DataFrames), summary (a pandas Series of floats by
    metric name) and attrs (a dict of the root attributes, strings decoded).
    Raises OSError when the file cannot be opened, ValueError when it is
    not a wanka trace of schema major SCHEMA_MAJOR."""
    with h5py.File(path, "r") as f:
        version = _text(f.attrs.get("schema_version", ""))
        try:
            major = int(str(version).split(".")[0])
        except ValueError:
            raise ValueError(f"{path}: not a wanka trace (no schema_version attribute)") from None
        if major != SCHEMA_MAJOR:
            raise ValueError(f"{path}: trace schema version {version} is not supported: "
                             f"this reader reads schema {SCHEMA_MAJOR}.x")
        attrs = {k: _text(v) for k, v in f.attrs.items()}
        attrs = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in attrs.items()}
        tables = {}
        for key, table in TABLES.items():
            if table in f:
                tables[key] = _table(f, table)
            elif key in OPTIONAL:
                tables[key] = pd.DataFrame()
            else:
                raise ValueError(f"{path}: no table '{table}'")
        summary = pd.Series({k: float(v) for k, v in f["summary"].attrs.items()} if "summary" in f else {},
                            dtype="float64").sort_index()
        raw = {k: f[k][:] for k in ("jobs", "placement", "nodes", "incidents") if k in f}
    sites = str(attrs["sites"]).split(",") if attrs.get("sites") else []
    for df in tables.values():
        name_sites(df, sites)
    t = types.SimpleNamespace(path=path, attrs=attrs, summary=summary, sites=sites, **tables)
    t._raw = raw
    t.node_segments = lambda: node_segments(t)
    t.locality = lambda: locality(t)
    t.fragmentation = lambda points=None: fragmentation(t, points)
    t.users = lambda: users(t)
    return t


def name_sites(df, sites):
    """A network's `site` column (an index into the root attribute sites, -1
    for none) as a Categorical of the site names in `sites:` order (NaN for
    none); the index stays as `site_index` (int32) beside it."""
    if not sites or "site" not in df.columns:
        return
    idx = df["site"].astype("int64")
    df.insert(df.columns.get_loc("site"), "site_index", df["site"].astype("int32"))
    df["site"] = pd.Categorical.from_codes(np.where((idx >= 0) & (idx < len(sites)), idx, -1),
                                           categories=pd.Index(sites, dtype=object))


USER_COLUMNS = ["jobs", "completed", "gpu_h", "wait_mean_s", "bsld_mean", "ftf"]


def users(t):
    """The summary's per-user rows (user.NAME.jobs, ...; docs/metrics.md,
    "Slowdown and fairness") as a DataFrame indexed by user name in name
    order, columns USER_COLUMNS, as `wanka export --format csv` writes
    users.csv. Empty (with those columns) when the jobs carry no user."""
    rows = {}
    for k, v in t.summary.items():
        if k.startswith("user.") and k.count(".") >= 2:
            name, col = k[5:].rsplit(".", 1)
            rows.setdefault(name, {})[col] = v
    df = pd.DataFrame.from_dict(rows, orient="index", columns=USER_COLUMNS, dtype="float64")
    return df.sort_index().rename_axis("user")


def _need_placement(t):
    if "placement" not in t._raw or "nodes" not in t._raw:
        raise ValueError(f"{t.path}: no placement table (schema 1.6, single-site runs; this trace is schema "
                         f"{t.attrs.get('schema_version', '?')})")


def node_segments(t):
    """One row per job segment and node it held GPUs on: job, segment,
    start_ns, end_ns, node, pod, rack, gpu (first GPU within the node),
    gpus (GPUs held there). The `node` column of docs/analysis.md."""
    _need_placement(t)
    e = _placement.per_node(t._raw["placement"])
    nodes = t._raw["nodes"]
    return pd.DataFrame({"job": e["job"], "segment": e["segment"], "start_ns": e["start"], "end_ns": e["end"],
                         "node": e["node"], "pod": nodes["pod"].astype(np.int64)[e["node"]],
                         "rack": nodes["rack"].astype(np.int64)[e["node"]], "gpu": e["gpu"], "gpus": e["gpus"]})


def locality(t):
    """Per job (index = jobs.id): nodes, racks and pods spanned (the most
    of any one of its segments; 0 for a job that never ran) and its number
    of segments."""
    _need_placement(t)
    loc = _placement.locality(t._raw["placement"], t._raw["nodes"], len(t._raw["jobs"]))
    return pd.DataFrame({"nodes_spanned": loc["nodes"], "racks_spanned": loc["racks"],
                         "pods_spanned": loc["pods"], "segments": loc["segments"]},
                        index=pd.Index(t._raw["jobs"]["id"].astype(np.int64), name="id"))


def fragmentation(t, points=None):
    """The cluster's fragmentation over time (docs/analysis.md "Placement"):
    at the times of timeseries/cluster (at most `points`, default 1,000,
    evenly thinned), time_ns, free_gpus (held by no job and not down for
    repair), down_gpus (down for repair: the incidents table's `down` rows
    in force), waiting_jobs, smallest_waiting (GPUs; 0 when none waits) and
    stranded_gpus: free GPUs that no waiting job can use under node-granular
    gang placement."""
    _need_placement(t)
    ts = t.timeseries["time_ns"].to_numpy() if "time_ns" in t.timeseries else np.zeros(0, np.int64)
    end = int(ts.max()) if ts.size else 0
    times = _placement.sample_times(ts, end, points)
    fr = _placement.fragmentation(t._raw["jobs"], t._raw["placement"], t._raw["nodes"], times, end,
                                  t._raw.get("incidents"))
    return pd.DataFrame({"time_ns": fr["time"], "free_gpus": fr["free"], "down_gpus": fr["down"],
                         "waiting_jobs": fr["waiting"],
                         "smallest_waiting": fr["smallest"], "stranded_gpus": fr["stranded"]})
