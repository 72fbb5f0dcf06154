#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Check the folder written by `wanka export TRACE.h5 --format csv -o DIR`
against the trace, read with h5py (not wanka's code).

    check_export_csv.py DIR TRACE.h5

Every file parses as RFC 4180 CSV (CRLF line ends, a header row); jobs,
incidents and timeseries have one row per table row and every value equals
the trace's: integers exactly (times in ns), floats to the last bit (empty
= NaN), enums as the trace's enum names; summary.csv holds every summary
attribute; run.csv the root attributes, multi-line text (the scenario)
quoted and read back unchanged. Exits 1 with the first difference.
"""
import csv
import math
import os
import sys

import h5py

FILES = {"jobs.csv": "jobs", "incidents.csv": "incidents", "timeseries.csv": "timeseries/cluster"}
UNITS = ("_ns", "_s", "_w", "_gpu_h")


def fail(msg):
    print("check_export_csv: " + msg, file=sys.stderr)
    sys.exit(1)


def read_csv(path):
    with open(path, "rb") as fh:
        raw = fh.read()
    if raw and not raw.endswith(b"\r\n"):
        fail("%s: lines must end in CRLF" % path)
    if b"\n" in raw.replace(b"\r\n", b"") and b'"' not in raw:
        fail("%s: a bare LF outside a quoted field" % path)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, strict=True))
    if not rows:
        fail("%s: no header row" % path)
    return rows[0], rows[1:]


def column_of(header, name):
    """The trace column a CSV header names: the header less its unit suffix."""
    for suffix in UNITS:
        if name.endswith(suffix) and name[: -len(suffix)] in header:
            return name[: -len(suffix)]
    if name in header:
        return name
    fail("CSV column %r matches no trace column (%s)" % (name, ", ".join(header)))


def check_table(path, ds):
    header, rows = read_csv(path)
    data = ds[:]
    if len(rows) != len(data):
        fail("%s: %d rows, the trace has %d" % (path, len(rows), len(data)))
    names = data.dtype.names
    cols = [column_of(names, h) for h in header]
    missing = set(names) - set(cols)
    if missing:
        fail("%s: trace columns not exported: %s" % (path, ", ".join(sorted(missing))))
    for h, col in zip(header, cols):
        dt = ds.dtype[col]
        enum = h5py.check_enum_dtype(dt)
        byval = {v: k for k, v in enum.items()} if enum else None
        for i, row in enumerate(rows):
            got, want = row[header.index(h)], data[col][i]
            if byval is not None:
                ok = got == byval[int(want)]
            elif dt.kind in "iu":
                ok = got == str(int(want))
            else:
                ok = (got == "" and math.isnan(want)) or (got != "" and float(got) == float(want))
            if not ok:
                fail("%s row %d column %s: %r, the trace has %r" % (path, i, h, got, want))
    return len(rows)


def main():
    if len(sys.argv) != 3:
        fail("usage: check_export_csv.py DIR TRACE.h5")
    d, trace = sys.argv[1], sys.argv[2]
    n = 0
    with h5py.File(trace, "r") as f:
        for name, table in FILES.items():
            path = os.path.join(d, name)
            if table not in f:
                if os.path.exists(path):
                    fail("%s written for a table the trace lacks" % path)
                continue
            n += check_table(path, f[table])
        header, rows = read_csv(os.path.join(d, "summary.csv"))
        if header != ["metric", "value"]:
            fail("summary.csv header %r" % header)
        summ = {k: float(v) for k, v in f["summary"].attrs.items()}
        got = {r[0]: (float(r[1]) if r[1] else math.nan) for r in rows}
        if set(got) != set(summ):
            fail("summary.csv metrics differ from the trace's")
        for k, v in summ.items():
            if not (got[k] == v or (math.isnan(v) and math.isnan(got[k]))):
                fail("summary.csv %s: %r, the trace has %r" % (k, got[k], v))
        header, rows = read_csv(os.path.join(d, "run.csv"))
        attrs = dict(rows)
        for k, v in f.attrs.items():
            want = v.decode() if isinstance(v, bytes) else str(v)
            if attrs.get(k) != want:
                fail("run.csv %s: %r, the trace has %r" % (k, attrs.get(k), want[:80]))
        if "\n" not in attrs.get("scenario", ""):
            fail("run.csv: the scenario text should span lines (quoting not exercised)")
    print("check_export_csv: %d table rows, %d metrics and the root attributes match %s" % (n, len(summ), trace))


if __name__ == "__main__":
    main()
