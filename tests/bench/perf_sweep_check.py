#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Instructions per extra configuration of a `wanka perf` sweep
(docs/performance.md, "wanka perf sweeps").

Runs `wanka perf` of llama3-405b on 16,384 H100 (the default cluster) under
`valgrind --tool=callgrind` with --scale of 1 point and of N points of the
same size, reads the instructions executed (callgrind's total), and fails
when (I_N - I_1) / (N - 1) exceeds LIMIT (default 3 M, about 1 ms). It also
prints the cost of a sweep of distinct sizes (2,048 to 16,384), for the
record only. Instruction counts are stable from run to run, unlike time on
a shared machine. Without valgrind it is skipped (status 77).

Usage: perf_sweep_check.py WANKA [--points 11] [--limit 3e6]
"""
import argparse
import os
import shutil
import sys
import tempfile

import callgrind_total

JOB = "model: llama3-405b\ngpus: 16384\n"


def instructions(wanka, job, scale, tmp):
    return callgrind_total.instructions([wanka, "perf", job, "--scale", scale], f"--scale {scale}")[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wanka")
    ap.add_argument("--points", type=int, default=11)
    ap.add_argument("--limit", type=float, default=3e6)
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        print("valgrind not found: skipped")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        job = os.path.join(tmp, "job.yaml")
        with open(job, "w") as f:
            f.write(JOB)
        one = instructions(a.wanka, job, "16384", tmp)
        many = instructions(a.wanka, job, ",".join(["16384"] * a.points), tmp)
        first = instructions(a.wanka, job, "2048", tmp)
        distinct = instructions(a.wanka, job, "2048,4096,8192,16384", tmp)
    per = (many - one) / (a.points - 1)
    print(f"1 point: {one} instructions; {a.points} points: {many}; per extra point: {per:.0f} (limit {a.limit:.0f})")
    print(f"distinct sizes 2048,4096,8192,16384: {distinct} instructions, {distinct - first} after the first")
    return 0 if per <= a.limit else 1


if __name__ == "__main__":
    sys.exit(main())
