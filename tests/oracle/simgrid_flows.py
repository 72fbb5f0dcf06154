#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""wanka's max-min flow sharing against SimGrid's (docs/validation.md,
"Flow solver against SimGrid").

For each case below, flow_oracle (tests/oracle/flow_oracle.c) builds a
fat-tree, draws and routes flows, solves them with wanka's flow network and
prints every directed link with its capacity and every flow with its path,
cap and rate. This script gives SimGrid the same instance: each wanka link a
SimGrid link of that bandwidth and no latency, each flow a communication over
a route of exactly those links, under the CM02 model with every correction
off (bandwidth and latency factors 1, no TCP window bound, no cross-traffic,
no RTT weighting), which is plain max-min fairness. Every communication is
far too large to finish; a flow's SimGrid rate is the bytes it moved in the
first 1,000 simulated seconds. Rates must agree within 1e-6 relative (1 byte/s
absolute near zero).

Two things are said to SimGrid differently, with the same meaning:
- a rate cap is a private link of that bandwidth on the flow's route (the
  same constraint; SimGrid 3.32's Comm.set_rate refuses host-to-host
  communications: "You cannot use set_rate() once your communication
  started");
- a failed link (capacity 0) is a link turned off: SimGrid treats a
  bandwidth of 0 as no constraint at all, and ends a communication over a
  link that is off at once (3.32 reports it finished with nothing left to
  send, which no live flow can be in that time), read here as rate 0.

Usage: simgrid_flows.py FLOW_ORACLE [--verbose]
Exit 0 when every case agrees, 1 when one does not, 77 (skipped) when the
simgrid Python module (Debian: python3-simgrid) is absent.
The subcommand `simgrid_flows.py --solve` reads one instance on stdin and
prints SimGrid's rate of each flow ("<id> <rate>"); it runs in a process of
its own because SimGrid's engine can be created once per process."""
import subprocess
import sys

TOL = 1e-6
SIZE = 10**15  # bytes per communication: 20,000 s at the fastest link (50 GB/s)
T = 1000.0     # measure the bytes moved in [0, T]: resolution 1.25e-4 B/s

# (name, flow_oracle arguments). Fabrics: k-ary fat-trees of 2 and 3 tiers,
# non-blocking and oversubscribed at the leaf and spine, rail-optimized pods;
# flows: uniform pairs, incast to 4 hot NICs, all cross-pod, rings of 8;
# capped flows, degraded and failed links, churn (flows removed and added
# between solves, so the incremental re-solve is what is compared).
CASES = [
    ("ft2-k8-uniform", "--tiers 2 --radix 8 --nics 32 --flows 60 --seed 1"),
    ("ft2-k16-2to1-uniform", "--tiers 2 --radix 16 --nics 64 --oversub 2,1 --flows 200 --seed 2"),
    ("ft2-k16-3to1-incast", "--tiers 2 --radix 16 --nics 96 --oversub 3,1 --flows 150 --pattern incast --seed 3"),
    ("ft3-k8-uniform", "--tiers 3 --radix 8 --nics 128 --flows 300 --seed 4"),
    ("ft3-k8-crosspod-capped", "--tiers 3 --radix 8 --nics 128 --flows 400 --pattern crosspod --capped 0.3 --seed 5"),
    ("ft3-k8-2to1-3to1-crosspod", "--tiers 3 --radix 8 --nics 96 --oversub 2,3 --flows 500 --pattern crosspod --seed 6"),
    ("ft3-k16-3to1-rings", "--tiers 3 --radix 16 --nics 1024 --oversub 3,1 --flows 800 --pattern rings --seed 7"),
    ("ft3-k16-degraded-churn", "--tiers 3 --radix 16 --nics 512 --oversub 1,2 --flows 600 --degraded 0.2 "
     "--capped 0.2 --churn 0.4 --seed 8"),
    ("ft3-k12-failed-churn", "--tiers 3 --radix 12 --nics 432 --flows 500 --pattern crosspod --failed 6 "
     "--churn 0.3 --seed 9"),
    ("ft3-k8-dense", "--tiers 3 --radix 8 --nics 32 --flows 1000 --capped 0.1 --degraded 0.3 --churn 0.2 --seed 10"),
    ("rail2-8x16", "--kind rail --tiers 2 --radix 32 --rails 8 --nodes-per-pod 16 --pods 2 --flows 400 "
     "--pattern rings --seed 11"),
    ("rail3-4x8-2to1", "--kind rail --tiers 3 --radix 16 --rails 4 --nodes-per-pod 8 --pods 6 --oversub 2,1 "
     "--flows 600 --pattern crosspod --capped 0.2 --churn 0.3 --seed 12"),
]


def parse(text):
    links, flows, fabric = {}, [], ""
    for line in text.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "fabric":
            fabric = " ".join(w[1:])
        elif w[0] == "link":
            links[int(w[1])] = float(w[2])
        elif w[0] == "flow":
            hops = int(w[6])
            flows.append({"id": int(w[1]), "cap": float(w[2]), "rate": float(w[3]),
                          "src": int(w[4]), "dst": int(w[5]), "links": [int(x) for x in w[7:7 + hops]]})
    return fabric, links, flows


def solve():
    """SimGrid's rates for the instance on stdin."""
    from simgrid import Actor, Comm, Engine, LinkInRoute, NetZone, this_actor
    _, links, flows = parse(sys.stdin.read())
    e = Engine([sys.argv[0],
                "--cfg=network/model:CM02",
                "--cfg=network/latency-factor:1",
                "--cfg=network/bandwidth-factor:1",
                "--cfg=network/weight-S:0",
                "--cfg=network/TCP-gamma:1e30",  # the window bound gamma / (2 latency): none
                "--cfg=network/crosstraffic:0",
                "--cfg=network/optim:Full",
                "--log=root.thres:critical",
                "--log=xbt_cfg.thres:critical"])
    zone = NetZone.create_full_zone("fabric")
    sg = {}

    def shared_link(name, bw):  # SimGrid's default policy, SHARED: bw split among its flows
        link = zone.create_link(name, bw)
        link.set_latency(0)
        return link.seal()

    for lid, bw in sorted(links.items()):
        sg[lid] = shared_link(f"l{lid}", bw if bw > 0 else 1.0)
        if bw == 0:
            sg[lid].turn_off()
    # One host pair per flow: every flow gets its own route, so flows between
    # the same NICs stay separate communications over the same links.
    pairs = []
    for f in flows:
        route = [LinkInRoute(sg[x]) for x in f["links"]]
        if f["cap"] > 0:
            route.append(LinkInRoute(shared_link(f"cap{f['id']}", f["cap"])))
        a = zone.create_host(f"s{f['id']}", 1e9).seal()
        b = zone.create_host(f"d{f['id']}", 1e9).seal()
        zone.add_route(a.netpoint, b.netpoint, None, None, route, False)
        pairs.append((a, b))
    zone.seal()

    def measure():
        comms = [Comm.sendto_async(a, b, SIZE) for a, b in pairs]
        this_actor.sleep_for(T)
        for f, c in zip(flows, comms):
            ended = c.test()  # only over a link that is off (see above)
            print(f["id"], repr(0.0 if ended else (SIZE - c.remaining) / T))
        for c, f in zip(comms, flows):
            if not c.test():
                c.cancel()

    Actor.create("measure", pairs[0][0], measure)
    e.run()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--solve":
        solve()
        return 0
    try:
        import simgrid  # noqa: F401
    except ImportError:
        print("simgrid_flows: the simgrid Python module is absent (Debian: python3-simgrid); skipped")
        return 77
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    oracle, verbose = sys.argv[1], "--verbose" in sys.argv[2:]
    worst_all, bad = 0.0, 0
    for name, args in CASES:
        w = subprocess.run([oracle] + args.split(), capture_output=True, text=True)
        if w.returncode != 0:  # 1: incremental and scratch solves differ; the output is whole
            print(f"{name}: flow_oracle exited {w.returncode}: {w.stderr.strip()[-2000:]}")
            bad += 1
            if w.returncode != 1 or "\nflow " not in w.stdout:
                continue
        fabric, links, flows = parse(w.stdout)
        s = subprocess.run([sys.executable, __file__, "--solve"], input=w.stdout, capture_output=True, text=True)
        if s.returncode != 0:
            print(f"{name}: SimGrid exited {s.returncode}: {s.stderr.strip()[-2000:]}")
            bad += 1
            continue
        theirs = {}
        for line in s.stdout.splitlines():
            w2 = line.split()
            if len(w2) == 2 and w2[0].isdigit():
                theirs[int(w2[0])] = float(w2[1])
        worst, worst_flow, nbad = 0.0, None, 0
        for f in flows:
            if f["id"] not in theirs:
                print(f"{name}: flow {f['id']}: no SimGrid rate")
                nbad += 1
                continue
            ours, sg = f["rate"], theirs[f["id"]]
            top = max(abs(ours), abs(sg))
            rel = abs(ours - sg) / top if top > 1.0 else 0.0  # both under 1 B/s: both zero
            if rel > worst:
                worst, worst_flow = rel, f
            if rel > TOL:
                nbad += 1
                if nbad <= 5:
                    print(f"{name}: flow {f['id']} ({f['src']} -> {f['dst']}, links {f['links']}, "
                          f"cap {f['cap']:.6g}): wanka {ours:.9g} B/s, SimGrid {sg:.9g} B/s, rel {rel:.2e}")
        zero = sum(1 for f in flows if f["rate"] == 0)
        levels = len({f["rate"] for f in flows})
        print(f"{name}: {fabric}; {len(flows)} flows on {len(links)} links, {levels} distinct rates, "
              f"{zero} at rate 0: "
              f"max rel diff {worst:.2e}{'' if nbad == 0 else f', {nbad} over {TOL:g}'}")
        if verbose and worst_flow:
            print(f"  worst: flow {worst_flow['id']} wanka {worst_flow['rate']!r} SimGrid {theirs[worst_flow['id']]!r}")
        worst_all = max(worst_all, worst)
        bad += nbad > 0 and w.returncode == 0
    print(f"simgrid_flows: {len(CASES)} cases, max relative difference {worst_all:.2e}, "
          f"{bad} case(s) over {TOL:g}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
