#!/bin/sh
# test_py_plugin.sh — policies written in Python (python/wanka): the example
# examples/policy_fifo.py, run with --plugin FILE.py (the executable hands it
# to python3 -m wanka over libwanka.so), gives the same summary as the
# built-in fifo it copies; passes `wanka conformance`; a policy whose
# callback raises stops the run with exit 2 and an error naming the file,
# line and callback, and no trace; a policy file that does not load is
# refused with exit 2 naming it; wanka.run() runs a scenario from Python and
# returns the summary and the trace path.
# usage: test_py_plugin.sh WANKA SRCROOT PYTHON
set -u
W=$1
SRC=$2
PY=$3
NAME=py-plugin
# a sanitizer build's libwanka.so cannot be loaded into an uninstrumented
# python3 (the ASan runtime must come first): skipped there
case "$(nm -D "$(dirname "$W")/libwanka.so" 2>/dev/null | grep -c __asan_init)" in
  0|"") ;; *) echo "py-plugin: skipped: libwanka.so is built with AddressSanitizer"; exit 77 ;;
esac
. "$SRC/tests/scenario/lib.sh"

FIFO="$SRC/examples/policy_fifo.py"
cat > "$T/order.yaml" <<'Y'
name: order
cluster: {nodes: 1, gpus_per_node: 8}
workload:
  source: inline
  jobs:
    - {submit: 0, gpus: 8, duration: 10m}
    - {submit: 1m, gpus: 2, duration: 10m}
    - {submit: 1m, gpus: 8, duration: 10m}
    - {submit: 1m, gpus: 4, duration: 10m}
    - {submit: 2m, gpus: 16, duration: 10m}
Y

# the same summary as the built-in fifo (the scheduler's name aside): on the
# small scenario and on the quickstart's 1000 jobs
same() { # same LABEL SCENARIO
  "$W" run "$2" --no-trace --json -q --scheduler fifo | sed 's/"scheduler":"[^"]*"//' > "$T/c.json"
  "$W" run "$2" --no-trace --json -q --plugin "$FIFO" --scheduler fifo-py | sed 's/"scheduler":"[^"]*"//' > "$T/py.json"
  if [ -s "$T/c.json" ] && cmp -s "$T/c.json" "$T/py.json"; then ok; else bad "$1: the Python fifo's summary differs from fifo's"; fi
}
same order "$T/order.yaml"
same quickstart "$SRC/scenarios/quickstart.yaml"
expect 0 '"makespan_s":2400' "$W" run "$T/order.yaml" --no-trace --json -q --plugin "$FIFO" --scheduler fifo-py
expect 0 '"scheduler":"fifo-py"' "$W" run "$T/order.yaml" --no-trace --json -q --plugin="$FIFO" --scheduler fifo-py
expect 0 '"jobs_rejected":1' "$W" run "$T/order.yaml" --no-trace --json -q --plugin "$FIFO" --scheduler fifo-py
# its parameters are checked by the run's readers
expect 2 "unknown key 'frob'" "$W" run "$T/order.yaml" --no-trace -q --plugin "$FIFO" \
  --set 'scheduler={name: fifo-py, frob: 1}'
expect 0 "fifo-py" "$W" list schedulers --plugin "$FIFO"
expect 0 "scheduler fifo-py" "$W" validate "$T/order.yaml" --plugin "$FIFO" --scheduler fifo-py
# a trace, as with any policy
expect 0 "" "$W" run "$T/order.yaml" -q --plugin "$FIFO" --scheduler fifo-py -o "$T/order.h5"
[ -s "$T/order.h5" ] && ok || bad "no trace from the Python policy's run"

# conformance
expect 0 "7 passed, 0 failed" "$W" conformance "$FIFO"

# a callback that raises: exit 2, file:line, class.callback, the exception
cat > "$T/bad.py" <<'EOF2'
import wanka


class Bad(wanka.Policy):
    name = "bad-py"

    def on_submit(self, ctx, job):
        return 1 / 0

    def on_release(self, ctx):
        pass

    def queued(self):
        return 0
EOF2
expect 2 "$T/bad.py:8: Bad.on_submit raised ZeroDivisionError: division by zero" \
  "$W" run "$T/order.yaml" -q --plugin "$T/bad.py" --scheduler bad-py -o "$T/bad.h5"
[ ! -e "$T/bad.h5" ] && ok || bad "a trace was left behind by a policy that raised"
expect 1 "Bad.on_submit raised ZeroDivisionError" "$W" conformance "$T/bad.py"
# ... in init: its error, positioned at the file
sed 's/return 1 \/ 0/pass\n\n    def init(self, params, ctx):\n        raise ValueError("no")/' "$T/bad.py" > "$T/badinit.py"
expect 2 "Bad.init raised ValueError: no" "$W" run "$T/order.yaml" -q --no-trace --plugin "$T/badinit.py" --scheduler bad-py
# ... in queued (no error channel): said, and the check fails naming it
printf 'import wanka\nclass Q(wanka.Policy):\n    name = "q-py"\n    def on_submit(self, ctx, job): pass\n    def on_release(self, ctx): pass\n    def queued(self): return self.nope\n' > "$T/q.py"
expect 1 "$T/q.py:6: Q.queued raised AttributeError" "$W" conformance "$T/q.py"
# files that do not load
echo 'def x(:' > "$T/syntax.py"
expect 2 "$T/syntax.py:1: invalid syntax" "$W" run "$T/order.yaml" -q --no-trace --plugin "$T/syntax.py"
expect 2 "$T/missing.py: scheduler plugin: cannot load: no such file" "$W" run "$T/order.yaml" -q --no-trace --plugin "$T/missing.py"
echo 'import wanka' > "$T/none.py"
expect 2 "$T/none.py: defines no policy (a subclass of wanka.Policy)" "$W" validate "$T/order.yaml" --plugin "$T/none.py"
printf 'import wanka\nclass A(wanka.Policy):\n    name = "a"\n    def on_submit(self, ctx, job): pass\n    def queued(self): return 0\n' > "$T/half.py"
expect 2 "policy A has no on_release" "$W" validate "$T/order.yaml" --plugin "$T/half.py"
printf 'import wanka\nraise RuntimeError("boom")\n' > "$T/raise.py"
expect 2 "$T/raise.py:2: loading it raised RuntimeError: boom" "$W" validate "$T/order.yaml" --plugin "$T/raise.py"
# a scenario's plugins: list names it only beside --plugin (the executable alone cannot run Python)
{ cat "$T/order.yaml"; echo "plugins: [bad.py]"; } > "$T/listed.yaml"
expect 2 "a Python policy is run by python3 -m wanka" "$W" validate "$T/listed.yaml"
expect 0 "scheduler bad-py" "$W" validate "$T/listed.yaml" --plugin "$T/bad.py" --scheduler bad-py

# from Python (a notebook): the summary as a dict and the trace's path
LIB=$(dirname "$W")/libwanka.so
cat > "$T/nb.py" <<EOF2
import os, sys
import wanka
s, t = wanka.run("$T/order.yaml", policy="$FIFO", trace="$T/nb.h5")
assert s["scheduler"] == "fifo-py" and s["metrics"]["makespan_s"] == 2400, s
assert t == "$T/nb.h5" and os.path.getsize(t) > 0, t
s2, t2 = wanka.run("$T/order.yaml", trace=False)
assert t2 is None and s2["metrics"]["makespan_s"] == 2400
sys.path.insert(0, "$SRC/examples")
import policy_fifo
class Mine(policy_fifo.Fifo):
    name = "mine"
s3, _ = wanka.run("$T/order.yaml", policy=Mine, trace=False)
assert s3["scheduler"] == "mine" and s3["metrics"]["makespan_s"] == 2400, s3
try:
    wanka.run("$T/order.yaml", policy="$T/bad.py", trace=False)
    raise SystemExit("no error from a policy that raised")
except wanka.WankaError as e:
    assert e.code == 2 and "Bad.on_submit raised ZeroDivisionError" in str(e), str(e)
print("notebook ok")
EOF2
expect 0 "notebook ok" env PYTHONPATH="$SRC/python" WANKA_LIB="$LIB" "$PY" "$T/nb.py"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
