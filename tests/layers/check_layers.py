#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The layers link only downward (docs/architecture.md).

Arguments: NAME=PATH for each layer library, in any order. For every library
the symbols it leaves undefined (nm: U) that another wanka library defines
must come from a layer it is allowed to use; an upward (or sideways) call
fails this test with the symbol, the caller's object and both layers.
"""
import subprocess
import sys

ALLOWED = {
    "wk_core": set(),
    "wk_scenario": {"wk_core"},
    "wk_trace": {"wk_core"},
    "wk_models": {"wk_core", "wk_scenario"},
    "wk_run": {"wk_core", "wk_scenario", "wk_trace", "wk_models"},
    "wk_network": {"wk_core", "wk_scenario", "wk_trace", "wk_models", "wk_run"},
    "wk_batch": {"wk_core", "wk_scenario", "wk_trace", "wk_models", "wk_run", "wk_network"},
    "wk_analysis": {"wk_core", "wk_trace"},
}


def nm(path):
    """{object: (defined set, undefined set)} of a static library."""
    out = subprocess.run(["nm", "-A", path], capture_output=True, text=True, check=True).stdout
    objs = {}
    for line in out.splitlines():
        head, _, rest = line.rpartition(":")
        parts = rest.split()
        obj = head.split(":")[-1] if ":" in head else head
        d, u = objs.setdefault(obj, (set(), set()))
        if len(parts) == 2 and parts[0] == "U":
            u.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCGSV":
            d.add(parts[2])
    return objs


def main(argv):
    libs = dict(a.split("=", 1) for a in argv[1:])
    if set(libs) != set(ALLOWED):
        print(f"expected layers {sorted(ALLOWED)}, got {sorted(libs)}")
        return 2
    owner = {}
    tables = {}
    for name, path in libs.items():
        tables[name] = nm(path)
        for obj, (defined, _) in tables[name].items():
            for sym in defined:
                owner.setdefault(sym, name)
    bad = 0
    for name, objs in sorted(tables.items()):
        for obj, (_, undefined) in sorted(objs.items()):
            for sym in sorted(undefined):
                lib = owner.get(sym)
                if lib and lib != name and lib not in ALLOWED[name]:
                    print(f"{name}: {obj} uses {sym} of {lib} (allowed: {', '.join(sorted(ALLOWED[name])) or 'none'})")
                    bad += 1
    checked = sum(len(u) for objs in tables.values() for _, u in objs.values())
    print(f"{len(libs)} layers, {checked} undefined references checked, {bad} upward")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
