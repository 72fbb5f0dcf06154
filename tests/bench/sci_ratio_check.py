#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""sci's cost against fifo's on sci-100k (docs/performance.md, "Whole nodes
at once, no list for full nodes").

Runs `wanka run tests/bench/sci-100k.yaml` (102,400 GPUs x 30 days) under
`valgrind --tool=callgrind` with `--scheduler fifo` and with `--scheduler
sci`, reads each process's instruction total and fails when sci / fifo
exceeds LIMIT (default 3). Instruction counts are stable from run to run,
unlike time on a shared machine. Without valgrind it is skipped (status 77).

Usage: sci_ratio_check.py WANKA SCENARIO [--limit 3]
"""
import argparse
import shutil
import sys

import callgrind_total


def instructions(wanka, scenario, policy):
    return callgrind_total.instructions([wanka, "run", scenario, "--scheduler", policy, "--no-trace", "-q"],
                                        policy)[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wanka")
    ap.add_argument("scenario")
    ap.add_argument("--limit", type=float, default=3.0)
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        print("valgrind not found: skipped")
        return 77
    fifo = instructions(a.wanka, a.scenario, "fifo")
    sci = instructions(a.wanka, a.scenario, "sci")
    ratio = sci / fifo
    print(f"fifo {fifo} instructions, sci {sci}: sci / fifo {ratio:.2f} (limit {a.limit:.2f})")
    return 0 if ratio <= a.limit else 1


if __name__ == "__main__":
    sys.exit(main())
