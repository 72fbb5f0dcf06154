#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Golden summaries and traces of the shipped scenarios.

For every scenario under scenarios/ (sweep files excepted) this runs
`wanka run --json` and writes the trace, then reduces the run to text: the
summary metrics one per line, and a SHA-256 per root attribute (but the
file's own path), per summary attribute and per column of every table and
time series in the trace. The text must equal tests/golden/NAME.golden.
A refactor keeps these identical; a change that means to move a number runs
  golden.py WANKA SOURCE_ROOT --update
and names why in its commit. On a mismatch the differing lines are printed.

Usage: golden.py WANKA SOURCE_ROOT [--update] [NAME ...]
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

SKIP_ATTRS = {"scenario_file"}  # where the scenario was read from


def digest(value):
    h = hashlib.sha256()
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O":
            for v in value.ravel():
                h.update(v if isinstance(v, bytes) else str(v).encode())
                h.update(b"\0")
        else:
            h.update(np.ascontiguousarray(value).tobytes())
        h.update(str(value.shape).encode())
    elif isinstance(value, bytes):  # a fixed-length string attribute: digested by its text, as a
        h.update(repr(value.decode("utf-8")).encode())  # variable-length one (a str) always was
    else:
        h.update(repr(value).encode())
    return h.hexdigest()[:16]


def reduce_trace(path):
    lines = []
    with h5py.File(path, "r") as f:
        for k in sorted(f.attrs):
            if k not in SKIP_ATTRS:
                lines.append(f"attr /{k} {digest(f.attrs[k])}")

        def visit(name, obj):
            for k in sorted(obj.attrs):
                lines.append(f"attr /{name}/{k} {digest(obj.attrs[k])}")
            if isinstance(obj, h5py.Dataset):
                data = obj[()]
                if data.dtype.names:
                    for col in data.dtype.names:
                        lines.append(f"column /{name}.{col} {digest(data[col])}")
                else:
                    lines.append(f"dataset /{name} {digest(data)}")

        f.visititems(visit)
    return lines


def reduce_run(wanka, scenario, tmp):
    trace = os.path.join(tmp, "t.h5")
    out = subprocess.run([wanka, "run", scenario, "--json", "-q", "--force", "-o", trace],
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        return None, f"wanka run {scenario}: exit {out.returncode}: {out.stderr.strip()}"
    doc = json.loads(out.stdout)
    lines = [f"scenario {doc['scenario']} scheduler {doc['scheduler']} seed {doc['seed']}"]
    for k, v in doc["metrics"].items():
        lines.append(f"metric {k} {json.dumps(v)}")
    lines += reduce_trace(trace)
    return lines, None


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    wanka, root = argv[1], argv[2]
    update = "--update" in argv[3:]
    only = [a for a in argv[3:] if not a.startswith("--")]
    scen_dir = os.path.join(root, "scenarios")
    gold_dir = os.path.join(root, "tests", "golden")
    names = sorted(n[:-5] for n in os.listdir(scen_dir) if n.endswith(".yaml"))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            if only and name not in only:
                continue
            lines, error = reduce_run(wanka, os.path.join(scen_dir, name + ".yaml"), tmp)
            if error:
                print(f"FAIL {name}: {error}")
                bad += 1
                continue
            text = "\n".join(lines) + "\n"
            gold = os.path.join(gold_dir, name + ".golden")
            if update:
                with open(gold, "w") as g:
                    g.write(text)
                print(f"updated {gold}")
                continue
            if not os.path.exists(gold):
                print(f"FAIL {name}: no golden file {gold} (run with --update)")
                bad += 1
                continue
            want = open(gold).read().splitlines()
            got = text.splitlines()
            if want == got:
                print(f"ok   {name}")
                continue
            bad += 1
            print(f"FAIL {name}: differs from {gold}")
            ws, gs = set(want), set(got)
            for ln in want:
                if ln not in gs:
                    print(f"  - {ln}")
            for ln in got:
                if ln not in ws:
                    print(f"  + {ln}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
