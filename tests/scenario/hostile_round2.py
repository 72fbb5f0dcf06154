#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""hostile_round2.py WANKA SRCDIR PYTHON3 [FAMILY...] — a hostile-input
campaign on networks of sites, facility files, exports, the HTML report,
plots, plugins, `-o` and concurrency (docs/limits.md, docs/brokers.md,
docs/analysis.md, docs/writing-a-scheduler.md).

Every case runs one command (under a time limit, in a session of its own,
signals at their default action, an address-space limit outside sanitizer
builds) and is judged by one oracle:
  - exit status 0 for valid input, 2 for bad input (1 where a command
    documents it: a conformance failure), 128+N (or death by N) for a
    signal N the case sends; never a crash signal, never a hang;
  - no "Traceback (most recent call last)" in the output;
  - an error (status 2) names the file at fault;
  - no temporary `*.tmp.*` left beside the outputs, and when the status is
    not 0 no output written (an output present before stays as it was);
  - the inputs are unchanged (checksums before and after);
  - the terminal output holds no raw control byte but newline and tab;
  - a CSV cell never starts with = + - @ (a number such as -1 is not a
    formula); JSON parses as strict UTF-8; HTML and SVG are UTF-8 and hold
    no raw <script or <img (names escaped).
Two documented behaviours are not findings: a conformance plugin that
floods stdout with its own bytes (a plugin is trusted code: only wanka's own
lines are judged, and the flood is read to its end), and a signal that
reaches `run` after its last event (the trace is finished and the status
is 128 + the signal: a complete trace that reads back is accepted).
It prints one line per mishandled case (family, id, what went wrong) and
"family: N cases, M mishandled" per family; exit status 1 when any case is
mishandled. Families may be named on the command line to run only them.
"""
import hashlib
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

W, SRC, PY = (os.path.abspath(a) if os.path.exists(a) else a for a in sys.argv[1:4])
ONLY = set(sys.argv[4:])
with open(W, "rb") as _f:
    ASAN = b"__asan_init" in _f.read()
SLOW = 4 if ASAN else 1
TIMEOUT = 60 * SLOW
T = tempfile.mkdtemp(prefix="wk-hostile2-")
INC = os.path.join(SRC, "include")

CASES = []
RESULTS = {}   # family -> [cases, mishandled]
FAILS = []


class Case:
    def __init__(self, fam, cid, argv, ok=(0, 2), cwd=None, inputs=(), outputs=(), names=None,
                 timeout=None, plant=(), sig=None, watch=None, markers=(), post=None, env=None,
                 fast=None, stdin=None, own=None):
        self.fam, self.cid, self.argv = fam, cid, [str(a) for a in argv]
        self.ok = set(ok)
        self.cwd = cwd or T
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.names = names            # a string the output must hold when the status is 2
        self.timeout = timeout or TIMEOUT
        self.plant = list(plant)      # (kind, path with {pid}, target): planted before exec
        self.sig = sig                # (signal, "tmp" | seconds)
        self.watch = watch or sorted({os.path.dirname(os.path.abspath(os.path.join(self.cwd, o)))
                                      for o in self.outputs} or {self.cwd})
        self.markers = markers
        self.post = post              # callable(case, status, out) -> [problems]
        self.env = env
        self.fast = fast              # seconds within which it must end (fail fast)
        self.stdin = stdin
        # a plugin's own bytes on stdout: only wanka's own lines (those holding one of these markers, from the
        # marker on) are judged, and a flood of the plugin's bytes is read to the end rather than stopped
        self.own = own


def add(*a, **k):
    c = Case(*a, **k)
    if not ONLY or c.fam in ONLY:
        CASES.append(c)
    return c


# ---------------------------------------------------------------- helpers
def wr(path, data, mode=None):
    path = os.path.join(T, path) if not os.path.isabs(path) else path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    if mode:
        os.chmod(path, mode)
    return path


def d(name):
    p = os.path.join(T, name)
    os.makedirs(p, exist_ok=True)
    return p


def snap(path):
    """What is at path: None, ('link', target), ('fifo',), ('dir',), ('file', sha256)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(path))
    if stat.S_ISFIFO(st.st_mode):
        return ("fifo",)
    if stat.S_ISDIR(st.st_mode):
        return ("dir", tuple(sorted(os.listdir(path))))
    if stat.S_ISREG(st.st_mode):
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for b in iter(lambda: f.read(1 << 20), b""):
                h.update(b)
        return ("file", h.hexdigest(), st.st_size)
    return ("other",)


def tmps(dirs):
    s = set()
    for dd in dirs:
        for root, _, files in os.walk(dd):
            for n in files:
                f = os.path.join(root, n)
                # wanka's temporaries are regular files; a link or FIFO there is a case's own plant
                if ".tmp." in n and not os.path.islink(f) and stat.S_ISREG(os.lstat(f).st_mode):
                    s.add(f)
            if root != dd:
                continue
    return s


def ctrl_bytes(out):
    """Raw control bytes in terminal output (C0 but \\n and \\t, DEL, C1)."""
    bad = []
    for i, ch in enumerate(out.decode("utf-8", "surrogateescape")):
        o = ord(ch)
        if (o < 0x20 and ch not in "\n\t") or o == 0x7f or 0x80 <= o <= 0x9f or 0xdc80 <= o <= 0xdc9f:
            bad.append(hex(o if o < 0xdc00 else o - 0xdc00))
            if len(bad) > 3:
                break
    return bad


def is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def check_file(path, markers):
    """Format problems of an output file (or of the CSV files of a folder)."""
    probs = []
    if os.path.isdir(path) and not os.path.islink(path):
        for n in sorted(os.listdir(path)):
            if n.endswith(".csv"):
                probs += check_file(os.path.join(path, n), markers)
        return probs
    if not os.path.isfile(path):
        return probs
    with open(path, "rb") as f:
        data = f.read()
    ext = os.path.splitext(path)[1]
    if ext in (".json", ".csv", ".html", ".svg"):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            return [f"{os.path.basename(path)}: not UTF-8 ({e.reason} at byte {e.start})"]
    if ext == ".json":
        try:
            json.loads(text)
        except ValueError as e:
            probs.append(f"{os.path.basename(path)}: JSON does not parse: {e}")
    elif ext == ".csv":
        import csv
        import io
        for r, row in enumerate(csv.reader(io.StringIO(text, newline=""))):
            for cell in row:
                if cell[:1] in ("=", "+", "-", "@") and not is_number(cell):
                    probs.append(f"{os.path.basename(path)}:{r + 1}: cell starts with {cell[:1]!r}: {cell[:40]!r}")
                    break
            if len(probs) > 2:
                break
    elif ext in (".html", ".svg"):
        low = text.lower()
        for m in ("<script", "<img"):
            if m in low:
                probs.append(f"{os.path.basename(path)}: raw {m} in the page")
        for m in markers:
            if m in text:
                probs.append(f"{os.path.basename(path)}: unescaped {m!r}")
    elif ext == ".h5" and not data.startswith(b"\x89HDF"):
        probs.append(f"{os.path.basename(path)}: not an HDF5 file")
    return probs


def complete_trace(path):
    """1 when path is a whole trace that wanka reads back (compare of it with itself ends 0)."""
    try:
        with open(path, "rb") as f:
            if not f.read(8).startswith(b"\x89HDF"):
                return False
    except OSError:
        return False
    r = subprocess.run([W, "compare", path, path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=TIMEOUT)
    return r.returncode == 0


def limits():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(s, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if not ASAN:
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))


def run_case(c):
    """Run one case; return the list of problems."""
    inputs = {p: snap(p) for p in c.inputs}
    outs = {o: snap(os.path.join(c.cwd, o)) for o in c.outputs}
    before = tmps(c.watch)
    argv = c.argv
    if c.plant:
        lines = []
        for kind, path, target in c.plant:
            p = path.replace("{pid}", "$$")
            if kind == "link":
                lines.append(f'ln -s "{target}" "{p}"')
            elif kind == "fifo":
                lines.append(f'mkfifo "{p}"')
            elif kind == "dir":
                lines.append(f'mkdir "{p}"')
        argv = ["/bin/sh", "-c", "; ".join(lines) + '; exec "$@"', "sh"] + argv
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=c.cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL if c.stdin is None else subprocess.PIPE,
                         preexec_fn=limits, start_new_session=True, env=c.env)
    chunks = []
    flood = []

    def drain():  # keep at most 16 MiB of a case's output: a flood is a finding, not the driver's death
        kept = 0
        carry = b""
        while True:
            b = p.stdout.read(1 << 16)
            if not b:
                break
            if c.own:  # keep wanka's own lines only, each from its marker on
                lines = (carry + b).split(b"\n")
                carry = lines.pop()[-4096:]
                for ln in lines:
                    at = [ln.find(m) for m in c.own if m in ln]
                    if at and kept < (16 << 20):
                        chunks.append(ln[min(at):] + b"\n")
                        kept += len(ln) - min(at) + 1
                continue
            if kept < (16 << 20):
                chunks.append(b)
                kept += len(b)
            elif not flood:
                flood.append(kept)
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
    reader = threading.Thread(target=drain)
    reader.start()
    sent = None
    if c.sig:
        sg, when = c.sig
        while p.poll() is None and time.monotonic() - t0 < c.timeout:
            if (when == "tmp" and tmps(c.watch) - before) or (when != "tmp" and time.monotonic() - t0 >= when):
                p.send_signal(sg)
                sent = sg
                break
            time.sleep(0.002)
    hung = False
    try:
        p.wait(timeout=max(1, c.timeout - (time.monotonic() - t0)))
    except subprocess.TimeoutExpired:
        hung = True
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    try:
        os.killpg(p.pid, signal.SIGKILL)   # what it left running (plot's python3)
    except OSError:
        pass
    reader.join(10)
    wall = time.monotonic() - t0
    out = b"".join(chunks)
    st = p.returncode
    text = out.decode("utf-8", "replace")
    probs = []
    if flood:
        probs.append("output flood: more than 16 MiB written, stopped")
    if hung:
        probs.append(f"hang: no exit in {c.timeout} s")
    elif st < 0 and st != -(sent or 0):
        probs.append(f"killed by signal {-st} ({signal.Signals(-st).name})")
    elif st > 128 and st - 128 != (sent or 0):
        probs.append(f"status {st} (a signal it was not sent)")
    else:
        allowed = set(c.ok)
        if sent:
            allowed |= {128 + sent, -sent}
        if st not in allowed:
            probs.append(f"status {st}, want {'/'.join(map(str, sorted(allowed)))}")
    if c.fast and wall > c.fast and not hung:
        probs.append(f"took {wall:.1f} s, want under {c.fast} s")
    if "Traceback (most recent call last)" in text:
        probs.append("Python traceback")
    if st == 2 and c.names and c.names not in text:
        probs.append(f"message does not name {c.names!r}")
    cb = ctrl_bytes(out)
    if cb:
        probs.append(f"raw control bytes in output: {' '.join(cb)}")
    left = tmps(c.watch) - before
    if left:
        probs.append("left temporaries: " + " ".join(os.path.basename(x) for x in sorted(left)[:3]))
        for x in left:
            try:
                os.unlink(x)
            except OSError:
                pass
    for i, s in inputs.items():
        if snap(i) != s:
            probs.append(f"input changed: {os.path.basename(i)}")
    for o, s in outs.items():
        full = os.path.join(c.cwd, o)
        now = snap(full)
        if sent and st == 128 + sent and full.endswith(".h5") and now != s and complete_trace(full):
            # a signal that reaches `run` after its last event: the trace is being written (or was) and is
            # finished, and the status still says the signal came (docs/limits.md: Ctrl-C during `wanka
            # run`); a complete trace that reads back is the documented result, not an output left behind
            continue
        if st != 0 and now != s and not (s and s[0] == "dir" and now and now[0] == "dir"):
            probs.append(f"status {st} but output {os.path.basename(o)} {'written' if s is None else 'changed'}")
        if st == 0 and now is not None:
            probs += check_file(full, c.markers)
    if c.post and not hung:
        probs += c.post(c, st, text)
    if probs:
        tail = " ".join(text.split())[-240:]
        probs[-1] += f" | {tail}"
    return probs


# ---------------------------------------------------------------- inputs
def net(n=2, site="", top="", jobs=None, wan="wan: {default: {bandwidth: 100Gbps, latency: 10ms}}",
        nodes=1, names=None):
    names = names or [f"s{i}" for i in range(n)]
    lines = ["name: net"] + ([top] if top else []) + ["sites:"]
    for nm in names:
        lines.append(f"  - {{name: {nm}, cluster: {{nodes: {nodes}, gpus_per_node: 8}}{site}}}")
    if wan:
        lines.append(wan)
    lines.append("failures: {enabled: false}")
    lines.append(jobs or "workload: {source: inline, jobs: [{gpus: 8, duration: 1h}, {gpus: 8, duration: 2h, submit: 10m}]}")
    return "\n".join(lines) + "\n"


PRICES = "time,price_per_mwh,gco2_per_kwh\n0h,50,300\n12h,80,400\n"
SMALL = ("name: small\ncluster: {nodes: 2, gpus_per_node: 8}\nfailures: {enabled: false}\n"
         "workload: {source: inline, jobs: [{gpus: 8, duration: 1h}, {gpus: 16, duration: 2h, submit: 30m}]}\n")


def build_trace(name, text):
    """Run text as a scenario; the trace's path (None when it did not run)."""
    y = wr(f"traces/{name}.yaml", text)
    h = os.path.join(T, "traces", name + ".h5")
    r = subprocess.run([W, "run", y, "-q", "-o", h], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       preexec_fn=limits, timeout=TIMEOUT)
    return h if r.returncode == 0 and os.path.exists(h) else None


def cc(name, src):
    """Compile a plugin in the temporary folder; its path, or None."""
    c = wr(f"plug/{name}.c", src)
    so = os.path.join(T, "plug", name + ".so")
    r = subprocess.run(["cc", "-std=c11", "-shared", "-fPIC", "-O0", "-I", INC, c, "-o", so],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        print(f"cannot build plugin {name}: {r.stdout.decode(errors='replace')}")
        return None
    return so


SCHED = r'''
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <signal.h>
#include <wanka/sched.h>
static volatile int spin;
static int depth(int n) { volatile char b[4096]; b[0] = (char)n; return b[0] + depth(n + 1); }
static int init(void *p, const WkNode *k, const WkSchedCtx *c, WkError *e)
{ (void)p; (void)k; (void)c; (void)e; INIT; return 0; }
static int submit(void *p, WkSchedCtx *c, uint32_t j, WkError *e)
{ (void)p; SUBMIT; return wk_sched_reject(c, j, "test", e); }
static int release(void *p, WkSchedCtx *c, WkError *e) { (void)p; (void)c; (void)e; return 0; }
static size_t queued(const void *p) { (void)p; return 0; }
static const WkSchedOps ops = { .abi = WK_SCHED_ABI, .name = NAME, .description = DESC,
  .init = init, .on_submit = submit, .on_release = release, .queued = queued };
const WkSchedOps *wk_sched_plugin(void);
const WkSchedOps *wk_sched_plugin(void) { return &ops; }
'''

BROKER = r'''
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <signal.h>
#include <wanka/broker.h>
static volatile int spin;
static int depth(int n) { volatile char b[4096]; b[0] = (char)n; return b[0] + depth(n + 1); }
static int init(void *p, const WkNode *k, const WkBrokerCtx *c, WkError *e)
{ (void)p; (void)k; (void)c; (void)e; INIT; return 0; }
static int32_t choose(void *p, const WkBrokerCtx *c, uint32_t j)
{ (void)p; CHOOSE;
  for (uint32_t s = 0; s < wk_broker_sites(c); s++) if (wk_broker_feasible(c, j, s)) return (int32_t)s;
  return -1; }
static const WkBrokerOps ops = { .abi = WK_BROKER_ABI, .name = NAME, .description = DESC,
  .init = init, .choose = choose };
const WkBrokerOps *wk_broker_plugin(void);
const WkBrokerOps *wk_broker_plugin(void) { return &ops; }
'''


def plugin(kind, name, init="(void)0", call="(void)0", pname='"p"', desc='"a hostile test plugin"'):
    src = SCHED if kind == "sched" else BROKER
    src = (src.replace("INIT;", init + ";").replace("SUBMIT;", call + ";").replace("CHOOSE;", call + ";")
           .replace("NAME", pname).replace("DESC", desc))
    return cc(name, src)


# ---------------------------------------------------------------- families
def fam_tmp_links(tr):
    """A symlink, FIFO or folder at an output or at its temporary's name."""
    F = "tmp-links"
    victim = wr("tl/victim", "precious\n")
    cmds = {
        "run": (lambda o: [W, "run", wr("tl/s.yaml", SMALL), "-q", "-o", o], "t.h5", None),
        "run-net": (lambda o: [W, "run", wr("tl/n.yaml", net()), "-q", "-o", o], "n.h5", None),
        "export-chrome": (lambda o: [W, "export", tr, "--format", "chrome", "-o", o], "t.json", None),
        "export-csv": (lambda o: [W, "export", tr, "--format", "csv", "-o", os.path.dirname(o)], "jobs.csv", "csvdir"),
        "plot": (lambda o: [W, "plot", tr, "-o", o, "--what", "utilization"], "t.svg", None),
        "html": (lambda o: [W, "report", "paper-sci", tr, tr, "--html", o], "t.html", None),
    }
    for cname, (mk, out, sub) in cmds.items():
        for kind in ("tmp-link", "tmp-fifo", "tmp-dir", "out-link", "out-dangling", "out-fifo", "out-dir", "out-link-dir"):
            dd = d(f"tl/{cname}-{kind}" + (f"/{sub}" if sub else ""))
            o = os.path.join(dd, out)
            plant, pre_ok = [], (0, 2)
            if kind.startswith("tmp-"):
                # wanka's pid for run/export; the python3 child's for plot/html (likely pid+1..+8)
                pids = ["{pid}"] if cname.startswith(("run", "export")) else [f"$(($$+{k}))" for k in range(1, 9)]
                for pp in pids:
                    plant.append((kind[4:], o + ".tmp." + pp, victim))
                ok = (2,) if cname.startswith(("run", "export")) else (0, 2)
            elif kind == "out-link":
                os.symlink(victim, o)
                ok = pre_ok
            elif kind == "out-dangling":
                os.symlink(os.path.join(T, "tl", "nowhere", "x"), o)
                ok = pre_ok
            elif kind == "out-fifo":
                os.mkfifo(o)
                ok = pre_ok
            elif kind == "out-dir":
                os.mkdir(o)
                ok = (2,)
            else:
                os.symlink(d("tl/adir"), o)
                ok = pre_ok
            argv = mk(o)

            def post(c, st, text, o=o, kind=kind):
                pr = []
                with open(victim) as f:
                    if f.read() != "precious\n":
                        pr.append("wrote through a link to the victim")
                        wr(victim, "precious\n")
                if os.listdir(os.path.join(T, "tl", "adir")):
                    pr.append("wrote into the folder a link at the output points to")
                return pr
            add(F, f"{cname}/{kind}", argv, ok=ok, inputs=[victim, tr], outputs=[o], plant=plant,
                names=os.path.basename(o) if cname != "export-csv" else None, post=post, watch=[dd])


def fam_o_input(tr):
    """-o naming one of the command's inputs (each case in a fresh copy of the inputs)."""
    F = "o-input"
    sch = plugin("sched", "oi_sched", pname='"oi-sched"')
    brk = plugin("broker", "oi_broker", pname='"oi-broker"')
    seq = [0]

    def fresh():
        seq[0] += 1
        dd = d(f"oi/{seq[0]}")
        d(f"oi/{seq[0]}/sub")
        wr(f"{dd}/prices.csv", PRICES)
        wr(f"{dd}/site.csv", PRICES)
        wr(f"{dd}/jobs.csv", "timestamp,duration,num_gpus\n2017-10-01 00:00:00,3600,8\n2017-10-01 00:10:00,600,8\n")
        wr(f"{dd}/inc.yaml", "failures: {enabled: false}\n")
        shutil.copy(sch, os.path.join(dd, "sched.so"))
        shutil.copy(brk, os.path.join(dd, "broker.so"))
        wr(f"{dd}/s.yaml",
           "include: inc.yaml\nname: oi\n"
           "facility: {prices: prices.csv, prices_repeat: true}\nplugins: [sched.so]\n"
           "scheduler: oi-sched\nbroker: {plugin: broker.so}\n"
           "sites:\n  - {name: a, cluster: {nodes: 1, gpus_per_node: 8}, facility: {prices: site.csv, prices_repeat: true}}\n"
           "  - {name: b, cluster: {nodes: 1, gpus_per_node: 8}}\n"
           "wan: {default: {bandwidth: 10Gbps}}\nworkload: {source: philly, trace: jobs.csv}\n")
        shutil.copy(tr, os.path.join(dd, "t.h5"))
        return dd, [os.path.join(dd, n) for n in ("s.yaml", "inc.yaml", "prices.csv", "site.csv", "jobs.csv",
                                                  "sched.so", "broker.so", "t.h5")]
    # the scenario must run as it is, or the cases below test nothing
    dd, inputs = fresh()
    add(F, "baseline", [W, "run", "s.yaml", "-q", "-o", "ok.h5"], ok=(0,), cwd=dd, inputs=inputs, outputs=["ok.h5"])
    for n in ("s.yaml", "./s.yaml", "inc.yaml", "prices.csv", "site.csv", "jobs.csv", "sched.so", "broker.so",
              "../{i}/s.yaml", "{dd}/prices.csv", "./site.csv", "sub/../jobs.csv", "sub/../sched.so"):
        for kp in ((), ("--keep-partial",)):
            dd, inputs = fresh()
            o = n.format(i=seq[0], dd=dd)
            add(F, "run " + " ".join(kp + ("-o", n)), [W, "run", "s.yaml", "-q", *kp, "-o", o], ok=(2,), cwd=dd, inputs=inputs,
                names=os.path.basename(o))
    dd, inputs = fresh()
    shutil.copy(os.path.join(dd, "s.yaml"), os.path.join(dd, "x.partial.h5"))
    add(F, "run --keep-partial -o x.h5 (x.partial.h5 the scenario)", [W, "run", "x.partial.h5", "-q", "--keep-partial", "-o", "x.h5"],
        ok=(2,), cwd=dd, inputs=inputs + [os.path.join(dd, "x.partial.h5")], names="x.partial.h5", outputs=["x.h5"])
    dd, inputs = fresh()
    os.symlink("s.yaml", os.path.join(dd, "lnk.h5"))
    add(F, "run -o a symlink to the scenario", [W, "run", "s.yaml", "-q", "-o", "lnk.h5"], ok=(0, 2), cwd=dd, inputs=inputs)
    dd, inputs = fresh()
    os.link(os.path.join(dd, "prices.csv"), os.path.join(dd, "hard.h5"))
    add(F, "run -o a hard link to the prices", [W, "run", "s.yaml", "-q", "-o", "hard.h5"], ok=(0, 2), cwd=dd, inputs=inputs)
    dd, inputs = fresh()
    add(F, "run -o the --plugin file", [W, "run", "s.yaml", "-q", "--plugin", "sched.so", "-o", "sched.so"],
        ok=(2,), cwd=dd, inputs=inputs, names="sched.so")
    dd, inputs = fresh()
    add(F, "run -o the --broker-plugin file", [W, "run", "s.yaml", "-q", "--broker-plugin", "broker.so", "-o", "broker.so"],
        ok=(2,), cwd=dd, inputs=inputs, names="broker.so")
    # export, plot, report over their own input
    dd, inputs = fresh()
    add(F, "export chrome -o the trace", [W, "export", "t.h5", "--format", "chrome", "-o", "t.h5"], ok=(2,), cwd=dd,
        inputs=inputs, names="t.h5")
    dd, inputs = fresh()
    shutil.copy(tr, os.path.join(dd, "t.json"))
    add(F, "export chrome -o the trace (t.json)", [W, "export", "t.json", "--format", "chrome", "-o", "t.json"], ok=(2,),
        cwd=dd, inputs=[os.path.join(dd, "t.json")], names="t.json")
    dd, inputs = fresh()
    d(f"{dd}/cd")
    shutil.copy(tr, os.path.join(dd, "cd", "jobs.csv"))
    add(F, "export csv into the trace's folder (trace named jobs.csv)", [W, "export", "cd/jobs.csv", "--format", "csv", "-o", "cd"],
        ok=(2,), cwd=dd, inputs=[os.path.join(dd, "cd", "jobs.csv")], names="jobs.csv")
    dd, inputs = fresh()
    shutil.copy(tr, os.path.join(dd, "t.svg"))
    add(F, "plot -o the trace (t.svg)", [W, "plot", "t.svg", "-o", "t.svg", "--what", "utilization"], ok=(2,), cwd=dd,
        inputs=[os.path.join(dd, "t.svg")], names="t.svg")
    dd, inputs = fresh()
    shutil.copy(tr, os.path.join(dd, "t.html"))
    add(F, "report --html the trace (t.html)", [W, "report", "paper-sci", "t.html", "t.html", "--html", "t.html"], ok=(2,),
        cwd=dd, inputs=[os.path.join(dd, "t.html")], names="t.html")
    dd, inputs = fresh()
    sw = wr(f"{dd}/sw/sweep.yaml", "name: sw\nbase: ../s.yaml\nseeds: {from: 1, to: 2}\n")
    add(F, "sweep -o the folder of its sweep file", [W, "sweep", "sw/sweep.yaml", "-j", "2", "-q", "-o", "sw"], ok=(0, 2), cwd=dd,
        inputs=inputs + [sw])
    dd, inputs = fresh()
    sw = wr(f"{dd}/sweep.yaml", "name: sw\nbase: s.yaml\nseeds: {from: 1, to: 2}\n")
    add(F, "sweep -o the folder of all its inputs", [W, "sweep", "sweep.yaml", "-j", "2", "-q", "-o", "."], ok=(0, 2), cwd=dd,
        inputs=inputs + [sw])


def fam_net_size():
    F = "net-size"
    for n in (1, 2, 8, 14, 63, 64, 65, 100, 1000):
        y = wr(f"ns/sites{n}.yaml", net(n))
        ok = (0,) if n <= 64 else (2,)
        add(F, f"validate sites={n}", [W, "validate", y], ok=ok, inputs=[y], names="sites", fast=20 * SLOW)
        add(F, f"run sites={n}", [W, "run", y, "-q", "-o", os.path.join(T, "ns", f"o{n}.h5")], ok=ok, inputs=[y],
            outputs=[os.path.join(T, "ns", f"o{n}.h5")], names="sites")
    for k, ok in ((0, (2,)), (-1, (2,)), (1, (0,)), (2, (0,)), (8, (0,)), (9, (2,)), (3, (2,)), ("2.5", (2,)), ("many", (2,))):
        nn = 8 if k in (8, 9) else 2
        y = wr(f"ns/span{k}.yaml", net(nn, top=f"span: {{sites: {k}}}",
                                       jobs="workload: {source: inline, jobs: [{gpus: 16, model: llama3-8b, iterations: 20}, {gpus: 8, duration: 1h}]}"))
        add(F, f"span.sites={k} of {nn}", [W, "run", y, "-q", "--no-trace"], ok=ok, inputs=[y], names="span")
    big = "cluster: {nodes: 500000, gpus_per_node: 8}"
    for n, ok in ((1, (0, 2)), (2, (0, 2)), (14, (0, 2))):
        names = [f"s{i}" for i in range(n)]
        text = "name: bomb\nsites:\n" + "".join(f"  - {{name: {x}, {big}}}\n" for x in names) + \
            "wan: {default: {bandwidth: 100Gbps}}\nworkload: {source: inline, jobs: [{gpus: 8, duration: 1h}]}\n"
        y = wr(f"ns/bomb{n}.yaml", text)
        add(F, f"validate {n} sites x 4M GPUs", [W, "validate", y], ok=ok if n < 14 else (2,), inputs=[y], fast=20 * SLOW,
            names="bomb")
        if n == 14:
            add(F, "run 14 sites x 4M GPUs", [W, "run", y, "-q", "--no-trace"], ok=(2,), inputs=[y], fast=20 * SLOW,
                names="bomb")
            add(F, "topo 14 sites x 4M GPUs", [W, "topo", y], ok=(2,), inputs=[y], fast=20 * SLOW, names="bomb")
    for g, ok in ((4000000, (0, 2)), (4000001, (2,)), (1 << 32, (2,)), (-8, (2,)), ("1e30", (2,))):
        y = wr(f"ns/sitegpus{g}.yaml", net(2, nodes=-(-g // 8) if isinstance(g, int) and g > 0 else 1))
        if not (isinstance(g, int) and g > 0):
            y = wr(f"ns/sitegpus{g}.yaml", net(2).replace("nodes: 1,", f"nodes: {g},", 1))
        add(F, f"validate site nodes for {g} GPUs", [W, "validate", y], ok=ok, inputs=[y], fast=20 * SLOW, names="sitegpus")
    for g, ok in ((4000000, (0, 2)), (4000001, (2,)), (0, (2,)), (16, (0,)), (17, (0,))):
        y = wr(f"ns/jobgpus{g}.yaml", net(2, jobs=f"workload: {{source: inline, jobs: [{{gpus: {g}, duration: 1h}}]}}"))
        add(F, f"run job of {g} GPUs in 2 x 8", [W, "run", y, "-q", "--no-trace"], ok=ok, inputs=[y], names="jobgpus")
    for nj, ok in ((5000000, (0, 2)), (5000001, (2,))):
        y = wr(f"ns/jobs{nj}.yaml", net(64, jobs=f"workload: {{source: synthetic, jobs: {nj}}}"))
        add(F, f"validate 64 sites x {nj} jobs", [W, "validate", y], ok=ok, inputs=[y], names="jobs")
    y = wr("ns/jobs5m-run.yaml", net(64, jobs="workload: {source: synthetic, jobs: 5000000}", top="sim: {end: 1h}"))
    add(F, "run 64 sites x 5M jobs (memory-bounded)", [W, "run", y, "-q", "--no-trace"], ok=(0, 2), inputs=[y],
        names="jobs5m-run")
    add(F, "64 sites, each a broker choice", [W, "run", wr("ns/b64.yaml", net(64, top="broker: fastest-finish")),
                                              "-q", "--no-trace"], ok=(0,))


def fam_time():
    F = "time"
    span_job = "workload: {source: inline, jobs: [{gpus: 16, model: llama3-8b, iterations: 50}, {gpus: 8, duration: 1h}]}"
    # the least bandwidth is 1 kbit/s, inclusive (docs/limits.md); 999 bit/s is refused
    for bw, ok in (("1kbps", (0,)), ("1000", (0,)), ("999", (2,)), ("1001", (0, 2)), ("1.5kbps", (0, 2)), ("0", (2,)), ("-1Gbps", (2,)),
                   ("1e16", (0,)), ("1.1e16", (2,)), ("inf", (2,)), ("nan", (2,)), ("1e400", (2,)), ("10 parsecs", (2,))):
        for sp in ("", "span: {sites: 2, when: too-big}"):
            y = wr(f"tm/bw{bw}{len(sp)}.yaml".replace(" ", "_"),
                   net(2, top=sp, wan=f"wan: {{default: {{bandwidth: {bw}, latency: 1ms}}}}", jobs=span_job,
                       site=", data_share: 1"))
            add(F, f"bandwidth {bw}{' span' if sp else ''}", [W, "run", y, "-q", "--no-trace"], ok=ok, inputs=[y],
                names=os.path.basename(y))
    for lat, ok in (("1h", (0,)), ("3600000000001ns", (2,)), ("1e9h", (2,)), ("-1ms", (2,)), ("106752d", (2,)), ("292y", (2,))):
        y = wr(f"tm/lat{lat}.yaml", net(2, top="span: {sites: 2}", wan=f"wan: {{default: {{bandwidth: 1Gbps, latency: {lat}}}}}",
                                        jobs=span_job))
        add(F, f"latency {lat}", [W, "run", y, "-q", "--no-trace"], ok=ok, inputs=[y], names=os.path.basename(y))
    for rows, rep, end, ok in (
            ("0h,1,1\n106751d,2,2\n", False, "", (0, 2)),          # rows 292 years apart
            ("0h,1,1\n106751d,2,2\n", True, "", (0, 2)),
            ("0h,1,1\n53375d,2,2\n", True, "sim: {end: 106000d}\n", (0, 2)),
            ("0h,1,1\n1ns,2,2\n", True, "sim: {end: 53000d}\n", (0, 2)),   # 10^18 repeats of 2 ns
            ("0h,1,1\n1ns,2,2\n", True, "", (0, 2)),
            ("0h,1,1\n1ns,2,2\n", False, "", (2,)),                 # does not cover the run
            ("0h,1,1\n26000d,2,2\n", False, "sim: {end: 52000d}\n", (0, 2)),
            ("0h,1,1\n2305843009213693951ns,2,2\n", True, "", (0, 2)),
            ("0h,1,1\n9223372036854775807ns,2,2\n", True, "", (0, 2)),   # 292 years: the largest duration
            ("0h,1,1\n9223372036854775808ns,2,2\n", False, "", (2,)),
            ("0h,1,1\n1e30s,2,2\n", True, "", (2,))):
        i = len([c for c in CASES if c.fam == F])
        pc = wr(f"tm/p{i}.csv", "time,price_per_mwh,gco2_per_kwh\n" + rows)
        for where in ("top", "site"):
            fac = f"{{prices: {os.path.basename(pc)}, prices_repeat: {str(rep).lower()}}}"
            y = wr(f"tm/p{i}{where}.yaml", end + (net(2, top=f"facility: {fac}") if where == "top" else
                                                   net(2, site=f", facility: {fac}")))
            add(F, f"prices {rows.strip().splitlines()[-1]} repeat={rep} {end.strip()} ({where})",
                [W, "run", y, "-q", "--no-trace"], ok=ok, inputs=[y, pc], names=os.path.basename(pc) if 2 in ok and 0 not in ok else None)
    for dur, ok in (("2305843009213693951ns", (0, 2)), ("2305843009213693952ns", (2,)), ("73y", (2,)), ("26000d", (0, 2))):
        y = wr(f"tm/dur{dur}.yaml", net(2, top="span: {sites: 2}\nbroker: fastest-finish",
                                        jobs=f"workload: {{source: inline, jobs: [{{gpus: 16, duration: {dur}}}, {{gpus: 8, duration: {dur}, submit: {dur}}}]}}"))
        add(F, f"durations {dur} in a network", [W, "run", y, "-q", "--no-trace"], ok=ok, inputs=[y], names=os.path.basename(y))
    for sync, hold, ok in (("1s", "0", (0,)), ("1ns", "30m", (2,)), ("1d", "30d", (0,)), ("2d", "1h", (2,)), ("1s", "31d", (2,))):
        y = wr(f"tm/sync{sync}{hold}.yaml", net(2, top=f"span: {{sites: 2, when: faster, sync: {sync}, hold: {hold}}}", jobs=span_job))
        add(F, f"span sync {sync} hold {hold}", [W, "run", y, "-q", "--no-trace"], ok=ok, inputs=[y], names=os.path.basename(y))


PRICE_BAD = {
    "nul-byte": (b"time,price_per_mwh,gco2_per_kwh\n0h,5\x000,300\n12h,80,400\n", (2,)),
    "nul-line": (b"time,price_per_mwh,gco2_per_kwh\n0h,50,300\n\x00\n12h,80,400\n", (2,)),
    "bom": (b"\xef\xbb\xbftime,price_per_mwh,gco2_per_kwh\n0h,50,300\n12h,80,400\n", (0, 2)),
    "utf16-bom": ("time,price_per_mwh,gco2_per_kwh\n0h,50,300\n12h,80,400\n".encode("utf-16"), (2,)),
    "hex-price": (b"time,price_per_mwh,gco2_per_kwh\n0h,0x10,300\n12h,80,400\n", (2,)),
    "hexfloat": (b"time,price_per_mwh,gco2_per_kwh\n0h,0x1p4,300\n12h,80,400\n", (2,)),
    "inf-price": (b"time,price_per_mwh,gco2_per_kwh\n0h,inf,300\n12h,80,400\n", (2,)),
    "INF-carbon": (b"time,price_per_mwh,gco2_per_kwh\n0h,50,INF\n12h,80,400\n", (2,)),
    "nan-price": (b"time,price_per_mwh,gco2_per_kwh\n0h,nan,300\n12h,80,400\n", (2,)),
    "NaN-carbon": (b"time,price_per_mwh,gco2_per_kwh\n0h,50,NaN\n12h,80,400\n", (2,)),
    "neg-price": (b"time,price_per_mwh,gco2_per_kwh\n0h,-5,300\n12h,80,400\n", (2,)),
    "neg-zero": (b"time,price_per_mwh,gco2_per_kwh\n0h,-0,300\n12h,80,400\n", (0, 2)),
    "neg-time": (b"time,price_per_mwh,gco2_per_kwh\n-1h,50,300\n12h,80,400\n", (2,)),
    "empty-price": (b"time,price_per_mwh,gco2_per_kwh\n0h,,300\n12h,80,400\n", (2,)),
    "empty-time": (b"time,price_per_mwh,gco2_per_kwh\n,50,300\n12h,80,400\n", (2,)),
    "overflow": (b"time,price_per_mwh,gco2_per_kwh\n0h,1e400,300\n12h,80,400\n", (2,)),
    "huge-price": (b"time,price_per_mwh,gco2_per_kwh\n0h,1e300,1e300\n12h,1e300,1e300\n", (0, 2)),
    "non-monotonic": (b"time,price_per_mwh,gco2_per_kwh\n0h,50,300\n12h,80,400\n6h,70,300\n", (2,)),
    "duplicate-time": (b"time,price_per_mwh,gco2_per_kwh\n0h,50,300\n12h,80,400\n12h,70,300\n", (2,)),
    "first-not-zero": (b"time,price_per_mwh,gco2_per_kwh\n1h,50,300\n12h,80,400\n", (2,)),
    "one-row": (b"time,price_per_mwh,gco2_per_kwh\n0h,50,300\n", (2,)),
    "header-only": (b"time,price_per_mwh,gco2_per_kwh\n", (2,)),
    "empty": (b"", (2,)),
    "crlf": (b"time,price_per_mwh,gco2_per_kwh\r\n0h,50,300\r\n12h,80,400\r\n", (0, 2)),
    "cr-only": (b"time,price_per_mwh,gco2_per_kwh\r0h,50,300\r12h,80,400\r", (2,)),
    "missing-column": (b"time,price_per_mwh\n0h,50\n12h,80\n", (2,)),
    "short-row": (b"time,price_per_mwh,gco2_per_kwh\n0h,50\n12h,80,400\n", (2,)),
    "extra-field": (b"time,price_per_mwh,gco2_per_kwh\n0h,50,300,9\n12h,80,400\n", (2,)),
    "header-swapped": (b"time,gco2_per_kwh,price_per_mwh\n0h,50,300\n12h,80,400\n", (2,)),
    "header-spaces": (b"time, price_per_mwh, gco2_per_kwh\n0h,50,300\n12h,80,400\n", (0, 2)),
    "quoted": (b'time,price_per_mwh,gco2_per_kwh\n"0h","50","300"\n12h,80,400\n', (0, 2)),
    "long-line": (b"time,price_per_mwh,gco2_per_kwh\n0h,50,300" + b"0" * 2000000 + b"\n12h,80,400\n", (2,)),
    "long-comment": (b"# " + b"x" * 5000000 + b"\ntime,price_per_mwh,gco2_per_kwh\n0h,50,300\n12h,80,400\n", (0, 2)),
    "trailing-text": (b"time,price_per_mwh,gco2_per_kwh\n0h,50EUR,300\n12h,80,400\n", (2,)),
    "ctrl-in-value": (b"time,price_per_mwh,gco2_per_kwh\n0h,5\x1b[31m0,300\n12h,80,400\n", (2,)),
    "invalid-utf8": (b"time,price_per_mwh,gco2_per_kwh\n0h,\xff\xfe,300\n12h,80,400\n", (2,)),
    "time-unit-bad": (b"time,price_per_mwh,gco2_per_kwh\n0h,50,300\n12parsecs,80,400\n", (2,)),
    "time-overflow": (b"time,price_per_mwh,gco2_per_kwh\n0h,50,300\n99999999999999999999,80,400\n", (2,)),
    "formula": (b"time,price_per_mwh,gco2_per_kwh\n0h,=1+1,300\n12h,80,400\n", (2,)),
    "binary": (bytes(range(256)) * 64, (2,)),
}


def fam_prices():
    F = "prices"
    for key, (data, ok) in PRICE_BAD.items():
        pc = wr(f"pr/{key}.csv", data)
        for where in ("top", "site"):
            fac = f"{{prices: {key}.csv, prices_repeat: true}}"
            y = wr(f"pr/{key}-{where}.yaml", net(2, top=f"facility: {fac}") if where == "top" else net(2, site=f", facility: {fac}"))
            add(F, f"{key} ({where})", [W, "run", y, "-q", "--no-trace"], ok=ok, inputs=[pc, y], names=f"{key}.csv")
    # huge and sparse files
    for name, size, ok in (("sparse-2g", 2 << 30, (2,)), ("sparse-64m", 64 << 20, (2,))):
        pc = os.path.join(T, "pr", name + ".csv")
        with open(pc, "wb") as f:
            f.write(b"time,price_per_mwh,gco2_per_kwh\n0h,50,300\n12h,80,400\n")
        os.truncate(pc, size)
        y = wr(f"pr/{name}.yaml", net(2, top=f"facility: {{prices: {name}.csv, prices_repeat: true}}"))
        add(F, f"{name} (truncate -s)", [W, "run", y, "-q", "--no-trace"], ok=ok, inputs=[pc, y], names=f"{name}.csv",
            fast=30 * SLOW)
    rows = "".join(f"{i}s,{i % 97},{i % 13}\n" for i in range(1000001))
    pc = wr("pr/rows1m1.csv", "time,price_per_mwh,gco2_per_kwh\n" + rows)
    y = wr("pr/rows1m1.yaml", net(2, top="facility: {prices: rows1m1.csv, prices_repeat: true}"))
    add(F, "1,000,001 rows", [W, "run", y, "-q", "--no-trace"], ok=(2,), inputs=[pc, y], names="rows1m1.csv")
    # not a regular file
    fifo = os.path.join(T, "pr", "fifo.csv")
    os.mkfifo(fifo)
    y = wr("pr/fifo.yaml", net(2, top="facility: {prices: fifo.csv}"))
    add(F, "a FIFO as the price file", [W, "run", y, "-q", "--no-trace"], ok=(2,), inputs=[y], names="fifo.csv")
    y = wr("pr/dir.yaml", net(2, top="facility: {prices: ., prices_repeat: true}"))
    add(F, "a folder as the price file", [W, "run", y, "-q", "--no-trace"], ok=(2,), inputs=[y], names="dir.yaml")
    y = wr("pr/devzero.yaml", net(2, top="facility: {prices: /dev/zero}"))
    add(F, "/dev/zero as the price file", [W, "run", y, "-q", "--no-trace"], ok=(2,), inputs=[y], names="/dev/zero")
    y = wr("pr/missing.yaml", net(2, site=", facility: {prices: missing.csv}"))
    add(F, "a missing price file (site)", [W, "run", y, "-q", "--no-trace"], ok=(2,), inputs=[y], names="missing.csv")
    pc = wr("pr/noread.csv", PRICES, mode=0)
    if os.geteuid() != 0:
        y = wr("pr/noread.yaml", net(2, top="facility: {prices: noread.csv}"))
        add(F, "an unreadable price file", [W, "run", y, "-q", "--no-trace"], ok=(2,), inputs=[y], names="noread.csv")


def fam_yaml():
    F = "yaml"
    cases = [
        ("null budget_mw", net(2, top="facility: {budget_mw: null}"), (0,)),
        ("null budget_mw (site)", net(2, site=", facility: {budget_mw: ~}"), (0,)),
        ("budget_mw string", net(2, top='facility: {budget_mw: "6"}'), (2,)),
        ("budget_mw negative", net(2, top="facility: {budget_mw: -1}"), (2,)),
        ("budget_mw nan", net(2, top="facility: {budget_mw: .nan}"), (2,)),
        ("budget_mw list", net(2, top="facility: {budget_mw: [1, 2]}"), (2,)),
        ("budget and budget_mw", net(2, top="facility: {budget_mw: 1, budget: [{at: 0, mw: 1}]}"), (2,)),
        ("budget unordered", net(2, site=", facility: {budget: [{at: 1h, mw: 1}, {at: 0, mw: 1}]}"), (2,)),
        ("budget empty list", net(2, site=", facility: {budget: []}"), (0, 2)),
        ("prices null", net(2, top="facility: {prices: null}"), (0,)),
        ("prices a number", net(2, top="facility: {prices: 5}"), (2,)),
        ("prices a map", net(2, top="facility: {prices: {a: 1}}"), (2,)),
        ("prices empty string", net(2, top='facility: {prices: ""}'), (2,)),
        ("prices_repeat string", net(2, top='facility: {prices_repeat: "yes"}'), (2,)),
        ("carbon key unknown", net(2, top="facility: {carbon: grid.csv}"), (2,)),
        ("facility unknown key", net(2, site=", facility: {budget_mw: 5, bogus: 1}"), (2,)),
        ("facility a list", net(2, site=", facility: [1]"), (2,)),
        ("facility a string", net(2, top="facility: cheap"), (2,)),
        ("duplicate wan link", net(2, wan="wan:\n  links:\n    - {between: [s0, s1], bandwidth: 1Gbps}\n    - {between: [s0, s1], bandwidth: 10Gbps}"), (2,)),
        ("duplicate wan link reversed", net(2, wan="wan:\n  links:\n    - {between: [s0, s1], bandwidth: 1Gbps}\n    - {between: [s1, s0], bandwidth: 10Gbps}"), (2,)),
        ("wan link to itself", net(2, wan="wan: {links: [{between: [s0, s0], bandwidth: 1Gbps}]}"), (2,)),
        ("wan link unknown site", net(2, wan="wan: {links: [{between: [s0, zz], bandwidth: 1Gbps}]}"), (2,)),
        ("wan link three sites", net(3, wan="wan: {links: [{between: [s0, s1, s2], bandwidth: 1Gbps}]}"), (2,)),
        ("wan link one site", net(2, wan="wan: {links: [{between: [s0], bandwidth: 1Gbps}]}"), (2,)),
        ("wan link no bandwidth", net(2, wan="wan: {links: [{between: [s0, s1]}]}"), (2,)),
        ("wan link unknown key", net(2, wan="wan: {links: [{between: [s0, s1], bandwidth: 1Gbps, mtu: 9000}]}"), (2,)),
        ("wan unknown key", net(2, wan="wan: {default: {bandwidth: 1Gbps}, mesh: true}"), (2,)),
        ("wan default unknown key", net(2, wan="wan: {default: {bandwidth: 1Gbps, jitter: 1ms}}"), (2,)),
        ("wan a list", net(2, wan="wan: [1, 2]"), (2,)),
        ("wan links a map", net(2, wan="wan: {links: {a: 1}}"), (2,)),
        ("wan null", net(2, wan="wan: ~"), (0,)),
        ("wan cost negative", net(2, wan="wan: {default: {bandwidth: 1Gbps, cost_per_tb: -1}}"), (2,)),
        ("wan cost 1e13", net(2, wan="wan: {default: {bandwidth: 1Gbps, cost_per_tb: 1e13}}"), (2,)),
        ("wan bandwidth string number", net(2, wan='wan: {default: {bandwidth: "100"}}'), (2,)),
        ("site unknown key", net(2, site=", racks: 4"), (2,)),
        ("site cluster unknown key", net(2).replace("gpus_per_node: 8}", "gpus_per_node: 8, warp: 9}", 1), (2,)),
        ("site a string", "name: n\nsites: [a, b]\nworkload: {source: inline, jobs: [{gpus: 1, duration: 1h}]}\n", (2,)),
        ("sites a map", "name: n\nsites: {a: 1}\nworkload: {source: inline, jobs: [{gpus: 1, duration: 1h}]}\n", (2,)),
        ("sites empty", "name: n\nsites: []\nworkload: {source: inline, jobs: [{gpus: 1, duration: 1h}]}\n", (2,)),
        ("sites null", "name: n\nsites: ~\nworkload: {source: inline, jobs: [{gpus: 1, duration: 1h}]}\n", (2,)),
        ("site name duplicate", net(2, names=["a", "a"]), (2,)),
        ("site name empty", net(2, names=['""', "b"]), (2,)),
        ("site name 25 chars", net(2, names=["a" * 25, "b"]), (2,)),
        ("site name a number", net(2, names=["1", "2"]), (0, 2)),
        ("site name true", net(2, names=["true", "b"]), (0, 2)),
        ("site accepts unknown", net(2, site=", accepts: [ai, quantum]"), (2,)),
        ("site accepts empty", net(2, site=", accepts: []"), (0, 2)),
        ("site data_share negative", net(2, site=", data_share: -1"), (2,)),
        ("site data_share all zero", net(2, site=", data_share: 0"), (0, 2)),
        ("cluster beside sites", "cluster: {nodes: 1}\n" + net(2), (2,)),
        ("span unknown key", net(2, top="span: {sites: 2, across: all}"), (2,)),
        ("span a list", net(2, top="span: [2]"), (2,)),
        ("span when unknown", net(2, top="span: {when: always}"), (2,)),
        ("span without sites", SMALL + "span: {sites: 2}\n", (2,)),
        ("span null", net(2, top="span: ~"), (0,)),
        ("broker unknown", net(2, top="broker: cheapest"), (2,)),
        ("broker unknown key", net(2, top="broker: {name: least-loaded, slack: 1h}"), (2,)),
        ("broker slack negative", net(2, top="broker: {name: energy-price, slack: -1h}"), (2,)),
        ("broker a list", net(2, top="broker: [least-loaded]"), (2,)),
        ("broker plugin missing", net(2, top="broker: {plugin: nothere.so}"), (2,)),
        ("broker plugin a number", net(2, top="broker: {plugin: 5}"), (2,)),
        ("broker plugin not a .so", net(2, top="broker: {plugin: y-broker-notso.yaml}"), (2,)),
        ("plugins a map", net(2, top="plugins: {a: 1}"), (2,)),
        ("plugins a folder", net(2, top="plugins: [.]"), (2,)),
        ("plugins /dev/null", net(2, top="plugins: [/dev/null]"), (2,)),
        ("site plugins unknown", net(2, site=", plugins: [nothere.so]"), (2,)),
        ("data unknown key", net(2, top="data: {bytes_per_token: 4, compress: true}"), (2,)),
        ("data bytes negative", net(2, top="data: {bytes_per_token: -4}"), (2,)),
        ("data bytes 1e30", net(2, top="data: {job_bytes: 1e30}"), (2,)),
    ]
    for cid, text, ok in cases:
        fn = "y-" + "".join(ch if ch.isalnum() else "-" for ch in cid) + ".yaml"
        y = wr("ym/" + fn, text)
        wr("ym/y-broker-notso.yaml", "x: 1\n")
        add(F, cid, [W, "validate", y], ok=ok, inputs=[y], names=fn)
        if ok == (0,) or cid.startswith(("duplicate", "wan link to", "prices_repeat")):
            add(F, cid + " (run)", [W, "run", y, "-q", "-o", y[:-5] + ".h5"], ok=ok, inputs=[y], names=fn,
                outputs=[y[:-5] + ".h5"])


NAMES = {
    "esc": "a\x1b[31mred\x1b[0m",
    "osc": "t\x1b]0;owned\x07x",
    "csi8": "c\u009b31mx",
    "bell-bs": "b\x07\x08\x7fz",
    "cr": "over\rwrite",
    "newline": "two\nlines",
    "dollar": "$(touch pwned)$HOME",
    "pipe": "a|b;c&d",
    "formula": "=HYPERLINK(\"http://x\")",
    "plus": "+cmd",
    "minus": "-2+3",
    "at": "@SUM(A1)",
    "tab-formula": "\t=1",
    "script": "<script>alert(1)</script>",
    "img": "\"><img src=x onerror=alert(1)>",
    "amp": "a&amp;b&lt;",
    "bidi": "abc\u202edcba",
    "long": "n" * 5000,
}


def yq(s):
    """s as a YAML double-quoted string."""
    return json.dumps(s, ensure_ascii=True)


def fam_names():
    F = "names"
    for key, s in NAMES.items():
        # the scenario's name and a custom model's name, run then exported, plotted, reported
        text = (f"name: {yq(s)}\ndescription: {yq(s)}\ncluster: {{nodes: 2, gpus_per_node: 8}}\nfailures: {{enabled: false}}\n"
                f"models:\n  {yq('m' + s)}: {{base: llama3-8b, tp: 2}}\n"
                f"workload: {{source: inline, jobs: [{{gpus: 8, duration: 1h}}, {{gpus: 16, model: {yq('m' + s)}, iterations: 5}}]}}\n")
        dd = d(f"nm/{key}")
        y = wr(f"nm/{key}/s.yaml", text)
        h = os.path.join(dd, "t.h5")
        add(F, f"{key}: run", [W, "run", y, "-o", h], ok=(0, 2), inputs=[y], outputs=[h], names="s.yaml")
        add(F, f"{key}: validate --resolved", [W, "validate", y, "--resolved"], ok=(0, 2), inputs=[y], names="s.yaml")
        add(F, f"{key}: export chrome", [W, "export", h, "--format", "chrome", "-o", os.path.join(dd, "t.json")], ok=(0, 2),
            inputs=[h], outputs=[os.path.join(dd, "t.json")], markers=())
        add(F, f"{key}: export csv", [W, "export", h, "--format", "csv", "-o", os.path.join(dd, "csv")], ok=(0, 2),
            inputs=[h], outputs=[os.path.join(dd, "csv")])
        add(F, f"{key}: report --html", [W, "report", "paper-sci", h, h, "--html", os.path.join(dd, "r.html")], ok=(0, 2),
            inputs=[h], outputs=[os.path.join(dd, "r.html")], markers=(s,) if "<" in s else ())
        add(F, f"{key}: plot gantt", [W, "plot", h, "-o", os.path.join(dd, "g.svg"), "--what", "gantt"], ok=(0, 2),
            inputs=[h], outputs=[os.path.join(dd, "g.svg")], markers=(s,) if "<" in s else ())
        add(F, f"{key}: compare", [W, "compare", h, h], ok=(0, 2), inputs=[h])
    # site names: only letters, digits, '-', '_' (docs/scenarios.md): the others are refused, the allowed ones exported
    for key, nm, ok in (("esc", yq("a\x1b[31m"), (2,)), ("dollar", yq("$x"), (2,)), ("lt", yq("<b>"), (2,)),
                        ("eq", yq("=1"), (2,)), ("utf8", yq("zürich"), (2,)), ("minus", "-cmd", (0, 2)),
                        ("minus-num", "-1", (0, 2)), ("digits", "007", (0,)), ("underscore", "_a", (0,))):
        dd = d(f"nm/site-{key}")
        y = wr(f"nm/site-{key}/s.yaml", net(2, names=[nm, "b"]))
        h = os.path.join(dd, "t.h5")
        add(F, f"site name {key}: run", [W, "run", y, "-o", h], ok=ok, inputs=[y], outputs=[h], names="s.yaml")
        if 0 in ok:
            add(F, f"site name {key}: export csv", [W, "export", h, "--format", "csv", "-o", os.path.join(dd, "csv")],
                ok=(0, 2), inputs=[h], outputs=[os.path.join(dd, "csv")])
    # the files' own names with odd bytes
    for key, fn in (("esc", b"e\x1b[2Jx.yaml"), ("newline", b"n\nl.yaml"), ("invalid-utf8", b"bad\xff\xfe.yaml"),
                    ("dollar", b"$(id).yaml"), ("formula", b"=cmd.yaml"), ("dash", b"-o.yaml"), ("c1", b"c\xc2\x9bx.yaml")):
        dd = d(f"nm/file-{key}").encode()
        good = os.path.join(dd, fn)
        with open(good, "wb") as f:
            f.write(SMALL.encode())
        bad = os.path.join(dd, b"bad-" + fn)
        with open(bad, "wb") as f:
            f.write(b"cluster: {nodes: 0}\n")
        gs, bs = os.fsdecode(good), os.fsdecode(bad)
        h = os.path.join(os.fsdecode(dd), "t.h5")
        add(F, f"file {key}: run", [W, "run", gs, "-q", "-o", h],
            ok=(0,), inputs=[gs], outputs=[h])
        add(F, f"file {key}: bad scenario", [W, "validate", bs], ok=(2,), inputs=[bs], names="bad-")
        add(F, f"file {key}: export csv", [W, "export", h, "--format", "csv", "-o", os.path.join(os.fsdecode(dd), "csv")],
            ok=(0, 2), inputs=[h], outputs=[os.path.join(os.fsdecode(dd), "csv")])
        add(F, f"file {key}: missing trace", [W, "export", os.path.join(os.fsdecode(dd), os.fsdecode(b"no-" + fn)),
                                               "--format", "chrome", "-o", os.path.join(os.fsdecode(dd), "x.json")],
            ok=(2,), names="no-")
    # price file with an odd name at a site
    dd = d("nm/pricename")
    with open(os.path.join(dd.encode(), b"p\x1b[31m.csv"), "wb") as f:
        f.write(b"time,price_per_mwh,gco2_per_kwh\n0h,-1,1\n1h,1,1\n")
    y = wr("nm/pricename/s.yaml", net(2, site=", facility: {prices: \"p\\e[31m.csv\", prices_repeat: true}"))
    add(F, "price file named with ESC, bad value", [W, "run", y, "-q", "--no-trace"], ok=(2,), inputs=[y], names="p")


def fam_conformance():
    F = "conformance"
    plugs = [
        ("sched", "loop-init", dict(init="for (;;) spin++")),
        ("sched", "loop-submit", dict(call="for (;;) spin++")),
        ("sched", "sleep-submit", dict(call="sleep(100000)")),
        ("sched", "abort-init", dict(init="abort()")),
        ("sched", "exit0-init", dict(init="exit(0)")),
        ("sched", "exit0-submit", dict(call="_exit(0)")),
        ("sched", "stack-overflow", dict(call="spin = depth(1)")),
        ("sched", "sigint-self", dict(call="raise(SIGINT)")),
        ("sched", "stdout-flood", dict(call="for (int i = 0; i < 100000; i++) fputs(\"\\x1b[2J flood\\n\", stdout)")),
        ("sched", "esc-name", dict(pname='"ev\\x1b[31mil"')),
        ("sched", "newline-desc", dict(desc='"line\\nbreak\\x1b]0;t\\x07"')),
        ("sched", "long-name", dict(pname='"' + "x" * 5000 + '"')),
        ("sched", "empty-name", dict(pname='""')),
        ("broker", "loop-choose", dict(call="for (;;) spin++")),
        ("broker", "loop-init", dict(init="for (;;) spin++")),
        ("broker", "sleep-choose", dict(call="sleep(100000)")),
        ("broker", "abort-choose", dict(call="abort()")),
        ("broker", "exit0-choose", dict(call="_exit(0)")),
        ("broker", "exit0-init", dict(init="exit(0)")),
        ("broker", "stack-overflow", dict(call="spin = depth(1)")),
        ("broker", "esc-name", dict(pname='"br\\x1b[31mk"')),
        ("broker", "long-name", dict(pname='"' + "b" * 5000 + '"')),
        ("broker", "empty-name", dict(pname='""')),
    ]
    for kind, key, kw in plugs:
        if kind == "broker":
            kw = dict(kw)
        # both templates define depth(): the broker stack-overflow case once ran "spin = 0" instead (its
        # template lacked depth()), so it tested a correct broker and its PASS was no finding
        so = plugin(kind, f"{kind}_{key}".replace("-", "_"), **kw)
        if not so:
            continue
        nm = os.path.basename(so)
        argv = [W, "conformance", so] if kind == "sched" else [W, "conformance", "--broker", so]
        # stdout-flood: a plugin is trusted code, and what it writes to stdout is its own business (wanka
        # cannot escape bytes it never sees); the case holds wanka to not crashing or hanging and to
        # escaping its own messages, judged on its own lines only
        own = (b"conformance of", b"  pass  ", b"  FAIL  ", b" passed, ", b"wanka") if key == "stdout-flood" else None
        add(F, f"{kind} {key}", argv, ok=(1, 2), inputs=[so], names=nm, timeout=180 * SLOW, own=own)
        if kind == "sched":
            add(F, f"{kind} {key}: list schedulers", [W, "list", "schedulers", "--plugin", so], ok=(0, 2), inputs=[so], names=nm)
        else:
            add(F, f"{kind} {key}: list brokers", [W, "list", "brokers", "--broker-plugin", so], ok=(0, 2), inputs=[so], names=nm)
    so = plugin("broker", "broker_ok", pname='"fine"')
    add(F, "broker fine", [W, "conformance", "--broker", so], ok=(0,), inputs=[so])
    add(F, "a text file as a plugin", [W, "conformance", wr("cf/not.so", "hello\n")], ok=(2,), names="not.so")
    add(F, "an empty file as a broker", [W, "conformance", "--broker", wr("cf/empty.so", "")], ok=(2,), names="empty.so")
    add(F, "/dev/zero as a plugin", [W, "conformance", "/dev/zero"], ok=(2,), names="/dev/zero")
    add(F, "a FIFO as a broker", [W, "conformance", "--broker", os.path.join(d("cf"), "fifo.so")], ok=(2,), names="fifo.so")
    os.mkfifo(os.path.join(T, "cf", "fifo.so"))


def fam_signals(tr, big):
    F = "signals"
    for sg in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        n = sg.name
        for what, mk in (
                ("export chrome", lambda o: [W, "export", big, "--format", "chrome", "-o", o + "/t.json"]),
                ("export csv", lambda o: [W, "export", big, "--format", "csv", "-o", o + "/csv"]),
                ("run", lambda o: [W, "run", wr("sg/big.yaml", BIG), "-q", "-o", o + "/t.h5"]),
                ("run net", lambda o: [W, "run", wr("sg/bignet.yaml", BIGNET), "-q", "-o", o + "/t.h5"]),
                ("report --html", lambda o: [W, "report", "paper-sci", tr, tr, "--html", o + "/r.html"]),
                ("plot", lambda o: [W, "plot", big, "-o", o + "/p.svg", "--what", "gantt"])):
            for when in ("tmp", 0.3):
                dd = d(f"sg/{n}-{what.replace(' ', '_')}-{when}")
                argv = mk(dd)
                outs = [argv[-1]]
                if what.startswith("run") and when == "tmp":
                    continue   # a run's temporary appears only at its end
                add(F, f"{n} during {what} ({'temporary open' if when == 'tmp' else 'after 0.3 s'})", argv, ok=(0,),
                    inputs=[big, tr], outputs=outs, sig=(sg, when), watch=[dd])


BIG = ("cluster: {nodes: 64}\nfailures: {enabled: false}\n"
       "workload: {source: synthetic, jobs: 200000, interarrival: {dist: exponential, mean: 10s},\n"
       "  gpus: [{gpus: 1, weight: 1}, {gpus: 8, weight: 1}], duration: {dist: exponential, mean: 5m}}\n"
       "sim: {sample_interval: 1m}\n")
BIGNET = net(8, nodes=8, top="span: {sites: 2}\nsim: {sample_interval: 1m}",
             jobs="workload: {source: synthetic, jobs: 100000, interarrival: {dist: exponential, mean: 10s},\n"
                  "  gpus: [{gpus: 1, weight: 1}, {gpus: 8, weight: 1}], duration: {dist: exponential, mean: 5m}}")


def fam_concurrency(tr):
    F = "concurrency"
    dd = d("cc")
    y = wr("cc/s.yaml", net(4, nodes=4, jobs="workload: {source: synthetic, jobs: 3000}"))
    sw = wr("cc/sw.yaml", "name: sw\nbase: s.yaml\nseeds: {from: 1, to: 4}\naxes:\n  broker: [least-loaded, round-robin]\n")

    def pair(cid, a, b, outs, check):
        # run a and b at once through sh; both must end 0 (or 2 with a message), the result whole
        script = f'{" ".join(map(sh_q, a))} & A=$!; {" ".join(map(sh_q, b))}; B=$?; wait $A; A=$?; ' \
                 'echo "statuses $A $B"; [ $A = 0 -o $A = 2 ] && [ $B = 0 -o $B = 2 ] && [ $A = 0 -o $B = 0 ]'
        add(F, cid, ["/bin/sh", "-c", script], ok=(0,), cwd=dd, inputs=[y, sw, tr], outputs=outs, post=check,
            timeout=300 * SLOW, watch=[dd])

    def h5ok(path):
        def chk(c, st, text):
            try:
                with open(path, "rb") as f:
                    if not f.read(8).startswith(b"\x89HDF"):
                        return [f"{path}: not a whole trace"]
            except OSError:
                return [f"{os.path.basename(path)} missing"]
            r = subprocess.run([W, "compare", path, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            return [] if r.returncode == 0 else [f"{os.path.basename(path)} does not read back"]
        return chk
    for i in range(3):
        pair(f"two runs, one -o #{i}", [W, "run", y, "-q", "-o", "same.h5"], [W, "run", y, "-q", "--seed", "2", "-o", "same.h5"],
             [], h5ok(os.path.join(dd, "same.h5")))
    pair("two exports, one -o", [W, "export", tr, "--format", "chrome", "-o", "same.json"],
         [W, "export", tr, "--format", "chrome", "-o", "same.json"], [],
         lambda c, st, t: check_file(os.path.join(dd, "same.json"), ()))
    pair("two csv exports, one folder", [W, "export", tr, "--format", "csv", "-o", "samecsv"],
         [W, "export", tr, "--format", "csv", "-o", "samecsv"], [],
         lambda c, st, t: check_file(os.path.join(dd, "samecsv"), ()))
    pair("two html pages, one -o", [W, "report", "paper-sci", tr, tr, "--html", "same.html"],
         [W, "report", "paper-sci", tr, tr, "--html", "same.html"], [],
         lambda c, st, t: check_file(os.path.join(dd, "same.html"), ()))
    pair("two sweeps -j 2, one folder", [W, "sweep", "sw.yaml", "-j", "2", "-q", "-o", "swout"],
         [W, "sweep", "sw.yaml", "-j", "2", "-q", "-o", "swout"], [], h5ok(os.path.join(dd, "swout", "sweep.h5")))
    for j in (1, 4, 16, 64):
        add(F, f"sweep -j {j}", [W, "sweep", "sw.yaml", "-j", str(j), "-q", "-o", f"sw{j}"], ok=(0,), cwd=dd,
            inputs=[y, sw], timeout=300 * SLOW, post=h5ok(os.path.join(dd, f"sw{j}", "sweep.h5")), watch=[dd])
    add(F, "sweep -j 0", [W, "sweep", "sw.yaml", "-j", "0", "-q", "-o", "sw0"], ok=(0, 2), cwd=dd, inputs=[y, sw])
    add(F, "sweep -j 100000", [W, "sweep", "sw.yaml", "-j", "100000", "-q", "-o", "swbig"], ok=(0, 2), cwd=dd,
        inputs=[y, sw], timeout=300 * SLOW)
    add(F, "sweep -j -1", [W, "sweep", "sw.yaml", "-j", "-1", "-q", "-o", "swneg"], ok=(2,), cwd=dd, inputs=[y, sw])


def sh_q(s):
    return "'" + str(s).replace("'", "'\\''") + "'"


# ---------------------------------------------------------------- main
def main():
    tr = build_trace("small", SMALL)
    trn = build_trace("net", net(3))
    if not tr or not trn:
        print("cannot write the traces the campaign reads")
        return 1
    big = build_trace("big", BIG)
    fams = [("tmp-links", lambda: fam_tmp_links(trn)), ("o-input", lambda: fam_o_input(trn)), ("net-size", fam_net_size),
            ("time", fam_time), ("prices", fam_prices), ("yaml", fam_yaml), ("names", fam_names),
            ("conformance", fam_conformance), ("signals", lambda: fam_signals(tr, big)),
            ("concurrency", lambda: fam_concurrency(trn))]
    for name, f in fams:
        if not ONLY or name in ONLY:
            f()
    for c in CASES:
        t0 = time.monotonic()
        probs = run_case(c)
        r = RESULTS.setdefault(c.fam, [0, 0])
        r[0] += 1
        if probs:
            r[1] += 1
            line = f"MISHANDLED {c.fam} [{c.cid}]: " + "; ".join(probs)
            FAILS.append(line)
            print(ascii(line)[1:-1], flush=True)
        if os.environ.get("WK_HOSTILE_VERBOSE"):
            print(f"  {c.fam} [{c.cid}] {time.monotonic() - t0:.1f}s {'FAIL' if probs else 'ok'}", flush=True)
    total = bad = 0
    for fam, (n, m) in RESULTS.items():
        print(f"{fam}: {n} cases, {m} mishandled")
        total += n
        bad += m
    print(f"hostile-round2: {total} cases, {bad} mishandled")
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        subprocess.run(["chmod", "-R", "u+rwX", T], stderr=subprocess.DEVNULL)
        shutil.rmtree(T, ignore_errors=True)
    sys.exit(rc)
