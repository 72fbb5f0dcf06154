#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_network.py — the shipped national-network scenario (eight sites), read
# as users read the trace (h5py): every job names the site that ran it (or
# -1 when none could), a site never holds more GPUs than it has, the
# network's timeseries/cluster is the sum of the sites' rows, the summary
# agrees with the jobs table, and every site has its facility rows. With
# --brokers (suite slow): the three brokers over five seeds, pooled, go in
# the expected directions: energy-price has the lowest energy cost,
# fastest-finish the lowest mean JCT.
# usage: test_network.py WANKA SRCROOT [--brokers]   (exit 77 = skipped: no h5py)
import json
import os
import statistics
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
SCENARIO = os.path.join(SRC, "scenarios", "national-network.yaml")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def run(tmp, *args):
    trace = os.path.join(tmp, "n.h5")
    out = subprocess.run([WANKA, "run", SCENARIO, "--json", "-q", "-o", trace, *args],
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"wanka run {args}: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)["metrics"], trace


def trace_checks(tmp):
    m, trace = run(tmp)
    with h5py.File(trace, "r") as f:
        sites = f.attrs["sites"]
        sites = (sites.decode() if isinstance(sites, bytes) else sites).split(",")
        check(len(sites) == 8, f"8 sites named ({sites})")
        jobs = f["jobs"][:]
        site = jobs["site"]
        check(((site >= -1) & (site < len(sites))).all(), "jobs.site in [-1, sites)")
        status = h5py.check_enum_dtype(f["jobs"].dtype["status"])
        done = jobs["status"] == status["completed"]
        check(int(done.sum()) == int(m["jobs_completed"]), "completed jobs = summary")
        check((site[done] >= 0).all(), "every completed job has a site")
        for k, name in enumerate(sites):
            check(int((site == k).sum()) == int(m[f"site.{name}.jobs"]), f"site.{name}.jobs = its rows")
        ss = f["timeseries/sites"][:]
        total = f["timeseries/cluster"][:]
        check(set(np.unique(ss["site"])) == set(range(len(sites))), "every site has time-series rows")
        gpus = int(f.attrs["gpus"])
        check((total["allocated_gpus"] <= gpus).all(), "network never holds more than its GPUs")
        # the network's row at t = the sum of each site's latest row at or before t
        for t in total["time"][:: max(1, len(total) // 50)]:
            want = 0
            for k in range(len(sites)):
                rows = ss[(ss["site"] == k) & (ss["time"] <= t)]
                if len(rows):
                    want += int(rows["allocated_gpus"][-1])
            row = total[total["time"] == t][0]
            check(int(row["allocated_gpus"]) == want, f"timeseries/cluster at {t} = sum of sites")
        fac = f["timeseries/facility"][:]
        check(set(np.unique(fac["site"])) == set(range(len(sites))), "every site has facility rows")
        check("site" in f["incidents"].dtype.names, "incidents have a site column")
    check(m["jobs_completed"] + m["jobs_rejected"] + m["jobs_unfinished"] == m["jobs_submitted"], "jobs add up")
    # the CSV export and the pandas reader carry the sites too
    out = subprocess.run([WANKA, "export", trace, "--format", "csv", "-o", os.path.join(tmp, "csv")],
                         capture_output=True, text=True, timeout=120)
    check(out.returncode == 0, f"export csv: {out.stderr}")
    with open(os.path.join(tmp, "csv", "timeseries_sites.csv")) as fh:
        check(sum(1 for _ in fh) - 1 == len(ss), "timeseries_sites.csv: a row per site row")
    sys.path.insert(0, os.path.join(SRC, "analysis"))
    try:
        import wanka_trace
        t = wanka_trace.load(trace)
        check(t.sites == sites and len(t.site_series) == len(ss), "wanka_trace: sites and site_series")
        check("site" in t.jobs.columns, "wanka_trace: jobs.site")
    except ImportError:
        print("wanka_trace: no pandas, not checked")
    check(m["jobs_energy_kwh"] < m["energy_kwh"], "the jobs' added energy is part of the facilities'")


def broker_checks(tmp):
    res = {}
    for b in ("least-loaded", "fastest-finish", "energy-price"):
        for seed in range(1, 6):
            m, _ = run(tmp, "--broker", b, "--seed", str(seed), "--no-trace")
            res.setdefault(b, []).append(m)
    mean = {b: {k: statistics.mean(r[k] for r in rs) for k in ("jct_mean_s", "energy_cost", "jobs_energy_cost")}
            for b, rs in res.items()}
    for b, v in mean.items():
        print(f"{b}: " + ", ".join(f"{k} {x:.6g}" for k, x in v.items()))
    check(min(mean, key=lambda b: mean[b]["jobs_energy_cost"]) == "energy-price", "energy-price: lowest job energy cost")
    check(min(mean, key=lambda b: mean[b]["energy_cost"]) == "energy-price", "energy-price: lowest facility cost")
    check(min(mean, key=lambda b: mean[b]["jct_mean_s"]) == "fastest-finish", "fastest-finish: lowest mean JCT")


with tempfile.TemporaryDirectory() as tmp:
    if "--brokers" in sys.argv[3:]:
        broker_checks(tmp)
    else:
        trace_checks(tmp)
if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("ok")
