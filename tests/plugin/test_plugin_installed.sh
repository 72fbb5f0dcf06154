#!/bin/sh
# test_plugin_installed.sh — a scheduler and a broker built outside
# wanka's tree, as a user builds them: wanka installed into a staging
# directory (meson install --destdir), examples/sched-largest-first and
# examples/broker-cheapest-idle configured with their own meson, finding
# wanka through pkg-config (PKG_CONFIG_PATH into the staged prefix,
# PKG_CONFIG_SYSROOT_DIR for its -I), then the installed wanka runs them
# and checks their conformance; a plugin compiled against the installed
# header with another ABI number is refused with exit 2. About 15 s (two
# meson configures and a few small builds).
# usage: test_plugin_installed.sh BUILDDIR SRCROOT
set -u
B=$1
SRC=$2
NAME=plugin-installed
. "$SRC/tests/scenario/lib.sh"

ST="$T/stage"
meson install -C "$B" --destdir "$ST" --no-rebuild --quiet >"$T/install.log" 2>&1 \
  || { cat "$T/install.log"; echo "meson install failed"; exit 1; }
W=$(find "$ST" -path '*/bin/wanka' -type f | head -n 1)
PC=$(find "$ST" -name wanka-sched.pc | head -n 1)
HDR=$(find "$ST" -path '*/include/wanka/sched.h' | head -n 1)
[ -x "$W" ] && ok || bad "no installed wanka under $ST"
[ -f "$PC" ] && ok || bad "no installed wanka-sched.pc under $ST"
[ -f "$HDR" ] && [ -f "$(dirname "$HDR")/error.h" ] && ok || bad "no installed wanka/sched.h and wanka/error.h"
[ -f "$(dirname "$HDR")/broker.h" ] && [ -f "$(dirname "$HDR")/node.h" ] && ok || bad "no installed wanka/broker.h and wanka/node.h"
[ "$fail" = 0 ] || { # a plugin calling a function this wanka does not export is refused at load
cat > "$T/undef.c" <<'C'
#include <wanka/sched.h>
int wk_sched_not_in_this_wanka(void);
static int init(void *p, const WkNode *n, const WkSchedCtx *c, WkError *e) { (void)p; (void)n; (void)c; (void)e; return wk_sched_not_in_this_wanka(); }
static int sub(void *p, WkSchedCtx *c, uint32_t j, WkError *e) { (void)p; return wk_sched_reject(c, j, "x", e); }
static int rel(void *p, WkSchedCtx *c, WkError *e) { (void)p; (void)c; (void)e; return 0; }
static size_t q(const void *p) { (void)p; return 0; }
static const WkSchedOps ops = {.abi = WK_SCHED_ABI, .name = "undef", .init = init,
                               .on_submit = sub, .on_release = rel, .queued = q};
const WkSchedOps *wk_sched_plugin(void);
const WkSchedOps *wk_sched_plugin(void) { return &ops; }
C
expect 0 "" cc -std=c11 -shared -fPIC $(pkg-config --cflags wanka-sched) "$T/undef.c" -o "$T/undef.so"
expect 2 "$T/undef.so: scheduler plugin: cannot load: $T/undef.so: undefined symbol: wk_sched_not_in_this_wanka" \
  "$W" conformance "$T/undef.so"

echo "$pass passed, $fail failed"; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$PC")"
export PKG_CONFIG_SYSROOT_DIR="$ST"
expect 0 "$ST" pkg-config --cflags wanka-sched

# the installed header compiles alone, with nothing of wanka's tree
printf '#include <wanka/sched.h>\nint main(void) { return WK_SCHED_ABI == 0; }\n' > "$T/alone.c"
expect 0 "" cc -std=c11 -Wall -Wextra -Wpedantic -Werror $(pkg-config --cflags wanka-sched) -c "$T/alone.c" -o "$T/alone.o"
printf '#include <wanka/broker.h>\nint main(void) { return WK_BROKER_ABI == 0; }\n' > "$T/alone_b.c"
expect 0 "" cc -std=c11 -Wall -Wextra -Wpedantic -Werror $(pkg-config --cflags wanka-sched) -c "$T/alone_b.c" -o "$T/alone_b.o"
# both interfaces in one file: their shared declarations agree
printf '#include <wanka/sched.h>\n#include <wanka/broker.h>\nint main(void) { return WK_SCHED_ABI != WK_BROKER_ABI; }\n' > "$T/both.c"
expect 0 "" cc -std=c11 -Wall -Wextra -Wpedantic -Werror $(pkg-config --cflags wanka-sched) -c "$T/both.c" -o "$T/both.o"

# the example, with its own meson, against the installed wanka
expect 0 "" meson setup "$T/ex" "$SRC/examples/sched-largest-first"
expect 0 "" ninja -C "$T/ex"
SO="$T/ex/largest_first.so"
[ -f "$SO" ] && ok || bad "the example did not build $SO"

cat > "$T/small.yaml" <<'Y'
name: small
seed: 4
cluster: {nodes: 4, gpus_per_node: 8}
workload:
  source: synthetic
  jobs: 300
  interarrival: {dist: exponential, mean: 3m}
  duration: {dist: lognormal, median: 20m, sigma: 1}
  gpus:
    - {gpus: 1, weight: 4}
    - {gpus: 8, weight: 2}
    - {gpus: 16, weight: 1}
    - {gpus: 32, weight: 0.3}
scheduler: largest-first
Y
expect 0 '"jobs_completed":300' "$W" run "$T/small.yaml" --plugin "$SO" --json -q -o "$T/small.h5"
[ -s "$T/small.h5" ] && ok || bad "no trace from the plugin's run"
expect 0 "largest-first" "$W" list schedulers --plugin "$SO"
expect 0 "7 passed, 0 failed" "$W" conformance "$SO"

# the example broker, with its own meson, against the installed wanka
expect 0 "" meson setup "$T/exb" "$SRC/examples/broker-cheapest-idle"
expect 0 "" ninja -C "$T/exb"
BSO="$T/exb/cheapest_idle.so"
[ -f "$BSO" ] && ok || bad "the example did not build $BSO"
expect 0 "4 passed, 0 failed" "$W" conformance --broker "$BSO"
expect 0 "cheapest-idle" "$W" list brokers --broker-plugin "$BSO"

# a plugin built against the installed header that declares another ABI
cat > "$T/wrong.c" <<'C'
#include <wanka/sched.h>
static int init(void *p, const WkNode *n, const WkSchedCtx *c, WkError *e) { (void)p; (void)n; (void)c; (void)e; return 0; }
static int sub(void *p, WkSchedCtx *c, uint32_t j, WkError *e) { (void)p; return wk_sched_reject(c, j, "x", e); }
static int rel(void *p, WkSchedCtx *c, WkError *e) { (void)p; (void)c; (void)e; return 0; }
static size_t q(const void *p) { (void)p; return 0; }
static const WkSchedOps ops = {.abi = WK_SCHED_ABI + 1, .name = "wrong-abi", .init = init,
                               .on_submit = sub, .on_release = rel, .queued = q};
const WkSchedOps *wk_sched_plugin(void);
const WkSchedOps *wk_sched_plugin(void) { return &ops; }
C
ABI=$(sed -n 's/^#define WK_SCHED_ABI \([0-9]*\).*/\1/p' "$HDR")
expect 0 "" cc -std=c11 -shared -fPIC $(pkg-config --cflags wanka-sched) "$T/wrong.c" -o "$T/wrong.so"
expect 2 "$T/wrong.so: scheduler plugin: ABI $((ABI + 1)), this wanka speaks ABI $ABI" \
  "$W" run "$T/small.yaml" --plugin "$T/wrong.so" -q --no-trace
expect 2 "ABI $((ABI + 1)), this wanka speaks ABI $ABI" "$W" conformance "$T/wrong.so"

# a plugin calling a function this wanka does not export is refused at load
cat > "$T/undef.c" <<'C'
#include <wanka/sched.h>
int wk_sched_not_in_this_wanka(void);
static int init(void *p, const WkNode *n, const WkSchedCtx *c, WkError *e) { (void)p; (void)n; (void)c; (void)e; return wk_sched_not_in_this_wanka(); }
static int sub(void *p, WkSchedCtx *c, uint32_t j, WkError *e) { (void)p; return wk_sched_reject(c, j, "x", e); }
static int rel(void *p, WkSchedCtx *c, WkError *e) { (void)p; (void)c; (void)e; return 0; }
static size_t q(const void *p) { (void)p; return 0; }
static const WkSchedOps ops = {.abi = WK_SCHED_ABI, .name = "undef", .init = init,
                               .on_submit = sub, .on_release = rel, .queued = q};
const WkSchedOps *wk_sched_plugin(void);
const WkSchedOps *wk_sched_plugin(void) { return &ops; }
C
expect 0 "" cc -std=c11 -shared -fPIC $(pkg-config --cflags wanka-sched) "$T/undef.c" -o "$T/undef.so"
expect 2 "$T/undef.so: scheduler plugin: cannot load: $T/undef.so: undefined symbol: wk_sched_not_in_this_wanka" \
  "$W" conformance "$T/undef.so"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
