# lib.sh — what the shell scenario tests share (sourced, not run): a
# temporary directory removed at exit, pass/fail counters, and `expect`.
# Before sourcing, set NAME (used in the directory name).
T=$(mktemp -d "/tmp/wk-$NAME-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS PATTERN CMD... : exit status and a fixed string in stdout+stderr
expect() {
  want=$1 pat=$2; shift 2
  out=$("$@" 2>&1); st=$?
  if [ "$st" != "$want" ]; then bad "$* → status $st, want $want: $out"; return; fi
  case "$out" in *"$pat"*) ok ;; *) bad "$* → output lacks '$pat': $out" ;; esac
}
