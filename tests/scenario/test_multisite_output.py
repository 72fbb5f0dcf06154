#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_multisite_output.py — a network's outputs name its parts: the run's
# table header names the broker (each site has its own scheduler; --json
# keeps the key "scheduler"), `wanka export --format chrome` puts each site's
# jobs on a process of its own without a note about a cluster it cannot
# rebuild, and analysis/wanka_trace.py gives `site` as the site's name.
# usage: test_multisite_output.py WANKA SRCROOT   (exit 77 = skipped: no h5py/pandas)
import json
import os
import subprocess
import sys
import tempfile

try:
    import h5py  # noqa: F401
    import pandas  # noqa: F401
except ImportError as e:
    print(f"skipped: {sys.executable} cannot import {e.name}")
    sys.exit(77)

WANKA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "analysis"))
import wanka_trace as W  # noqa: E402

NETWORK = """name: tiny-net
seed: 4
sites:
  - {name: alpha, scheduler: fifo, cluster: {nodes: 2, gpus_per_node: 8}}
  - {name: beta, scheduler: backfill, cluster: {nodes: 4, gpus_per_node: 8}}
broker: least-loaded
failures: {enabled: false}
workload:
  source: inline
  jobs:
    - {gpus: 8, duration: 5h, submit: 0s}
    - {gpus: 16, duration: 3h, submit: 1h}
    - {gpus: 8, duration: 2h, submit: 2h}
    - {gpus: 64, duration: 1h, submit: 3h}
"""
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def wanka(*args):
    return subprocess.run([WANKA, *args], capture_output=True, text=True, timeout=120)


with tempfile.TemporaryDirectory() as T:
    y, h, js = os.path.join(T, "net.yaml"), os.path.join(T, "net.h5"), os.path.join(T, "net.json")
    with open(y, "w") as f:
        f.write(NETWORK)
    r = wanka("run", y, "-o", h)
    first = r.stdout.splitlines()[0] if r.stdout else ""
    check(r.returncode == 0 and first == "scenario tiny-net  broker least-loaded  seed 4",
          f"run header names the broker: '{first}' {r.stderr.strip()}")
    r = wanka("run", y, "--json", "-q", "--no-trace")
    check(r.returncode == 0 and json.loads(r.stdout)["scheduler"] == "least-loaded", "--json keeps 'scheduler'")
    r = wanka("export", h, "--format", "chrome", "-o", js)
    check(r.returncode == 0, f"export chrome of a network: status {r.returncode}: {r.stderr.strip()}")
    check("could not be rebuilt" not in r.stderr, f"no note about rebuilding a cluster: {r.stderr.strip()}")
    with open(js) as f:
        ev = json.load(f)["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
    check("site alpha: jobs" in procs.values() and "site beta: jobs" in procs.values() and "jobs" not in procs.values(),
          f"a jobs process per site: {sorted(procs.values())}")
    t = W.load(h)
    where = {int(e["args"]["id"]): procs[e["pid"]] for e in ev if e.get("cat") == "job" and "args" in e}
    ran = t.jobs[t.jobs.start_ns >= 0]
    check(len(where) == len(ran) and all(where[int(j.id)] == f"site {j.site}: jobs" for j in ran.itertuples()),
          f"each job on its site's process: {where}")
    check(list(t.jobs.site.cat.categories) == ["alpha", "beta"], f"site categories: {list(t.jobs.site.cat.categories)}")
    none = t.jobs[t.jobs.id == 3]  # 64 GPUs: no site fits it
    check(len(none) == 1 and none.site.isna().all() and (none.site_index == -1).all(),
          f"a job no site ran has no site name, site_index -1: {none[['status', 'site', 'site_index']].values}")
    check(set(t.site_series.site.dropna()) == {"alpha", "beta"}, "timeseries/sites: site names")
    check(list(t.jobs.site_index[t.jobs.site == "beta"].unique()) == [1], "site_index beside the name")
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
