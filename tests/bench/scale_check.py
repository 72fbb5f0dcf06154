#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Cost per event as the cluster grows (docs/performance.md, "Scaled runs").

Runs the paper-sci-10k workload scaled by a factor (cluster and arrival rate
both x SCALE, 7 days, fifo, failures on; scaled_args below) under
`valgrind --tool=callgrind` at a small and a large scale, reads the
instructions executed (callgrind's total) and the events processed (the run
summary), and fails when the large scale's instructions per event exceed
LIMIT x the small scale's. Instruction counts are stable from run to run,
unlike time on a shared machine. Without valgrind it is skipped (status 77).

Usage: scale_check.py WANKA SOURCE_ROOT [--small 1] [--large 100] [--limit 1.5]
"""
import argparse
import json
import os
import shutil
import sys

import callgrind_total


def scaled_args(root, scale, days=7):
    """The run of the scaled scenario: 1280 x scale nodes of 8 GPUs in pods of
    512 nodes on a radix-256 3-tier rail fabric (the radix 64 of the paper's
    set-up holds 16,384 NICs), 150 x scale jobs arriving scale times as often
    (85 min / scale apart on average)."""
    return ["run", os.path.join(root, "scenarios", "paper-sci-10k.yaml"), "--no-trace", "-q", "--json",
            "--set", f"cluster.nodes={1280 * scale}", "--set", "cluster.nodes_per_pod=512",
            "--set", "cluster.fabric.radix=256", "--set", f"workload.jobs={150 * scale * days // 7}",
            "--set", f"workload.interarrival.mean={85 * 60 / scale:.3f}s", "--set", f"sim.end={days}d"]


def measure(wanka, root, scale):
    total, out = callgrind_total.instructions([wanka] + scaled_args(root, scale), f"scale {scale}")
    events = json.loads(out)["metrics"]["events"]
    if not events:
        sys.exit(f"scale {scale}: no events")
    return total, events


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wanka")
    ap.add_argument("root")
    ap.add_argument("--small", type=int, default=1)
    ap.add_argument("--large", type=int, default=100)
    ap.add_argument("--limit", type=float, default=1.5)
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        print("valgrind not found: skipped")
        return 77
    res = {}
    for s in (a.small, a.large):
        ins, ev = measure(a.wanka, a.root, s)
        res[s] = ins / ev
        print(f"{10240 * s:>9} GPUs: {ins} instructions, {int(ev)} events, {ins / ev:.0f} per event")
    ratio = res[a.large] / res[a.small]
    print(f"ratio {ratio:.3f} (limit {a.limit})")
    return 0 if ratio <= a.limit else 1


if __name__ == "__main__":
    sys.exit(main())
