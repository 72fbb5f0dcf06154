#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_wanka_trace.py — analysis/wanka_trace.py against the trace format's
# invariants (docs/trace-format.md) on real runs: row counts equal the
# tables' (h5py), enum columns hold only the schema's names, times are
# non-negative or -1 and ordered where the format says so, units are in the
# column names exactly as `wanka export --format csv` writes them, the
# summary equals the summary group, and a schema 2.0 trace is refused
# naming the file.
# usage: test_wanka_trace.py WANKA SRCROOT   (exit 77 = skipped: no h5py/pandas)
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
    import pandas as pd
except ImportError as e:
    print(f"skipped: {sys.executable} cannot import {e.name} (Debian: apt-get install python3-h5py python3-pandas)")
    sys.exit(77)

WANKA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "analysis"))
import wanka_trace  # noqa: E402

STATUS = ["completed", "rejected", "queued", "running", "not_submitted"]
PATH_CLASS = ["local", "leaf", "pod", "cross-pod", "none"]
CLASSES = ["gpu", "hbm", "nvswitch", "nic", "node", "link", "switch", "software", "sdc", "maintenance", "event"]
KINDS = ["down", "throttle", "straggler", "software"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def times_ok(col, allow_missing=True):
    v = np.asarray(col)
    return bool(np.all((v >= 0) | (allow_missing & (v == -1))))


def check_trace(h5, csvdir):
    t = wanka_trace.load(h5)
    with h5py.File(h5, "r") as f:
        check(len(t.jobs) == len(f["jobs"]), f"{h5}: jobs rows {len(t.jobs)} vs {len(f['jobs'])}")
        check(len(t.timeseries) == len(f["timeseries/cluster"]), f"{h5}: timeseries rows")
        check(len(t.incidents) == (len(f["incidents"]) if "incidents" in f else 0), f"{h5}: incidents rows")
        check(dict(t.summary) == {k: float(v) for k, v in f["summary"].attrs.items()}
              or all((math.isnan(t.summary[k]) and math.isnan(v)) or t.summary[k] == v
                     for k, v in f["summary"].attrs.items()), f"{h5}: summary differs")
        check(t.attrs["scenario_name"] == f.attrs["scenario_name"].decode("utf-8"), f"{h5}: attrs.scenario_name")
        check(np.array_equal(t.jobs["end_ns"].to_numpy(), f["jobs"]["end"]), f"{h5}: end_ns differs from jobs.end")
    j = t.jobs
    # enums: categoricals of the schema's names, in value order
    check(list(j["status"].cat.categories) == STATUS, f"{h5}: status categories {list(j['status'].cat.categories)}")
    check(list(j["path_class"].cat.categories) == PATH_CLASS, f"{h5}: path_class categories")
    check(j["status"].notna().all() and j["path_class"].notna().all(), f"{h5}: an enum value without a name")
    # jobs: times ns, -1 = did not happen; submit <= start <= end
    check(times_ok(j["submit_ns"], False), f"{h5}: a negative submit time")
    check(times_ok(j["start_ns"]) and times_ok(j["end_ns"]), f"{h5}: a negative start/end other than -1")
    started = j[j.start_ns >= 0]
    check((started.start_ns >= started.submit_ns).all(), f"{h5}: a job starting before its submit")
    done = j[j.end_ns >= 0]
    check((done.end_ns >= done.start_ns).all() and (done.start_ns >= 0).all(), f"{h5}: a job ending before it started")
    check((done.status == "completed").all(), f"{h5}: a job with an end that is not completed")
    check(((j.status == "completed") == (j.end_ns >= 0)).all(), f"{h5}: completed jobs without an end")
    check((j.id.to_numpy() == np.arange(len(j))).all(), f"{h5}: job ids are not the row indices")
    # timeseries: from 0, non-decreasing, GPUs and power non-negative
    ts = t.timeseries
    check(ts.time_ns.iloc[0] == 0 and ts.time_ns.is_monotonic_increasing, f"{h5}: sample times not ordered from 0")
    check((ts.power_w >= 0).all() and (ts.allocated_gpus <= t.attrs["gpus"]).all(), f"{h5}: sample values")
    # incidents: time order, repairs after failures
    inc = t.incidents
    if len(inc):
        check(list(inc["class"].cat.categories) == CLASSES, f"{h5}: class categories")
        check(list(inc["kind"].cat.categories) == KINDS, f"{h5}: kind categories")
        check(inc.start_ns.is_monotonic_increasing and times_ok(inc.start_ns, False), f"{h5}: incidents not in time order")
        rep = inc[inc.end_ns >= 0]
        check((rep.end_ns >= rep.start_ns).all() and times_ok(inc.end_ns), f"{h5}: a repair before its failure")
        for c in ("detection_s", "wait_s", "restart_s", "recovery_s", "lost_work_gpu_h"):
            v = inc[c].dropna()
            check((v >= 0).all(), f"{h5}: negative {c}")
        # schema 1.5: the restart's steps add up to it
        steps = ["drain_s", "launch_s", "init_s", "load_s", "warmup_s"]
        if all(c in inc.columns for c in steps):
            r = inc[inc.restart_s.notna()]
            check(np.allclose(r[steps].sum(axis=1), r.restart_s, rtol=1e-9, atol=1e-6),
                  f"{h5}: restart_s is not the sum of its steps")
    # the same column names and values as wanka export --format csv
    for name, df in (("jobs", j), ("incidents", inc), ("timeseries", ts)):
        path = os.path.join(csvdir, name + ".csv")
        if not len(df) and not os.path.exists(path):
            continue
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        check(rows[0] == list(df.columns), f"{h5}: {name}: reader columns {list(df.columns)} vs CSV {rows[0]}")
        check(len(rows) - 1 == len(df), f"{h5}: {name}: CSV rows")
        if name == "jobs" and len(df):
            check(rows[1][rows[0].index("status")] == str(df.status.iloc[0]), f"{h5}: status of job 0")
    return t


def main():
    tmp = tempfile.mkdtemp(prefix="wk-pytrace-")
    try:
        for scen in ("tests/scenario/export-failures.yaml", "scenarios/quickstart.yaml"):
            h5 = os.path.join(tmp, os.path.basename(scen).replace(".yaml", ".h5"))
            subprocess.run([WANKA, "run", os.path.join(SRC, scen), "-q", "-o", h5], check=True,
                           stdout=subprocess.DEVNULL)
            csvdir = h5 + ".csv"
            subprocess.run([WANKA, "export", h5, "--format", "csv", "-o", csvdir, "-q"], check=True)
            t = check_trace(h5, csvdir)
            if scen.startswith("tests"):
                check(len(t.incidents) > 0 and (t.incidents["class"] == "event").any(),
                      "export-failures: no incidents or no event incident")
            check(t.users().empty and list(t.users().columns) == wanka_trace.USER_COLUMNS,
                  f"{scen}: users() of a run without users")
        # jobs with users: users() equals users.csv of the export
        uy = os.path.join(tmp, "users.yaml")
        with open(uy, "w") as fh:
            fh.write("name: users2\ncluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
                     "workload: {source: inline, jobs: [{gpus: 8, duration: 50s, user: zed},"
                     " {gpus: 4, duration: 100s, user: amy}, {gpus: 2, duration: 5s, user: zed}]}\n")
        uh = os.path.join(tmp, "users.h5")
        subprocess.run([WANKA, "run", uy, "-q", "-o", uh], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([WANKA, "export", uh, "--format", "csv", "-o", uh + ".csv", "-q"], check=True)
        u = wanka_trace.load(uh).users()
        want = pd.read_csv(os.path.join(uh + ".csv", "users.csv"), index_col="user")
        check(list(u.index) == ["amy", "zed"] and list(u.columns) == list(want.columns)
              and np.allclose(u.to_numpy(), want.to_numpy().astype(float), equal_nan=True),
              f"users(): {u} vs users.csv {want}")
        check(u.loc["zed", "jobs"] == 2 and u.loc["amy", "completed"] == 1, f"users(): counts {u}")
        # a schema the reader does not know is refused, naming the file
        bad = os.path.join(tmp, "v2.h5")
        shutil.copy(h5, bad)
        with h5py.File(bad, "r+") as f:
            f.attrs["schema_version"] = "2.0"
        try:
            wanka_trace.load(bad)
            check(False, "schema 2.0 was accepted")
        except ValueError as e:
            check(bad in str(e) and "2.0" in str(e), f"schema 2.0 message: {e}")
    finally:
        shutil.rmtree(tmp)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("wanka_trace: the reader holds the trace format's invariants")


if __name__ == "__main__":
    main()
