#!/usr/bin/env python3
# sci-table.py — the policy tables of docs/sci.md from traces: one row per
# label, each column mean ± 95 % half-width (Student's t) over the traces
# given for that label (one per seed). Reads the `summary` group only.
# usage: sci-table.py SWEEP_DIR [LABEL=TRACE,TRACE,...]... [--paired LABEL:OTHER]...
#   every pNNNN.h5 of SWEEP_DIR is grouped by its root attribute `scheduler`
#   --paired LABEL:OTHER  after the table, LABEL against OTHER paired by seed
#   (root attribute `seed`): the mean ± 95 % half-width over the seeds both
#   have of LABEL / OTHER − 1 in mean JCT and in goodput, in per cent
import glob, math, sys
import h5py

# t quantile 0.975 for 1..10 degrees of freedom (beyond: 1.96 is within 0.2 %)
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]

COLS = [("tflops_per_gpu", "TFLOP/s per GPU (model jobs)", "%.1f"), ("jobs_completed", "jobs completed", "%.0f"),
        ("jct_mean_s", "mean JCT (s)", "%.4g"), ("wait_mean_s", "mean wait (s)", "%.3g"),
        ("utilization", "utilization (allocated)", "%.3f"), ("util_effective", "useful-work utilization", "%.3f"),
        ("goodput", "goodput", "%.3f")]


def cell(vals, fmt):
    vals = [v for v in vals if math.isfinite(v)]
    if not vals:
        return "—"
    m = sum(vals) / len(vals)
    if len(vals) < 2:
        return fmt % m
    sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1))
    return (fmt + " ± " + fmt) % (m, (T975[len(vals) - 2] if len(vals) <= 11 else 1.96) * sd / math.sqrt(len(vals)))


def summary(path):
    with h5py.File(path, "r") as f:
        s = {k: float(v) for k, v in f["summary"].attrs.items()}
        s["seed"] = int(f.attrs["seed"]) if "seed" in f.attrs else None
        return s, f.attrs["scheduler"]


def paired(groups, a, b, key):
    """a / b − 1 in per cent over the seeds both have: (mean, half-width, n)."""
    by = {r["seed"]: r for r in groups[b] if r["seed"] is not None}
    d = [100.0 * (r[key] / by[r["seed"]][key] - 1.0) for r in groups[a]
         if r["seed"] in by and math.isfinite(r.get(key, math.nan)) and by[r["seed"]].get(key, 0) > 0]
    if not d:
        return math.nan, math.nan, 0
    m = sum(d) / len(d)
    if len(d) < 2:
        return m, math.nan, 1
    sd = math.sqrt(sum((v - m) ** 2 for v in d) / (len(d) - 1))
    return m, (T975[len(d) - 2] if len(d) <= 11 else 1.96) * sd / math.sqrt(len(d)), len(d)


groups, pairs, args = {}, [], sys.argv[2:]
for p in sorted(glob.glob(sys.argv[1] + "/p*.h5")):
    s, sched = summary(p)
    groups.setdefault(sched.decode() if isinstance(sched, bytes) else str(sched), []).append(s)
while args:
    arg = args.pop(0)
    if arg == "--paired":
        pairs.append(args.pop(0).split(":", 1))
        continue
    label, files = arg.split("=", 1)
    groups[label] = [summary(p)[0] for p in files.split(",")]
print("| policy | " + " | ".join(c[1] for c in COLS) + " |")
print("|---" * (len(COLS) + 1) + "|")
for label, rows in groups.items():
    print("| %s | " % label + " | ".join(cell([r.get(k, float("nan")) for r in rows], fmt) for k, _, fmt in COLS) + " |")
for a, b in pairs:
    cells = []
    for key, what in (("jct_mean_s", "mean JCT"), ("goodput", "goodput")):
        m, h, n = paired(groups, a, b, key)
        cells.append("%s %+.1f %% ± %.1f" % (what, m, h))
    print("\npaired per seed (%d seeds), %s against %s: %s" % (n, a, b, ", ".join(cells)))
