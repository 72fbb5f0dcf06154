#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_h5py.py — the trace as users' notebooks read it: h5py (not wanka's
# code) opens a synthetic-384 trace and checks what docs/trace-format.md
# promises: root attributes and their types, the tables' compound fields and
# dtypes, the status enum's names, units attributes, the summary group.
# usage: test_h5py.py WANKA SRCROOT   (exit 77 = skipped: no h5py)
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError as e:
    print(f"skipped: {sys.executable} cannot import {e.name} (Debian: apt-get install python3-h5py)")
    sys.exit(77)

WANKA, SRC = sys.argv[1], sys.argv[2]
SCENARIO = os.path.join(SRC, "scenarios", "synthetic-384.yaml")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def attr_dtype(obj, name):
    return obj.attrs.get_id(name).dtype


def is_str_attr(obj, name):
    """A fixed-length UTF-8 string (schema 1.3: never variable-length)."""
    info = h5py.check_string_dtype(attr_dtype(obj, name))
    return info is not None and info.length is not None and info.encoding == "utf-8"


def text(v):
    """A string attribute's value as str (h5py gives fixed-length ones as bytes)."""
    return v.decode("utf-8") if isinstance(v, bytes) else v


def check_table(f, path, columns, units, nrows=None):
    """columns: [(name, numpy dtype or enum mapping)]; units: {column: units}."""
    check(path in f, f"dataset {path} exists")
    if path not in f:
        return None
    ds = f[path]
    check(isinstance(ds, h5py.Dataset), f"{path} is a dataset")
    check(ds.ndim == 1, f"{path} is one-dimensional")
    check(ds.maxshape == (None,), f"{path} is extendible (maxshape {ds.maxshape})")
    check(ds.chunks is not None, f"{path} is chunked")
    if h5py.h5z.filter_avail(h5py.h5z.FILTER_DEFLATE):
        check(ds.compression == "gzip", f"{path} is deflate-compressed (got {ds.compression})")
    names = ds.dtype.names or ()
    for name, want in columns:
        check(name in names, f"{path} has column {name} (columns: {names})")
        if name not in names:
            continue
        got = ds.dtype[name]
        if isinstance(want, dict):
            check(h5py.check_enum_dtype(got) == want,
                  f"{path}.{name} is the enum {want} (got {h5py.check_enum_dtype(got)})")
            check(got.base == np.dtype("u1") or got == np.dtype("u1"), f"{path}.{name} is stored as uint8")
        else:
            check(got == np.dtype(want), f"{path}.{name} is {np.dtype(want)} (got {got})")
    documented = [n for n, _ in columns]
    present = [n for n in names if n in documented]
    check(present == documented, f"{path} documented columns in order: {present}")
    extra = [n for n in names if n not in documented]
    if extra:
        print(f"note: {path} has columns beyond schema 1.2 (a minor version may add them): {extra}")
    check(is_str_attr(ds, "description") and ds.attrs["description"], f"{path} has a description")
    for col, u in units.items():
        key = f"{col}_units"
        check(key in ds.attrs and text(ds.attrs[key]) == u, f"{path}.{key} == {u!r} (got {ds.attrs.get(key)!r})")
    if nrows is not None:
        check(ds.shape == (nrows,), f"{path} has {nrows} rows (got {ds.shape})")
    return ds


def main():
    tmp = tempfile.mkdtemp(prefix="wk-h5py-")
    trace = os.path.join(tmp, "q.h5")
    run = [WANKA, "run", SCENARIO, "-q", "--seed", "3", "--set", "cluster.nodes=40"]
    out = subprocess.run(run + ["-o", trace, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stdout, out.stderr)
        return 1
    summary_json = json.loads(out.stdout)

    with h5py.File(trace, "r") as f:
        # root attributes, as the table in docs/trace-format.md lists them
        strings = ["schema_version", "wanka_version", "scenario_name", "scenario_file", "scenario",
                   "overrides", "scheduler", "gpu_sku"]
        ints = ["seed", "gpus", "sample_interval_ns"]
        for a in strings:
            check(a in f.attrs, f"root attribute {a} exists")
            if a in f.attrs:
                check(is_str_attr(f, a), f"root attribute {a} is a fixed-length UTF-8 string")
        for a in ints:
            check(a in f.attrs, f"root attribute {a} exists")
            if a in f.attrs:
                check(attr_dtype(f, a) == np.dtype("<i8"), f"root attribute {a} is int64 (got {attr_dtype(f, a)})")
        major, minor = text(f.attrs["schema_version"]).split(".")
        check(major == "1" and minor.isdigit() and int(minor) >= 1,
              f"schema_version 1.x, x >= 1 (jobs.gpus_final) (got {text(f.attrs['schema_version'])})")
        check(f.attrs["seed"] == 3, "seed is the --seed given")
        check(text(f.attrs["scenario_name"]) == "synthetic-384", "scenario_name")
        check(text(f.attrs["scenario_file"]) == SCENARIO, "scenario_file is the path as given")
        with open(SCENARIO, encoding="utf-8") as s:
            check(text(f.attrs["scenario"]) == s.read(), "scenario holds the file's text as read")
        check(text(f.attrs["overrides"]).splitlines() == ["cluster.nodes=40"], "overrides: one --set per line")
        check(text(f.attrs["scheduler"]) == "fifo", "scheduler")
        check(text(f.attrs["gpu_sku"]) == "H100-SXM-80G", "gpu_sku")
        check(f.attrs["gpus"] == 320, "gpus is 40 nodes x 8")
        check(f.attrs["sample_interval_ns"] == 600 * 10**9, "sample_interval_ns is 10 min")

        status = {"completed": 0, "rejected": 1, "queued": 2, "running": 3, "not_submitted": 4}
        jobs = check_table(
            f, "jobs",
            [("id", "<u4"), ("submit", "<i8"), ("start", "<i8"), ("end", "<i8"), ("duration", "<i8"),
             ("gpus", "<u4"), ("status", status), ("gpus_final", "<u4")],
            {"submit": "ns", "start": "ns", "end": "ns", "duration": "ns", "gpus": "GPUs", "gpus_final": "GPUs"},
            nrows=3000)
        if jobs is not None:
            j = jobs[:]
            check((j["id"] == np.arange(3000)).all(), "jobs.id is the row index")
            check((j["status"] == status["completed"]).all(), "every synthetic-384 job completed")
            check((j["start"] >= j["submit"]).all() and (j["end"] > j["start"]).all(),
                  "submit <= start < end")
            check((j["gpus_final"] == j["gpus"]).all(), "gpus_final == gpus: no job shrinks without failures")
            try:
                import pandas as pd
                df = pd.DataFrame(j)
                check(len(df) == 3000 and "status" in df.columns, "pandas reads jobs")
            except ImportError:
                print("note: pandas not installed; DataFrame check skipped")

        ts = check_table(
            f, "timeseries/cluster",
            [("time", "<i8"), ("allocated_gpus", "<u4"), ("running_jobs", "<u4"), ("queued_jobs", "<u4"),
             ("power", "<f8")],
            {"time": "ns", "allocated_gpus": "GPUs", "running_jobs": "jobs", "queued_jobs": "jobs",
             "power": "W"})
        if ts is not None:
            t = ts[:]
            dt = np.diff(t["time"])
            check(t["time"][0] == 0, "the first sample is at 0")
            check((dt[:-1] == 600 * 10**9).all() and 0 < dt[-1] <= 600 * 10**9,
                  "samples every sample_interval_ns, then the end")
            end_s = f["summary"].attrs["simulated_s"]
            check(abs(t["time"][-1] / 1e9 - end_s) < 1e-6, "the last sample is the end of the run")
            check((t["allocated_gpus"] <= 320).all(), "allocated_gpus <= gpus")
            check((t["power"] > 0).all(), "power is positive")

        # timeseries/pods (1.2): per-pod mean allocation per time bin; its
        # integral over pods and bins is the allocated GPU-time of `utilization`
        pods = check_table(
            f, "timeseries/pods",
            [("time", "<i8"), ("span", "<i8"), ("pod", "<u4"), ("gpus", "<u4"), ("allocated", "<f8")],
            {"time": "ns", "span": "ns", "gpus": "GPUs", "allocated": "GPUs"})
        if pods is not None:
            p = pods[:]
            npods = len(np.unique(p["pod"]))
            end_ns = f["summary"].attrs["simulated_s"] * 1e9
            check(npods >= 1 and len(p) % npods == 0, f"timeseries/pods: one row per bin and pod ({npods} pods)")
            check(p["gpus"][:npods].sum() == 320, "timeseries/pods: the pods' GPUs add up to gpus")
            check(p["time"][0] == 0 and abs((p["time"][-1] + p["span"][-1]) - end_ns) < 2,
                  "timeseries/pods: bins cover [0, end of the run]")
            check(((p["allocated"] >= -1e-9) & (p["allocated"] <= p["gpus"] + 1e-9)).all(),
                  "timeseries/pods: 0 <= allocated <= the pod's GPUs")
            util = (p["allocated"] * p["span"]).sum() / (320 * end_ns)
            check(abs(util - f["summary"].attrs["utilization"]) < 1e-9,
                  f"timeseries/pods integrates to summary.utilization ({util} vs {f['summary'].attrs['utilization']})")

        check("summary" in f and isinstance(f["summary"], h5py.Group), "summary is a group")
        s = f["summary"].attrs
        for name in ("gpus", "jobs_submitted", "jobs_completed", "jobs_rejected", "jobs_unfinished",
                     "utilization", "jct_mean_s", "jct_p50_s", "jct_p99_s", "wait_mean_s", "wait_p99_s",
                     "energy_kwh", "mean_power_mw", "energy_per_job_kwh", "makespan_s", "simulated_s",
                     "events"):
            check(name in s, f"summary.{name} (docs/metrics.md) exists")
        for name in s:
            check(attr_dtype(f["summary"], name) == np.dtype("<f8"), f"summary.{name} is float64")
        metrics = summary_json["metrics"]
        check(set(metrics) == set(s), "summary attributes are the names `wanka run --json` prints")
        for name, v in metrics.items():
            if name not in s:
                continue
            got = float(s[name])
            if v is None:
                check(math.isnan(got), f"summary.{name} is NaN where --json prints null")
            else:
                check(got == v or abs(got - v) <= 1e-12 * abs(v), f"summary.{name} == --json ({got} vs {v})")

    os.remove(trace)
    os.rmdir(tmp)
    print(f"{'FAILED' if failures else 'ok'}: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
