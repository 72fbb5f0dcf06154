#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Check a Chrome trace-event file written by `wanka export --format chrome`
against the rules of the Trace Event Format (the JSON Object Format), and,
given the trace it came from, against the trace's own tables.

    check_chrome_trace.py RUN.json [TRACE.h5]

Format rules checked (every event): a dict with a known "ph"; numeric,
finite, non-negative "ts" in microseconds; integer pid/tid where the phase
needs them; per phase the fields it requires (X: name, dur >= 0; B: name;
i/I: name, s in g/p/t; C: name and numeric args; M: a metadata name and
args). Per track (pid, tid): every B has its E, no E before its B, B/E
timestamps non-decreasing in file order, X slices properly nested (a slice
starting inside another ends inside it). Every pid used has process_name
metadata and every track a thread_name.

With TRACE.h5 (needs h5py): each started job's slice starts at its start
time in µs (ns / 1000) and lasts end - start; one slice per finished job;
incidents as many slices as rows; counters one sample per time series row;
the last counter at the end of the run. Exits 1 with the first problem.
"""
import decimal
import json
import math
import sys

KNOWN_PH = {"B", "E", "X", "i", "I", "C", "M", "b", "n", "e", "s", "t", "f", "P", "O", "N", "D", "(", ")"}
META = {"process_name", "thread_name", "process_sort_index", "thread_sort_index", "process_labels"}


def fail(msg):
    print("check_chrome_trace: " + msg, file=sys.stderr)
    sys.exit(1)


def num(v):
    return isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool) and math.isfinite(v)


def check_format(doc):
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("not the JSON Object Format: no traceEvents list")
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        fail("displayTimeUnit must be ms or ns")
    events = doc["traceEvents"]
    if not events:
        fail("no events")
    procs, threads = set(), set()
    used_pids, used_tracks = set(), set()
    stacks, last_be = {}, {}
    slices = {}
    for n, e in enumerate(events):
        where = "event %d (%s)" % (n, json.dumps(e, default=str)[:120])
        if not isinstance(e, dict) or "ph" not in e:
            fail(where + ": not an object with ph")
        ph = e["ph"]
        if ph not in KNOWN_PH:
            fail(where + ": unknown phase %r" % ph)
        if ph == "M":
            if e.get("name") not in META or not isinstance(e.get("args"), dict) or not isinstance(e.get("pid"), int):
                fail(where + ": metadata needs a known name, pid and args")
            if e["name"] == "process_name":
                if not isinstance(e["args"].get("name"), str):
                    fail(where + ": process_name without args.name")
                procs.add(e["pid"])
            if e["name"] == "thread_name":
                if not isinstance(e["args"].get("name"), str) or not isinstance(e.get("tid"), int):
                    fail(where + ": thread_name without args.name or tid")
                threads.add((e["pid"], e["tid"]))
            continue
        if not num(e.get("ts")) or e["ts"] < 0:
            fail(where + ": ts must be a finite non-negative number (µs)")
        if not isinstance(e.get("pid"), int):
            fail(where + ": pid must be an integer")
        used_pids.add(e["pid"])
        if ph == "C":
            if not isinstance(e.get("name"), str) or not isinstance(e.get("args"), dict) or not e["args"]:
                fail(where + ": counter needs a name and args")
            if not all(num(v) for v in e["args"].values()):
                fail(where + ": counter values must be numbers")
            continue
        if not isinstance(e.get("tid"), int):
            fail(where + ": tid must be an integer")
        track = (e["pid"], e["tid"])
        used_tracks.add(track)
        if ph in ("B", "X", "i", "I") and not isinstance(e.get("name"), str):
            fail(where + ": needs a name")
        if ph in ("i", "I") and e.get("s", "t") not in ("g", "p", "t"):
            fail(where + ": instant scope s must be g, p or t")
        if ph == "X":
            if not num(e.get("dur")) or e["dur"] < 0:
                fail(where + ": complete event needs dur >= 0")
            slices.setdefault(track, []).append((e["ts"], e["ts"] + e["dur"], n))
        if ph in ("B", "E"):
            if track in last_be and e["ts"] < last_be[track]:
                fail(where + ": B/E timestamps go back on track %r" % (track,))
            last_be[track] = e["ts"]
            st = stacks.setdefault(track, [])
            if ph == "B":
                st.append(e["ts"])
            else:
                if not st:
                    fail(where + ": E without a B on track %r" % (track,))
                if e["ts"] < st.pop():
                    fail(where + ": E before its B")
    for track, st in stacks.items():
        if st:
            fail("track %r: %d B without E" % (track, len(st)))
    for track, sl in slices.items():
        sl.sort(key=lambda s: (s[0], -s[1]))
        open_ = []
        for b, e, n in sl:
            while open_ and open_[-1][1] <= b:
                open_.pop()
            if open_ and e > open_[-1][1]:
                fail("track %r: X slice of event %d [%s, %s] overlaps event %d [%s, %s] without nesting"
                     % (track, n, b, e, open_[-1][2], open_[-1][0], open_[-1][1]))
            open_.append((b, e, n))
    for pid in used_pids:
        if pid not in procs:
            fail("pid %d has no process_name metadata" % pid)
    for track in used_tracks:
        if track not in threads:
            fail("track %r has no thread_name metadata" % (track,))
    return events


def check_against(events, trace):
    import h5py
    with h5py.File(trace, "r") as f:
        jobs = f["jobs"][:]
        ts = f["timeseries/cluster"][:]
        inc = f["incidents"][:] if "incidents" in f else None
    by_name = {}
    for e in events:
        if e["ph"] == "X" and e.get("cat") == "job":
            by_name[e["name"]] = e
    finished = 0
    for row in jobs:
        if row["end"] < 0:
            continue
        finished += 1
        e = by_name.get("job %d" % row["id"])
        if e is None:
            fail("no slice for finished job %d" % row["id"])
        # µs, exact to the ns: ts * 1000 == start in ns (3 decimals printed)
        if e["ts"] * 1000 != int(row["start"]) or e["dur"] * 1000 != int(row["end"] - row["start"]):
            fail("job %d: slice [%r, +%r] µs vs start %d end %d ns" % (row["id"], e["ts"], e["dur"],
                                                                     row["start"], row["end"]))
        if e["args"]["gpus"] != int(row["gpus"]):
            fail("job %d: args.gpus %r vs %d" % (row["id"], e["args"]["gpus"], row["gpus"]))
    if finished == 0:
        fail("the trace has no finished job: nothing was compared")
    nslices = sum(1 for e in events if e["ph"] == "X" and e.get("cat") == "incident")
    if inc is not None and nslices != len(inc):
        fail("%d incident slices for %d incidents" % (nslices, len(inc)))
    util = [e for e in events if e["ph"] == "C" and e["name"] == "utilization"]
    if len(util) != len(ts):
        fail("%d utilization samples for %d time series rows" % (len(util), len(ts)))
    if util[-1]["ts"] * 1000 != int(ts["time"][-1]):
        fail("last counter at %r µs, the run ends at %d ns" % (util[-1]["ts"], ts["time"][-1]))
    q = [e for e in events if e["ph"] == "C" and e["name"] == "jobs"]
    if [e["args"]["queued"] for e in q] != [int(v) for v in ts["queued_jobs"]]:
        fail("queued counter differs from timeseries/cluster queued_jobs")
    print("check_chrome_trace: %d events; %d job slices, %d incident slices match the trace"
          % (len(events), finished, nslices))


def main():
    if len(sys.argv) not in (2, 3):
        fail("usage: check_chrome_trace.py RUN.json [TRACE.h5]")
    try:
        with open(sys.argv[1], encoding="utf-8") as fh:
            # numbers as exact decimals: a double cannot hold µs with 3
            # decimals (ns) of a run of months
            doc = json.load(fh, parse_float=decimal.Decimal)
    except (OSError, ValueError) as e:
        fail("%s: not valid JSON: %s" % (sys.argv[1], e))
    events = check_format(doc)
    if len(sys.argv) == 3:
        check_against(events, sys.argv[2])
    else:
        print("check_chrome_trace: %d events follow the format's rules" % len(events))


if __name__ == "__main__":
    main()
