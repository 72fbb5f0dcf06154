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


# incidents.class values (models/fail/fail_class.h WkFailClass; 10 = event)
CLASS_BY_GPU = (0, 1, 3, 5)   # gpu, hbm, nic, link: component is a GPU (a NIC-leaf cable: its GPU's)
CLASS_BY_NODE = (2, 4, 9)     # nvswitch, node, maintenance: component is a node
CLASS_EVENT = 10              # random process or scripted incident: a GPU, node, rack or pod
KIND_DOWN = 0                 # incidents.kind `down`


def _event_nodes(comp, lost, nodes):
    """The nodes of a `down` event's unit and how many GPUs of each, in node
    order: the trace records the unit's index, not its scope, so the scope is
    the smallest of GPU, node, rack and pod whose unit `comp` exists and holds
    `lost` GPUs (a scripted `gpus:` cap takes the unit's first GPUs)."""
    gpus = nodes["gpus"].astype(np.int64)
    first = nodes["first_gpu"].astype(np.int64)
    cands = []  # (nodes of the unit, GPUs it holds)
    if comp < int(gpus.sum()):
        cands.append((np.array([np.searchsorted(first, comp, side="right") - 1]), 1))
    if comp < len(nodes):
        cands.append((np.array([comp]), int(gpus[comp])))
    for col in ("rack", "pod"):
        members = np.nonzero(nodes[col].astype(np.int64) == comp)[0]
        if members.size:
            cands.append((members, int(gpus[members].sum())))
    for members, size in cands:
        if size >= lost:
            before = np.cumsum(gpus[members]) - gpus[members]
            return members, np.minimum(gpus[members], np.maximum(lost - before, 0))
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)


def down_per_node(incidents, nodes, times):
    """GPUs down for repair on each node at each time, from the `down`
    incidents in force (start <= t < end; end -1: not repaired by the end):
    an int64 array [len(times), nnodes], and an int64 array [len(times)] of
    the GPUs down that the trace does not place on a node (a leaf switch's
    GPUs). Each incident's `gpus_lost` GPUs go on the node of its component:
    the GPU's node for a gpu, hbm, nic or NIC-leaf link failure, the node for
    nvswitch, node and maintenance, the unit's nodes for an event
    (`_event_nodes`)."""
    times = np.asarray(times, dtype=np.int64)
    nn = len(nodes)
    d = np.zeros((len(times) + 1, nn), dtype=np.int64)
    u = np.zeros(len(times) + 1, dtype=np.int64)
    if incidents is None or len(incidents) == 0 or nn == 0:
        return np.zeros((len(times), nn), dtype=np.int64), np.zeros(len(times), dtype=np.int64)
    first = nodes["first_gpu"].astype(np.int64)
    total = int(nodes["gpus"].astype(np.int64).sum())
    for row in incidents:
        lost = int(row["gpus_lost"])
        if int(row["kind"]) != KIND_DOWN or lost <= 0:
            continue
        i0 = int(np.searchsorted(times, int(row["start"]), side="left"))
        end = int(row["end"])
        i1 = len(times) if end < 0 else int(np.searchsorted(times, end, side="left"))
        cls, comp = int(row["class"]), int(row["component"])
        if cls in CLASS_BY_GPU and comp < total:
            members, take = np.array([np.searchsorted(first, comp, side="right") - 1]), np.array([lost])
        elif cls in CLASS_BY_NODE and comp < nn:
            members, take = np.array([comp]), np.array([lost])
        elif cls == CLASS_EVENT:
            members, take = _event_nodes(comp, lost, nodes)
        else:
            members, take = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        if members.size:
            np.add.at(d, (np.full(members.size, i0), members), take)
            np.add.at(d, (np.full(members.size, i1), members), -take)
        else:
            u[i0] += lost
            u[i1] -= lost
    return np.cumsum(d, axis=0)[:-1], np.cumsum(u)[:-1]


def fragmentation(jobs, place, nodes, times, end, incidents=None):
    """The cluster's fragmentation at each of `times` (int64 ns, sorted).
    Returns a dict of int64 arrays: time, free (GPUs held by no job and not
    down for repair), down (GPUs down: `down_per_node`, from `incidents`
    when given), waiting (jobs waiting to be placed), smallest (the
    smallest request among them, 0 when none) and stranded (free GPUs on
    nodes no waiting job can use: `usable`; 0 when nothing waits). A down
    GPU is neither free nor stranded; down GPUs the trace does not place on
    a node (a leaf switch's) leave the free count, and stranded never
    exceeds it. A GPU a job still holds while down (the failure not yet
    detected) counts in down, not twice against free."""
    times = np.asarray(times, dtype=np.int64)
    node_gpus = nodes["gpus"].astype(np.int64)
    held = held_per_node(place, len(nodes), times)
    down, unplaced = down_per_node(incidents, nodes, times)
    # a job may hold a GPU that is down until the failure is detected: free never goes below 0
    free = np.maximum(node_gpus[None, :] - held - down, 0)
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
    total_free = np.maximum(free.sum(axis=1) - unplaced, 0)
    return {"time": times, "free": total_free, "down": down.sum(axis=1) + unplaced,
            "stranded": np.minimum(stranded, total_free), "waiting": counts.sum(axis=1) if counts.size else
            np.zeros(len(times), dtype=np.int64), "smallest": smallest}
