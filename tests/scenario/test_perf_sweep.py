#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_perf_sweep.py — `wanka perf --scale` keeps ring and flow storage and
# the network outcome of a repeated size from point to point
# (models/state/eval.h, WkEvalSweep): every point of a sweep, in any order
# and with repeats, equals the same size evaluated alone (--json, every
# field but the scaling efficiency, which is relative to the first point),
# for a dense model, an MoE whose all-to-all crosses nodes and a given
# cluster with an oversubscribed fabric; the text table's rows equal those
# of one-point runs; a refused point still fails the whole command.
# usage: test_perf_sweep.py WANKA
import json
import os
import subprocess
import sys
import tempfile

WANKA = sys.argv[1]

JOBS = {
    "dense.yaml": ("model: llama3-70b\ngpus: 1024\n", [512, 64, 1024, 1024, 256, 1024, 64, 128]),
    "moe.yaml": ("model: mixtral-8x7b\ngpus: 512\n", [512, 16, 512, 512, 64, 256, 512]),
    "given.yaml": ("model: gpt3-175b\ngpus: 1024\ncluster: {sku: A100-SXM-80G, nodes: 256, gpus_per_node: 8, "
                   "fabric: {kind: fat-tree, radix: 32, link_gbps: 200, oversubscription: 2}}\n",
                   [1024, 64, 2048, 1024, 512, 2048]),
}


def perf(path, *args):
    p = subprocess.run([WANKA, "perf", path, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (text, sizes) in JOBS.items():
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            scale = ",".join(map(str, sizes))
            rc, out, err = perf(path, "--scale", scale, "--json")
            if rc != 0:
                print(f"FAIL {name} --scale {scale}: status {rc}: {err}")
                fails += 1
                continue
            points = json.loads(out)
            rc, table, err = perf(path, "--scale", scale)
            rows = table.splitlines()[1:]
            for i, (g, p) in enumerate(zip(sizes, points)):
                rc1, out1, _ = perf(path, "--scale", str(g), "--json")
                alone = json.loads(out1)[0]
                p = dict(p)
                p.pop("scaling_efficiency"), alone.pop("scaling_efficiency")
                if rc1 != 0 or p != alone:
                    print(f"FAIL {name} point {i} ({g} GPUs): {p} in the sweep, {alone} alone")
                    fails += 1
                _, t1, _ = perf(path, "--scale", str(g))
                row1 = t1.splitlines()[1]
                if rows[i].rsplit(None, 1)[0] != row1.rsplit(None, 1)[0]:  # all but the scaling column
                    print(f"FAIL {name} row {i}: {rows[i]!r} in the sweep, {row1!r} alone")
                    fails += 1
            print(f"{name}: {len(sizes)} points equal to the sizes alone")
        # a size that is not a whole number of replicas, after good points: status 2, no output
        path = os.path.join(tmp, "dense.yaml")
        rc, out, err = perf(path, "--scale", "1024,1024,100")
        if rc != 2 or out or "100 GPUs" not in err:
            print(f"FAIL refused point: status {rc}, output {out!r}, error {err!r}")
            fails += 1
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
