#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""test_trace_hostile.py — crafted traces and sweep indexes, one per class of
damage the trace reader checks at open (docs/limits.md, "Trace open"): each
must end `wanka compare`, `wanka report` or `wanka sweep-merge` with exit
status 2 and one message `wanka: FILE: dataset/attribute: what is wrong`,
never a signal, a hang or a partial output file. The files are written
with h5py, not with wanka's writer, so they can break the schema.

usage: test_trace_hostile.py WANKA SRCROOT
With an ASan build's wanka (WANKA given as that binary) any sanitizer report
makes the command's status differ from 2 and fails the case.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

WANKA, SRC = sys.argv[1], sys.argv[2]
SWEEP = os.path.join(SRC, "tests", "fuzz", "corpus", "trace", "sweep-index.h5")
RUN = os.path.join(SRC, "tests", "fuzz", "corpus", "trace", "throttle-run.h5")
T = tempfile.mkdtemp(prefix="wk-trace-hostile-")
passed = failed = 0

STATUS = {"completed": 0, "rejected": 1, "queued": 2, "running": 3, "not_submitted": 4}
KIND = {"down": 0, "throttle": 1, "straggler": 2, "software": 3}


def expect(pattern, *args, extra_env=None):
    """Run wanka args: exit 2, pattern in its output, nothing from a sanitizer."""
    global passed, failed
    env = dict(os.environ, WANKA_TRACE_OPEN_LIMIT="20", **(extra_env or {}))
    try:
        p = subprocess.run([WANKA, *args], capture_output=True, text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        failed += 1
        print(f"FAIL: wanka {' '.join(args)}: no end in 60 s")
        return
    out = p.stdout + p.stderr
    if p.returncode != 2 or pattern not in out or "Sanitizer" in out or "runtime error" in out:
        failed += 1
        print(f"FAIL: wanka {' '.join(args)} -> status {p.returncode}, want 2 and '{pattern}':\n{out}")
    else:
        passed += 1


def fixed(text):
    """A fixed-length UTF-8 string attribute value (what wanka writes; h5py's str is variable-length)."""
    b = text.encode("utf-8")
    return np.array(b, dtype=h5py.string_dtype("utf-8", max(len(b), 1)))


def trace(name, jobs_dtype=None, shape=None, **kw):
    """A minimal trace: the root attributes, a summary, and a jobs table."""
    path = os.path.join(T, name)
    with h5py.File(path, "w") as f:
        f.attrs["schema_version"] = fixed("1.1")
        f.attrs["scenario_name"] = fixed("hostile")
        f.attrs["scheduler"] = fixed("fifo")
        f.attrs["seed"] = np.int64(1)
        f.create_group("summary").attrs["utilization"] = 0.5
        if jobs_dtype is not None:
            if shape is None:
                f.create_dataset("jobs", data=np.zeros(3, dtype=jobs_dtype), **kw)
            else:
                f.create_dataset("jobs", dtype=jobs_dtype, shape=shape, **kw)
    return path


def enum8(names):
    return h5py.enum_dtype(names, basetype="u1")


JOBS = np.dtype([("id", "<u4"), ("gpus", "<u4"), ("status", enum8(STATUS))])

# 1. an enum whose names are not the schema's
bad_enum = {"completed": 0, "rejected": 1, "queued": 2, "running": 3, "bogus": 9}
p = trace("enum-names.h5", np.dtype([("id", "<u4"), ("status", enum8(bad_enum))]))
expect(f"{p}: jobs/status: column enum value 9 'bogus' is not the schema's (completed=0,", "compare", p)
p = trace("enum-count.h5", np.dtype([("id", "<u4"), ("status", enum8(dict(STATUS, bogus=9)))]))
expect(f"{p}: jobs/status: column enum has 6 values, the schema 5", "compare", p)

# 2. an enum value stored outside the enum's values (the column is read by report)
rows = np.zeros(3, dtype=np.dtype([("id", "<u4"), ("start", "<i8"), ("end", "<i8"), ("gpus", "<u4"),
                                   ("status", "u1"), ("iterations", "<f8"), ("iteration_time", "<f8")]))
rows["status"] = [0, 7, 1]
p = trace("enum-value.h5")
with h5py.File(p, "a") as f:
    dt = np.dtype([("id", "<u4"), ("start", "<i8"), ("end", "<i8"), ("gpus", "<u4"),
                   ("status", enum8(STATUS)), ("iterations", "<f8"), ("iteration_time", "<f8")])
    f.create_dataset("jobs", data=rows.view(dt))
    inc = np.zeros(1, dtype=np.dtype([("kind", enum8(KIND)), ("start", "<i8"), ("end", "<i8")]))
    inc["kind"] = 1
    inc["end"] = 10
    f.create_dataset("incidents", data=inc)
expect(f"{p}: jobs/status: row 1: value 7 is none of the enum's values", "report", "paper-sci", p, p,
       "--throttle", p)

# 3. a member of the wrong type
p = trace("member-type.h5", np.dtype([("id", "<u4"), ("gpus", "<f8")]))
expect(f"{p}: jobs/gpus: column is not a uint32 column", "compare", p)

# 4. a column the schema does not have, in a trace of the reader's own minor version
p = trace("unknown-column.h5", np.dtype([("id", "<u4"), ("nonsense", "<f8")]))
expect(f"{p}: jobs/nonsense: column is not a column of trace schema 1.1", "compare", p)

# 5. more rows than the file can hold (2^61, no chunk written: a file of a few KB)
p = trace("rows.h5", JOBS, shape=(2**61,), chunks=(1024,), maxshape=(None,))
expect(f"{p}: jobs: 2305843009213693952 rows of 9 bytes cannot be stored in a file of", "compare", p)

# 6. attributes of the wrong type or shape
p = trace("attr-seed.h5")
with h5py.File(p, "a") as f:
    f.attrs["seed"] = "one"
expect(f"{p}: seed: attribute is not a single integer", "compare", p)
p = trace("attr-metric.h5")
with h5py.File(p, "a") as f:
    f["summary"].attrs["jct_p99_s"] = np.array([1.0, 2.0])
expect(f"{p}: summary/jct_p99_s: attribute is not a single number", "compare", p)
p = trace("attr-version.h5")
with h5py.File(p, "a") as f:
    f.attrs["schema_version"] = np.int64(1)
expect(f"{p}: attribute 'schema_version' is not a single string", "compare", p)

# 6b. variable-length string attributes (HDF5 1.10 overflows a buffer reading a
#     crafted one): refused unless WANKA_TRACE_VLEN=1 says the file is trusted
p = trace("attr-vlen.h5")
with h5py.File(p, "a") as f:
    f.attrs["scheduler"] = "fifo"  # h5py writes a str as a variable-length string
expect(f"{p}: scheduler: attribute is a variable-length string", "compare", p)
p = trace("attr-vlen-version.h5")
with h5py.File(p, "a") as f:
    f.attrs["schema_version"] = "1.1"
expect(f"{p}: schema_version: attribute is a variable-length string", "report", "paper-sci", p, p)
expect(f"{p}: schema_version: attribute is a variable-length string", "export", p, "-f", "csv", "-o",
       os.path.join(T, "vlen-csv"))

# 7. an external link (would open another file) and soft links (a loop)
p = trace("external.h5")
with h5py.File(p, "a") as f:
    f["jobs"] = h5py.ExternalLink(RUN, "/jobs")
expect(f"{p}: jobs: is (or lies below) a soft or external link", "compare", p)
p = trace("softloop.h5")
with h5py.File(p, "a") as f:
    f["incidents"] = h5py.SoftLink("/incidents")
    f["timeseries"] = h5py.SoftLink("/loop")
    f["loop"] = h5py.SoftLink("/timeseries")
expect(f"{p}: timeseries: is (or lies below) a soft or external link", "compare", p)
p = trace("softsummary.h5")
with h5py.File(p, "a") as f:
    del f["summary"]
    f["summary"] = h5py.SoftLink("/summary")
expect(f"{p}: summary: is (or lies below) a soft or external link", "compare", p)


# 8. sweep indexes: units count other than the metrics count; 2^62 points; 2^62 rows;
#    a string column of the wrong length
def sweep(name, edit):
    d = os.path.join(T, name)
    os.mkdir(d)
    path = os.path.join(d, "sweep-shard-0-of-1.h5")
    shutil.copy(SWEEP, path)
    with h5py.File(path, "a") as f:
        edit(f)
    return d, path


def fewer_units(f):
    u = f.attrs["metric_units"]
    u = u.decode() if isinstance(u, bytes) else u
    f.attrs["metric_units"] = fixed("\n".join(u.split("\n")[:-1]))


d, p = sweep("units", fewer_units)
expect(f"{p}: metric_units: ", "sweep-merge", d)
expect("metric units for", "compare", p)
d, p = sweep("vlen", lambda f: f.attrs.__setitem__("sweep_name", "x"))
expect(f"{p}: sweep_name: attribute is a variable-length string", "sweep-merge", d)
d, p = sweep("npoints", lambda f: f.attrs.__setitem__("npoints", np.int64(2**62)))
expect(f"{p}: npoints: 4611686018427387904 points is outside 0..1000000", "sweep-merge", d)


def huge_points(f):
    pts = f["points"][...]
    del f["points"]
    f.create_dataset("points", dtype=pts.dtype, shape=(2**62,), chunks=(1,), maxshape=(None,))


d, p = sweep("rows62", huge_points)
expect(f"{p}: points: 4611686018427387904 rows of", "sweep-merge", d)


def short_scheduler(f):
    pts = f["points"][...]
    dt = np.dtype([(n, "S32" if n == "scheduler" else pts.dtype.fields[n][0]) for n in pts.dtype.names])
    new = np.zeros(pts.shape, dtype=dt)
    for n in pts.dtype.names:
        new[n] = pts[n]
    del f["points"]
    f.create_dataset("points", data=new)


d, p = sweep("strlen", short_scheduler)
expect(f"{p}: points/scheduler: column is not a fixed-length string column of 64 bytes", "sweep-merge", d)
for name in os.listdir(d):
    if name != "sweep-shard-0-of-1.h5":
        failed += 1
        print(f"FAIL: sweep-merge left {name} behind after an error")

# 9. a truncated trace
p = os.path.join(T, "truncated.h5")
with open(RUN, "rb") as src, open(p, "wb") as dst:
    data = src.read()
    dst.write(data[: len(data) // 2])
expect(f"{p}: ", "compare", p)

# 10. an attribute name without its NUL within its stored length (found by the
# trace fuzzer): HDF5 1.10.8 reads past its buffer decoding it, so wanka
# checks the root's attribute messages in the file's bytes first
p = os.path.join(SRC, "tests", "fuzz", "corpus", "trace", "hdf5-attr-name-overread.h5")
expect(f"{p}: /: an attribute's name is not terminated within its stored length", "compare", p)
expect(f"{p}: /: an attribute's name is not terminated within its stored length", "export", p, "-f", "chrome",
       "-o", os.path.join(T, "overread.json"))
if os.path.exists(os.path.join(T, "overread.json")):
    failed += 1
    print("FAIL: export wrote a file for the over-reading trace")

# 11. an attribute's dataspace with more dimensions than its message holds
# (found by the trace fuzzer): HDF5 1.10.8 then dereferences NULL releasing
# the summary group's attribute table (a segmentation fault in compare and
# export); wanka checks each attribute's dataspace in the file's bytes first
p = os.path.join(SRC, "tests", "fuzz", "corpus", "trace", "hdf5-attr-rank-null.h5")
expect(f"{p}: summary: an attribute's dataspace is of an unknown version or holds more dimensions than its length",
       "compare", p, p)
expect(f"{p}: summary: an attribute's dataspace", "export", p, "-f", "csv", "-o", os.path.join(T, "rank-null"))
if os.path.exists(os.path.join(T, "rank-null")):
    failed += 1
    print("FAIL: export made a folder for the trace with the impossible dataspace")

# 12. an attribute's datatype of an unknown version (found by the trace
# fuzzer): HDF5 1.10.8 fails the attribute's decode and then dereferences
# NULL in H5A__close while the file closes (a segmentation fault in compare
# and export); wanka checks each attribute's datatype in the file's bytes
p = os.path.join(SRC, "tests", "fuzz", "corpus", "trace", "hdf5-attr-dtype-null.h5")
expect(f"{p}: summary: an attribute's datatype is of an unknown version or class",
       "compare", p, p)
expect(f"{p}: summary: an attribute's datatype", "export", p, "-f", "csv", "-o", os.path.join(T, "dtype-null"))
if os.path.exists(os.path.join(T, "dtype-null")):
    failed += 1
    print("FAIL: export made a folder for the trace with the unknown datatype")

# 13. a root attribute (dense storage, a fractal heap the byte checks do not
# reach) whose string type claims 1 MiB in a message of a few bytes: refused
# with the library's error, no over-read
p = os.path.join(SRC, "tests", "fuzz", "corpus", "trace", "hdf5-attr-data-overread.h5")
expect(f"{p}: cannot read attribute", "compare", p, p)

# 14. what no check of the file's bytes catches: with those checks off
# (WANKA_TRACE_PRECHECK=0), case 12's file makes the HDF5 library crash; the
# open runs first in a child process, so wanka names the file and the signal
# and exits 2, and export makes nothing
p = os.path.join(SRC, "tests", "fuzz", "corpus", "trace", "hdf5-attr-dtype-null.h5")
off = {"WANKA_TRACE_PRECHECK": "0"}
# (a sanitizer build's child exits 1 instead of dying of SIGSEGV: "failed")
expect(f"{p}: the HDF5 library", "compare", p, p, extra_env=off)
expect(f"{p}: ", "export", p, "-f", "csv", "-o", os.path.join(T, "probe"), extra_env=off)
if os.path.exists(os.path.join(T, "probe")):
    failed += 1
    print("FAIL: export made a folder for the trace that crashes the HDF5 library")

shutil.rmtree(T)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
