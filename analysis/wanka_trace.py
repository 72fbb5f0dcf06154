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
    t.sites         # a network's site names (index = the `site` columns), [] otherwise
    t.site_series   # a network's timeseries/sites (empty DataFrame otherwise)

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
import types

import h5py
import numpy as np
import pandas as pd

SCHEMA_MAJOR = 1
TABLES = {"jobs": "jobs", "incidents": "incidents", "timeseries": "timeseries/cluster",
          "site_series": "timeseries/sites"}
OPTIONAL = ("incidents", "site_series")  # an older trace without incidents; a single-cluster run
UNIT_SUFFIX = {"ns": "_ns", "s": "_s", "W": "_w", "GPU-h": "_gpu_h"}

__all__ = ["load", "column_name", "SCHEMA_MAJOR"]


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
    sites = str(attrs["sites"]).split(",") if attrs.get("sites") else []
    return types.SimpleNamespace(path=path, attrs=attrs, summary=summary, sites=sites, **tables)
