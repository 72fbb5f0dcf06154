#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_tmp_signal.sh WANKA SRCDIR PYTHON3 — a writer stopped by SIGINT,
# SIGTERM or SIGHUP while its temporary is open removes it: `export` (chrome, csv)
# ends with 128 + the signal, one line "interrupted by SIG…; no output
# written", no "<out>.tmp.<pid>" and no output left; the Python writers
# (plot, the HTML page) do the same through analysis/plot.py's handler.
# A run whose temporary is replaced meanwhile publishes nothing.
W=$1 SRC=$2 PY=$3
NAME=tmp-signal
. "$SRC/tests/scenario/lib.sh"

# a trace whose export takes long enough (about a second in a release build)
# to be caught with its temporary open
cat > "$T/big.yaml" <<'Y'
cluster: {nodes: 64}
workload: {source: synthetic, jobs: 200000, interarrival: {dist: exponential, mean: 10s},
           gpus: [{gpus: 1, weight: 1}, {gpus: 8, weight: 1}], duration: {dist: exponential, mean: 5m}}
sim: {sample_interval: 1m}
Y
expect 0 "" "$W" run "$T/big.yaml" -q -o "$T/big.h5"

# interrupt SIG DIR CMD...: start CMD with SIG at its default action (a
# background job of a shell ignores SIGINT), send SIG as soon as a
# temporary appears in DIR, and check what is left
interrupt() {
  sig=$1 dir=$2; shift 2
  out=$("$PY" - "$sig" "$dir" "$@" <<'P' 2>&1
import os, signal, subprocess, sys, time
sig = getattr(signal, sys.argv[1]); d = sys.argv[2]; cmd = sys.argv[3:]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                     preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM)])
t0 = time.time()
while time.time() - t0 < 120 and p.poll() is None:
    if any(".tmp." in n for n in os.listdir(d)):
        p.send_signal(sig)
        break
    time.sleep(0.002)
out = p.communicate()[0].decode(errors="replace")
left = sorted(n for n in os.listdir(d) if ".tmp." in n)
print(f"status={p.returncode} left={left} out={out.strip()}")
P
)
  case "$out" in
    *"status=$((128 + $( [ "$sig" = SIGINT ] && echo 2 || echo 15 )))"*"left=[]"*"interrupted by $sig; no output written"*) ok ;;
    *) bad "$sig during $*: $out" ;;
  esac
}

mkdir "$T/o1" "$T/o2" "$T/o3"
interrupt SIGINT "$T/o1" "$W" export "$T/big.h5" --format chrome -o "$T/o1/t.json"
[ -e "$T/o1/t.json" ] && bad "SIGINT during export chrome left its output" || ok
interrupt SIGTERM "$T/o2" "$W" export "$T/big.h5" --format chrome -o "$T/o2/t.json"
interrupt SIGINT "$T/o3" "$W" export "$T/big.h5" --format csv -o "$T/o3"
[ -e "$T/o3/jobs.csv" ] && bad "SIGINT during export csv left an output" || ok
[ -d "$T/o3" ] && ok || bad "SIGINT during export csv removed the folder that was there before"

# export csv into a folder it creates: a signal removes the folder with the
# temporaries (status 128 + the signal); a folder that was there stays (o3)
for sig in SIGINT SIGTERM SIGHUP; do
  mkdir "$T/o6-$sig"
  out=$("$PY" - "$sig" "$T/o6-$sig/csv" "$W" export "$T/big.h5" --format csv -o "$T/o6-$sig/csv" <<'P' 2>&1
import os, signal, subprocess, sys, time
sig = getattr(signal, sys.argv[1]); d = sys.argv[2]
p = subprocess.Popen(sys.argv[3:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                     preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)])
t0 = time.time()
while time.time() - t0 < 120 and p.poll() is None:
    if os.path.isdir(d) and any(".tmp." in n for n in os.listdir(d)):
        p.send_signal(sig)
        break
    time.sleep(0.002)
out = p.communicate()[0].decode(errors="replace")
print(f"status={p.returncode} folder={os.path.exists(d)} out={out.strip()}")
P
)
  want=$((128 + $(case $sig in SIGINT) echo 2 ;; SIGTERM) echo 15 ;; *) echo 1 ;; esac)))
  case "$out" in
    *"status=$want folder=False"*"interrupted by $sig; no output written"*) ok ;;
    *) bad "$sig during export csv into a new folder: $out" ;;
  esac
done

# a temporary replaced while the run writes it (another process in the
# directory): the run never publishes the stranger's file nor writes into it
mkdir "$T/o4"
out=$("$PY" - "$T/o4" "$W" run "$T/big.yaml" -q -o "$T/o4/t.h5" <<'P' 2>&1
import os, subprocess, sys, time
d = sys.argv[1]; cmd = sys.argv[2:]
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
t0 = time.time()
while time.time() - t0 < 120 and p.poll() is None:
    tmps = [n for n in os.listdir(d) if ".tmp." in n]
    if tmps:
        os.rename(os.path.join(d, tmps[0]), os.path.join(d, "moved"))
        with open(os.path.join(d, tmps[0]), "w") as f:
            f.write("stranger")
        break
    time.sleep(0.001)
err = p.communicate()[1].decode(errors="replace")
print(f"status={p.returncode} out={os.path.exists(os.path.join(d, 't.h5'))} err={err.strip()}")
P
)
case "$out" in
  *"status=2 out=False"*"was removed or replaced during the run"*) ok ;;
  *) bad "temporary replaced during run: $out" ;;
esac
[ "$(cat "$T/o4"/t.h5.tmp.* 2>/dev/null)" = stranger ] && ok || bad "the stranger's file was changed or removed"

# SIGHUP (a closed terminal) is handled as SIGINT: status 129, no temporary left (the trace is
# written at the end: the signal comes while it is written, which then finishes)
mkdir "$T/o5"
interrupt_hup=$("$PY" - "$T/o5" "$W" run "$T/big.yaml" -q -o "$T/o5/t.h5" <<'P' 2>&1
import os, signal, subprocess, sys, time
d = sys.argv[1]
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                     preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))
t0 = time.time()
while time.time() - t0 < 120 and p.poll() is None:
    if any(".tmp." in n for n in os.listdir(d)):
        p.send_signal(signal.SIGHUP)
        break
    time.sleep(0.002)
err = p.communicate()[1].decode(errors="replace")
print(f"status={p.returncode} left={sorted(n for n in os.listdir(d) if '.tmp.' in n)} {err.strip()}")
P
)
case "$interrupt_hup" in "status=129 left=[] "*"SIGHUP"*) ok ;; *) bad "SIGHUP during run: $interrupt_hup" ;; esac

# report --html: SIGINT, SIGTERM or SIGHUP to wanka as soon as the page's
# temporary appears is passed on to python3: status 128 + the signal, one
# line, no page and no temporary (SIGHUP ended wanka by its default action
# before, and the page could still be written). On a loaded machine the
# signal can arrive after python3 has finished the page: then the complete
# page is kept, said in the one line, and still no temporary is left.
"$W" run "$T/big.yaml" -q --set workload.jobs=2000 -o "$T/small.h5" >/dev/null 2>&1 || bad "small run failed"
for sig in SIGINT SIGTERM SIGHUP; do
  mkdir "$T/o7-$sig"
  out=$("$PY" - "$sig" "$T/o7-$sig" "$W" report paper-sci "$T/small.h5" "$T/small.h5" --html "$T/o7-$sig/r.html" <<'P' 2>&1
import os, signal, subprocess, sys, time
sig = getattr(signal, sys.argv[1]); d = sys.argv[2]
p = subprocess.Popen(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                     preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)])
t0 = time.time()
while time.time() - t0 < 120 and p.poll() is None:
    if any(".tmp." in n for n in os.listdir(d)):
        p.send_signal(sig)
        break
    time.sleep(0.001)
err = p.communicate()[1].decode(errors="replace")
print(f"status={p.returncode} left={sorted(os.listdir(d))} err={err.strip()}")
P
)
  want=$((128 + $(case $sig in SIGINT) echo 2 ;; SIGTERM) echo 15 ;; *) echo 1 ;; esac)))
  case "$out" in
    *"status=$want left=[] err=wanka report: interrupted by $sig; "*"nothing written") ok ;;
    *"status=$want left=['r.html'] err=wanka report: interrupted by $sig after "*"had written its output (complete, kept)") ok ;;
    *) bad "$sig during report --html: $out" ;;
  esac
done

# the Python writers: a signal while a temporary is open removes it
for sig in SIGINT SIGTERM SIGHUP; do
  out=$("$PY" - "$SRC/analysis" "$T/py.svg" "$sig" <<'P' 2>&1
import os, signal, sys
sys.path.insert(0, sys.argv[1])
import plot
# as from a terminal: a run under nohup inherits SIGHUP ignored, which
# remove_tmps_on_signal rightly leaves ignored
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
plot.remove_tmps_on_signal()
tmp, f = plot.create_tmp(sys.argv[2])
f.write(b"partial")
f.flush()
os.kill(os.getpid(), getattr(signal, sys.argv[3]))
print("not stopped")
P
)
  st=$?
  want=$((128 + $(case $sig in SIGINT) echo 2 ;; SIGTERM) echo 15 ;; *) echo 1 ;; esac)))
  if [ "$st" != "$want" ]; then bad "python $sig: status $st, want $want: $out"
  elif ls "$T"/py.svg* >/dev/null 2>&1; then bad "python $sig: left $(ls "$T"/py.svg*)"
  else case "$out" in *"interrupted by $sig; no output written"*) ok ;; *) bad "python $sig: $out" ;; esac
  fi
done

# a signal the moment the temporary is created, before plot.py has noted its
# name (here raised from inside os.open): the temporary is still removed
out=$("$PY" - "$SRC/analysis" "$T/race.svg" <<'P' 2>&1
import os, signal, sys
sys.path.insert(0, sys.argv[1])
import plot
signal.signal(signal.SIGINT, signal.SIG_DFL)
plot.remove_tmps_on_signal()
real_open = os.open
def open_then_signal(*a, **k):
    fd = real_open(*a, **k)
    os.kill(os.getpid(), signal.SIGINT)
    return fd
os.open = open_then_signal
plot.create_tmp(sys.argv[2])
print("not stopped")
P
)
st=$?
if [ "$st" != 130 ]; then bad "signal at the temporary's creation: status $st, want 130: $out"
elif ls "$T"/race.svg* >/dev/null 2>&1; then bad "signal at the temporary's creation: left $(ls "$T"/race.svg*)"
else ok
fi

echo "tmp-signal: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
