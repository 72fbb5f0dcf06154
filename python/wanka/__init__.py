# SPDX-License-Identifier: Apache-2.0
"""wanka from Python: scheduling policies written in Python, and runs.

A policy is a subclass of wanka.Policy with the callbacks of the C plugin
interface (include/wanka/sched.h): init, on_submit, on_release, queued and,
optionally, on_tick, on_incident, fini. A file that defines one runs with
`wanka run SCENARIO --plugin policy.py` (the wanka executable hands such a
command line to `python3 -m wanka`, which runs it in-process through
libwanka.so) and is checked with `wanka conformance policy.py`.

wanka.run(scenario, policy=...) runs a scenario from Python (a notebook)
and returns the summary (a dict) and the trace's path.

Standard library only (ctypes). Guide: docs/writing-a-scheduler.md,
"Policies in Python".
"""
import ctypes
import importlib.util
import json
import os
import shutil
import signal
import sys
import tempfile
import traceback

__all__ = ["Policy", "Ctx", "Params", "WankaError", "run", "main", "load_library"]

ABI = 1  # WK_SCHED_ABI of include/wanka/sched.h
E_NOMEM, E_INVAL, E_IO, E_RANGE, E_NOTFOUND, E_INTERNAL, E_NOROOM = -1, -2, -3, -4, -5, -6, -7
PLACE_EXCLUSIVE, PLACE_FIRST_FIT, PLACE_PACK, PLACE_SPREAD, PLACE_ROUND_ROBIN = 0, 1, 2, 3, 4
GPU_UP, GPU_DOWN, GPU_THROTTLED = 0, 1, 2
JOB_AI, JOB_HPC = 0, 1
COMMON_KEYS = ("name", "placement", "preemption_cost", "tick")

_c = ctypes
_u32 = _c.c_uint32


class _WkError(_c.Structure):
    _fields_ = [("code", _c.c_int), ("where", _c.c_char * 512), ("msg", _c.c_char * 1024)]


_ErrP = _c.POINTER(_WkError)
_INIT = _c.CFUNCTYPE(_c.c_int, _c.c_void_p, _c.c_void_p, _c.c_void_p, _ErrP)
_SUBMIT = _c.CFUNCTYPE(_c.c_int, _c.c_void_p, _c.c_void_p, _u32, _ErrP)
_RELEASE = _c.CFUNCTYPE(_c.c_int, _c.c_void_p, _c.c_void_p, _ErrP)
_QUEUED = _c.CFUNCTYPE(_c.c_size_t, _c.c_void_p)
_FINI = _c.CFUNCTYPE(None, _c.c_void_p)
_INCIDENT = _c.CFUNCTYPE(_c.c_int, _c.c_void_p, _c.c_void_p, _c.POINTER(_u32), _c.c_size_t, _ErrP)
_LOADER = _c.CFUNCTYPE(_c.c_void_p, _c.c_char_p, _c.c_void_p, _c.c_size_t)


class _Ops(_c.Structure):  # WkSchedOps, ABI 1
    _fields_ = [("abi", _c.c_int), ("name", _c.c_char_p), ("description", _c.c_char_p),
                ("priv_size", _c.c_size_t), ("init", _INIT), ("on_submit", _SUBMIT),
                ("on_release", _RELEASE), ("queued", _QUEUED), ("fini", _FINI),
                ("on_tick", _RELEASE), ("on_incident", _INCIDENT)]


class WankaError(Exception):
    """A run that failed: code is its exit status, message what wanka said."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class _Fail(Exception):
    """A wanka call failed and already filled the callback's WkError."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


# ---- the library ----

_lib = None


def load_library(path=None):
    """libwanka.so, loaded once: path, else $WANKA_LIB, else beside the
    `wanka` on PATH (a build tree) or in ../lib of it (an install)."""
    global _lib
    if _lib is not None:
        return _lib
    cands = [path, os.environ.get("WANKA_LIB")]
    exe = shutil.which("wanka")
    if exe:
        d = os.path.dirname(os.path.realpath(exe))
        cands += [os.path.join(d, "libwanka.so"), os.path.join(d, "..", "lib", "libwanka.so")]
        cands += [os.path.join(d, "..", "lib", m, "libwanka.so") for m in ("x86_64-linux-gnu", "aarch64-linux-gnu")]
    for p in cands:
        if p and os.path.exists(p):
            # global: shared-object policies loaded by the run link to its symbols
            _lib = _c.CDLL(p, mode=_c.RTLD_GLOBAL)
            break
    else:
        raise WankaError(2, "libwanka.so not found: set WANKA_LIB to it (it is built beside the wanka executable)")
    _declare(_lib)
    return _lib


_CTX_CALLS = {  # name: (return type, argument types after ctx)
    "gpus": (_u32, []), "nodes": (_u32, []), "pods": (_u32, []),
    "gpu_node": (_u32, [_u32]), "node_pod": (_u32, [_u32]), "node_first_gpu": (_u32, [_u32]),
    "node_gpus": (_u32, [_u32]), "now": (_c.c_int64, []), "seed": (_c.c_uint64, []),
    "free_gpus": (_u32, []), "gpu_is_free": (_c.c_int, [_u32]), "job_gpus": (_u32, [_u32]),
    "job_submit": (_c.c_int64, [_u32]), "job_priority": (_c.c_int, [_u32]),
    "job_estimate_s": (_c.c_double, [_u32]), "job_remaining_s": (_c.c_double, [_u32]),
    "job_attained_gpu_s": (_c.c_double, [_u32]), "job_running": (_c.c_int, [_u32]),
    "job_preemptible": (_c.c_int, [_u32]), "node_free": (_u32, [_u32]), "pod_free": (_u32, [_u32]),
    "gpu_health": (_c.c_int, [_u32]), "usable_gpus": (_u32, []), "power_headroom_w": (_c.c_double, []),
    "job_power_w": (_c.c_double, [_u32]), "job_deferrable": (_c.c_int, [_u32]), "job_kind": (_c.c_int, [_u32]),
    "price_now": (_c.c_double, []), "price_mean": (_c.c_double, []), "budget_mode": (_c.c_int, []),
    "job_clock_floor": (_c.c_double, [_u32]), "job_time_factor": (_c.c_double, [_u32, _c.c_double]),
    "placement": (_c.c_int, []), "job_fits_gpu": (_c.c_int, [_u32, _u32]),
}


def _declare(lib):
    vp, u32p = _c.c_void_p, _c.POINTER(_u32)
    for name, (res, args) in _CTX_CALLS.items():
        f = getattr(lib, "wk_sched_" + name)
        f.restype, f.argtypes = res, [vp] + args
    sig = {
        "wk_sched_job_placement": (u32p, [vp, _u32, u32p]),
        "wk_sched_job_iter_s_on": (_c.c_double, [vp, _u32, u32p, _u32]),
        "wk_sched_job_power_at_w": (_c.c_double, [vp, _u32, _c.c_double, _c.POINTER(_c.c_double)]),
        "wk_sched_set_job_clock": (_c.c_int, [vp, _u32, _c.c_double, _ErrP]),
        "wk_sched_first_fit": (_c.c_int, [vp, _u32, u32p]),
        "wk_sched_place_with": (_c.c_int, [vp, _c.c_int, _u32, u32p, vp, vp]),
        "wk_sched_place_job": (_c.c_int, [vp, _u32, _c.c_int, u32p, vp, vp]),
        "wk_sched_start": (_c.c_int, [vp, _u32, u32p, _u32, _ErrP]),
        "wk_sched_preempt": (_c.c_int, [vp, _u32, _ErrP]),
        "wk_sched_reject": (_c.c_int, [vp, _u32, _c.c_char_p, _ErrP]),
        "wk_node_get": (vp, [vp, _c.c_char_p]),
        "wk_node_expect_keys": (_c.c_int, [vp, _c.POINTER(_c.c_char_p), _ErrP]),
        "wk_node_int": (_c.c_int, [vp, _c.c_char_p, _c.c_int, _c.c_int64, _c.c_int64,
                                   _c.POINTER(_c.c_int64), _ErrP]),
        "wk_node_double": (_c.c_int, [vp, _c.c_char_p, _c.c_int, _c.c_double, _c.c_double,
                                      _c.POINTER(_c.c_double), _ErrP]),
        "wk_node_bool": (_c.c_int, [vp, _c.c_char_p, _c.c_int, _c.POINTER(_c.c_int), _ErrP]),
        "wk_node_str": (_c.c_int, [vp, _c.c_char_p, _c.c_int, _c.POINTER(_c.c_char_p), _ErrP]),
        "wk_node_duration": (_c.c_int, [vp, _c.c_char_p, _c.c_int, _c.c_int64, _c.c_int64,
                                        _c.POINTER(_c.c_int64), _ErrP]),
        "wk_sched_plugins_set_source_loader": (None, [_LOADER]),
        "wk_cli_main": (_c.c_int, [_c.c_int, _c.POINTER(_c.c_char_p)]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args


# ---- what a policy sees ----

def _ctx_method(name, nargs):
    def m(self, *a):
        return getattr(self._lib, "wk_sched_" + name)(self._ctx, *a)
    m.__name__ = name
    m.__doc__ = "wk_sched_%s of wanka/sched.h (%d argument(s) after ctx)." % (name, nargs)
    return m


_reasons = {}  # reject reasons: wanka borrows them for the whole run


class Ctx:
    """The run as a policy sees it (WkSchedCtx): every read-only call of
    wanka/sched.h without its wk_sched_ prefix (ctx.job_gpus(job),
    ctx.free_gpus(), ctx.now() in ns), the placement calls returning a list
    of GPUs or None when there is no room, and the actions. An action that
    fails for a policy bug ends the callback with wanka's error."""

    def __init__(self, lib, ctx, err):
        self._lib, self._ctx, self._err = lib, ctx, err

    def now_s(self):
        return self._lib.wk_sched_now(self._ctx) / 1e9

    def _check(self, rc):
        if rc < 0 and rc != E_NOROOM:
            raise _Fail(rc)
        return rc

    def _gpus(self, rc, buf, n):
        if rc == E_NOROOM:
            return None
        if rc < 0:
            raise _Fail(self._lib_error(rc))
        return list(buf[:n])

    def _lib_error(self, rc):
        if self._err and not self._err.contents.code:
            self._err.contents.code = rc
            self._err.contents.msg = b"placement failed (code %d)" % rc
        return rc

    def job_placement(self, job):
        n = _u32(0)
        p = self._lib.wk_sched_job_placement(self._ctx, job, _c.byref(n))
        return list(p[:n.value]) if p else []

    def job_iter_s_on(self, job, gpus):
        arr = (_u32 * len(gpus))(*gpus)
        return self._lib.wk_sched_job_iter_s_on(self._ctx, job, arr, len(gpus))

    def job_power_at_w(self, job, clock):
        """(W the job's GPUs draw at clock, W of it drawn idle)."""
        idle = _c.c_double(0)
        w = self._lib.wk_sched_job_power_at_w(self._ctx, job, clock, _c.byref(idle))
        return w, idle.value

    def first_fit(self, n):
        buf = (_u32 * max(n, 1))()
        return self._gpus(self._lib.wk_sched_first_fit(self._ctx, n, buf), buf, n)

    def place(self, n, how=None):
        """n GPUs by `placement:` (or how, a PLACE_*), or None: no room."""
        buf = (_u32 * max(n, 1))()
        how = self.placement() if how is None else how
        return self._gpus(self._lib.wk_sched_place_with(self._ctx, how, n, buf, None, None), buf, n)

    def place_job(self, job, how=None):
        """GPUs for job (where it fits in memory) by `placement:` (or how), or None."""
        n = self.job_gpus(job)
        buf = (_u32 * max(n, 1))()
        how = self.placement() if how is None else how
        return self._gpus(self._lib.wk_sched_place_job(self._ctx, job, how, buf, None, None), buf, n)

    def start(self, job, gpus):
        """Start job on gpus: True, or False when the power budget has no room."""
        arr = (_u32 * max(len(gpus), 1))(*gpus)
        return self._check(self._lib.wk_sched_start(self._ctx, job, arr, len(gpus), self._err)) == 0

    def preempt(self, job):
        self._check(self._lib.wk_sched_preempt(self._ctx, job, self._err))

    def reject(self, job, reason):
        # the run keeps the pointer (not a copy): each reason's bytes live on
        r = _reasons.setdefault(str(reason), str(reason).encode())
        self._check(self._lib.wk_sched_reject(self._ctx, job, r, self._err))

    def set_job_clock(self, job, clock):
        self._check(self._lib.wk_sched_set_job_clock(self._ctx, job, clock, self._err))


for _n, (_r, _a) in _CTX_CALLS.items():
    setattr(Ctx, _n, _ctx_method(_n, len(_a)))


class Params:
    """The policy's `scheduler:` map (wk_node_* readers of wanka/node.h).
    Each reader returns default when the key is absent; a bad value ends
    init with wanka's error, positioned in the scenario."""

    def __init__(self, lib, node, err):
        self._lib, self._node, self._err = lib, node, err

    def has(self, key):
        return bool(self._node) and bool(self._lib.wk_node_get(self._node, key.encode()))

    def expect_keys(self, *keys):
        """Refuse a key not in COMMON_KEYS + keys."""
        if not self._node:
            return
        ks = [k.encode() for k in COMMON_KEYS + tuple(keys)] + [None]
        arr = (_c.c_char_p * len(ks))(*ks)
        self._ok(self._lib.wk_node_expect_keys(self._node, arr, self._err))

    def _ok(self, rc):
        if rc < 0:
            raise _Fail(rc)

    def _read(self, fn, ctype, key, default, *bounds):
        if not self._node:
            return default
        out = ctype(default if default is not None else 0)
        self._ok(fn(self._node, key.encode(), 1 if default is None else 0, *bounds, _c.byref(out), self._err))
        return out.value

    def int(self, key, default=None, min=-(2 ** 63), max=2 ** 63 - 1):
        return self._read(self._lib.wk_node_int, _c.c_int64, key, default, min, max)

    def float(self, key, default=None, min=float("-inf"), max=float("inf")):
        return self._read(self._lib.wk_node_double, _c.c_double, key, default, min, max)

    def bool(self, key, default=None):
        v = self._read(self._lib.wk_node_bool, _c.c_int, key, None if default is None else int(default))
        return None if v is None else bool(v)

    def duration_ns(self, key, default=None, min=0, max=2 ** 63 - 1):
        return self._read(self._lib.wk_node_duration, _c.c_int64, key, default, min, max)

    def str(self, key, default=None):
        if not self._node:
            return default
        out = _c.c_char_p(None)
        self._ok(self._lib.wk_node_str(self._node, key.encode(), 1 if default is None else 0,
                                       _c.byref(out), self._err))
        return default if out.value is None else out.value.decode()


class Policy:
    """A scheduling policy. Set name (1-64 of A-Za-z0-9._-, not a built-in's)
    and description; define on_submit(ctx, job), on_release(ctx) and
    queued(); optionally init(params, ctx), on_tick(ctx),
    on_incident(ctx, jobs), fini(). One instance per run (per scheduler
    instance); its attributes are the policy's private state. A callback
    returns None (or 0); an exception ends the run with exit status 2 and an
    error naming the file, line and callback."""

    name = None
    description = ""

    def init(self, params, ctx):
        params.expect_keys()


# ---- the bridge: a class to a WkSchedOps ----

_tables = {}  # real path -> (ops, callbacks kept alive)


def _where(path, exc):
    """file:line of the deepest frame of exc in path (else path)."""
    real = os.path.realpath(path)
    line = 0
    for fr in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(fr.filename) == real:
            line = fr.lineno
    return "%s:%d" % (path, line) if line else path


def _set_error(err, where, msg):
    if not err:
        return
    e = err.contents
    if e.code:
        return
    e.code = E_INVAL
    e.where = where.encode()[:511]
    e.msg = msg.encode()[:1023]


def _make_ops(cls, path):
    lib = load_library()
    insts = {}
    pending = {}

    def guard(cb, priv, err, fn):
        if priv in pending:  # an exception in queued, which cannot report it
            cb, e = "queued", pending.pop(priv)
            _set_error(err, _where(path, e), "%s.%s raised %s: %s" % (cls.__name__, cb, type(e).__name__, e))
            return E_INVAL
        try:
            rc = fn()
            return rc if isinstance(rc, int) and rc < 0 else 0
        except _Fail as f:
            return f.code
        except BaseException as e:  # a policy's bug: the run stops with it
            if os.environ.get("WANKA_TRACEBACK"):
                traceback.print_exc()
            _set_error(err, _where(path, e), "%s.%s raised %s: %s" % (cls.__name__, cb, type(e).__name__, e))
            return E_INVAL

    def c_init(priv, params, ctx, err):
        def f():
            p = cls()
            insts[priv] = p
            return p.init(Params(lib, params, err), Ctx(lib, ctx, err))
        return guard("init", priv, err, f)

    def c_submit(priv, ctx, job, err):
        return guard("on_submit", priv, err, lambda: insts[priv].on_submit(Ctx(lib, ctx, err), job))

    def c_release(priv, ctx, err):
        return guard("on_release", priv, err, lambda: insts[priv].on_release(Ctx(lib, ctx, err)))

    def c_tick(priv, ctx, err):
        return guard("on_tick", priv, err, lambda: insts[priv].on_tick(Ctx(lib, ctx, err)))

    def c_incident(priv, ctx, jobs, n, err):
        js = list(jobs[:n]) if n else []
        return guard("on_incident", priv, err, lambda: insts[priv].on_incident(Ctx(lib, ctx, err), js))

    def c_queued(priv):
        try:
            return int(insts[priv].queued())
        except BaseException as e:  # no error channel: said now, raised at the next callback
            if priv not in pending:
                sys.stderr.write("wanka: %s: %s.queued raised %s: %s\n" % (_where(path, e), cls.__name__,
                                                                          type(e).__name__, e))
                sys.stderr.flush()
            pending[priv] = e
            return 0

    def c_fini(priv):
        p = insts.pop(priv, None)
        pending.pop(priv, None)
        if p is not None and hasattr(p, "fini"):
            try:
                p.fini()
            except BaseException as e:
                sys.stderr.write("wanka: %s: %s.fini raised %s: %s\n" % (_where(path, e), cls.__name__,
                                                                         type(e).__name__, e))

    name = cls.name if cls.name is not None else cls.__name__
    keep = [_INIT(c_init), _SUBMIT(c_submit), _RELEASE(c_release), _QUEUED(c_queued), _FINI(c_fini),
            str(name).encode(), str(cls.description or "").encode()]
    ops = _Ops(abi=ABI, name=keep[5], description=keep[6], priv_size=1, init=keep[0], on_submit=keep[1],
               on_release=keep[2], queued=keep[3], fini=keep[4])
    if hasattr(cls, "on_tick"):
        keep.append(_RELEASE(c_tick))
        ops.on_tick = keep[-1]
    if hasattr(cls, "on_incident"):
        keep.append(_INCIDENT(c_incident))
        ops.on_incident = keep[-1]
    return ops, keep


def _policy_class(module, path):
    cls = getattr(module, "POLICY", None)
    if cls is None:
        found = [v for v in vars(module).values()
                 if isinstance(v, type) and issubclass(v, Policy) and v is not Policy
                 and v.__module__ == module.__name__]
        if not found:
            raise ValueError("%s: defines no policy (a subclass of wanka.Policy)" % path)
        if len(found) > 1:
            raise ValueError("%s: defines several policies (%s): name one with POLICY = ClassName" % (
                path, ", ".join(sorted(c.__name__ for c in found))))
        cls = found[0]
    missing = [m for m in ("on_submit", "on_release", "queued") if not callable(getattr(cls, m, None))]
    if missing:
        raise ValueError("%s: policy %s has no %s" % (path, cls.__name__, ", ".join(missing)))
    return cls


def _table_for_file(path):
    real = os.path.realpath(path)
    if real in _tables:
        return _tables[real][0]
    if not os.path.isfile(path):
        raise ValueError("cannot load: no such file" if not os.path.exists(path) else "cannot load: not a regular file")
    modname = "wanka_policy_%d" % len(_tables)
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise ValueError("%s:%s: %s" % (path, e.lineno, e.msg))
    except BaseException as e:
        raise ValueError("%s: loading it raised %s: %s" % (_where(path, e), type(e).__name__, e))
    _tables[real] = _make_ops(_policy_class(module, path), path)
    return _tables[real][0]


_inline = {}  # "<python:Class>.py" -> class given to run(policy=Class)


@_LOADER
def _loader(cpath, why, n):
    path = cpath.decode(errors="replace")
    try:
        if path in _inline:
            if path not in _tables:
                _tables[path] = _make_ops(_inline[path], path)
            ops = _tables[path][0]
        else:
            ops = _table_for_file(path)
        return _c.addressof(ops)
    except BaseException as e:
        msg = str(e).encode(errors="replace")[: max(n - 1, 0)] + b"\0"
        _c.memmove(why, msg, len(msg))
        return None


# ---- running wanka ----

def _cli(args):
    lib = load_library()
    lib.wk_sched_plugins_set_source_loader(_loader)
    argv = [a.encode() if isinstance(a, str) else a for a in ["wanka"] + list(args)] + [None]
    arr = (_c.c_char_p * len(argv))(*argv)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        return lib.wk_cli_main(len(argv) - 1, arr)
    finally:
        _c.CDLL(None).fflush(None)


def main(argv=None):
    """python3 -m wanka ARGS: the wanka command line, with Python policies."""
    sys.exit(_cli(sys.argv[1:] if argv is None else argv))


def run(scenario, policy=None, trace=None, seed=None, scheduler=None, sets=(), plugins=()):
    """Run scenario and return (summary dict, trace path or None).

    policy: a policy file (.py) or a wanka.Policy subclass; its policy is the
    run's scheduler unless scheduler names another. trace: the trace path
    (default: the scenario's base name with .h5, in the current directory),
    or False for none. sets: "KEY.PATH=VALUE" overrides; plugins: more
    policy files (.py or .so). Raises WankaError (the message wanka printed)
    when the run fails."""
    args = ["run", os.fspath(scenario), "--json", "-q"]
    for p in plugins:
        args += ["--plugin", os.fspath(p)]
    if policy is not None:
        if isinstance(policy, type):
            path = "<python:%s>.py" % policy.__qualname__
            _inline[path] = _policy_class(type("m", (), {"POLICY": policy}), path)
            _tables.pop(path, None)
            name = policy.name if policy.name is not None else policy.__name__
        else:
            path = os.fspath(policy)
            name = None
        args += ["--plugin", path]
        if scheduler is None and name is not None:
            scheduler = name
        elif scheduler is None:
            load_library()
            try:
                ops = _table_for_file(path)
                scheduler = ops.name.decode()
            except ValueError:
                pass  # the run reports it
    if scheduler is not None:
        args += ["--scheduler", scheduler]
    if seed is not None:
        args += ["--seed", str(seed)]
    for s in sets:
        args += ["--set", s]
    if trace is False:
        args.append("--no-trace")
        trace = None
    else:
        if trace is None:
            trace = os.path.splitext(os.path.basename(os.fspath(scenario)))[0] + ".h5"
        trace = os.path.abspath(os.fspath(trace))
        args += ["-o", trace]
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as errf:
        fds = (os.dup(1), os.dup(2))
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(out.fileno(), 1)
        os.dup2(errf.fileno(), 2)
        try:
            rc = _cli(args)
        finally:
            os.dup2(fds[0], 1)
            os.dup2(fds[1], 2)
            os.close(fds[0])
            os.close(fds[1])
            for s, h in saved.items():
                if h is not None:
                    signal.signal(s, h)
        out.seek(0)
        errf.seek(0)
        text, msg = out.read().decode(errors="replace"), errf.read().decode(errors="replace")
    if rc != 0:
        raise WankaError(rc, msg.strip() or "wanka run failed with exit status %d" % rc)
    return json.loads(text), trace
