#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""test_compare_attrs.py — `wanka compare` stays near-linear in the number of
summary attributes: two traces of 50,000 attributes each (written with
HDF5's dense attribute storage, where the library finds an attribute by
name in a B-tree) are compared in under 30 s. With a linear scan per
metric and per cell (quadratic) the same compare took 54 to 102 s on a
loaded 2-core machine, 6 s with sorted names and binary search. Suite
`slow`: writing the files takes 10 to 25 s.

usage: test_compare_attrs.py WANKA
"""
import os
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

WANKA = sys.argv[1]
N = 50000
d = tempfile.mkdtemp(prefix="wk-compare-attrs-")
paths = []
for k in range(2):
    p = os.path.join(d, f"t{k}.h5")
    with h5py.File(p, "w", libver="latest") as f:
        # fixed-length strings, as wanka writes them (it refuses variable-length ones)
        f.attrs["schema_version"] = np.bytes_(b"1.1")
        f.attrs["scheduler"] = np.bytes_(f"s{k}".encode())
        g = f.create_group("summary")
        for i in range(N):
            g.attrs[f"metric_{i:06d}"] = float(i + k)
    paths.append(p)
t0 = time.monotonic()
p = subprocess.run([WANKA, "compare", *paths, "--metrics", "all"], capture_output=True, text=True, timeout=300)
dt = time.monotonic() - t0
for q in paths:
    os.unlink(q)
os.rmdir(d)
rows = [line for line in p.stdout.splitlines() if line.startswith("metric_")]
ok = p.returncode == 0 and len(rows) == N and dt < 30
print(f"compare of 2 x {N} attributes: status {p.returncode}, {len(rows)} rows, {dt:.1f} s")
sys.exit(0 if ok else 1)
