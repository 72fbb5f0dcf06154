#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_placement.py — the trace's placement and nodes tables (schema 1.6,
# docs/trace-format.md) on a cluster small enough to check by hand: 4 nodes
# of 8 GPUs, 2 nodes per pod, fifo; job 0 (16 GPUs) and job 1 (4) start at
# 0, job 2 (24) waits until job 0 ends at 2 h. Checks the rows, the reader's
# refusal of bad ranges (exit 2, nothing written), a 1.5 trace still read,
# wanka_trace's node column, locality and fragmentation, `wanka plot --what
# gantt` / `fragmentation`, the CSV and Perfetto exports.
# usage: test_placement.py WANKA SRCROOT   (exit 77 = skipped: no h5py/pandas/matplotlib)
import json
import os
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
    import pandas  # noqa: F401
    import matplotlib  # noqa: F401
except ImportError as e:
    print(f"skipped: {sys.executable} cannot import {e.name}")
    sys.exit(77)

WANKA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "analysis"))
import placement as P  # noqa: E402
import wanka_trace as W  # noqa: E402

H = 3600 * 10**9
SCENARIO = """name: tiny
seed: 1
cluster: {sku: H100-SXM-80G, nodes: 4, gpus_per_node: 8, nodes_per_pod: 2}
scheduler: fifo
workload:
  source: inline
  jobs:
    - {submit: 0, gpus: 16, duration: 2h}
    - {submit: 0, gpus: 4, duration: 1h}
    - {submit: 10m, gpus: 24, duration: 1h}
"""
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def run(*args):
    return subprocess.run([WANKA, *args], capture_output=True, text=True)


def edit(src, dst, fn):
    """A copy of the trace src at dst, changed by fn(h5py.File)."""
    with open(src, "rb") as a, open(dst, "wb") as b:
        b.write(a.read())
    with h5py.File(dst, "r+") as f:
        fn(f)


def set_rows(f, table, col, row, value):
    d = f[table]
    a = d[:]
    a[col][row] = value
    d[...] = a


with tempfile.TemporaryDirectory() as tmp:
    scen = os.path.join(tmp, "tiny.yaml")
    with open(scen, "w") as fh:
        fh.write(SCENARIO)
    tr = os.path.join(tmp, "tiny.h5")
    r = run("run", scen, "-o", tr, "-q")
    check(r.returncode == 0, f"run: exit {r.returncode}: {r.stderr}")

    # ---- the rows, by hand
    with h5py.File(tr, "r") as f:
        check(f.attrs["schema_version"] == b"1.6", f"schema_version {f.attrs['schema_version']!r}")
        pl = f["placement"][:]
        rows = [tuple(int(r[c]) for c in ("job", "segment", "start", "end", "node", "nodes", "gpu", "gpus"))
                for r in pl]
        want = [(0, 0, 0, 2 * H, 0, 2, 0, 8), (1, 0, 0, H, 2, 1, 0, 4), (2, 0, 2 * H, 3 * H, 0, 3, 0, 8)]
        check(rows == want, f"placement rows {rows} != {want}")
        nodes = [tuple(int(r[c]) for c in ("node", "pod", "rack", "gpus", "first_gpu")) for r in f["nodes"][:]]
        check(nodes == [(0, 0, 0, 8, 0), (1, 0, 0, 8, 8), (2, 1, 0, 8, 16), (3, 1, 0, 8, 24)], f"nodes {nodes}")
        check(f["placement"].attrs["start_units"] == b"ns", "placement.start_units is ns")

    # ---- the reader: a genuine trace opens; bad ranges are refused naming the row, nothing written
    check(run("compare", tr, tr).returncode == 0, "compare reads a 1.6 trace")
    bad = [
        ("nodes-past-end", lambda f: set_rows(f, "placement", "nodes", 2, 5), "placement/nodes: row 2: nodes 0 .. 4"),
        ("node-past-end", lambda f: set_rows(f, "placement", "node", 1, 4), "placement/nodes: row 1"),
        ("no-nodes", lambda f: set_rows(f, "placement", "nodes", 0, 0), "placement/nodes: row 0"),
        ("gpus-past-node", lambda f: set_rows(f, "placement", "gpu", 1, 6), "placement/gpus: row 1: GPUs 6 .. 9"),
        ("bad-job", lambda f: set_rows(f, "placement", "job", 0, 3), "placement/job: row 0: job 3"),
        ("bad-span", lambda f: set_rows(f, "placement", "end", 0, -5), "placement/end: row 0"),
        ("bad-first-gpu", lambda f: set_rows(f, "nodes", "first_gpu", 2, 3), "nodes/first_gpu: row 2"),
        ("no-nodes-table", lambda f: f.__delitem__("nodes"), "placement: the table is there without the table nodes"),
    ]
    for name, fn, msg in bad:
        p = os.path.join(tmp, f"{name}.h5")
        edit(tr, p, fn)
        out = os.path.join(tmp, f"{name}.csv.d")
        r = run("export", p, "--format", "csv", "-o", out)
        check(r.returncode == 2, f"{name}: export exit {r.returncode} (want 2)")
        check(f"{p}: {msg}" in r.stderr, f"{name}: message {r.stderr.strip()!r} lacks {msg!r}")
        check(not os.path.exists(os.path.join(out, "jobs.csv")), f"{name}: export wrote jobs.csv")
        r = run("compare", p, tr)
        check(r.returncode == 2 and msg in r.stderr, f"{name}: compare exit {r.returncode}: {r.stderr.strip()}")

    # ---- a 1.5 trace (no placement) is still read; a 1.5 trace with a placement table is refused
    old = os.path.join(tmp, "old.h5")

    def to_15(f):
        del f["placement"]
        del f["nodes"]
        f.attrs.modify("schema_version", np.bytes_(b"1.5"))
    edit(tr, old, to_15)
    check(run("compare", old, tr).returncode == 0, "compare reads a 1.5 trace")
    t15 = W.load(old)
    check(t15.placement.empty and t15.nodes.empty, "wanka_trace: a 1.5 trace has empty placement/nodes")
    r = run("plot", old, "-o", os.path.join(tmp, "old-gantt.png"), "--what", "gantt")
    check(r.returncode == 0, f"plot --what gantt of a 1.5 trace (the job Gantt): {r.stderr}")
    r = run("plot", old, "-o", os.path.join(tmp, "old-frag.png"), "--what", "fragmentation")
    check(r.returncode == 2 and "placement" in r.stderr, f"fragmentation of a 1.5 trace: {r.returncode} {r.stderr}")
    mixed = os.path.join(tmp, "mixed.h5")
    edit(tr, mixed, lambda f: f.attrs.modify("schema_version", np.bytes_(b"1.5")))
    r = run("compare", mixed, tr)
    check(r.returncode == 2 and "added in 1.6" in r.stderr, f"1.5 with placement: {r.returncode} {r.stderr}")

    # ---- wanka_trace: node column, locality, fragmentation
    t = W.load(tr)
    ns = t.node_segments()
    check(list(ns.node) == [0, 1, 2, 0, 1, 2] and list(ns.pod) == [0, 0, 1, 0, 0, 1], f"node_segments {ns}")
    loc = t.locality()
    check(list(loc.nodes_spanned) == [2, 1, 3] and list(loc.pods_spanned) == [1, 1, 2], f"locality {loc}")
    fr = t.fragmentation()
    check(list(fr.time_ns) == [0, H, 2 * H, 3 * H], f"fragmentation times {list(fr.time_ns)}")
    check(list(fr.free_gpus) == [12, 16, 8, 32], f"free {list(fr.free_gpus)}")
    check(list(fr.waiting_jobs) == [0, 1, 0, 0], f"waiting {list(fr.waiting_jobs)}")
    check(list(fr.stranded_gpus) == [0, 16, 0, 0], f"stranded {list(fr.stranded_gpus)}")
    with h5py.File(tr, "r") as f:  # at 10 min: job 2 (24 GPUs) waits; the 12 free GPUs (4 + 8) cannot hold it
        one = P.fragmentation(f["jobs"][:], f["placement"][:], f["nodes"][:], np.array([H // 6]), 3 * H)
    check(int(one["stranded"][0]) == 12 and int(one["smallest"][0]) == 24, f"at 10 min: {one}")
    # usable(): one node's free GPUs serve a small job; whole free nodes a large one
    g = np.array([8, 8, 8])
    check(list(P.usable(np.array([3, 8, 0]), g, 4)) == [False, True, False], "usable: 4 GPUs")
    check(list(P.usable(np.array([3, 8, 8]), g, 16)) == [False, True, True], "usable: 16 GPUs on 2 free nodes")
    check(not P.usable(np.array([7, 7, 8]), g, 16).any(), "usable: 16 GPUs, one free node: none")

    # ---- plots: the per-node Gantt has one bar per whole-node row and per node of a part-node row
    for what in ("gantt", "fragmentation"):
        png = os.path.join(tmp, f"{what}.png")
        r = run("plot", tr, "-o", png, "--what", what)
        check(r.returncode == 0 and os.path.getsize(png) > 1000, f"plot --what {what}: {r.returncode} {r.stderr}")
    sys.path.insert(0, os.path.join(SRC, "analysis"))
    import plot  # noqa: E402
    mods = plot.import_deps()
    fig = plot.figure(mods, "gantt", [plot.Trace(h5py, tr)])
    from matplotlib.collections import PolyCollection
    bars = sum(len(c.get_paths()) for ax in fig.axes for c in ax.collections if isinstance(c, PolyCollection))
    check(bars == 3, f"gantt bars {bars} (want 3)")
    check(any("3 jobs on 4 nodes" in ax.get_title() for ax in fig.axes), "gantt title")

    # ---- exports: placement.csv with its node column; a Perfetto track per node that held a job
    out = os.path.join(tmp, "csv")
    check(run("export", tr, "--format", "csv", "-o", out).returncode == 0, "export csv")
    with open(os.path.join(out, "placement.csv")) as fh:
        lines = fh.read().split("\n")
    check(lines[0].strip() == "job,segment,start_ns,end_ns,node,nodes,gpu,gpus", f"placement.csv header {lines[0]!r}")
    check(lines[2].strip() == f"1,0,0,{H},2,1,0,4", f"placement.csv row 2 {lines[2]!r}")
    check(os.path.exists(os.path.join(out, "nodes.csv")), "nodes.csv")
    js = os.path.join(tmp, "t.json")
    check(run("export", tr, "--format", "chrome", "-o", js).returncode == 0, "export chrome")
    with open(js) as fh:
        ev = json.load(fh)["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
    pid = [p for p, n in names.items() if n == "nodes"]
    check(len(pid) == 1, f"a 'nodes' process: {names}")
    tracks = [e["args"]["name"] for e in ev if e.get("name") == "thread_name" and pid and e["pid"] == pid[0]]
    check(tracks == ["node 0 (pod 0)", "node 1 (pod 0)", "node 2 (pod 1)"], f"node tracks {tracks}")
    slices = [e for e in ev if e.get("ph") == "X" and pid and e["pid"] == pid[0]]
    check(len(slices) == 6, f"node slices {len(slices)} (want 6)")

    # ---- a real run with failures (restarts: several segments): placement's GPU-time is the summary's
    # utilization x GPUs x the run; no GPU is held by two segments at once; a segment holds at most its
    # job's GPUs; waiting jobs and free GPUs match timeseries/cluster
    qs = os.path.join(tmp, "qs.h5")
    r = run("run", os.path.join(SRC, "scenarios", "quickstart.yaml"), "-q", "--set", "workload.jobs=300",
            "--set", "failures.incidents=[{at: 1d, kind: down, node: 3, duration: 8h}, {at: 2d, kind: down, node: 40, duration: 4h}]",
            "-o", qs)
    check(r.returncode == 0, f"quickstart run: {r.stderr}")
    with h5py.File(qs, "r") as f:
        p, jb = f["placement"][:], f["jobs"][:]
        T = int(f["timeseries/cluster"]["time"][-1])
        gt = float((p["nodes"].astype(np.float64) * p["gpus"] * (p["end"] - p["start"])).sum())
        util = float(f["summary"].attrs["utilization"])
        check(abs(gt / (int(f.attrs["gpus"]) * T) - util) < 1e-9, f"placement GPU-time {gt} vs utilization {util}")
        check(int(p["segment"].max()) >= 1, "some job has a second segment (a restart)")
        e = P.per_node(p)
        first = f["nodes"]["first_gpu"][:].astype(np.int64)
        ev = []
        for j, a, b, n, g, k in zip(e["job"], e["start"], e["end"], e["node"], e["gpu"], e["gpus"]):
            for x in range(first[n] + g, first[n] + g + k):
                ev.append((x, a, b))
        ev.sort()
        clash = sum(1 for u, v in zip(ev, ev[1:]) if u[0] == v[0] and v[1] < u[2])
        check(clash == 0, f"{clash} GPUs held by two segments at once")
        seg = {}
        for row in p:
            key = (int(row["job"]), int(row["segment"]))
            seg[key] = seg.get(key, 0) + int(row["nodes"]) * int(row["gpus"])
        over = [k for k, v in seg.items() if v > int(jb["gpus"][k[0]])]
        check(not over, f"segments holding more than their job's GPUs: {over[:5]}")
    tq = W.load(qs)
    fq = tq.fragmentation()
    m = tq.timeseries.set_index("time_ns").loc[fq.time_ns]
    check((m.queued_jobs.to_numpy() == fq.waiting_jobs.to_numpy()).all(), "waiting jobs = timeseries queued_jobs")
    # GPUs down for repair are neither free nor stranded: free = GPUs - allocated - down, where down
    # is gpus_lost of the `down` incidents in force (failures on at the default rates, and the two
    # scripted node outages); before the fix a down GPU counted as free
    inc = tq.incidents
    dn = inc[inc["kind"] == "down"]
    end = np.where(dn.end_ns.to_numpy() < 0, np.iinfo(np.int64).max, dn.end_ns.to_numpy())
    want_down = np.array([int(dn.gpus_lost.to_numpy()[(dn.start_ns.to_numpy() <= x) & (x < end)].sum())
                          for x in fq.time_ns])
    check(want_down.max() > 0, "some GPUs are down at a sample time")
    check((fq.down_gpus.to_numpy() == want_down).all(), "down GPUs = the down incidents in force")
    # (a job holds a down GPU until the failure is detected: then that GPU is both, and free is less)
    idle = int(tq.attrs["gpus"]) - m.allocated_gpus.to_numpy()
    gap = idle - want_down - fq.free_gpus.to_numpy()
    check((fq.free_gpus.to_numpy() <= idle).all() and (gap == 0).mean() > 0.95,
          f"free GPUs = GPUs - allocated_gpus - down ({int((gap != 0).sum())} of {len(gap)} times differ)")
    check((gap != 0).sum() < (want_down > 0).sum(), "the down GPUs are out of free at most times they are down")
    check((fq.stranded_gpus <= fq.free_gpus).all(), "stranded <= free")
    # during node 3's scripted outage (1 d .. 1 d 8 h) its 8 GPUs are down: never free
    with h5py.File(qs, "r") as f:
        inc_raw, place_raw, nodes_raw, jobs_raw = f["incidents"][:], f["placement"][:], f["nodes"][:], f["jobs"][:]
    at = np.array([24 * H + 2 * H])
    per, unplaced = P.down_per_node(inc_raw, nodes_raw, at)
    check(int(per[0][3]) == int(nodes_raw["gpus"][3]), f"node 3 down at 1 d 2 h: {per[0][3]}")
    held = P.held_per_node(place_raw, len(nodes_raw), at)
    check(int(held[0][3]) == 0, f"node 3 holds no job while down: {held[0][3]}")
    one = P.fragmentation(jobs_raw, place_raw, nodes_raw, at, T, inc_raw)
    old = P.fragmentation(jobs_raw, place_raw, nodes_raw, at, T)
    check(int(old["free"][0]) - int(one["free"][0]) == int(per[0].sum()) + int(unplaced[0]),
          f"the down GPUs leave the free count: {old['free']} -> {one['free']}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("placement: ok")
