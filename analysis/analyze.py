# SPDX-License-Identifier: Apache-2.0
"""analyze — the seed paper's §2.3 and §4.2 analyses of a wanka trace
(`wanka analyze`, docs/analysis.md "wanka analyze" defines every number):

  graph        the communication graph over nodes (co-scheduled GPU-pair-seconds)
  entropy      Shannon entropy of the cluster's GPU states over time
  periodicity  autocorrelation and spectrum of utilization
  spread       per-GPU utilization spread at the busiest hour
  ising        spins s = +1 busy / -1 idle: m, chi, correlations, a
               pseudo-likelihood fit of H = -sum J s s - sum h s
  sweep        m and chi against offered load over several traces

numpy only (h5py to read the file). Every function below works on numpy
arrays as h5py reads the trace's tables, so tests call them directly.
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import placement as _placement  # noqa: E402

PROG = "wanka analyze"
NS = 1e9
SIZE_CLASSES = (8, 64, 512)  # busy states: jobs of 1-8, 9-64, 65-512, >512 GPUs
STATE_NAMES = ("idle", "busy 1-8", "busy 9-64", "busy 65-512", "busy >512", "down")
DENSE_NODES = 4096  # graph over nodes up to this many; racks above
ISING_BINS = 400    # time bins of the spin configurations (default)
FIT_ROWS = 1_000_000  # pseudo-likelihood: at most this many (bin, GPU) rows, drawn evenly
KIND_DOWN = 0       # incidents.kind `down`
PAPER = {"gpus_threshold": 1000, "interactions_per_s": 1e6}

USAGE = """usage: wanka analyze TRACE.h5 [--json] [--bins N] [--sweep TRACE.h5...]

The seed paper's analyses (§2.3, §4.2) of one trace: the communication graph
over nodes (degrees, clustering, communities against pods and racks), the
entropy of the cluster state over time, periodicity of utilization, per-GPU
utilization spread at the busiest hour, and an Ising-style fit (order
parameter m, susceptibility chi, couplings J by distance, fields h).
With --sweep, m and chi of TRACE and every further trace against offered load
and cluster size, and whether chi peaks inside the sweep (a transition).

options:
  --json        one JSON object instead of the text report
  --bins N      time bins of the spin configurations (default 400, 10..5000)
  --sweep T...  further traces (e.g. a `wanka sweep` over arrival rates)
  -h, --help    this help

The graph, spread and Ising sections need the placement table (schema 1.6);
without it they say so. docs/analysis.md "wanka analyze" gives the equations.

exit status: 0 done, 2 bad arguments or a file that is not a readable wanka
trace, 1 python3 or numpy/h5py missing.

example:
  wanka run scenarios/paper-sci-10k.yaml -o p.h5
  wanka analyze p.h5
  wanka analyze a.h5 --sweep b.h5 c.h5 d.h5 --json > sweep.json
"""


class Bad(Exception):
    """Bad input: exit 2 with this message."""


# ---------------------------------------------------------------- graph

def segment_nodes(place, window=None):
    """(seg, node, gpus, dur_s): one entry per (job segment, node) with the
    GPUs the segment held there and its length in seconds (within
    window = (t0, t1) ns when given); seg numbers the distinct (job, segment)
    pairs from 0."""
    if len(place) == 0:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, np.zeros(0)
    e = _placement.per_node(place)
    key = np.stack([e["job"], e["segment"]])
    _, seg = np.unique(key, axis=1, return_inverse=True)
    seg = np.asarray(seg).reshape(-1)
    if window is None:
        dur = np.maximum(e["end"] - e["start"], 0) / NS
    else:
        dur = np.maximum(np.minimum(e["end"], window[1]) - np.maximum(e["start"], window[0]), 0) / NS
    keep = dur > 0
    seg = np.unique(seg[keep], return_inverse=True)[1].reshape(-1)
    return seg, e["node"][keep], e["gpus"][keep], dur[keep]


def comm_graph(place, nodes, unit="node", window=None):
    """The weighted co-scheduling graph: W[a, b] = sum over job segments
    holding GPUs on both units a != b of (segment seconds) x (its GPUs on a)
    x (its GPUs on b): GPU-pair-seconds (seconds within window = (t0, t1)
    ns when given). unit "node" or "rack". Returns
    (W float64 [n, n], zero diagonal; labels of each unit: pod, rack)."""
    seg, node, gpus, dur = segment_nodes(place, window)
    pod = nodes["pod"].astype(np.int64)
    rack = nodes["rack"].astype(np.int64)
    if unit == "rack":
        _, u_of_node = np.unique(np.stack([pod, rack]), axis=1, return_inverse=True)
        u_of_node = np.asarray(u_of_node).reshape(-1)
        n = int(u_of_node.max()) + 1 if len(nodes) else 0
        upod = np.zeros(n, dtype=np.int64)
        urack = np.zeros(n, dtype=np.int64)
        upod[u_of_node] = pod
        urack[u_of_node] = rack
    else:
        u_of_node = np.arange(len(nodes))
        n, upod, urack = len(nodes), pod, rack
    W = np.zeros((n, n))
    if seg.size:
        u = u_of_node[node]
        nseg = int(seg.max()) + 1
        # only segments on two or more units make edges
        high = np.full(nseg, -1, dtype=np.int64)
        np.maximum.at(high, seg, u)
        low = np.full(nseg, n, dtype=np.int64)
        np.minimum.at(low, seg, u)
        span = high != low
        keep = span[seg]
        s2 = np.unique(seg[keep], return_inverse=True)[1].reshape(-1)
        if s2.size:
            m = int(s2.max()) + 1
            d = np.zeros(m)
            d[s2] = dur[keep]
            for lo in range(0, m, 512):  # B^T diag(d) B over chunks of segments
                sel = (s2 >= lo) & (s2 < lo + 512)
                B = np.zeros((min(512, m - lo), n))
                np.add.at(B, (s2[sel] - lo, u[keep][sel]), gpus[keep][sel])
                W += B.T @ (B * d[lo:lo + B.shape[0], None])
        np.fill_diagonal(W, 0.0)
    return W, upod, urack


def degree_tail(deg):
    """Power law against exponential for the tail of a degree sequence
    (degrees >= their median, continuous maximum likelihood): alpha, lambda,
    the log-likelihood ratio R (> 0: power law fits better) and the
    normalised ratio R / (sigma sqrt(n)) (Vuong); None when < 10 points or
    the tail is flat."""
    x = np.asarray(deg, dtype=float)
    x = x[x > 0]
    if x.size < 10:
        return None
    xmin = float(np.median(x))
    t = x[x >= xmin]
    n = t.size
    logs = np.log(t / xmin)
    shift = t - xmin
    if n < 10 or logs.sum() <= 0 or shift.mean() <= 0:
        return None
    alpha = 1.0 + n / logs.sum()
    lam = 1.0 / shift.mean()
    lp = math.log(alpha - 1) - math.log(xmin) - alpha * logs
    le = math.log(lam) - lam * shift
    d = lp - le
    sd = float(d.std())
    return {"xmin": xmin, "n": int(n), "alpha": alpha, "lambda": lam, "loglik_ratio": float(d.sum()),
            "normalised_ratio": float(d.sum() / (sd * math.sqrt(n))) if sd > 0 else 0.0,
            "better": "power law" if d.sum() > 0 else "exponential"}


def clustering(A):
    """Clustering of the unweighted graph A (bool/0-1, symmetric, zero
    diagonal): (mean local clustering over units of degree >= 2,
    transitivity = 3 triangles / connected triples)."""
    Af = A.astype(np.float32)
    k = Af.sum(axis=1).astype(np.float64)
    tri2 = ((Af @ Af) * Af).sum(axis=1).astype(np.float64)  # 2 x triangles at each unit
    pairs = k * (k - 1)
    ok = pairs > 0
    local = float((tri2[ok] / pairs[ok]).mean()) if ok.any() else 0.0
    trans = float(tri2.sum() / pairs.sum()) if pairs.sum() > 0 else 0.0
    return local, trans


def label_propagation(W, seed=0, sweeps=50):
    """Communities by weighted label propagation: every unit starts with its
    own label; in sweeps over the units in a fixed random order (seeded) each
    takes the label with the most edge weight among its neighbours (ties: the
    smallest label); stops when a sweep changes nothing. Isolated units keep
    their own label. Returns int64 labels renumbered 0.. in order of first
    appearance."""
    n = W.shape[0]
    lab = np.arange(n)
    order = np.random.default_rng(seed).permutation(n)
    nbrs = [np.nonzero(W[i])[0] for i in range(n)]
    for _ in range(sweeps):
        changed = False
        for i in order:
            nb = nbrs[i]
            if nb.size == 0:
                continue
            ls, inv = np.unique(lab[nb], return_inverse=True)
            score = np.bincount(inv.reshape(-1), weights=W[i, nb], minlength=ls.size)
            best = ls[np.flatnonzero(score == score.max())[0]]
            if best != lab[i]:
                lab[i] = best
                changed = True
        if not changed:
            break
    return np.unique(lab, return_inverse=True)[1].reshape(-1).astype(np.int64)


def components(A):
    """Connected components of A: int64 label per unit."""
    n = A.shape[0]
    lab = np.full(n, -1, dtype=np.int64)
    c = 0
    for s in range(n):
        if lab[s] >= 0:
            continue
        lab[s] = c
        stack = [s]
        while stack:
            v = stack.pop()
            for w in np.nonzero(A[v])[0]:
                if lab[w] < 0:
                    lab[w] = c
                    stack.append(w)
        c += 1
    return lab


def modularity(W, lab):
    """Newman modularity Q of partition lab on weights W."""
    two_m = W.sum()
    if two_m <= 0:
        return 0.0
    k = W.sum(axis=1)
    q = 0.0
    for c in np.unique(lab):
        s = lab == c
        q += W[np.ix_(s, s)].sum() / two_m - (k[s].sum() / two_m) ** 2
    return float(q)


def nmi(a, b):
    """Normalised mutual information (arithmetic mean of the entropies) of
    two labelings; 1 when both are a single label."""
    _, a = np.unique(a, return_inverse=True)
    _, b = np.unique(b, return_inverse=True)
    a, b = a.reshape(-1), b.reshape(-1)
    n = a.size
    if n == 0:
        return 0.0
    joint = np.zeros((a.max() + 1, b.max() + 1))
    np.add.at(joint, (a, b), 1.0)
    p = joint / n
    pa, pb = p.sum(axis=1), p.sum(axis=0)
    nz = p > 0
    mi = float((p[nz] * np.log(p[nz] / (pa[:, None] * pb[None, :])[nz])).sum())
    ha = -float((pa[pa > 0] * np.log(pa[pa > 0])).sum())
    hb = -float((pb[pb > 0] * np.log(pb[pb > 0])).sum())
    if ha + hb == 0:
        return 1.0
    return 2 * mi / (ha + hb)


def busiest(place, end_ns, width_ns):
    """The window [t0, t1) of width_ns, aligned to multiples of it, holding
    the most GPU-time, and the GPU-seconds held in each such window."""
    edges = np.arange(0, end_ns + width_ns, width_ns, dtype=np.int64)
    if edges.size < 2:
        edges = np.array([0, max(end_ns, 1)], dtype=np.int64)
    gs = held_integral(place, edges)
    k = int(np.argmax(gs))
    return (int(edges[k]), int(min(edges[k + 1], max(end_ns, edges[k] + 1)))), gs


def graph_report(place, nodes, window=None):
    """The communication graph section (a dict), over the whole run or the
    window (t0, t1) ns."""
    unit = "node" if len(nodes) <= DENSE_NODES else "rack"
    W, upod, urack = comm_graph(place, nodes, unit, window)
    A = W > 0
    deg = A.sum(axis=1)
    strength = W.sum(axis=1)
    active = deg > 0
    local, trans = clustering(A)
    comm = label_propagation(W)
    comp = components(A)
    sub = active
    ncomm = int(np.unique(comm[sub]).size) if sub.any() else 0
    sizes = np.bincount(np.unique(comm[sub], return_inverse=True)[1].reshape(-1)) if sub.any() else np.zeros(0)
    purity = 0.0
    if sub.any():
        good = 0
        for c in np.unique(comm[sub]):
            s = sub & (comm == c)
            good += np.bincount(upod[s]).max()
        purity = good / sub.sum()
    iu = np.triu_indices(W.shape[0], 1)
    w_all = W[iu].sum()
    same_pod = (upod[:, None] == upod[None, :])[iu]
    same_rack = ((urack[:, None] == urack[None, :]) & (upod[:, None] == upod[None, :]))[iu]
    return {
        "window_h": None if window is None else [window[0] / 3600e9, window[1] / 3600e9],
        "unit": unit, "units": int(W.shape[0]), "edges": int(A[iu].sum()),
        "weight": "GPU-pair-seconds co-scheduled (the trace carries no per-job bytes)",
        "total_weight": float(w_all),
        "units_with_edges": int(active.sum()),
        "degree": {"mean": float(deg.mean()) if deg.size else 0.0, "median": float(np.median(deg)) if deg.size else 0.0,
                   "max": int(deg.max()) if deg.size else 0,
                   "mean_nonzero": float(deg[active].mean()) if active.any() else 0.0,
                   "p90": float(np.percentile(deg, 90)) if deg.size else 0.0},
        "strength": {"mean": float(strength.mean()) if strength.size else 0.0,
                     "max": float(strength.max()) if strength.size else 0.0},
        "degree_tail": degree_tail(deg),
        "clustering_mean_local": local, "transitivity": trans,
        "communities": {"method": "weighted label propagation (seed 0)", "count": ncomm,
                        "largest": int(sizes.max()) if sizes.size else 0,
                        "components": int(np.unique(comp[sub]).size) if sub.any() else 0,
                        "modularity": modularity(W, comm), "modularity_pods": modularity(W, upod),
                        "nmi_pod": nmi(comm[sub], upod[sub]) if sub.any() else 0.0,
                        "nmi_rack": nmi(comm[sub], urack[sub] * (urack.max() + 1) + upod[sub]) if sub.any() else 0.0,
                        "pod_purity": float(purity)},
        "weight_within_pod": float(W[iu][same_pod].sum() / w_all) if w_all > 0 else 0.0,
        "weight_within_rack": float(W[iu][same_rack].sum() / w_all) if w_all > 0 else 0.0,
    }


# ---------------------------------------------------------------- entropy

def shannon(counts):
    """Shannon entropy in bits of each row of counts (any non-negative
    numbers; a row of zeros has entropy 0)."""
    c = np.atleast_2d(np.asarray(counts, dtype=float))
    tot = c.sum(axis=1, keepdims=True)
    p = np.divide(c, tot, out=np.zeros_like(c), where=tot > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.where(p > 0, np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return np.maximum(-(p * lp).sum(axis=1), 0.0) + 0.0  # + 0.0: no -0.0


def state_counts(place, jobs, incidents, gpus, times):
    """GPUs in each state of STATE_NAMES at each time: float [len(times), 6].
    Busy by the size class of the job (jobs.gpus) holding them (placement);
    down: gpus_lost of `down` incidents in force (start <= t < end, end -1 =
    not repaired); idle: the rest (not below 0)."""
    times = np.asarray(times, dtype=np.int64)
    out = np.zeros((len(times), len(STATE_NAMES)))
    if len(place):
        e = _placement.per_node_held(place)
        size = jobs["gpus"].astype(np.int64)[e["job"]]
        cls = 1 + np.searchsorted(np.array(SIZE_CLASSES), size, side="left")
        # held at times[i] when start <= times[i] < end
        d = np.zeros((len(times) + 1, len(STATE_NAMES)))
        np.add.at(d, (np.searchsorted(times, e["start"], side="left"), cls), e["gpus"])
        np.add.at(d, (np.searchsorted(times, e["end"], side="left"), cls), -e["gpus"])
        out += np.cumsum(d, axis=0)[:-1]
    if incidents is not None and len(incidents):
        down = incidents[incidents["kind"].astype(np.int64) == KIND_DOWN]
        st = down["start"].astype(np.int64)
        en = down["end"].astype(np.int64)
        en = np.where(en < 0, np.iinfo(np.int64).max, en)
        g = down["gpus_lost"].astype(np.float64)
        d = np.zeros(len(times) + 1)
        np.add.at(d, np.searchsorted(times, st, side="left"), g)
        np.add.at(d, np.searchsorted(times, en, side="left"), -g)
        out[:, 5] = np.cumsum(d)[:-1]
    busy = out[:, 1:5].sum(axis=1)
    out[:, 5] = np.minimum(out[:, 5], np.maximum(gpus - busy, 0))
    out[:, 0] = np.maximum(gpus - busy - out[:, 5], 0)
    return out


def entropy_report(place, jobs, incidents, gpus, times):
    if len(times) == 0:
        return None
    c = state_counts(place, jobs, incidents, gpus, times)
    h = shannon(c)
    frac = c.mean(axis=0) / max(gpus, 1)
    return {"states": list(STATE_NAMES), "bits_max": math.log2(len(STATE_NAMES)), "samples": int(len(times)),
            "mean": float(h.mean()), "min": float(h.min()), "max": float(h.max()), "std": float(h.std()),
            "time_of_max_h": float(times[int(h.argmax())] / 3600e9),
            "mean_state_fraction": {n: float(f) for n, f in zip(STATE_NAMES, frac)}}


# ---------------------------------------------------------------- periodicity

def autocorrelation(x):
    """Normalised autocorrelation of x (mean removed), lags 0..len-1
    (biased estimator: divided by the lag-0 sum); zeros for a constant x."""
    x = np.asarray(x, dtype=float)
    x = x - x.mean()
    n = x.size
    if n == 0 or not np.any(x):
        return np.zeros(n)
    f = np.fft.rfft(x, 2 * n)
    r = np.fft.irfft(f * np.conj(f))[:n]
    return r / r[0]


def dominant_period(x, dt):
    """The dominant period of x sampled every dt (any unit): the frequency of
    the largest power of the spectrum of x with its mean and linear trend
    removed, f = 0 excluded. Returns (period in dt's unit, power there / the
    median power) or (None, 0) for fewer than 4 samples or a flat series."""
    x = np.asarray(x, dtype=float)
    n = x.size
    if n < 4:
        return None, 0.0
    t = np.arange(n)
    x = x - np.polyval(np.polyfit(t, x, 1), t)
    p = np.abs(np.fft.rfft(x)) ** 2
    f = np.fft.rfftfreq(n, dt)
    if p[1:].max() <= 0:
        return None, 0.0
    k = 1 + int(np.argmax(p[1:]))
    med = float(np.median(p[1:]))
    return 1.0 / f[k], float(p[k] / med) if med > 0 else float("inf")


def periodicity_report(ts, gpus):
    if len(ts) < 4 or gpus <= 0:
        return None
    t = ts["time"].astype(np.int64)
    dt_h = float(np.median(np.diff(t))) / 3600e9
    u = ts["allocated_gpus"].astype(float) / gpus
    acf = autocorrelation(u)
    period, prom = dominant_period(u, dt_h)
    lag = int(round(period / dt_h)) if period else 0
    out = {"samples": int(len(u)), "interval_h": dt_h, "span_h": float((t[-1] - t[0]) / 3600e9),
           "utilization_mean": float(u.mean()), "utilization_std": float(u.std()),
           "dominant_period_h": period, "peak_over_median_power": prom,
           "acf_at_period": float(acf[lag]) if 0 < lag < acf.size else None, "acf": {}}
    for name, hours in (("1 sample", dt_h), ("24 h", 24.0), ("168 h", 168.0)):
        k = int(round(hours / dt_h)) if dt_h > 0 else 0
        if 0 < k < acf.size and abs(k * dt_h - hours) < 1e-6 * max(hours, 1):
            out["acf"][name] = float(acf[k])
    out["periodic"] = bool(period and out["acf_at_period"] is not None and out["acf_at_period"] >= 0.3
                           and out["span_h"] >= 2 * period)
    return out


# ---------------------------------------------------------------- per-GPU spread

def held_integral(place, edges):
    """GPU-seconds held in each interval [edges[k], edges[k+1]) (ns)."""
    if len(place) == 0:
        return np.zeros(len(edges) - 1)
    e = _placement.per_node_held(place)
    st, en, g = e["start"].astype(float), e["end"].astype(float), e["gpus"].astype(float)
    ed = np.asarray(edges, dtype=float)
    # integral of held GPUs up to each edge: sum g * clip(edge - start, 0, end - start)
    tot = np.zeros(ed.size)
    for lo in range(0, st.size, 4096):
        s, n, w = st[lo:lo + 4096], en[lo:lo + 4096], g[lo:lo + 4096]
        tot += (w[None, :] * np.clip(ed[:, None] - s[None, :], 0, (n - s)[None, :])).sum(axis=1)
    return np.diff(tot) / NS


def per_gpu_busy(place, nodes, t0, t1):
    """Fraction of [t0, t1) (ns) each GPU was held: float [GPUs] in the
    cluster's GPU order (nodes.first_gpu + GPU within the node)."""
    ng = nodes["gpus"].astype(np.int64)
    first = np.concatenate([[0], np.cumsum(ng)[:-1]])
    out = np.zeros(int(ng.sum()) + 1)
    if len(place) and t1 > t0:
        e = _placement.per_node_held(place)
        ov = np.clip(np.minimum(e["end"], t1) - np.maximum(e["start"], t0), 0, None) / float(t1 - t0)
        a = first[e["node"]] + e["gpu"]
        np.add.at(out, a, ov)
        np.add.at(out, a + e["gpus"], -ov)
    return np.cumsum(out)[:-1]


def spread_report(place, nodes, end_ns):
    if len(place) == 0 or end_ns <= 0:
        return None
    (t0, t1), gs = busiest(place, end_ns, 3600 * 10**9)
    k = int(t0 // (3600 * 10**9))
    u = per_gpu_busy(place, nodes, t0, t1)
    return {"busiest_hour_start_h": t0 / 3600e9, "mean_allocated_gpus": float(gs[k] / ((t1 - t0) / NS)),
            "per_gpu_util_mean": float(u.mean()), "per_gpu_util_std": float(u.std()),
            "gpus_fully_busy": float((u >= 1 - 1e-9).mean()), "gpus_idle": float((u <= 1e-9).mean()),
            "paper": {"sci_std": 0.042, "predicted_without_sci": 0.15}}


# ---------------------------------------------------------------- Ising

def bin_centers(end_ns, bins):
    """The centres of `bins` equal bins over [0, end_ns) (int64 ns)."""
    w = end_ns / bins
    return ((np.arange(bins) + 0.5) * w).astype(np.int64)


def spins(place, nodes, times):
    """s[t, g] = +1 when GPU g (cluster order) is held by a job at times[t],
    -1 otherwise: int8 [len(times), GPUs]."""
    ng = nodes["gpus"].astype(np.int64)
    first = np.concatenate([[0], np.cumsum(ng)[:-1]])
    N = int(ng.sum())
    d = np.zeros((len(times) + 1, N + 1), dtype=np.int32)
    if len(place):
        e = _placement.per_node(place)
        a = first[e["node"]] + e["gpu"]
        b = a + e["gpus"]
        i0 = np.searchsorted(times, e["start"], side="left")
        i1 = np.searchsorted(times, e["end"], side="left")
        np.add.at(d, (i0, a), 1)
        np.add.at(d, (i0, b), -1)
        np.add.at(d, (i1, a), -1)
        np.add.at(d, (i1, b), 1)
    held = np.cumsum(np.cumsum(d, axis=0), axis=1)[:-1, :-1]
    return np.where(held > 0, 1, -1).astype(np.int8)


def order_parameter(s):
    """m(t) = mean over spins of s[t, :], <m>, <|m|> and chi = N var_t(m)
    for spins s [T, N] of +-1."""
    s = np.asarray(s, dtype=float)
    m = s.mean(axis=1)
    N = s.shape[1]
    return {"m_t": m, "m": float(m.mean()), "abs_m": float(np.abs(m).mean()), "chi": float(N * m.var())}


def _groups(nodes):
    """Per GPU (cluster order): its node, its (pod, rack) group and its pod."""
    ng = nodes["gpus"].astype(np.int64)
    node = np.repeat(np.arange(len(nodes)), ng)
    pod = nodes["pod"].astype(np.int64)
    rack = nodes["rack"].astype(np.int64)
    rp = np.unique(np.stack([pod, rack]), axis=1, return_inverse=True)[1].reshape(-1)
    return node, rp[node], pod[node]


CLASSES = ("same node", "same rack", "same pod", "other pod")


def correlations(s, nodes):
    """Connected correlation C = <s_i s_j> - <s_i><s_j> averaged over the
    ordered pairs i != j of each distance class of CLASSES (time averages
    over the rows of s). Returns {class: (C, pairs)}."""
    s = np.asarray(s, dtype=float)
    T, N = s.shape
    mi = s.mean(axis=0)
    levels = [np.arange(N)] + list(_groups(nodes)) + [np.zeros(N, dtype=np.int64)]
    A, B, K = [], [], []
    for g in levels:
        G = int(g.max()) + 1 if g.size else 0
        S = np.zeros((T, G))
        for lo in range(0, T, 64):
            np.add.at(S[lo:lo + 64].T, g, s[lo:lo + 64].T)
        A.append(float((S ** 2).sum(axis=1).mean()))
        B.append(float((np.bincount(g, weights=mi, minlength=G) ** 2).sum()))
        K.append(float((np.bincount(g, minlength=G).astype(float) ** 2).sum()))
    out = {}
    for c, name in enumerate(CLASSES):
        pairs = K[c + 1] - K[c]
        out[name] = ((A[c + 1] - A[c] - (B[c + 1] - B[c])) / pairs if pairs > 0 else None, int(pairs))
    return out


def features(s, nodes):
    """Per (t, GPU): the mean spin of the other GPUs of each class of CLASSES
    (0 where a class is empty): float32 [T, N, 4]."""
    s = np.asarray(s, dtype=np.float32)
    T, N = s.shape
    node, rp, pod = _groups(nodes)
    sums, cnts = [s], [np.ones(N, dtype=np.float32)]
    for g in (node, rp, pod, np.zeros(N, dtype=np.int64)):
        G = int(g.max()) + 1
        S = np.zeros((T, G), dtype=np.float32)
        np.add.at(S.T, g, s.T)
        sums.append(S[:, g])
        cnts.append(np.bincount(g, minlength=G).astype(np.float32)[g])
    f = np.zeros((T, N, 4), dtype=np.float32)
    for c in range(4):
        n = cnts[c + 1] - cnts[c]
        f[:, :, c] = np.where(n > 0, (sums[c + 1] - sums[c]) / np.where(n > 0, n, 1), 0)
    return f


def pseudo_likelihood(s, f, rows=FIT_ROWS, ridge=1e-3, iters=30):
    """Fit H = -sum_c J_c sum_{(i,j) in c} s_i s_j / n_ic - h sum_i s_i by
    maximum pseudo-likelihood: P(s_i | rest) = exp(s_i H_i) / 2cosh(H_i),
    H_i = h + sum_c J_c f_ic (f: features()), i.e. a logistic regression of
    (s_i + 1)/2 on 2 H_i, by Newton's method with a small ridge. At most
    `rows` (t, i) rows, drawn evenly. Returns (h, J [4], mean log pseudo-likelihood)."""
    y = (np.asarray(s).reshape(-1) > 0).astype(np.float64)
    X = f.reshape(-1, f.shape[-1])
    if y.size > rows:
        pick = np.linspace(0, y.size - 1, rows).astype(np.int64)
        y, X = y[pick], X[pick]
    X = np.concatenate([np.ones((y.size, 1)), X.astype(np.float64)], axis=1)
    beta = np.zeros(X.shape[1])
    lam = ridge * y.size
    for _ in range(iters):
        z = X @ beta
        p = 1 / (1 + np.exp(-z))
        g = X.T @ (y - p) - lam * beta
        Hs = (X * (p * (1 - p))[:, None]).T @ X + lam * np.eye(X.shape[1])
        step = np.linalg.solve(Hs, g)
        beta += step
        if np.abs(step).max() < 1e-8:
            break
    z = X @ beta
    ll = float(np.mean(y * z - np.logaddexp(0, z)))
    theta = beta / 2
    return float(theta[0]), theta[1:], ll


def ising_report(place, nodes, end_ns, bins):
    if len(place) == 0 or end_ns <= 0:
        return None
    times = bin_centers(end_ns, bins)
    s = spins(place, nodes, times)
    N = s.shape[1]
    op = order_parameter(s)
    corr = correlations(s, nodes)
    f = features(s, nodes)
    h, J, ll = pseudo_likelihood(s, f)
    mi = s.mean(axis=0, dtype=np.float64)
    h_indep = np.arctanh(np.clip(mi, -1 + 1e-6, 1 - 1e-6))
    h_mf = h_indep - f.mean(axis=0, dtype=np.float64) @ J
    # flips per second: a proxy for the interactions per second of the paper's section 4.1
    flips = float(np.abs(np.diff(s.astype(np.int16), axis=0)).sum() / 2 / (end_ns / NS)) if len(times) > 1 else 0.0
    del f
    return {"bins": int(bins), "bin_s": end_ns / NS / bins, "gpus": int(N),
            "m": op["m"], "abs_m": op["abs_m"], "chi": op["chi"], "m_std": float(op["m_t"].std()),
            "correlations": {k: {"C": v[0], "pairs": v[1]} for k, v in corr.items()},
            "fit": {"method": "pseudo-likelihood, couplings by distance class", "h": h,
                    "J": {c: float(j) for c, j in zip(CLASSES, J)}, "mean_log_pl": ll},
            "h_i": {"independent_mean": float(h_indep.mean()), "independent_std": float(h_indep.std()),
                    "mean_field_mean": float(h_mf.mean()), "mean_field_std": float(h_mf.std())},
            "spin_flips_per_s": flips}


# ---------------------------------------------------------------- sweep

def offered_load(jobs, gpus, end_ns):
    """Requested GPU-time of the submitted jobs with a known duration over
    GPUs x run length: sum gpus * duration / (GPUs * end)."""
    st = jobs["status"].astype(np.int64)
    ok = (st != _placement.STATUS_NOT_SUBMITTED) & (jobs["duration"].astype(np.int64) > 0)
    demand = (jobs["gpus"].astype(float)[ok] * jobs["duration"].astype(float)[ok]).sum()
    return float(demand / (gpus * end_ns)) if gpus > 0 and end_ns > 0 else 0.0


def find_peak(x, chi):
    """Whether chi (against x, sorted by x) peaks inside the range: its
    maximum is neither end and at least 1.5 x the larger end (so never
    with fewer than 3 points). Returns (bool, x at the maximum; None when
    x is empty)."""
    if len(x) == 0:
        return False, None
    o = np.argsort(x)
    c = np.asarray(chi, dtype=float)[o]
    k = int(np.argmax(c))
    return bool(0 < k < len(c) - 1 and c[k] >= 1.5 * max(c[0], c[-1])), float(np.asarray(x, dtype=float)[o][k])


def sweep_report(rows):
    loads = [r["offered_load"] for r in rows]
    sizes = sorted({r["gpus"] for r in rows})
    out = {"rows": rows}
    for r in rows:  # chi over that of independent spins with the same <m>: 1 - <m>^2
        m = r.get("m")
        r["chi_rel"] = r["chi"] / (1 - m * m) if m is not None and 1 - m * m > 1e-9 else None
    for key, name in (("chi", ""), ("chi_rel", "_rel")):
        if any(r[key] is None for r in rows):
            continue
        if len(sizes) == 1:
            peak, at = find_peak(loads, [r[key] for r in rows])
            out["peak_in_load" + name] = peak
            out["chi_max_at_load" + name] = at
        else:
            per = [max(r[key] for r in rows if r["gpus"] == n) for n in sizes]
            peak, at = find_peak(sizes, per)
            out["peak_in_size" + name] = peak
            out["chi_max_at_gpus" + name] = at
            out["near_1000_gpus" + name] = bool(peak and 500 <= at <= 2000)
    return out


# ---------------------------------------------------------------- reading

def read_trace(path):
    """The tables analyze needs, as numpy arrays. Raises Bad naming path."""
    import h5py
    if not os.path.exists(path):
        raise Bad(f"{path}: no such file")
    if os.path.isdir(path):
        raise Bad(f"{path}: is a directory")
    try:
        with h5py.File(path, "r") as f:
            v = f.attrs.get("schema_version", b"")
            v = v.decode() if isinstance(v, bytes) else str(v)
            if not v or v.split(".")[0] != "1":
                raise Bad(f"{path}: not a wanka trace of schema 1.x (schema_version '{v}')")
            if "timeseries/cluster" not in f or "jobs" not in f:
                raise Bad(f"{path}: no table 'jobs' or 'timeseries/cluster'")
            t = {"path": path, "gpus": int(f.attrs.get("gpus", 0)), "jobs": f["jobs"][:],
                 "ts": f["timeseries/cluster"][:], "schema": v,
                 "scheduler": str(f.attrs.get("scheduler", b"").decode() if isinstance(f.attrs.get("scheduler"), bytes)
                                  else f.attrs.get("scheduler", "")),
                 "seed": int(f.attrs.get("seed", 0))}
            for k in ("placement", "nodes", "incidents"):
                t[k] = f[k][:] if k in f else None
            sim = f["summary"].attrs.get("simulated_s") if "summary" in f else None
    except Bad:
        raise
    except (OSError, KeyError, ValueError, TypeError) as e:
        raise Bad(f"{path}: cannot read as a wanka trace: {e}") from None
    end = 0
    if len(t["ts"]):
        end = int(t["ts"]["time"].max())
    if sim is not None and np.isfinite(sim):
        end = max(end, int(float(sim) * NS))
    if t["placement"] is not None and len(t["placement"]):
        end = max(end, int(t["placement"]["end"].max()))
    t["end"] = end
    if t["gpus"] <= 0:
        raise Bad(f"{path}: root attribute gpus is missing or not positive")
    return t


def analyze(t, bins, full=True):
    has_place = t["placement"] is not None and t["nodes"] is not None
    place = t["placement"] if has_place else np.zeros(0)
    r = {"trace": t["path"], "scheduler": t["scheduler"], "seed": t["seed"], "gpus": t["gpus"],
         "schema": t["schema"], "run_h": t["end"] / 3600e9,
         "offered_load": offered_load(t["jobs"], t["gpus"], t["end"]), "paper": PAPER}
    if not has_place:
        r["note"] = "no placement table (schema 1.6 on): graph, spread, Ising and state entropy unavailable"
    if full:
        r["graph"] = graph_report(place, t["nodes"]) if has_place else None
        r["graph_busiest_day"] = graph_report(place, t["nodes"], busiest(place, t["end"], 86400 * 10**9)[0]) \
            if has_place and t["end"] > 0 and len(place) else None
        r["entropy"] = entropy_report(place, t["jobs"], t["incidents"], t["gpus"],
                                      t["ts"]["time"].astype(np.int64)) if has_place else None
        r["periodicity"] = periodicity_report(t["ts"], t["gpus"])
        r["spread"] = spread_report(place, t["nodes"], t["end"]) if has_place else None
    r["ising"] = ising_report(place, t["nodes"], t["end"], bins) if has_place else None
    return r


# ---------------------------------------------------------------- output

def _f(v, fmt="{:.4g}"):
    return "—" if v is None else fmt.format(v)


def text(r, sweep):
    L = [f"trace {r['trace']}  scheduler {r['scheduler']}  seed {r['seed']}  GPUs {r['gpus']}  "
         f"run {r['run_h']:.1f} h  offered load {r['offered_load']:.3f}"]
    if r.get("note"):
        L.append(f"note: {r['note']}")
    for key, title in (("graph", "whole run"), ("graph_busiest_day", "busiest day")):
        g = r.get(key)
        if not g:
            continue
        d, c = g["degree"], g["communities"]
        when = title if g["window_h"] is None else f"{title}, {g['window_h'][0]:.0f}-{g['window_h'][1]:.0f} h"
        L += ["", f"communication graph (§2.3, {when}): units = {g['unit']}s, edge weight = {g['weight']}",
              f"  units {g['units']}  with edges {g['units_with_edges']}  edges {g['edges']}",
              f"  degree mean {d['mean']:.2f}  median {d['median']:.0f}  p90 {d['p90']:.0f}  max {d['max']}",
              f"  clustering: mean local {g['clustering_mean_local']:.3f}  transitivity {g['transitivity']:.3f}"]
        tl = g["degree_tail"]
        if tl:
            L.append(f"  degree tail (>= {tl['xmin']:.0f}, {tl['n']} units): power law alpha {tl['alpha']:.2f} vs "
                     f"exponential lambda {tl['lambda']:.3g}: log-likelihood ratio {tl['loglik_ratio']:.1f} "
                     f"(normalised {tl['normalised_ratio']:.2f}): {tl['better']} fits better")
        L += [f"  communities ({c['method']}): {c['count']}, largest {c['largest']} units; "
              f"connected components {c['components']}",
              f"  modularity {c['modularity']:.3f} (pods as the partition: {c['modularity_pods']:.3f}); "
              f"NMI with pods {c['nmi_pod']:.3f}, racks {c['nmi_rack']:.3f}; pod purity {c['pod_purity']:.3f}",
              f"  edge weight within a pod {g['weight_within_pod']:.3f}, within a rack {g['weight_within_rack']:.3f}"]
    e = r.get("entropy")
    if e:
        L += ["", f"entropy of the cluster state (§2.3): states {', '.join(e['states'])} "
              f"(max {e['bits_max']:.3f} bits)",
              f"  {e['samples']} samples: mean {e['mean']:.3f} bits  min {e['min']:.3f}  max {e['max']:.3f}  "
              f"std {e['std']:.3f}",
              "  mean fraction: " + ", ".join(f"{k} {v:.3f}" for k, v in e["mean_state_fraction"].items())]
    p = r.get("periodicity")
    if p:
        acf = ", ".join(f"{k} {v:.3f}" for k, v in p["acf"].items())
        L += ["", f"periodicity of utilization (§2.3): {p['samples']} samples every {p['interval_h']:.3g} h, "
              f"mean {p['utilization_mean']:.3f} std {p['utilization_std']:.3f}",
              f"  dominant period {_f(p['dominant_period_h'], '{:.1f}')} h (power {p['peak_over_median_power']:.1f} x "
              f"median), autocorrelation there {_f(p['acf_at_period'], '{:.3f}')}: "
              f"{'periodic' if p['periodic'] else 'no clear period'}",
              f"  autocorrelation: {acf or '—'}"]
    s = r.get("spread")
    if s:
        L += ["", f"per-GPU utilization at the busiest hour (§3.1; from {s['busiest_hour_start_h']:.0f} h): "
              f"mean {s['per_gpu_util_mean']:.3f}  std {s['per_gpu_util_std']:.3f}  "
              f"(paper: {s['paper']['sci_std']} with SCI, {s['paper']['predicted_without_sci']} predicted without)",
              f"  GPUs busy the whole hour {s['gpus_fully_busy']:.3f}, idle all of it {s['gpus_idle']:.3f}"]
    i = r.get("ising")
    if i:
        L += ["", f"Ising-style model (§4.2): s = +1 held / -1 idle, {i['gpus']} GPUs x {i['bins']} bins "
              f"of {i['bin_s'] / 3600:.3g} h",
              f"  order parameter <m> {i['m']:.4f}  <|m|> {i['abs_m']:.4f}  std(m) {i['m_std']:.4f}  "
              f"susceptibility chi = N var(m) {i['chi']:.4g}",
              "  connected correlation C by distance: " + ", ".join(
                  f"{k} {_f(v['C'], '{:.4f}')}" for k, v in i["correlations"].items()),
              f"  fit ({i['fit']['method']}): h {i['fit']['h']:.4f}; J " + ", ".join(
                  f"{k} {v:.4f}" for k, v in i["fit"]["J"].items()) + f"; mean log PL {i['fit']['mean_log_pl']:.4f}",
              f"  h_i from load: independent spins mean {i['h_i']['independent_mean']:.3f} std "
              f"{i['h_i']['independent_std']:.3f}; mean field mean {i['h_i']['mean_field_mean']:.3f} std "
              f"{i['h_i']['mean_field_std']:.3f}",
              f"  spin flips per second {i['spin_flips_per_s']:.4g} (paper §4.1: threshold ~1e6 interactions/s, "
              f"~1,000 GPUs)"]
    if sweep:
        L += ["", "sweep: m and chi against offered load (§4.2)",
              f"  {'trace':40s} {'GPUs':>6s} {'load':>7s} {'<m>':>8s} {'chi':>10s} {'chi rel':>10s} {'J node':>8s} "
              f"{'J rack':>8s}"]
        for row in sorted(sweep["rows"], key=lambda x: (x["gpus"], x["offered_load"])):
            L.append(f"  {os.path.basename(row['trace'])[:40]:40s} {row['gpus']:6d} {row['offered_load']:7.3f} "
                     f"{_f(row['m'], '{:8.4f}')} {_f(row['chi'], '{:10.4g}')} {_f(row['chi_rel'], '{:10.4g}')} "
                     f"{_f(row['J_node'], '{:8.3f}')} "
                     f"{_f(row['J_rack'], '{:8.3f}')}")
        for name, what in (("", "chi"), ("_rel", "chi / (1 - <m>^2), chi over independent spins of the same <m>")):
            if "peak_in_load" + name in sweep:
                at = sweep["chi_max_at_load" + name]
                L.append(f"  {what}: " + (f"peaks inside the sweep at load {at:.3f}" if sweep["peak_in_load" + name]
                                           else f"no clear interior peak against load (largest at load "
                                                f"{_f(at, '{:.3f}')}; "
                                                "a peak needs 1.5 x both ends)"))
            elif "peak_in_size" + name in sweep:
                at = sweep["chi_max_at_gpus" + name]
                L.append(f"  {what}: " + ((f"peaks inside the sweep at {at:.0f} GPUs" +
                                           (" (near the paper's ~1,000)" if sweep["near_1000_gpus" + name]
                                            else " (not near the paper's ~1,000)")) if sweep["peak_in_size" + name]
                                          else f"no clear interior peak against cluster size (largest at "
                                               f"{_f(at, '{:.0f}')} GPUs)"))
        L.append("  (a bounded m varies most near <m> = 0, utilization 1/2: a peak of chi alone there is not a "
                 "phase transition)")
    return "\n".join(L) + "\n"


def _jsonable(o):
    if isinstance(o, dict):
        return {k: _jsonable(v) for k, v in o.items() if k != "m_t"}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, (np.floating, float)):
        return float(o) if np.isfinite(o) else None
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.ndarray):
        return _jsonable(o.tolist())
    return o


def parse(argv):
    opts = {"json": False, "bins": ISING_BINS, "traces": [], "sweep": []}
    i, target = 0, "traces"
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            sys.stdout.write(USAGE)
            sys.exit(0)
        elif a == "--json":
            opts["json"] = True
        elif a == "--sweep":
            target = "sweep"
        elif a == "--bins" or a.startswith("--bins="):
            v = a.split("=", 1)[1] if "=" in a else (argv[i + 1] if i + 1 < len(argv) else None)
            if "=" not in a:
                i += 1
            try:
                opts["bins"] = int(v)
            except (TypeError, ValueError):
                raise Bad(f"--bins {v}: not a whole number") from None
            if not 10 <= opts["bins"] <= 5000:
                raise Bad(f"--bins {v}: out of range 10..5000")
        elif a.startswith("-") and a != "-":
            raise Bad(f"unknown option {a} (see wanka analyze --help)")
        else:
            opts[target].append(a)
        i += 1
    if len(opts["traces"]) != 1:
        raise Bad("give one TRACE.h5 (further traces after --sweep)" if opts["traces"]
                  else "missing TRACE.h5 (see wanka analyze --help)")
    if target == "sweep" and not opts["sweep"]:
        raise Bad("--sweep: no traces after it")
    return opts


def main(argv):
    try:
        opts = parse(argv)
        first = read_trace(opts["traces"][0])
        others = [read_trace(p) for p in opts["sweep"]]
    except Bad as e:
        sys.stderr.write(f"{PROG}: {e}\n")
        return 2
    r = analyze(first, opts["bins"])
    sweep = None
    if others:
        rows = []
        for t, a in [(first, r)] + [(o, analyze(o, opts["bins"], full=False)) for o in others]:
            i = a.get("ising") or {}
            J = (i.get("fit") or {}).get("J", {})
            rows.append({"trace": t["path"], "gpus": t["gpus"], "offered_load": a["offered_load"],
                         "m": i.get("m"), "chi": i.get("chi") if i else 0.0, "J_node": J.get("same node"),
                         "J_rack": J.get("same rack"), "spin_flips_per_s": i.get("spin_flips_per_s")})
        sweep = sweep_report(rows)
        r["sweep"] = sweep
    if opts["json"]:
        sys.stdout.write(json.dumps(_jsonable(r), indent=1) + "\n")
    else:
        sys.stdout.write(text(r, sweep))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        sys.exit(1)
