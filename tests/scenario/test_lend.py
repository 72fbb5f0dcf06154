#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_lend.py — a supercomputing site lending idle nodes to AI jobs
# (tests/scenario/hpc-lend.yaml, scheduler lend), run with lend on, off and
# with a reclaim notice. Lending must serve AI work the site otherwise
# rejects and fill idle GPUs, while the HPC users' mean wait rises a little
# or not at all (at most 10 %, or one minute, over lend: false); a notice
# delays the HPC jobs that take nodes back, so their wait rises with it.
# usage: test_lend.py WANKA SRCROOT
import json
import os
import subprocess
import sys
import tempfile

WANKA, SRC = sys.argv[1], sys.argv[2]
SCENARIO = os.path.join(SRC, "tests", "scenario", "hpc-lend.yaml")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def run(tmp, name, *sets):
    args = [WANKA, "run", SCENARIO, "--json", "-q", "-o", os.path.join(tmp, f"{name}.h5")]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        sys.exit(f"wanka run ({name}): exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)["metrics"]


with tempfile.TemporaryDirectory() as tmp:
    on = run(tmp, "on")
    off = run(tmp, "off", "scheduler.lend=false")
    notice = run(tmp, "notice", "scheduler.reclaim=15min")

hpc = on["hpc_jobs"]
ai = on["jobs_submitted"] - hpc
check(hpc > 0 and ai > 0, f"the workload mixes kinds ({hpc} hpc, {ai} AI)")
check(off["hpc_jobs"] == hpc, "lend does not change the workload")
# what lending gains
check(off["jobs_rejected"] == ai, f"lend: false rejects every AI job ({off['jobs_rejected']} of {ai})")
check(off["ai_gpu_hours"] == 0, "lend: false serves no AI work")
check(on["jobs_rejected"] == 0 and on["jobs_completed"] == on["jobs_submitted"], "lend: every job completes")
check(on["ai_gpu_hours"] > 0, f"lend serves AI work ({on['ai_gpu_hours']:.0f} GPU-h)")
check(on["utilization"] > off["utilization"] + 0.1,
      f"lending fills idle GPUs (utilization {off['utilization']:.3f} -> {on['utilization']:.3f})")
check(on["ai_preemptions"] > 0, "lent nodes were taken back for hpc jobs")
# what it costs the HPC users
check(on["hpc_gpu_hours"] == off["hpc_gpu_hours"], "the hpc jobs run the same work")
bound = max(off["hpc_wait_mean_s"] * 1.10, off["hpc_wait_mean_s"] + 60)
check(on["hpc_wait_mean_s"] <= bound,
      f"hpc mean wait rises a little or not at all ({off['hpc_wait_mean_s']:.0f} s -> {on['hpc_wait_mean_s']:.0f} s)")
check(notice["hpc_wait_mean_s"] > on["hpc_wait_mean_s"],
      f"a 15 min notice delays hpc jobs ({on['hpc_wait_mean_s']:.0f} s -> {notice['hpc_wait_mean_s']:.0f} s)")
check(notice["ai_gpu_hours"] == on["ai_gpu_hours"], "with notice the AI work is still all served")

print(f"lend on : util {on['utilization']:.3f}, AI {on['ai_gpu_hours']:.0f} GPU-h, hpc wait {on['hpc_wait_mean_s']:.0f} s, "
      f"AI preemptions {on['ai_preemptions']:.0f}")
print(f"lend off: util {off['utilization']:.3f}, AI {off['ai_gpu_hours']:.0f} GPU-h, hpc wait {off['hpc_wait_mean_s']:.0f} s")
print(f"notice  : hpc wait {notice['hpc_wait_mean_s']:.0f} s, AI preemptions {notice['ai_preemptions']:.0f}")
sys.exit(1 if failures else 0)
