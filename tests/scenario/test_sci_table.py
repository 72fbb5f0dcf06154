#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_sci_table.py — scripts/sci-table.py, which makes docs/sci.md's policy
# tables from traces: each row as mean ± 95 % half-width over the traces
# given for it, and `--paired A:B` as A / B − 1 paired by seed (mean ± half-
# width over the seeds both have). Hand-written summaries, values checked by
# hand. Also: every row of docs/sci.md's loaded table beyond the sweep's
# policies has its paired per-seed comparison in the text after the table.
# usage: test_sci_table.py SRCROOT   (exit 77 = skipped: no h5py)
import math
import os
import re
import subprocess
import sys
import tempfile

try:
    import h5py
except ImportError as e:
    print(f"skipped: {sys.executable} cannot import {e.name}")
    sys.exit(77)

SRC = sys.argv[1]
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def trace(path, sched, seed, jct, goodput):
    with h5py.File(path, "w") as f:
        f.attrs["scheduler"] = sched
        f.attrs["seed"] = seed
        s = f.create_group("summary")
        for k, v in (("jct_mean_s", jct), ("goodput", goodput), ("tflops_per_gpu", 100.0), ("jobs_completed", 10.0),
                     ("wait_mean_s", 1.0), ("utilization", 0.5), ("util_effective", 0.5)):
            s.attrs[k] = v


with tempfile.TemporaryDirectory() as T:
    os.makedirs(os.path.join(T, "sweep"))
    # the sweep: slurm, seeds 1..3, JCT 100, 200, 400 s, goodput 0.5
    for k, jct in enumerate((100.0, 200.0, 400.0)):
        trace(os.path.join(T, "sweep", f"p{k:04d}.h5"), "slurm", k + 1, jct, 0.5)
    # the extra row, seeds in another order: JCT 0.9x, 0.8x, 0.7x of slurm's; goodput 1.02x, 1.01x, 1.03x
    extra = []
    for seed, f_jct, f_gp in ((3, 0.7, 1.03), (1, 0.9, 1.02), (2, 0.8, 1.01)):
        p = os.path.join(T, f"m{seed}.h5")
        trace(p, "sci", seed, {1: 100.0, 2: 200.0, 3: 400.0}[seed] * f_jct, 0.5 * f_gp)
        extra.append(p)
    r = subprocess.run([sys.executable, os.path.join(SRC, "scripts", "sci-table.py"), os.path.join(T, "sweep"),
                        "mech=" + ",".join(extra), "--paired", "mech:slurm"], capture_output=True, text=True)
    check(r.returncode == 0, f"sci-table.py ran: {r.stderr.strip()}")
    rows = [ln for ln in r.stdout.splitlines() if ln.startswith("| ")]
    check(len(rows) == 3 and rows[1].startswith("| slurm |") and rows[2].startswith("| mech |"), f"rows: {rows}")
    # paired JCT: -10, -20, -30 % -> mean -20, s 10, t(0.975, 2) = 4.303: ± 24.8; goodput +2, +1, +3 -> +2 ± 2.5
    half = 4.303 * 10 / math.sqrt(3)
    want = f"paired per seed (3 seeds), mech against slurm: mean JCT -20.0 % ± {half:.1f}, goodput +2.0 % ± 2.5"
    check(want in r.stdout, f"paired line: want {want!r} in {r.stdout!r}")

# docs/sci.md: the loaded table's rows beyond the sweep (sci-short, sci + mechanisms and its blind
# twin) each have a paired comparison after the table
with open(os.path.join(SRC, "docs", "sci.md"), encoding="utf-8") as f:
    doc = f.read()
m = re.search(r"\nLoaded \(.*?\n\n(\|.*?)\n\n(.*?)\n\n\*\*Why", doc, re.S)
check(m is not None, "docs/sci.md has the loaded table and the text after it")
if m:
    table, text = m.group(1), " ".join(m.group(2).split())
    labels = [ln.split("|")[1].strip() for ln in table.splitlines()[2:]]
    check(labels[-2:] == ["sci + mechanisms", "sci + mechanisms, blind"], f"the loaded table's last rows: {labels}")
    for label, words in (("sci-short", "`order: short` against sjf"),
                         ("sci + mechanisms, blind", "(blind), sci against slurm"),
                         ("sci + mechanisms", "(the non-blind row), sci against slurm")):
        i = text.find(words)
        check(i >= 0 and re.match(r"[^.]*? [−+-][0-9.]+ % ± [0-9.]+ in mean JCT", text[i:]) is not None,
              f"the loaded table's row '{label}' has a paired comparison ('{words} … % ± … in mean JCT')")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
