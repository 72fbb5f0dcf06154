#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_outsourcing.py — the §3.1 work outsourcing on
# tests/scenario/outsourcing.yaml, on and off. On: model jobs borrow the
# nodes the plain job frees at 3 h; the 24-GPU job submitted at 6 h does
# not fit the free GPUs, so borrowers hand nodes back at that instant and it
# starts without waiting; the summary counts lends, returns and lent
# GPU-hours. Off: no job ever holds more GPUs than it asked for and the
# summary has no outsourcing rows.
# usage: test_outsourcing.py WANKA SRCROOT
import csv
import json
import os
import subprocess
import sys
import tempfile

WANKA, SRC = sys.argv[1], sys.argv[2]
SCENARIO = os.path.join(SRC, "tests", "scenario", "outsourcing.yaml")
H = 3600 * 10**9
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def run(tmp, name, scenario):
    h5 = os.path.join(tmp, f"{name}.h5")
    out = subprocess.run([WANKA, "run", scenario, "--json", "-q", "-o", h5], capture_output=True, text=True,
                         timeout=300)
    if out.returncode != 0:
        sys.exit(f"wanka run ({name}): exit {out.returncode}: {out.stderr}")
    d = os.path.join(tmp, name)
    ex = subprocess.run([WANKA, "export", h5, "--format", "csv", "-o", d, "-q"], capture_output=True, text=True,
                        timeout=300)
    if ex.returncode != 0:
        sys.exit(f"wanka export ({name}): exit {ex.returncode}: {ex.stderr}")
    with open(os.path.join(d, "jobs.csv")) as f:
        jobs = {int(r["id"]): r for r in csv.DictReader(f)}
    segs = {}
    with open(os.path.join(d, "placement.csv")) as f:
        for r in csv.DictReader(f):
            key = (int(r["job"]), int(r["segment"]))
            s = segs.setdefault(key, [int(r["start_ns"]), int(r["end_ns"]), 0])
            s[2] += int(r["nodes"]) * int(r["gpus"])
    return json.loads(out.stdout)["metrics"], jobs, segs


with tempfile.TemporaryDirectory() as tmp:
    off_yaml = os.path.join(tmp, "off.yaml")
    with open(SCENARIO) as f, open(off_yaml, "w") as g:
        g.write(f.read().split("mechanisms:")[0])
    on, jobs_on, segs_on = run(tmp, "on", SCENARIO)
    off, jobs_off, segs_off = run(tmp, "off", off_yaml)

for name, m in (("on", on), ("off", off)):
    check(m["jobs_completed"] == m["jobs_submitted"], f"{name}: every job completes")
check("outsourcing_lends" not in off, "off: no outsourcing rows in the summary")
req_off = {j: int(r["gpus"]) for j, r in jobs_off.items()}
check(all(g <= req_off[j] for (j, _), (_, _, g) in segs_off.items()), "off: no job holds more than it asked for")

check(on["outsourcing_lends"] >= 1, f"on: idle nodes were lent ({on['outsourcing_lends']:.0f} lends)")
check(on["outsourcing_returns"] >= 1, f"on: lent nodes were handed back ({on['outsourcing_returns']:.0f})")
req = {j: int(r["gpus"]) for j, r in jobs_on.items()}
lent = sum((g - req[j]) * (e - s) for (j, _), (s, e, g) in segs_on.items() if g > req[j]) / H
check(abs(on["outsourcing_borrowed_gpu_hours"] - lent) <= 1e-6 * max(lent, 1),
      f"on: lent GPU-hours {on['outsourcing_borrowed_gpu_hours']:.3f} = the placement table's {lent:.3f}")
# the job submitted at 6 h fits only with lent GPUs: they come back at 6 h
t6 = 6 * H
lent_before = sum(g - req[j] for (j, _), (s, e, g) in segs_on.items() if g > req[j] and s < t6 <= e)
check(lent_before > 0, f"on: GPUs were lent just before 6 h ({lent_before})")
shrunk = [j for (j, _), (s, e, g) in segs_on.items() if e == t6 and g > req[j] and j != 3]
check(shrunk, "on: a borrower's segment ends at 6 h, when the 24-GPU job arrives")
for j in shrunk:
    after = [g for (k, _), (s, _, g) in segs_on.items() if k == j and s == t6]
    check(after and after[0] < max(g for (k, _), (s, e, g) in segs_on.items() if k == j and e == t6),
          f"on: job {j} holds fewer GPUs from 6 h")
check(int(jobs_on[3]["start_ns"]) == t6, f"on: the 24-GPU job starts at its submission ({jobs_on[3]['start_ns']})")
print(f"outsourcing: lends {on['outsourcing_lends']:.0f}, returns {on['outsourcing_returns']:.0f}, "
      f"lent {on['outsourcing_borrowed_gpu_hours']:.1f} GPU-h; mean JCT {off['jct_mean_s']:.0f} s off, "
      f"{on['jct_mean_s']:.0f} s on; util_gpu_std_peak {off['util_gpu_std_peak']:.4f} off, "
      f"{on['util_gpu_std_peak']:.4f} on")
if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("ok")
