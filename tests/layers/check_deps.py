#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Dependencies point one way (docs/architecture.md, "Layers").

Usage: check_deps.py BUILD_DIR SOURCE_ROOT [--extra OBJECT=FOLDER ...]

Reads BUILD_DIR/compile_commands.json for every C file of sim/ and models/
and its object, runs nm over each object and checks, file by file:

1. calls: every symbol a file takes from a file of another folder comes from
   a folder its own folder may use (ALLOWED, a named list of edges);
2. includes: every `#include "sim/..."` or `"models/..."` of a .c or .h file
   names a header of its own folder or of a folder it may use (some folders
   only through named public headers: ONLY_HEADERS);
3. no circle of calls (or references to another file's tables) between
   files: the file graph has no strongly connected component of two or more;
4. no C file of sim/ or models/ is longer than MAX_LINES lines.

--extra adds an object as if it were a file of FOLDER: the planted test
(tests/layers/planted.c, a file of models/state that calls the driver) then
exits 0 only when that upward call is found, so the checker itself is
tested. Without --extra: exit status 0 when all hold, 1 with one line per
finding otherwise; 2 on a usage error.
"""
import json
import os
import re
import subprocess
import sys

MAX_LINES = 800

CORE = {"sim/core"}
BASE = CORE | {"sim/scenario"}
# The domain (models/*, one library wk_models): its folders in their order.
DOMAIN = {
    "models/gpu": BASE,
    "models/facility": BASE,
    "models/topo": BASE | {"models/gpu"},
    "models/net": BASE | {"models/topo", "models/gpu"},
    "models/workload": BASE | {"models/gpu", "models/topo", "models/net"},
    "models/fail": BASE | {"models/topo", "models/gpu"},
    "models/sched": BASE | {"models/gpu", "models/topo", "models/net", "models/workload"},
    "models/broker": BASE,
}
ALL_DOMAIN = set(DOMAIN)
ALLOWED = {
    "sim/core": set(),
    "sim/scenario": CORE,
    "sim/trace": CORE,
    **DOMAIN,
    # the run's state, below every part of the driver
    "models/state": BASE | ALL_DOMAIN,
    # subsystems: down into the state, never the driver nor each other
    "models/recovery": BASE | ALL_DOMAIN | {"models/state"},
    "models/energy": BASE | ALL_DOMAIN | {"models/state"},
    "models/mech": BASE | ALL_DOMAIN | {"models/state"},
    # the driver
    "models/run": BASE | {"sim/trace"} | ALL_DOMAIN | {"models/state", "models/recovery", "models/energy", "models/mech"},
    # scheduler conformance: whole runs of a policy, through the test door
    "models/sched/conform": BASE | {"sim/trace"} | ALL_DOMAIN | {"models/run", "models/state"},
    # a network of sites: each site a run, driven through run.h only
    "models/network": BASE | {"sim/trace"} | ALL_DOMAIN | {"models/run"},
    "sim/batch": BASE | {"sim/trace"} | ALL_DOMAIN | {"models/run", "models/network"},
}
# Where a folder may use another only through named public headers: a
# network drives each site as any user of the library would, by run.h.
ONLY_HEADERS = {
    ("models/network", "models/run"): {"models/run/run.h"},
}
# The command line may use everything.
ALLOWED["sim/cli"] = set(ALLOWED) - {"sim/cli"}


def objects(build, root):
    """{source path relative to root: object path} for sim/ and models/."""
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        cc = json.load(f)
    out = {}
    for e in cc:
        src = os.path.relpath(os.path.normpath(os.path.join(e["directory"], e["file"])), root)
        if src.startswith(("sim/", "models/")):
            out[src] = os.path.join(e["directory"], e["output"])
    return out


def nm(path):
    """(defined, undefined) global symbols of one object file."""
    res = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in res.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == "U":
            undefined.add(p[1])
        elif len(p) == 3 and p[1] in "TDBRCGSV":
            defined.add(p[2])
    return defined, undefined


def sccs(graph):
    """Strongly connected components of {node: set(nodes)} (iterative Tarjan)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            pushed = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    pushed = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def folder_of(path):
    """The layer folder of a source path: models/sched/conform is its own."""
    d = os.path.dirname(path)
    return d


def check_includes(root, bad):
    inc = re.compile(r'\s*#\s*include\s+"((?:sim|models)/[^"]+)"')
    for top in ("sim", "models"):
        for dp, _, files in os.walk(os.path.join(root, top)):
            for fn in sorted(files):
                if not fn.endswith((".c", ".h")):
                    continue
                path = os.path.relpath(os.path.join(dp, fn), root)
                me = folder_of(path)
                with open(os.path.join(dp, fn), encoding="utf-8", errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        m = inc.match(line)
                        if not m:
                            continue
                        there = os.path.dirname(m.group(1))
                        only = ONLY_HEADERS.get((me, there))
                        if there != me and there not in ALLOWED.get(me, set()):
                            bad.append(f"include: {path}:{no} includes {m.group(1)} "
                                       f"({me} may not use {there})")
                        elif only is not None and m.group(1) not in only:
                            bad.append(f"include: {path}:{no} includes {m.group(1)} "
                                       f"({me} may use {there} only through {', '.join(sorted(only))})")


def main(argv):
    args = argv[1:]
    extra = []
    while "--extra" in args:
        i = args.index("--extra")
        obj, _, folder = args[i + 1].partition("=")
        extra.append((obj, folder))
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2])
        return 2
    build, root = (os.path.abspath(a) for a in args)
    objs = objects(build, root)
    unknown = sorted({folder_of(s) for s in objs} - set(ALLOWED))
    if unknown:
        print("folders missing from ALLOWED:", ", ".join(unknown))
        return 1
    for obj, folder in extra:
        objs[f"{folder}/<planted {os.path.basename(obj)}>"] = obj
    defined, undefined, owner = {}, {}, {}
    for src in sorted(objs):
        defined[src], undefined[src] = nm(objs[src])
        for sym in defined[src]:
            if not src.startswith(tuple(f"{f}/<planted" for _, f in extra)):
                owner.setdefault(sym, src)
    bad = []
    graph = {src: set() for src in objs}
    edges = {}
    for src in sorted(objs):
        me = folder_of(src)
        for sym in sorted(undefined[src]):
            to = owner.get(sym)
            if not to or to == src:
                continue
            graph[src].add(to)
            edges.setdefault((src, to), []).append(sym)
            there = folder_of(to)
            if there != me and there not in ALLOWED[me]:
                bad.append(f"call: {src} uses {sym} of {to} ({me} may not use {there})")
    check_includes(root, bad)
    for comp in sccs(graph):
        if len(comp) < 2:
            continue
        members = set(comp)
        detail = "; ".join(f"{a} -> {b} ({', '.join(edges[(a, b)][:3])})"
                           for a in comp for b in sorted(graph[a] & members))
        bad.append(f"circle of {len(comp)} files: {detail}")
    for src in sorted(objs):
        if src.endswith(".c") and "<planted" not in src:
            with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
                n = sum(1 for _ in f)
            if n > MAX_LINES:
                bad.append(f"size: {src} has {n} lines (at most {MAX_LINES}: split it by responsibility)")
    if extra:
        caught = [line for line in bad if "<planted" in line]
        for line in caught:
            print(line)
        print("planted upward call caught" if caught else "planted upward call NOT caught")
        return 0 if caught else 1
    for line in bad:
        print(line)
    nedges = sum(len(v) for v in graph.values())
    print(f"{len(objs)} files in {len({folder_of(s) for s in objs})} folders, {nedges} file edges, "
          f"{len(bad)} findings")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
