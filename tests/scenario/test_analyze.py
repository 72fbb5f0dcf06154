#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_analyze.py — `wanka analyze` (analysis/analyze.py, docs/analysis.md
# "wanka analyze"): its functions on hand-built arrays (graph edges and
# degrees, entropy of a known state, the period of a synthetic series, m and
# chi of a known configuration, correlations against brute force), then the
# command on a 4-node run checked by hand (the cluster of test_placement.py),
# --json, --sweep, --help and bad input (exit 2 naming the file).
# usage: test_analyze.py WANKA SRCROOT   (exit 77 = skipped: no numpy/h5py)
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import h5py  # noqa: F401
    import numpy as np
except ImportError as e:
    print(f"skipped: {sys.executable} cannot import {e.name}")
    sys.exit(77)

WANKA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "analysis"))
import analyze as A  # noqa: E402

H = 3600 * 10**9
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def near(a, b, tol=1e-9):
    return a is not None and abs(a - b) <= tol * max(1.0, abs(b))


PLACE_DT = np.dtype([("job", "<u4"), ("segment", "<u4"), ("start", "<i8"), ("end", "<i8"), ("node", "<u4"),
                     ("nodes", "<u4"), ("gpu", "<u4"), ("gpus", "<u4")])
NODE_DT = np.dtype([("node", "<u4"), ("pod", "<u4"), ("rack", "<u4"), ("gpus", "<u4"), ("first_gpu", "<u4")])
JOB_DT = np.dtype([("id", "<u4"), ("gpus", "<u4"), ("status", "u1"), ("duration", "<i8")])

# 4 nodes of 2 GPUs; pods {0,1} {2,3}; racks {0,1} {2,3}
nodes = np.array([(i, i // 2, i // 2, 2, 2 * i) for i in range(4)], dtype=NODE_DT)
# job 0: nodes 0-1 whole for 10 s; job 1: node 2 GPU 1 for 5 s; job 2: nodes 1-3 whole for 4 s from 10 s
place = np.array([(0, 0, 0, 10 * 10**9, 0, 2, 0, 2), (1, 0, 0, 5 * 10**9, 2, 1, 1, 1),
                  (2, 0, 10 * 10**9, 14 * 10**9, 1, 3, 0, 2)], dtype=PLACE_DT)
jobs = np.array([(0, 4, 0, 10 * 10**9), (1, 1, 0, 5 * 10**9), (2, 6, 0, 4 * 10**9)], dtype=JOB_DT)

# ---- the graph: W[a,b] = seconds x GPUs on a x GPUs on b
W, upod, urack = A.comm_graph(place, nodes)
want = np.zeros((4, 4))
want[0, 1] = want[1, 0] = 10 * 2 * 2 + 0  # job 0
for a, b in ((1, 2), (1, 3), (2, 3)):
    want[a, b] += 4 * 2 * 2  # job 2
    want[b, a] = want[a, b]
check(np.allclose(W, want), f"comm_graph weights {W.tolist()} != {want.tolist()}")
deg = (W > 0).sum(axis=1)
check(deg.tolist() == [1, 3, 2, 2], f"degrees {deg.tolist()}")
local, trans = A.clustering(W > 0)
# triangle 1-2-3; node 1 has 3 neighbours (1 of 3 pairs closed), nodes 2,3 closed
check(near(local, (1 / 3 + 1 + 1) / 3), f"mean local clustering {local}")
check(near(trans, 6 / (6 + 2 + 2)), f"transitivity {trans}")
Wr, _, _ = A.comm_graph(place, nodes, unit="rack")
check(Wr.shape == (2, 2) and near(Wr[0, 1], 4 * 2 * 4), f"rack graph {Wr.tolist()}")
Ww, _, _ = A.comm_graph(place, nodes, window=(9 * 10**9, 12 * 10**9))
check(near(Ww[0, 1], 1 * 4) and near(Ww[2, 3], 2 * 4), f"window graph {Ww.tolist()}")
lab = A.label_propagation(W)
check(len(set(lab.tolist())) == 1, f"label propagation on a connected graph of 4: {lab.tolist()}")
two = np.zeros((6, 6))
for a, b in ((0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)):
    two[a, b] = two[b, a] = 1.0
two[2, 3] = two[3, 2] = 0.1
lab = A.label_propagation(two)
check(lab[0] == lab[1] == lab[2] and lab[3] == lab[4] == lab[5] and lab[0] != lab[3],
      f"two triangles joined by a weak edge: {lab.tolist()}")
check(near(A.nmi([0, 0, 1, 1], [5, 5, 7, 7]), 1.0) and near(A.nmi([0, 1, 0, 1], [0, 0, 1, 1]), 0.0), "nmi")
check(A.components(two > 0.5).tolist() == [0, 0, 0, 1, 1, 1], "components")
q = A.modularity(two, np.array([0, 0, 0, 1, 1, 1]))
check(0.4 < q < 0.5, f"modularity of two triangles {q}")
tail = A.degree_tail(np.random.default_rng(1).pareto(2.0, 2000) * 10 + 10)
check(tail is not None and tail["better"] == "power law", f"degree tail of a Pareto sample: {tail}")
tail = A.degree_tail(np.random.default_rng(1).exponential(5.0, 2000) + 1)
check(tail is not None and tail["better"] == "exponential", f"degree tail of an exponential sample: {tail}")

# ---- entropy: four equal states = 2 bits; one state = 0
check(np.allclose(A.shannon([[2, 2, 2, 2, 0, 0], [8, 0, 0, 0, 0, 0]]), [2.0, 0.0]), "shannon")
times = np.array([0, 6, 12]) * 10**9
c = A.state_counts(place, jobs, None, 8, times)
# t=0: job 0 (class 1-8: 4 GPUs), job 1 (1 GPU, 1-8): busy 5, idle 3; t=6 s: 4 busy; t=12 s: job 2 (6, class 1-8)
check(c.tolist() == [[3, 5, 0, 0, 0, 0], [4, 4, 0, 0, 0, 0], [2, 6, 0, 0, 0, 0]], f"state counts {c.tolist()}")
INC_DT = np.dtype([("kind", "u1"), ("start", "<i8"), ("end", "<i8"), ("gpus_lost", "<u4")])
inc = np.array([(0, 5 * 10**9, -1, 2), (1, 0, -1, 8)], dtype=INC_DT)  # one down (never repaired), one throttle
c = A.state_counts(place, jobs, inc, 8, times)
check(c[:, 5].tolist() == [0, 2, 2] and c[1, 0] == 2, f"down GPUs {c.tolist()}")

# GPU sharing: jobs 0-2 tenants of node 0's GPU 0 over [0, 10), [2, 6), [5, 12) s, job 3 on its GPU 1 over
# [0, 4) s: the shared GPU counts once (busy 2, 1, 1, 0 at 1, 5, 11, 12 s), per GPU and in GPU-seconds
sh = np.array([(0, 0, 0, 10 * 10**9, 0, 1, 0, 1), (1, 0, 2 * 10**9, 6 * 10**9, 0, 1, 0, 1),
               (2, 0, 5 * 10**9, 12 * 10**9, 0, 1, 0, 1), (3, 0, 0, 4 * 10**9, 0, 1, 1, 1)], dtype=PLACE_DT)
shj = np.array([(i, 1, 0, 10**9) for i in range(4)], dtype=JOB_DT)
c = A.state_counts(sh, shj, None, 8, np.array([1, 5, 11, 12]) * 10**9)
check(c[:, 1].tolist() == [2, 1, 1, 0], f"shared GPU state counts {c.tolist()}")
u = A.per_gpu_busy(sh, nodes, 0, 12 * 10**9)
check(near(u[0], 1.0) and near(u[1], 4 / 12), f"shared GPU busy fractions {u[:2].tolist()}")
check(near(A.held_integral(sh, np.array([0, 12]) * 10**9)[0], 16.0), "shared GPU held GPU-seconds")
check(A._placement.held_per_node(sh, 4, np.array([5 * 10**9]))[0].tolist() == [1, 0, 0, 0], "held per node")

# ---- periodicity: a 24 h sine sampled hourly over 20 days, plus noise
t = np.arange(480)
x = 0.5 + 0.3 * np.sin(2 * np.pi * t / 24) + 0.02 * np.random.default_rng(2).standard_normal(t.size)
period, prom = A.dominant_period(x, 1.0)
check(near(period, 24.0), f"dominant period {period}")
acf = A.autocorrelation(x)
check(acf[0] == 1.0 and acf[24] > 0.8 and acf[12] < -0.8, f"acf {acf[0]} {acf[12]} {acf[24]}")
check(not np.any(A.autocorrelation(np.ones(10))), "acf of a constant")
ts = np.zeros(t.size, dtype=[("time", "<i8"), ("allocated_gpus", "<u4")])
ts["time"] = t * H
ts["allocated_gpus"] = np.round(x * 100)
p = A.periodicity_report(ts, 100)
check(p["periodic"] and near(p["dominant_period_h"], 24.0) and p["acf"]["24 h"] > 0.8, f"periodicity {p}")

# ---- spins, m and chi
s = A.spins(place, nodes, np.array([1, 6, 12]) * 10**9)
check(s.tolist() == [[1, 1, 1, 1, -1, 1, -1, -1], [1, 1, 1, 1, -1, -1, -1, -1], [-1, -1, 1, 1, 1, 1, 1, 1]],
      f"spins {s.tolist()}")
op = A.order_parameter(np.array([[1, 1, 1, 1], [-1, -1, 1, 1]]))
check(near(op["m"], 0.5) and near(op["chi"], 4 * 0.25) and near(op["abs_m"], 0.5), f"m, chi {op}")
op = A.order_parameter(np.ones((5, 7)))
check(near(op["m"], 1.0) and op["chi"] == 0.0, "all busy: m 1, chi 0")
rng = np.random.default_rng(3)
sr = np.where(rng.random((50, 8)) < 0.6, 1, -1)
sr[:, 1] = sr[:, 0]  # GPUs 0 and 1 (one node) move together
corr = A.correlations(sr, nodes)
mi = sr.mean(axis=0)
C = (sr.T @ sr) / sr.shape[0] - np.outer(mi, mi)
node_of, rp, pod = A._groups(nodes)
for name, sel in (("same node", node_of[:, None] == node_of[None, :]),
                  ("same rack", (rp[:, None] == rp[None, :]) & (node_of[:, None] != node_of[None, :])),
                  ("other pod", pod[:, None] != pod[None, :])):
    sel = sel & ~np.eye(8, dtype=bool)
    check(near(corr[name][0], C[sel].mean(), 1e-9) and corr[name][1] == sel.sum(),
          f"correlation {name}: {corr[name]} vs {C[sel].mean()} over {sel.sum()}")
check(corr["same pod"][0] is None, "no pairs in the same pod but another rack: None")
chi = A.order_parameter(sr)["chi"]
check(near(chi, C.sum() / 8, 1e-9), f"chi = sum C / N: {chi} vs {C.sum() / 8}")
# pseudo-likelihood on independent spins: J near 0, h near atanh(<s>)
si = np.where(rng.random((400, 8)) < 0.7, 1, -1)
h, J, ll = A.pseudo_likelihood(si, A.features(si, nodes), ridge=1e-6)
check(abs(h - math.atanh(si.mean())) < 0.15 and np.all(np.abs(J) < 0.3), f"independent spins: h {h} J {J}")
check(A.find_peak([1, 2, 3, 4], [1, 5, 2, 1]) == (True, 2.0), "find_peak interior")
check(A.find_peak([1, 2, 3], [1, 2, 3])[0] is False, "find_peak monotone")

# ---- the command
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


def run(*args):
    return subprocess.run([WANKA, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    scen = os.path.join(tmp, "tiny.yaml")
    with open(scen, "w") as fh:
        fh.write(SCENARIO)
    tr = os.path.join(tmp, "tiny.h5")
    r = run("run", scen, "-o", tr, "-q")
    check(r.returncode == 0, f"run: {r.stderr}")
    r = run("analyze", tr, "--json")
    if r.returncode == 1 and "cannot" in r.stderr:
        print(f"skipped: wanka's python cannot run analyze.py: {r.stderr.strip()}")
        sys.exit(77)
    check(r.returncode == 0, f"analyze --json: exit {r.returncode}: {r.stderr}")
    j = json.loads(r.stdout) if r.returncode == 0 else {}
    g = j.get("graph") or {}
    # job 0 on nodes 0-1 (2 h, 8 x 8 GPUs), job 2 on nodes 0-2 (1 h): edges 0-1, 0-2, 1-2
    check(g.get("edges") == 3 and g.get("units") == 4 and g["degree"]["max"] == 2, f"graph {g}")
    check(near(g.get("total_weight"), 2 * 3600 * 64 + 3 * 3600 * 64), f"total weight {g.get('total_weight')}")
    e = j.get("entropy") or {}
    # t=0: 4 GPUs of job 1 (1-8), 16 of job 0 (9-64), 12 idle
    h0 = -(4 / 32 * math.log2(4 / 32) + 16 / 32 * math.log2(16 / 32) + 12 / 32 * math.log2(12 / 32))
    check(near(e.get("max"), h0, 1e-9), f"entropy max {e.get('max')} != {h0}")
    check(e.get("min") == 0.0, f"entropy at the end (all idle) {e.get('min')}")
    sp = j.get("spread") or {}
    check(near(sp.get("per_gpu_util_mean"), 0.75) and near(sp.get("per_gpu_util_std"), math.sqrt(0.75 * 0.25)),
          f"busiest hour: 24 of 32 GPUs busy: {sp}")
    i = j.get("ising") or {}
    check(i.get("gpus") == 32 and -1 <= i.get("m", 9) <= 1 and i.get("chi", -1) >= 0, f"ising {i}")
    r = run("analyze", tr)
    check(r.returncode == 0 and "communication graph" in r.stdout and "susceptibility" in r.stdout,
          f"text report: {r.stdout[:200]} {r.stderr}")
    r = run("analyze", tr, "--sweep", tr, tr, "--json")
    j = json.loads(r.stdout) if r.returncode == 0 else {}
    check(len((j.get("sweep") or {}).get("rows", [])) == 3 and (j["sweep"]["peak_in_load"] is False),
          f"sweep: {r.stderr} {j.get('sweep')}")
    r = run("analyze", "--help")
    check(r.returncode == 0 and "usage: wanka analyze TRACE.h5" in r.stdout and "--sweep" in r.stdout, "--help")
    r = run("help", "analyze")
    check(r.returncode == 0 and "usage: wanka analyze" in r.stdout, "help analyze")
    # bad input: exit 2, a message naming the file, nothing on stdout
    junk = os.path.join(tmp, "junk.h5")
    with open(junk, "w") as fh:
        fh.write("not a trace\n")
    cut = os.path.join(tmp, "cut.h5")
    with open(tr, "rb") as a, open(cut, "wb") as b:
        b.write(a.read()[:4000])
    missing = os.path.join(tmp, "missing.h5")
    for path in (junk, cut, missing, tmp):
        r = run("analyze", path)
        check(r.returncode == 2 and path in r.stderr and not r.stdout, f"{path}: exit {r.returncode} {r.stderr}")
        r = run("analyze", tr, "--sweep", path)
        check(r.returncode == 2 and path in r.stderr and not r.stdout, f"--sweep {path}: exit {r.returncode}")
    for args, msg in ((["--bins", "3", tr], "--bins 3"), (["--frob", tr], "unknown option --frob"),
                      ([tr, "--sweep"], "--sweep: no traces"), ([], "missing TRACE.h5"),
                      ([tr, tr], "give one TRACE.h5")):
        r = run("analyze", *args)
        check(r.returncode == 2 and msg in r.stderr, f"analyze {args}: exit {r.returncode} {r.stderr}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
