# SPDX-License-Identifier: Apache-2.0
"""placement — what a trace's `placement` and `nodes` tables (schema 1.6,
docs/trace-format.md) say, with numpy only: each job segment per node,
each job's locality (nodes, racks and pods spanned) and the cluster's
fragmentation over time (free GPUs that no queued job can use). Used by
wanka_trace.py (pandas), plot.py (`--what gantt`, `--what fragmentation`)
and beside them installed; docs/analysis.md "Placement" defines the
metrics.

Every function takes numpy structured arrays as h5py reads them (f["placement"][:],
f["nodes"][:], f["jobs"][:]).
"""
import numpy as np

# jobs.status values (sim/trace/schema.h WkSchemaJobStatus)
STATUS_REJECTED = 1
STATUS_NOT_SUBMITTED = 4
MAX_POINTS = 1000  # fragmentation: at most this many sample times by default


def per_node(place):
    """One entry per (placement row, node): a dict of equal-length arrays
    job, segment, start, end, node, gpu, gpus."""
    k = place["nodes"].astype(np.int64)
    rep = np.repeat(np.arange(len(place)), k)
    first = np.repeat(np.cumsum(k) - k, k)
    out = {c: place[c][rep].astype(np.int64) for c in ("job", "segment", "start", "end", "gpu", "gpus")}
    out["node"] = place["node"][rep].astype(np.int64) + (np.arange(rep.size) - first)
    return out


def per_node_held(place):
    """As per_node, for counting GPUs held: rows of several jobs on one GPU
    at once (the tenants of a shared GPU, docs/models.md "GPU sharing")
    become one row per spell of that GPU held, over the union of their
    intervals, with the first tenant's job and segment. Without such rows,
    per_node's entries unchanged."""
    e = per_node(place)
    one = np.nonzero(e["gpus"] == 1)[0]
    if one.size < 2:
        return e
    key = e["node"][one] * (int(e["gpu"][one].max()) + 1) + e["gpu"][one]
    order = np.lexsort((e["start"][one], key))
    idx, k = one[order], key[order]
    st, en = e["start"][idx], e["end"][idx]
    if not np.any((k[1:] == k[:-1]) & (st[1:] < en[:-1])):
        return e  # no GPU held by two rows at once (rows by start: an overlap shows between neighbours)
    keep = np.ones(e["job"].size, dtype=bool)
    end = e["end"].copy()
    cur, cur_key, cur_end = -1, None, 0
    for p in range(idx.size):
        if k[p] == cur_key and st[p] < cur_end:  # a tenant of the open spell
            keep[idx[p]] = False
            if en[p] > cur_end:
                cur_end = int(en[p])
                end[cur] = cur_end
        else:
            cur, cur_key, cur_end = int(idx[p]), k[p], int(en[p])
    out = {c: v[keep] for c, v in e.items()}
    out["end"] = end[keep]
    return out


def locality(place, nodes, njobs):
    """Per job (index = jobs.id, njobs of them): the most nodes, racks and
    pods any one of its segments spanned (0 for a job that never ran), and
    its segments. Returns a dict of int64 arrays nodes, racks, pods,
    segments."""
    out = {c: np.zeros(njobs, dtype=np.int64) for c in ("nodes", "racks", "pods", "segments")}
    if len(place) == 0:
        return out
    e = per_node(place)
    pod = nodes["pod"].astype(np.int64)[e["node"]]
    rack = nodes["rack"].astype(np.int64)[e["node"]]
    seg_key = e["job"] * (int(e["segment"].max()) + 1) + e["segment"]
    for col, v in (("nodes", e["node"]), ("racks", rack), ("pods", pod)):
        pairs = np.unique(np.stack([seg_key, v]), axis=1)  # distinct (segment, value)
        segs, counts = np.unique(pairs[0], return_counts=True)
        jobs = segs // (int(e["segment"].max()) + 1)
        np.maximum.at(out[col], jobs, counts)
    segs = np.unique(np.stack([e["job"], e["segment"]]), axis=1)
    np.add.at(out["segments"], segs[0], 1)
    return out


def sample_times(times, end, points=None):
    """The times fragmentation is taken at: `times` (e.g. timeseries/cluster's),
    thinned evenly to at most `points` (default MAX_POINTS); 0 .. end in
    MAX_POINTS steps when times is empty."""
    points = points or MAX_POINTS
    t = np.asarray(times, dtype=np.int64)
    if t.size == 0:
        t = np.linspace(0, max(int(end), 0), min(points, 2), dtype=np.int64)
    if t.size > points:
        t = t[np.linspace(0, t.size - 1, points).round().astype(np.int64)]
    return t


def held_per_node(place, nnodes, times):
    """GPUs held on each node at each time: an int64 array [len(times), nnodes]
    (a segment holds its GPUs at t when start <= t < end; a shared GPU
    counts once)."""
    held = np.zeros((len(times) + 1, nnodes), dtype=np.int64)
    if len(place):
        e = per_node_held(place)
        i0 = np.searchsorted(times, e["start"], side="left")
        i1 = np.searchsorted(times, e["end"], side="left")
        np.add.at(held, (i0, e["node"]), e["gpus"])
        np.add.at(held, (i1, e["node"]), -e["gpus"])
    return np.cumsum(held, axis=0)[:-1]


def waiting(jobs, place, times, end):
    """Jobs waiting to be placed at each time: submitted, not rejected, not
    finished, holding no GPUs (before their first start, between segments,
    after a stop until they complete or the run ends). Returns (sizes,
    counts): the distinct requests (jobs.gpus) of waiting jobs and an int64
    array [len(times), len(sizes)] of how many of each size wait."""
    ok = (jobs["status"].astype(np.int64) != STATUS_REJECTED) & (jobs["status"].astype(np.int64) != STATUS_NOT_SUBMITTED)
    ids = jobs["id"].astype(np.int64)[ok]
    submit = jobs["submit"].astype(np.int64)[ok]
    done = jobs["end"].astype(np.int64)[ok]
    done = np.where(done >= 0, done, max(int(end), 0) + 1)
    gpus = jobs["gpus"].astype(np.int64)[ok]
    # held intervals per job, merged over its rows (rows of a segment share start/end)
    segs = np.unique(np.stack([place["job"].astype(np.int64), place["start"].astype(np.int64),
                               place["end"].astype(np.int64)]), axis=1) if len(place) else np.zeros((3, 0), np.int64)
    # waiting = [submit, done) minus the held intervals: +1 over [submit, done), -1 over each held one
    pos = {int(j): i for i, j in enumerate(ids)}
    sizes = np.unique(gpus)
    col = {int(s): i for i, s in enumerate(sizes)}
    counts = np.zeros((len(times) + 1, len(sizes)), dtype=np.int64)
    c = np.array([col[int(g)] for g in gpus], dtype=np.int64)
    np.add.at(counts, (np.searchsorted(times, submit, side="left"), c), 1)
    np.add.at(counts, (np.searchsorted(times, done, side="left"), c), -1)
    keep = np.array([int(j) in pos for j in segs[0]], dtype=bool)
    if keep.any():
        sj = np.array([pos[int(j)] for j in segs[0][keep]], dtype=np.int64)
        sc = c[sj]
        np.add.at(counts, (np.searchsorted(times, segs[1][keep], side="left"), sc), -1)
        np.add.at(counts, (np.searchsorted(times, segs[2][keep], side="left"), sc), 1)
    return sizes, np.cumsum(counts, axis=0)[:-1]


def usable(free, node_gpus, size):
    """Boolean per node: its free GPUs could go to a job of `size` GPUs under
    node-granular gang placement, and such a job fits: fewer GPUs than a
    node take one node with that many free; a node or more take whole free
    nodes, enough of them."""
    small = (size < node_gpus) & (free >= size)
    whole = (size >= node_gpus) & (free == node_gpus)
    fits_small = small.any()
    fits_whole = node_gpus[whole].sum() >= size
    return (small if fits_small else np.zeros_like(small)) | (whole if fits_whole else np.zeros_like(whole))


def fragmentation(jobs, place, nodes, times, end):
    """The cluster's fragmentation at each of `times` (int64 ns, sorted).
    Returns a dict of int64 arrays: time, free (GPUs held by no job),
    waiting (jobs waiting to be placed), smallest (the smallest request
    among them, 0 when none) and stranded (free GPUs on nodes no waiting
    job can use: `usable`; 0 when nothing waits). GPUs down for repair are
    not in the trace's placement, so they count as free."""
    times = np.asarray(times, dtype=np.int64)
    node_gpus = nodes["gpus"].astype(np.int64)
    free = node_gpus[None, :] - held_per_node(place, len(nodes), times)
    sizes, counts = waiting(jobs, place, times, end)
    stranded = np.zeros(len(times), dtype=np.int64)
    smallest = np.zeros(len(times), dtype=np.int64)
    for i in range(len(times)):
        present = sizes[counts[i] > 0]
        if present.size == 0:
            continue
        smallest[i] = present.min()
        use = np.zeros(len(node_gpus), dtype=bool)
        for s in present:
            use |= usable(free[i], node_gpus, int(s))
        stranded[i] = free[i][~use].sum()
    return {"time": times, "free": free.sum(axis=1), "waiting": counts.sum(axis=1) if counts.size else
            np.zeros(len(times), dtype=np.int64), "smallest": smallest, "stranded": stranded}
