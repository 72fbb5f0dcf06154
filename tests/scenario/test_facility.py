#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# test_facility.py — the shipped power-capped-10k scenario under its site
# budget, read as users read the trace (h5py): in every mode (uniform caps,
# hold, per-job clocks chosen by the energy policy under `on_budget: policy`)
# no row of timeseries/facility draws more than its budget, the rows
# carry the daily price and carbon curve, and the summary's cost matches the
# price series integrated over the facility rows (exact: power is constant
# between rows and prices change on the hour, at rows too). Under `policy`
# the energy policy fits the budget by itself (the uniform backstop never
# engages), and a policy that chooses no clock (backfill) gets exactly the
# uniform caps of `cap`.
# usage: test_facility.py WANKA SRCROOT   (exit 77 = skipped: no h5py)
import json
import os
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError as e:
    print(f"skipped: {sys.executable} cannot import {e.name} (Debian: apt-get install python3-h5py)")
    sys.exit(77)

WANKA, SRC = sys.argv[1], sys.argv[2]
SCENARIO = os.path.join(SRC, "scenarios", "power-capped-10k.yaml")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def run(tmp, mode, *extra):
    trace = os.path.join(tmp, f"{mode}{len(extra)}.h5")
    out = subprocess.run([WANKA, "run", SCENARIO, "--json", "-q", "-o", trace, "--set", f"facility.on_budget={mode}",
                          *extra], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        sys.exit(f"wanka run ({mode}): exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)["metrics"], trace


ENERGY = ("--set", "scheduler={name: energy, tick: 15min}")

with tempfile.TemporaryDirectory() as tmp:
    summaries = {}
    for mode, extra in (("cap", ()), ("hold", ()), ("policy", ENERGY)):
        m, trace = run(tmp, mode, *extra)
        summaries[mode] = m
        with h5py.File(trace, "r") as f:
            ver = f.attrs["schema_version"]
            ver = ver.decode() if isinstance(ver, bytes) else ver
            check(tuple(int(x) for x in ver.split(".")) >= (1, 3), f"{mode}: schema 1.3 or later ({ver})")
            fac = f["timeseries/facility"][()]
            cl = f["timeseries/cluster"][()]
        over = fac["power"] - fac["budget"]
        check(len(fac) > len(cl), f"{mode}: facility rows at every change, not only at samples")
        check(np.all(fac["budget"] == 6.5e6), f"{mode}: the budget column is the 6.5 MW budget")
        check(over.max() <= 1e-6, f"{mode}: facility power never exceeds the budget (worst {over.max():.3f} W over)")
        check(fac["power"].max() > 0.9 * 6.5e6, f"{mode}: the budget binds (peak {fac['power'].max():.0f} W)")
        check(np.all((fac["clock"] > 0) & (fac["clock"] <= 1)), f"{mode}: site clock in (0, 1]")
        if mode == "cap":
            check(fac["clock"].min() < 1, "cap: clocks were lowered")
            check(m["power_capped_h"] > 0, "cap: power_capped_h > 0")
        elif mode == "policy":
            check(m["power_capped_h"] == 0, f"policy: the energy policy fits the budget alone ({m['power_capped_h']} h capped)")
            check(m["clocked_jobs"] > 0 and m["clock_lost_gpu_hours"] > 0, "policy: jobs ran at chosen clocks")
        else:
            check(np.all(fac["clock"] == 1), "hold: clocks never lowered")
            check(m["budget_refusals"] > 0, "hold: starts were refused")
        hours = (fac["time"] // 3_600_000_000_000) % 24
        check(set(np.unique(fac["price"][hours == 19])) == {142.0}, f"{mode}: price at 19h is the curve's 142")
        dt = np.diff(np.append(fac["time"], int(m["simulated_s"] * 1e9))) / 1e9
        cost = float(np.sum(fac["power"] * dt / 3.6e9 * fac["price"]))
        check(abs(cost - m["energy_cost"]) <= 1e-6 * m["energy_cost"],
              f"{mode}: energy_cost {m['energy_cost']} = price x energy over the rows {cost}")
        kwh = float(np.sum(fac["power"] * dt) / 3.6e6)
        check(abs(kwh - m["energy_kwh"]) <= 1e-6 * m["energy_kwh"], f"{mode}: energy over the rows {kwh} = energy_kwh")

    # a policy that chooses no clock gets the uniform caps: every metric as under `cap`
    m, _ = run(tmp, "policy")
    same = [k for k in summaries["cap"] if k in m and m[k] != summaries["cap"][k]
            and not (m[k] != m[k] and summaries["cap"][k] != summaries["cap"][k])]
    check(not same, f"backfill under policy = under cap (differ: {same})")
    check(m["clocked_jobs"] == 0, "backfill chose no clock")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("ok")
